// The HTML report (docs/report.md): one page, inline CSS + SVG + a small inline
// self-check script, nothing fetched. Every number drawn is also written as a
// data attribute with its exact input value and listed in a <details> table.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "report/html_internal.hpp"
#include "report/svg.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::report::html {

using detail::details_table;
using detail::figure;
using detail::fit_text;
using svg::coord;
using svg::esc;
using svg::label;
using svg::num;

std::string number(double v) { return num(v); }

namespace {

// ------------------------------------------------------------------ checks

void check_number(double v, const std::string& what) {
  if (!std::isfinite(v))
    throw InputError("report: expected a finite number for " + what + ", found " + fmt::format("{}", v));
  if (v < 0) throw InputError("report: expected a non-negative number for " + what + ", found " + num(v));
}
void check_count(std::int64_t v, const std::string& what) {
  if (v < 0) throw InputError("report: expected a non-negative integer for " + what + ", found " + std::to_string(v));
}

void check_energy_terms(const std::vector<Segment>& terms, double total, const std::string& what) {
  if (terms.empty()) return;
  double sum = 0;
  for (const auto& s : terms) {
    check_number(s.value, what + " term '" + s.term + "'");
    sum += s.value;
  }
  if (std::abs(sum - total) > 1e-6 * std::max(total, 1e-300))
    throw InputError("report: expected " + what + " terms to sum to " + num(total) + ", found " + num(sum));
}

void check_run(const RunFigures& f, const std::string& w) {
  check_number(f.latency_s, w + " latency_s");
  check_number(f.energy_j, w + " energy_j");
  check_count(f.dram_bytes, w + " dram_bytes");
  check_count(f.scale_dram_bytes, w + " scale_dram_bytes");
  if (f.scale_dram_bytes > f.dram_bytes)
    throw InputError("report: expected " + w + " scale_dram_bytes <= dram_bytes, found more");
  check_energy_terms(f.energy_by_term, f.energy_j, w + " energy");
}

void validate(const ReportDoc& doc) {
  for (const auto& r : doc.schemes) {
    const std::string w = "scheme '" + r.scheme + "' ";
    check_run(r.prefill, w + "prefill");
    check_run(r.decode, w + "decode");
    for (const auto& e : r.entries) check_run(e.run, w + "entry '" + e.entry + "'");
    if (r.entries.size() != doc.schemes.front().entries.size())
      throw InputError("report: expected every scheme to list the entries of the first, found " + w + "with " +
                       std::to_string(r.entries.size()));
    for (std::size_t i = 0; i < r.entries.size(); ++i)
      if (r.entries[i].entry != doc.schemes.front().entries[i].entry)
        throw InputError("report: expected entry '" + doc.schemes.front().entries[i].entry + "' in " + w + ", found '" +
                         r.entries[i].entry + "'");
  }
  for (const auto& r : doc.requests)
    for (const auto& [v, what] : {std::pair{r.ttft_s, "ttft_s"},
                                  {r.tpot_s, "tpot_s"},
                                  {r.e2e_s, "e2e_s"},
                                  {r.tokens_per_s, "tokens_per_s"},
                                  {r.requests_per_s, "requests_per_s"},
                                  {r.energy_per_request_j, "energy_per_request_j"},
                                  {r.energy_per_token_j, "energy_per_token_j"}})
      check_number(v, "request of scheme '" + r.scheme + "' " + what);
  for (const auto& b : doc.breakdowns) {
    for (const auto& r : b.rows) {
      const std::string w = "entry '" + b.entry + "' operator '" + r.name + "' ";
      if (r.cycles_by_term.size() != b.terms.size())
        throw InputError("report: expected " + std::to_string(b.terms.size()) + " cycle terms for " + w + ", found " +
                         std::to_string(r.cycles_by_term.size()));
      check_count(r.calls, w + "calls");
      check_count(r.cycles, w + "cycles");
      for (std::size_t i = 0; i < b.terms.size(); ++i) check_count(r.cycles_by_term[i], w + b.terms[i] + " cycles");
      if (std::find(b.terms.begin(), b.terms.end(), r.bound) == b.terms.end())
        throw InputError("report: expected the bound of " + w + "to be one of the terms, found '" + r.bound + "'");
    }
  }
  for (const auto& rl : doc.rooflines) {
    const std::string w = "roofline '" + rl.scheme + "' ";
    check_number(rl.peak_macs_per_s, w + "peak_macs_per_s");
    check_number(rl.dram_bytes_per_s, w + "dram_bytes_per_s");
    if (rl.peak_macs_per_s <= 0 || rl.dram_bytes_per_s <= 0)
      throw InputError("report: expected positive roofs for " + w + ", found 0");
    for (const auto& p : rl.points) {
      check_count(p.macs, w + "point '" + p.name + "' macs");
      check_count(p.dram_bytes, w + "point '" + p.name + "' dram_bytes");
      check_number(p.latency_s, w + "point '" + p.name + "' latency_s");
    }
  }
  for (const auto& p : doc.tradeoff) {
    check_number(p.latency_s, "point '" + p.label + "' latency_s");
    check_number(p.energy_j, "point '" + p.label + "' energy_j");
  }
}

// ------------------------------------------------------- horizontal bars

struct BarRow {
  std::string label;
  std::vector<double> seg;         // per term, in base units
  std::vector<std::string> exact;  // exact text of each segment (data-value)
  int bound = -1;                  // term index marked as the bound
  double tick = -1;                // a marker line at this value (base units), < 0 = none
  std::string attrs;               // extra data attributes of the row (preformatted)
  std::string colour;              // the scheme's colour: a swatch by the label ("" = none)
};

struct BarSpec {
  std::string id, kind, title, axis;  // axis label with unit
  double unit = 1;                    // display value = base / unit
  std::vector<std::string> terms;     // one term: a single series, filled with each row's colour, no legend
  std::vector<BarRow> rows;
  std::string note;
};

constexpr double kLabelW = 230, kPlotW = 440, kRightW = 110, kRowH = 22, kAxisH = 50;

// The legend of a stacked bar chart: one swatch per term, wrapped to the plot's width; returns its height.
double bar_legend(const BarSpec& s, std::string& o) {
  double lx = kLabelW, ly = 8;
  o += "<g class=\"legend\">";
  for (std::size_t i = 0; i < s.terms.size(); ++i) {
    const double w = 22 + svg::text_width(s.terms[i], 12);
    if (lx > kLabelW && lx + w > kLabelW + kPlotW + kRightW) lx = kLabelW, ly += 20;
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#000\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>",
        coord(lx), coord(ly), svg::term_fill(s.terms[i], i), coord(lx + 18), coord(ly + 12), esc(s.terms[i]));
    lx += w + 12;
  }
  o += "</g>\n";
  return ly + 20;
}

