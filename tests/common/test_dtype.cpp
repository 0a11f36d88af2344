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
      {"bool", Code::kBool, 1, 1, "", "bool"},
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
  for (const char* bad : {"", "int", "int_anything", "uint", "int0", "int256", "uint99999999999999999999", "float",
                          "float16x", "float16x0", "int8x4x4", "int8_e4m3", "float8_", "Float16", "int32 ", "x4"}) {
    INFO(bad);
    CHECK_FALSE(parse_dtype(bad));
  }
  CHECK(parse_dtype("int8")->is_int());
  CHECK(parse_dtype("bfloat16")->is_float());
  CHECK_FALSE(parse_dtype("bool")->is_int());
}
