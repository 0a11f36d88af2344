// Extern GEMMs of MLC-LLM's fp8 and MoE paths (issue 22): CUTLASS and Triton kernels called as packed functions
// or launched from a prim_func. Every expectation is derived by hand from the fixture's argument shapes.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "find_workload.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const Workload& find(const ExtractResult& r, const std::string& fn) { return tc_test::workload_named(r, fn); }

struct Expect {
  const char* function;
  std::int64_t batch;
  const char* m;  // a symbolic m's text
  std::int64_t n, k;
  const char* scheme;
  QuantGranularity granularity;
  std::int64_t block_n, block_k;  // 0: not per-block
  const char* dtype_out;
  std::int64_t calls;  // prefill
};

ExtractResult extract_text(const std::string& text) { return extract_workloads(ir::parse_tvmscript(text, "t.py")); }

}  // namespace

TEST_CASE("extern fp8 and MoE GEMMs: CUTLASS and Triton calls give M, N, K, batch and the block-scale scheme") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/extern_fp8_gemms.py")));
  using G = QuantGranularity;
  const char* tri = "tir_w8a8_block_fp8_matmul_N2048_K4096_block_n128_block_k128_infloat8_e4m3fn_outbfloat16";
  const char* trig =
      "tir_w8a8_block_fp8_group_gemm_N2816_K2048_num_experts8_block_n128_block_k128_infloat8_e4m3fn_outbfloat16";
  // weight [N, K] (or [B | E, N, K]), activation [.., M, K]; weight scale [N / bn, K / bk]: 4608 / 36 = 128,
  // 4096 / 32 = 128; the bmm's scale [16, 1, 4] over (128, 512); group GEMMs: m rows over 8 experts
  const Expect rows[] = {
      {"prefill/qkv", 1, "n", 4608, 4096, "fp8_e4m3fn_bf16_block_scale", G::kBlock, 128, 128, "bfloat16", 2},
      {"prefill/uk", 16, "n", 128, 512, "fp8_e4m3fn_bf16_block_scale", G::kBlock, 128, 128, "bfloat16", 1},
      {"prefill/up", 8, "(m + 7) // 8", 2816, 4096, "e4m3_e4m3_f16", G::kTensor, 0, 0, "float16", 1},
      {"prefill/down", 8, "(m + 7) // 8", 4096, 1408, "none", G::kNone, 0, 0, "float16", 1},
      {"prefill/o", 1, "n", 4096, 4096, "e4m3_e4m3_f16", G::kTensor, 0, 0, "float16", 1},
      {"prefill/gu", 8, "(m + 7) // 8", 3072, 4096, "fp8_e4m3fn_bf16_block_scale", G::kBlock, 128, 128, "bfloat16", 1},
      {"prefill/t", 1, "n", 1024, 4096, "fp8_e4m3fn_bf16_block_scale", G::kBlock, 128, 128, "bfloat16", 1},
      {tri, 1, "M", 2048, 4096, "fp8_e4m3fn_bf16_block_scale", G::kBlock, 128, 128, "bfloat16", 2},
      {trig, 8, "(EM + 7) // 8", 2816, 2048, "fp8_e4m3fn_bf16_block_scale", G::kBlock, 128, 128, "bfloat16", 1},
  };
  REQUIRE(r.workloads.size() == std::size(rows));  // qkv and qkv1 are one workload called twice
  for (const auto& e : rows) {
    INFO(e.function);
    const Workload& w = find(r, e.function);
    CHECK(w.shape_known);
    CHECK(w.batch == Dim::constant(e.batch));
    CHECK(w.m.str() == e.m);
    CHECK(w.n == Dim::constant(e.n));
    CHECK(w.k == Dim::constant(e.k));
    CHECK(w.layout == "NT");
    CHECK(w.weight_operand == WeightOperand::kB);
    CHECK(w.quant.scheme == e.scheme);
    CHECK(w.quant.granularity == e.granularity);
    CHECK(w.quant.block_n == e.block_n);
    CHECK(w.quant.block_k == e.block_k);
    CHECK(to_string(w.dtype_out) == e.dtype_out);
    CHECK(w.dtype_accum == parse_dtype("float32"));
    CHECK(w.calls.at("prefill") == e.calls);
    CHECK(w.source ==
          (std::string(e.function).rfind("prefill/", 0) == 0 ? WorkloadSource::kPacked : WorkloadSource::kTir));
    if (e.granularity != G::kNone) {
      CHECK(w.quant.weight_bits == 8);
      CHECK(w.quant.storage_dtype == parse_dtype("float8_e4m3fn"));
      CHECK(w.quant.scale_dtype == parse_dtype("float32"));
      CHECK(w.quant.weight_layout == "NK");
      CHECK(w.dtype_a == parse_dtype("float8_e4m3fn"));
    } else {
      CHECK(w.quant.weight_bits == 0);
      CHECK(w.dtype_b == parse_dtype("float16"));
    }
  }
  // the group GEMMs say how m was formed; the block sizes name their sources
  CHECK(find(r, "prefill/up").note.find("m = the m rows spread evenly over them") != std::string::npos);
  CHECK(find(r, "prefill/qkv").note.find("block along N 128 from the scale's shape (36 blocks of 4608) (agrees: ") !=
        std::string::npos);
  CHECK(find(r, tri).note.find("the kernel's name 128") != std::string::npos);
  CHECK(r.module_quant == "mixed");
  // the Triton prim_funcs are GEMMs, not operators
  for (const auto& o : r.operators) CHECK(o.function.find("w8a8") == std::string::npos);
}