std::string bar_chart(const BarSpec& s) {
  double max = 0;
  for (const auto& r : s.rows) {
    double t = 0;
    for (double v : r.seg) t += v;
    max = std::max({max, t / s.unit, r.tick / s.unit});
  }
  const auto ticks = svg::linear_ticks(max);
  const double top = ticks.back() > 0 ? ticks.back() : 1;
  const bool single = s.terms.size() == 1;
  const bool bounds = std::any_of(s.rows.begin(), s.rows.end(), [](const BarRow& r) { return r.bound >= 0; });
  std::string head;
  double plot_top = single ? 10 : bar_legend(s, head) + 4;
  if (bounds) {
    head += fmt::format(
        "<text x=\"{}\" y=\"{}\" class=\"note\">&#9650; = bound term (the largest; latency = the vertical "
        "mark)</text>\n",
        coord(kLabelW), coord(plot_top + 8));
    plot_top += 18;
  }
  const double width = kLabelW + kPlotW + kRightW;
  const double axis_y = plot_top + kRowH * static_cast<double>(s.rows.size());
  const double height = axis_y + kAxisH + (s.note.empty() ? 0 : 16);
  auto xpos = [&](double display) { return kLabelW + kPlotW * display / top; };

  std::string o = detail::svg_open(width, height, s.title) + head;
  o += "<g class=\"axis\">";
  for (double t : ticks) {
    const double x = xpos(t);
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        coord(x), coord(plot_top - 4), coord(axis_y + 4), coord(axis_y + 18), label(t));
  }
  o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\"/>", coord(kLabelW),
                   coord(kLabelW + kPlotW), coord(axis_y));
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"axis-label\">{}</text></g>\n",
                   coord(kLabelW + kPlotW / 2), coord(axis_y + 38), esc(s.axis));
  for (std::size_t ri = 0; ri < s.rows.size(); ++ri) {
    const auto& r = s.rows[ri];
    const double y = plot_top + kRowH * static_cast<double>(ri);
    double total = 0;
    for (double v : r.seg) total += v;
    o += fmt::format("<g class=\"row\" data-label=\"{}\"{}><title>{}</title>", esc(r.label), r.attrs, esc(r.label));
    const double label_end = kLabelW - (r.colour.empty() ? 6 : 22);
    if (!r.colour.empty())
      o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"11\" height=\"11\" fill=\"{}\" stroke=\"#000\"/>",
                       coord(kLabelW - 17), coord(y + 5.5), r.colour);
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", coord(label_end), coord(y + 15),
                     esc(fit_text(r.label, label_end - 4, 12)));
    double acc = 0;
    for (std::size_t ti = 0; ti < r.seg.size(); ++ti) {
      const double x0 = xpos(acc / s.unit);
      acc += r.seg[ti];
      const double x1 = xpos(acc / s.unit);
      const bool bound = static_cast<int>(ti) == r.bound;
      const std::string fill = single && !r.colour.empty() ? r.colour : svg::term_fill(s.terms[ti], ti);
      o += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\" fill=\"{}\" stroke=\"#000\" stroke-width=\"{}\" "
          "data-term=\"{}\" data-value=\"{}\"{}><title>{}: {} {}</title></rect>",
          coord(x0), coord(y + 3), coord(x1 - x0), fill, bound ? "2.5" : "0.6", esc(s.terms[ti]),
          ti < r.exact.size() ? r.exact[ti] : num(r.seg[ti]), bound ? " data-bound=\"true\"" : "", esc(r.label),
          esc(s.terms[ti]), label(r.seg[ti] / s.unit));
      if (bound) o += fmt::format("<path d=\"M{} {}l-4 -5h8z\" fill=\"#000\"/>", coord((x0 + x1) / 2), coord(y + 3));
    }
    if (r.tick >= 0) {
      const double x = xpos(r.tick / s.unit);
      o += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\" stroke-width=\"2\" data-tick=\"{3}\"/>",
          coord(x), coord(y), coord(y + 22), num(r.tick));
    }
    const std::string right = r.bound >= 0 ? s.terms[static_cast<std::size_t>(r.bound)] : label(total / s.unit);
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"value\">{}</text></g>\n",
                     coord(std::max(xpos(total / s.unit), xpos(r.tick / s.unit)) + 6), coord(y + 15), esc(right));
  }
  if (!s.note.empty())
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"note\">{}</text>\n", coord(6), coord(height - 4), esc(s.note));
  o += "</svg>\n";
  return o;
}

