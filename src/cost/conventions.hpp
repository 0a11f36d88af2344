// Named conventions of reference tools (docs/validation.md): closed forms that count a GEMM the way
// SCALE-Sim v3 counts it, so that its published reference outputs (tests/fixtures/reference) are
// reproduced exactly and every difference from the default physical model has a name.
#pragma once

#include <cstdint>
#include <string>

namespace tenet_cost::cost::convention {

/// --convention: whose counting the output follows. `physical` is the default model (docs/model.md).
enum class Convention { physical, scalesim, timeloop };

/// "physical" | "scalesim" | "timeloop" -> Convention; InputError naming the choices otherwise.
[[nodiscard]] Convention parse_convention(const std::string& text);

/// SCALE-Sim's three dataflows. In SCALE-Sim's own names: Sr = the operand-matrix dimension on the
/// array rows, Sc = on the columns, T = the streamed (temporal) dimension.
enum class ScaleSimDataflow { os, ws, is };

/// "os" | "ws" | "is" -> ScaleSimDataflow; InputError otherwise (SCALE-Sim has no other dataflow).
[[nodiscard]] ScaleSimDataflow parse_scalesim_dataflow(const std::string& text);

/// A GEMM in SCALE-Sim's terms: ifmap M×K, filter K×N, ofmap M×N (for a convolution, M = ofmap pixels,
/// K = filter height × width × channels, N = filters: im2col).
struct ScaleSimGemm {
  std::int64_t m = 1;
  std::int64_t n = 1;
  std::int64_t k = 1;
};

/// A convolution layer row of a SCALE-Sim topology file.
struct ScaleSimConv {
  std::int64_t ifmap_h = 1, ifmap_w = 1, filter_h = 1, filter_w = 1, channels = 1, filters = 1, stride = 1;
};

/// SCALE-Sim's im2col of a convolution; the ofmap side is ceil((ifmap - filter + stride) / stride),
/// one more than the usual floor when the stride does not divide (224, 11, stride 4: 55, not 54).
[[nodiscard]] ScaleSimGemm scalesim_im2col(const ScaleSimConv& c);

/// The counters of SCALE-Sim v3's COMPUTE_REPORT and DETAILED_ACCESS_REPORT that do not depend on
/// its DRAM simulation (so they hold for CALC and USER interface bandwidth alike).
struct ScaleSimCounts {
  std::int64_t row_folds = 0;     // ceil(Sr / rows)
  std::int64_t col_folds = 0;     // ceil(Sc / cols)
  std::int64_t fold_cycles = 0;   // ws, is: 2R + C + T - 2; os: R + C + T - 2 (full-fold padding)
  std::int64_t total_cycles = 0;  // "Total Cycles" minus "Stall Cycles": folds * fold_cycles - 1
  std::int64_t sram_ifmap_reads = 0;
  std::int64_t sram_filter_reads = 0;
  std::int64_t sram_ofmap_writes = 0;  // partial sums written once per fold of the reduction
  std::int64_t mapped_macs = 0;        // sum over folds of the PEs a fold uses
  std::int64_t padded_macs = 0;        // folds * rows * cols: mapping efficiency = mapped / padded
};

/// SCALE-Sim v3's counts of one GEMM on a rows × cols array (checked arithmetic; InputError on overflow).
[[nodiscard]] ScaleSimCounts scalesim_counts(const ScaleSimGemm& g, std::int64_t rows, std::int64_t cols,
                                             ScaleSimDataflow df);

}  // namespace tenet_cost::cost::convention
