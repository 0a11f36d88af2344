// A small SVG/HTML text writer for the report (src/report/html.cpp): escaping,
// deterministic number text, axes. Internal to the report module.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tenet_cost::report::svg {

/// Escapes & < > " ' for text and attribute values.
std::string esc(std::string_view s);
/// Shortest round-trip text of a finite double ("0.1", "1e+21", "3").
std::string num(double v);
/// Coordinates: fixed 2 decimals, "-0.00" normalised to "0.00".
std::string coord(double v);
/// Human label: 3 significant digits ("1.23", "0.0456", "1.2e+06").
std::string label(double v);

/// Tick values of a linear axis from 0 to >= max (steps 1/2/5 x 10^k, about `target` ticks).
std::vector<double> linear_ticks(double max, int target = 5);
/// Tick values of a linear axis covering [lo, hi] (0 <= lo <= hi), steps 1/2/5 x 10^k, about `target` ticks; from 0
/// when lo is below a third of hi (a zoomed axis only where the data sit far from zero).
std::vector<double> range_ticks(double lo, double hi, int target = 5);
/// Decade ticks 10^lo .. 10^hi covering [min, max] (min > 0).
std::vector<double> log_ticks(double min, double max);

/// Fill of a cost or energy term, fixed by its name so that a term looks the same in every chart ("dram" is the
/// diagonal hatch in the energy bars and in the cycle breakdowns; "mac" and "compute", the MAC work, share the dark
/// solid): a grey-scale-distinct pattern reference ("url(#tc-p3)"). A name without a fixed pattern takes the
/// `index`-th of the patterns no name has.
std::string term_fill(std::string_view name, std::size_t index);
/// The colour of the i-th scheme of a page (colour-blind-safe palette; cycles after 10): the same scheme has the same
/// colour in every chart of the page.
std::string scheme_colour(std::size_t index);

/// Width in px of `text` set in DejaVu Sans (the widest common sans-serif: Debian's default, so an upper bound for
/// Liberation Sans / Arial / Helvetica) at `font_px`; measured advance widths of ASCII, 1 em for anything else.
double text_width(std::string_view text, double font_px, bool bold = false);
/// The <svg> block of pattern definitions used by term_fill (emitted once per page).
std::string pattern_defs();

}  // namespace tenet_cost::report::svg
