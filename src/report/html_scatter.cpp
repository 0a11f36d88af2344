// The report's scatter charts (docs/report.md): the roofline of a scheme and the latency-energy trade-off. Labels
// are placed beside their markers without covering another label or marker (place_labels), with a leader line when
// pushed away.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "report/html_internal.hpp"
#include "report/svg.hpp"

namespace tenet_cost::report::html::detail {

using svg::coord;
using svg::esc;
using svg::label;
using svg::num;

namespace {

constexpr double kPointFont = 10, kRoofFont = 12;

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

// The box a marker covers (labels keep off it).
LabelBox marker_box(std::size_t shape, double x, double y, double r) {
  const double h = shape % 3 == 0 ? r : shape % 3 == 1 ? r * 0.886 : r * 1.25;
  return LabelBox{x - h, y - h, 2 * h, 2 * h};
}

// The first of `candidates` inside `area` that overlaps no obstacle; else the placer's search around `anchor`.
std::optional<LabelBox> first_free(const std::vector<LabelBox>& candidates, const LabelAnchor& anchor,
                                   const LabelBox& area, const std::vector<LabelBox>& obstacles) {
  for (const auto& c : candidates) {
    if (c.x < area.x || c.y < area.y || c.x + c.w > area.x + area.w || c.y + c.h > area.y + area.h) continue;
    if (std::none_of(obstacles.begin(), obstacles.end(), [&](const LabelBox& o) { return overlaps(o, c); })) return c;
  }
  return place_labels({anchor}, area, obstacles).front();
}

struct LogAxis {
  double lo, hi;  // log10 of the ends
  double pos(double v, double from, double len) const { return from + len * (std::log10(v) - lo) / (hi - lo); }
};

bool drawable(const RooflinePoint& p) { return p.macs > 0 && p.dram_bytes > 0 && p.latency_s > 0; }

// One label for the points drawn at one spot ("1,2,5"), at its largest marker.
struct PointLabel {
  std::string at;
  LabelAnchor anchor;
  std::string text;
};

}  // namespace

std::string roofline(const Roofline& rl, std::size_t index, Palette& palette) {
  const double ridge = rl.peak_macs_per_s / rl.dram_bytes_per_s;
  double total_s = 0;
  for (const auto& p : rl.points) total_s += p.latency_s;
  double xmin = ridge, xmax = ridge, ymin = rl.peak_macs_per_s, ymax = rl.peak_macs_per_s;
  std::size_t hidden = 0;
  std::vector<std::string> entries;
  for (const auto& p : rl.points) {
    if (!drawable(p)) {
      ++hidden;
      continue;
    }
    const double x = static_cast<double>(p.macs) / static_cast<double>(p.dram_bytes);
    const double y = static_cast<double>(p.macs) / p.latency_s;
    xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    if (std::find(entries.begin(), entries.end(), p.entry) == entries.end()) entries.push_back(p.entry);
  }
  const auto xt = svg::log_ticks(xmin, xmax);
  ymin = std::min(ymin, rl.dram_bytes_per_s * xt.front());  // y: down to the roof at the left edge too
  const auto yt = svg::log_ticks(ymin, ymax);
  const LogAxis ax{std::log10(xt.front()), std::log10(xt.back())};
  const LogAxis ay{std::log10(yt.front()), std::log10(yt.back())};
  auto X = [&](double v) { return ax.pos(v, kPlotL, kPW); };
  auto Y = [&](double v) { return kPlotT + kPH - ay.pos(v, 0, kPH); };
  std::vector<Tick> xticks, yticks;
  for (double t : xt) xticks.push_back({X(t), label(t)});
  for (double t : yt) yticks.push_back({Y(t), label(t)});
  const std::string colour = palette.colour(rl.scheme);

  std::string o =
      plot_axes(xticks, yticks, "arithmetic intensity (MACs per DRAM byte, log)", "attainable MAC rate (MAC/s, log)");
  const double x0 = xt.front(), x2 = xt.back();
  o += fmt::format(
      "<polyline class=\"roof\" points=\"{},{} {},{} {},{}\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>\n",
      coord(X(x0)), coord(Y(rl.dram_bytes_per_s * x0)), coord(X(ridge)), coord(Y(rl.peak_macs_per_s)), coord(X(x2)),
      coord(Y(rl.peak_macs_per_s)));
  // markers first (their boxes are the obstacles of every label)
  std::vector<LabelBox> obstacles;
  std::vector<PointLabel> labels;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> key;  // "3 NT_matmul" per drawn point
  for (std::size_t i = 0; i < rl.points.size(); ++i) {
    const auto& p = rl.points[i];
    const double share = total_s > 0 ? p.latency_s / total_s : 0;
    table.push_back({std::to_string(i + 1), p.entry, p.name, std::to_string(p.macs), std::to_string(p.dram_bytes),
                     num(p.latency_s), label(share)});
    if (!drawable(p)) continue;
    const double x = static_cast<double>(p.macs) / static_cast<double>(p.dram_bytes);
    const double y = static_cast<double>(p.macs) / p.latency_s;
    const double r = 2.0 + 18.0 * std::sqrt(share);  // area ~ time share
    const auto shape = static_cast<std::size_t>(std::find(entries.begin(), entries.end(), p.entry) - entries.begin());
    o +=
        "<g class=\"point\">" +
        marker(shape, X(x), Y(y), r,
               fmt::format(" fill=\"{}\" fill-opacity=\"0.45\" stroke=\"#000\" data-name=\"{}\" data-entry=\"{}\" "
                           "data-macs=\"{}\" data-dram-bytes=\"{}\" data-latency-s=\"{}\" data-x=\"{}\" data-y=\"{}\"",
                           colour, esc(p.name), esc(p.entry), p.macs, p.dram_bytes, num(p.latency_s), num(x), num(y))) +
        "</g>\n";
    obstacles.push_back(marker_box(shape, X(x), Y(y), r));
    key.push_back(std::to_string(i + 1) + " " + p.name + (entries.size() > 1 ? " (" + p.entry + ")" : ""));
    // points drawn at the same spot share one label "1,2,5" (else their numbers overprint)
    const std::string at = coord(X(x)) + "," + coord(Y(y));
    auto g = std::find_if(labels.begin(), labels.end(), [&](const PointLabel& l) { return l.at == at; });
    if (g == labels.end()) labels.push_back({at, {X(x), Y(y), r, 0, 0}, std::to_string(i + 1)});
    else g->anchor.r = std::max(g->anchor.r, r), g->text += "," + std::to_string(i + 1);
  }
  const LabelBox area{kPlotL, kPlotT, kPW, kPH};
  // the roofs' labels: above the flat roof at its right end, else below it; the slope's above its left end
  const std::string roof_text = "compute roof" + (rl.precision.empty() ? "" : " (" + rl.precision + ")") + " " +
                                label(rl.peak_macs_per_s) + " MAC/s";
  const LabelBox rb = label_box(0, 0, roof_text, kRoofFont);
  const double yr = Y(rl.peak_macs_per_s), xe = kPlotL + kPW - 4 - rb.w, xm = std::max(X(ridge) + 4, kPlotL + 4);
  const auto roof = first_free({{xe, yr - rb.h - 3, rb.w, rb.h},
                                {xe, yr + 3, rb.w, rb.h},
                                {xm, yr - rb.h - 3, rb.w, rb.h},
                                {xm, yr + 3, rb.w, rb.h}},
                               {xe + rb.w / 2, yr, 0, rb.w, rb.h}, area, obstacles);
  if (roof) o += text_in_box(*roof, roof_text, kRoofFont, "roof-label") + "\n", obstacles.push_back(*roof);
  const std::string dram_text = "DRAM " + label(rl.dram_bytes_per_s) + " B/s";
  const LabelBox db = label_box(0, 0, dram_text, kRoofFont);
  std::vector<LabelBox> slope;
  for (double f : {0.0, 0.25, 0.5, 0.75}) {  // along the slope, above the line
    const double xs = std::pow(10.0, ax.lo + f * (std::log10(ridge) - ax.lo));
    slope.push_back({X(xs) + 6, Y(rl.dram_bytes_per_s * xs) - db.h - 6, db.w, db.h});
  }
  const auto dram = first_free(slope, {X(x0) + db.w / 2, Y(rl.dram_bytes_per_s * x0), 0, db.w, db.h}, area, obstacles);
  if (dram) o += text_in_box(*dram, dram_text, kRoofFont, "roof-label") + "\n", obstacles.push_back(*dram);
  // the points' numbers: beside their markers, a leader line when pushed away; a label without room in a note
  std::vector<LabelAnchor> anchors;
  for (auto& l : labels) {
    const LabelBox b = label_box(0, 0, l.text, kPointFont);
    l.anchor.w = b.w, l.anchor.h = b.h;
    anchors.push_back(l.anchor);
  }
  const auto boxes = place_labels(anchors, area, obstacles);
  std::string unplaced;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!boxes[i]) {
      unplaced += (unplaced.empty() ? "" : "; ") + labels[i].text;
      continue;
    }
    o += leader_line(anchors[i], *boxes[i]) + text_in_box(*boxes[i], labels[i].text, kPointFont, "small point-label") +
         "\n";
  }
  // the legend column: marker shape per entry, the size rule, then the key of the numbers
  double ly = kPlotT;
  for (std::size_t e = 0; e < entries.size(); ++e, ly += 18) {
    o += marker(e, kLegendX + 6, ly + 8, 6, fmt::format(" fill=\"{}\" stroke=\"#000\"", colour));
    o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", coord(kLegendX + 18), coord(ly + 12),
                     esc(fit_text(entries[e], kSvgW - kLegendX - 22, 12)));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"small\">area = share of the time</text>\n", coord(kLegendX),
                   coord(ly + 12));
  ly += 26;
  for (const auto& k : key) {
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"small key\">{}</text>\n", coord(kLegendX), coord(ly + 10),
                     esc(fit_text(k, kSvgW - kLegendX - 6, kPointFont)));
    ly += 13;
  }
  std::vector<std::string> notes;
  if (!roof || !dram)
    notes.push_back("a roof's label found no free spot: the roofs are " + roof_text + ", " + dram_text);
  if (!unplaced.empty()) notes.push_back("no room to label points " + unplaced);
  if (hidden > 0)
    notes.push_back(std::to_string(hidden) + " operator(s) with 0 MACs, 0 DRAM bytes or 0 s not drawn (in the table)");
  double bottom = std::max(kNotesTop - 10, ly + 6);
  o += notes_below(notes, bottom);
  o = svg_open(kSvgW, bottom, "roofline " + rl.scheme,
               fmt::format(" data-peak-macs-per-s=\"{}\" data-dram-bytes-per-s=\"{}\"", num(rl.peak_macs_per_s),
                           num(rl.dram_bytes_per_s))) +
      o + "</svg>\n";
  return figure(fmt::format("roofline-{}", index), "roofline", "Roofline, " + rl.scheme, o) +
         details_table({"#", "entry", "operator", "macs", "dram_bytes", "latency_s", "time share"}, table);
}

