// What the extractor finds in a dump and what the estimator consumes:
// GEMM / convolution workloads with shapes (static or symbolic), dtypes,
// quantization facts and call counts per entry function.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/error.hpp"

namespace tenet_cost {

/// One extent: a known integer, or a symbolic expression over shape vars
/// ("n", "seq_len", "nseq * n") until bound with --bind.
struct Dim {
  std::optional<std::int64_t> value;  // set when static or bound
  std::string expr;                   // the symbolic text; "" when static

  static Dim constant(std::int64_t v) { return Dim{v, ""}; }
  static Dim symbolic(std::string e) { return Dim{std::nullopt, std::move(e)}; }
  [[nodiscard]] bool known() const { return value.has_value(); }
  /// Integer text or the expression text.
  [[nodiscard]] std::string str() const { return value ? std::to_string(*value) : expr; }
  bool operator==(const Dim&) const = default;
};

enum class WorkloadKind { kGemm, kConv };

/// How a quantized weight's scales are shared (none when unquantized).
enum class QuantGranularity { kNone, kTensor, kChannel, kGroup, kBlock };
/// A quantized weight's zero point: none, a constant offset (symmetric), or a zero-point tensor.
enum class ZeroPointKind { kNone, kSymmetric, kTensor };
/// Which GEMM operand is the weight (none: both are activations, e.g. attention).
enum class WeightOperand { kA, kB, kNone };
/// Where a workload was found: a TIR prim_func, a Relax op, a packed-function call.
enum class WorkloadSource { kTir, kRelax, kPacked };

/// The output spellings (extract's JSON, CSV and table): "none" | "per-tensor" | "per-channel" | "per-group" |
/// "per-block"; "none" | "symmetric" | "tensor"; "a" | "b" | "none"; "tir" | "relax" | "packed".
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
constexpr const char* to_string(WeightOperand w) {
  switch (w) {
    case WeightOperand::kA: return "a";
    case WeightOperand::kB: return "b";
    case WeightOperand::kNone: break;
  }
  return "none";
}
constexpr const char* to_string(WorkloadSource s) {
  switch (s) {
    case WorkloadSource::kRelax: return "relax";
    case WorkloadSource::kPacked: return "packed";
    case WorkloadSource::kTir: break;
  }
  return "tir";
}

/// Quantization visible in the IR for a workload's weight operand.
struct QuantInfo {
  std::string scheme = "none";         // MLC name ("q4f16_1", "q4f16_0", "e4m3_e4m3_f16", ...),
                                       // "none" when unquantized, "custom" when not an MLC scheme
  QuantGranularity granularity = QuantGranularity::kNone;
  int weight_bits = 0;                 // 0 = not quantized (weight is the plain dtype)
  int elems_per_storage = 1;           // e.g. 8 int4 per uint32
  std::int64_t group_size = 0;         // 0 = no groups
  std::string storage_dtype;           // "uint32", "int8", "float8_e4m3fn"
  std::string scale_dtype;             // "float16", "float32", "" when no scale
  std::string tensor_scale_dtype;      // second-level per-tensor scale (NVFP4: "float32"), "" when none
  ZeroPointKind zero_point = ZeroPointKind::kNone;
  std::string weight_layout;           // "NK" | "KN" | ""
  bool has_g_idx = false;              // GPTQ act-order indirection
  std::int64_t block_n = 0;            // "per-block": 2-D scale blocks of block_n (along N) x block_k
  std::int64_t block_k = 0;            //   (along K), scale [ceil(N/block_n), ceil(K/block_k)]; else 0
  bool operator==(const QuantInfo&) const = default;
};

/// Convolution loop nest facts (kind == kConv).
struct ConvInfo {
  int spatial_dims = 0;                        // 1, 2 or 3
  std::vector<std::string> loop_names;         // block iter vars in order
  std::vector<Dim> loop_extents;               // same order
  std::vector<char> loop_kinds;                // 'S' or 'R'
  std::vector<std::int64_t> strides;           // per spatial dim
  std::vector<std::int64_t> dilations;         // per spatial dim
  bool operator==(const ConvInfo&) const = default;
};

struct Workload {
  std::string function;                 // prim_func (or Relax binding) it came from
  WorkloadKind kind = WorkloadKind::kGemm;
  Dim m = Dim::constant(1), n = Dim::constant(1), k = Dim::constant(1), batch = Dim::constant(1);
  /// Set when a schedule padded the M axis (`(m + 3) // 4 * 4`): m is the logical size, this
  /// the padded one the scheduled kernel runs (docs/extract.md "Scheduled padding").
  std::optional<Dim> m_padded;
  std::string layout = "NN";            // "NN" | "NT" | "TN" | "TT" (A: MxK unless T; B: KxN unless T)
  std::string dtype_a, dtype_b, dtype_out, dtype_accum;
  WeightOperand weight_operand = WeightOperand::kB;
  QuantInfo quant;
  std::map<std::string, std::int64_t> calls;  // entry function -> calls per invocation
  ConvInfo conv;                        // kind == kConv
  bool shape_known = true;              // false: reported, never guessed
  std::string note;                     // why the shape is unknown, or other remarks
  WorkloadSource source = WorkloadSource::kTir;
  SourceLocation loc;
};

}  // namespace tenet_cost
