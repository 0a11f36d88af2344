// The mapping search (search.hpp, docs/search.md).
#include "tenet_cost/search.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <sstream>

#include "common/parallel.hpp"
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

std::vector<std::pair<std::int64_t, std::int64_t>> array_shapes(std::int64_t budget) {
  if (budget <= 0) throw InputError("--pe-budget must be a positive number of PEs, found " + std::to_string(budget));
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t r = 1; r <= budget / r; ++r)
    if (budget % r == 0) out.emplace_back(r, budget / r);
  const std::size_t n = out.size();
  for (std::size_t i = n; i-- > 0;)  // the mirrored shapes (R > C), R ascending
    if (out[i].first != out[i].second) out.emplace_back(out[i].second, out[i].first);
  return out;
}

namespace {

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

void add(Totals& t, const model::ModelGemm& g, double latency_s, double energy_j, std::int64_t dram_bytes) {
  const double n = static_cast<double>(g.calls);
  const std::int64_t bytes = checked_mul(dram_bytes, g.calls, "DRAM bytes");
  t.latency_s += latency_s * n;
  t.energy_j += energy_j * n;
  t.dram_bytes = checked_add(t.dram_bytes, bytes, "DRAM bytes");
  model::PhaseSum* p = g.phase == model::Phase::kPrefill  ? &t.prefill
                       : g.phase == model::Phase::kDecode ? &t.decode
                                                          : nullptr;
  if (!p) return;
  p->latency_s += latency_s * n;
  p->energy_j += energy_j * n;
  p->dram_bytes = checked_add(p->dram_bytes, bytes, "DRAM bytes");
}

// Totals from per-entry sums exactly as compare adds them (entries in name order, then the phases).
Totals totals_of(const model::ModelResult& r) {
  Totals t;
  for (const auto& [entry, e] : r.totals) {
    t.latency_s += e.latency_s;
    t.energy_j += e.energy_j;
    t.dram_bytes = checked_add(t.dram_bytes, e.dram_bytes, "DRAM bytes");
    const model::Phase phase = r.entry_phase.at(entry);
    model::PhaseSum* p = phase == model::Phase::kPrefill  ? &t.prefill
                         : phase == model::Phase::kDecode ? &t.decode
                                                          : nullptr;
    if (!p) continue;
    p->latency_s += e.latency_s;
    p->energy_j += e.energy_j;
    p->dram_bytes += e.dram_bytes;
    p->scale_dram_bytes += e.scale_dram_bytes;
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

std::string scheme_name(const std::optional<quant::Scheme>& s) { return s ? s->name : "dump"; }

}  // namespace

SearchResult run(const arch::Arch& arch, const model::Model& model, const model::Phases& phases,
                 const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                 const std::function<void(std::size_t, std::size_t)>& progress) {
  if (o.dataflows.empty()) throw InputError("the search needs at least one dataflow");
  const auto arrays =
      o.arrays.empty() ? std::vector<std::pair<std::int64_t, std::int64_t>>{{arch.rows, arch.cols}} : o.arrays;
  const std::size_t nd = o.dataflows.size(), na = arrays.size(), ns = schemes.size();
  const std::size_t total = ns * na * nd;
  // one evaluation per (scheme, array, dataflow); results by index, so any thread count gives the same output
  std::vector<model::ModelResult> results(total);
  std::vector<std::exception_ptr> errors(total);
  std::mutex mu;
  std::size_t done = 0;
  parallel::run_parallel(std::max(1u, o.jobs), total, [&](std::size_t i) {
    const std::size_t s = i / (na * nd), a = (i / nd) % na, d = i % nd;
    try {
      arch::Arch ar = arch;
      ar.rows = arrays[a].first;
      ar.cols = arrays[a].second;
      cost::Options co;
      co.method = o.method;
      co.objective = o.objective;
      co.engine_time_limit_s = o.engine_time_limit_s;
      cost::Estimator est(std::move(ar), o.dataflows[d], co);
      results[i] = model::run_model(est, model.gemms, schemes[s]);
    } catch (...) {
      errors[i] = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(mu);
    ++done;
    if (progress) progress(done, total);
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  SearchResult out;
  out.info.model = model.name;
  out.info.arch = arch.name;
  for (const auto& df : o.dataflows) out.info.dataflow += (out.info.dataflow.empty() ? "" : ",") + df.name;
  out.info.seq_len = phases.seq_len;
  out.info.context = phases.context;
  out.objective = o.objective;
  out.per_gemm = o.per_gemm;
  std::vector<ParetoPoint> points;
  for (std::size_t s = 0; s < ns; ++s) {
    SchemeResult row;
    row.scheme = scheme_name(schemes[s]);
    if (!schemes[s] && !model.gemms.empty()) row.scheme = "dump";
    std::vector<Config> configs;
    for (std::size_t a = 0; a < na; ++a) {
      if (o.per_gemm) {
        // each GEMM its best dataflow on this array (ties: the earlier dataflow)
        Config c;
        c.dataflow = "per-gemm";
        c.rows = arrays[a].first;
        c.cols = arrays[a].second;
        for (std::size_t g = 0; g < model.gemms.size(); ++g) {
          std::size_t best = 0;
          for (std::size_t d = 1; d < nd; ++d)
            if (cost::better(results[(s * na + a) * nd + d].rows[g].second,
                             results[(s * na + a) * nd + best].rows[g].second, o.objective))
              best = d;
          const auto& [mg, cost] = results[(s * na + a) * nd + best].rows[g];
          c.gemms.push_back(choice_of(mg, cost, o.dataflows[best].name));
          add(c.totals, mg, cost.latency_s, cost.energy_j, cost.dram_bytes);
        }
        configs.push_back(std::move(c));
      } else {
        for (std::size_t d = 0; d < nd; ++d) {
          const model::ModelResult& r = results[(s * na + a) * nd + d];
          Config c;
          c.dataflow = o.dataflows[d].name;
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

}  // namespace tenet_cost::search