TEST_CASE("a Triton kernel written with T.call_kernel; a ragged last block; block sizes that disagree") {
  // N = 1000 with 8 scale rows: any block in [125, 142] gives 8 rows; the prim_func's name says 128
  const std::string prim = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def NAME(var_A: T.handle, var_B: T.handle, var_As: T.handle, var_Bs: T.handle, var_C: T.handle):
        M = T.int32(is_size_var=True)
        A = T.match_buffer(var_A, (M, 2048), "float8_e4m3fn")
        B = T.match_buffer(var_B, (1000, 2048), "float8_e4m3fn")
        As = T.match_buffer(var_As, (M, 16))
        Bs = T.match_buffer(var_Bs, (8, 16))
        C = T.match_buffer(var_C, (M, 1000), "float16")
        with T.sblock("root"):
            T.reads(A[0:M, 0:2048], B[0:1000, 0:2048], As[0:M, 0:16], Bs[0:8, 0:16])
            T.writes(C[0:M, 0:1000])
            T.call_kernel(triton.jit(triton_kernel), ((M + 63) // 64 * 8,), A.data, B.data, C.data, As.data, Bs.data, M, 1000, 2048, num_warps=4, num_stages=3)
)";
  auto with_name = [&](const std::string& name) {
    std::string t = prim;
    t.replace(t.find("NAME"), 4, name);
    return extract_text(t);
  };
  {
    const ExtractResult r = with_name("tir_w8a8_block_fp8_matmul_N1000_K2048_block_n128_block_k128");
    REQUIRE(r.workloads.size() == 1);
    const Workload& w = r.workloads[0];
    CHECK(w.m == Dim::symbolic(sym::sym_var("M")));
    CHECK(w.n == Dim::constant(1000));
    CHECK(w.k == Dim::constant(2048));
    CHECK(w.quant.block_n == 128);  // the name's 128 fits the 8 rows (so would 125 = 1000 / 8 .. 142)
    CHECK(w.quant.block_k == 128);  // 2048 / 16, agreeing with the name
    CHECK(w.quant.scheme == "fp8_e4m3fn_bf16_block_scale");
    CHECK(w.note.find("launched by T.call_kernel") != std::string::npos);
    CHECK(w.note.find("block along N 128 from the scale's shape (8 blocks of 1000) (agrees: the scale's shape (8 "
                      "blocks of 1000) 128, the prim_func's name 128)") != std::string::npos);
  }
  {
    // no block size in the name: the smallest power of two the ragged shape admits, stated
    const ExtractResult r = with_name("tir_w8a8_block_fp8_matmul");
    REQUIRE(r.workloads.size() == 1);
    const Workload& w = r.workloads[0];
    CHECK(w.quant.block_n == 128);
    CHECK(w.quant.block_k == 128);
    CHECK(w.note.find("8 scale blocks along N of 1000 admit any block size in [125, 142]: 128 is used") !=
          std::string::npos);
  }
  // another Triton kernel or a prim_func without the handles is no GEMM (and no error)
  CHECK(with_name("tir_softmax_kernel").workloads.empty());
}

TEST_CASE("extern GEMM arguments that contradict each other or are unknown are reported, never guessed") {
  const std::string head = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4096), dtype="float8_e4m3fn"), xs: R.Tensor((32, "n"), dtype="float32"), w: R.Tensor((4608, 4096), dtype="float8_e4m3fn"), ws: R.Tensor((36, 32), dtype="float32"), ws2: R.Tensor(("a", "b"), dtype="float32"), ws3: R.Tensor((36, 64), dtype="float32"), y: R.Tensor(dtype="float8_e4m3fn", ndim=2), sc: R.Tensor((1,), dtype="float32"), ws4: R.Tensor((37, 32), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            workspace: R.Tensor((4194304,), dtype="uint8") = R.builtin.alloc_tensor(R.shape([4194304]), R.dtype("uint8"), R.prim_value(0), R.str("global"))
            o = R.call_dps_packed(CALL, out_sinfo=R.Tensor((n, 4608), dtype="bfloat16"))
            R.output(o)
        return o
)";
  auto one = [&](const std::string& call) {
    std::string t = head;
    t.replace(t.find("CALL"), 4, call);
    const ExtractResult r = extract_text(t);
    REQUIRE(r.workloads.size() == 1);
    return r.workloads[0];
  };
  const std::string gw = "\"cutlass.groupwise_scaled_gemm_e4m3fn_e4m3fn\", (x, w, xs, ";
  // a block size argument the scale's shape contradicts: the shape's 128 is used, both named
  Workload w = one(gw + "ws, workspace, R.prim_value(64), R.prim_value(128))");
  CHECK(w.quant.block_n == 128);
  CHECK(w.note.find("block along N 128 from the scale's shape (36 blocks of 4608) (DISAGREE: the scale's shape (36 "
                    "blocks of 4608) 128, the call's argument 64; the first is used)") != std::string::npos);
  // a symbolic scale shape: the call's arguments
  w = one(gw + "ws2, workspace, R.prim_value(128), R.prim_value(128))");
  CHECK(w.quant.block_n == 128);
  CHECK(w.quant.block_k == 128);
  CHECK(w.note.find("block along N 128 from the call's argument") != std::string::npos);
  // scale [36, 64] over K 4096: 64 blocks of 64; the call's 128 does not fit it
  w = one(gw + "ws3, workspace, R.prim_value(128), R.prim_value(128))");
  CHECK(w.quant.block_k == 64);
  CHECK(w.note.find("DISAGREE") != std::string::npos);
  // 37 scale rows for N 4608: the call's 128 gives 36; the shape admits [125, 127], no power of two: 125
  w = one(gw + "ws4, workspace, R.prim_value(128), R.prim_value(128))");
  CHECK(w.quant.block_n == 125);
  CHECK(w.note.find("37 scale blocks along N of 4608 admit any block size in [125, 127]: 125 is used") !=
        std::string::npos);
  CHECK(w.note.find("DISAGREE: the scale's shape (37 blocks of 4608) 125, the call's argument 128") !=
        std::string::npos);
  // an activation of unknown shape
  w = one("\"cutlass.gemm_e4m3_e4m3_fp16\", (y, w, workspace, sc)");
  CHECK_FALSE(w.shape_known);
  CHECK(w.m == Dim::unknown());
  CHECK(w.note.find("operand shapes not known") != std::string::npos);
  CHECK(w.quant.scheme == "e4m3_e4m3_f16");  // the weight's dtype and scale are still known
  // a cutlass name of no GEMM family is not a workload
  std::string t = head;
  t.replace(t.find("CALL"), 4, "\"cutlass.moe_gemm_f16f16\", (x, w, workspace)");
  CHECK(extract_text(t).workloads.empty());
}

