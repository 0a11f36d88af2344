// The mapping search (search.hpp, docs/search.md).
#include "tenet_cost/search.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>

#include "common/parallel.hpp"
#include "search/internal.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::search {

std::vector<mapping::Dataflow> parse_dataflows(const std::string& text) {
  std::vector<mapping::Dataflow> out;
  if (text == "presets") {
    for (const auto& name : mapping::dataflow_presets()) out.push_back(mapping::parse_dataflow(name));
    return out;
  }
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(mapping::parse_dataflow(item));
  if (out.empty())
    throw InputError("--dataflows needs presets or a comma-separated list of " + mapping::dataflow_choices());
  return out;
}

DataflowSet parse_dataflow_set(const std::string& text) {
  if (text == "generated") return DataflowSet{{}, true};
  if (text == "all") return DataflowSet{parse_dataflows("presets"), true};
  return DataflowSet{parse_dataflows(text), false};
}

std::optional<mapping::Generated> preset_twin(mapping::Preset p) {
  switch (p) {
    case mapping::Preset::kOS: return mapping::parse_generated("gen:ij-k-r-11");
    case mapping::Preset::kWS: return mapping::parse_generated("gen:kj-i-c-11");
    case mapping::Preset::kIS: return mapping::parse_generated("gen:ki-j-c-11");
    case mapping::Preset::kNCF: break;
  }
  return std::nullopt;
}

std::vector<mapping::Dataflow> dataflows_for(const DataflowSet& set, const arch::Arch& arch, const model::Model& model,
                                             const std::optional<quant::Scheme>& scheme) {
  std::vector<mapping::Dataflow> out = set.listed;
  if (!set.generated) return out;
  // the operand sets of the model's GEMMs under this scheme (as run_model costs them)
  std::vector<std::vector<quant::Operand>> op_sets;
  for (const auto& g : model.gemms) {
    const quant::Scheme& s = model::scheme_of(g, scheme);
    op_sets.push_back(quant::array_operands(quant::operands(s, model::cost_role(g, s), mapping::dequant_site(arch))));
  }
  std::vector<mapping::Generated> taken;
  for (const auto& d : set.listed) {
    if (d.generated) taken.push_back(*d.generated);
    if (d.preset)
      if (const auto twin = preset_twin(*d.preset)) taken.push_back(*twin);
  }
  const auto candidates = mapping::generate_dataflows(arch.interconnect, {});  // unimodular; operands below
  for (const auto& d : candidates) {
    if (std::find(taken.begin(), taken.end(), *d.generated) != taken.end()) continue;
    bool legal = true;
    for (const auto& ops : op_sets) legal = legal && mapping::is_legal(*d.generated, arch.interconnect, ops);
    if (legal) out.push_back(d);
  }
  return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> array_shapes(std::int64_t budget) {
  if (budget <= 0) throw InputError("--pe-budget must be a positive number of PEs, found " + std::to_string(budget));
  // every shape an arch may have: both sides at most arch::kMaxPeSide (what --set pe_array.rows would accept)
  constexpr std::int64_t kMaxBudget = arch::kMaxPeSide * arch::kMaxPeSide;
  const std::string side = std::to_string(arch::kMaxPeSide);
  if (budget > kMaxBudget)
    throw InputError("--pe-budget " + std::to_string(budget) + ": expected 1 .. " + std::to_string(kMaxBudget) +
                     " (a " + side + " x " + side + " array: the arch limit of pe_array.rows and pe_array.cols)");
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t r = 1; r <= budget / r; ++r)
    if (budget % r == 0 && budget / r <= arch::kMaxPeSide) out.emplace_back(r, budget / r);
  if (out.empty())
    throw InputError("--pe-budget " + std::to_string(budget) +
                     ": no R x C array with R * C = " + std::to_string(budget) + " has both sides at most " + side +
                     " (the arch limit of pe_array.rows and pe_array.cols)");
  const std::size_t n = out.size();
  for (std::size_t i = n; i-- > 0;)  // the mirrored shapes (R > C), R ascending
    if (out[i].first != out[i].second) out.emplace_back(out[i].second, out[i].first);
  return out;
}

