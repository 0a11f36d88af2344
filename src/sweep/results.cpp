// Results files: one JSON line per point, validated on resume and merge, and their CSV view (docs/sweep.md).
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

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

std::uint64_t id_value(const std::string& id) {
  std::uint64_t v = 0;
  std::from_chars(id.data(), id.data() + id.size(), v, 16);
  return v;
}

namespace {

constexpr const char* kFormat = "tenet-cost-sweep-results";
constexpr int kVersion = 1;

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

// Why `line` is not a results header ("" when it is one): the canonical dump of
// {"format": kFormat, "grid": {...}, "grid_id": hash(grid), "version": 1}.
std::string header_problem(const std::string& line) {
  if (line.size() > kMaxHeaderLine) return "a line over 8 MiB";
  const json doc = json::parse(line, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return "not a JSON object";
  if (!doc.contains("format") || doc["format"] != kFormat) return "no \"format\":\"" + std::string(kFormat) + "\"";
  if (!doc.contains("version") || doc["version"] != kVersion)
    return "a results header of another format version (this tenet-cost reads version " + std::to_string(kVersion) +
           ")";
  if (doc.size() != 4 || !doc.contains("grid") || !doc["grid"].is_object() || !doc.contains("grid_id") ||
      !doc["grid_id"].is_string())
    return "a results header without exactly \"grid\" and \"grid_id\"";
  if (doc["grid_id"] != hex16(fnv1a(doc["grid"].dump()))) return "a grid id that is not the hash of its grid";
  if (doc.dump() != line) return "a header that is not in canonical form";
  return "";
}

std::string shortened(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 57) + "..."; }

}  // namespace

LineKind classify_line(const std::string& line, std::string* problem) {
  const std::string header = header_problem(line);
  if (header.empty()) return LineKind::kHeader;
  std::string id;
  const std::string result = line_problem(line, &id);
  if (result.empty()) return LineKind::kResult;
  if (problem) *problem = line.rfind("{\"format\":", 0) == 0 ? header : result;
  return LineKind::kOther;
}

std::string header_grid_id(const std::string& header) { return json::parse(header)["grid_id"].get<std::string>(); }
json header_grid(const std::string& header) { return json::parse(header)["grid"]; }

json axis_value_json(const AxisDef& d, const std::string& v) {
  if (d.integer || (d.kind == AxisKind::kEp && v != "tp")) return positive_integer(v, d.key);
  return v;
}

json grid_object(const Grid& g) {
  json o = json::object();
  o["set"] = json::object();
  for (const auto& a : g.axes) {
    const AxisDef& d = axis_def(a.kind);
    json values = json::array();
    for (const auto& v : a.values) values.push_back(axis_value_json(d, v));
    std::sort(values.begin(), values.end());
    if (a.kind == AxisKind::kSet) o["set"][a.path] = values;
    else o[d.key] = values;
  }
  return o;
}

std::string grid_id(const Grid& grid) { return hex16(fnv1a(grid_object(normalized(grid)).dump())); }

std::string results_header(const Grid& grid) {
  const json g = grid_object(normalized(grid));
  return json{{"format", kFormat}, {"grid", g}, {"grid_id", hex16(fnv1a(g.dump()))}, {"version", kVersion}}.dump();
}

bool point_in_grid(const json& point, const json& grid) {
  if (!point.is_object() || point.size() != grid.size() + 1 || !point.contains("files")) return false;
  const auto has = [](const json& values, const json& v) {
    return values.is_array() && std::find(values.begin(), values.end(), v) != values.end();
  };
  for (auto it = point.begin(); it != point.end(); ++it) {
    if (it.key() == "files") continue;
    if (!grid.contains(it.key())) return false;
    if (it.key() != "set") {
      if (!has(grid[it.key()], it.value())) return false;
      continue;
    }
    const json& gs = grid["set"];
    if (!it.value().is_object() || it.value().size() != gs.size()) return false;
    for (auto s = it.value().begin(); s != it.value().end(); ++s)
      if (!gs.contains(s.key()) || !has(gs[s.key()], s.value())) return false;
  }
  return true;
}

