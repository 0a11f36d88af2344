// One data type, parsed once from TVM's spelling (DLDataType: a type code, bits, lanes) and used by every
// reader: the TVMScript and TVM-JSON front-ends, the extractor and the scheme catalog.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tenet_cost {

struct DataType {
  enum class Code : std::uint8_t { kInt, kUInt, kFloat, kBFloat, kBool, kHandle };
  Code code = Code::kFloat;
  int bits = 32;        // 1..255 (DLDataType::bits is 8-bit); a float8/float4 format names its own bits
  int lanes = 1;        // vector lanes: "int32x4" -> 4
  std::string format;   // a float's encoding suffix: "e4m3fn", "e5m2", "e2m1fn" ("" for IEEE / bfloat)

  [[nodiscard]] bool is_int() const { return code == Code::kInt || code == Code::kUInt; }
  [[nodiscard]] bool is_float() const { return code == Code::kFloat || code == Code::kBFloat; }
  bool operator==(const DataType&) const = default;
};

/// TVM's names: int8, uint32, float16, bfloat16, float8_e4m3fn, float8_e5m2, float4_e2m1fn, bool, handle, with
/// optional lanes (float16x4), and MLC's e4m3_float8 / e5m2_float8. nullopt for anything else (no exception).
std::optional<DataType> parse_dtype(std::string_view text);
/// The canonical TVM spelling ("float8_e4m3fn", "int32x4").
std::string to_string(const DataType& t);

}  // namespace tenet_cost
