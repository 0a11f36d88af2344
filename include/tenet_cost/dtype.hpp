// One data type, parsed once from TVM's spelling (DLDataType: a type code, bits, lanes) and used by every
// reader: the TVMScript and TVM-JSON front-ends, the extractor and the scheme catalog.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tenet_cost {

struct DataType {
  enum class Code : std::uint8_t { kInt, kUInt, kFloat, kBFloat, kBool, kHandle };
  Code code = Code::kFloat;
  int bits = 32;        // 1..255 (DLDataType::bits is 8-bit); a float8/float4 format names its own bits
  int lanes = 1;        // vector lanes: "int32x4" -> 4
  std::string format;   // a float's encoding suffix: "e4m3fn", "e5m2", "e2m1fn", "e8m0fnu" ("" for IEEE / bfloat)

  [[nodiscard]] bool is_int() const { return code == Code::kInt || code == Code::kUInt; }
  [[nodiscard]] bool is_float() const { return code == Code::kFloat || code == Code::kBFloat; }
  /// A float of 8 bits or fewer with an encoding suffix (float8_*, float6_*, float4_*).
  [[nodiscard]] bool is_low_float() const { return code == Code::kFloat && !format.empty(); }
  /// OCP Microscaling's shared exponent (float8_e8m0fnu): 2^(e - 127), no sign, no mantissa.
  [[nodiscard]] bool is_exponent_only() const { return code == Code::kFloat && format == "e8m0fnu"; }
  /// TVM's DataType::Void() (a handle of 0 bits and 0 lanes, spelled "void"): a Relax tensor of unknown type.
  [[nodiscard]] bool is_void() const { return code == Code::kHandle && bits == 0; }
  bool operator==(const DataType&) const = default;

  static DataType Int(int bits) { return {Code::kInt, bits, 1, ""}; }
  static DataType UInt(int bits) { return {Code::kUInt, bits, 1, ""}; }
  static DataType Float(int bits, std::string format = "") { return {Code::kFloat, bits, 1, std::move(format)}; }
  static DataType BFloat16() { return {Code::kBFloat, 16, 1, ""}; }
};

/// A dtype as a reader found it in a dump: nullopt when none is stated (or the text is no dtype). Travels typed
/// past the readers (Workload, QuantInfo); spelled by to_string only in the views.
using OptDataType = std::optional<DataType>;

/// TVM's names: void, int8, uint32, float16, bfloat16, bool, handle, the low-precision floats TVM knows
/// (float8_e3m4, float8_e4m3, float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2, float8_e5m2fnuz,
/// float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn), each with optional lanes (float16x4,
/// float4_e2m1fnx2), and the pre-2025 spellings e4m3_float8 / e5m2_float8 (apache/tvm #17712) with lanes.
/// nullopt for anything else, an unknown float format included (no exception).
std::optional<DataType> parse_dtype(std::string_view text);
/// The canonical TVM spelling ("float8_e4m3fn", "int32x4").
std::string to_string(const DataType& t);
/// The view spelling of a dump's dtype: to_string, "" when none.
std::string to_string(const OptDataType& t);
/// Bits of one scalar element (float16 -> 16); 0 when none, void or a vector (lanes are not expected there).
int scalar_bits(const OptDataType& t);
/// The canonical spelling of a dtype text (e4m3_float8 -> float8_e4m3fn); the text itself when it already is
/// canonical or is no dtype.
std::string canonical_dtype(std::string_view text);

}  // namespace tenet_cost