std::string grid_difference(const json& a, const json& b, const std::string& a_name, const std::string& b_name) {
  json keys = json::object();
  for (const json* g : {&a, &b})
    for (auto it = g->begin(); it != g->end(); ++it) keys[it.key()] = true;
  for (auto it = keys.begin(); it != keys.end(); ++it) {
    const json x = a.value(it.key(), json()), y = b.value(it.key(), json());
    if (x != y)
      return it.key() + ": " + shortened(x.is_null() ? "none" : x.dump()) + " in " + a_name + ", " +
             shortened(y.is_null() ? "none" : y.dump()) + " in " + b_name;
  }
  return "the same axes";
}

ResultsFile scan_results(const ByteSource& source, const std::string& filename, bool allow_corrupt_tail,
                         const std::function<void(const ResultLine&, std::size_t offset)>& on_line, bool dedupe) {
  ResultsFile out;
  std::string buf;
  std::size_t start = 0, base = 0, line_no = 0;  // base: the file offset of buf[0]
  bool eof = false;
  const auto fill = [&] {
    char chunk[1 << 16];
    const std::size_t n = source(chunk, sizeof chunk);
    if (n == 0) eof = true;
    buf.append(chunk, n);
  };
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::size_t>> seen;  // id -> (line hash, line)
  for (;;) {
    if (start > kMaxLine) {
      buf.erase(0, start);
      base += start;
      start = 0;
    }
    std::size_t nl = std::string::npos;
    const std::size_t limit = (line_no == 0 ? kMaxHeaderLine : kMaxLine) + 1;
    while ((nl = buf.find('\n', start)) == std::string::npos && !eof && buf.size() - start <= limit) fill();
    if (nl == std::string::npos && start == buf.size()) break;  // the end
    ++line_no;
    const SourceLocation at{filename, static_cast<std::uint32_t>(line_no), 1};
    if (nl == std::string::npos && !eof) throw InputError(at, "expected a sweep result line, found a line over 1 MiB");
    const bool complete = nl != std::string::npos;
    const std::string line = buf.substr(start, complete ? nl - start : std::string::npos);
    std::string id, problem = "a last line without its newline (a partial write)";
    if (complete && line_no == 1 && header_problem(line).empty()) {
      out.header = line;
      out.grid_id = header_grid_id(line);
      problem.clear();
    } else if (complete) {
      problem = line_problem(line, &id);
    }
    if (!problem.empty()) {
      while (complete && buf.size() == nl + 1 && !eof) fill();
      const bool last = !complete || buf.size() == nl + 1;
      if (last && allow_corrupt_tail && line_no > 1) {
        out.corrupt_tail = true;
        out.tail_line = line_no;
        return out;
      }
      throw InputError(at, std::string(line_no == 1 ? "expected a sweep results header or result line, found "
                                                    : "expected a sweep result line, found ") +
                               problem);
    }
    const std::size_t offset = base + start;
    start = nl + 1;
    out.valid_bytes = base + start;
    if (id.empty()) continue;  // the header
    if (!dedupe) {
      on_line(ResultLine{id, line}, offset);
      continue;
    }
    const auto [it, fresh] = seen.emplace(id_value(id), std::make_pair(fnv1a(line), line_no));
    if (fresh) {
      on_line(ResultLine{id, line}, offset);
    } else if (it->second.first == fnv1a(line)) {
      ++out.duplicates;
    } else {
      throw InputError(at, "point " + id + " has a different result on line " + std::to_string(it->second.second) +
                               " (results of different tenet-cost versions?)");
    }
  }
  return out;
}

