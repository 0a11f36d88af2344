// The frame pieces the report's charts share: colours by scheme, figures, data tables, axes, legends, notes.
#include <fmt/format.h>

#include <algorithm>

#include "report/html_internal.hpp"
#include "report/svg.hpp"

namespace tenet_cost::report::html::detail {

using svg::coord;
using svg::esc;

Palette::Palette(const ReportDoc& doc) {
  for (const auto& r : doc.schemes) colour(r.series.empty() ? r.scheme : r.series);
  for (const auto& p : doc.tradeoff) colour(p.series.empty() ? p.label : p.series);
  for (const auto& rl : doc.rooflines) colour(rl.scheme);
  for (const auto& c : doc.lines)
    for (const auto& s : c.series) colour(s.name);
}

std::string Palette::colour(const std::string& series) {
  auto it = std::find(names_.begin(), names_.end(), series);
  if (it == names_.end()) {
    names_.push_back(series);
    it = names_.end() - 1;
  }
  return svg::scheme_colour(static_cast<std::size_t>(it - names_.begin()));
}

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

std::string fit_text(const std::string& text, double max_px, double font_px) {
  if (svg::text_width(text, font_px) <= max_px) return text;
  std::string s = text;
  const std::string ell = "\xE2\x80\xA6";  // U+2026, one em wide in text_width
  while (!s.empty() && svg::text_width(s + ell, font_px) > max_px) {
    s.pop_back();
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole characters
    if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80)) s.pop_back();
  }
  return s + ell;
}

std::string text_in_box(const LabelBox& box, const std::string& text, double font_px, const std::string& cls) {
  return fmt::format("<text x=\"{}\" y=\"{}\"{}>{}</text>", coord(box.x + 1), coord(box.y + 0.95 * font_px),
                     cls.empty() ? "" : " class=\"" + cls + "\"", esc(text));
}

std::string plot_axes(const std::vector<Tick>& xt, const std::vector<Tick>& yt, const std::string& x_title,
                      const std::string& y_title) {
  std::string o = "<g class=\"axis\">";
  // x tick labels: every k-th when neighbours would come closer than 8 px
  double widest = 0;
  for (const auto& t : xt) widest = std::max(widest, svg::text_width(t.text, 12));
  std::size_t every = 1;
  if (xt.size() > 1) {
    const double gap = std::abs(xt[1].pos - xt[0].pos);
    while (gap * static_cast<double>(every) < widest + 8 && every < xt.size()) ++every;
  }
  for (std::size_t i = 0; i < xt.size(); ++i) {
    o += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>", coord(xt[i].pos),
                     coord(kPlotT), coord(kPlotT + kPH));
    if (i % every == 0)
      o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", coord(xt[i].pos),
                       coord(kPlotT + kPH + 20), esc(xt[i].text));
  }
  for (const auto& t : yt)
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
        coord(kPlotL), coord(kPlotL + kPW), coord(t.pos), coord(kPlotL - 6), coord(t.pos + 4), esc(t.text));
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000\"/>", coord(kPlotL),
                   coord(kPlotT), coord(kPW), coord(kPH));
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"axis-label\">{}</text>",
                   coord(kPlotL + kPW / 2), coord(kPlotT + kPH + 42), esc(x_title));
  o += fmt::format(
      "<text transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\" class=\"axis-label\">{}</text></g>\n",
      coord(kPlotT + kPH / 2), esc(fit_text(y_title, kPH, 12)));
  return o;
}

std::string notes_below(const std::vector<std::string>& notes, double& bottom) {
  std::string o;
  double y = kNotesTop;
  for (const auto& n : notes) {
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"note\">{}</text>\n", coord(kPlotL - 70), coord(y),
                     esc(fit_text(n, kSvgW - kPlotL + 60, 11)));
    y += kNoteH;
  }
  bottom = std::max(bottom, y - kNoteH + 8);
  return o;
}

std::string svg_open(double width, double height, const std::string& aria, const std::string& extra) {
  return fmt::format(
      "<svg viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\"{3}>\n",
      coord(width), coord(height), esc(aria), extra);
}

std::string legend_row(double x, double y, const std::string& colour, const std::string& name, double max_px) {
  return fmt::format(
      "<g class=\"legend\"><title>{}</title><circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\" stroke=\"#000\"/>"
      "<text x=\"{}\" y=\"{}\">{}</text></g>\n",
      esc(name), coord(x + 5), coord(y + 8), colour, coord(x + 14), coord(y + 12),
      esc(fit_text(name, max_px - 14, 12)));
}

}  // namespace tenet_cost::report::html::detail
