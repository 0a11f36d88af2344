// TIR GEMM / conv / quantization recognition on hand-built IR.
#include <catch2/catch.hpp>

#include "irb.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/report.hpp"

using namespace tenet_cost;
using irb::block;
using irb::buffer;
using irb::store;

namespace {

ir::Module one(ir::PrimFunc f) {
  ir::Module m;
  m.prim_funcs.push_back(std::move(f));
  return m;
}

const char* kDecodeNK =
    "(T.Cast(\"float16\", T.bitwise_and(T.shift_right(W[v_i, v_j // 8], T.Cast(\"uint32\", v_j % 8) * T.uint32(4)), "
    "T.uint32(15))) - T.float16(7)) * S[v_i, v_j // 32]";

// Fixture 07 shape: q4f16_1 decode GEMV, W (N, K/8) u32, S (N, K/32) f16.
ir::PrimFunc q4_gemv(const std::string& n_extent = "22016") {
  return irb::func(
      "gemv", {buffer("W", "uint32", {n_extent, "512"}), buffer("S", "float16", {n_extent, "128"}),
               buffer("x", "float16", {"1", "1", "4096"}), buffer("out", "float16", {"1", "1", n_extent})},
      {buffer("Wd", "float16", {n_extent, "4096"})},
      {block("decode", "SS", {"v_i:" + n_extent, "v_j:4096"}, store("Wd[v_i, v_j]", kDecodeNK)),
       block("NT_matmul", "SSSR", {"v_i0:1", "v_i1:1", "v_i2:" + n_extent, "v_k:4096"},
             store("out[v_i0, v_i1, v_i2]", "out[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * Wd[v_i2, v_k]"),
             store("out[v_i0, v_i1, v_i2]", "T.float16(0)"))});
}

}  // namespace

TEST_CASE("q4f16_1 decode GEMV: shape, layout, weight and quantization") {
  auto r = extract_workloads(one(q4_gemv()));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.function == "gemv");
  CHECK(w.kind == WorkloadKind::kGemm);
  CHECK(w.m == Dim::constant(1));
  CHECK(w.n == Dim::constant(22016));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.batch == Dim::constant(1));
  CHECK(w.layout == "NT");
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.dtype_a == parse_dtype("float16"));
  CHECK(w.dtype_b == parse_dtype("float16"));
  CHECK(w.dtype_out == parse_dtype("float16"));
  CHECK(w.dtype_accum == parse_dtype("float16"));
  CHECK(w.quant.scheme == "q4f16_1");
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.elems_per_storage == 8);
  CHECK(w.quant.group_size == 32);
  CHECK(w.quant.granularity == QuantGranularity::kGroup);
  CHECK(w.quant.storage_dtype == parse_dtype("uint32"));
  CHECK(w.quant.scale_dtype == parse_dtype("float16"));
  CHECK(w.quant.zero_point == ZeroPointKind::kSymmetric);
  CHECK(w.quant.weight_layout == "NK");
  CHECK_FALSE(w.quant.has_g_idx);
  CHECK(w.calls.empty());
  CHECK(r.module_quant == "q4f16_1");
}

TEST_CASE("symbolic N stays symbolic and binds") {
  auto r = extract_workloads(one(q4_gemv("vocab_size")));
  REQUIRE(r.workloads.size() == 1);
  CHECK(r.workloads[0].n == Dim::symbolic(sym::sym_var("vocab_size")));
  CHECK(r.symbols == std::vector<std::string>{"vocab_size"});
  ExtractOptions o;
  o.bindings = {{"vocab_size", 32000}};
  auto b = extract_workloads(one(q4_gemv("vocab_size")), o);
  CHECK(b.workloads[0].n == Dim::constant(32000));
  CHECK(b.symbols.empty());
}