// ------------------------------------------------------------ page parts

// One phase or entry of the comparison: its charts' ids, titles and units, and where each row keeps its figures.
struct Part {
  std::string id;      // "prefill", "decode", "entry-0", ...
  std::string title;   // "Prefill", "Decode", "Entry 'gemm'"
  std::string scope;   // "(whole prompts)", "per step" (one token of each sequence), "(one run)"
  std::string column;  // the data table's column prefix: "prefill", "decode", "entry 'gemm'"
  bool large = false;  // seconds / GB / J, else ms / MB / mJ
  std::string per;     // the axes' "per step " (decode), else ""
  std::function<const RunFigures&(const SchemeRow&)> get;
};

std::vector<Part> parts_of(const ReportDoc& doc) {
  std::vector<Part> parts;
  if (doc.show_prefill)
    parts.push_back({"prefill", "Prefill", "(whole prompts)", "prefill", true, "",
                     [](const SchemeRow& r) -> const RunFigures& { return r.prefill; }});
  if (doc.show_decode)
    parts.push_back({"decode", "Decode", "per step", "decode", false, "per step ",
                     [](const SchemeRow& r) -> const RunFigures& { return r.decode; }});
  for (std::size_t i = 0; i < doc.schemes.front().entries.size(); ++i)
    parts.push_back({"entry-" + std::to_string(i), "Entry '" + doc.schemes.front().entries[i].entry + "'", "(one run)",
                     "entry '" + doc.schemes.front().entries[i].entry + "'", false, "",
                     [i](const SchemeRow& r) -> const RunFigures& { return r.entries[i].run; }});
  return parts;
}

