// The sweep grid: the axis table, spec files, comma lists, shards (docs/sweep.md).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "sweep/internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"

namespace tenet_cost::sweep {

using nlohmann::json;

const std::vector<AxisDef>& axis_defs() {
  static const std::vector<AxisDef> table = {
      {AxisKind::kArch, "arch", "Arch presets or JSON files", "edge-npu-32x32", false, Stage::kEstimator},
      {AxisKind::kSet, "set", "KEY=V1,V2: sweep an arch field (repeatable; the variants multiply)", "", false,
       Stage::kEstimator},
      {AxisKind::kDataflow, "dataflow", "Dataflow presets or .m files", "os", false, Stage::kEstimator},
      {AxisKind::kArrayModel, "array_model", "auto | engine | closed-form", "auto", false, Stage::kEstimator},
      {AxisKind::kObjective, "objective", "What the tile choice minimises: latency | energy | edp | dram", "latency",
       false, Stage::kEstimator},
      {AxisKind::kModel, "model", "Shipped model names (qwen2-0.5b, qwen2-0.5b/q4f16_1), dumps or HF config.json files",
       "llama-2-7b", false, Stage::kPlan},
      {AxisKind::kSeqLen, "seq_len", "Prefill tokens", "2048", true, Stage::kPlan},
      {AxisKind::kContext, "context", "Decode context lengths", "2048", true, Stage::kPlan},
      {AxisKind::kBatch, "batch", "Sequences served together", "1", true, Stage::kPlan},
      {AxisKind::kTp, "tp", "Tensor parallelism over N chips (config models; each point a compare --tp row)", nullptr,
       true, Stage::kPoint},
      {AxisKind::kPp, "pp", "Pipeline stages (config models)", nullptr, true, Stage::kPoint},
      {AxisKind::kEp, "ep", "Expert parallelism (MoE) over the TP group: N, or tp (the point's tp)", nullptr, false,
       Stage::kPoint},
      {AxisKind::kGenLen, "gen_len",
       "Output tokens of a request whose prompt is seq_len (TTFT, TPOT, e2e, energy per request)", nullptr, true,
       Stage::kPoint},
      {AxisKind::kQuant, "quant", "Schemes ('dump' = the dump's own)", "dump", false, Stage::kPoint},
  };
  return table;
}

const AxisDef& axis_def(AxisKind kind) {
  for (const auto& d : axis_defs())
    if (d.kind == kind) return d;
  throw InternalError("sweep: axis without a definition");
}

std::vector<std::string> split_list(const std::string& text, const std::string& what) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  bool quoted = false;
  auto flush = [&] {
    if (item.empty()) throw InputError(what + ": expected a comma-separated list of values, found '" + text + "'");
    out.push_back(item);
    item.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\' && i + 1 < text.size()) item += text[i++];
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      flush();
      continue;
    }
    item += c;
  }
  flush();
  return out;
}

namespace {

SourceLocation key_at(const std::string& text, const std::string& file, const std::string& key) {
  const auto pos = text.find("\"" + key + "\"");
  return pos == std::string::npos ? SourceLocation{file, 0, 0} : location_at(text, pos, file);
}

// A spec value: a string, an integer (kept as its text) or a list of them.
std::vector<std::string> spec_values(const json& v, const std::string& text, const std::string& file,
                                     const std::string& key) {
  std::vector<std::string> out;
  auto one = [&](const json& x) {
    if (x.is_string()) out.push_back(x.get<std::string>());
    else if (x.is_number() || x.is_boolean()) out.push_back(x.dump());
    else
      throw InputError(key_at(text, file, key),
                       "expected a string, a number or a list of them for '" + key + "', found " + x.dump());
  };
  if (v.is_array()) {
    for (const auto& x : v) one(x);
    if (out.empty()) throw InputError(key_at(text, file, key), "expected at least one value for '" + key + "'");
  } else {
    one(v);
  }
  return out;
}

}  // namespace

Grid parse_spec(const std::string& text, const std::string& filename) {
  const json doc = parse_json_document(text, filename, JsonLimits{std::size_t{1} << 20, 8, "sweep spec"});
  if (!doc.is_object()) throw InputError(SourceLocation{filename, 1, 1}, "expected a JSON object (the sweep spec)");
  Grid g;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const AxisDef* def = nullptr;
    for (const auto& d : axis_defs())
      if (it.key() == d.key) def = &d;
    if (!def) {
      std::string valid;
      for (const auto& d : axis_defs()) valid += (valid.empty() ? "" : ", ") + std::string(d.key);
      throw InputError(key_at(text, filename, it.key()), "unknown key '" + it.key() + "'; valid keys: " + valid);
    }
    if (def->kind != AxisKind::kSet) {
      set_axis(g, def->kind, "", spec_values(it.value(), text, filename, it.key()));
      continue;
    }
    if (!it.value().is_object())
      throw InputError(key_at(text, filename, "set"),
                       "expected an object of arch path -> values for 'set', found " + it.value().dump());
    for (auto s = it.value().begin(); s != it.value().end(); ++s) {
      std::vector<std::string> values;
      // a value that is itself an object or a list of objects is one JSON value each
      if (s.value().is_object()) values.push_back(s.value().dump());
      else if (s.value().is_array() && !s.value().empty() && s.value().front().is_object())
        for (const auto& x : s.value()) values.push_back(x.dump());
      else values = spec_values(s.value(), text, filename, s.key());
      set_axis(g, AxisKind::kSet, s.key(), std::move(values));
    }
  }
  return g;
}

