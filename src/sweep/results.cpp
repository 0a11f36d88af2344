// Results files: one JSON line per point, validated on resume and merge, and their CSV view (docs/sweep.md).
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sweep/internal.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::sweep {

using nlohmann::json;

std::string hex16(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

namespace {

constexpr std::size_t kMaxLine = std::size_t{1} << 20;

// Why `line` is not a result line ("" when it is one): it must be the canonical dump of
// {"id": hash(point), "point": {...}, "result": {...} | "error": "..."}.
std::string line_problem(const std::string& line, std::string* id) {
  if (line.size() > kMaxLine) return "a line over 1 MiB";
  const json doc = json::parse(line, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return "not a JSON object";
  if (!doc.contains("id") || !doc["id"].is_string()) return "no \"id\"";
  if (!doc.contains("point") || !doc["point"].is_object()) return "no \"point\" object";
  const bool result = doc.contains("result") && doc["result"].is_object();
  const bool error = doc.contains("error") && doc["error"].is_string();
  if (result == error || doc.size() != 3) return "not exactly one of \"result\" and \"error\"";
  *id = doc["id"].get<std::string>();
  if (*id != hex16(fnv1a(doc["point"].dump()))) return "an id that is not the hash of its point";
  if (doc.dump() != line) return "a line that is not in canonical form";
  return "";
}

}  // namespace

ResultsFile parse_results(const std::string& text, const std::string& filename, bool allow_corrupt_tail) {
  ResultsFile out;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const auto nl = text.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::string line = text.substr(pos, complete ? nl - pos : std::string::npos);
    std::string id;
    std::string problem = complete ? line_problem(line, &id) : "a last line without its newline (a partial write)";
    const bool last = !complete || nl + 1 == text.size();
    if (!problem.empty()) {
      if (last && allow_corrupt_tail) {
        out.corrupt_tail = true;
        out.tail_line = line_no;
        return out;
      }
      throw InputError(SourceLocation{filename, static_cast<std::uint32_t>(line_no), 1},
                       "expected a sweep result line, found " + problem);
    }
    out.lines.push_back(ResultLine{id, line});
    pos = nl + 1;
    out.valid_bytes = pos;
  }
  return out;
}

std::vector<ResultLine> merge_results(const std::vector<std::string>& files) {
  std::map<std::string, std::pair<std::string, std::string>> by_id;  // id -> (line, where)
  for (const auto& f : files) {
    const ResultsFile r = parse_results(read_file(f), f, false);
    std::size_t n = 0;
    for (const auto& l : r.lines) {
      ++n;
      const std::string where = f + ":" + std::to_string(n);
      const auto [it, fresh] = by_id.emplace(l.id, std::make_pair(l.text, where));
      if (!fresh && it->second.first != l.text)
        throw InputError(where + ": point " + l.id + " has a different result in " + it->second.second +
                         " (results of different tenet-cost versions?)");
    }
  }
  std::vector<ResultLine> out;
  out.reserve(by_id.size());
  for (auto& [id, v] : by_id) out.push_back(ResultLine{id, std::move(v.first)});
  return out;
}

namespace {

void flatten(const json& v, const std::string& prefix, std::map<std::string, json>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) flatten(it.value(), prefix + "." + it.key(), out);
  } else {
    out[prefix] = v;
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string results_csv(const std::vector<ResultLine>& lines) {
  std::vector<std::map<std::string, json>> rows;
  std::set<std::string> columns;
  for (const auto& l : lines) {
    const json doc = json::parse(l.text);
    std::map<std::string, json> row;
    for (auto it = doc.begin(); it != doc.end(); ++it)
      if (it.key() != "id") flatten(it.value(), it.key(), row);
    for (const auto& [k, v] : row) columns.insert(k);
    row["id"] = doc["id"];
    rows.push_back(std::move(row));
  }
  // id, then point.*, then result.*, then error (each group sorted)
  std::vector<std::string> order = {"id"};
  for (const char* group : {"point.", "result.", "error"})
    for (const auto& c : columns)
      if (c.rfind(group, 0) == 0) order.push_back(c);
  std::string out;
  for (std::size_t i = 0; i < order.size(); ++i) out += (i ? "," : "") + csv_field(order[i]);
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto it = row.find(order[i]);
      std::string cell;
      if (it != row.end()) cell = it->second.is_string() ? it->second.get<std::string>() : it->second.dump();
      out += (i ? "," : "") + csv_field(cell);
    }
    out += "\n";
  }
  return out;
}

}  // namespace tenet_cost::sweep
