// Issue 22, the TIR classes: tensorized kernels (wmma / Metal simdgroup, quantized operands), integer GEMMs with a
// requantize, grouped and transposed convolutions, MoE experts through a block-local buffer — on the project's own
// fixtures (tests/fixtures/extract/), each expectation derived by hand from the fixture's header.
#include <catch2/catch.hpp>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/quant.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const Workload& find(const ExtractResult& r, const std::string& fn) {
  for (const auto& w : r.workloads)
    if (w.function == fn) return w;
  FAIL("no workload " << fn);
  throw 0;
}

ExtractResult load(const std::string& rel, const ExtractOptions& opt = {}) {
  return extract_workloads(ir::load_module(tc_test::fixture(rel)), opt);
}

}  // namespace

TEST_CASE("tensorized q4 wmma: the whole M x N x K and the weight's q4f16_1 from its shared-memory dequantize") {
  const ExtractResult r = load("extract/tensorized_quant.py");
  REQUIRE(r.workloads.size() == 3);  // fill / load / store tiles are no workloads
  const Workload& w = find(r, "q4_wmma");
  // v1_o extent (n + 127) // 128 * 8 fragments of 16 rows; v2_o 128 x 16; v3_o 64 x 16
  CHECK(w.m == Dim::symbolic(sym::sym_var("n")));
  REQUIRE(w.m_padded.has_value());
  CHECK(w.m_padded->str() == "(n + 127) // 128 * 128");
  CHECK(w.n == Dim::constant(2048));
  CHECK(w.k == Dim::constant(1024));
  CHECK(w.batch == Dim::constant(1));
  CHECK(w.layout == "NT");
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.quant.scheme == "q4f16_1");
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.group_size == 32);
  CHECK(w.quant.elems_per_storage == 8);
  CHECK(w.quant.weight_layout == "NK");
  CHECK(w.dtype_b == parse_dtype("float16"));
  CHECK_THAT(w.note, Catch::Contains("fragment tile 16x16x16"));
  ExtractOptions opt;
  opt.bindings = {{"n", 100}};
  const ExtractResult b = load("extract/tensorized_quant.py", opt);
  CHECK(find(b, "q4_wmma").m == Dim::constant(100));
  CHECK(*find(b, "q4_wmma").m_padded == Dim::constant(128));
}

TEST_CASE("tensorized Metal simdgroup (8x8x8, weight fragment loaded transposed) and int8 wmma") {
  const ExtractResult r = load("extract/tensorized_quant.py");
  const Workload& m = find(r, "q4_metal");
  CHECK(m.m == Dim::symbolic(sym::sym_var("batch_size")));
  CHECK(m.m_padded->str() == "(batch_size + 15) // 16 * 16");
  CHECK(m.n == Dim::constant(4096));  // v2_o 512 x 8
  CHECK(m.k == Dim::constant(2048));  // v3_o 256 x 8
  CHECK(m.layout == "NT");            // B0 (4096, 256) is N x K/8, whatever the fragment's order
  CHECK(m.quant.scheme == "q4f16_1");
  CHECK(m.quant.group_size == 32);
  CHECK_THAT(m.note, Catch::Contains("metal.simdgroup_multiply_accumulate"));
  CHECK_THAT(m.note, Catch::Contains("fragment tile 8x8x8"));

  const Workload& i = find(r, "int8_wmma");
  CHECK(i.m == Dim::constant(256));
  CHECK(i.n == Dim::constant(512));
  CHECK(i.k == Dim::constant(1024));
  CHECK_FALSE(i.m_padded.has_value());
  CHECK(i.dtype_a == parse_dtype("int8"));
  CHECK(i.dtype_accum == parse_dtype("int32"));
  CHECK(i.dtype_out == parse_dtype("int32"));
  CHECK(i.quant.weight_bits == 8);
  CHECK(i.quant.storage_dtype == parse_dtype("int8"));
  CHECK(i.quant.scheme == "w8a8-tensor");  // no requantize in the kernel
}

TEST_CASE("integer GEMMs: weight bits from the dtype, the scheme from the accumulator's requantize") {
  const ExtractResult r = load("extract/int8_requant.py");
  REQUIRE(r.workloads.size() == 4);
  struct Case {
    const char* fn;
    std::int64_t m, n, k;
    QuantGranularity g;
    const char* scheme;
  };
  for (const Case& c : {Case{"qnn_dense_per_channel", 16, 128, 256, QuantGranularity::kChannel, "w8a8-token-channel"},
                        Case{"qnn_conv_per_tensor", 196, 128, 64, QuantGranularity::kTensor, "w8a8-tensor"},
                        Case{"int64_requant", 32, 64, 128, QuantGranularity::kChannel, "w8a8-token-channel"},
                        Case{"int8_no_requant", 64, 32, 128, QuantGranularity::kNone, "w8a8-tensor"}}) {
    INFO(c.fn);
    const Workload& w = find(r, c.fn);
    CHECK(w.m == Dim::constant(c.m));
    CHECK(w.n == Dim::constant(c.n));
    CHECK(w.k == Dim::constant(c.k));
    CHECK(w.weight_operand == WeightOperand::kB);
    CHECK(w.quant.weight_bits == 8);
    CHECK(w.quant.storage_dtype == parse_dtype("int8"));
    CHECK(w.quant.elems_per_storage == 1);
    CHECK(w.quant.granularity == c.g);
    CHECK(w.quant.scheme == c.scheme);
    // the plan costs the catalog scheme: int8 weights and activations, int8 MACs
    const quant::Scheme s = quant::scheme_from(w.quant);
    CHECK(s.name == c.scheme);
    CHECK(s.compute == tc_test::mac("int8"));
  }
  CHECK(find(r, "qnn_dense_per_channel").quant.weight_layout == "NK");
  CHECK(find(r, "int8_no_requant").quant.weight_layout == "KN");
  CHECK(find(r, "qnn_conv_per_tensor").kind == WorkloadKind::kConv);
  CHECK(r.module_quant == "mixed");  // per-channel and per-tensor kernels
}