std::shared_ptr<cost::GemmMemo> MemoPool::at(std::int64_t rows, std::int64_t cols, const std::string& dataflow) {
  const std::lock_guard<std::mutex> lock(mu_);
  auto& m = memos_[{rows, cols, dataflow}];
  if (!m) m = cost::make_gemm_memo();
  return m;
}

// Objective value of a configuration's totals; ties: energy, then DRAM bytes (then the enumeration order).
bool better(const Totals& a, const Totals& b, cost::Objective o) {
  auto value = [o](const Totals& t) {
    switch (o) {
      case cost::Objective::kLatency: return t.latency_s;
      case cost::Objective::kEnergy: return t.energy_j;
      case cost::Objective::kEdp: return t.latency_s * t.energy_j;
      case cost::Objective::kDram: return static_cast<double>(t.dram_bytes);
    }
    return t.latency_s;
  };
  const double va = value(a), vb = value(b);
  if (va != vb) return va < vb;
  if (a.energy_j != b.energy_j) return a.energy_j < b.energy_j;
  return a.dram_bytes < b.dram_bytes;
}

namespace detail {

std::string mapping_of(const Config& c) {
  return c.dataflow + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols);
}

std::string candidate_names(const Options& o) {
  std::string names;
  for (const auto& df : o.dataflows) names += (names.empty() ? "" : ",") + df.name;
  if (o.generated) names += std::string(names.empty() ? "" : ",") + "generated";
  return names;
}

void add_notes(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const auto& n : from)
    if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(n);
}

}  // namespace detail

namespace {

// Totals from per-entry sums exactly as compare adds them (model::compare_row), and over every entry.
Totals totals_of(const model::ModelResult& r) {
  Totals t;
  const model::CompareRow row = model::compare_row("", r);
  t.prefill = row.prefill;
  t.decode = row.decode;
  t.other = row.other;
  for (const auto& [entry, e] : r.totals) {
    t.latency_s += e.latency_s;
    t.energy_j += e.energy_j;
    t.dram_bytes = checked_add(t.dram_bytes, e.dram_bytes, "DRAM bytes");
  }
  return t;
}

GemmChoice choice_of(const model::ModelGemm& g, const cost::GemmCost& c, const std::string& dataflow) {
  GemmChoice x;
  x.function = g.function;
  x.entry = g.entry;
  x.phase = g.phase;
  x.calls = g.calls;
  x.shape = g.shape;
  x.dataflow = dataflow;
  x.tile = c.tile;
  x.bound = c.bound;
  x.latency_s = c.latency_s;
  x.energy_j = c.energy_j;
  x.dram_bytes = c.dram_bytes;
  return x;
}

}  // namespace

