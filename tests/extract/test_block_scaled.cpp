// Block-scaled low-precision formats read from IR (issue 21 item 6): OCP Microscaling (e8m0 exponent per 32
// along K) and NVFP4 (e4m3 scale per 16 and an fp32 scale per tensor) weights, kernels whose activations are
// block-scaled too, and the 2025 dtypes. Expectations derived by hand from the fixture's buffers.
#include <catch2/catch.hpp>
#include <string>

#include "find_workload.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/report.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const Workload& find(const ExtractResult& r, const std::string& fn) { return tc_test::workload_named(r, fn); }

struct Expect {
  const char* function;
  const char* m;  // "1", "8" or the symbol
  std::int64_t n, k;
  const char* scheme;
  int bits, elems;
  const char* storage;
  std::int64_t group;
  const char* scale;
  const char* tensor_scale;
};

/// One GEMV `y[0, j] += x[0, k] * w[j, k]` whose weight w is dequantized as `value` (over i = N, j = K) from
/// the params `params` (text of T.Buffer params), N = 256, K = 1024.
std::string gemv(const std::string& params, const std::string& value) {
  return R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(x: T.Buffer((1, 1024), "float16"), )" +
         params + R"(, y: T.Buffer((1, 256), "float16")):
        w = T.alloc_buffer((256, 1024), "float16")
        for a0, a1 in T.grid(256, 1024):
            with T.block("decode"):
                i, j = T.axis.remap("SS", [a0, a1])
                w[i, j] = )" +
         value + R"(
        for a0, a1, a2 in T.grid(1, 256, 1024):
            with T.block("matmul"):
                i, j, k = T.axis.remap("SSR", [a0, a1, a2])
                with T.init():
                    y[i, j] = T.float16(0)
                y[i, j] = y[i, j] + x[i, k] * w[j, k]
)";
}

Workload one(const std::string& text) {
  const ExtractResult r = extract_workloads(ir::parse_tvmscript(text, "t.py"));
  REQUIRE(r.workloads.size() == 1);
  return r.workloads[0];
}

const char* kFp4U8 =
    "T.reinterpret(\"float4_e2m1fn\", T.bitwise_and(T.shift_right(W[i, j // 2], T.Cast(\"uint8\", j % 2 * 4)), "
    "T.uint8(15)))";

}  // namespace

