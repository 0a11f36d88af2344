// Replaying a saved search result (search.hpp read_replay, docs/search.md "Replaying a search").
#include <map>
#include <string_view>

#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::search {

namespace {

using nlohmann::json;
using Step = JsonStep;

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

  SourceLocation at(const std::vector<Step>& path) const { return JsonLocator(text, file).at(path); }
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