SearchResult run(const arch::Arch& arch, const model::Model& model, const model::Phases& phases,
                 const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                 const std::function<void(std::size_t, std::size_t)>& progress) {
  const auto arrays =
      o.arrays.empty() ? std::vector<std::pair<std::int64_t, std::int64_t>>{{arch.rows, arch.cols}} : o.arrays;
  const std::size_t na = arrays.size(), ns = schemes.size();
  // each scheme's dataflows (the generated ones legal for its operands); one evaluation per (scheme, array, dataflow)
  std::vector<std::vector<mapping::Dataflow>> dfs(ns);
  std::vector<std::size_t> first(ns + 1, 0);  // index of the scheme's first evaluation
  for (std::size_t s = 0; s < ns; ++s) {
    dfs[s] = dataflows_for(DataflowSet{o.dataflows, o.generated}, arch, model, schemes[s]);
    if (dfs[s].empty())
      throw InputError("no dataflow to search for scheme " + model::scheme_label(model, schemes[s]) + " on " +
                       arch.name +
                       (o.generated ? " (no generated mapping is legal on a " + arch::to_string(arch.interconnect) +
                                          " interconnect for its operands; name presets)"
                                    : ""));
    first[s + 1] = first[s] + na * dfs[s].size();
  }
  const std::size_t total = first[ns];
  auto slot = [&](std::size_t s, std::size_t a, std::size_t d) { return first[s] + a * dfs[s].size() + d; };
  // one GemmMemo per (array, dataflow): the schemes of a candidate share their equal GEMMs (attention, equal
  // operands) and the engine's compiles (exact either way: the memo changes the time, not the figures)
  const auto memos = o.memos ? o.memos : std::make_shared<MemoPool>();
  // results by index, so any thread count gives the same output
  std::vector<model::ModelResult> results(total);
  std::vector<std::exception_ptr> errors(total);
  std::mutex mu;
  std::size_t done = 0;
  parallel::run_parallel(std::max(1u, o.jobs), total, [&](std::size_t i) {
    const std::size_t s = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
    const std::size_t nd = dfs[s].size(), a = (i - first[s]) / nd, d = (i - first[s]) % nd;
    try {
      arch::Arch ar = arch;
      ar.rows = arrays[a].first;
      ar.cols = arrays[a].second;
      cost::Options co;
      co.method = o.method;
      co.objective = o.objective;
      co.engine_time_limit_s = o.engine_time_limit_s;
      co.engine_max_points = o.engine_max_points;
      cost::Estimator est(std::move(ar), dfs[s][d], co, memos->at(arrays[a].first, arrays[a].second, dfs[s][d].name));
      results[i] = model::run_model(est, model, schemes[s]);  // GEMMs and the non-GEMM operators
    } catch (...) {
      errors[i] = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(mu);
    ++done;
    if (progress) progress(done, total);
  });
  // a candidate whose evaluation fails on its input (the engine's limits, a tile that fits no buffer of this array,
  // ...) is skipped with a note naming it and why; a scheme left without a candidate is that error; a bug propagates
  std::vector<char> ok(total, 1);
  std::vector<std::string> skipped;
  for (std::size_t s = 0; s < ns; ++s) {
    std::exception_ptr first_error;
    for (std::size_t i = first[s]; i < first[s + 1]; ++i) {
      if (!errors[i]) continue;
      if (!first_error) first_error = errors[i];
      ok[i] = 0;
      const std::size_t nd = dfs[s].size(), a = (i - first[s]) / nd, d = (i - first[s]) % nd;
      try {
        std::rethrow_exception(errors[i]);
      } catch (const InputError& e) {
        skipped.push_back("search skipped " + dfs[s][d].name + " on " + std::to_string(arrays[a].first) + "x" +
                          std::to_string(arrays[a].second) + " for " + model::scheme_label(model, schemes[s]) + ": " +
                          e.what());
      }
    }
    if (std::find(ok.begin() + static_cast<std::ptrdiff_t>(first[s]),
                  ok.begin() + static_cast<std::ptrdiff_t>(first[s + 1]),
                  1) == ok.begin() + static_cast<std::ptrdiff_t>(first[s + 1]))
      std::rethrow_exception(first_error);
  }

  SearchResult out;
  out.info = model::run_info(model, arch.name, detail::candidate_names(o), phases);
  for (auto& note : skipped) out.info.notes.push_back(std::move(note));
  out.objective = o.objective;
  out.per_gemm = o.per_gemm;
  std::vector<ParetoPoint> points;
  for (std::size_t s = 0; s < ns; ++s) {
    const std::size_t nd = dfs[s].size();
    SchemeResult row;
    row.scheme = model::scheme_label(model, schemes[s]);
    std::vector<Config> configs;
    for (std::size_t a = 0; a < na; ++a) {
      if (o.per_gemm) {
        // each GEMM its best dataflow on this array (ties: the earlier dataflow)
        // the totals are added as model::run_model adds them, so that estimate --plan replays them exactly
        Config c;
        c.dataflow = "per-gemm";
        c.rows = arrays[a].first;
        c.cols = arrays[a].second;
        model::ModelResult chosen;
        std::size_t d0 = 0;  // the first dataflow evaluated on this array
        while (d0 < nd && !ok[slot(s, a, d0)]) ++d0;
        if (d0 == nd) continue;
        for (std::size_t g = 0; g < model.gemms.size(); ++g) {
          std::size_t best = d0;
          for (std::size_t d = d0 + 1; d < nd; ++d)
            if (ok[slot(s, a, d)] && cost::better(results[slot(s, a, d)].rows[g].second,
                                                  results[slot(s, a, best)].rows[g].second, o.objective))
              best = d;
          const auto& [mg, cost] = results[slot(s, a, best)].rows[g];
          c.gemms.push_back(choice_of(mg, cost, dfs[s][best].name));
          model::add_gemm(chosen, mg, cost);
        }
        for (const auto& [op, cost] : results[slot(s, a, d0)].op_rows)  // the operators do not depend on the dataflow
          model::add_op(chosen, op, cost);
        c.totals = totals_of(chosen);
        configs.push_back(std::move(c));
      } else {
        for (std::size_t d = 0; d < nd; ++d) {
          if (!ok[slot(s, a, d)]) continue;
          const model::ModelResult& r = results[slot(s, a, d)];
          Config c;
          c.dataflow = dfs[s][d].name;
          c.rows = arrays[a].first;
          c.cols = arrays[a].second;
          c.totals = totals_of(r);
          for (const auto& [mg, cost] : r.rows) c.gemms.push_back(choice_of(mg, cost, c.dataflow));
          configs.push_back(std::move(c));
        }
      }
    }
    for (const auto& c : configs)
      points.push_back({row.scheme, c.dataflow, c.rows, c.cols, c.totals.latency_s, c.totals.energy_j});
    row.configurations = static_cast<std::int64_t>(configs.size());
    std::stable_sort(configs.begin(), configs.end(),
                     [&](const Config& x, const Config& y) { return better(x.totals, y.totals, o.objective); });
    configs.resize(std::min(configs.size(), std::max<std::size_t>(1, o.top)));
    row.top = std::move(configs);
    out.rows.push_back(std::move(row));
  }
  // the latency-energy Pareto front (a point is dropped when another is <= in both and < in one)
  std::stable_sort(points.begin(), points.end(), [](const ParetoPoint& x, const ParetoPoint& y) {
    return x.latency_s != y.latency_s ? x.latency_s < y.latency_s : x.energy_j < y.energy_j;
  });
  for (const auto& p : points)
    if (out.pareto.empty() || p.energy_j < out.pareto.back().energy_j) out.pareto.push_back(p);
  return out;
}

cost::Estimator estimator_at(const arch::Arch& arch, const Options& o, const Config& c) {
  arch::Arch ar = arch;
  ar.rows = c.rows;
  ar.cols = c.cols;
  cost::Options co;
  co.method = o.method;
  co.objective = o.objective;
  co.engine_time_limit_s = o.engine_time_limit_s;
  co.engine_max_points = o.engine_max_points;
  return cost::Estimator(std::move(ar), mapping::parse_dataflow(c.dataflow), co,
                         o.memos ? o.memos->at(c.rows, c.cols, c.dataflow) : nullptr);
}

model::CompareResult compare_at_best(const arch::Arch& arch, const model::Model& model, const model::Phases& phases,
                                     const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                                     const SearchResult& result) {
  if (o.per_gemm) throw InputError("compare --search ranks one dataflow per model: drop --per-gemm (search takes it)");
  if (result.rows.size() != schemes.size()) throw InternalError("compare --search: a search row per scheme");
  model::CompareResult out;
  for (std::size_t s = 0; s < schemes.size(); ++s) {
    const Config& best = result.rows[s].top.front();
    cost::Estimator est = estimator_at(arch, o, best);
    model::CompareResult one = model::compare(est, model, phases, {schemes[s]});
    if (s == 0) out.info = one.info;
    out.rows.push_back(one.rows.front());
    out.mappings.push_back(best.dataflow + " " + std::to_string(best.rows) + "x" + std::to_string(best.cols));
  }
  out.info.dataflow = result.info.dataflow;
  out.searched = "objective " + cost::to_string(o.objective) + " over dataflows " + result.info.dataflow;
  model::set_ratios(out, phases);
  return out;
}

}  // namespace tenet_cost::search
