// Forms TVM prints in 2026 and weight-only layouts without bit operations (issue 13 items 1
// and 2), negative extents (issue 14 item 3), on the project's own fixtures.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "sym_build.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const Workload& find(const ExtractResult& r, const std::string& fn) {
  for (const auto& w : r.workloads)
    if (w.function == fn) return w;
  FAIL("no workload " << fn);
  throw 0;
}

std::string error_of(const std::string& text, const std::string& name = "t.py") {
  try {
    (void)extract_workloads(name.size() > 5 && name.substr(name.size() - 5) == ".json"
                                ? ir::read_tvm_json(text, name)
                                : ir::parse_tvmscript(text, name));
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("2026 Relax forms: out_ty=, pure=False, module attrs, device mesh, DTensor shapes") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/relax_2026_forms.py")));
  REQUIRE(r.workloads.size() == 2);
  const Workload& mm = find(r, "NT_matmul");
  CHECK(mm.m == Dim::symbolic(sym::sym_var("n")));
  CHECK(mm.n == Dim::constant(2048));
  CHECK(mm.k == Dim::constant(1024));
  CHECK(mm.calls.at("prefill") == 1);
  // R.matmul of two sharded tensors: the global shapes (1, n, 1024) x (1024, 4096)
  const Workload& z = find(r, "prefill/z");
  CHECK(z.shape_known);
  CHECK(z.m == Dim::symbolic(sym::sym_var("n")));
  CHECK(z.n == Dim::constant(4096));
  CHECK(z.k == Dim::constant(1024));
  CHECK(z.weight_operand == WeightOperand::kB);
  // out_ty= gives the call_tir output its struct info, exactly as out_sinfo= does
  const ir::Module m = ir::load_module(tc_test::fixture("extract/relax_2026_forms.py"));
  REQUIRE(m.relax_funcs.size() == 1);
  const auto& y = m.relax_funcs[0].bindings.at(0);
  REQUIRE(y.value->sinfo_args.size() == 1);
  CHECK(y.value->sinfo_args[0]->dims.size() == 3);
}

TEST_CASE("weight-only integer dequantize without bit operations, signed int4 in int8") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/int8_weight_only.py")));
  REQUIRE(r.workloads.size() == 3);
  const QuantInfo& pc = find(r, "int8_per_channel_NK").quant;
  CHECK(pc.weight_bits == 8);
  CHECK(pc.storage_dtype == parse_dtype("int8"));
  CHECK(pc.granularity == QuantGranularity::kChannel);
  CHECK(pc.weight_layout == "NK");
  CHECK(pc.scale_dtype == parse_dtype("float16"));
  CHECK(pc.zero_point == ZeroPointKind::kNone);
  const QuantInfo& pg = find(r, "int8_per_group_KN_zp").quant;
  CHECK(pg.weight_bits == 8);
  CHECK(pg.granularity == QuantGranularity::kGroup);
  CHECK(pg.group_size == 64);
  CHECK(pg.weight_layout == "KN");
  CHECK(pg.zero_point == ZeroPointKind::kTensor);
  const Workload& i4 = find(r, "int4_in_int8_per_group_NK");
  CHECK(i4.quant.weight_bits == 4);
  CHECK(i4.quant.elems_per_storage == 2);
  CHECK(i4.quant.storage_dtype == parse_dtype("int8"));
  CHECK(i4.quant.group_size == 128);
  CHECK(i4.quant.weight_layout == "NK");
  CHECK_THAT(i4.note, Catch::Contains("weight bits from the packing"));
  for (const auto& w : r.workloads) {
    CHECK(w.m == Dim::constant(1));
    CHECK(w.n == Dim::constant(512));
    CHECK(w.k == Dim::constant(1024));
    CHECK(w.weight_operand == WeightOperand::kB);
  }
  CHECK(r.module_quant == "custom");
}

