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
/// Decade ticks 10^lo .. 10^hi covering [min, max] (min > 0).
std::vector<double> log_ticks(double min, double max);

/// Fill of a term by its index: a grey-scale-distinct pattern reference ("url(#tc-p3)").
std::string term_fill(std::size_t index);
/// The <svg> block of pattern definitions used by term_fill (emitted once per page).
std::string pattern_defs();

}  // namespace tenet_cost::report::svg
