// What the extractor finds in a dump and what the estimator consumes:
// GEMM / convolution workloads with shapes (static or symbolic), dtypes,
// quantization facts and call counts per entry function.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/dtype.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/quant_info.hpp"
#include "tenet_cost/sym.hpp"

namespace tenet_cost {

/// One extent: a known integer, a symbolic expression over shape vars ("n", "seq_len", "nseq * n": a typed
/// tree built once by the extractor, tenet_cost/sym.hpp) until bound with --bind, or unknown (neither).
struct Dim {
  std::optional<std::int64_t> value;  // set when static or bound
  sym::SymPtr expr;                   // set when symbolic; null when known or unknown

  static Dim constant(std::int64_t v) { return Dim{v, nullptr}; }
  /// An integer expression gives the constant.
  static Dim symbolic(sym::SymPtr e) {
    if (e->kind == sym::SymKind::kInt) return constant(e->value);
    return Dim{std::nullopt, std::move(e)};
  }
  /// A shape the extractor could not state (reported, never guessed).
  static Dim unknown() { return Dim{}; }
  [[nodiscard]] bool known() const { return value.has_value(); }
  /// The integer, the expression's text (sym::to_text), or "?" when unknown: extract's spelling.
  [[nodiscard]] std::string str() const;
  bool operator==(const Dim& o) const {
    return value == o.value && (expr == o.expr || (expr && o.expr && sym::equal(*expr, *o.expr)));
  }
};

enum class WorkloadKind { kGemm, kConv };

/// Which GEMM operand is the weight (none: both are activations, e.g. attention).
enum class WeightOperand { kA, kB, kNone };
/// Where a workload was found: a TIR prim_func, a Relax op, a packed-function call.
enum class WorkloadSource { kTir, kRelax, kPacked };

/// The output spellings (extract's JSON, CSV and table): "a" | "b" | "none"; "tir" | "relax" | "packed"
/// (QuantGranularity and ZeroPointKind: quant_info.hpp).
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

/// Convolution loop nest facts (kind == kConv).
struct ConvInfo {
  int spatial_dims = 0;                        // 1, 2 or 3
  std::vector<std::string> loop_names;         // block iter vars in order
  std::vector<Dim> loop_extents;               // same order
  std::vector<char> loop_kinds;                // 'S' or 'R'
  std::vector<std::int64_t> strides;           // per spatial dim
  std::vector<std::int64_t> dilations;         // per spatial dim
  std::vector<std::string> window_out;         // per spatial dim: the output loop of the window index
  std::vector<std::string> window_kernel;      // per spatial dim: the kernel (reduction) loop of the window index
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
  OptDataType dtype_a, dtype_b, dtype_out, dtype_accum;  // parsed once by the extractor; nullopt: not stated
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
