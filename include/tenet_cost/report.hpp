// Views: each result type rendered as a table, JSON or CSV (the output contracts of
// docs/cli.md, docs/extract.md, docs/tenet-engine.md, docs/estimate-formats.md, docs/quant.md),
// over a small aligned-table / CSV writer. A new output format is a new case in each view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/search.hpp"
#include "tenet_cost/tenet.hpp"

namespace tenet_cost::report {

/// kHtml: the self-contained HTML report of estimate and compare (tenet_cost/report_html.hpp; it needs the arch,
/// so those commands render it there); the other views refuse it.
enum class Format { kTable, kJson, kCsv, kHtml };

/// "table" | "json" | "csv" | "html"; throws InputError listing the choices otherwise.
Format parse_format(const std::string& text);

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  /// Columns right-aligned in text output (numbers); by index.
  std::vector<bool> right_align;
};

/// Aligned columns with a header rule, one row per line, trailing newline.
std::string render_text(const Table& t);
/// RFC 4180 CSV: fields quoted when they contain , " or a newline.
std::string render_csv(const Table& t);

/// Fixed-precision number text without locale surprises ("%.*f").
std::string fixed(double v, int precision);
/// 12345678 -> "12,345,678" for human tables (CSV/JSON keep plain digits).
std::string grouped(long long v);
/// Bytes as decimal megabytes with 2 decimals ("4803.42").
std::string megabytes(std::int64_t bytes);

// ------------------------------------------------------------------ views

/// `extract`: the workload table / CSV, or the JSON contract (extract_json).
std::string render(const ExtractResult& result, Format format);
/// The `extract --format json` document (docs/extract.md): {"workloads": [...], "entries", "attention", "symbols",
/// "module_quant"}; dims are JSON integers when known, strings when symbolic, null when undeterminable.
std::string extract_json(const ExtractResult& result, int indent = 2);

/// `tenet`: TENET's all-metrics text (table) or the JSON contract; CSV is refused (InputError).
std::string render(const tenet::Metrics& metrics, Format format);
/// TENET's all-metrics text (the layout of fixtures/tenet/expected/all_metrics_int64).
std::string tenet_text(const tenet::Metrics& m);
/// The JSON contract of `tenet-cost tenet --format json` (docs/tenet-engine.md).
std::string tenet_json(const tenet::Metrics& m);

/// `estimate`: per-GEMM rows and per-entry totals.
std::string render(const model::EstimateResult& result, Format format);
/// `compare`: one row per scheme.
std::string render(const model::CompareResult& result, Format format);
/// `search`: per scheme its best configuration, the chosen mappings and the Pareto front (docs/search.md).
std::string render(const search::SearchResult& result, Format format);
/// `search` with a request: its one search, or with --per-phase the prefill's and the decode steps' (table: one after
/// the other; JSON: {"per_phase": true, "prefill": .., "decode": ..}; CSV refused: two rankings of different columns).
std::string render(const search::RequestSearch& result, Format format);
/// `export`: one table of a serving-simulator bundle as its CSV (times %.6g), or a text file's text.
std::string render_export(const model::ExportTable& table);
/// `quant list`: the scheme catalog.
std::string render(const std::vector<quant::Scheme>& schemes, Format format);

}  // namespace tenet_cost::report
