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

#include "report/svg.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::report::html {

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
};

struct BarSpec {
  std::string id, kind, title, axis;  // axis label with unit
  double unit = 1;                    // display value = base / unit
  std::vector<std::string> terms;
  std::vector<BarRow> rows;
  std::string note;
};

constexpr double kLabelW = 230, kPlotW = 440, kRightW = 110, kRowH = 22, kTop = 58, kAxisH = 46;

std::string bar_chart(const BarSpec& s) {
  double max = 0;
  for (const auto& r : s.rows) {
    double t = 0;
    for (double v : r.seg) t += v;
    max = std::max({max, t / s.unit, r.tick / s.unit});
  }
  const auto ticks = svg::linear_ticks(max);
  const double top = ticks.back() > 0 ? ticks.back() : 1;
  const double width = kLabelW + kPlotW + kRightW;
  const double height = kTop + kRowH * static_cast<double>(s.rows.size()) + kAxisH + (s.note.empty() ? 0 : 16);
  auto xpos = [&](double display) { return kLabelW + kPlotW * display / top; };

  std::string o;
  o += fmt::format("<svg viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n",
                   coord(width), coord(height), coord(width), coord(height), esc(s.title));
  // legend
  double lx = kLabelW;
  o += "<g class=\"legend\">";
  for (std::size_t i = 0; i < s.terms.size(); ++i) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"8\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#000\"/>"
        "<text x=\"{}\" y=\"20\">{}</text>",
        coord(lx), svg::term_fill(i), coord(lx + 18), esc(s.terms[i]));
    lx += 28 + 7.0 * static_cast<double>(s.terms[i].size());
  }
  o += "</g>\n";
  if (std::any_of(s.rows.begin(), s.rows.end(), [](const BarRow& r) { return r.bound >= 0; }))
    o += fmt::format(
        "<text x=\"{}\" y=\"42\" class=\"note\">&#9650; = bound term (the largest; latency = "
        "the vertical mark)</text>\n",
        coord(kLabelW));
  // grid + axis
  const double axis_y = kTop + kRowH * static_cast<double>(s.rows.size());
  o += "<g class=\"axis\">";
  for (double t : ticks) {
    const double x = xpos(t);
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        coord(x), coord(kTop - 4), coord(axis_y + 4), coord(axis_y + 18), label(t));
  }
  o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\"/>", coord(kLabelW),
                   coord(kLabelW + kPlotW), coord(axis_y));
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"axis-label\">{}</text></g>\n",
                   coord(kLabelW + kPlotW / 2), coord(axis_y + 38), esc(s.axis));
  // rows
  for (std::size_t ri = 0; ri < s.rows.size(); ++ri) {
    const auto& r = s.rows[ri];
    const double y = kTop + kRowH * static_cast<double>(ri);
    double total = 0;
    for (double v : r.seg) total += v;
    o += fmt::format("<g class=\"row\" data-label=\"{}\"{}>", esc(r.label), r.attrs);
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", coord(kLabelW - 6), coord(y + 15),
                     esc(r.label));
    double acc = 0;
    for (std::size_t ti = 0; ti < r.seg.size(); ++ti) {
      const double x0 = xpos(acc / s.unit);
      acc += r.seg[ti];
      const double x1 = xpos(acc / s.unit);
      const bool bound = static_cast<int>(ti) == r.bound;
      o += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\" fill=\"{}\" stroke=\"#000\" stroke-width=\"{}\" "
          "data-term=\"{}\" data-value=\"{}\"{}><title>{}: {} {}</title></rect>",
          coord(x0), coord(y + 3), coord(x1 - x0), svg::term_fill(ti), bound ? "2.5" : "0.6", esc(s.terms[ti]),
          ti < r.exact.size() ? r.exact[ti] : num(r.seg[ti]), bound ? " data-bound=\"true\"" : "", esc(r.label),
          esc(s.terms[ti]), label(r.seg[ti] / s.unit));
      if (bound) o += fmt::format("<path d=\"M{} {}l-4 -5h8z\" fill=\"#000\"/>", coord((x0 + x1) / 2), coord(y + 3));
    }
    if (r.tick >= 0) {
      const double x = xpos(r.tick / s.unit);
      o += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\" stroke-width=\"2\" "
          "data-tick=\"{3}\"/>",
          coord(x), coord(y), coord(y + 22), num(r.tick));
    }
    const std::string right = r.bound >= 0 ? s.terms[static_cast<std::size_t>(r.bound)] : label(total / s.unit);
    o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text></g>\n",
                     coord(std::max(xpos(total / s.unit), xpos(r.tick / s.unit)) + 6), coord(y + 15), esc(right));
  }
  if (!s.note.empty())
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"note\">{}</text>\n", coord(6), coord(height - 4), esc(s.note));
  o += "</svg>\n";
  return o;
}