void set_axis(Grid& grid, AxisKind kind, const std::string& path, std::vector<std::string> values) {
  for (auto& a : grid.axes)
    if (a.kind == kind && a.path == path) {
      a.values = std::move(values);
      return;
    }
  grid.axes.push_back(Axis{kind, path, std::move(values)});
}

Grid normalized(Grid grid) {
  for (const auto& d : axis_defs()) {
    if (d.kind == AxisKind::kSet || d.default_value == nullptr) continue;
    const bool have = std::any_of(grid.axes.begin(), grid.axes.end(), [&](const Axis& a) { return a.kind == d.kind; });
    if (!have) grid.axes.push_back(Axis{d.kind, "", {d.default_value}});
  }
  auto rank = [](AxisKind k) {
    const auto& defs = axis_defs();
    return std::find_if(defs.begin(), defs.end(), [&](const AxisDef& d) { return d.kind == k; }) - defs.begin();
  };
  std::stable_sort(grid.axes.begin(), grid.axes.end(), [&](const Axis& a, const Axis& b) {
    return rank(a.kind) != rank(b.kind) ? rank(a.kind) < rank(b.kind) : a.path < b.path;
  });
  for (const auto& a : grid.axes) {
    const AxisDef& d = axis_def(a.kind);
    const std::string name = a.kind == AxisKind::kSet ? "--set " + a.path : std::string(d.key);
    if (a.values.empty()) throw InputError(name + ": expected at least one value");
    std::set<std::string> seen;
    for (const auto& v : a.values) {
      if (!seen.insert(v).second) throw InputError(name + ": the value '" + v + "' is given twice");
      if (d.integer) positive_integer(v, name);
      if (a.kind == AxisKind::kEp && v != "tp") positive_integer(v, name + " (or tp)");
    }
  }
  return grid;
}

std::int64_t positive_integer(const std::string& text, const std::string& what) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v <= 0)
    throw InputError(what + ": expected a positive integer, found '" + text + "'");
  return v;
}

std::int64_t point_count(const Grid& grid) {
  std::int64_t n = 1;
  for (const auto& a : grid.axes) n = checked_mul(n, static_cast<std::int64_t>(a.values.size()), "sweep points");
  return n;
}

// ------------------------------------------------------------- shards

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const std::string what = "--shard " + text;
  if (slash == std::string::npos) throw InputError(what + ": expected I/N such as 0/4 (0 <= I < N)");
  Shard s;
  s.count = positive_integer(text.substr(slash + 1), what);
  const std::string i = text.substr(0, slash);
  s.index = i == "0" ? 0 : positive_integer(i, what);
  if (s.index >= s.count) throw InputError(what + ": expected I/N with 0 <= I < N");
  return s;
}

std::optional<Shard> shard_from_env(const std::function<const char*(const char*)>& getenv,
                                    std::optional<std::int64_t> count, std::string* source) {
  auto get = [&](const char* name) -> std::optional<std::int64_t> {
    const char* v = getenv(name);
    if (!v || !*v) return std::nullopt;
    const std::string s = v;
    return s == "0" ? 0 : positive_integer(s, name);
  };
  Shard s;
  if (const auto id = get("SLURM_ARRAY_TASK_ID")) {
    const auto n = count ? count : get("SLURM_ARRAY_TASK_COUNT");
    if (!n) throw InputError("SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT; give --shard I/N");
    s = Shard{checked_sub(*id, get("SLURM_ARRAY_TASK_MIN").value_or(0), "shard index"), *n};
    if (source) *source = "SLURM_ARRAY_TASK_ID";
  } else if (const auto k = get("JOB_COMPLETION_INDEX")) {
    if (!count) throw InputError("JOB_COMPLETION_INDEX is set: give the number of completions with --shards N");
    s = Shard{*k, *count};
    if (source) *source = "JOB_COMPLETION_INDEX";
  } else {
    return std::nullopt;
  }
  if (s.index < 0 || s.index >= s.count)
    throw InputError("shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                     " from the environment: expected 0 <= index < count");
  return s;
}

bool in_shard(const std::string& id, const Shard& shard) {
  // the id is 16 hex digits of a 64-bit hash: its value mod N
  std::uint64_t v = 0;
  std::from_chars(id.data(), id.data() + id.size(), v, 16);
  return v % static_cast<std::uint64_t>(shard.count) == static_cast<std::uint64_t>(shard.index);
}

}  // namespace tenet_cost::sweep
