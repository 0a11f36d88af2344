// A self-contained HTML report (docs/report.md): inline SVG charts drawn by our
// own small writer, no script or style fetched, byte-deterministic output.
//
// The input is plain data (ReportDoc) so the renderer does not depend on the
// cost model; views over the estimate/compare results fill it in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/search.hpp"
#include "tenet_cost/sweep.hpp"

namespace tenet_cost::report::html {

/// One named part of a stacked bar (a cost term, or "scale/zero point").
struct Segment {
  std::string term;
  double value = 0;
};

/// The figures of one phase or entry of a scheme's run.
struct RunFigures {
  double latency_s = 0;
  std::int64_t dram_bytes = 0, scale_dram_bytes = 0;  // scale = scales + zero points
  double energy_j = 0;
  /// Energy by term (optional; when given, the energy bars are stacked by it and it must sum to energy_j within
  /// 1e-6 relative).
  std::vector<Segment> energy_by_term;
};

/// An entry that is neither prefill nor decode (a kernel file, --gemm shapes, a custom entry): one run of it.
struct EntryFigures {
  std::string entry;
  RunFigures run;
};

/// (a) One row of the scheme comparison.
struct SchemeRow {
  std::string scheme;
  RunFigures prefill, decode;         // whole prompt; one token
  std::vector<EntryFigures> entries;  // the other entries, the same names in every row
  std::string series;                 // the scheme whose colour the row takes ("" = `scheme`)
};

/// (b) One GEMM/operator of an entry: per-call cycles by term, times `calls`.
struct OperatorRow {
  std::string name;
  std::int64_t calls = 1;
  std::vector<std::int64_t> cycles_by_term;  // parallel to Breakdown::terms, per call
  std::int64_t cycles = 0;                   // per call (the model's combination of the terms)
  std::string bound;                         // one of Breakdown::terms
};
struct Breakdown {
  std::string entry, scheme;
  std::vector<std::string> terms;  // e.g. compute, buffer, dram, dequant, vector
  std::vector<OperatorRow> rows;
};

/// (c) A roofline point: one GEMM/operator's totals in its entry.
struct RooflinePoint {
  std::string name, entry;
  std::int64_t macs = 0, dram_bytes = 0;
  double latency_s = 0;
};
struct Roofline {
  std::string scheme;
  std::string precision;        // the MAC precision of the compute roof ("" = not stated)
  double peak_macs_per_s = 0;   // compute roof of the arch at this scheme's MAC precision
  double dram_bytes_per_s = 0;  // bandwidth slope
  std::vector<RooflinePoint> points;
};

/// (d) A latency-energy point (the front is computed by the renderer).
struct TradeoffPoint {
  std::string label;
  double latency_s = 0, energy_j = 0;
  std::string series;  // the scheme whose colour the point takes ("" = `label`)
};

/// (f) A sweep's line chart: one metric against one swept axis, one line per scheme (the other axes fixed).
struct LinePoint {
  bool present = false;  // false: no point at this axis value (an error record, or not in the results)
  double value = 0;      // in base units (s, J, bytes)
  std::string exact;     // the results file's number text (data attribute)
  std::string id;        // the sweep point's id
};
struct LineSeries {
  std::string name;               // the scheme
  std::vector<LinePoint> points;  // parallel to LineChart::x
};
struct LineChart {
  std::string id, title;
  std::string x_title, y_title;  // with units
  std::string attr;              // the data attribute of each point's value ("data-latency-s")
  std::string phase;             // "prefill" | "decode" (data-phase)
  double unit = 1;               // drawn value = value / unit
  std::vector<std::string> x;    // the axis values in order
  std::vector<LineSeries> series;
};

/// (g) One scheme's whole request (compare --prompt-len / --gen-len): the batch's N requests served together.
struct RequestRow {
  std::string scheme, series;  // series: the scheme whose colour the row takes ("" = `scheme`)
  double ttft_s = 0;           // time to first token: the prefill of the N prompts
  double tpot_s = 0;           // time per output token: the mean decode step (one token of each sequence)
  double e2e_s = 0;            // end-to-end: TTFT + every decode step
  double tokens_per_s = 0, requests_per_s = 0;
  double energy_per_request_j = 0, energy_per_token_j = 0;
};

struct Assumption {
  std::string key, value;
};

struct ReportDoc {
  std::string title;
  std::vector<Assumption> assumptions;           // (e) in the given order
  std::vector<SchemeRow> schemes;                // (a) empty = no comparison chart
  bool show_prefill = true, show_decode = true;  // (a) the phases the model has (no chart of zeros)
  std::vector<Breakdown> breakdowns;             // (b) one chart each
  std::vector<Roofline> rooflines;               // (c) one chart each
  std::string tradeoff_title;                    // (d) e.g. "decode, per step of 4 sequences"
  std::vector<TradeoffPoint> tradeoff;           // (d) empty = no scatter
  std::vector<LineChart> lines;                  // (f) a sweep's metrics against its axes
  std::vector<std::string> tradeoff_ids;         // (d) a sweep's point id of each trade-off point (or empty)
  bool tradeoff_per_step = false;                // (d) the points are per decode step (the axis titles say so)
  std::vector<RequestRow> requests;              // (g) empty = no request section
};

/// The whole page. Throws InputError naming the field when a number is not finite
/// or negative, a bound term is not among the terms, or a term list has the wrong length.
std::string render(const ReportDoc& doc);

/// Indices of the Pareto-optimal points (minimise latency and energy; ties kept), ascending latency.
std::vector<std::size_t> pareto_front(const std::vector<TradeoffPoint>& points);

// ------------------------------------------------------- views over results

/// `estimate --format html`: assumptions, one breakdown per entry, the roofline of the run.
ReportDoc estimate_doc(const model::EstimateResult& e, const arch::Arch& arch);
/// `compare --format html`: assumptions, the scheme comparison, the decode latency-energy trade-off, and for each
/// scheme with an estimate in `per_scheme` (same order as the rows; may be empty) its breakdowns and roofline.
ReportDoc compare_doc(const model::CompareResult& c, const std::vector<model::EstimateResult>& per_scheme,
                      const arch::Arch& arch);

/// `compare --format html` over chips (--tp / --pp / --ep): the comparison of compare_doc with one row per
/// (deployment, scheme), labelled "scheme @ N chips (tp, pp, ep)" and costed as the whole deployment per step, and one
/// assumption per row with one chip's figures (its work, collectives, weights).
ReportDoc deployments_doc(const model::CompareResult& c, const arch::Arch& arch);

/// `search --format html`: assumptions (with the objective and the candidate set), each scheme at its best
/// configuration, and the latency-energy trade-off of every configuration listed (the --top ones of each scheme and
/// the search's Pareto front) over the whole run.
ReportDoc search_doc(const search::SearchResult& r, const arch::Arch& arch);

/// `sweep plot RESULTS.jsonl`: assumptions (the file, its points and error records, the swept and fixed axes, the
/// schemes), for each swept axis and each combination of the other swept axes' values (at most 8 per axis; a note
/// says when more) the prefill and decode latency, energy and DRAM traffic against it, one line per scheme, and the
/// decode latency-energy trade-off of every point with its Pareto front. InputError when no point has a result.
ReportDoc sweep_doc(const sweep::ResultsFile& file, const std::string& filename);

// ------------------------------------------------------- label placement

/// An axis-aligned box in SVG user units (top-left corner, width, height).
struct LabelBox {
  double x = 0, y = 0, w = 0, h = 0;
};
/// True when two boxes share interior area (touching edges do not overlap).
bool overlaps(const LabelBox& a, const LabelBox& b);
/// The box the renderer reserves for a label `text` set at `font_px` (its width in DejaVu Sans, the widest common
/// sans-serif, + 2 px; its height 1.2 em) with its top-left corner at (x, y).
LabelBox label_box(double x, double y, const std::string& text, double font_px = 10);
/// A label of size w x h to place beside a marker of radius r centred at (x, y).
struct LabelAnchor {
  double x = 0, y = 0, r = 0;
  double w = 0, h = 0;
};
/// Deterministic greedy placement, in the given order: each label takes the first position that overlaps no label
/// placed before it and no obstacle (the markers, other text) and lies inside `area` — rings around its marker
/// (right, left, above, below, then the diagonals, each ring one label height further out), then a row-by-row scan
/// of the area. nullopt: no free position at all (the renderer lists those labels in a note instead). No two
/// returned boxes overlap, and none overlaps an obstacle.
std::vector<std::optional<LabelBox>> place_labels(const std::vector<LabelAnchor>& anchors, const LabelBox& area,
                                                  const std::vector<LabelBox>& obstacles = {});
/// The leader line from a marker to its label placed away from it: "" when the label touches the marker's
/// neighbourhood (within r + 4 px), else the SVG <line> from the marker's edge to the nearest point of the box.
std::string leader_line(const LabelAnchor& anchor, const LabelBox& box);

/// Shortest text that reads back as the same double (data attributes); integers as digits.
std::string number(double v);

}  // namespace tenet_cost::report::html