// ------------------------------------------------------------ page parts

std::string details_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::string o = "<details><summary>Data</summary><table><thead><tr>";
  for (const auto& h : headers) o += "<th>" + esc(h) + "</th>";
  o += "</tr></thead><tbody>\n";
  for (const auto& r : rows) {
    o += "<tr>";
    for (const auto& c : r) o += "<td>" + esc(c) + "</td>";
    o += "</tr>\n";
  }
  o += "</tbody></table></details>\n";
  return o;
}

std::string figure(const std::string& id, const std::string& kind, const std::string& title, const std::string& body) {
  return fmt::format("<figure class=\"chart\" id=\"{}\" data-chart=\"{}\"><figcaption>{}</figcaption>\n{}</figure>\n",
                     esc(id), kind, esc(title), body);
}

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

std::string comparison(const ReportDoc& doc) {
  const auto& rows = doc.schemes;
  std::string out = "<section><h2>Scheme comparison</h2>\n";
  auto latency_panel = [&](const Part& p) {
    BarSpec s;
    s.id = "cmp-" + p.id + "-latency";
    s.title = p.title + " latency " + p.scope;
    s.axis = p.large ? "latency (s)" : "latency " + p.per + "(ms)";
    s.unit = p.large ? 1 : 1e-3;
    s.terms = {"latency-s"};
    for (const auto& r : rows) {
      BarRow b;
      b.label = r.scheme;
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

// ------------------------------------------------------------- roofline

std::string marker(std::size_t shape, double x, double y, double r, const std::string& attrs) {
  switch (shape % 3) {
    case 0: return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{}/>", coord(x), coord(y), coord(r), attrs);
    case 1:
      return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}/>", coord(x - r * 0.886),
                         coord(y - r * 0.886), coord(r * 1.772), coord(r * 1.772), attrs);
    default:
      return fmt::format("<path d=\"M{} {}l{} {}l{} {}l{} {}z\"{}/>", coord(x), coord(y - r * 1.25), coord(r * 1.25),
                         coord(r * 1.25), coord(-r * 1.25), coord(r * 1.25), coord(-r * 1.25), coord(-r * 1.25), attrs);
  }
}

constexpr double kPlotL = 80, kPlotT = 40, kPW = 520, kPH = 330, kSvgW = 780, kSvgH = 440;

struct LogAxis {
  double lo, hi;  // log10 of the ends
  double pos(double v, double from, double len) const { return from + len * (std::log10(v) - lo) / (hi - lo); }
};

std::string log_axes(const std::vector<double>& xt, const std::vector<double>& yt, const LogAxis& ax, const LogAxis& ay,
                     const std::string& xl, const std::string& yl) {
  std::string o = "<g class=\"axis\">";
  for (double t : xt) {
    const double x = ax.pos(t, kPlotL, kPW);
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        coord(x), coord(kPlotT), coord(kPlotT + kPH), coord(kPlotT + kPH + 16), label(t));
  }
  for (double t : yt) {
    const double y = kPlotT + kPH - ay.pos(t, 0, kPH);
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
        coord(kPlotL), coord(kPlotL + kPW), coord(y), coord(kPlotL - 4), coord(y + 4), label(t));
  }
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000\"/>", coord(kPlotL),
                   coord(kPlotT), coord(kPW), coord(kPH));
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"axis-label\">{}</text>",
                   coord(kPlotL + kPW / 2), coord(kPlotT + kPH + 36), esc(xl));
  o += fmt::format(
      "<text transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\" class=\"axis-label\">{}"
      "</text></g>\n",
      coord(kPlotT + kPH / 2), esc(yl));
  return o;
}