std::string comparison(const ReportDoc& doc, detail::Palette& palette) {
  const auto& rows = doc.schemes;
  std::string out = "<section><h2>Scheme comparison</h2>\n";
  auto latency_panel = [&](const Part& p) {
    BarSpec s;
    s.id = "cmp-" + p.id + "-latency";
    s.title = p.title + " latency " + p.scope;
    s.axis = p.large ? "latency (s)" : "latency " + p.per + "(ms)";
    s.unit = p.large ? 1 : 1e-3;
    s.terms = {"latency"};
    for (const auto& r : rows) {
      BarRow b;
      b.label = r.scheme;
      b.colour = palette.colour(r.series.empty() ? r.scheme : r.series);
      b.seg = {p.get(r).latency_s};
      b.attrs = fmt::format(" data-latency-s=\"{}\"", num(p.get(r).latency_s));
      s.rows.push_back(std::move(b));
    }
    return figure(s.id, "bars", s.title, bar_chart(s));
  };
  auto dram_panel = [&](const Part& p) {
    BarSpec s;
    s.id = "cmp-" + p.id + "-dram";
    s.title = p.title + " DRAM traffic " + p.scope;
    s.axis = p.large ? "DRAM traffic (GB)" : "DRAM traffic " + p.per + "(MB)";
    s.unit = p.large ? 1e9 : 1e6;
    s.terms = {"weights, activations, KV, outputs", "scales + zero points"};
    for (const auto& r : rows) {
      const std::int64_t all = p.get(r).dram_bytes;
      const std::int64_t sc = p.get(r).scale_dram_bytes;
      BarRow b;
      b.label = r.scheme;
      b.colour = palette.colour(r.series.empty() ? r.scheme : r.series);
      b.seg = {static_cast<double>(all - sc), static_cast<double>(sc)};
      b.exact = {std::to_string(all - sc), std::to_string(sc)};
      b.attrs = fmt::format(" data-dram-bytes=\"{}\" data-scale-dram-bytes=\"{}\"", all, sc);
      s.rows.push_back(std::move(b));
    }
    return figure(s.id, "bars", s.title, bar_chart(s));
  };
  auto energy_panel = [&](const Part& p) {
    BarSpec s;
    s.id = "cmp-" + p.id + "-energy";
    s.title = p.title + " energy " + p.scope;
    s.axis = p.large ? "energy (J)" : "energy " + p.per + "(mJ)";
    s.unit = p.large ? 1 : 1e-3;
    std::vector<std::string> terms;
    for (const auto& r : rows)
      for (const auto& t : p.get(r).energy_by_term)
        if (std::find(terms.begin(), terms.end(), t.term) == terms.end()) terms.push_back(t.term);
    const bool by_term = !terms.empty();
    s.terms = by_term ? terms : std::vector<std::string>{"energy"};
    for (const auto& r : rows) {
      const auto& bt = p.get(r).energy_by_term;
      const double e = p.get(r).energy_j;
      BarRow b;
      b.label = r.scheme;
      b.colour = palette.colour(r.series.empty() ? r.scheme : r.series);
      if (by_term) {
        b.seg.assign(terms.size(), 0.0);
        for (const auto& t : bt)
          b.seg[static_cast<std::size_t>(std::find(terms.begin(), terms.end(), t.term) - terms.begin())] += t.value;
        if (bt.empty()) b.seg[0] = e;  // a row without terms: whole energy in the first
      } else {
        b.seg = {e};
      }
      b.attrs = fmt::format(" data-energy-j=\"{}\"", num(e));
      s.rows.push_back(std::move(b));
    }
    if (by_term) s.note = "stacked by energy term";
    return figure(s.id, "bars", s.title, bar_chart(s));
  };
  const std::vector<Part> parts = parts_of(doc);
  for (const auto& p : parts) out += latency_panel(p);
  for (const auto& p : parts) out += dram_panel(p);
  for (const auto& p : parts) out += energy_panel(p);
  // columns: every part's latency, then each part's DRAM and scale bytes, then every part's energy
  std::vector<std::string> headers{"scheme"};
  for (const auto& p : parts) headers.push_back(p.column + " latency_s");
  for (const auto& p : parts) {
    headers.push_back(p.column + " dram_bytes");
    headers.push_back(p.column + " scale_dram_bytes");
  }
  for (const auto& p : parts) headers.push_back(p.column + " energy_j");
  std::vector<std::vector<std::string>> table;
  table.reserve(rows.size());
  for (const auto& r : rows) {
    std::vector<std::string> cells{r.scheme};
    for (const auto& p : parts) cells.push_back(num(p.get(r).latency_s));
    for (const auto& p : parts) {
      cells.push_back(std::to_string(p.get(r).dram_bytes));
      cells.push_back(std::to_string(p.get(r).scale_dram_bytes));
    }
    for (const auto& p : parts) cells.push_back(num(p.get(r).energy_j));
    table.push_back(std::move(cells));
  }
  out += details_table(headers, table);
  out += "</section>\n";
  return out;
}

