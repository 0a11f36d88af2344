// A sweep's line charts (docs/report.md "Sweep plots"): one metric against one swept axis, one line per scheme,
// the axis's values evenly spaced in the grid's order.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/html_internal.hpp"
#include "report/svg.hpp"

namespace tenet_cost::report::html::detail {

using svg::coord;
using svg::esc;
using svg::label;

namespace {

std::string line_chart(const LineChart& c, Palette& palette) {
  double max = 0;
  for (const auto& s : c.series)
    for (const auto& p : s.points)
      if (p.present) max = std::max(max, p.value / c.unit);
  const auto yt = svg::linear_ticks(max);
  const double n = static_cast<double>(std::max<std::size_t>(c.x.size(), 1));
  auto X = [&](std::size_t i) { return kPlotL + kPW * (static_cast<double>(i) + 0.5) / n; };
  auto Y = [&](double v) { return kPlotT + kPH - kPH * (v / c.unit) / yt.back(); };
  std::vector<Tick> xticks, yticks;
  for (std::size_t i = 0; i < c.x.size(); ++i) xticks.push_back({X(i), c.x[i]});
  for (double t : yt) yticks.push_back({Y(t * c.unit), label(t)});
  std::string o = plot_axes(xticks, yticks, c.x_title, c.y_title);
  std::vector<std::vector<std::string>> table;
  for (std::size_t i = 0; i < c.x.size(); ++i) table.push_back({c.x[i]});
  double ly = kPlotT;
  for (const auto& s : c.series) {
    const std::string colour = palette.colour(s.name);
    std::string path;  // broken where a value is missing
    bool pen = false;
    for (std::size_t i = 0; i < s.points.size() && i < c.x.size(); ++i) {
      const auto& p = s.points[i];
      table[i].push_back(p.present ? p.exact : "-");
      if (!p.present) {
        pen = false;
        continue;
      }
      path += fmt::format("{}{} {}", pen ? "L" : "M", coord(X(i)), coord(Y(p.value)));
      pen = true;
    }
    o += fmt::format(
        "<g class=\"series\" data-series=\"{}\"><path d=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"2\"/>",
        esc(s.name), path, colour);
    for (std::size_t i = 0; i < s.points.size() && i < c.x.size(); ++i) {
      const auto& p = s.points[i];
      if (!p.present) continue;
      o += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\" stroke=\"#000\" stroke-width=\"0.7\" data-id=\"{}\" "
          "data-phase=\"{}\" {}=\"{}\"><title>{}, {} = {}: {} {}</title></circle>",
          coord(X(i)), coord(Y(p.value)), colour, esc(p.id), c.phase, c.attr, esc(p.exact), esc(s.name), esc(c.x_title),
          esc(c.x[i]), label(p.value / c.unit), esc(c.y_title));
    }
    o += "</g>\n" + legend_row(kLegendX, ly, colour, s.name, kSvgW - kLegendX - 4);
    ly += 18;
  }
  double bottom = std::max(kNotesTop - 10, ly + 6);
  o = svg_open(kSvgW, bottom, c.title) + o + "</svg>\n";
  std::vector<std::string> headers{c.x_title};
  for (const auto& s : c.series) headers.push_back(s.name + " " + c.attr.substr(5));
  return figure(c.id, "lines", c.title, o) + details_table(headers, table);
}

}  // namespace

std::string line_charts(const ReportDoc& doc, Palette& palette) {
  std::string o = "<section><h2>Metrics against the swept axes</h2>\n";
  for (const auto& c : doc.lines) o += line_chart(c, palette);
  return o + "</section>\n";
}

}  // namespace tenet_cost::report::html::detail
