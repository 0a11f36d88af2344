#include "conventions.hpp"

#include <string>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost::convention {

namespace {

void require_positive(std::int64_t v, const char* what) {
  if (v < 1) throw InputError(std::string("expected a positive ") + what + ", found " + std::to_string(v));
}

}  // namespace

Convention parse_convention(const std::string& text) {
  if (text == "physical") return Convention::physical;
  if (text == "scalesim") return Convention::scalesim;
  if (text == "timeloop") return Convention::timeloop;
  throw InputError("--convention: expected physical | scalesim | timeloop, found '" + text + "'");
}

ScaleSimDataflow parse_scalesim_dataflow(const std::string& text) {
  if (text == "os") return ScaleSimDataflow::os;
  if (text == "ws") return ScaleSimDataflow::ws;
  if (text == "is") return ScaleSimDataflow::is;
  throw InputError("--convention scalesim: expected --dataflow os | ws | is (SCALE-Sim's dataflows), found '" + text +
                   "'");
}

ScaleSimGemm scalesim_im2col(const ScaleSimConv& c) {
  require_positive(c.stride, "stride");
  require_positive(c.filter_h, "filter height");
  require_positive(c.filter_w, "filter width");
  if (c.ifmap_h < c.filter_h || c.ifmap_w < c.filter_w)
    throw InputError("expected an ifmap at least as large as the filter, found " + std::to_string(c.ifmap_h) + "x" +
                     std::to_string(c.ifmap_w) + " < " + std::to_string(c.filter_h) + "x" + std::to_string(c.filter_w));
  const auto side = [&](std::int64_t in, std::int64_t f) {
    return ceil_div(checked_add(in - f, c.stride, "SCALE-Sim ofmap side"), c.stride);
  };
  ScaleSimGemm g;
  g.m = checked_mul(side(c.ifmap_h, c.filter_h), side(c.ifmap_w, c.filter_w), "SCALE-Sim ofmap pixels");
  g.k = checked_mul(checked_mul(c.filter_h, c.filter_w, "SCALE-Sim window"), c.channels, "SCALE-Sim window");
  g.n = c.filters;
  return g;
}

ScaleSimCounts scalesim_counts(const ScaleSimGemm& g, std::int64_t rows, std::int64_t cols, ScaleSimDataflow df) {
  require_positive(g.m, "M");
  require_positive(g.n, "N");
  require_positive(g.k, "K");
  require_positive(rows, "array height");
  require_positive(cols, "array width");
  // SCALE-Sim's operand-matrix dimensions per dataflow: rows carry Sr, columns Sc, T streams.
  std::int64_t sr = g.k;
  std::int64_t sc = g.n;
  std::int64_t t = g.m;
  if (df == ScaleSimDataflow::is) {
    sc = g.m;
    t = g.n;
  } else if (df == ScaleSimDataflow::os) {
    sr = g.m;
    t = g.k;
  }
  ScaleSimCounts c;
  c.row_folds = ceil_div(sr, rows);
  c.col_folds = ceil_div(sc, cols);
  const std::int64_t folds = checked_mul(c.row_folds, c.col_folds, "SCALE-Sim folds");
  // Every fold is padded to the full array (partial folds take a full fold's time); ws and is load
  // the stationary operand through the rows first (the extra R).
  const std::int64_t skew = checked_add(checked_add(rows, cols), t - 2, "SCALE-Sim fold cycles");
  c.fold_cycles = df == ScaleSimDataflow::os ? skew : checked_add(skew, rows, "SCALE-Sim fold cycles");
  // SCALE-Sim's last cycle index, not the cycle count: one less than the folds' sum.
  c.total_cycles = checked_mul(folds, c.fold_cycles, "SCALE-Sim cycles") - 1;
  const std::int64_t mk = checked_mul(g.m, g.k, "M*K");
  const std::int64_t kn = checked_mul(g.k, g.n, "K*N");
  const std::int64_t mn = checked_mul(g.m, g.n, "M*N");
  switch (df) {
    case ScaleSimDataflow::ws:
      c.sram_ifmap_reads = checked_mul(mk, c.col_folds, "SCALE-Sim ifmap reads");
      c.sram_filter_reads = kn;
      c.sram_ofmap_writes = checked_mul(mn, c.row_folds, "SCALE-Sim ofmap writes");
      break;
    case ScaleSimDataflow::is:
      c.sram_ifmap_reads = mk;
      c.sram_filter_reads = checked_mul(kn, c.col_folds, "SCALE-Sim filter reads");
      c.sram_ofmap_writes = checked_mul(mn, c.row_folds, "SCALE-Sim ofmap writes");
      break;
    case ScaleSimDataflow::os:
      c.sram_ifmap_reads = checked_mul(mk, c.col_folds, "SCALE-Sim ifmap reads");
      c.sram_filter_reads = checked_mul(kn, c.row_folds, "SCALE-Sim filter reads");
      // SCALE-Sim adds the drained fold's height + width to its ofmap write count once per fold.
      c.sram_ofmap_writes =
          checked_add(mn, checked_mul(folds, rows + cols, "SCALE-Sim ofmap writes"), "SCALE-Sim ofmap writes");
      break;
  }
  c.mapped_macs = checked_mul(sr, sc, "SCALE-Sim mapped PEs");
  c.padded_macs = checked_mul(folds, checked_mul(rows, cols, "array PEs"), "SCALE-Sim padded PEs");
  return c;
}

}  // namespace tenet_cost::cost::convention