TEST_CASE("grouped transposed and symbolic grouped convs: groups as batch, per-group channels in N and K") {
  const ExtractResult r = load("extract/grouped_conv_transpose.py");
  const Workload& t = find(r, "conv2d_transpose_g4");
  CHECK(t.kind == WorkloadKind::kConv);
  CHECK(t.batch == Dim::constant(4));
  CHECK(t.m == Dim::constant(1 * 8 * 8));
  CHECK(t.n == Dim::constant(8));
  CHECK(t.k == Dim::constant(8 * 3 * 3));
  CHECK(t.conv.spatial_dims == 2);
  CHECK_THAT(t.note, Catch::Contains("grouped transposed conv: 4 groups of 8 output channels"));
  // the MACs equal the loop nest's: 32 output channels x 64 pixels x 8 input channels x 9
  CHECK(*t.batch.value * *t.m.value * *t.n.value * *t.k.value == 32 * 64 * 8 * 9);

  const Workload& s = find(r, "conv2d_group_symbolic");
  CHECK(s.batch == Dim::constant(8));
  CHECK(s.m.str() == "n * 676");
  CHECK(s.n.str() == "f // 8");
  CHECK(s.k.str() == "c // 8 * 9");
  ExtractOptions opt;
  opt.bindings = {{"n", 2}, {"c", 64}, {"f", 128}};
  const ExtractResult bound = load("extract/grouped_conv_transpose.py", opt);
  const Workload& sb = find(bound, "conv2d_group_symbolic");
  CHECK(sb.n == Dim::constant(16));
  CHECK(sb.k == Dim::constant(72));
}

TEST_CASE("MoE: a per-expert weight staged in a block-local buffer is a batch of GEMVs, one weight per expert") {
  const ExtractResult r = load("extract/moe_staged.py");
  REQUIRE(r.workloads.size() == 3);
  for (const char* fn : {"moe_gemv", "moe_dequantize_gemv", "moe_dequantize_gemv_in"}) {
    INFO(fn);
    const Workload& w = find(r, fn);
    CHECK(w.batch == Dim::constant(2));  // experts per token (was folded into M, or into N with x[0, j])
    CHECK(w.m == Dim::constant(1));
    CHECK(w.n == Dim::constant(4096));
    CHECK(w.k == Dim::constant(2048));
    CHECK(w.weight_operand == WeightOperand::kB);
    CHECK(w.layout == "NT");
    CHECK_THAT(w.note, Catch::Contains("experts as batch"));
  }
  CHECK(find(r, "moe_dequantize_gemv").quant.scheme == "q4f16_1");
  CHECK(find(r, "moe_dequantize_gemv_in").quant.group_size == 32);
  CHECK(find(r, "moe_gemv").quant.weight_bits == 0);
}

TEST_CASE("issue 22 held-back fixtures: one per TIR class, checked after the recognisers were built") {
  // tests/fixtures/extract/issue22_holdback.py (its header states each expectation)
  const ExtractResult r = load("extract/issue22_holdback.py");
  const Workload& rq = find(r, "int8_wmma_requant");  // the requantize found through the fragment store's region
  CHECK(rq.m == Dim::constant(256));
  CHECK(rq.n == Dim::constant(512));
  CHECK(rq.k == Dim::constant(1024));
  CHECK(rq.quant.granularity == QuantGranularity::kChannel);
  CHECK(rq.quant.scheme == "w8a8-token-channel");
  CHECK(rq.dtype_out == parse_dtype("int8"));

  const Workload& dp = find(r, "int8_dp4a");  // a stored dot-product extern over 4-element regions
  CHECK(dp.m == Dim::constant(64));
  CHECK(dp.n == Dim::constant(64));
  CHECK(dp.k == Dim::constant(256));
  CHECK(dp.layout == "NT");
  CHECK(dp.quant.weight_bits == 8);
  CHECK_THAT(dp.note, Catch::Contains("call_pure_extern __dp4a"));
  CHECK_THAT(dp.note, Catch::Contains("fragment tile 1x1x4"));

  const Workload& ct = find(r, "conv1d_transpose_g2");
  CHECK(ct.batch == Dim::constant(2));
  CHECK(ct.m == Dim::constant(12));
  CHECK(ct.n == Dim::constant(4));
  CHECK(ct.k == Dim::constant(24));

  const Workload& moe = find(r, "moe_fp8_gemv");
  CHECK(moe.batch == Dim::constant(2));
  CHECK(moe.m == Dim::constant(1));
  CHECK(moe.n == Dim::constant(1024));
  CHECK(moe.k == Dim::constant(512));
  CHECK(moe.weight_operand == WeightOperand::kB);
  CHECK(moe.quant.weight_bits == 8);
  CHECK(moe.quant.storage_dtype == parse_dtype("float8_e4m3fn"));

  for (const char* fn : {"NT_matmul_gqa_qk", "matmul_gqa_pv"}) {
    INFO(fn);
    const Workload& a = find(r, fn);
    CHECK(a.weight_operand == WeightOperand::kNone);
    CHECK(a.batch == Dim::constant(8));
    CHECK(a.m == Dim::constant(256));
  }
  CHECK(find(r, "NT_matmul_gqa_qk").layout == "NT");
  CHECK(find(r, "matmul_gqa_pv").layout == "NN");
}
