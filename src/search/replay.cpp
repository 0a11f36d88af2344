// Replaying a saved search result (search.hpp read_replay, docs/search.md "Replaying a search").
#include <map>
#include <string_view>
#include <variant>

#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::search {

namespace {

using nlohmann::json;
using Step = std::variant<std::string, std::size_t>;  // an object key or an array index

// The byte offset of the value at a path of a JSON text that parsed (npos when the path is not there): a skipping
// scan, so that an error names the line and column of the value it is about.
class Locator {
 public:
  explicit Locator(const std::string& text) : t_(text) {}

  std::size_t find(const std::vector<Step>& path) const { return find_at(ws(0), path, 0); }

 private:
  const std::string& t_;

  std::size_t ws(std::size_t i) const {
    while (i < t_.size() && (t_[i] == ' ' || t_[i] == '\n' || t_[i] == '\r' || t_[i] == '\t')) ++i;
    return i;
  }
  // i at the opening quote: the index after the closing one
  std::size_t string_end(std::size_t i) const {
    for (++i; i < t_.size(); ++i) {
      if (t_[i] == '\\') ++i;
      else if (t_[i] == '"') return i + 1;
    }
    return t_.size();
  }
  std::size_t skip(std::size_t i) const {
    if (i >= t_.size()) return i;
    if (t_[i] == '"') return string_end(i);
    if (t_[i] == '{' || t_[i] == '[') {
      int depth = 0;
      for (; i < t_.size(); ++i) {
        const char c = t_[i];
        if (c == '"') {
          i = string_end(i) - 1;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if (c == '}' || c == ']') {
          if (--depth == 0) return i + 1;
        }
      }
      return i;
    }
    while (i < t_.size() && t_[i] != ',' && t_[i] != '}' && t_[i] != ']' && t_[i] != ' ' && t_[i] != '\n') ++i;
    return i;
  }
  std::size_t find_at(std::size_t i, const std::vector<Step>& path, std::size_t k) const {
    if (k == path.size()) return i;
    if (i >= t_.size()) return std::string::npos;
    if (t_[i] == '{' && std::holds_alternative<std::string>(path[k])) {
      const std::string& want = std::get<std::string>(path[k]);
      i = ws(i + 1);
      while (i < t_.size() && t_[i] == '"') {
        const std::size_t end = string_end(i);
        const std::string_view key = std::string_view(t_).substr(i + 1, end - i - 2);
        i = ws(end);
        if (i >= t_.size() || t_[i] != ':') return std::string::npos;
        i = ws(i + 1);
        if (key == want) return find_at(i, path, k + 1);
        i = ws(skip(i));
        if (i < t_.size() && t_[i] == ',') i = ws(i + 1);
      }
      return std::string::npos;
    }
    if (t_[i] == '[' && std::holds_alternative<std::size_t>(path[k])) {
      const std::size_t want = std::get<std::size_t>(path[k]);
      i = ws(i + 1);
      for (std::size_t n = 0; i < t_.size() && t_[i] != ']'; ++n) {
        if (n == want) return find_at(i, path, k + 1);
        i = ws(skip(i));
        if (i < t_.size() && t_[i] == ',') i = ws(i + 1);
      }
    }
    return std::string::npos;
  }
};

std::string type_name(json::value_t t) {
  switch (t) {
    case json::value_t::string: return "a string";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    default: return "an integer";
  }
}

struct Reader {
  std::string file, text;
  json doc;
  Locator loc{text};