std::string roofline(const Roofline& rl, std::size_t index) {
  const double ridge = rl.peak_macs_per_s / rl.dram_bytes_per_s;
  double total_s = 0;
  for (const auto& p : rl.points) total_s += p.latency_s;
  double xmin = ridge, xmax = ridge, ymin = rl.peak_macs_per_s, ymax = rl.peak_macs_per_s;
  std::size_t hidden = 0;
  std::vector<std::string> entries;
  for (const auto& p : rl.points) {
    if (p.macs == 0 || p.dram_bytes == 0 || p.latency_s <= 0) {
      ++hidden;
      continue;
    }
    const double x = static_cast<double>(p.macs) / static_cast<double>(p.dram_bytes);
    const double y = static_cast<double>(p.macs) / p.latency_s;
    xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    if (std::find(entries.begin(), entries.end(), p.entry) == entries.end()) entries.push_back(p.entry);
  }
  const auto xt = svg::log_ticks(xmin, xmax);
  // y: down to the roof at the left edge too
  ymin = std::min(ymin, rl.dram_bytes_per_s * xt.front());
  const auto yt = svg::log_ticks(ymin, ymax);
  const LogAxis ax{std::log10(xt.front()), std::log10(xt.back())};
  const LogAxis ay{std::log10(yt.front()), std::log10(yt.back())};
  auto X = [&](double v) { return ax.pos(v, kPlotL, kPW); };
  auto Y = [&](double v) { return kPlotT + kPH - ay.pos(v, 0, kPH); };

  std::string o = fmt::format(
      "<svg viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"roofline {2}\" "
      "data-peak-macs-per-s=\"{3}\" data-dram-bytes-per-s=\"{4}\">\n",
      coord(kSvgW), coord(kSvgH), esc(rl.scheme), num(rl.peak_macs_per_s), num(rl.dram_bytes_per_s));
  o += log_axes(xt, yt, ax, ay, "arithmetic intensity (MACs per DRAM byte, log)", "attainable MAC rate (MAC/s, log)");
  // roofs: slope from the left edge to the ridge, flat to the right edge
  const double x0 = xt.front(), x2 = xt.back();
  o += fmt::format(
      "<polyline class=\"roof\" points=\"{},{} {},{} {},{}\" fill=\"none\" stroke=\"#000\" "
      "stroke-width=\"2\"/>\n",
      coord(X(x0)), coord(Y(rl.dram_bytes_per_s * x0)), coord(X(ridge)), coord(Y(rl.peak_macs_per_s)), coord(X(x2)),
      coord(Y(rl.peak_macs_per_s)));
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">compute roof{} {} MAC/s</text>\n",
                   coord(kPlotL + kPW - 4), coord(Y(rl.peak_macs_per_s) - 6),
                   rl.precision.empty() ? "" : " (" + esc(rl.precision) + ")", label(rl.peak_macs_per_s));
  o += fmt::format("<text x=\"{}\" y=\"{}\">DRAM {} B/s</text>\n", coord(X(x0) + 6),
                   coord(std::max(Y(rl.dram_bytes_per_s * x0) - 8, kPlotT + 12)), label(rl.dram_bytes_per_s));
  std::vector<std::vector<std::string>> table;
  struct PointLabel {
    std::string at;
    double x, y, r;
    std::string text;
  };
  std::vector<PointLabel> labels;
  for (std::size_t i = 0; i < rl.points.size(); ++i) {
    const auto& p = rl.points[i];
    const double share = total_s > 0 ? p.latency_s / total_s : 0;
    table.push_back({std::to_string(i + 1), p.entry, p.name, std::to_string(p.macs), std::to_string(p.dram_bytes),
                     num(p.latency_s), label(share)});
    if (p.macs == 0 || p.dram_bytes == 0 || p.latency_s <= 0) continue;
    const double x = static_cast<double>(p.macs) / static_cast<double>(p.dram_bytes);
    const double y = static_cast<double>(p.macs) / p.latency_s;
    const double r = 2.0 + 18.0 * std::sqrt(share);  // area ~ time share
    const std::size_t shape =
        static_cast<std::size_t>(std::find(entries.begin(), entries.end(), p.entry) - entries.begin());
    o +=
        "<g class=\"point\">" +
        marker(shape, X(x), Y(y), r,
               fmt::format(" fill=\"#a6c8e8\" fill-opacity=\"0.45\" stroke=\"#000\" data-name=\"{}\" data-entry=\"{}\" "
                           "data-macs=\"{}\" data-dram-bytes=\"{}\" data-latency-s=\"{}\" data-x=\"{}\" data-y=\"{}\"",
                           esc(p.name), esc(p.entry), p.macs, p.dram_bytes, num(p.latency_s), num(x), num(y))) +
        "</g>\n";
    // points drawn at the same spot share one label "1,2,5" (else their numbers overprint)
    const std::string at = coord(X(x)) + "," + coord(Y(y));
    auto g = std::find_if(labels.begin(), labels.end(), [&](const PointLabel& l) { return l.at == at; });
    if (g == labels.end()) {
      labels.push_back({at, X(x), Y(y), r, std::to_string(i + 1)});
    } else {
      g->r = std::max(g->r, r);
      g->text += "," + std::to_string(i + 1);
    }
  }
  // labels beside their markers, never on top of one another (place_labels); a label without any free spot is
  // listed in a note below the plot
  std::vector<LabelAnchor> anchors;
  anchors.reserve(labels.size());
  for (const auto& l : labels) anchors.push_back({l.x, l.y, l.r, l.text.size()});
  const auto boxes = place_labels(anchors, LabelBox{kPlotL, kPlotT, kPW, kPH});
  std::string unplaced;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!boxes[i]) {
      unplaced += (unplaced.empty() ? "" : "; ") + labels[i].text;
      continue;
    }
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"small point-label\">{}</text>\n", coord(boxes[i]->x + 1),
                     coord(boxes[i]->y + 9), labels[i].text);
  }
  if (!unplaced.empty())
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"note\">no room to label points {}</text>\n", coord(kPlotL),
                     coord(kSvgH - 22), esc(unplaced));
  // legend: marker shape per entry
  double ly = kPlotT + 10;
  for (std::size_t e = 0; e < entries.size(); ++e, ly += 20) {
    o += marker(e, kPlotL + kPW + 20, ly, 6, " fill=\"#a6c8e8\" stroke=\"#000\"");
    o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", coord(kPlotL + kPW + 32), coord(ly + 4), esc(entries[e]));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"small\">area = time share</text>\n", coord(kPlotL + kPW + 14),
                   coord(ly + 6));
  if (hidden > 0)
    o += fmt::format(
        "<text x=\"{}\" y=\"{}\" class=\"note\">{} operator(s) with 0 MACs, 0 DRAM bytes or 0 s not "
        "drawn</text>\n",
        coord(kPlotL), coord(kSvgH - 8), hidden);
  o += "</svg>\n";
  return figure(fmt::format("roofline-{}", index), "roofline", "Roofline, " + rl.scheme, o) +
         details_table({"#", "entry", "operator", "macs", "dram_bytes", "latency_s", "time share"}, table);
}

