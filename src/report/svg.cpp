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

namespace {
// Ticks every 1/2/5 x 10^k (about `target` steps over hi - lo > 0) from the last multiple of the step <= lo to the
// first >= hi.
std::vector<double> stepped_ticks(double lo, double hi, int target) {
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    step = f * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  const double first = std::floor(lo / step) * step;
  for (int i = 0;; ++i) {
    const double t = first + step * i;
    ticks.push_back(t);
    if (t >= hi) break;
  }
  if (ticks.size() < 2) ticks.push_back(first + step);
  return ticks;
}
}  // namespace

std::vector<double> linear_ticks(double max, int target) {
  if (!(max > 0)) return {0.0, 1.0};
  return stepped_ticks(0, max, target);
}

std::vector<double> range_ticks(double lo, double hi, int target) {
  if (!(hi > 0) || lo < hi / 3) return linear_ticks(hi, target);
  if (hi - lo < hi * 1e-9) lo = hi * 0.9;  // one value: a 10 % window under it
  return stepped_ticks(lo, hi, target);
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
    {"#1f4e79", ""},                                                             // 0 dark solid
    {"#ffffff", "<path d='M0 6L6 0' stroke='#333' stroke-width='1.5'/>"},        // 1 diagonal hatch
    {"#a6c8e8", ""},                                                             // 2 light solid
    {"#ffffff", "<circle cx='3' cy='3' r='1.3' fill='#333'/>"},                  // 3 dots
    {"#e8a33d", "<path d='M0 3H6' stroke='#333' stroke-width='1'/>"},            // 4 horizontal lines
    {"#ffffff", "<path d='M0 0L6 6M0 6L6 0' stroke='#333' stroke-width='1'/>"},  // 5 cross hatch
    {"#6b6b6b", ""},                                                             // 6 mid grey solid
    {"#ffffff", "<path d='M3 0V6' stroke='#333' stroke-width='1'/>"},            // 7 vertical lines
};
constexpr std::size_t kNumPatterns = sizeof(kPatterns) / sizeof(kPatterns[0]);

// The terms with a fixed pattern (one meaning per pattern on every chart of every page).
struct Named {
  std::string_view name;
  std::size_t pattern;
};
constexpr Named kNamed[] = {
    {"compute", 0},
    {"mac", 0},
    {"dram", 1},
    {"buffer", 2},
    {"vector", 3},
    {"dequant", 4},
    {"noc", 5},
    {"weights, activations, KV, outputs", 6},
    {"scales + zero points", 7},
};
}  // namespace

std::string term_fill(std::string_view name, std::size_t index) {
  for (const auto& n : kNamed)
    if (n.name == name) return fmt::format("url(#tc-p{})", n.pattern);
  return fmt::format("url(#tc-p{})", index % kNumPatterns);
}

std::string scheme_colour(std::size_t index) {
  // Okabe-Ito's colour-blind-safe set (less its yellow), then four of Tableau's
  static constexpr const char* kColours[] = {"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7",
                                             "#56b4e9", "#7f7f7f", "#8c564b", "#bcbd22", "#17becf"};
  return kColours[index % (sizeof(kColours) / sizeof(kColours[0]))];
}

double text_width(std::string_view text, double font_px, bool bold) {
  // advance widths of ' ' .. '~' in DejaVu Sans, per mille of the em (measured in Chromium)
  static constexpr short kRegular[95] = {
      318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361,  318, 337, 636, 636, 636,
      636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
      575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635,  611, 732, 684, 989, 685,
      611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352,  635, 634, 278, 278, 579,
      278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,  525, 636, 337, 636, 838};
  static constexpr short kBold[95] = {
      348, 456,  521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415,  380, 365, 696, 696,  696,
      696, 696,  696, 696, 696, 696,  696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830,  683,
      683, 821,  837, 372, 372, 775,  637, 995, 837, 850, 733, 850, 770, 720,  682, 812, 774, 1103, 771,
      724, 725,  457, 365, 457, 838,  500, 500, 675, 716, 593, 716, 678, 435,  716, 712, 343, 343,  665,
      343, 1042, 712, 687, 716, 716,  493, 595, 478, 712, 652, 924, 645, 652,  582, 712, 365, 712,  838};
  double w = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 32 && c < 127) w += (bold ? kBold : kRegular)[c - 32];
    else if ((c & 0xC0) != 0x80) w += 1000;  // the first byte of a non-ASCII character (UTF-8)
  }
  return w * font_px / 1000.0;
}

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

LabelBox label_box(double x, double y, const std::string& text, double font_px) {
  return LabelBox{x, y, svg::text_width(text, font_px) + 2.0, 1.2 * font_px};
}

std::vector<std::optional<LabelBox>> place_labels(const std::vector<LabelAnchor>& anchors, const LabelBox& area,
                                                  const std::vector<LabelBox>& obstacles) {
  std::vector<std::optional<LabelBox>> out;
  std::vector<LabelBox> placed = obstacles;
  auto fits = [&](const LabelBox& b) {
    if (b.x < area.x || b.y < area.y || b.x + b.w > area.x + area.w || b.y + b.h > area.y + area.h) return false;
    return std::none_of(placed.begin(), placed.end(), [&](const LabelBox& p) { return overlaps(p, b); });
  };
  for (const auto& a : anchors) {
    const double w = a.w, h = a.h;
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

std::string leader_line(const LabelAnchor& a, const LabelBox& b) {
  const double nx = std::clamp(a.x, b.x, b.x + b.w), ny = std::clamp(a.y, b.y, b.y + b.h);
  const double d = std::hypot(nx - a.x, ny - a.y);
  if (d <= a.r + 4) return "";
  const double sx = a.x + (nx - a.x) * a.r / d, sy = a.y + (ny - a.y) * a.r / d;
  return fmt::format(
      "<line class=\"leader\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555\" stroke-width=\"0.7\"/>",
      svg::coord(sx), svg::coord(sy), svg::coord(nx), svg::coord(ny));
}

}  // namespace tenet_cost::report::html
