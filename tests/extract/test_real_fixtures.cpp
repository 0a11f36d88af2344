// Expected workloads of every real dump in ../shared/fixtures/real (skipped
// when absent). Expectations were written from reading each file (see the
// per-fixture table in docs/extract.md); call counts are also checked against
// an independent text count of `R.call_tir(cls.NAME,` / `R.matmul(` per
// Relax function.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "sym_build.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::string real(const std::string& name) { return tc_test::shared_path("fixtures/real/" + name); }

ExtractResult run(const std::string& path, const ExtractOptions& o = {}) {
  return extract_workloads(ir::load_module(path), o);
}

const Workload& find(const ExtractResult& r, const std::string& fn, int nth = 0) {
  for (const auto& w : r.workloads)
    if (w.function == fn && nth-- == 0) return w;
  FAIL("no workload " << fn);
  throw 0;
}

Dim C(std::int64_t v) { return Dim::constant(v); }
Dim S(const std::string& s) { return Dim::symbolic(sym::sym_var(s)); }

void check_shape(const Workload& w, Dim b, Dim m, Dim n, Dim k) {
  INFO(w.function);
  CHECK(w.shape_known);
  CHECK(w.batch == b);
  CHECK(w.m == m);
  CHECK(w.n == n);
  CHECK(w.k == k);
}

void check_q4(const Workload& w, const std::string& scheme, const std::string& layout) {
  INFO(w.function);
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.quant.scheme == scheme);
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.elems_per_storage == 8);
  CHECK(w.quant.group_size == 32);
  CHECK(w.quant.granularity == QuantGranularity::kGroup);
  CHECK(w.quant.storage_dtype == parse_dtype("uint32"));
  CHECK(w.quant.zero_point == ZeroPointKind::kSymmetric);
  CHECK(w.quant.weight_layout == layout);
}

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Oracle: per Relax function (by `def` after `@R.function`), how often `needle` occurs.
std::map<std::string, std::int64_t> text_count(const std::string& text, const std::string& needle) {
  std::map<std::string, std::int64_t> out;
  std::istringstream in(text);
  std::string line, cur;
  bool relax_next = false;
  const std::regex def_re(R"(^\s*def\s+([A-Za-z_0-9]+)\s*\()");
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.find("@R.function") != std::string::npos) relax_next = true;
    else if (std::regex_search(line, m, def_re)) {
      cur = relax_next ? m[1].str() : std::string();
      relax_next = false;
    } else if (!cur.empty()) {
      for (std::size_t p = line.find(needle); p != std::string::npos; p = line.find(needle, p + 1)) ++out[cur];
    }
  }
  return out;
}

}  // namespace