TEST_CASE("MX and NVFP4 weights and block-scaled activations: elements, packing, block, scales, scheme") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/mx_nvfp4_gemms.py")));
  const Expect rows[] = {
      // 8 e2m1 per uint32 (W[i, j // 8]), e8m0 buffer S[i, j // 32]
      {"mxfp4_gemv", "1", 11008, 4096, "w4a16-mxfp4", 4, 8, "uint32", 32, "float8_e8m0fnu", ""},
      // 2 per uint8, uint8 exponents through T.ldexp(.., e - 127)
      {"mxfp4_ldexp_gemm", "n", 5760, 2880, "w4a16-mxfp4", 4, 2, "uint8", 32, "float8_e8m0fnu", ""},
      // a float4_e2m1fn buffer, uint8 exponents shifted into a float32's exponent field (<< 23)
      {"mxfp4_buffer_shift", "8", 2048, 2048, "w4a16-mxfp4", 4, 1, "float4_e2m1fn", 32, "float8_e8m0fnu", ""},
      // e4m3 scale per 16 along K, float32 G[0] per tensor
      {"nvfp4_gemv", "1", 4096, 4096, "w4a16-nvfp4", 4, 2, "uint8", 16, "float8_e4m3fn", "float32"},
      // both operands block-scaled in one kernel
      {"mxfp4_w4a4", "n", 2880, 2880, "mxfp4", 4, 2, "uint8", 32, "float8_e8m0fnu", ""},
      {"w4a8_mxfp4_mxfp8", "n", 2880, 2880, "w4a8-mxfp4-mxfp8", 4, 2, "uint8", 32, "float8_e8m0fnu", ""},
      {"mxfp8_e5m2", "n", 2880, 2880, "mxfp8-e5m2", 8, 1, "float8_e5m2", 32, "float8_e8m0fnu", ""},
      {"mxfp6_e2m3", "n", 2880, 2880, "mxfp6-e2m3", 6, 1, "float6_e2m3fn", 32, "float8_e8m0fnu", ""},
      {"mxfp6_e3m2", "n", 2880, 2880, "mxfp6-e3m2", 6, 1, "float6_e3m2fn", 32, "float8_e8m0fnu", ""},
      {"mxint8", "n", 2880, 2880, "mxint8", 8, 1, "int8", 32, "float8_e8m0fnu", ""},
      {"nvfp4_w4a4", "n", 2880, 2880, "nvfp4", 4, 2, "uint8", 16, "float8_e4m3fn", "float32"},
      // an MX fp8 weight with float16 activations has no named scheme
      {"mxfp8_weight_only", "1", 1024, 1024, "custom", 8, 1, "float8_e4m3fn", 32, "float8_e8m0fnu", ""},
  };
  for (const auto& e : rows) {
    INFO(e.function);
    const Workload& w = find(r, e.function);
    const std::string m = e.m;
    CHECK(w.m == (m == "n" ? Dim::symbolic(sym::sym_var("n")) : Dim::constant(std::stoll(m))));
    CHECK(w.n == Dim::constant(e.n));
    CHECK(w.k == Dim::constant(e.k));
    CHECK(w.weight_operand == WeightOperand::kB);
    const QuantInfo& q = w.quant;
    CHECK(q.scheme == e.scheme);
    CHECK(q.weight_bits == e.bits);
    CHECK(q.elems_per_storage == e.elems);
    CHECK(to_string(q.storage_dtype) == e.storage);
    CHECK(q.granularity == QuantGranularity::kGroup);
    CHECK(q.group_size == e.group);
    CHECK(to_string(q.scale_dtype) == e.scale);
    CHECK(to_string(q.tensor_scale_dtype) == e.tensor_scale);
    CHECK(q.zero_point == ZeroPointKind::kNone);
    CHECK(q.weight_layout == "NK");
  }
  CHECK(find(r, "mxfp4_ldexp_gemm").note.find("uint8 in an exponent position: 2^(e - 127)") != std::string::npos);
  CHECK(
      find(r, "w4a8_mxfp4_mxfp8")
          .note.find("; activations block-scaled: float8_e4m3fn elements, an e8m0 exponent per 32 along K (OCP MX)") !=
      std::string::npos);
  CHECK(
      find(r, "nvfp4_gemv").note.find("a float8_e4m3fn scale per 16 along K and a float32 scale per tensor (NVFP4)") !=
      std::string::npos);
  // the pre-2025 spelling is the same fp8 weight (MLC's per-tensor e4m3_e4m3_f16)
  const Workload& old = find(r, "old_fp8_gemv");
  CHECK(old.quant.scheme == "e4m3_e4m3_f16");
  CHECK(old.quant.storage_dtype == parse_dtype("float8_e4m3fn"));
  CHECK(old.quant.weight_bits == 8);
  // JSON: tensor_scale_dtype only when there is one (outputs without it are unchanged)
  ExtractResult nv;
  nv.workloads = {find(r, "nvfp4_gemv"), find(r, "mxfp4_gemv")};
  const std::string j = report::extract_json(nv);
  CHECK(j.find("\"tensor_scale_dtype\": \"float32\"") != std::string::npos);
  CHECK(j.find("tensor_scale_dtype") == j.rfind("tensor_scale_dtype"));
  const std::string table = report::render(nv, report::Format::kTable);
  CHECK(table.find("w4a16-nvfp4 (fp4 g16 +float32 per tensor NK)") != std::string::npos);
  CHECK(table.find("w4a16-mxfp4 (fp4 g32 NK)") != std::string::npos);
}

