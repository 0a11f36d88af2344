// Arch JSON reader and presets (docs/arch.md).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::arch {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string>& precisions() {
  static const std::vector<std::string> p = {"fp32", "fp16", "bf16", "fp8", "int8", "int4"};
  return p;
}

namespace {

// Limits for hostile arch files (docs/arch.md): presets are ~2 KB and 3 levels deep.
constexpr std::size_t kMaxArchBytes = std::size_t{1} << 20;
constexpr int kMaxArchNesting = 16;

// Location of `"key"` followed by ':' (the first occurrence after `from`).
SourceLocation key_location(const std::string& text, const std::string& file, const std::string& key,
                            std::size_t from = 0) {
  const std::string quoted = "\"" + key + "\"";
  std::size_t pos = from;
  while ((pos = text.find(quoted, pos)) != std::string::npos) {
    std::size_t after = pos + quoted.size();
    while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
    if (after < text.size() && text[after] == ':') return location_at(text, pos, file);
    pos = after;
  }
  return SourceLocation{file, 0, 0};
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

struct Reader {
  const std::string& text;
  const std::string& file;

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(key_location(text, file, key), msg);
  }
  void check_keys(const json& obj, const std::string& what, const std::vector<std::string>& valid) const {
    if (!obj.is_object()) {
      const auto dot = what.rfind('.');
      fail(dot == std::string::npos ? what : what.substr(dot + 1),
           "expected an object for '" + what + "', found " + std::string(obj.type_name()));
    }
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (std::find(valid.begin(), valid.end(), it.key()) == valid.end())
        fail(it.key(), "unknown key '" + it.key() + "' in " + what + "; valid keys: " + join(valid));
  }
  std::int64_t integer(const json& obj, const std::string& key, bool required, std::int64_t def, std::int64_t min) const {
    if (!obj.contains(key)) {
      if (required) throw InputError(SourceLocation{file, 0, 0}, "missing required key '" + key + "'");
      return def;
    }
    const json& v = obj.at(key);
    if (!v.is_number_integer()) fail(key, "expected an integer for '" + key + "', found " + v.dump());
    const std::int64_t x = v.get<std::int64_t>();
    if (x < min) fail(key, "expected '" + key + "' >= " + std::to_string(min) + ", found " + std::to_string(x));
    return x;
  }
  double number(const json& obj, const std::string& key, double def) const {
    if (!obj.contains(key)) return def;
    const json& v = obj.at(key);
    if (!v.is_number()) fail(key, "expected a number for '" + key + "', found " + v.dump());
    const double x = v.get<double>();
    if (x < 0) fail(key, "expected '" + key + "' >= 0");
    return x;
  }
  std::string string(const json& obj, const std::string& key, const std::string& def) const {
    if (!obj.contains(key)) return def;
    const json& v = obj.at(key);
    if (!v.is_string()) fail(key, "expected a string for '" + key + "', found " + v.dump());
    return v.get<std::string>();
  }
};

}  // namespace