TEST_CASE("negative extents are located errors, never a negative dimension") {
  const std::string gemm =
      "@T.prim_func\ndef mm(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4, 4), \"float32\"), C: T.Buffer((4, 4), "
      "\"float32\")):\n    for i, j, k in T.grid(EXT, 4, 4):\n        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n            C[vi, vj] = C[vi, vj] + A[vi, vk] * "
      "B[vk, vj]\n";
  auto with = [&](const std::string& ext) {
    std::string t = gemm;
    t.replace(t.find("EXT"), 3, ext);
    return t;
  };
  CHECK(error_of(with("4")) == "<no error>");
  CHECK(error_of(with("T.int64(-5)")) == "t.py:3:27: expected a non-negative extent, found T.int64(-5) = -5");
  CHECK(error_of(with("-5")) == "t.py:3:27: expected a non-negative extent, found -5 = -5");
  // range(lo, hi) with hi < lo and an axis domain
  CHECK_THAT(error_of("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in range(3, 1):\n"
                      "        A[i] = T.float32(0)\n"),
             Catch::StartsWith("t.py:3:14: expected a non-negative extent"));
  CHECK_THAT(error_of("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    with T.block(\"b\"):\n"
                      "        v = T.axis.spatial(T.int64(-2), 0)\n        A[v] = T.float32(0)\n"),
             Catch::StartsWith("t.py:4:28: expected a non-negative extent"));
  // a symbolic extent bound negative
  CHECK_THROWS_WITH(bind_dim(sym_build::dim(sym_build::v("n") - 10), {{"n", 5}}),
                    "expected a non-negative dimension, found 'n - 10' = -5 with the bindings given (--bind)");
  CHECK(bind_dim(sym_build::dim(sym_build::v("n") - 10), {{"n", 10}}) == Dim::constant(0));
}

TEST_CASE("scheduled padding: m is the logical size, m_padded the scheduled one (issue 13 item 4)") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/scheduled_padding.py")));
  REQUIRE(r.workloads.size() == 2);
  const Workload& p = find(r, "padded_gemv");
  const Workload& u = find(r, "unscheduled_gemv");
  // the same logical GEMM as the unscheduled function
  CHECK(p.m == u.m);
  CHECK(p.m == Dim::symbolic(sym::sym_var("batch_size")));
  CHECK(p.n == u.n);
  CHECK(p.k == u.k);
  CHECK_FALSE(u.m_padded.has_value());
  REQUIRE(p.m_padded.has_value());
  CHECK(p.m_padded->str() != p.m.str());
  CHECK_THAT(p.note, Catch::Contains("M padded by the schedule to"));
  // bound: batch 5 runs as 8 on the scheduled kernel
  ExtractOptions opt;
  opt.bindings = {{"batch_size", 5}};
  const ExtractResult b = extract_workloads(ir::load_module(tc_test::fixture("extract/scheduled_padding.py")), opt);
  const Workload& pb = find(b, "padded_gemv");
  CHECK(pb.m == Dim::constant(5));
  REQUIRE(pb.m_padded.has_value());
  CHECK(*pb.m_padded == Dim::constant(8));
  for (std::int64_t bs = 1; bs <= 9; ++bs) {
    opt.bindings = {{"batch_size", bs}};
    const ExtractResult rb = extract_workloads(ir::load_module(tc_test::fixture("extract/scheduled_padding.py")), opt);
    const Workload& w = find(rb, "padded_gemv");            // rb outlives w (a temporary result would not)
    CHECK(*w.m_padded == Dim::constant((bs + 3) / 4 * 4));  // closed form of the schedule's padding
  }
}

