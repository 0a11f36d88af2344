#include "report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::report::svg {

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) throw InternalError("svg::num: non-finite number reached the writer");
  if (v == 0) return "0";  // also -0
  return fmt::format("{}", v);
}

std::string coord(double v) {
  std::string s = fmt::format("{:.2f}", v);
  if (s == "-0.00") s = "0.00";
  return s;
}

std::string label(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a < 1e-3 || a >= 1e6) return fmt::format("{:.3g}", v);
  // fixed notation with 3 significant digits, trailing zeros dropped ("5000", "0.5", "15.9")
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(a))));
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::vector<double> linear_ticks(double max, int target) {
  if (!(max > 0)) return {0.0, 1.0};
  const double raw = max / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    step = f * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (int i = 0;; ++i) {
    const double t = step * i;
    ticks.push_back(t);
    if (t >= max) break;
  }
  return ticks;
}

std::vector<double> log_ticks(double min, double max) {
  const int lo = static_cast<int>(std::floor(std::log10(min)));
  int hi = static_cast<int>(std::ceil(std::log10(max)));
  if (hi <= lo) hi = lo + 1;
  std::vector<double> ticks;
  for (int e = lo; e <= hi; ++e) ticks.push_back(std::pow(10.0, e));
  return ticks;
}

namespace {
// Distinct in grey: solid fills of different lightness, then hatches/dots over them.
struct Pattern {
  const char* base;  // background colour
  const char* mark;  // "" = solid
};
constexpr Pattern kPatterns[] = {
    {"#1f4e79", ""},                                                             // dark solid
    {"#ffffff", "<path d='M0 6L6 0' stroke='#333' stroke-width='1.5'/>"},        // diagonal hatch
    {"#a6c8e8", ""},                                                             // light solid
    {"#ffffff", "<circle cx='3' cy='3' r='1.3' fill='#333'/>"},                  // dots
    {"#e8a33d", "<path d='M0 3H6' stroke='#333' stroke-width='1'/>"},            // horizontal lines
    {"#ffffff", "<path d='M0 0L6 6M0 6L6 0' stroke='#333' stroke-width='1'/>"},  // cross hatch
    {"#6b6b6b", ""},                                                             // mid grey solid
    {"#ffffff", "<path d='M3 0V6' stroke='#333' stroke-width='1'/>"},            // vertical lines
};
constexpr std::size_t kNumPatterns = sizeof(kPatterns) / sizeof(kPatterns[0]);
}  // namespace

std::string term_fill(std::size_t index) { return fmt::format("url(#tc-p{})", index % kNumPatterns); }

std::string pattern_defs() {
  std::string out = "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>\n";
  for (std::size_t i = 0; i < kNumPatterns; ++i) {
    out += fmt::format(
        "<pattern id=\"tc-p{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
        "<rect width=\"6\" height=\"6\" fill=\"{}\"/>{}</pattern>\n",
        i, kPatterns[i].base, kPatterns[i].mark);
  }
  out += "</defs></svg>\n";
  return out;
}

}  // namespace tenet_cost::report::svg

namespace tenet_cost::report::html {

bool overlaps(const LabelBox& a, const LabelBox& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

LabelBox label_box(double x, double y, std::size_t chars) {
  return LabelBox{x, y, 6.0 * static_cast<double>(chars) + 2.0, 12.0};
}

std::vector<std::optional<LabelBox>> place_labels(const std::vector<LabelAnchor>& anchors, const LabelBox& area) {
  std::vector<std::optional<LabelBox>> out;
  std::vector<LabelBox> placed;
  auto fits = [&](const LabelBox& b) {
    if (b.x < area.x || b.y < area.y || b.x + b.w > area.x + area.w || b.y + b.h > area.y + area.h) return false;
    return std::none_of(placed.begin(), placed.end(), [&](const LabelBox& p) { return overlaps(p, b); });
  };
  for (const auto& a : anchors) {
    const LabelBox size = label_box(0, 0, a.chars);
    const double w = size.w, h = size.h;
    std::optional<LabelBox> got;
    // rings around the marker: each ring one label height further out, until a ring lies wholly outside the area
    const double max_d = area.w + area.h;
    for (double d = a.r + 2; !got && d <= max_d; d += h) {
      const LabelBox cand[] = {
          {a.x + d, a.y - h / 2, w, h},     {a.x - d - w, a.y - h / 2, w, h},  // right, left
          {a.x - w / 2, a.y - d - h, w, h}, {a.x - w / 2, a.y + d, w, h},      // above, below
          {a.x + d, a.y - d - h, w, h},     {a.x - d - w, a.y - d - h, w, h},  // diagonals
          {a.x + d, a.y + d, w, h},         {a.x - d - w, a.y + d, w, h},
      };
      for (const auto& c : cand)
        if (fits(c)) {
          got = c;
          break;
        }
    }
    // a scan of the whole area, row by row
    for (double y = area.y; !got && y + h <= area.y + area.h; y += h)
      for (double x = area.x; !got && x + w <= area.x + area.w; x += 4)
        if (fits({x, y, w, h})) got = LabelBox{x, y, w, h};
    if (got) placed.push_back(*got);
    out.push_back(got);
  }
  return out;
}

}  // namespace tenet_cost::report::html