Arch parse_arch(const std::string& text, const std::string& filename) {
  const json doc = parse_json_document(text, filename, JsonLimits{kMaxArchBytes, kMaxArchNesting, "arch config"});
  if (!doc.is_object()) throw InputError(SourceLocation{filename, 1, 1}, "expected a JSON object describing an arch");
  Reader r{text, filename};
  r.check_keys(doc, "arch", {"name", "description", "pe_array", "macs_per_pe_per_cycle", "buffer", "dram",
                             "clock_mhz", "dequant", "vector_unit", "energy_pj", "sources"});
  Arch a;
  a.file = filename;
  a.name = r.string(doc, "name", fs::path(filename).stem().string());
  a.description = r.string(doc, "description", "");
  a.clock_mhz = r.integer(doc, "clock_mhz", true, 0, 1);
  if (!doc.contains("pe_array") || !doc["pe_array"].is_object())
    throw InputError(SourceLocation{filename, 0, 0}, "missing required object 'pe_array'");
  const json& pe = doc["pe_array"];
  r.check_keys(pe, "pe_array", {"rows", "cols", "interconnect"});
  a.rows = r.integer(pe, "rows", true, 0, 1);
  a.cols = r.integer(pe, "cols", true, 0, 1);
  if (a.rows > 4096 || a.cols > 4096) r.fail("rows", "PE array larger than 4096 x 4096 is not supported");
  std::string interconnect = r.string(pe, "interconnect", "systolic");
  if (doc.contains("macs_per_pe_per_cycle")) {
    const json& m = doc["macs_per_pe_per_cycle"];
    if (!m.is_object()) r.fail("macs_per_pe_per_cycle", "expected an object of precision -> MACs/PE/cycle");
    r.check_keys(m, "macs_per_pe_per_cycle", precisions());
    for (auto it = m.begin(); it != m.end(); ++it) {
      const double v = r.number(m, it.key(), 0);
      Arch::Rate rate;
      if (it.value().is_number_integer()) {
        rate = {it.value().get<std::int64_t>(), 1};
      } else {
        rate = {static_cast<std::int64_t>(std::llround(v * 64)), 64};
        if (std::fabs(static_cast<double>(rate.num) / 64.0 - v) > 1e-12 || v > 1e6)
          r.fail(it.key(), "expected an integer or a fraction with denominator <= 64 for '" + it.key() + "'");
        const std::int64_t g = std::gcd(rate.num, rate.den);
        if (g > 0) rate = {rate.num / g, rate.den / g};
      }
      if (rate.num > 0) a.macs_per_pe_per_cycle[it.key()] = rate;
    }
  }
  if (a.macs_per_pe_per_cycle.empty())
    throw InputError(SourceLocation{filename, 0, 0}, "'macs_per_pe_per_cycle' must give at least one precision with a rate > 0");
  if (!doc.contains("buffer") || !doc["buffer"].is_object())
    throw InputError(SourceLocation{filename, 0, 0}, "missing required object 'buffer'");
  const json& buf = doc["buffer"];
  r.check_keys(buf, "buffer", {"bytes", "bits_per_cycle"});
  a.buffer_bytes = r.integer(buf, "bytes", true, 0, 1);
  a.buffer_bits_per_cycle = r.integer(buf, "bits_per_cycle", true, 0, 1);
  if (!doc.contains("dram") || !doc["dram"].is_object())
    throw InputError(SourceLocation{filename, 0, 0}, "missing required object 'dram'");
  const json& dram = doc["dram"];
  r.check_keys(dram, "dram", {"mb_per_s"});
  a.dram_mb_per_s = r.integer(dram, "mb_per_s", true, 0, 1);
  if (doc.contains("dequant")) {
    const json& d = doc["dequant"];
    r.check_keys(d, "dequant", {"placement", "per_cycle"});
    const std::string placement = r.string(d, "placement", "edge");
    if (placement != "edge" && placement != "pe")
      r.fail("placement", "expected 'placement' to be \"edge\" or \"pe\", found \"" + placement + "\"");
    a.dequant_placement = placement == "pe" ? DequantPlacement::kPE : DequantPlacement::kEdge;
    a.dequant_per_cycle = r.integer(d, "per_cycle", false, 0, 0);
  }
  if (a.dequant_placement == DequantPlacement::kEdge && a.dequant_per_cycle == 0) a.dequant_per_cycle = a.cols;
  if (doc.contains("vector_unit")) {
    const json& v = doc["vector_unit"];
    r.check_keys(v, "vector_unit", {"ops_per_cycle"});
    a.vector_ops_per_cycle = r.integer(v, "ops_per_cycle", false, 0, 1);
  }
  if (a.vector_ops_per_cycle == 0) a.vector_ops_per_cycle = a.cols;
  if (doc.contains("energy_pj")) {
    const json& e = doc["energy_pj"];
    r.check_keys(e, "energy_pj", {"mac", "dram_per_bit", "buffer_per_bit", "noc_per_bit", "dequant", "vector_op"});
    if (e.contains("mac")) {
      const json& m = e["mac"];
      if (!m.is_object()) r.fail("mac", "expected an object of precision -> pJ per MAC");
      r.check_keys(m, "energy_pj.mac", precisions());
      for (auto it = m.begin(); it != m.end(); ++it) a.mac_pj[it.key()] = r.number(m, it.key(), 0);
    }
    a.dram_pj_per_bit = r.number(e, "dram_per_bit", 0);
    a.buffer_pj_per_bit = r.number(e, "buffer_per_bit", 0);
    a.noc_pj_per_bit = r.number(e, "noc_per_bit", 0);
    a.dequant_pj = r.number(e, "dequant", 0);
    a.vector_op_pj = r.number(e, "vector_op", 0);
  }
  if (doc.contains("sources")) {
    const json& s = doc["sources"];
    if (!s.is_array()) r.fail("sources", "expected an array of strings");
    for (const auto& x : s) {
      if (!x.is_string()) r.fail("sources", "expected an array of strings");
      a.sources.push_back(x.get<std::string>());
    }
  }
  // a TENET .p file: its second line is the interconnect relation (path relative to the JSON file)
  if (interconnect.size() > 2 && interconnect.substr(interconnect.size() - 2) == ".p") {
    fs::path pf(interconnect);
    if (pf.is_relative()) pf = fs::path(filename).parent_path() / pf;
    std::string body;
    try {
      body = read_file(pf.string(), 1 << 20);
    } catch (const InputError& e) {
      r.fail("interconnect", e.what());
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
    r.fail("interconnect", "expected interconnect \"systolic\", \"mesh\", \"none\" or a TENET relation like "
                           "\"{PE[i,j]->PE[i-1,j]}\", found \"" + interconnect + "\"");
  }
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

std::string to_string(DequantPlacement p) { return p == DequantPlacement::kPE ? "pe" : "edge"; }

Arch::Rate Arch::mac_rate(const std::string& precision, std::string* used) const {
  static const std::map<std::string, std::vector<std::string>> fallback = {
      {"int4", {"int4", "int8", "fp16"}}, {"int8", {"int8", "fp16"}}, {"fp8", {"fp8", "fp16"}},
      {"bf16", {"bf16", "fp16", "fp32"}}, {"fp16", {"fp16", "bf16", "fp32"}}, {"fp32", {"fp32"}}};
  const auto it = fallback.find(precision);
  if (it == fallback.end()) throw InputError("unknown MAC precision '" + precision + "'");
  for (const auto& p : it->second) {
    const auto r = macs_per_pe_per_cycle.find(p);
    if (r != macs_per_pe_per_cycle.end() && r->second.num > 0) {
      if (used) *used = p;
      return r->second;
    }
  }
  std::vector<std::string> have;
  for (const auto& [p, rate] : macs_per_pe_per_cycle) have.push_back(p);
  throw InputError("arch '" + name + "' cannot run " + precision + " MACs (nor a wider precision); it supports: " +
                   join(have));
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