  SourceLocation at(const std::vector<Step>& path) const {
    const std::size_t off = loc.find(path);
    return off == std::string::npos ? SourceLocation{file, 0, 0} : location_at(text, off, file);
  }
  const json& get(const json& parent, const std::vector<Step>& path, const std::string& key, json::value_t type) const {
    if (!parent.is_object() || !parent.contains(key))
      throw InputError(at(path), "expected key '" + key + "' (a saved `search --format json` result), found " +
                                     (parent.is_object() ? "none" : parent.dump().substr(0, 40)));
    auto p = path;
    const json& v = parent.at(key);
    const bool ok = type == json::value_t::number_integer ? v.is_number_integer() : v.type() == type;
    p.emplace_back(key);
    if (!ok)
      throw InputError(at(p), "expected " + type_name(type) + " for '" + key + "', found " + v.dump().substr(0, 60));
    return v;
  }
};

mapping::Dataflow parse_dataflow_at(const Reader& r, const std::vector<Step>& path, const std::string& name) {
  try {
    return mapping::parse_dataflow(name);
  } catch (const InputError& e) {
    throw InputError(r.at(path), e.detail());
  }
}

std::string shape_text(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
         (batch != 1 ? " (batch " + std::to_string(batch) + ")" : "");
}

}  // namespace

Replay read_replay(const std::string& path, const model::Model& model, const std::string& arch_name,
                   const std::string& quant) {
  Reader r;
  r.file = path;
  r.text = read_file(path, std::size_t{64} << 20);
  r.doc = parse_json_document(r.text, path, JsonLimits{std::size_t{64} << 20, 64, "plan"});
  using T = json::value_t;
  if (!r.doc.is_object())
    throw InputError(r.at({}),
                     "expected a saved `search --format json` result (an object), found " + r.doc.dump().substr(0, 40));
  const json& arch = r.get(r.doc, {}, "arch", T::string);
  if (arch.get<std::string>() != arch_name)
    throw InputError(r.at({"arch"}), "expected arch " + arch_name + " (the --arch of this run), found " +
                                         arch.get<std::string>() + " (pass --arch " + arch.get<std::string>() + ")");
  const json& rows = r.get(r.doc, {}, "rows", T::array);
  std::size_t pick = rows.size();
  std::string names;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& name = r.get(rows[i], {"rows", i}, "scheme", T::string);
    names += (names.empty() ? "" : ", ") + name.get<std::string>();
    if (!quant.empty() && name.get<std::string>() == quant) pick = i;
  }
  if (quant.empty() && rows.size() == 1) pick = 0;
  if (pick == rows.size())
    throw InputError(r.at({"rows"}),
                     "expected " +
                         (quant.empty() ? std::string("one scheme (or choose one with --quant)") : "scheme " + quant) +
                         ", found the plan's schemes " + (names.empty() ? "none" : names));
  const json& row = rows[pick];
  const std::vector<Step> rp = {"rows", pick};
  Replay out;
  out.scheme_name = row.at("scheme").get<std::string>();
  if (!model::is_dump_scheme_label(out.scheme_name)) {
    try {
      out.scheme = quant::parse_scheme(out.scheme_name);
    } catch (const InputError& e) {
      throw InputError(r.at({"rows", pick, "scheme"}), e.detail());
    }
  }
  std::vector<Step> bp = rp;
  bp.emplace_back("best");
  const json& best = r.get(row, rp, "best", T::object);
  const std::string df = r.get(best, bp, "dataflow", T::string).get<std::string>();
  auto sub = [&](const std::string& key) {
    auto p = bp;
    p.emplace_back(key);
    return p;
  };
  const bool per_gemm = df == "per-gemm";  // each GEMM names its own dataflow (search --per-gemm)
  if (!per_gemm) out.dataflow = parse_dataflow_at(r, sub("dataflow"), df);
  out.rows = r.get(best, bp, "rows", T::number_integer).get<std::int64_t>();
  out.cols = r.get(best, bp, "cols", T::number_integer).get<std::int64_t>();
  if (out.rows < 1 || out.cols < 1)
    throw InputError(
        r.at(sub(out.rows < 1 ? "rows" : "cols")),
        "expected a positive PE array, found " + std::to_string(out.rows) + "x" + std::to_string(out.cols));
  const json& gemms = r.get(best, bp, "gemms", T::array);
  if (gemms.size() != model.gemms.size())
    throw InputError(r.at(sub("gemms")), "expected " + std::to_string(model.gemms.size()) +
                                             " GEMMs (the model's), found " + std::to_string(gemms.size()));
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    std::vector<Step> gp = sub("gemms");
    gp.emplace_back(i);
    const json& g = gemms[i];
    const model::ModelGemm& mg = model.gemms[i];
    const std::string fn = r.get(g, gp, "function", T::string).get<std::string>();
    const std::string entry = r.get(g, gp, "entry", T::string).get<std::string>();
    const std::int64_t b = r.get(g, gp, "batch", T::number_integer).get<std::int64_t>(),
                       m = r.get(g, gp, "m", T::number_integer).get<std::int64_t>(),
                       n = r.get(g, gp, "n", T::number_integer).get<std::int64_t>(),
                       k = r.get(g, gp, "k", T::number_integer).get<std::int64_t>();
    const auto& s = mg.shape;
    if (fn != mg.function || entry != mg.entry || b != s.batch || m != s.m || n != s.n || k != s.k)
      throw InputError(r.at(gp), "expected GEMM " + std::to_string(i + 1) + " to be " + mg.function + " in " +
                                     mg.entry + " " + shape_text(s.m, s.n, s.k, s.batch) + " (the model's), found " +
                                     fn + " in " + entry + " " + shape_text(m, n, k, b));
    if (per_gemm) {
      auto dp = gp;
      dp.emplace_back("dataflow");
      out.gemm_dataflows.push_back(parse_dataflow_at(r, dp, r.get(g, gp, "dataflow", T::string).get<std::string>()));
    }
    auto tp = gp;
    tp.emplace_back("tile");
    cost::Tile tile;
    try {
      tile = cost::parse_tile(r.get(g, gp, "tile", T::string).get<std::string>());
    } catch (const InputError& e) {
      throw InputError(r.at(tp), e.detail());
    }
    if (tile.m <= 0 || tile.n <= 0 || tile.k <= 0 || tile.order.empty())
      throw InputError(r.at(tp),
                       "expected a full tile m=..,n=..,k=..,order=.., found " + g.at("tile").get<std::string>());
    for (const auto& rule : out.rules)  // the tile rules target by function and shape: one tile per target
      if (rule.function == mg.function && rule.m == s.m && rule.n == s.n && rule.k == s.k && !(rule.tile == tile))
        throw InputError(r.at(tp), "expected the tile " + cost::to_string(rule.tile) + " of the earlier " +
                                       mg.function + " " + shape_text(s.m, s.n, s.k, 1) +
                                       " (a replay targets tiles by function and shape), found " +
                                       cost::to_string(tile));
    out.rules.push_back(cost::TileRule{mg.function, s.m, s.n, s.k, tile});
  }
  return out;
}