TEST_CASE("grouped and depthwise conv: groups as batch, m = N*OH*OW, n = F/groups, k = C/groups*KH*KW (item 5)") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/grouped_conv.py")));
  REQUIRE(r.workloads.size() == 3);
  auto check = [&](const std::string& fn, std::int64_t n_, std::int64_t c, std::int64_t f, std::int64_t groups,
                   std::int64_t oh, std::int64_t ow, std::int64_t kh, std::int64_t kw) {
    INFO(fn);
    const Workload& w = find(r, fn);
    CHECK(w.kind == WorkloadKind::kConv);
    CHECK(w.batch == Dim::constant(groups));
    CHECK(w.m == Dim::constant(n_ * oh * ow));
    CHECK(w.n == Dim::constant(f / groups));
    CHECK(w.k == Dim::constant(c / groups * kh * kw));
    CHECK(w.weight_operand == WeightOperand::kB);
    CHECK(w.conv.spatial_dims == 2);  // the group's channel index is not a window
  };
  check("depthwise_conv2d", 1, 32, 32, 32, 112, 112, 3, 3);
  check("group_conv2d", 2, 64, 128, 4, 56, 56, 3, 3);
  check("group_conv2d_s2", 1, 8, 6, 2, 8, 8, 3, 3);
  CHECK(find(r, "group_conv2d_s2").conv.strides == std::vector<std::int64_t>{2, 2});
  CHECK_THAT(find(r, "group_conv2d").note, Catch::Contains("4 groups of 32 output channels"));

  // Brute force over group_conv2d_s2's loop nest: the MACs split into independent GEMMs, one per
  // class of (output channel, input channel) pairs that touch each other; each has the same shape.
  std::map<std::int64_t, std::set<std::int64_t>> outs_of_group, ins_of_group;  // keyed by smallest out channel
  std::map<std::int64_t, std::int64_t> group_of_out;
  std::int64_t macs = 0;
  for (std::int64_t ff = 0; ff < 6; ++ff)
    for (std::int64_t rc = 0; rc < 4; ++rc) {
      const std::int64_t ic = ff / 3 * 4 + rc;  // the fixture's index
      std::int64_t g = -1;
      for (const auto& [key, ins] : ins_of_group)
        if (ins.count(ic)) g = key;
      if (g < 0) g = group_of_out.count(ff) ? group_of_out[ff] : ff;
      group_of_out[ff] = g;
      outs_of_group[g].insert(ff);
      ins_of_group[g].insert(ic);
      macs += 1 * 8 * 8 * 3 * 3;
    }
  const Workload& w = find(r, "group_conv2d_s2");
  CHECK(static_cast<std::int64_t>(outs_of_group.size()) == *w.batch.value);
  for (const auto& [g, outs] : outs_of_group) {
    CHECK(static_cast<std::int64_t>(outs.size()) == *w.n.value);
    CHECK(static_cast<std::int64_t>(ins_of_group[g].size()) * 3 * 3 == *w.k.value);
  }
  CHECK(macs == *w.batch.value * *w.m.value * *w.n.value * *w.k.value);
}

TEST_CASE("MoE experts through an indirection array: experts as batch, the expert weight stays the weight") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/moe_experts.py")));
  REQUIRE(r.workloads.size() == 2);
  const Workload& g = find(r, "moe_gemv");
  CHECK(g.batch == Dim::constant(2));  // experts per token
  CHECK(g.m == Dim::constant(1));
  CHECK(g.n == Dim::constant(14336));
  CHECK(g.k == Dim::constant(4096));
  CHECK(g.weight_operand == WeightOperand::kB);
  CHECK(g.layout == "NT");
  CHECK_THAT(g.note, Catch::Contains("indirection array by e (experts as batch)"));
  const Workload& q = find(r, "moe_dequantize_gemv");
  CHECK(q.batch == Dim::constant(2));
  CHECK(q.m == Dim::constant(1));
  CHECK(q.n == Dim::constant(4096));
  CHECK(q.k == Dim::constant(14336));
  CHECK(q.weight_operand == WeightOperand::kB);
  CHECK(q.quant.weight_bits == 4);
  CHECK(q.quant.group_size == 32);
  CHECK(q.quant.granularity == QuantGranularity::kGroup);
  CHECK(q.quant.storage_dtype == parse_dtype("uint32"));
  CHECK_FALSE(q.quant.has_g_idx);  // indptr selects the expert, it is no act-order g_idx
  CHECK(q.quant.scheme == "q4f16_1");
}
