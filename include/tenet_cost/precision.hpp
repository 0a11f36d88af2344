// MAC precisions (plain data, header only): the keys of an arch's macs_per_pe_per_cycle / energy_pj.mac, parsed
// once by the arch reader, and a quantization scheme's compute precision. Below both arch and quant so neither
// includes the other; spelled by to_string only in the views and messages (docs/arch.md "MAC precisions").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tenet_cost {

/// fp32 fp16 bf16 fp8 fp6 fp4 int8 int4, and the block-scaled units mxfp8 mxfp6 mxfp4 mxint8 nvfp4 (a dot-product
/// unit that applies each operand's shared exponent / block scale once per block).
enum class MacPrecision : std::uint8_t {
  kFp32,
  kFp16,
  kBf16,
  kFp8,
  kFp6,
  kFp4,
  kInt8,
  kInt4,
  kMxfp8,
  kMxfp6,
  kMxfp4,
  kMxint8,
  kNvfp4,
};

/// Every precision, in the order docs/arch.md lists them (the arch reader's valid keys).
inline constexpr std::array<MacPrecision, 13> kMacPrecisions = {
    MacPrecision::kFp32,  MacPrecision::kFp16,   MacPrecision::kBf16, MacPrecision::kFp8,   MacPrecision::kFp6,
    MacPrecision::kFp4,   MacPrecision::kInt8,   MacPrecision::kInt4, MacPrecision::kMxfp8, MacPrecision::kMxfp6,
    MacPrecision::kMxfp4, MacPrecision::kMxint8, MacPrecision::kNvfp4};

/// The arch JSON's key and the output's spelling: "fp32", "fp16", ..., "nvfp4".
constexpr const char* to_string(MacPrecision p) {
  switch (p) {
    case MacPrecision::kFp32: return "fp32";
    case MacPrecision::kFp16: return "fp16";
    case MacPrecision::kBf16: return "bf16";
    case MacPrecision::kFp8: return "fp8";
    case MacPrecision::kFp6: return "fp6";
    case MacPrecision::kFp4: return "fp4";
    case MacPrecision::kInt8: return "int8";
    case MacPrecision::kInt4: return "int4";
    case MacPrecision::kMxfp8: return "mxfp8";
    case MacPrecision::kMxfp6: return "mxfp6";
    case MacPrecision::kMxfp4: return "mxfp4";
    case MacPrecision::kMxint8: return "mxint8";
    case MacPrecision::kNvfp4: break;
  }
  return "nvfp4";
}

/// The precision a key names (exact spelling); nullopt for anything else.
constexpr std::optional<MacPrecision> parse_mac_precision(std::string_view key) {
  for (const MacPrecision p : kMacPrecisions)
    if (key == to_string(p)) return p;
  return std::nullopt;
}

/// A block-scaled precision (mxfp8, mxfp6, mxfp4, mxint8, nvfp4).
constexpr bool is_block_scaled(MacPrecision p) {
  return p == MacPrecision::kMxfp8 || p == MacPrecision::kMxfp6 || p == MacPrecision::kMxfp4 ||
         p == MacPrecision::kMxint8 || p == MacPrecision::kNvfp4;
}

/// Bits of one element at a MAC precision (fp16 -> 16, int4 -> 4, mxfp6 -> 6).
constexpr int precision_bits(MacPrecision p) {
  switch (p) {
    case MacPrecision::kFp32: return 32;
    case MacPrecision::kFp16:
    case MacPrecision::kBf16: return 16;
    case MacPrecision::kFp8:
    case MacPrecision::kInt8:
    case MacPrecision::kMxfp8:
    case MacPrecision::kMxint8: return 8;
    case MacPrecision::kFp6:
    case MacPrecision::kMxfp6: return 6;
    case MacPrecision::kFp4:
    case MacPrecision::kInt4:
    case MacPrecision::kMxfp4:
    case MacPrecision::kNvfp4: break;
  }
  return 4;
}

}  // namespace tenet_cost