std::string tradeoff(const ReportDoc& doc, Palette& palette) {
  const auto& pts = doc.tradeoff;
  const auto front = pareto_front(pts);
  std::vector<bool> on(pts.size(), false);
  for (auto i : front) on[i] = true;
  double xmax = 0, ymax = 0, xmin = pts.front().latency_s, ymin = pts.front().energy_j;
  for (const auto& p : pts) {
    xmax = std::max(xmax, p.latency_s), ymax = std::max(ymax, p.energy_j);
    xmin = std::min(xmin, p.latency_s), ymin = std::min(ymin, p.energy_j);
  }
  const double xu = xmax < 1 ? 1e-3 : 1, yu = ymax < 1 ? 1e-3 : 1;  // ms / mJ when small
  // axes zoomed to the points (from 0 only when the points reach near it)
  const auto xt = svg::range_ticks(xmin / xu, xmax / xu), yt = svg::range_ticks(ymin / yu, ymax / yu);
  auto X = [&](double v) { return kPlotL + kPW * (v / xu - xt.front()) / (xt.back() - xt.front()); };
  auto Y = [&](double v) { return kPlotT + kPH - kPH * (v / yu - yt.front()) / (yt.back() - yt.front()); };
  std::vector<Tick> xticks, yticks;
  for (double t : xt) xticks.push_back({X(t * xu), label(t)});
  for (double t : yt) yticks.push_back({Y(t * yu), label(t)});
  const std::string scope = doc.tradeoff_per_step ? " per step" : "";
  std::string o = plot_axes(xticks, yticks, "latency" + scope + " (" + (xu == 1 ? "s" : "ms") + ")",
                            "energy" + scope + " (" + (yu == 1 ? "J" : "mJ") + ")");
  if (!front.empty()) {  // staircase through the front (ascending latency)
    std::string path = fmt::format("M{} {}", coord(X(pts[front[0]].latency_s)), coord(Y(pts[front[0]].energy_j)));
    for (std::size_t k = 1; k < front.size(); ++k)
      path += fmt::format("H{}V{}", coord(X(pts[front[k]].latency_s)), coord(Y(pts[front[k]].energy_j)));
    o += fmt::format(
        "<path class=\"front\" d=\"{}\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"5 "
        "3\"/>\n",
        path);
  }
  // many points (a sweep's grid): only the front's are labelled
  const bool label_all = pts.size() <= 16;
  std::vector<std::vector<std::string>> table;
  std::vector<LabelBox> obstacles;
  std::vector<LabelAnchor> anchors;
  std::vector<std::size_t> labelled;
  std::vector<std::string> series;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    const std::string s = p.series.empty() ? p.label : p.series;
    if (std::find(series.begin(), series.end(), s) == series.end()) series.push_back(s);
    const double r = on[i] ? 6 : 4.5;
    const std::string id = i < doc.tradeoff_ids.size() ? " data-id=\"" + esc(doc.tradeoff_ids[i]) + "\"" : "";
    o += fmt::format(
        "<g class=\"point\"><circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"#000\" "
        "stroke-width=\"{}\" data-label=\"{}\" data-series=\"{}\" data-latency-s=\"{}\" data-energy-j=\"{}\" "
        "data-pareto=\"{}\"{}><title>{}</title></circle></g>\n",
        coord(X(p.latency_s)), coord(Y(p.energy_j)), r, palette.colour(s), on[i] ? "1" : "0.55", on[i] ? "2" : "0.8",
        esc(p.label), esc(s), num(p.latency_s), num(p.energy_j), on[i] ? "true" : "false", id, esc(p.label));
    obstacles.push_back({X(p.latency_s) - r, Y(p.energy_j) - r, 2 * r, 2 * r});
    table.push_back({p.label, num(p.latency_s), num(p.energy_j), on[i] ? "yes" : "no"});
    if (label_all || on[i]) {
      const LabelBox b = label_box(0, 0, p.label, 11);
      anchors.push_back({X(p.latency_s), Y(p.energy_j), r, b.w, b.h});
      labelled.push_back(i);
    }
  }
  const auto boxes = place_labels(anchors, LabelBox{kPlotL, kPlotT, kPW, kPH}, obstacles);
  std::string unplaced;
  for (std::size_t k = 0; k < anchors.size(); ++k) {
    if (!boxes[k]) {
      unplaced += (unplaced.empty() ? "" : "; ") + pts[labelled[k]].label;
      continue;
    }
    o += leader_line(anchors[k], *boxes[k]) + text_in_box(*boxes[k], pts[labelled[k]].label, 11, "point-name") + "\n";
  }
  // legend: the schemes' colours, then the front's encoding
  double ly = kPlotT;
  for (const auto& s : series) {
    o += legend_row(kLegendX, ly, palette.colour(s), s, kSvgW - kLegendX - 4);
    ly += 18;
  }
  o += fmt::format(
      "<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\" "
      "class=\"small\">thick outline: on the</text><text x=\"{}\" y=\"{}\" class=\"small\">Pareto front "
      "(dashed)</text>\n",
      coord(kLegendX + 5), coord(ly + 12), coord(kLegendX + 14), coord(ly + 10), coord(kLegendX + 14), coord(ly + 23));
  ly += 30;
  std::vector<std::string> notes;
  if (!label_all) notes.push_back("labels: the Pareto front's points only (" + std::to_string(pts.size()) + " points)");
  if (!unplaced.empty()) notes.push_back("no room to label " + unplaced);
  double bottom = std::max(kNotesTop - 10, ly + 6);
  o += notes_below(notes, bottom);
  o = svg_open(kSvgW, bottom, "latency-energy trade-off") + o + "</svg>\n";
  return "<section><h2>Latency and energy</h2>\n" +
         figure("tradeoff", "scatter",
                "Latency vs energy" + (doc.tradeoff_title.empty() ? "" : ", " + doc.tradeoff_title), o) +
         details_table({"point", "latency_s", "energy_j", "Pareto"}, table) + "</section>\n";
}

}  // namespace tenet_cost::report::html::detail