// ------------------------------------------------------------- trade-off

std::string tradeoff(const ReportDoc& doc) {
  const auto& pts = doc.tradeoff;
  const auto front = pareto_front(pts);
  std::vector<bool> on(pts.size(), false);
  for (auto i : front) on[i] = true;
  double xmax = 0, ymax = 0;
  for (const auto& p : pts) xmax = std::max(xmax, p.latency_s), ymax = std::max(ymax, p.energy_j);
  // display in ms / mJ when small
  const double xu = xmax < 1 ? 1e-3 : 1, yu = ymax < 1 ? 1e-3 : 1;
  const auto xt = svg::linear_ticks(xmax / xu), yt = svg::linear_ticks(ymax / yu);
  auto X = [&](double v) { return kPlotL + kPW * (v / xu) / xt.back(); };
  auto Y = [&](double v) { return kPlotT + kPH - kPH * (v / yu) / yt.back(); };
  std::string o = fmt::format(
      "<svg viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"latency-energy trade-off\">\n<g class=\"axis\">",
      coord(kSvgW), coord(kSvgH));
  for (double t : xt)
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/><text x=\"{0}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>",
        coord(X(t * xu)), coord(kPlotT), coord(kPlotT + kPH), coord(kPlotT + kPH + 16), label(t));
  for (double t : yt)
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/><text x=\"{3}\" y=\"{4}\" "
        "text-anchor=\"end\">{5}</text>",
        coord(kPlotL), coord(kPlotL + kPW), coord(Y(t * yu)), coord(kPlotL - 4), coord(Y(t * yu) + 4), label(t));
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000\"/>", coord(kPlotL),
                   coord(kPlotT), coord(kPW), coord(kPH));
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"axis-label\">latency ({})</text>",
                   coord(kPlotL + kPW / 2), coord(kPlotT + kPH + 36), xu == 1 ? "s" : "ms");
  o += fmt::format(
      "<text transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\" class=\"axis-label\">"
      "energy ({})</text></g>\n",
      coord(kPlotT + kPH / 2), yu == 1 ? "J" : "mJ");
  if (!front.empty()) {  // staircase through the front (ascending latency)
    std::string path = fmt::format("M{} {}", coord(X(pts[front[0]].latency_s)), coord(Y(pts[front[0]].energy_j)));
    for (std::size_t k = 1; k < front.size(); ++k)
      path += fmt::format("H{}V{}", coord(X(pts[front[k]].latency_s)), coord(Y(pts[front[k]].energy_j)));
    o += fmt::format(
        "<path class=\"front\" d=\"{}\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"5 3\"/>\n",
        path);
  }
  std::vector<std::vector<std::string>> table;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    o += fmt::format(
        "<g class=\"point\"><circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"#000\" "
        "stroke-width=\"1.5\" data-label=\"{}\" data-latency-s=\"{}\" data-energy-j=\"{}\" "
        "data-pareto=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
        coord(X(p.latency_s)), coord(Y(p.energy_j)), on[i] ? "#000" : "#fff", esc(p.label), num(p.latency_s),
        num(p.energy_j), on[i] ? "true" : "false", coord(X(p.latency_s) + 8), coord(Y(p.energy_j) - 6), esc(p.label));
    table.push_back({p.label, num(p.latency_s), num(p.energy_j), on[i] ? "yes" : "no"});
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"small\">filled = on the Pareto front (dashed)</text>\n",
                   coord(kPlotL), coord(kPlotT - 10));
  o += "</svg>\n";
  return "<section><h2>Latency and energy</h2>\n" +
         figure("tradeoff", "scatter",
                "Latency vs energy" + (doc.tradeoff_title.empty() ? "" : ", " + doc.tradeoff_title), o) +
         details_table({"point", "latency_s", "energy_j", "Pareto"}, table) + "</section>\n";
}

constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 sans-serif;margin:24px;color:#000;background:#fff;max-width:1000px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}
figure{margin:16px 0}figcaption{font-weight:bold;margin-bottom:4px}
svg text{font:12px sans-serif}svg .small{font-size:10px}svg .note,p.note{font-size:11px;font-style:italic}
svg .axis-label{font-size:12px;font-weight:bold}svg .grid{stroke:#ccc;stroke-width:0.6}
svg.defs{position:absolute;width:0;height:0}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #999;padding:2px 6px;text-align:left}
details{margin:4px 0 12px}
</style>
)";

// Runs at load: every chart has an SVG with drawn data; records each chart's box for the browser test.
constexpr const char* kSelfCheck = R"(<script>
(function(){var bad=[],figs=document.querySelectorAll('figure.chart');
for(var i=0;i<figs.length;i++){var f=figs[i],s=f.querySelector('svg'),r=s?s.getBoundingClientRect():null;
if(!s||r.width<10||r.height<10||!s.querySelector('[data-value],[data-x],[data-latency-s]'))bad.push(f.id);
if(r)f.setAttribute('data-box',[Math.round(r.left+window.scrollX),Math.round(r.top+window.scrollY),Math.round(r.width),Math.round(r.height)].join(','));}
document.body.setAttribute('data-selfcheck',bad.length?'fail '+bad.join(' '):'ok '+figs.length);})();
</script>
)";

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
  o += "<title>" + esc(doc.title) + "</title>\n" + kStyle + "</head>\n<body>\n";
  o += svg::pattern_defs();
  o += "<h1>" + esc(doc.title) + "</h1>\n";
  o += "<section><h2>Assumptions</h2>\n<table class=\"assumptions\"><tbody>\n";
  for (const auto& a : doc.assumptions)
    o += "<tr><th>" + esc(a.key) + "</th><td data-key=\"" + esc(a.key) + "\">" + esc(a.value) + "</td></tr>\n";
  o += "</tbody></table></section>\n";
  if (!doc.schemes.empty()) o += comparison(doc);
  if (!doc.breakdowns.empty()) {
    o += "<section><h2>Per-operator breakdown</h2>\n";
    for (std::size_t i = 0; i < doc.breakdowns.size(); ++i) o += breakdown(doc.breakdowns[i], i);
    o += "</section>\n";
  }
  if (!doc.rooflines.empty()) {
    o += "<section><h2>Roofline</h2>\n";
    for (std::size_t i = 0; i < doc.rooflines.size(); ++i) o += roofline(doc.rooflines[i], i);
    o += "</section>\n";
  }
  if (!doc.tradeoff.empty()) o += tradeoff(doc);
  o += kSelfCheck;
  o += "</body></html>\n";
  return o;
}

}  // namespace tenet_cost::report::html