TEST_CASE("held-back extern GEMMs (written after the reader): DeepSeek-V3 shapes, call_pure_packed, helper calls") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/extern_gemms_holdout.py")));
  REQUIRE(r.workloads.size() == 3);
  // Triton group GEMM: x (t, 7168), w (256, 4096, 7168), w_s (256, 32, 56); the helper runs once per decode and
  // three times per prefill
  const Workload& gu = find(r, "moe_layer/gu");
  CHECK(gu.batch == Dim::constant(256));
  CHECK(gu.m.str() == "(t + 255) // 256");
  CHECK(gu.n == Dim::constant(4096));
  CHECK(gu.k == Dim::constant(7168));
  CHECK(gu.quant.scheme == "fp8_e4m3fn_bf16_block_scale");
  CHECK(gu.quant.block_n == 128);
  CHECK(gu.quant.block_k == 128);
  CHECK(gu.calls == std::map<std::string, std::int64_t>{{"decode", 1}, {"moe_layer", 1}, {"prefill", 3}});
  // kv_a: N 576 = 4.5 blocks of 128 (5 scale rows), launched with T.call_kernel
  const Workload& kv =
      find(r, "tir_w8a8_block_fp8_matmul_N576_K7168_block_n128_block_k128_infloat8_e4m3fn_outbfloat16");
  CHECK(kv.m == Dim::symbolic(sym::sym_var("M")));
  CHECK(kv.n == Dim::constant(576));
  CHECK(kv.k == Dim::constant(7168));
  CHECK(kv.quant.block_n == 128);
  CHECK(kv.quant.block_k == 128);
  CHECK(kv.calls == gu.calls);
  // R.call_pure_packed with loose arguments; a 3-D activation (2, s, 1024): m = 2 s
  const Workload& e5 = find(r, "prefill/e5");
  CHECK(e5.m.str() == "s * 2");
  CHECK(e5.n == Dim::constant(512));
  CHECK(e5.k == Dim::constant(1024));
  CHECK(e5.quant.scheme == "e5m2_e5m2_f16");
  CHECK(e5.quant.granularity == QuantGranularity::kTensor);
  CHECK(e5.dtype_out == parse_dtype("float16"));
  CHECK(e5.calls.at("prefill") == 1);
}