TEST_CASE("fixture 01: Llama-2-13B q4f16_1 batched whole module") {
  const auto p = real("01_mlc_llama2_13b_q4f16_1_batched_whole_module.py");
  if (p.empty()) return;
  const auto r = run(p);
  CHECK(r.entries == std::vector<std::string>{"create_kv_cache", "decode_with_embed", "embed", "get_metadata",
                                              "prefill_with_embed", "softmax_with_temperature"});
  REQUIRE(r.workloads.size() == 10);
  const auto& qkv = find(r, "fused_fused_decode_NT_matmul");
  check_shape(qkv, C(1), S("nseq"), C(15360), C(5120));
  check_q4(qkv, "q4f16_1", "NK");
  CHECK(qkv.layout == "NT");
  CHECK(qkv.calls == std::map<std::string, std::int64_t>{{"decode_with_embed", 40}});
  check_shape(find(r, "fused_fused_decode_NT_matmul5"), C(1), S("n"), C(15360), C(5120));
  check_shape(find(r, "fused_fused_decode1_fused_NT_matmul1_add"), C(1), S("nseq"), C(5120), C(5120));
  check_shape(find(r, "fused_fused_decode2_NT_matmul2"), C(1), S("nseq"), C(27648), C(5120));
  check_shape(find(r, "fused_fused_decode3_fused_NT_matmul3_add"), C(1), S("nseq"), C(5120), C(13824));
  check_shape(find(r, "fused_fused_decode3_fused_NT_matmul8_add1"), C(1), S("n"), C(5120), C(13824));
  const auto& lm = find(r, "fused_fused_decode4_fused_NT_matmul4_cast");
  check_shape(lm, C(1), S("nseq"), S("vocab_size"), C(5120));
  CHECK(lm.dtype_out == parse_dtype("float32"));
  CHECK(lm.dtype_accum == parse_dtype("float16"));
  CHECK(lm.calls == std::map<std::string, std::int64_t>{{"decode_with_embed", 1}});
  check_shape(find(r, "fused_fused_decode4_fused_NT_matmul9_cast1"), C(1), C(1), S("vocab_size"), C(5120));
  for (const auto& w : r.workloads) check_q4(w, "q4f16_1", "NK");
  // Call counts against a text count of `R.call_tir(cls.NAME,` per Relax function.
  const std::string text = slurp(p);
  for (const auto& w : r.workloads) {
    auto oracle = text_count(text, "R.call_tir(cls." + w.function + ",");
    CHECK(w.calls == oracle);
  }
  REQUIRE(r.attention.size() == 2);
  for (const auto& a : r.attention) {
    CHECK(a.calls == 40);
    CHECK(a.num_heads == 40);
    CHECK(a.num_kv_heads == 40);
    CHECK(a.head_dim == 128);
  }
  CHECK(r.module_quant == "q4f16_1");
  CHECK(r.symbols == std::vector<std::string>{"n", "nseq", "vocab_size"});

  ExtractOptions o;
  o.entry = "prefill_with_embed";
  o.bindings = {{"n", 2048}, {"vocab_size", 32000}};
  const auto pre = run(p, o);
  REQUIRE(pre.workloads.size() == 5);
  check_shape(find(pre, "fused_fused_decode_NT_matmul5"), C(1), C(2048), C(15360), C(5120));
  CHECK(find(pre, "fused_fused_decode4_fused_NT_matmul9_cast1").n == C(32000));
  REQUIRE(pre.attention.size() == 1);
}

TEST_CASE("fixture 02: Llama-7B fp16 at Relax level (R.matmul + permute_dims)") {
  const auto p = real("02_mlc_llama7b_fp16_relax_before_quantize.py");
  if (p.empty()) return;
  const auto r = run(p);
  REQUIRE(r.workloads.size() == 11);
  const auto& qkvo = find(r, "decoding/lv66");
  check_shape(qkvo, C(1), C(1), C(4096), C(4096));
  CHECK(qkvo.layout == "NT");
  CHECK(qkvo.weight_operand == WeightOperand::kB);
  CHECK(qkvo.quant.scheme == "none");
  CHECK(qkvo.calls == std::map<std::string, std::int64_t>{{"decoding", 4}});
  check_shape(find(r, "decoding/lv105"), C(1), C(1), C(11008), C(4096));
  check_shape(find(r, "decoding/lv111"), C(1), C(1), C(4096), C(11008));
  const auto& lm = find(r, "decoding/lv116");
  check_shape(lm, C(1), C(1), C(32000), C(4096));
  CHECK(lm.calls == std::map<std::string, std::int64_t>{{"decoding", 1}, {"encoding", 1}});
  const auto& qk = find(r, "decoding/lv90");
  check_shape(qk, C(32), C(1), S("n"), C(128));
  CHECK(qk.weight_operand == WeightOperand::kNone);
  CHECK(qk.layout == "NT");
  check_shape(find(r, "decoding/lv97"), C(32), C(1), C(128), S("n"));
  check_shape(find(r, "encoding/lv8"), C(1), S("n"), C(4096), C(4096));
  check_shape(find(r, "encoding/lv32"), C(32), S("n"), S("m"), C(128));
  // Every R.matmul binding is counted exactly once per entry.
  const auto oracle = text_count(slurp(p), "R.matmul(");
  std::map<std::string, std::int64_t> total;
  for (const auto& w : r.workloads)
    for (const auto& [e, n] : w.calls) total[e] += n;
  CHECK(total == oracle);
  CHECK(r.module_quant == "q0f16");
}