model::EstimateResult replay(const Replay& plan, arch::Arch arch, cost::Options o, const model::Model& model,
                             const model::Phases& phases) {
  arch.rows = plan.rows;
  arch.cols = plan.cols;
  o.rules = plan.rules;
  if (plan.gemm_dataflows.empty()) {
    cost::Estimator est(std::move(arch), plan.dataflow, o);
    return model::estimate(est, model, phases, plan.scheme);
  }
  if (plan.gemm_dataflows.size() != model.gemms.size())
    throw InternalError("replay: one dataflow per GEMM of the model (read_replay checks it)");
  // one estimator per distinct dataflow; GEMM i runs on its dataflow's
  std::map<std::string, cost::Estimator> ests;
  std::map<std::string, std::int64_t> count;
  for (const auto& d : plan.gemm_dataflows) {
    ests.try_emplace(d.name, arch, d, o);
    ++count[d.name];
  }
  auto est_for = [&](std::size_t i) -> cost::Estimator& { return ests.at(plan.gemm_dataflows.at(i).name); };
  model::EstimateResult out;
  out.info = model::run_info(model, est_for(0), phases);
  out.info.dataflow = "per-gemm";
  std::string split;
  for (const auto& [name, n] : count) split += (split.empty() ? "" : ", ") + name + " x" + std::to_string(n);
  out.info.notes.push_back("each GEMM at its own dataflow from the plan (a search --per-gemm result): " + split +
                           " GEMMs");
  out.scheme = plan.scheme;
  out.result = model::run_model(est_for, arch, model, plan.scheme);
  return out;
}

}  // namespace tenet_cost::search
