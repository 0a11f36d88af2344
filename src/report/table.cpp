#include <algorithm>
#include <cstdio>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::report {

Format parse_format(const std::string& text) {
  if (text == "table") return Format::kTable;
  if (text == "json") return Format::kJson;
  if (text == "csv") return Format::kCsv;
  throw InputError("unknown format '" + text + "'; valid formats: table, json, csv");
}

std::string render_text(const Table& t) {
  const std::size_t ncol = t.headers.size();
  std::vector<std::size_t> width(ncol, 0);
  for (std::size_t c = 0; c < ncol; ++c) width[c] = t.headers[c].size();
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < ncol && c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto emit = [&](const std::vector<std::string>& row, std::string& out) {
    for (std::size_t c = 0; c < ncol; ++c) {
      const std::string cell = c < row.size() ? row[c] : std::string();
      const std::size_t pad = width[c] - cell.size();
      const bool right = c < t.right_align.size() && t.right_align[c];
      if (c > 0) out += "  ";
      if (right) out.append(pad, ' ');
      out += cell;
      if (!right && c + 1 < ncol) out.append(pad, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  std::string out;
  emit(t.headers, out);
  std::size_t total = 0;
  for (std::size_t c = 0; c < ncol; ++c) total += width[c] + (c > 0 ? 2 : 0);
  out.append(total, '-');
  out += '\n';
  for (const auto& row : t.rows) emit(row, out);
  return out;
}

static std::string csv_field(const std::string& f) {
  if (f.find_first_of(",\"\n\r") == std::string::npos) return f;
  std::string q = "\"";
  for (char ch : f) {
    if (ch == '"') q += '"';
    q += ch;
  }
  q += '"';
  return q;
}

std::string render_csv(const Table& t) {
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_field(row[c]);
    }
    out += '\n';
  };
  emit(t.headers);
  for (const auto& row : t.rows) emit(row);
  return out;
}

std::string fixed(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

std::string grouped(long long v) {
  std::string digits = std::to_string(v < 0 ? -(v + 1) + 1ULL : static_cast<unsigned long long>(v));
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n > 0 && n % 3 == 0) out += ',';
    out += *it;
    ++n;
  }
  if (v < 0) out += '-';
  std::reverse(out.begin(), out.end());
  return out;
}

std::string megabytes(std::int64_t bytes) { return fixed(static_cast<double>(bytes) / 1e6, 2); }

}  // namespace tenet_cost::report