TEST_CASE("fixture 03: Llama-7B q4 KN with fused decode-matmul and separate decode functions") {
  const auto p = real("03_mlc_llama7b_q4_fused_decode_matmul_whole_module.py");
  if (p.empty()) return;
  const auto r = run(p);
  REQUIRE(r.workloads.size() == 15);
  const auto& g = find(r, "fused_decode_matmul1");
  check_shape(g, C(1), C(1), C(4096), C(4096));
  check_q4(g, "q4f16_0", "KN");
  CHECK(g.layout == "NN");
  CHECK(g.calls == std::map<std::string, std::int64_t>{{"decoding", 3}});
  check_shape(find(r, "fused_decode1_fused_matmul3_silu"), C(1), C(1), C(11008), C(4096));
  check_shape(find(r, "fused_decode2_fused_matmul4_add"), C(1), C(1), C(4096), C(11008));
  check_shape(find(r, "fused_decode3_fused_matmul5_cast2"), C(1), C(1), C(32000), C(4096));
  // Prefill GEMMs take a weight dequantized by a separate prim_func (followed through Relax).
  const auto& pre = find(r, "NT_matmul1");
  check_shape(pre, C(1), S("n"), C(4096), C(4096));
  check_q4(pre, "q4f16_0", "KN");
  CHECK(pre.note.find("dequantized by") != std::string::npos);
  check_shape(find(r, "fused_NT_matmul4_add1"), C(1), S("n"), C(4096), C(11008));
  const auto& att = find(r, "fused_full_NT_matmul_divide1_maximum_minimum_cast");
  check_shape(att, C(32), C(1), S("n"), C(128));
  CHECK(att.weight_operand == WeightOperand::kNone);
  check_shape(find(r, "matmul8"), C(32), S("n"), C(128), S("m"));
  const std::string text = slurp(p);
  for (const auto& w : r.workloads) CHECK(w.calls == text_count(text, "R.call_tir(cls." + w.function + ","));
}

TEST_CASE("fixture 04: RedPajama-3B q4f32_0 (packed scale+min)") {
  const auto p = real("04_mlc_redpajama3b_q4f32_0_dispatch_module.py");
  if (p.empty()) return;
  const auto r = run(p);
  REQUIRE(r.workloads.size() == 13);
  const auto& lm = find(r, "fused_decode3_matmul1");
  check_shape(lm, C(1), C(1), C(50432), C(2560));
  CHECK(lm.quant.scheme == "q4f32_0");
  CHECK(lm.quant.scale_dtype == parse_dtype("float32"));
  CHECK(lm.quant.zero_point == ZeroPointKind::kTensor);
  CHECK(lm.quant.group_size == 32);
  CHECK(lm.quant.weight_layout == "KN");
  CHECK(lm.calls.empty());
  check_shape(find(r, "fused_decode5_fused_matmul9_add5_gelu1"), C(1), C(1), C(10240), C(2560));
  check_shape(find(r, "fused_decode6_fused_matmul10_add3_cast1_add4"), C(1), C(1), C(2560), C(10240));
  check_shape(find(r, "fused_NT_matmul2_add2_gelu"), C(1), C(128), C(10240), C(2560));  // n = T.meta_var(128)
  CHECK(find(r, "fused_NT_matmul2_add2_gelu").quant.scheme == "none");
  check_shape(find(r, "matmul8"), C(32), C(1), C(80), C(32));
  CHECK(r.module_quant == "q4f32_0");
}