TEST_CASE("KN dequant through compute -> dequantize chain with symbolic M (q4f16_0)") {
  auto f = irb::func(
      "f", {buffer("W", "uint32", {"512", "12288"}), buffer("S", "float16", {"128", "12288"}),
            buffer("x", "float16", {"1", "seq_len", "4096"}), buffer("y", "float16", {"1", "seq_len", "12288"})},
      {buffer("c", "float16", {"4096", "12288"}), buffer("d", "float16", {"4096", "12288"})},
      {block("compute", "SS", {"v_i0:4096", "v_i1:12288"},
             store("c[v_i0, v_i1]",
                   "T.Cast(\"float16\", T.bitwise_and(T.shift_right(W[v_i0 // 8, v_i1], T.Cast(\"uint32\", v_i0 % 8 * "
                   "4)), T.uint32(15)))")),
       block("dequantize", "SS", {"v_i0:4096", "v_i1:12288"},
             store("d[v_i0, v_i1]", "(c[v_i0, v_i1] - T.float16(7)) * S[v_i0 // 32, v_i1]")),
       block("matmul", "SSSR", {"v_i0:1", "v_i1:seq_len", "v_i2:12288", "v_k:4096"},
             store("y[v_i0, v_i1, v_i2]", "y[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * d[v_k, v_i2]"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.m == Dim::symbolic(sym::sym_var("seq_len")));
  CHECK(w.n == Dim::constant(12288));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.layout == "NN");
  CHECK(w.quant.scheme == "q4f16_0");
  CHECK(w.quant.weight_layout == "KN");
  CHECK(w.quant.group_size == 32);
}

TEST_CASE("attention QK^T: batch heads, both operands activations") {
  auto f = irb::func(
      "qk", {buffer("q", "float16", {"1", "32", "1", "128"}), buffer("kk", "float16", {"1", "32", "n", "128"}),
             buffer("s", "float16", {"1", "32", "1", "n"})},
      {},
      {block("NT_matmul", "SSSSR", {"v_i0:1", "v_i1:32", "v_i2:1", "v_i3:n", "v_k:128"},
             store("s[v_i0, v_i1, v_i2, v_i3]",
                   "s[v_i0, v_i1, v_i2, v_i3] + q[v_i0, v_i1, v_i2, v_k] * kk[v_i0, v_i1, v_i3, v_k]"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.batch == Dim::constant(32));
  CHECK(w.m == Dim::constant(1));
  CHECK(w.n == Dim::symbolic(sym::sym_var("n")));
  CHECK(w.k == Dim::constant(128));
  CHECK(w.layout == "NT");
  CHECK(w.weight_operand == WeightOperand::kNone);
  CHECK(w.quant.scheme == "none");
  CHECK(r.module_quant.empty());
}

TEST_CASE("fp32 accumulation with cast operands; output dtype follows the epilogue") {
  auto f = irb::func(
      "f", {buffer("x", "float16", {"1", "n", "4096"}), buffer("W", "float16", {"4096", "4096"}),
            buffer("y", "float16", {"1", "n", "4096"})},
      {buffer("acc", "float32", {"1", "n", "4096"})},
      {block("matmul", "SSSR", {"v_i0:1", "v_i1:n", "v_i2:4096", "v_k:4096"},
             store("acc[v_i0, v_i1, v_i2]",
                   "acc[v_i0, v_i1, v_i2] + T.Cast(\"float32\", x[v_i0, v_i1, v_k]) * T.Cast(\"float32\", W[v_k, v_i2])")),
       block("cast", "SSS", {"v0:1", "v1:n", "v2:4096"},
             store("y[v0, v1, v2]", "T.Cast(\"float16\", acc[v0, v1, v2])"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.dtype_a == parse_dtype("float16"));
  CHECK(w.dtype_b == parse_dtype("float16"));
  CHECK(w.dtype_accum == parse_dtype("float32"));
  CHECK(w.dtype_out == parse_dtype("float16"));
  CHECK(w.layout == "NN");
  CHECK(w.weight_operand == WeightOperand::kB);  // static 2-D param beats the symbolic activation
  CHECK(w.quant.scheme == "none");
  CHECK(w.quant.weight_bits == 0);
  CHECK(r.module_quant == "q0f16");
}

TEST_CASE("rfactor-scheduled GEMV gives the unscheduled shape") {
  // Fixture 25's NT_matmul_rf_update: spatial rf axis (128) inside the K index of both operands.
  const std::string kidx = "r0 * 256 + rf // 4 * 8 + r2 * 4 + rf % 4";
  const std::string deq = "(T.Cast(\"float16\", T.bitwise_and(T.shift_right(Wl[v0, r0 * 32 + rf // 4 + r2 // 2], "
                          "T.Cast(\"uint32\", (" + kidx + ") % 8) * T.uint32(4)), T.uint32(15))) - T.float16(7)) * S[v0, (" +
                          kidx + ") // 32]";
  auto f = irb::func(
      "sched", {buffer("W", "uint32", {"32000", "512"}), buffer("S", "float16", {"32000", "128"}),
                buffer("x", "float16", {"1", "1", "4096"}), buffer("out", "float32", {"1", "1", "32000"})},
      {buffer("Wl", "uint32", {"32000", "512"}), buffer("xs", "float16", {"1", "1", "4096"}),
       buffer("rf", "float16", {"128", "1", "1", "32000"}), buffer("acc", "float16", {"1", "1", "32000"})},
      {block("x_shared", "SSS", {"a0:1", "a1:1", "a2:4096"}, store("xs[a0, a1, a2]", "x[a0, a1, a2]")),
       block("W_local", "SS", {"b0:32000", "b1:512"}, store("Wl[b0, b1]", "W[b0, b1]")),
       block("NT_matmul_rf_update", "SSRR", {"rf:128", "v0:32000", "r0:16", "r2:2"},
             store("rf[rf, 0, 0, v0]", "rf[rf, 0, 0, v0] + xs[0, 0, " + kidx + "] * (" + deq + ")")),
       block("NT_matmul", "SR", {"u0:32000", "u1:128"}, store("acc[0, 0, u0]", "acc[0, 0, u0] + rf[u1, 0, 0, u0]")),
       block("compute", "S", {"c0:32000"}, store("out[0, 0, c0]", "T.Cast(\"float32\", acc[0, 0, c0])"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.m == Dim::constant(1));
  CHECK(w.n == Dim::constant(32000));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.layout == "NT");
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.dtype_out == parse_dtype("float32"));
  CHECK(w.quant.scheme == "q4f16_1");
  CHECK(w.quant.group_size == 32);
  CHECK(w.quant.elems_per_storage == 8);
}

TEST_CASE("blockized tensor-core matmul uses the outer block's iter vars") {
  auto outer = std::make_shared<ir::Block>();
  outer->name = "C_o";
  for (auto [n, k] : {std::pair<const char*, ir::IterKind>{"v0_o", ir::IterKind::kSpatial},
                      {"v1_o", ir::IterKind::kSpatial}, {"v2_o", ir::IterKind::kReduce}}) {
    ir::IterVar iv;
    iv.name = n;
    iv.kind = k;
    iv.extent = irb::E("8");
    outer->iter_vars.push_back(iv);
  }
  outer->body = block("C", "SSR", {"v0_i:16", "v1_i:16", "v2_i:16"},
                      store("C[v0_o * 16 + v0_i, v1_o * 16 + v1_i]",
                            "C[v0_o * 16 + v0_i, v1_o * 16 + v1_i] + T.Cast(\"float32\", A[v0_o * 16 + v0_i, v2_o * 16 + "
                            "v2_i]) * T.Cast(\"float32\", B[v2_o * 16 + v2_i, v1_o * 16 + v1_i])"));
  auto s = std::make_shared<ir::Stmt>();
  s->kind = ir::StmtKind::kBlock;
  s->block = outer;
  auto f = irb::func("mm", {buffer("A", "float16", {"128", "128"}), buffer("B", "float16", {"128", "128"})},
                     {buffer("C", "float32", {"128", "128"})}, {s});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.m == Dim::constant(128));
  CHECK(w.n == Dim::constant(128));
  CHECK(w.k == Dim::constant(128));
  CHECK(w.layout == "NN");
}

TEST_CASE("conv3d with strided windows") {
  auto f = irb::func(
      "conv", {buffer("A", "float16", {"14308", "3", "2", "14", "14"}), buffer("W", "float16", {"1280", "3", "2", "14", "14"}),
               buffer("C", "float16", {"14308", "1280", "1", "1", "1"})},
      {buffer("pad_A", "float16", {"14308", "3", "2", "14", "14"})},
      {block("pad_A", "SSSSS", {"v_i0:14308", "v_i1:3", "v_i2:2", "v_i3:14", "v_i4:14"},
             store("pad_A[v_i0, v_i1, v_i2, v_i3, v_i4]", "A[v_i0, v_i1, v_i2, v_i3, v_i4]")),
       block("C", "SSSSSRRRR",
             {"v_nn:14308", "v_ff:1280", "v_yy:1", "v_xx:1", "v_zz:1", "v_rc:3", "v_ry:2", "v_rx:14", "v_rz:14"},
             store("C[v_nn, v_ff, v_yy, v_xx, v_zz]",
                   "C[v_nn, v_ff, v_yy, v_xx, v_zz] + pad_A[v_nn, v_rc, v_yy * 2 + v_ry, v_xx * 14 + v_rx, v_zz * 14 + "
                   "v_rz] * W[v_ff, v_rc, v_ry, v_rx, v_rz]"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.kind == WorkloadKind::kConv);
  CHECK(w.m == Dim::constant(14308));
  CHECK(w.n == Dim::constant(1280));
  CHECK(w.k == Dim::constant(3 * 2 * 14 * 14));
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.conv.spatial_dims == 3);
  CHECK(w.conv.strides == std::vector<std::int64_t>{2, 14, 14});
  CHECK(w.conv.dilations == std::vector<std::int64_t>{1, 1, 1});
  CHECK(w.conv.loop_names.size() == 9);
  CHECK(std::string(w.conv.loop_kinds.begin(), w.conv.loop_kinds.end()) == "SSSSSRRRR");
  CHECK(w.conv.loop_extents[1] == Dim::constant(1280));
}

TEST_CASE("reductions that are not GEMMs are skipped") {
  auto f = irb::func(
      "norm", {buffer("A", "float16", {"1", "n", "4096"}), buffer("B", "float16", {"4096"})},
      {buffer("sq", "float32", {"1", "n"}), buffer("sm", "float32", {"1", "n"}), buffer("sc", "float32", {"1", "n"})},
      {block("sumsq", "SSR", {"v0:1", "v1:n", "k:4096"},
             store("sq[v0, v1]", "sq[v0, v1] + T.Cast(\"float32\", A[v0, v1, k]) * T.Cast(\"float32\", A[v0, v1, k])")),
       block("sum", "SSR", {"v0:1", "v1:n", "k:4096"}, store("sm[v0, v1]", "sm[v0, v1] + T.exp(A[v0, v1, k])")),
       block("scaled", "SSR", {"v0:1", "v1:n", "k:4096"},
             store("sc[v0, v1]", "sc[v0, v1] + A[v0, v1, k] * T.float16(2)"))});
  auto r = extract_workloads(one(f));
  CHECK(r.workloads.empty());
}

TEST_CASE("AutoGPTQ: zero-point tensor, g_idx indirection, group from the scale shape") {
  const std::string deq =
      "(T.Cast(\"float16\", T.bitwise_and(T.shift_right(qw[v_i // 8, v_j], T.Cast(\"uint32\", v_i % 8 * 4)), "
      "T.uint32(15))) - (T.Cast(\"float16\", T.bitwise_and(T.shift_right(qz[gi[v_i], v_j // 8], T.Cast(\"uint32\", v_j % "
      "8 * 4)), T.uint32(15))) + T.float16(1))) * sc[gi[v_i], v_j]";
  auto f = irb::func(
      "gptq", {buffer("qw", "uint32", {"512", "4096"}), buffer("qz", "uint32", {"32", "512"}),
               buffer("sc", "float16", {"32", "4096"}), buffer("gi", "uint32", {"4096"}),
               buffer("x", "float16", {"1", "1", "4096"}), buffer("y", "float16", {"1", "1", "4096"})},
      {buffer("d", "float16", {"4096", "4096"})},
      {block("decode", "SS", {"v_i:4096", "v_j:4096"}, store("d[v_i, v_j]", deq)),
       block("matmul", "SSSR", {"v_i0:1", "v_i1:1", "v_i2:4096", "v_k:4096"},
             store("y[v_i0, v_i1, v_i2]", "y[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * d[v_k, v_i2]"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const QuantInfo& q = r.workloads[0].quant;
  CHECK(q.scheme == "autogptq");
  CHECK(q.weight_bits == 4);
  CHECK(q.zero_point == ZeroPointKind::kTensor);
  CHECK(q.has_g_idx);
  CHECK(q.group_size == 128);
  CHECK(q.weight_layout == "KN");
  CHECK(q.granularity == QuantGranularity::kGroup);
}

TEST_CASE("q4f32_0: scale and min packed in a uint32 as two bf16 halves") {
  const std::string deq =
      "T.Cast(\"float32\", T.bitwise_and(T.shift_right(A[v_i // 8, v_j], T.Cast(\"uint32\", v_i % 8 * 4)), "
      "T.uint32(15))) * T.reinterpret(\"float32\", T.shift_left(T.bitwise_and(B[v_i // 32, v_j], T.uint32(65535)), "
      "T.uint32(16))) + T.reinterpret(\"float32\", T.shift_left(T.bitwise_and(T.shift_right(B[v_i // 32, v_j], "
      "T.uint32(16)), T.uint32(65535)), T.uint32(16)))";
  auto f = irb::func(
      "q", {buffer("A", "uint32", {"320", "2560"}), buffer("B", "uint32", {"80", "2560"}),
            buffer("x", "float32", {"1", "1", "2560"}), buffer("y", "float32", {"1", "1", "2560"})},
      {buffer("d", "float32", {"2560", "2560"})},
      {block("decode", "SS", {"v_i:2560", "v_j:2560"}, store("d[v_i, v_j]", deq)),
       block("matmul", "SSSR", {"v_i0:1", "v_i1:1", "v_i2:2560", "v_k:2560"},
             store("y[v_i0, v_i1, v_i2]", "y[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * d[v_k, v_i2]"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const QuantInfo& q = r.workloads[0].quant;
  CHECK(q.scheme == "q4f32_0");
  CHECK(q.scale_dtype == parse_dtype("float32"));
  CHECK(q.zero_point == ZeroPointKind::kTensor);
  CHECK(q.group_size == 32);
  CHECK(q.weight_layout == "KN");
}

TEST_CASE("fp8 e4m3 weight with a per-tensor scale") {
  auto f = irb::func(
      "fp8", {buffer("W", "float8_e4m3fn", {"4096", "4096"}), buffer("s", "float32", {"1"}),
              buffer("x", "float16", {"1", "1", "4096"}), buffer("y", "float16", {"1", "1", "4096"})},
      {},
      {block("NT_matmul", "SSSR", {"v_i0:1", "v_i1:1", "v_i2:4096", "v_k:4096"},
             store("y[v_i0, v_i1, v_i2]",
                   "y[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * (T.Cast(\"float16\", W[v_i2, v_k]) * T.Cast(\"float16\", "
                   "s[0]))"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  const QuantInfo& q = r.workloads[0].quant;
  CHECK(q.scheme == "e4m3_e4m3_f16");
  CHECK(q.weight_bits == 8);
  CHECK(q.storage_dtype == parse_dtype("float8_e4m3fn"));
  CHECK(q.granularity == QuantGranularity::kTensor);
  CHECK(q.scale_dtype == parse_dtype("float32"));
  CHECK(q.weight_layout == "NK");
}

TEST_CASE("unknown extents give shape_known=false, never a guess") {
  auto f = irb::func("f", {buffer("x", "float16", {"4", "8"}), buffer("W", "float16", {"8", "8"})},
                     {buffer("y", "float16", {"4", "8"})},
                     {block("mm", "SSR", {"i:T.max(n, 4)", "j:8", "k:8"},
                            store("y[i, j]", "y[i, j] + x[i, k] * W[k, j]"))});
  auto r = extract_workloads(one(f));
  REQUIRE(r.workloads.size() == 1);
  CHECK_FALSE(r.workloads[0].shape_known);
  CHECK(r.workloads[0].note.find("not an integer expression") != std::string::npos);
  const std::string j = report::extract_json(r);
  CHECK(j.find("\"m\": null") != std::string::npos);
}

TEST_CASE("duplicate prim_func names are both listed, in file order") {
  ir::Module m;
  m.prim_funcs.push_back(q4_gemv());
  m.prim_funcs.push_back(q4_gemv("4096"));
  m.prim_funcs[0].loc.line = 10;
  m.prim_funcs[1].loc.line = 20;
  auto r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 2);
  CHECK(r.workloads[0].n == Dim::constant(22016));
  CHECK(r.workloads[1].n == Dim::constant(4096));
  CHECK(r.workloads[1].note.find("duplicate") != std::string::npos);
}
