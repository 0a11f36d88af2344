// Pieces the HTML report's chart writers share (src/report/html*.cpp; private to src/report).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tenet_cost/report_html.hpp"

namespace tenet_cost::report::html::detail {

/// The colour of each scheme on a page: the order of first appearance (comparison rows, then trade-off points, then
/// rooflines, then line series) picks svg::scheme_colour, so one scheme has one colour in every chart.
class Palette {
 public:
  explicit Palette(const ReportDoc& doc);
  /// The colour of `series`; a name not seen at construction is added (in call order).
  std::string colour(const std::string& series);

 private:
  std::vector<std::string> names_;
};

/// <figure class="chart" id=... data-chart=kind><figcaption>title</figcaption>body</figure>
std::string figure(const std::string& id, const std::string& kind, const std::string& title, const std::string& body);
/// A <details> "Data" table (cells escaped).
std::string details_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows);

/// `text` cut to at most `max_px` wide at `font_px` (an ellipsis marks the cut; the full text belongs in a <title>).
std::string fit_text(const std::string& text, double max_px, double font_px);
/// <text> of `text` with its box (label_box) at top-left (x, y): the baseline 0.95 em below the top.
std::string text_in_box(const LabelBox& box, const std::string& text, double font_px, const std::string& cls);

// The frame of the scatter and line charts: the plot area, a legend column on its right, the axis titles below
// and left, then notes (one line each) below the x axis title.
inline constexpr double kPlotL = 84, kPlotT = 40, kPW = 520, kPH = 330, kSvgW = 800;
inline constexpr double kLegendX = kPlotL + kPW + 16;   // the legend column's left edge
inline constexpr double kNotesTop = kPlotT + kPH + 62;  // the first note's baseline
inline constexpr double kNoteH = 15;                    // per note line

/// One tick: its pixel position along the axis and its text.
struct Tick {
  double pos = 0;
  std::string text;
};
/// Grid lines, tick labels (x labels thinned to every k-th when they would touch), the frame and the axis titles.
std::string plot_axes(const std::vector<Tick>& xt, const std::vector<Tick>& yt, const std::string& x_title,
                      const std::string& y_title);
/// Notes below the axes, one per line, starting at kNotesTop; returns the SVG text and sets `bottom` past them.
std::string notes_below(const std::vector<std::string>& notes, double& bottom);
/// The opening <svg> tag with viewBox/width/height and an aria-label (extra = more attributes, preformatted).
std::string svg_open(double width, double height, const std::string& aria, const std::string& extra = "");
/// A legend row: a coloured swatch (a circle of `colour`) and the name, at (x, y) = the row's top-left; 16 px tall.
std::string legend_row(double x, double y, const std::string& colour, const std::string& name, double max_px);

/// (c), (d): the roofline of one scheme and the latency-energy trade-off.
std::string roofline(const Roofline& rl, std::size_t index, Palette& palette);
std::string tradeoff(const ReportDoc& doc, Palette& palette);
/// (f): a sweep's line charts, one figure each.
std::string line_charts(const ReportDoc& doc, Palette& palette);

}  // namespace tenet_cost::report::html::detail
