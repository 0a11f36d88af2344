// The view of the serving-simulator exports (docs/export.md): each table as the CSV its reader expects.
#include <cstdio>

#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

namespace {

// A time as LLMServingSim's writer formats it (6 significant digits, %.6g); integers and text as they are.
std::string cell_text(const model::ExportCell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", std::get<double>(c));
  return buf;
}

}  // namespace

std::string render_export(const model::ExportTable& t) {
  if (t.columns.empty()) return t.text;
  Table out;
  out.headers = t.columns;
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    cells.reserve(row.size());
    for (const auto& c : row) cells.push_back(cell_text(c));
    out.rows.push_back(std::move(cells));
  }
  return render_csv(out);
}

}  // namespace tenet_cost::report