// (g) The requests: TTFT, TPOT, end-to-end latency and energy per request, one bar per scheme, and every figure in
// the data table.
std::string requests_section(const ReportDoc& doc, detail::Palette& palette) {
  struct Panel {
    const char *id, *title, *axis;
    double unit;
    double RequestRow::*field;
    const char* attr;
  };
  static const Panel panels[] = {
      {"req-ttft", "Time to first token, per request (the batch's prefill)", "TTFT (ms)", 1e-3, &RequestRow::ttft_s,
       "data-ttft-s"},
      {"req-tpot", "Time per output token (the mean decode step)", "TPOT (ms)", 1e-3, &RequestRow::tpot_s,
       "data-tpot-s"},
      {"req-e2e", "End-to-end latency, per request", "end-to-end (s)", 1, &RequestRow::e2e_s, "data-end-to-end-s"},
      {"req-energy", "Energy per request", "energy per request (J)", 1, &RequestRow::energy_per_request_j,
       "data-energy-per-request-j"},
  };
  std::string out = "<section><h2>Requests</h2>\n";
  for (const Panel& p : panels) {
    BarSpec s;
    s.id = p.id;
    s.title = p.title;
    s.axis = p.axis;
    s.unit = p.unit;
    s.terms = {"value"};
    for (const auto& r : doc.requests) {
      BarRow b;
      b.label = r.scheme;
      b.colour = palette.colour(r.series.empty() ? r.scheme : r.series);
      b.seg = {r.*p.field};
      b.attrs = fmt::format(" {}=\"{}\"", p.attr, num(r.*p.field));
      s.rows.push_back(std::move(b));
    }
    out += figure(s.id, "bars", s.title, bar_chart(s));
  }
  std::vector<std::vector<std::string>> table;
  for (const auto& r : doc.requests)
    table.push_back({r.scheme, num(r.ttft_s), num(r.tpot_s), num(r.e2e_s), num(r.tokens_per_s), num(r.requests_per_s),
                     num(r.energy_per_request_j), num(r.energy_per_token_j)});
  out += details_table({"scheme", "ttft_s", "tpot_s", "e2e_s", "tokens_per_s", "requests_per_s", "energy_per_request_j",
                        "energy_per_token_j"},
                       table);
  return out + "</section>\n";
}

std::string breakdown(const Breakdown& b, std::size_t index) {
  BarSpec s;
  s.id = fmt::format("breakdown-{}", index);
  s.title = "Cycles by cost term, entry '" + b.entry + "'" + (b.scheme.empty() ? "" : ", " + b.scheme) +
            " (per call x calls)";
  s.axis = "cycles per entry invocation (millions)";
  s.unit = 1e6;
  s.terms = b.terms;
  s.note = "terms overlap (the model takes their maximum): bar length = sum of the terms, mark = latency";
  std::vector<std::vector<std::string>> table;
  for (const auto& r : b.rows) {
    BarRow row;
    row.label = r.name;
    const double calls = static_cast<double>(r.calls);
    row.attrs = fmt::format(" data-calls=\"{}\" data-cycles=\"{}\" data-bound=\"{}\"", r.calls, r.cycles, esc(r.bound));
    std::vector<std::string> trow{r.name, std::to_string(r.calls), std::to_string(r.cycles), r.bound};
    for (std::size_t i = 0; i < b.terms.size(); ++i) {
      row.seg.push_back(static_cast<double>(r.cycles_by_term[i]) * calls);
      row.exact.push_back(std::to_string(r.cycles_by_term[i]));
      trow.push_back(std::to_string(r.cycles_by_term[i]));
      if (b.terms[i] == r.bound) row.bound = static_cast<int>(i);
    }
    row.tick = static_cast<double>(r.cycles) * calls;
    s.rows.push_back(std::move(row));
    table.push_back(std::move(trow));
  }
  std::vector<std::string> headers{"operator", "calls", "cycles per call", "bound"};
  for (const auto& t : b.terms) headers.push_back(t + " cycles per call");
  return figure(s.id, "breakdown", s.title,
                "<p class=\"note\">data-value of each part = that term's cycles per call; drawn x calls.</p>\n" +
                    bar_chart(s) + details_table(headers, table));
}

