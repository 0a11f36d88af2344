// A weight's quantization as seen in a dump (module `quant`, plain data, header only): what the extractor
// finds (tenet_cost/workload.hpp's Workload::quant) and what quant::scheme_from turns into a scheme. It lives
// here, below both, so that quant never includes the extractor's headers.
#pragma once

#include <cstdint>
#include <string>

#include "tenet_cost/dtype.hpp"

namespace tenet_cost {

/// How a quantized weight's scales are shared (none when unquantized).
enum class QuantGranularity { kNone, kTensor, kChannel, kGroup, kBlock };
/// A quantized weight's zero point: none, a constant offset (symmetric), or a zero-point tensor.
enum class ZeroPointKind { kNone, kSymmetric, kTensor };
/// The output spellings (extract's JSON, CSV and table): "none" | "per-tensor" | "per-channel" | "per-group" |
/// "per-block"; "none" | "symmetric" | "tensor".
constexpr const char* to_string(QuantGranularity g) {
  switch (g) {
    case QuantGranularity::kTensor: return "per-tensor";
    case QuantGranularity::kChannel: return "per-channel";
    case QuantGranularity::kGroup: return "per-group";
    case QuantGranularity::kBlock: return "per-block";
    case QuantGranularity::kNone: break;
  }
  return "none";
}
constexpr const char* to_string(ZeroPointKind z) {
  switch (z) {
    case ZeroPointKind::kSymmetric: return "symmetric";
    case ZeroPointKind::kTensor: return "tensor";
    case ZeroPointKind::kNone: break;
  }
  return "none";
}
/// Quantization visible in the IR for a workload's weight operand.
struct QuantInfo {
  std::string scheme = "none";  // MLC name ("q4f16_1", "q4f16_0", "e4m3_e4m3_f16", ...),
                                // "none" when unquantized, "custom" when not an MLC scheme
  QuantGranularity granularity = QuantGranularity::kNone;
  int weight_bits = 0;             // 0 = not quantized (weight is the plain dtype)
  int elems_per_storage = 1;       // e.g. 8 int4 per uint32
  std::int64_t group_size = 0;     // 0 = no groups
  OptDataType storage_dtype;       // uint32, int8, float8_e4m3fn
  OptDataType scale_dtype;         // float16, float32; nullopt when no scale
  OptDataType tensor_scale_dtype;  // second-level per-tensor scale (NVFP4: float32); nullopt when none
  ZeroPointKind zero_point = ZeroPointKind::kNone;
  std::string weight_layout;  // "NK" | "KN" | ""
  bool has_g_idx = false;     // GPTQ act-order indirection
  std::int64_t block_n = 0;   // "per-block": 2-D scale blocks of block_n (along N) x block_k
  std::int64_t block_k = 0;   //   (along K), scale [ceil(N/block_n), ceil(K/block_k)]; else 0
  bool operator==(const QuantInfo&) const = default;
};

}  // namespace tenet_cost
