// Rendering rows of results as an aligned text table or CSV. JSON output is
// built by each command with nlohmann::json (see docs/formats.md).
#pragma once

#include <string>
#include <vector>

namespace tenet_cost::report {

enum class Format { kTable, kJson, kCsv };

/// "table" | "json" | "csv"; throws InputError listing the choices otherwise.
Format parse_format(const std::string& text);

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  /// Columns right-aligned in text output (numbers); by index.
  std::vector<bool> right_align;
};

/// Aligned columns with a header rule, one row per line, trailing newline.
std::string render_text(const Table& t);
/// RFC 4180 CSV: fields quoted when they contain , " or a newline.
std::string render_csv(const Table& t);

/// Fixed-precision number text without locale surprises ("%.*f").
std::string fixed(double v, int precision);
/// 12345678 -> "12,345,678" for human tables (CSV/JSON keep plain digits).
std::string grouped(long long v);

}  // namespace tenet_cost::report
