// Arch JSON reader and presets (docs/arch.md).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/message.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::arch {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string>& precisions() {
  static const std::vector<std::string> p = [] {
    std::vector<std::string> v;
    v.reserve(kMacPrecisions.size());
    for (const MacPrecision m : kMacPrecisions) v.emplace_back(to_string(m));
    return v;
  }();
  return p;
}

std::string to_string(MacPath p) {
  switch (p) {
    case MacPath::kNative: return "native";
    case MacPath::kWidened: return "widened";
    case MacPath::kBlockScaled: return "block-scaled";
    case MacPath::kDequantized: return "dequantized";
  }
  return "native";
}

namespace {

// Limits for hostile arch files (docs/arch.md): presets are ~2 KB and 3 levels deep.
constexpr std::size_t kMaxArchBytes = std::size_t{1} << 20;
constexpr int kMaxArchNesting = 16;

// Offset of `"key"` followed by ':' (the first occurrence at or after `from`), or npos.
std::size_t key_offset(const std::string& text, const std::string& key, std::size_t from) {
  const std::string quoted = "\"" + key + "\"";
  std::size_t pos = from;
  while ((pos = text.find(quoted, pos)) != std::string::npos) {
    std::size_t after = pos + quoted.size();
    while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
    if (after < text.size() && text[after] == ':') return pos;
    pos = after;
  }
  return std::string::npos;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Ranges of the arch fields (docs/arch.md, "Ranges").
constexpr std::int64_t kMaxPe = kMaxPeSide;       // rows, cols
constexpr std::int64_t kMaxClockMhz = 1'000'000;  // 1 THz
constexpr std::int64_t kMaxBufferBytes = std::int64_t{1} << 48;
constexpr std::int64_t kMaxBitsPerCycle = std::int64_t{1} << 24;
constexpr std::int64_t kMaxDramMbPerS = 1'000'000'000;            // 1 PB/s
constexpr std::int64_t kMaxDramBytes = std::int64_t{1} << 56;     // 64 PiB
constexpr std::int64_t kMaxUnitPerCycle = std::int64_t{1} << 24;  // dequant / vector throughput
constexpr std::int64_t kMaxMacRate = 65536;                       // MACs per PE per cycle
constexpr double kMaxEnergyPj = 1e6;                              // per MAC, bit, element or op
constexpr double kMaxLinkGbPerS = 1e6;                            // chip link: 1 PB/s
constexpr double kMaxLinkLatencyUs = 1e6;                         // chip link: 1 s per hop

// Reads the fields of one JSON object; `from` is the offset of the object's own
// key in the text, so keys that repeat in several sections ("fp16") are located
// in the right one.
struct Reader {
  const std::string& text;
  const std::string& file;
  std::size_t from = 0;

  [[nodiscard]] Reader section(const std::string& key) const {
    const std::size_t at = key_offset(text, key, from);
    return Reader{text, file, at == std::string::npos ? from : at};
  }
  [[nodiscard]] SourceLocation where(const std::string& key) const {
    const std::size_t at = key_offset(text, key, from);
    return at == std::string::npos ? SourceLocation{file, 0, 0} : location_at(text, at, file);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const { throw InputError(where(key), msg); }
  // The value of `key` as written in the file (a number's digits are not rounded or
  // wrapped), quoted and elided for a message.
  [[nodiscard]] std::string written(const json& v, const std::string& key) const {
    std::size_t at = key_offset(text, key, from);
    if (at != std::string::npos && (at = text.find(':', at)) != std::string::npos) {
      ++at;
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
      std::size_t end = at;
      if (end < text.size() && text[end] != '"' && text[end] != '{' && text[end] != '[') {
        while (end < text.size() && std::string_view(",}] \t\r\n").find(text[end]) == std::string_view::npos) ++end;
        if (end > at) return quote_for_message(std::string_view(text).substr(at, end - at));
      }
    }
    return quote_for_message(v.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  void check_keys(const json& obj, const std::string& what, const std::vector<std::string>& valid) const {
    if (!obj.is_object()) {
      const auto dot = what.rfind('.');
      fail(dot == std::string::npos ? what : what.substr(dot + 1),
           "expected an object for '" + what + "', found " + std::string(obj.type_name()));
    }
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (std::find(valid.begin(), valid.end(), it.key()) == valid.end())
        fail(it.key(), "unknown key " + quote_for_message(it.key()) + " in " + what + did_you_mean(it.key(), valid) +
                           " (valid keys: " + join(valid) + ")");
  }
  std::int64_t integer(const json& obj, const std::string& key, bool required, std::int64_t def, std::int64_t min,
                       std::int64_t max) const {
    if (!obj.contains(key)) {
      if (required) throw InputError(SourceLocation{file, 0, 0}, "missing required key '" + key + "'");
      return def;
    }
    const json& v = obj.at(key);
    const std::string range = std::to_string(min) + " .. " + std::to_string(max);
    if (!v.is_number_integer()) {
      if (v.is_number_float() && std::fabs(v.get<double>()) >= 9.2e18)  // digits beyond 64 bits
        fail(key, "expected '" + key + "' in " + range + ", found " + written(v, key));
      fail(key, "expected an integer for '" + key + "', found " + written(v, key));
    }
    // Above INT64_MAX nlohmann stores an unsigned integer: compared as such, never wrapped.
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
      fail(key, "expected '" + key + "' in " + range + ", found " + written(v, key));
    if (v.get<std::int64_t>() < min || v.get<std::int64_t>() > max)
      fail(key, "expected '" + key + "' in " + range + ", found " + written(v, key));
    return v.get<std::int64_t>();
  }
  // A finite number in [0, max] (not -0.0).
  double number(const json& obj, const std::string& key, double def, double max) const {
    if (!obj.contains(key)) return def;
    const json& v = obj.at(key);
    if (!v.is_number()) fail(key, "expected a number for '" + key + "', found " + written(v, key));
    const double x = v.get<double>();
    if (!std::isfinite(x) || std::signbit(x) || x > max)
      fail(key, "expected '" + key + "' in 0 .. " + json(max).dump() + ", found " + written(v, key));
    return x;
  }
  // MACs per PE per cycle: an integer in 1 .. kMaxMacRate or k/64 (k >= 1).
  Arch::Rate rate(const json& obj, const std::string& key) const {
    const json& v = obj.at(key);
    const std::string expected = "expected '" + key + "' (MACs per PE per cycle) to be an integer in 1 .. " +
                                 std::to_string(kMaxMacRate) + " or a fraction k/64 >= 1/64, found ";
    if (!v.is_number()) fail(key, "expected a number for '" + key + "', found " + written(v, key));
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxMacRate))
      fail(key, expected + written(v, key));
    if (v.is_number_integer()) {
      const std::int64_t n = v.get<std::int64_t>();
      if (n < 1 || n > kMaxMacRate) fail(key, expected + written(v, key));
      return {n, 1};
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || std::signbit(x) || x < 1.0 / 64 || x > static_cast<double>(kMaxMacRate))
      fail(key, expected + written(v, key));
    Arch::Rate r{static_cast<std::int64_t>(std::llround(x * 64)), 64};
    if (std::fabs(static_cast<double>(r.num) / 64.0 - x) > 1e-12)
      fail(key, "expected an integer or a fraction with denominator <= 64 for '" + key + "', found " + written(v, key));
    const std::int64_t g = std::gcd(r.num, r.den);
    return {r.num / g, r.den / g};
  }
  // `buffering`: "single" (default) or "double"; `of` names the owner in the message (" of levels[1]").
  TileBuffering buffering(const json& obj, const std::string& of) const {
    const std::string b = string(obj, "buffering", "single");
    if (b != "single" && b != "double")
      fail("buffering", "expected 'buffering'" + of + " to be \"single\" or \"double\", found " + quote_for_message(b) +
                            did_you_mean(b, {"single", "double"}));
    return b == "double" ? TileBuffering::kDouble : TileBuffering::kSingle;
  }
  std::string string(const json& obj, const std::string& key, const std::string& def) const {
    if (!obj.contains(key)) return def;
    const json& v = obj.at(key);
    if (!v.is_string()) fail(key, "expected a string for '" + key + "', found " + written(v, key));
    return v.get<std::string>();
  }
};

// Offsets of the objects of the JSON array that follows `"key":` at `at` (one per element, in order; npos when the
// text does not show them, e.g. an element that is not an object).
std::vector<std::size_t> array_object_offsets(const std::string& text, std::size_t at) {
  std::vector<std::size_t> out;
  if (at == std::string::npos) return out;
  std::size_t i = text.find('[', at);
  if (i == std::string::npos) return out;
  int depth = 0;
  bool in_string = false;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') ++i;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == '[' || ch == '{') {
      if (depth == 1 && ch == '{') out.push_back(i);
      ++depth;
    } else if (ch == ']' || ch == '}') {
      if (--depth == 0) break;
    }
  }
  return out;
}

constexpr std::size_t kMaxLevels = 8;

// One element of `levels` (docs/arch.md "Memory levels").
// `instances` of a level: "shared" (default), "per_pe", "per_row", "per_col" or a count n whose grid
// gcd(n, rows) x n / gcd(n, rows) fits the PE array (docs/arch.md "Memory levels").
void parse_instances(const json& l, const Reader& rl, const std::string& what, const Arch& a, MemLevel& m) {
  if (!l.contains("instances")) return;
  const json& v = l["instances"];
  if (v.is_string()) {
    const std::string k = v.get<std::string>();
    const std::vector<std::string> kinds = {"shared", "per_pe", "per_row", "per_col"};
    if (k == "per_pe" || k == "per_row") m.grid_rows = a.rows;
    if (k == "per_pe" || k == "per_col") m.grid_cols = a.cols;
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end())
      rl.fail("instances", "expected 'instances' of " + what + " to be \"shared\", \"per_pe\", \"per_row\", " +
                               "\"per_col\" or a count, found " + quote_for_message(k) + did_you_mean(k, kinds));
    return;
  }
  const std::int64_t n = rl.integer(l, "instances", true, 1, 1, checked_mul(a.rows, a.cols, "PEs"));
  const std::int64_t gr = std::gcd(n, a.rows);
  if (a.cols % (n / gr) != 0)
    rl.fail("instances", "expected 'instances' of " + what + " to split the " + std::to_string(a.rows) + "x" +
                             std::to_string(a.cols) + " PE array evenly (rows first), found " + std::to_string(n));
  m.grid_rows = gr;
  m.grid_cols = n / gr;
}

MemLevel parse_level(const json& l, const Reader& rl, std::size_t index, const Arch& a) {
  const std::string what = "levels[" + std::to_string(index) + "]";
  rl.check_keys(l, what,
                {"name", "bytes", "bits_per_cycle", "pj_per_bit", "buffering", "holds", "partition", "instances"});
  MemLevel m;
  if (!l.contains("name") || !l["name"].is_string() || l["name"].get<std::string>().empty())
    rl.fail("name", "expected a non-empty string 'name' for " + what);
  m.name = l["name"].get<std::string>();
  m.bytes = rl.integer(l, "bytes", true, 0, 1, kMaxBufferBytes);
  m.bits_per_cycle = rl.integer(l, "bits_per_cycle", true, 0, 1, kMaxBitsPerCycle);
  m.pj_per_bit = rl.number(l, "pj_per_bit", 0, kMaxEnergyPj);
  m.buffering = rl.buffering(l, " of " + what);
  const std::vector<std::string> classes = {"A", "B", "C"};
  const auto class_of = [&](const std::string& key, const std::string& c) {
    const auto it = std::find(classes.begin(), classes.end(), c);
    if (it == classes.end())
      rl.fail(key, "expected an operand class A, B or C in '" + key + "' of " + what + ", found " +
                       quote_for_message(c) + did_you_mean(c, classes));
    return static_cast<std::size_t>(it - classes.begin());
  };
  if (l.contains("holds")) {
    const json& h = l["holds"];
    if (!h.is_array() || h.empty())
      rl.fail("holds", "expected 'holds' of " + what + " to be a non-empty array of A, B, C");
    m.holds = {false, false, false};
    for (const auto& x : h) {
      if (!x.is_string()) rl.fail("holds", "expected 'holds' of " + what + " to be an array of A, B, C");
      const std::size_t c = class_of("holds", x.get<std::string>());
      if (m.holds[c]) rl.fail("holds", "operand class " + classes[c] + " given twice in 'holds' of " + what);
      m.holds[c] = true;
    }
  }
  if (l.contains("partition")) {
    const json& p = l["partition"];
    const Reader rp = rl.section("partition");
    rp.check_keys(p, what + ".partition", classes);
    std::int64_t sum = 0;
    for (std::size_t c = 0; c < kOperandClasses; ++c) {
      if (!m.holds[c]) {
        if (p.contains(classes[c]))
          rp.fail(classes[c], what + " bypasses " + classes[c] + " (not in 'holds') but gives it a partition");
        continue;
      }
      if (!p.contains(classes[c]))
        rl.fail("partition", "missing '" + classes[c] + "' in the partition of " + what + ": every class it holds " +
                                 "needs a share of its bytes");
      m.partition[c] = rp.integer(p, classes[c], true, 0, 1, kMaxBufferBytes);
      sum += m.partition[c];
    }
    if (sum > m.bytes)
      rl.fail("partition", "the partition of " + what + " gives " + std::to_string(sum) + " bytes, more than its " +
                               std::to_string(m.bytes) + " bytes");
  }
  for (std::size_t c = 0; c < kOperandClasses; ++c)
    if (m.holds[c] && m.usable_bytes(static_cast<OperandClass>(c)) == 0)
      rl.fail(m.partitioned() ? "partition" : "bytes",
              what + " leaves 0 usable bytes for " + classes[c] + " (double buffering halves its capacity)");
  parse_instances(l, rl, what, a, m);
  return m;
}

// `buffer` (the two-level model) or `levels` (the N-level hierarchy, docs/arch.md "Memory levels"): exactly one.
void parse_memory(const json& doc, const Reader& r, Arch& a) {
  const std::string& filename = r.file;
  if (doc.contains("levels")) {
    if (doc.contains("buffer"))
      r.fail("levels", "give either 'buffer' (two levels: buffer and DRAM) or 'levels', not both");
    const json& ls = doc["levels"];
    if (!ls.is_array() || ls.empty() || ls.size() > kMaxLevels)
      r.fail("levels", "expected 'levels' to be an array of 1 .. " + std::to_string(kMaxLevels) + " level objects");
    const std::vector<std::size_t> at = array_object_offsets(r.text, key_offset(r.text, "levels", r.from));
    std::set<std::string> names;
    for (std::size_t i = 0; i < ls.size(); ++i) {
      const Reader rl{r.text, r.file, i < at.size() ? at[i] : r.from};
      if (!ls[i].is_object()) r.fail("levels", "expected an object for levels[" + std::to_string(i) + "]");
      a.levels.push_back(parse_level(ls[i], rl, i, a));
      if (i > 0) {  // each level's stores split those of the level above (a shared level below per-PE ones is not)
        const MemLevel &up = a.levels[i - 1], &me = a.levels.back();
        if (me.grid_rows % up.grid_rows != 0 || me.grid_cols % up.grid_cols != 0)
          rl.fail("instances", "levels[" + std::to_string(i) + "] has " + std::to_string(me.grid_rows) + "x" +
                                   std::to_string(me.grid_cols) + " instances, which do not split the " +
                                   std::to_string(up.grid_rows) + "x" + std::to_string(up.grid_cols) +
                                   " of the level above (an inner level's instances refine the outer's)");
      }
      if (!names.insert(a.levels.back().name).second || a.levels.back().name == "dram")
        rl.fail("name", "level name " + quote_for_message(a.levels.back().name) +
                            (a.levels.back().name == "dram" ? " is reserved for DRAM" : " given twice"));
    }
    for (std::size_t c = 0; c < kOperandClasses; ++c)
      if (std::none_of(a.levels.begin(), a.levels.end(), [&](const MemLevel& m) { return m.holds[c]; }))
        r.fail("levels", std::string("no level holds operand class ") + "ABC"[c] +
                             ": every class must be in some level's 'holds' (the array reads it from there)");
    const MemLevel& inner = a.levels.back();
    a.buffer_bytes = inner.bytes;
    a.buffer_bits_per_cycle = inner.bits_per_cycle;
    a.buffer_buffering = inner.buffering;
    return;
  }
  if (!doc.contains("buffer") || !doc["buffer"].is_object())
    throw InputError(SourceLocation{filename, 0, 0}, "missing required object 'buffer' (or 'levels')");
  const json& buf = doc["buffer"];
  const Reader rb = r.section("buffer");
  rb.check_keys(buf, "buffer", {"bytes", "bits_per_cycle", "buffering"});
  a.buffer_bytes = rb.integer(buf, "bytes", true, 0, 1, kMaxBufferBytes);
  a.buffer_buffering = rb.buffering(buf, "");
  a.buffer_bits_per_cycle = rb.integer(buf, "bits_per_cycle", true, 0, 1, kMaxBitsPerCycle);
}

// The sections of an arch file, read in the order of parse_arch (so the first error met is the same).

// pe_array: rows, cols, buffering of loads and drains; returns the interconnect text (resolved last).
std::string read_pe_array(const Reader& r, const json& doc, const std::string& filename, Arch& a) {
  if (!doc.contains("pe_array") || !doc["pe_array"].is_object())
    throw InputError(SourceLocation{filename, 0, 0}, "missing required object 'pe_array'");
  const json& pe = doc["pe_array"];
  const Reader rp = r.section("pe_array");
  rp.check_keys(pe, "pe_array", {"rows", "cols", "interconnect", "stationary_load", "output_drain"});
  a.rows = rp.integer(pe, "rows", true, 0, 1, kMaxPe);
  a.cols = rp.integer(pe, "cols", true, 0, 1, kMaxPe);
  for (const auto& [key, field] :
       {std::pair{"stationary_load", &a.stationary_load}, std::pair{"output_drain", &a.output_drain}}) {
    const std::string mode = rp.string(pe, key, "double_buffered");
    if (mode != "double_buffered" && mode != "serial")
      rp.fail(key, std::string("expected double_buffered or serial for '") + key + "', found '" + mode + "'");
    *field = mode == "serial" ? Buffering::kSerial : Buffering::kDoubleBuffered;
  }
  return rp.string(pe, "interconnect", "systolic");
}

// macs_per_pe_per_cycle: one rate per precision the arch runs (at least one).
void read_rates(const Reader& r, const json& doc, Arch& a) {
  if (doc.contains("macs_per_pe_per_cycle")) {
    const json& m = doc["macs_per_pe_per_cycle"];
    if (!m.is_object()) r.fail("macs_per_pe_per_cycle", "expected an object of precision -> MACs/PE/cycle");
    const Reader rm = r.section("macs_per_pe_per_cycle");
    rm.check_keys(m, "macs_per_pe_per_cycle", precisions());
    // Every listed precision has a rate > 0: a precision the arch cannot run is left out.
    for (auto it = m.begin(); it != m.end(); ++it)
      a.macs_per_pe_per_cycle[*parse_mac_precision(it.key())] = rm.rate(m, it.key());  // check_keys: a precision
  }
  if (a.macs_per_pe_per_cycle.empty())
    throw InputError(r.where("macs_per_pe_per_cycle"), "'macs_per_pe_per_cycle' must give at least one precision");
}

// buffer or levels (parse_memory), and dram.
void read_memories(const Reader& r, const json& doc, const std::string& filename, Arch& a) {
  parse_memory(doc, r, a);
  if (!doc.contains("dram") || !doc["dram"].is_object())
    throw InputError(SourceLocation{filename, 0, 0}, "missing required object 'dram'");
  const json& dram = doc["dram"];
  const Reader rd = r.section("dram");
  rd.check_keys(dram, "dram", {"mb_per_s", "bytes"});
  a.dram_mb_per_s = rd.integer(dram, "mb_per_s", true, 0, 1, kMaxDramMbPerS);
  a.dram_bytes = rd.integer(dram, "bytes", false, 0, 1, kMaxDramBytes);
}

// dequant (placement, per cycle) and vector_unit, with their defaults (the array's columns).
void read_units(const Reader& r, const json& doc, Arch& a) {
  if (doc.contains("dequant")) {
    const json& d = doc["dequant"];
    const Reader rq = r.section("dequant");
    rq.check_keys(d, "dequant", {"placement", "per_cycle"});
    const std::string placement = rq.string(d, "placement", "edge");
    if (placement != "edge" && placement != "pe")
      rq.fail("placement", "expected 'placement' to be \"edge\" or \"pe\", found " + quote_for_message(placement) +
                               did_you_mean(placement, {"edge", "pe"}));
    a.dequant_placement = placement == "pe" ? DequantPlacement::kPE : DequantPlacement::kEdge;
    a.dequant_per_cycle = rq.integer(d, "per_cycle", false, 0, 0, kMaxUnitPerCycle);
  }
  if (a.dequant_placement == DequantPlacement::kEdge && a.dequant_per_cycle == 0) a.dequant_per_cycle = a.cols;
  if (doc.contains("vector_unit")) {
    const json& v = doc["vector_unit"];
    const Reader rv = r.section("vector_unit");
    rv.check_keys(v, "vector_unit", {"ops_per_cycle"});
    a.vector_ops_per_cycle = rv.integer(v, "ops_per_cycle", false, 0, 1, kMaxUnitPerCycle);
  }
  if (a.vector_ops_per_cycle == 0) a.vector_ops_per_cycle = a.cols;
}

// energy_pj: per MAC per precision, per bit moved, per dequantization and vector op.
void read_energy(const Reader& r, const json& doc, Arch& a) {
  if (doc.contains("energy_pj")) {
    const json& e = doc["energy_pj"];
    const Reader re = r.section("energy_pj");
    re.check_keys(e, "energy_pj", {"mac", "dram_per_bit", "buffer_per_bit", "noc_per_bit", "dequant", "vector_op"});
    if (e.contains("mac")) {
      const json& m = e["mac"];
      if (!m.is_object()) re.fail("mac", "expected an object of precision -> pJ per MAC");
      const Reader rm = re.section("mac");
      rm.check_keys(m, "energy_pj.mac", precisions());
      for (auto it = m.begin(); it != m.end(); ++it)  // check_keys: each key a precision
        a.mac_pj[*parse_mac_precision(it.key())] = rm.number(m, it.key(), 0, kMaxEnergyPj);
    }
    a.dram_pj_per_bit = re.number(e, "dram_per_bit", 0, kMaxEnergyPj);
    a.buffer_pj_per_bit = re.number(e, "buffer_per_bit", 0, kMaxEnergyPj);
    if (!a.levels.empty() && e.contains("buffer_per_bit"))
      re.fail("buffer_per_bit",
              "an arch with 'levels' prices each level by its own 'pj_per_bit'; drop "
              "energy_pj.buffer_per_bit");
    a.noc_pj_per_bit = re.number(e, "noc_per_bit", 0, kMaxEnergyPj);
    a.dequant_pj = re.number(e, "dequant", 0, kMaxEnergyPj);
    a.vector_op_pj = re.number(e, "vector_op", 0, kMaxEnergyPj);
  }
}

// chip_link: the links between chips (tensor / pipeline parallel).
void read_chip_link(const Reader& r, const json& doc, Arch& a) {
  if (doc.contains("chip_link")) {
    const json& l = doc["chip_link"];
    const Reader rl = r.section("chip_link");
    if (!l.is_object()) r.fail("chip_link", "expected an object {gb_per_s, latency_us, pj_per_bit, topology}");
    rl.check_keys(l, "chip_link", {"gb_per_s", "latency_us", "pj_per_bit", "topology"});
    a.chip_link.given = true;
    a.chip_link.gb_per_s = rl.number(l, "gb_per_s", a.chip_link.gb_per_s, kMaxLinkGbPerS);
    if (a.chip_link.gb_per_s <= 0) rl.fail("gb_per_s", "expected 'gb_per_s' above 0, found 0");
    a.chip_link.latency_us = rl.number(l, "latency_us", a.chip_link.latency_us, kMaxLinkLatencyUs);
    a.chip_link.pj_per_bit = rl.number(l, "pj_per_bit", a.chip_link.pj_per_bit, kMaxEnergyPj);
    const std::string topo = rl.string(l, "topology", "ring");
    if (topo != "ring" && topo != "fully_connected")
      rl.fail("topology", "expected 'topology' ring or fully_connected, found " + quote_for_message(topo));
    a.chip_link.topology = topo == "ring" ? ChipTopology::kRing : ChipTopology::kFullyConnected;
  }
}

// The interconnect: a preset, a relation, or a TENET .p file whose second line is the relation (a path relative
// to the arch file).
void resolve_interconnect(const Reader& r, const std::string& filename, std::string interconnect, Arch& a) {
  const Reader rp = r.section("pe_array");
  // a TENET .p file: its second line is the interconnect relation (path relative to the JSON file)
  if (interconnect.size() > 2 && interconnect.substr(interconnect.size() - 2) == ".p") {
    fs::path pf(interconnect);
    if (pf.is_relative()) pf = fs::path(filename).parent_path() / pf;
    std::string body;
    try {
      body = read_file(pf.string(), 1 << 20);
    } catch (const InputError& e) {
      rp.fail("interconnect", e.what());
    }
    std::vector<std::string> lines;
    std::size_t st = 0;
    while (st < body.size()) {
      auto nl = body.find('\n', st);
      if (nl == std::string::npos) nl = body.size();
      std::string line = body.substr(st, nl - st);
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      if (!line.empty()) lines.push_back(line);
      st = nl + 1;
    }
    if (lines.size() < 2 || lines[1].find("->") == std::string::npos)
      throw InputError(SourceLocation{pf.string(), 2, 1}, "expected the interconnect relation on line 2 of the .p file");
    interconnect = lines[1];
  }
  // the interconnect must be a known preset or relation text
  if (interconnect == "systolic") {
    a.interconnect = Interconnect::kSystolic;
  } else if (interconnect == "mesh") {
    a.interconnect = Interconnect::kMesh;
  } else if (interconnect == "none") {
    a.interconnect = Interconnect::kNone;
  } else if (interconnect.find("->") != std::string::npos) {
    a.interconnect = Interconnect::kRelation;
    a.interconnect_relation = interconnect;
  } else {
    rp.fail("interconnect",
            "expected interconnect \"systolic\", \"mesh\", \"none\" or a TENET relation like "
            "\"{PE[i,j]->PE[i-1,j]}\", found " +
                quote_for_message(interconnect) + did_you_mean(interconnect, {"systolic", "mesh", "none"}));
  }
}

}  // namespace

Arch parse_arch(const std::string& text, const std::string& filename) {
  const json doc = parse_json_document(text, filename, JsonLimits{kMaxArchBytes, kMaxArchNesting, "arch config"});
  if (!doc.is_object()) throw InputError(SourceLocation{filename, 1, 1}, "expected a JSON object describing an arch");
  Reader r{text, filename};
  r.check_keys(doc, "arch",
               {"name", "description", "pe_array", "macs_per_pe_per_cycle", "buffer", "levels", "dram", "clock_mhz",
                "dequant", "vector_unit", "energy_pj", "chip_link", "sources"});
  Arch a;
  a.file = filename;
  a.name = r.string(doc, "name", fs::path(filename).stem().string());
  a.description = r.string(doc, "description", "");
  a.clock_mhz = r.integer(doc, "clock_mhz", true, 0, 1, kMaxClockMhz);
  std::string interconnect = read_pe_array(r, doc, filename, a);
  read_rates(r, doc, a);
  read_memories(r, doc, filename, a);
  read_units(r, doc, a);
  read_energy(r, doc, a);
  read_chip_link(r, doc, a);
  if (doc.contains("sources")) {
    const json& s = doc["sources"];
    if (!s.is_array()) r.fail("sources", "expected an array of strings");
    for (const auto& x : s) {
      if (!x.is_string()) r.fail("sources", "expected an array of strings");
      a.sources.push_back(x.get<std::string>());
    }
  }
  resolve_interconnect(r, filename, std::move(interconnect), a);
  return a;
}

std::string to_string(Interconnect i) {
  switch (i) {
    case Interconnect::kSystolic: return "systolic";
    case Interconnect::kMesh: return "mesh";
    case Interconnect::kNone: return "none";
    case Interconnect::kRelation: return "relation";
  }
  return "systolic";
}

std::string to_string(Buffering b) { return b == Buffering::kSerial ? "serial" : "double_buffered"; }

std::string to_string(OperandClass c) { return c == OperandClass::kA ? "A" : c == OperandClass::kB ? "B" : "C"; }

std::string to_string(TileBuffering b) { return b == TileBuffering::kDouble ? "double" : "single"; }

std::string to_string(DequantPlacement p) { return p == DequantPlacement::kPE ? "pe" : "edge"; }

std::string to_string(ChipTopology t) { return t == ChipTopology::kRing ? "ring" : "fully_connected"; }

namespace {

// Each precision's chain: the first the arch lists runs it; a block-scaled precision falls back to a wider
// block-scaled unit (an MX element widens exactly, its e8m0 scale unchanged), then is dequantized to fp16.
std::vector<MacPrecision> fallback_chain(MacPrecision p) {
  using P = MacPrecision;
  switch (p) {
    case P::kInt4: return {P::kInt4, P::kInt8, P::kFp16};
    case P::kInt8: return {P::kInt8, P::kFp16};
    case P::kFp4: return {P::kFp4, P::kFp6, P::kFp8, P::kFp16};
    case P::kFp6: return {P::kFp6, P::kFp8, P::kFp16};
    case P::kFp8: return {P::kFp8, P::kFp16};
    case P::kBf16: return {P::kBf16, P::kFp16, P::kFp32};
    case P::kFp16: return {P::kFp16, P::kBf16, P::kFp32};
    case P::kFp32: return {P::kFp32};
    case P::kMxfp4: return {P::kMxfp4, P::kMxfp6, P::kMxfp8, P::kFp16, P::kBf16, P::kFp32};
    case P::kMxfp6: return {P::kMxfp6, P::kMxfp8, P::kFp16, P::kBf16, P::kFp32};
    case P::kMxfp8: return {P::kMxfp8, P::kFp16, P::kBf16, P::kFp32};
    case P::kMxint8: return {P::kMxint8, P::kFp16, P::kBf16, P::kFp32};
    case P::kNvfp4: break;
  }
  return {P::kNvfp4, P::kFp16, P::kBf16, P::kFp32};
}

}  // namespace

Arch::MacUnit Arch::mac_unit(MacPrecision precision) const {
  for (const MacPrecision p : fallback_chain(precision)) {
    const auto r = macs_per_pe_per_cycle.find(p);
    if (r != macs_per_pe_per_cycle.end() && r->second.num > 0) {
      MacPath path = MacPath::kNative;
      if (is_block_scaled(p)) path = MacPath::kBlockScaled;
      else if (is_block_scaled(precision)) path = MacPath::kDequantized;
      else if (p != precision) path = MacPath::kWidened;
      return MacUnit{r->second, p, path};
    }
  }
  std::vector<std::string> have;  // by name, as the message always listed them
  for (const auto& [p, rate] : macs_per_pe_per_cycle) have.emplace_back(to_string(p));
  std::sort(have.begin(), have.end());
  throw InputError("arch '" + name + "' cannot run " + std::string(to_string(precision)) +
                   " MACs (nor a wider precision); it supports: " + join(have));
}

Arch::Rate Arch::mac_rate(MacPrecision precision, MacPrecision* used) const {
  const MacUnit u = mac_unit(precision);
  if (used) *used = u.precision;
  return u.rate;
}

std::vector<std::string> arch_presets(const std::string& presets_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(presets_dir), ec))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string default_arch() { return "edge-npu-32x32"; }

std::string arch_file(const std::string& name_or_path, const std::string& presets_dir) {
  std::error_code ec;
  const bool is_json = name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json";
  if (name_or_path.find('/') != std::string::npos || is_json) return name_or_path;
  const fs::path p = fs::path(presets_dir) / (name_or_path + ".json");
  if (!fs::exists(p, ec))
    throw InputError("unknown arch '" + name_or_path + "'; presets: " + join(arch_presets(presets_dir)) +
                     " (or a path to a JSON file, docs/arch.md)");
  return p.string();
}

Arch load_arch(const std::string& name_or_path, const std::string& presets_dir) {
  const std::string file = arch_file(name_or_path, presets_dir);
  return parse_arch(read_file(file, 1 << 20), file);
}

}  // namespace tenet_cost::arch