ResultsFile scan_finished_ids(const std::function<ByteSource()>& open, const std::string& filename,
                              bool allow_corrupt_tail, const std::function<void(const ResultLine&)>& on_line,
                              std::vector<std::uint64_t>& ids) {
  std::size_t lines = 0;  // an upper bound of the result lines, so that ids is allocated once
  {
    const ByteSource source = open();
    std::string chunk(std::size_t{1} << 16, '\0');
    for (std::size_t n; (n = source(chunk.data(), chunk.size())) > 0;)
      lines += static_cast<std::size_t>(std::count(chunk.data(), chunk.data() + n, '\n'));
  }
  ids.clear();
  ids.reserve(lines + 1);
  ResultsFile out = scan_results(
      open(), filename, allow_corrupt_tail,
      [&](const ResultLine& l, std::size_t) {
        on_line(l);
        ids.push_back(id_value(l.id));
      },
      /*dedupe=*/false);
  std::sort(ids.begin(), ids.end());
  std::vector<std::uint64_t> repeated;  // sorted: each id seen more than once
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i] == ids[i - 1] && (repeated.empty() || repeated.back() != ids[i])) repeated.push_back(ids[i]);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (repeated.empty()) return out;
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::size_t>> first;  // id -> (line hash, line)
  std::size_t line_no = out.header.empty() ? 0 : 1;
  (void)scan_results(
      open(), filename, allow_corrupt_tail,
      [&](const ResultLine& l, std::size_t) {
        ++line_no;
        const std::uint64_t id = id_value(l.id);
        if (!std::binary_search(repeated.begin(), repeated.end(), id)) return;
        const auto [it, fresh] = first.emplace(id, std::make_pair(fnv1a(l.text), line_no));
        if (fresh) return;
        if (it->second.first != fnv1a(l.text))
          throw InputError(SourceLocation{filename, static_cast<std::uint32_t>(line_no), 1},
                           "point " + l.id + " has a different result on line " + std::to_string(it->second.second) +
                               " (results of different tenet-cost versions?)");
        ++out.duplicates;
      },
      /*dedupe=*/false);
  return out;
}

ResultsFile parse_results(const std::string& text, const std::string& filename, bool allow_corrupt_tail) {
  std::size_t pos = 0;
  std::vector<ResultLine> lines;
  ResultsFile out = scan_results(
      [&](char* buf, std::size_t n) {
        const std::size_t k = std::min(n, text.size() - pos);
        std::copy_n(text.data() + pos, k, buf);
        pos += k;
        return k;
      },
      filename, allow_corrupt_tail, [&](const ResultLine& l, std::size_t) { lines.push_back(l); });
  out.lines = std::move(lines);
  return out;
}

void require_results_target(const std::string& path, const std::string& header) {
  // Only a regular file has contents to lose: a FIFO, a pipe (/dev/stdout) or a device is left to write_output (which
  // writes it in place, or refuses a FIFO without a reader). Reading one here would block: /dev/stdout opened for
  // reading is the read end of the shell's pipe, a FIFO waits for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // missing (or unreadable: write_output says why)
  std::string first(kMaxHeaderLine + 1, '\0');
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(in.gcount()));
  if (first.empty()) return;
  std::string problem = "a line without its newline";
  const auto nl = first.find('\n');
  const LineKind kind = nl == std::string::npos ? LineKind::kOther : classify_line(first.substr(0, nl), &problem);
  const char* left = "; refusing to replace it (give merge --out another file, or remove it)";
  if (kind == LineKind::kOther)
    throw InputError(path + ": not a tenet-cost sweep results file (line 1: " + problem + ")" + left);
  if (kind == LineKind::kHeader && !header.empty() && header_grid_id(first.substr(0, nl)) != header_grid_id(header))
    throw InputError(path + ": the results of another grid (" +
                     grid_difference(header_grid(first.substr(0, nl)), header_grid(header), path, "the merged files") +
                     ")" + left);
}

}  // namespace tenet_cost::sweep
