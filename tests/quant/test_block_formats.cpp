// Issue 21 items 3, 4, 7: the block formats of 2026 (OCP MX, NVFP4) in the catalog: names and aliases, the
// operands and their bits, the byte formulas, the extra work counted by hand, the KV-cache formats, and a dump's
// MX / NVFP4 weights (QuantInfo built by hand).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "quant_support.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/workload.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using quant::GemmRole;
using quant::Granularity;
using tc_test::error_of;

namespace {

// The operands on an arch that dequantizes at the array edge (the default presets).
std::vector<quant::Operand> operands(const quant::Scheme& s, GemmRole role) {
  return quant::operands(s, role, quant::DequantSite::kEdge);
}

// "name:relation:bits" of every operand, in order.
std::vector<std::string> ops_text(const std::string& scheme, GemmRole role) {
  std::vector<std::string> out;
  for (const auto& o : operands(quant::parse_scheme(scheme), role)) out.push_back(o.relation() + ":" + o.bits_text());
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("block formats: canonical names round-trip, spellings and aliases resolve to them", "[quant][block]") {
  for (const char* name : {"fp8-tensor+kvfp8",
                           "q4f16_1+kv-mxfp8-e4m3",
                           "mxfp4+kv-mxfp4",
                           "nvfp4+kv-nvfp4",
                           "w4a16-g128+kvfp8-e5m2-head",
                           "w4a16-g128+kvfp8-head",
                           "w4a16-g128+kvfp8-e5m2",
                           "w4a16-g128+kvfp8",
                           "w4a6-mxfp4-mxfp6-e3m2",
                           "w6a8-mxfp6-e2m3-mxfp8",
                           "w4a8-mxfp4-mxfp8-e5m2",
                           "w4a8-mxfp4-mxfp8",
                           "w8a16-mxint8",
                           "w8a16-mxfp8-e5m2",
                           "w6a16-mxfp6-e3m2",
                           "w4a16-nvfp4",
                           "w4a16-mxfp4",
                           "nvfp4",
                           "mxint8",
                           "mxfp8-e5m2",
                           "mxfp8-e4m3",
                           "mxfp6-e3m2",
                           "mxfp6-e2m3",
                           "mxfp4"}) {
    INFO(name);
    const auto s = quant::parse_scheme(name);
    CHECK(s.name == name);
    const auto again = quant::parse_scheme(s.name);
    CHECK(again.description == s.description);
    CHECK(operands(again, GemmRole::kLinear) == operands(s, GemmRole::kLinear));
    CHECK(operands(again, GemmRole::kAttnQK) == operands(s, GemmRole::kAttnQK));
  }
  const std::vector<std::pair<std::string, std::string>> spelled = {
      {"MXFP4", "mxfp4"},
      {"mxfp8", "mxfp8-e4m3"},
      {"w8a8-mxfp8-e4m3", "mxfp8-e4m3"},
      {"w4a4-mxfp4", "mxfp4"},
      {"w4a4-nvfp4", "nvfp4"},
      {"w4a8-mxfp4-mxfp8-e4m3", "w4a8-mxfp4-mxfp8"},
      {"w8a16-mxfp8", "w8a16-mxfp8-e4m3"},
      {"w4a16-g128+kvfp8-e4m3-tensor", "w4a16-g128+kvfp8"},
      {"w4a16-g128+kv-mxfp8", "w4a16-g128+kv-mxfp8-e4m3"},
      // vLLM --quantization and --kv-cache-dtype
      {"modelopt_fp4", "nvfp4"},
      {"fp8", "fp8-tensor"},
      {"modelopt", "fp8-tensor"},
      {"modelopt_fp4+fp8", "nvfp4+kvfp8"},
      {"fp8+fp8_e4m3", "fp8-tensor+kvfp8"},
      {"w4a16-g128+fp8_e5m2", "w4a16-g128+kvfp8-e5m2"},
      // aiconfigurator quant modes
      {"fp8_block", "fp8-block128x128"},
      {"fp8_static", "fp8-tensor"},
      {"sq", "w8a8-token-channel"},
      {"int4_wo", "w4a16-channel"},
      {"int8_wo", "w8a16-channel"},
      {"w4a16_mxfp4", "w4a16-mxfp4"},
      {"W4A8_MXFP4_MXFP8", "w4a8-mxfp4-mxfp8"},
      {"float16", "w16a16"},
      {"bfloat16", "q0bf16"},
  };
  for (const auto& [text, canonical] : spelled) {
    INFO(text);
    CHECK(quant::parse_scheme(text).name == canonical);
  }
  // every alias resolves to a scheme whose name is the alias's canonical name, and that name round-trips
  for (const auto& [alias, name] : quant::aliases()) {
    INFO(alias);
    CHECK(quant::alias_of(alias) == name);
    CHECK(quant::parse_scheme(alias).name == name);
    CHECK(quant::parse_scheme(name).name == name);
  }
  CHECK(quant::alias_of("q4f16_1").empty());
  // the catalog holds every new scheme, each under its canonical name
  std::vector<std::string> names;
  for (const auto& s : quant::catalog()) {
    CHECK(quant::parse_scheme(s.name).name == s.name);
    names.push_back(s.name);
  }
  for (const char* n : {"mxfp4", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp8-e4m3", "mxfp8-e5m2", "mxint8", "nvfp4",
                        "w4a16-mxfp4", "w4a16-nvfp4", "w4a8-mxfp4-mxfp8", "w4a16-g128+kvfp8", "nvfp4+kv-nvfp4"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
}

TEST_CASE("block formats: malformed names are one-line errors that say what is wrong", "[quant][block]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"mxfp6", "mxfp6-e2m3 or mxfp6-e3m2"},
      {"mxfp5", "unknown block format 'mxfp5'"},
      {"mxfp4-g64", "unexpected 'g64' after the block format mxfp4"},
      {"w8a16-mxfp4", "4-bit elements"},
      {"w4a8-mxfp4", "name the activation format"},
      {"w4a8-mxfp4-mxfp6-e2m3", "a8 names 8-bit activations but mxfp6-e2m3 has 6-bit elements"},
      {"w4a16-mxfp4-mxfp8", "a16 keeps float16 activations"},
      {"w4a8-nvfp4-mxfp8", "mixed forms take MXFP weights"},
      {"w8a8-mxint8-mxfp8", "mixed forms take MXFP weights"},
      {"w8a4-mxfp8-e4m3-mxfp4", "weights wider than the activations"},
      {"w4a8-mxfp4-mxfp8-bogus", "unexpected 'bogus'"},
      {"q4f16_1+kvfp8-e3m4", "unknown KV-cache option 'e3m4'"},
      {"q4f16_1+kvfp80", "expected kvfp8"},
      {"q4f16_1+kv-fp4", "expected kv-<block format>"},
      {"q4f16_1+kv-mxfp6", "mxfp6-e2m3 or mxfp6-e3m2"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    const std::string e = error_of(text);
    CHECK_THAT(e, Catch::Contains(expected));
    CHECK_THAT(e, Catch::Contains("(valid schemes: `tenet-cost quant list`)"));
    CHECK(e.find('\n') == std::string::npos);
  }
  CHECK_THAT(error_of("modelopt_fp"), Catch::Contains("did you mean 'modelopt_fp4'?"));
}

TEST_CASE("block formats: element, scale and per-tensor scale of every format, and their byte formulas",
          "[quant][block]") {
  struct Row {
    const char* scheme;
    const char* dtype;
    std::int64_t bits_num, bits_den;  // storage word / elements per word
    std::int64_t group;
    const char* scale_dtype;
    std::int64_t tensor_bits;
    const char* formula;
    const char* mac;
  };
  for (const Row& r : std::vector<Row>{
           {"mxfp4", "float4_e2m1fn", 8, 2, 32, "float8_e8m0fnu", 0, "4 + 8/32", "mxfp4"},
           {"mxfp6-e2m3", "float6_e2m3fn", 6, 1, 32, "float8_e8m0fnu", 0, "6 + 8/32", "mxfp6"},
           {"mxfp6-e3m2", "float6_e3m2fn", 6, 1, 32, "float8_e8m0fnu", 0, "6 + 8/32", "mxfp6"},
           {"mxfp8-e4m3", "float8_e4m3fn", 8, 1, 32, "float8_e8m0fnu", 0, "8 + 8/32", "mxfp8"},
           {"mxfp8-e5m2", "float8_e5m2", 8, 1, 32, "float8_e8m0fnu", 0, "8 + 8/32", "mxfp8"},
           {"mxint8", "int8", 8, 1, 32, "float8_e8m0fnu", 0, "8 + 8/32", "mxint8"},
           {"nvfp4", "float4_e2m1fn", 8, 2, 16, "float8_e4m3fn", 32, "4 + 8/16 + 32/tensor", "nvfp4"},
       }) {
    INFO(r.scheme);
    const auto s = quant::parse_scheme(r.scheme);
    for (const auto* f : {&s.weight, &s.activation}) {
      CHECK(f->dtype == r.dtype);
      CHECK(f->storage_bits == r.bits_num);
      CHECK(f->elems_per_storage == r.bits_den);
      CHECK(f->scale == Granularity::kGroup);
      CHECK(f->group == r.group);
      CHECK(f->scale_bits == 8);
      CHECK(f->scale_dtype == r.scale_dtype);
      CHECK(f->tensor_scale_bits == r.tensor_bits);
      CHECK(quant::bits_formula(*f) == r.formula);
      CHECK(f->is_low_precision());
    }
    CHECK(s.dynamic_activation);
    CHECK_FALSE(s.dequant_weight);
    CHECK(s.compute == tc_test::mac(r.mac));
    CHECK(quant::compute_precision(s, GemmRole::kLinear) == tc_test::mac(r.mac));
    CHECK(quant::compute_precision(s, GemmRole::kAttnQK) == tc_test::mac("fp16"));  // attention at model dtype
    CHECK(is_block_scaled(tc_test::mac(r.mac)));
  }
  // the byte formulas of the earlier schemes, written out
  const std::vector<std::pair<std::string, std::string>> formulas = {
      {"q0f16", "16"},
      {"q4f16_1", "4 + 16/32"},
      {"q3f16_1", "3.2 + 16/40"},
      {"q4f16_autoawq", "4 + (16+4)/128"},
      {"q4f16_ft", "4 + 16/row"},
      {"fp8-tensor", "8 + 32/tensor"},
      {"fp8-block128x128", "8 + 32/(128x128)"},
      {"w8a8-token-channel", "8 + 16/row"},
  };
  for (const auto& [scheme, formula] : formulas) {
    INFO(scheme);
    CHECK(quant::bits_formula(quant::parse_scheme(scheme).weight) == formula);
  }
  CHECK(quant::bits_formula(quant::parse_scheme("fp8_e4m3fn_bf16_block_scale_static_activation").activation) ==
        "8 + 32/(128 x rows)");
  for (const char* p : {"fp16", "bf16", "fp32", "fp8", "int8", "int4", "fp4", "fp6"})
    CHECK_FALSE(is_block_scaled(tc_test::mac(p)));
  // weight-only and mixed forms
  const auto wo = quant::parse_scheme("w4a16-nvfp4");
  CHECK(wo.compute == tc_test::mac("fp16"));
  CHECK(wo.dequant_weight);
  CHECK_FALSE(wo.dynamic_activation);
  CHECK(wo.activation.dtype == "float16");
  CHECK(wo.weight.tensor_scale_bits == 32);
  const auto mixed = quant::parse_scheme("w4a8-mxfp4-mxfp8");
  CHECK(mixed.weight.dtype == "float4_e2m1fn");
  CHECK(mixed.activation.dtype == "float8_e4m3fn");
  CHECK(mixed.compute == tc_test::mac("mxfp8"));
  CHECK_FALSE(mixed.dequant_weight);  // the mxfp8 unit takes the e2m1 weights directly
  CHECK_FALSE(mixed.output_rescale);  // MX has no per-tensor scale
  CHECK(quant::parse_scheme("nvfp4").output_rescale);
}

TEST_CASE("block formats: operands carry the block scales along K and the per-tensor scales", "[quant][block]") {
  struct Row {
    const char* scheme;
    GemmRole role;
    Strings ops;
  };
  const std::string a4 = "{S[i,j,k]->A[i,k]}:4", w4 = "{S[i,j,k]->W[k,j]}:4", c16 = "{S[i,j,k]->C[i,j]}:16";
  const std::vector<Row> rows = {
      {"mxfp4",
       GemmRole::kLinear,
       {a4, w4, "{S[i,j,k]->SA[i,floor(k/32)] : k mod 32 = 0}:8", "{S[i,j,k]->SW[j,floor(k/32)] : k mod 32 = 0}:8",
        c16}},
      {"nvfp4",
       GemmRole::kLinear,
       {a4, w4, "{S[i,j,k]->SA[i,floor(k/16)] : k mod 16 = 0}:8", "{S[i,j,k]->SA2[0]}:32",
        "{S[i,j,k]->SW[j,floor(k/16)] : k mod 16 = 0}:8", "{S[i,j,k]->SW2[0]}:32", c16}},
      {"mxfp6-e3m2",
       GemmRole::kLinear,
       {"{S[i,j,k]->A[i,k]}:6", "{S[i,j,k]->W[k,j]}:6", "{S[i,j,k]->SA[i,floor(k/32)] : k mod 32 = 0}:8",
        "{S[i,j,k]->SW[j,floor(k/32)] : k mod 32 = 0}:8", c16}},
      {"w4a16-mxfp4", GemmRole::kLinear, {"{S[i,j,k]->A[i,k]}:16", w4, "{S[i,j,k]->SW[j,floor(k/32)]}:8", c16}},
      {"w4a16-nvfp4",
       GemmRole::kLinear,
       {"{S[i,j,k]->A[i,k]}:16", w4, "{S[i,j,k]->SW[j,floor(k/16)]}:8", "{S[i,j,k]->SW2[0]}:32", c16}},
      {"w4a8-mxfp4-mxfp8",
       GemmRole::kLinear,
       {"{S[i,j,k]->A[i,k]}:8", w4, "{S[i,j,k]->SA[i,floor(k/32)] : k mod 32 = 0}:8",
        "{S[i,j,k]->SW[j,floor(k/32)] : k mod 32 = 0}:8", c16}},
      // an unquantized lm_head keeps model-dtype operands
      {"nvfp4", GemmRole::kLinearUnquantized, {"{S[i,j,k]->A[i,k]}:16", "{S[i,j,k]->W[k,j]}:16", c16}},
      // KV cache: K[k=head_dim, j=token] with scales per token and per block along head_dim; V[k=token, j=head_dim]
      {"nvfp4+kv-nvfp4",
       GemmRole::kAttnQK,
       {"{S[i,j,k]->Q[i,k]}:16", "{S[i,j,k]->K[k,j]}:4", "{S[i,j,k]->SK[j,floor(k/16)]}:8", "{S[i,j,k]->SK2[0]}:32",
        "{S[i,j,k]->P[i,j]}:16"}},
      {"nvfp4+kv-nvfp4",
       GemmRole::kAttnPV,
       {"{S[i,j,k]->P[i,k]}:16", "{S[i,j,k]->V[k,j]}:4", "{S[i,j,k]->SV[k,floor(j/16)]}:8", "{S[i,j,k]->SV2[0]}:32",
        "{S[i,j,k]->O[i,j]}:16"}},
      {"q4f16_1+kv-mxfp8",
       GemmRole::kAttnPV,
       {"{S[i,j,k]->P[i,k]}:16", "{S[i,j,k]->V[k,j]}:8", "{S[i,j,k]->SV[k,floor(j/32)]}:8", "{S[i,j,k]->O[i,j]}:16"}},
  };
  for (const auto& r : rows) {
    INFO(r.scheme << " role " << static_cast<int>(r.role));
    CHECK(ops_text(r.scheme, r.role) == r.ops);
  }
  // fp8 KV: one float32 scale per tensor or per head; an attention GEMM is one KV head, so both are SK[0]
  for (const char* kv : {"q4f16_1+kvfp8", "q4f16_1+kvfp8-head", "q4f16_1+kvfp8-e5m2"}) {
    INFO(kv);
    CHECK(ops_text(kv, GemmRole::kAttnQK) ==
          Strings{"{S[i,j,k]->Q[i,k]}:16", "{S[i,j,k]->K[k,j]}:8", "{S[i,j,k]->SK[0]}:32", "{S[i,j,k]->P[i,j]}:16"});
    CHECK(ops_text(kv, GemmRole::kAttnPV)[2] == "{S[i,j,k]->SV[0]}:32");
  }
  const auto head = quant::parse_scheme("q4f16_1+kvfp8-e5m2-head");
  CHECK(head.kv->dtype == "float8_e5m2");
  CHECK(head.kv->scale == Granularity::kHead);
  CHECK(head.kv->scale_dtype == "float32");
  CHECK(quant::to_string(Granularity::kHead) == "per-head");
  CHECK(quant::parse_scheme("q4f16_1+kvfp8").kv->scale == Granularity::kTensor);
  const auto kvnv = quant::parse_scheme("q4f16_1+kv-nvfp4");
  CHECK(kvnv.kv->tensor_scale_bits == 32);
  CHECK(quant::bits_formula(*kvnv.kv) == "4 + 8/16 + 32/tensor");
  CHECK_THAT(kvnv.description, Catch::Contains("KV cache float4_e2m1fn (per-group 16 float8_e4m3fn scales + a float32 "
                                               "scale per tensor)"));
  // attention dequantizes a quantized KV cache and adds no activation work
  const auto xw = quant::extra_work(kvnv, GemmRole::kAttnQK, 4, 40, 64);
  CHECK(xw.dequant);
  CHECK(xw.act_quant_ops == 0);
  CHECK(xw.rescale_ops == 0);
}

TEST_CASE("block formats: extra work counted by hand, K not a multiple of the block", "[quant][block]") {
  const std::int64_t m = 3, n = 5, k = 70;  // ceil(70/32) = 3 blocks, ceil(70/16) = 5 blocks per row
  struct Row {
    const char* scheme;
    bool dequant;
    std::int64_t act, rescale;
  };
  for (const Row& r : std::vector<Row>{
           // MX: per element max + scale/convert (2·M·K), per block one scale (M·ceil(K/32)); no output rescale
           {"mxfp4", false, 2 * m * k + m * 3, 0},
           {"mxfp8-e5m2", false, 2 * m * k + m * 3, 0},
           {"mxint8", false, 2 * m * k + m * 3, 0},
           {"w4a8-mxfp4-mxfp8", false, 2 * m * k + m * 3, 0},
           // NVFP4: also the per-tensor amax (M·K); blocks of 16; the two per-tensor scales once per output
           {"nvfp4", false, 3 * m * k + m * 5, m * n},
           // weight-only: the dequantizer applies every scale
           {"w4a16-mxfp4", true, 0, 0},
           {"w4a16-nvfp4", true, 0, 0},
       }) {
    INFO(r.scheme);
    const auto xw = quant::extra_work(quant::parse_scheme(r.scheme), GemmRole::kLinear, m, n, k);
    CHECK(xw.dequant == r.dequant);
    CHECK(xw.act_quant_ops == r.act);
    CHECK(xw.rescale_ops == r.rescale);
  }
  // K a multiple of the block: exactly K/32 blocks per row
  CHECK(quant::extra_work(quant::parse_scheme("mxfp4"), GemmRole::kLinear, 2, 7, 64).act_quant_ops ==
        2 * 2 * 64 + 2 * 2);
  // the earlier schemes keep their counts (fp8-block: 2·M·K, rescale per K block)
  const auto fb = quant::extra_work(quant::parse_scheme("fp8-block128x128"), GemmRole::kLinear, 2, 3, 300);
  CHECK(fb.act_quant_ops == 2 * 2 * 300);
  CHECK(fb.rescale_ops == 2 * 3 * 3);
  CHECK_THROWS_AS(quant::extra_work(quant::parse_scheme("mxfp4"), GemmRole::kLinear, std::int64_t{1} << 62, 1, 8),
                  OverflowError);
}

TEST_CASE("a dump's MX and NVFP4 weights map to the weight-only block schemes (QuantInfo by hand)", "[quant][block]") {
  auto mx = [](const std::string& storage, int bits, int per_word) {
    QuantInfo q;
    q.scheme = "custom";
    q.granularity = QuantGranularity::kGroup;
    q.weight_bits = bits;
    q.elems_per_storage = per_word;
    q.group_size = 32;
    q.storage_dtype = parse_dtype(storage);
    q.scale_dtype = parse_dtype("float8_e8m0fnu");
    q.zero_point = ZeroPointKind::kSymmetric;
    q.weight_layout = "NK";
    return q;
  };
  const std::vector<std::pair<QuantInfo, std::string>> cases = {
      {mx("float4_e2m1fn", 4, 1), "w4a16-mxfp4"},
      {mx("uint8", 4, 2), "w4a16-mxfp4"},  // gpt-oss: two e2m1 per byte
      {mx("uint32", 4, 8), "w4a16-mxfp4"},
      {mx("int8", 4, 2), "w4a16-mxfp4"},  // packed in int8 words: not MXINT8
      {mx("float6_e2m3fn", 6, 1), "w6a16-mxfp6-e2m3"},
      {mx("float6_e3m2fn", 6, 1), "w6a16-mxfp6-e3m2"},
      {mx("float8_e4m3fn", 8, 1), "w8a16-mxfp8-e4m3"},
      {mx("float8_e5m2", 8, 1), "w8a16-mxfp8-e5m2"},
      {mx("int8", 8, 1), "w8a16-mxint8"},
  };
  for (const auto& [q, name] : cases) {
    INFO(to_string(q.storage_dtype) << " -> " << name);
    const auto s = quant::scheme_from(q);
    CHECK(s.name == name);
    CHECK(s.family == quant::SchemeFamily::kDump);
    // oracle: the scheme of that name has the same weight format
    const auto ref = quant::parse_scheme(name);
    CHECK(operands(s, GemmRole::kLinear) == operands(ref, GemmRole::kLinear));
    CHECK(s.weight.scale_dtype == "float8_e8m0fnu");
  }
  QuantInfo nv = mx("float4_e2m1fn", 4, 1);
  nv.group_size = 16;
  nv.scale_dtype = parse_dtype("float8_e4m3fn");
  nv.tensor_scale_dtype = parse_dtype("float32");
  const auto s = quant::scheme_from(nv);
  CHECK(s.name == "w4a16-nvfp4");
  CHECK(s.weight.tensor_scale_bits == 32);
  CHECK(operands(s, GemmRole::kLinear) == operands(quant::parse_scheme("w4a16-nvfp4"), GemmRole::kLinear));
  // not block formats: e4m3 scales per 16 without the per-tensor scale, e8m0 per 64, 6-bit packed words (e2m3 or
  // e3m2 is not said), asymmetric zero points
  QuantInfo no_tensor = nv;
  no_tensor.tensor_scale_dtype.reset();
  CHECK(quant::scheme_from(no_tensor).name == "custom-w4-g16");
  QuantInfo g64 = mx("float4_e2m1fn", 4, 1);
  g64.group_size = 64;
  CHECK(quant::scheme_from(g64).name == "custom-w4-g64");
  CHECK(quant::scheme_from(mx("uint32", 6, 5)).name == "custom-w6-g32");
  QuantInfo asym = mx("uint8", 4, 2);
  asym.zero_point = ZeroPointKind::kTensor;
  CHECK(quant::scheme_from(asym).name == "custom-w4-g32");
  // the extractor's name when it saw the activations block-scaled too (docs/extract.md): W and A
  for (const char* named : {"mxfp4", "nvfp4", "w4a8-mxfp4-mxfp8", "mxfp8-e5m2", "w4a16-mxfp4"}) {
    QuantInfo q = named == std::string("nvfp4") ? nv : mx("float4_e2m1fn", 4, 1);
    q.scheme = named;
    if (named == std::string("mxfp8-e5m2")) q = mx("float8_e5m2", 8, 1), q.scheme = named;
    INFO(named);
    const auto from = quant::scheme_from(q);
    CHECK(from.name == named);
    CHECK(from.family == quant::SchemeFamily::kDump);
    CHECK(operands(from, GemmRole::kLinear) == operands(quant::parse_scheme(named), GemmRole::kLinear));
  }
  // an MLC dump keeps its scheme
  QuantInfo mlc = mx("uint32", 4, 8);
  mlc.scheme = "q4f16_1";
  mlc.scale_dtype = parse_dtype("float16");
  CHECK(quant::scheme_from(mlc).name == "q4f16_1");
}

TEST_CASE("block formats: where each scale is applied (block-scaled unit, edge dequantizer, output)",
          "[quant][block]") {
  using quant::Apply;
  const auto find = [](const std::vector<quant::Operand>& ops, const std::string& name) {
    for (const auto& o : ops)
      if (o.name == name) return o;
    FAIL("no operand " << name);
    return ops.front();
  };
  // on a block-scaled unit: the block scales once per block on the partial sum, the per-tensor ones per output
  const auto nv = operands(quant::parse_scheme("nvfp4"), GemmRole::kLinear);
  CHECK(find(nv, "SW").apply == Apply::kGroup);
  CHECK(find(nv, "SW").apply_group == 16);
  CHECK(find(nv, "SA").apply == Apply::kGroup);
  CHECK(find(nv, "SA").of == quant::OperandRole::kActivation);
  CHECK(find(nv, "SW2").apply == Apply::kOutput);
  CHECK(find(nv, "SA2").apply == Apply::kOutput);
  CHECK(find(nv, "SA2").of == quant::OperandRole::kActivation);
  CHECK(find(nv, "SW2").of == quant::OperandRole::kWeight);
  // weight-only: the dequantizer applies both levels; the weight enters the array at fp16
  const auto wo = operands(quant::parse_scheme("w4a16-nvfp4"), GemmRole::kLinear);
  CHECK(find(wo, "SW").apply == Apply::kEdge);
  CHECK(find(wo, "SW2").apply == Apply::kEdge);
  CHECK(find(wo, "W").array_bits == 16);
  // an arch without the block-scaled unit: A and W dequantized at the edge (entering at the MAC bits), their block
  // scales applied there, the per-tensor scales still on the output; in the PE: by every MAC
  for (const auto site : {quant::DequantSite::kEdge, quant::DequantSite::kPE}) {
    auto ops = quant::operands(quant::parse_scheme("nvfp4"), GemmRole::kLinear, site);
    quant::place_dequantized(ops, 16, site);
    const bool edge = site == quant::DequantSite::kEdge;
    CHECK(find(ops, "A").array_bits == (edge ? 16 : 0));
    CHECK(find(ops, "W").array_bits == (edge ? 16 : 0));
    CHECK(find(ops, "SA").apply == (edge ? Apply::kEdge : Apply::kMac));
    CHECK(find(ops, "SW").apply == (edge ? Apply::kEdge : Apply::kMac));
    CHECK(find(ops, "SW2").apply == Apply::kOutput);
    CHECK(find(ops, "C").array_bits == 0);
  }
  for (const auto& [p, bits] : std::vector<std::pair<std::string, std::int64_t>>{
           {"mxfp4", 4}, {"nvfp4", 4}, {"fp4", 4}, {"mxfp6", 6}, {"fp6", 6}, {"mxfp8", 8}, {"mxint8", 8}})
    CHECK(precision_bits(tc_test::mac(p)) == bits);
}
