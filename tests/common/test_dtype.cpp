// DataType: TVM's spellings parsed once (code, bits, lanes, format); everything else refused without an exception.
#include <catch2/catch.hpp>

#include "tenet_cost/dtype.hpp"

using tenet_cost::DataType;
using tenet_cost::parse_dtype;
using Code = DataType::Code;

TEST_CASE("parse_dtype reads TVM's and MLC's spellings and prints the canonical one") {
  struct Row {
    const char* text;
    Code code;
    int bits, lanes;
    const char* format;
    const char* canonical;
  };
  const Row rows[] = {
      {"int8", Code::kInt, 8, 1, "", "int8"},
      {"uint32", Code::kUInt, 32, 1, "", "uint32"},
      {"int32x4", Code::kInt, 32, 4, "", "int32x4"},
      {"float16", Code::kFloat, 16, 1, "", "float16"},
      {"float16x8", Code::kFloat, 16, 8, "", "float16x8"},
      {"bfloat16", Code::kBFloat, 16, 1, "", "bfloat16"},
      {"float8_e4m3fn", Code::kFloat, 8, 1, "e4m3fn", "float8_e4m3fn"},
      {"float8_e5m2x4", Code::kFloat, 8, 4, "e5m2", "float8_e5m2x4"},
      {"float4_e2m1fn", Code::kFloat, 4, 1, "e2m1fn", "float4_e2m1fn"},
      {"e4m3_float8", Code::kFloat, 8, 1, "e4m3fn", "float8_e4m3fn"},
      {"e5m2_float8", Code::kFloat, 8, 1, "e5m2", "float8_e5m2"},
      {"e4m3_float8x4", Code::kFloat, 8, 4, "e4m3fn", "float8_e4m3fnx4"},
      // the 2025 formats (apache/tvm #17630, #17831: DLPack 1.1's float8/6/4 codes)
      {"float8_e8m0fnu", Code::kFloat, 8, 1, "e8m0fnu", "float8_e8m0fnu"},
      {"float6_e2m3fn", Code::kFloat, 6, 1, "e2m3fn", "float6_e2m3fn"},
      {"float6_e3m2fn", Code::kFloat, 6, 1, "e3m2fn", "float6_e3m2fn"},
      {"float4_e2m1fnx2", Code::kFloat, 4, 2, "e2m1fn", "float4_e2m1fnx2"},
      {"float8_e4m3fnuz", Code::kFloat, 8, 1, "e4m3fnuz", "float8_e4m3fnuz"},
      {"float8_e4m3b11fnuz", Code::kFloat, 8, 1, "e4m3b11fnuz", "float8_e4m3b11fnuz"},
      {"float8_e3m4", Code::kFloat, 8, 1, "e3m4", "float8_e3m4"},
      {"float8_e4m3", Code::kFloat, 8, 1, "e4m3", "float8_e4m3"},
      {"float8_e5m2fnuz", Code::kFloat, 8, 1, "e5m2fnuz", "float8_e5m2fnuz"},
      {"bool", Code::kBool, 1, 1, "", "bool"},
      {"handle", Code::kHandle, 64, 1, "", "handle"},
      // TVM's DataType::Void(): a Relax tensor of unknown element type
      {"void", Code::kHandle, 0, 0, "", "void"},
  };
  for (const auto& r : rows) {
    INFO(r.text);
    const auto t = parse_dtype(r.text);
    REQUIRE(t);
    CHECK(t->code == r.code);
    CHECK(t->bits == r.bits);
    CHECK(t->lanes == r.lanes);
    CHECK(t->format == r.format);
    CHECK(to_string(*t) == r.canonical);
    CHECK(parse_dtype(to_string(*t)) == t);
  }
}

TEST_CASE("parse_dtype refuses what is no dtype (the old prefix test accepted int_anything)") {
  for (const char* bad :
       {"", "int", "int_anything", "uint", "int0", "int256", "uint99999999999999999999", "float", "float16x",
        "float16x0", "int8x4x4", "int8_e4m3", "float8_", "Float16", "int32 ", "x4",
        // a format TVM does not know, or one whose bits do not match its name
        "float8_e2m1fn", "float4_e4m3fn", "float6_e2m1fn", "float8_abc", "float16_e5m2", "float8_e8m0fnux",
        "e4m3_float8x", "e4m3_float8x0", "e4m3_float8_", "e4m3_float16", "e2m1_float4"}) {
    INFO(bad);
    CHECK_FALSE(parse_dtype(bad));
  }
  CHECK(parse_dtype("int8")->is_int());
  CHECK(parse_dtype("bfloat16")->is_float());
  CHECK_FALSE(parse_dtype("bool")->is_int());
}

TEST_CASE("low-precision float predicates and the canonical spelling of the old fp8 names") {
  CHECK(parse_dtype("float4_e2m1fn")->is_low_float());
  CHECK(parse_dtype("float8_e4m3fn")->is_low_float());
  CHECK(parse_dtype("float8_e8m0fnu")->is_low_float());
  CHECK_FALSE(parse_dtype("float16")->is_low_float());
  CHECK_FALSE(parse_dtype("bfloat16")->is_low_float());
  CHECK_FALSE(parse_dtype("uint8")->is_low_float());
  CHECK(parse_dtype("float8_e8m0fnu")->is_exponent_only());
  CHECK(parse_dtype("float8_e8m0fnux4")->is_exponent_only());
  CHECK_FALSE(parse_dtype("float8_e4m3fn")->is_exponent_only());
  CHECK_FALSE(parse_dtype("uint8")->is_exponent_only());
  CHECK(tenet_cost::canonical_dtype("e4m3_float8") == "float8_e4m3fn");
  CHECK(tenet_cost::canonical_dtype("e5m2_float8x2") == "float8_e5m2x2");
  CHECK(tenet_cost::canonical_dtype("float8_e4m3fn") == "float8_e4m3fn");
  CHECK(tenet_cost::canonical_dtype("float16") == "float16");
  CHECK(tenet_cost::canonical_dtype("") == "");
  CHECK(tenet_cost::canonical_dtype("e4m3_float") == "e4m3_float");  // no dtype: kept as is
}

TEST_CASE("a dump's optional dtype: the view spelling, scalar bits and the named constructors") {
  using tenet_cost::OptDataType;
  using tenet_cost::scalar_bits;
  CHECK(to_string(OptDataType{}).empty());  // none stated: the views print ""
  CHECK(to_string(parse_dtype("e4m3_float8")) == "float8_e4m3fn");
  CHECK(scalar_bits(parse_dtype("uint32")) == 32);
  CHECK(scalar_bits(parse_dtype("float4_e2m1fn")) == 4);
  CHECK(scalar_bits(parse_dtype("int32x4")) == 0);  // vector lanes: not a storage element
  CHECK(scalar_bits(parse_dtype("void")) == 0);
  CHECK(scalar_bits(std::nullopt) == 0);
  CHECK(parse_dtype("void")->is_void());
  CHECK_FALSE(parse_dtype("handle")->is_void());
  CHECK(parse_dtype("uint16") == DataType::UInt(16));
  CHECK(parse_dtype("int8") == DataType::Int(8));
  CHECK(parse_dtype("float32") == DataType::Float(32));
  CHECK(parse_dtype("float8_e5m2") == DataType::Float(8, "e5m2"));
  CHECK(parse_dtype("bfloat16") == DataType::BFloat16());
  CHECK(parse_dtype("float16x2") != DataType::Float(16));
}