TEST_CASE("fixture 05: RedPajama-3B fp16") {
  const auto p = real("05_mlc_redpajama3b_fp16_dispatch_module.py");
  if (p.empty()) return;
  const auto r = run(p);
  REQUIRE(r.workloads.size() == 9);
  check_shape(find(r, "fused_NT_matmul3_add6_gelu1_cast11"), C(1), S("n"), C(10240), C(2560));
  check_shape(find(r, "fused_NT_matmul_divide_maximum_minimum_cast2"), C(32), C(1), S("n"), C(80));
  for (const auto& w : r.workloads) CHECK(w.quant.scheme == "none");
  CHECK(r.module_quant == "q0f16");
}

TEST_CASE("fixtures 06-15: single dlight prim_funcs") {
  if (auto p = real("06_tvm_dlight_attention_qk_gemv_symbolic_n.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(32), C(1), S("n"), C(128));
    CHECK(r.workloads[0].weight_operand == WeightOperand::kNone);
    CHECK(r.workloads[0].layout == "NT");
    CHECK(r.workloads[0].dtype_out == parse_dtype("float32"));
  }
  if (auto p = real("07_tvm_dlight_q4f16_1_decode_gemv_int32dims.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(1), C(1), C(22016), C(4096));
    check_q4(r.workloads[0], "q4f16_1", "NK");
    CHECK(r.workloads[0].calls.empty());
  }
  if (auto p = real("08_tvm_dlight_q4f16_1_decode_gemv3_down_proj.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(1), C(1), C(4096), C(11008));
    check_q4(r.workloads[0], "q4f16_1", "NK");
  }
  if (auto p = real("09_tvm_dlight_autogptq_decode_gemv.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    const auto& w = r.workloads[0];
    check_shape(w, C(1), C(1), C(4096), C(4096));
    CHECK(w.layout == "NN");
    CHECK(w.quant.scheme == "autogptq");
    CHECK(w.quant.has_g_idx);
    CHECK(w.quant.group_size == 128);
    CHECK(w.quant.zero_point == ZeroPointKind::kTensor);
    CHECK(w.quant.weight_layout == "KN");
  }
  if (auto p = real("10_tvm_dlight_q4_low_batch_gemv_batch_size.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(1), S("batch_size"), C(4096), C(28672));
    check_q4(r.workloads[0], "q4f16_1", "NK");
  }
  if (auto p = real("11_tvm_dlight_fp32_matmul_symbolic_m.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(1), S("m"), C(4096), C(4096));
    CHECK(r.workloads[0].layout == "NN");
    CHECK(r.workloads[0].weight_operand == WeightOperand::kB);
    CHECK(r.workloads[0].dtype_a == parse_dtype("float32"));
    CHECK(r.module_quant == "q0f32");
  }
  if (auto p = real("12_tvm_dlight_q4f16_1_dequant_matmul_fp32_accum.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    const auto& w = r.workloads[0];
    check_shape(w, C(1), S("n"), C(4096), C(4096));
    CHECK(w.dtype_accum == parse_dtype("float32"));
    CHECK(w.dtype_out == parse_dtype("float16"));
    CHECK(w.dtype_a == parse_dtype("float16"));
    check_q4(w, "q4f16_1", "NK");
    CHECK(w.note.find("read transposed") != std::string::npos);
  }
  if (auto p = real("13_tvm_dlight_q4_KN_fused_dequant_matmul_bias.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(1), S("seq_len"), C(12288), C(4096));
    check_q4(r.workloads[0], "q4f16_0", "KN");
  }
  if (auto p = real("14_tvm_dlight_fp16_NT_matmul_inline_consumer.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    check_shape(r.workloads[0], C(1), S("n"), C(2048), C(2048));
    CHECK(r.workloads[0].layout == "NT");
    CHECK(r.workloads[0].weight_operand == WeightOperand::kB);
  }
  if (auto p = real("15_tvm_dlight_conv3d.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 1);
    const auto& w = r.workloads[0];
    CHECK(w.kind == WorkloadKind::kConv);
    check_shape(w, C(1), C(14308), C(1280), C(3 * 2 * 14 * 14));
    CHECK(w.conv.spatial_dims == 3);
    CHECK(w.conv.strides == std::vector<std::int64_t>{2, 14, 14});
    CHECK(w.conv.dilations == std::vector<std::int64_t>{1, 1, 1});
  }
}

TEST_CASE("fixture 16: FasterTransformer q4f16_ft GEMM at Relax level") {
  const auto p = real("16_mlc_ft_quant_fastertransformer_gemm_relax.py");
  if (p.empty()) return;
  const auto r = run(p);
  REQUIRE(r.workloads.size() == 1);
  const auto& w = r.workloads[0];
  check_shape(w, C(1), C(1), C(1024), C(4096));
  CHECK(w.quant.scheme == "q4f16_ft");
  CHECK(w.quant.storage_dtype == parse_dtype("int8"));
  CHECK(w.quant.elems_per_storage == 2);
  CHECK(w.calls == std::map<std::string, std::int64_t>{{"main", 1}});
}

TEST_CASE("fixtures 17-19: dlight-bench prim_func files") {
  if (auto p = real("17_mlc_llama2_7b_q4f16_1_primfuncs.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 10);
    for (const auto& w : r.workloads) check_q4(w, "q4f16_1", "NK");
    check_shape(find(r, "fused_fused_decode2_NT_matmul"), C(1), S("n"), C(12288), C(4096));
    check_shape(find(r, "fused_fused_decode4_NT_matmul7"), C(1), C(1), C(22016), C(4096));
    check_shape(find(r, "fused_fused_decode5_fused_NT_matmul3_add"), C(1), S("n"), C(4096), C(11008));
    // The duplicate lm_head definitions are both listed.
    check_shape(find(r, "fused_fused_decode1_fused_NT_matmul4_cast", 0), C(1), C(1), C(32000), C(4096));
    check_shape(find(r, "fused_fused_decode1_fused_NT_matmul4_cast", 1), C(1), C(1), C(32000), C(4096));
    CHECK(find(r, "fused_fused_decode1_fused_NT_matmul4_cast", 0).loc.line <
          find(r, "fused_fused_decode1_fused_NT_matmul4_cast", 1).loc.line);
  }
  if (auto p = real("18_mlc_llama2_7b_q4f16_0_primfuncs.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 10);
    const auto& g = find(r, "fused_fused_decode7_matmul2");
    check_shape(g, C(1), C(1), C(12288), C(4096));
    check_q4(g, "q4f16_0", "KN");
    CHECK(g.layout == "NN");
    const auto& nt = find(r, "NT_matmul");
    check_shape(nt, C(1), S("n"), C(12288), C(4096));
    CHECK(nt.quant.scheme == "none");  // its weight is dequantized by a caller not in this file
  }
  if (auto p = real("19_mlc_vicuna_7b_fp16_primfuncs.py"); !p.empty()) {
    const auto r = run(p);
    REQUIRE(r.workloads.size() == 2);
    check_shape(find(r, "matmul"), C(32), S("n"), C(128), S("m"));
    check_shape(find(r, "matmul1"), C(32), C(1), C(128), S("n"));
    for (const auto& w : r.workloads) CHECK(w.weight_operand == WeightOperand::kNone);
  }
}

TEST_CASE("fixtures 20/21: the Relax matmul and its legalized TIR give the same shape (issue 13 item 6)") {
  const auto p20 = real("20_tvm2023_old_relax_matmul_symbolic_before.py");
  const auto p21 = real("21_tvm2023_old_relax_matmul_symbolic_legalized.py");
  if (p20.empty() || p21.empty()) return;
  const auto r20 = run(p20), r21 = run(p21);
  REQUIRE(r20.workloads.size() == 1);
  REQUIRE(r21.workloads.size() == 1);
  // one convention: a dim only one operand has (the other broadcast over it) joins its M / N
  using sym_build::v;
  const Dim bm = sym_build::dim(v("b") * v("m")), acn = sym_build::dim(v("a") * v("c") * v("n"));
  check_shape(r20.workloads[0], C(1), bm, acn, S("k"));
  check_shape(r21.workloads[0], C(1), bm, acn, S("k"));
  CHECK(bm.str() == "b * m");
  CHECK(acn.str() == "a * c * n");
  CHECK(r21.workloads[0].calls == std::map<std::string, std::int64_t>{{"main", 1}});
  const std::map<std::string, std::int64_t> b{{"a", 2}, {"b", 3}, {"c", 5}, {"m", 7}, {"n", 11}, {"k", 13}};
  auto macs = [&](const Workload& w) {
    return bind_dim(w.batch, b, true).value.value() * bind_dim(w.m, b, true).value.value() *
           bind_dim(w.n, b, true).value.value() * bind_dim(w.k, b, true).value.value();
  };
  CHECK(macs(r20.workloads[0]) == 2 * 3 * 5 * 7 * 11 * 13);
  CHECK(macs(r21.workloads[0]) == macs(r20.workloads[0]));
}

TEST_CASE("fixture 22: 2022 tensor-core matmul, blockized and padded to 128") {
  const auto p = real("22_tvm2022_old_tbuffer_brackets_matmul_relu_tensorcore.py");
  if (p.empty()) return;
  const auto r = run(p);
  REQUIRE(r.workloads.size() == 1);
  const auto& w = r.workloads[0];
  check_shape(w, C(1), C(128), C(128), C(128));
  CHECK(w.dtype_a == parse_dtype("float16"));
  CHECK(w.dtype_accum == parse_dtype("float32"));
  CHECK(w.dtype_out == parse_dtype("float32"));
}

TEST_CASE("fixtures 23-25: scheduled GEMVs give the unscheduled workload") {
  const auto p23 = real("23_tvm2026_tirx_sblock_q4f16_1_lm_head_gemv_before.py");
  if (p23.empty()) return;
  const auto before = run(p23);
  REQUIRE(before.workloads.size() == 1);
  const auto& b = before.workloads[0];
  check_shape(b, C(1), C(1), C(32000), C(4096));
  check_q4(b, "q4f16_1", "NK");
  CHECK(b.dtype_out == parse_dtype("float32"));
  for (const char* f : {"24_tvm2026_tirx_sblock_q4f16_1_lm_head_gemv_scheduled.py",
                        "25_tvm_dlight_q4f16_1_lm_head_gemv_scheduled.py"}) {
    const auto p = real(f);
    if (p.empty()) continue;
    const auto r = run(p);
    INFO(f);
    REQUIRE(r.workloads.size() == 1);
    const auto& w = r.workloads[0];
    CHECK(w.m == b.m);
    CHECK(w.n == b.n);
    CHECK(w.k == b.k);
    CHECK(w.batch == b.batch);
    CHECK(w.layout == b.layout);
    CHECK(w.quant == b.quant);
    CHECK(w.dtype_out == b.dtype_out);
    CHECK(w.weight_operand == b.weight_operand);
  }
}

TEST_CASE("fixtures 26-29: TVM JSON graphs (single TIR/Relax nodes, no GEMM)") {
  for (const char* f : {"26_tvm_json_legacy_v0.15_tir_bufferstore_ramp.json",
                        "27_tvm_json_legacy_v0.17_tir_bufferload_predicate.json", "28_tvm_json_ffi_v0.26_tirx_add.json",
                        "29_tvm_json_ffi_v0.26_relax_tuple.json"}) {
    const auto p = real(f);
    if (p.empty()) continue;
    INFO(f);
    ir::Module m;
    try {
      m = ir::load_module(p);
    } catch (const InputError& e) {
      if (std::string(e.what()).find("not implemented") != std::string::npos) {
        WARN("TVM JSON reader not available yet");
        return;
      }
      // A graph whose root is not a module/function may be rejected by the reader: fine here.
      continue;
    }
    ExtractResult r;
    REQUIRE_NOTHROW(r = extract_workloads(m));
    CHECK(r.workloads.empty());
  }
}