// The charts' style: in the page, and inside each exported SVG (so that a chart lifted out alone looks the same).
constexpr const char* kSvgCss =
    "svg text{font:12px \"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif}svg .small{font-size:10px}"
    "svg .note{font-size:11px;font-style:italic}svg .point-name{font-size:11px}"
    "svg .axis-label{font-size:12px;font-weight:bold}svg .grid{stroke:#ccc;stroke-width:0.6}";

constexpr const char* kStyle = R"(
body{font:14px/1.4 sans-serif;margin:24px;color:#000;background:#fff;max-width:1000px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}
figure{margin:16px 0}figcaption{font-weight:bold;margin-bottom:4px}p.note{font-size:11px;font-style:italic}
figcaption a.export{font-weight:normal;font-size:12px;margin-left:6px}
svg.defs{position:absolute;width:0;height:0}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #999;padding:2px 6px;text-align:left}
details{margin:4px 0 12px}details.per-scheme>summary{font-size:16px;font-weight:bold;cursor:pointer}
)";

// Runs at load: every chart has an SVG with drawn data (its box recorded for the browser test; a chart in a closed
// <details> has none); then an "SVG" and a "PNG" link by each chart's caption: the chart alone, with the patterns it
// uses and the style (window.tcStandaloneSvg(figure) gives the SVG text). Nothing is fetched: the links are blobs.
constexpr const char* kScript = R"(<script>
(function(){var bad=[],figs=document.querySelectorAll('figure.chart');
for(var i=0;i<figs.length;i++){var f=figs[i],s=f.querySelector('svg'),r=s?s.getBoundingClientRect():null,
shut=f.closest('details:not([open])');
if(!s||!s.querySelector('[data-value],[data-x],[data-latency-s]')||(!shut&&(r.width<10||r.height<10)))bad.push(f.id);
if(r&&!shut)f.setAttribute('data-box',[Math.round(r.left+window.scrollX),Math.round(r.top+window.scrollY),Math.round(r.width),Math.round(r.height)].join(','));}
document.body.setAttribute('data-selfcheck',bad.length?'fail '+bad.join(' '):'ok '+figs.length);
var ns=document.querySelector('svg').namespaceURI,css=document.getElementById('tc-svg-css').textContent;
function standalone(f){var s=f.querySelector('svg').cloneNode(true),used={};
(s.outerHTML.match(/url\(#tc-p\d+\)/g)||[]).forEach(function(u){used[u.slice(5,-1)]=1;});
var d=document.createElementNS(ns,'defs');Object.keys(used).sort().forEach(function(id){d.appendChild(document.getElementById(id).cloneNode(true));});
var st=document.createElementNS(ns,'style');st.textContent=css;s.insertBefore(d,s.firstChild);s.insertBefore(st,s.firstChild);
return new XMLSerializer().serializeToString(s);}
window.tcStandaloneSvg=standalone;
function link(cap,name,text){var a=document.createElement('a');a.className='export';a.download=name;a.textContent=text;
cap.appendChild(document.createTextNode(' '));cap.appendChild(a);return a;}
figs.forEach(function(f){var cap=f.querySelector('figcaption');if(!cap||!f.querySelector('svg'))return;
link(cap,f.id+'.svg','SVG').href=URL.createObjectURL(new Blob([standalone(f)],{type:'image/svg+xml'}));
var p=link(cap,f.id+'.png','PNG');p.href='#';
p.addEventListener('click',function(e){if(p.dataset.ready)return;e.preventDefault();
var sv=f.querySelector('svg'),img=new Image(),k=2;img.onload=function(){var c=document.createElement('canvas');
c.width=sv.width.baseVal.value*k;c.height=sv.height.baseVal.value*k;var g=c.getContext('2d');g.fillStyle='#fff';
g.fillRect(0,0,c.width,c.height);g.drawImage(img,0,0,c.width,c.height);
c.toBlob(function(b){p.href=URL.createObjectURL(b);p.dataset.ready='1';p.click();});};
img.src='data:image/svg+xml;charset=utf-8,'+encodeURIComponent(standalone(f));});});})();
</script>
)";

// The per-scheme part: each scheme's breakdowns and roofline in one collapsible <details> (the first one open).
std::string per_scheme(const ReportDoc& doc, detail::Palette& palette) {
  std::vector<std::string> schemes;
  for (const auto& b : doc.breakdowns)
    if (std::find(schemes.begin(), schemes.end(), b.scheme) == schemes.end()) schemes.push_back(b.scheme);
  for (const auto& r : doc.rooflines)
    if (std::find(schemes.begin(), schemes.end(), r.scheme) == schemes.end()) schemes.push_back(r.scheme);
  std::string o = "<section><h2>Per scheme: operators and roofline</h2>\n";
  for (std::size_t k = 0; k < schemes.size(); ++k) {
    std::size_t n = 0;
    std::string body;
    for (std::size_t i = 0; i < doc.breakdowns.size(); ++i)
      if (doc.breakdowns[i].scheme == schemes[k]) body += breakdown(doc.breakdowns[i], i), ++n;
    for (std::size_t i = 0; i < doc.rooflines.size(); ++i)
      if (doc.rooflines[i].scheme == schemes[k]) body += detail::roofline(doc.rooflines[i], i, palette);
    o += fmt::format(
        "<details class=\"per-scheme\"{}><summary>{}: cycles by cost term per operator ({} entr{}) and the "
        "roofline</summary>\n{}</details>\n",
        k == 0 ? " open" : "", esc(schemes[k].empty() ? "the run" : schemes[k]), n, n == 1 ? "y" : "ies", body);
  }
  return o + "</section>\n";
}

}  // namespace

std::vector<std::size_t> pareto_front(const std::vector<TradeoffPoint>& points) {
  std::vector<std::size_t> idx(points.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].latency_s != points[b].latency_s) return points[a].latency_s < points[b].latency_s;
    return points[a].energy_j < points[b].energy_j;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : idx) {
    // dominated by a kept point: <= in both, < in one
    bool dominated = false;
    for (std::size_t j : front) {
      const auto& a = points[j];
      const auto& b = points[i];
      if (a.latency_s <= b.latency_s && a.energy_j <= b.energy_j &&
          (a.latency_s < b.latency_s || a.energy_j < b.energy_j)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::string render(const ReportDoc& doc) {
  validate(doc);
  std::string o;
  o.reserve(1 << 16);
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; img-src data:\">\n";
  o += "<title>" + esc(doc.title) + "</title>\n<style>" + kStyle + "</style>\n<style id=\"tc-svg-css\">" + kSvgCss +
       "</style>\n</head>\n<body>\n";
  o += svg::pattern_defs();
  o += "<h1>" + esc(doc.title) + "</h1>\n";
  o += "<section><h2>Assumptions</h2>\n<table class=\"assumptions\"><tbody>\n";
  for (const auto& a : doc.assumptions)
    o += "<tr><th>" + esc(a.key) + "</th><td data-key=\"" + esc(a.key) + "\">" + esc(a.value) + "</td></tr>\n";
  o += "</tbody></table></section>\n";
  detail::Palette palette(doc);
  if (!doc.schemes.empty()) o += comparison(doc, palette);
  if (!doc.requests.empty()) o += requests_section(doc, palette);
  if (!doc.lines.empty()) o += detail::line_charts(doc, palette);
  if (!doc.breakdowns.empty() || !doc.rooflines.empty()) o += per_scheme(doc, palette);
  if (!doc.tradeoff.empty()) o += detail::tradeoff(doc, palette);
  o += kScript;
  o += "</body></html>\n";
  return o;
}

}  // namespace tenet_cost::report::html