TEST_CASE("the shared exponent's other printed forms; what is no block scaling") {
  const std::string params =
      "W: T.Buffer((256, 512), \"uint8\"), S: T.Buffer((256, 32), \"uint8\"), F: T.Buffer((256, 32), \"float32\")";
  const std::string fp4 = std::string("T.Cast(\"float32\", ") + kFp4U8 + ")";
  // exp2(e - 127) and 2 ** (e - 127) (the printer's pow), bfloat16's exponent field (<< 7)
  for (const std::string& scale :
       {std::string("T.exp2(T.Cast(\"float32\", S[i, j // 32]) - T.float32(127))"),
        std::string("T.float32(2) ** (T.Cast(\"float32\", S[i, j // 32]) - T.float32(127))"),
        std::string("T.Cast(\"float32\", T.reinterpret(\"bfloat16\", T.shift_left(T.Cast(\"uint16\", S[i, j // 32]), "
                    "T.uint16(7))))")}) {
    INFO(scale);
    const Workload w = one(gemv(params, "T.Cast(\"float16\", " + fp4 + " * " + scale + ")"));
    CHECK(w.quant.scheme == "w4a16-mxfp4");
    CHECK(w.quant.group_size == 32);
    CHECK(w.quant.scale_dtype == parse_dtype("float8_e8m0fnu"));
  }
  // a float scale per 32 (no shared exponent): fp4 elements, neither MX nor NVFP4
  Workload w = one(gemv(params, "T.Cast(\"float16\", " + fp4 + " * F[i, j // 32])"));
  CHECK(w.quant.scheme == "custom");
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.scale_dtype == parse_dtype("float32"));
  CHECK(w.note.find("neither OCP MX") != std::string::npos);
  // a 16-bit shift is q4f32_0's bf16 half, not an exponent: no block scaling, the packed-scale rule still applies
  w = one(gemv("W: T.Buffer((256, 512), \"uint8\"), S: T.Buffer((256, 32), \"uint32\")",
               "T.Cast(\"float16\", T.Cast(\"float32\", T.bitwise_and(T.shift_right(W[i, j // 2], T.Cast(\"uint8\", j "
               "% 2 * 4)), T.uint8(15))) * T.reinterpret(\"float32\", T.shift_left(S[i, j // 32], T.uint32(16))))"));
  CHECK(w.quant.scale_dtype == parse_dtype("float32"));
  CHECK(w.quant.scheme != "w4a16-mxfp4");
  // MX exponents per 16 are no OCP MX block
  w = one(gemv("W: T.Buffer((256, 512), \"uint8\"), S: T.Buffer((256, 64), \"float8_e8m0fnu\")",
               "T.Cast(\"float16\", " + fp4 + " * T.Cast(\"float32\", S[i, j // 16]))"));
  CHECK(w.quant.scheme == "custom");
  CHECK(w.quant.group_size == 16);
  // NVFP4 without its per-tensor scale: still NVFP4's blocks, the missing scale said
  w = one(gemv("W: T.Buffer((256, 512), \"uint8\"), S: T.Buffer((256, 64), \"float8_e4m3fn\")",
               "T.Cast(\"float16\", " + fp4 + " * T.Cast(\"float32\", S[i, j // 16]))"));
  CHECK(w.quant.scheme == "w4a16-nvfp4");
  CHECK(!w.quant.tensor_scale_dtype);
  CHECK(w.note.find("no per-tensor scale found") != std::string::npos);
}

TEST_CASE("the packed-lanes form TVM prints: a lane of a float4_e2m1fnx2 reinterpret picked by T.Shuffle") {
  // 8 e2m1 per uint32 read two at a time (TVM's _shuffle_reinterpret_module), an e8m0 exponent per 32
  const Workload w =
      one(gemv("W: T.Buffer((256, 128), \"uint32\"), S: T.Buffer((256, 32), \"float8_e8m0fnu\")",
               "T.Shuffle([T.Cast(\"float16x2\", T.reinterpret(\"float4_e2m1fnx2\", T.Cast(\"uint8\", T.bitwise_and("
               "T.shift_right(W[i, j // 8], T.Cast(\"uint32\", j % 8 // 2 * 4 * 2)), T.uint32(255)))))], [j % 2]) * "
               "T.Cast(\"float16\", S[i, j // 32])"));
  CHECK(w.quant.scheme == "w4a16-mxfp4");
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.storage_dtype == parse_dtype("uint32"));
  CHECK(w.quant.elems_per_storage == 8);
  CHECK(w.quant.group_size == 32);
  CHECK(w.note.find("float4_e2m1fn elements (8 per uint32)") != std::string::npos);
}

TEST_CASE("exp2 of float scores (attention) is no shared exponent; an e8m0 load is never the fp8 weight") {
  // P = exp2(S - max) feeding P . V: float loads only, no elements: no quantization
  const std::string att = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def pv(s: T.Buffer((32, 64, 64), "float32"), mx: T.Buffer((32, 64), "float32"), v: T.Buffer((32, 64, 128), "float16"), mask: T.Buffer((32, 64), "int8"), o: T.Buffer((32, 64, 128), "float32")):
        for a0, a1, a2, a3 in T.grid(32, 64, 128, 64):
            with T.block("pv"):
                h, i, j, k = T.axis.remap("SSSR", [a0, a1, a2, a3])
                with T.init():
                    o[h, i, j] = T.float32(0)
                o[h, i, j] = o[h, i, j] + T.exp2(s[h, i, k] - mx[h, i]) * T.Cast("float32", v[h, k, j])
)";
  const Workload w = one(att);
  CHECK(w.quant.weight_bits == 0);
  CHECK(w.quant.scheme == "none");
  // a GEMV over an e8m0 tensor scaled by nothing else: no element, the e8m0 load is not an fp8 weight
  const Workload e = one(gemv("W: T.Buffer((256, 1024), \"float16\"), S: T.Buffer((256, 32), \"float8_e8m0fnu\")",
                              "W[i, j] * T.Cast(\"float16\", S[i, j // 32])"));
  CHECK(e.quant.storage_dtype != parse_dtype("float8_e8m0fnu"));
}
