// compare --search over chips (docs/search.md "Deployments"): each (deployment, scheme) at the mapping — dataflow and
// PE array of every chip — whose deployment is best by the objective: every candidate runs the deployment itself (the
// sharded GEMMs of each stage, its collectives, pipeline and bubble; with a request its TTFT and every decode step),
// so the choice is the minimum over the candidates of exactly the figures the row shows.
#include <exception>

#include "search/internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::search {

namespace {

// What a deployed row's objective ranks: the deployment's prefill step + decode step + other entries (the search's
// "every entry"), or, with a request, the whole request (e2e latency, its energy and DRAM bytes).
Totals deployed_totals(const model::CompareRow& r) {
  Totals t;
  if (r.request) {
    t.latency_s = r.request->e2e_s;
    t.energy_j = r.request->energy_j;
    t.dram_bytes = r.request->dram_bytes;
    return t;
  }
  t.latency_s = r.prefill.latency_s + r.decode.latency_s;
  t.energy_j = r.prefill.energy_j + r.decode.energy_j;
  t.dram_bytes = checked_add(r.prefill.dram_bytes, r.decode.dram_bytes, "DRAM bytes");
  for (const auto& e : r.other) {
    t.latency_s += e.sum.latency_s;
    t.energy_j += e.sum.energy_j;
    t.dram_bytes = checked_add(t.dram_bytes, e.sum.dram_bytes, "DRAM bytes");
  }
  return t;
}

struct Best {
  model::CompareResult one;  // the winning candidate's one-row result
  Totals totals;
  std::string mapping;
};

// One (deployment, scheme): every candidate's deployment, the best kept; a candidate that fails on its input is
// skipped with a note (a deployment that cannot be built at all fails every candidate: that error).
Best best_deployed(const arch::Arch& arch, const model::Model& whole, const model::ModelConfig& cfg,
                   const model::Phases& at, const std::optional<quant::Scheme>& scheme, const Options& o,
                   const model::Request* req, std::vector<std::string>& skipped) {
  const auto arrays =
      o.arrays.empty() ? std::vector<std::pair<std::int64_t, std::int64_t>>{{arch.rows, arch.cols}} : o.arrays;
  const auto dfs = dataflows_for(DataflowSet{o.dataflows, o.generated}, arch, whole, scheme);
  if (dfs.empty()) throw InputError("no dataflow to search for scheme " + model::scheme_label(whole, scheme));
  std::optional<Best> best;
  std::exception_ptr first_error;
  for (const auto& [rows, cols] : arrays)
    for (const auto& df : dfs) {
      Config c;
      c.dataflow = df.name;
      c.rows = rows;
      c.cols = cols;
      const std::string mapping = detail::mapping_of(c);
      try {
        cost::Estimator est = estimator_at(arch, o, c);
        model::CompareResult one = model::compare_deployed(est, whole, cfg, at, {scheme});
        if (req != nullptr) model::add_deployed_requests(one, est, whole, cfg, at, *req, {scheme});
        const Totals t = deployed_totals(one.rows.front());
        if (!best || better(t, best->totals, o.objective)) best = Best{std::move(one), t, mapping};
      } catch (const InputError& e) {
        if (!first_error) first_error = std::current_exception();
        skipped.push_back("search skipped " + mapping + " for " + model::scheme_label(whole, scheme) + ": " + e.what());
      }
    }
  if (!best) std::rethrow_exception(first_error);
  return std::move(*best);
}

}  // namespace

model::CompareResult compare_deployed_at_best(const arch::Arch& arch, const model::Model& whole,
                                              const model::ModelConfig& cfg, const model::Phases& phases,
                                              const std::vector<std::optional<quant::Scheme>>& schemes,
                                              const std::vector<model::Parallel>& grid, const Options& o,
                                              const std::optional<model::Request>& req, model::RankBy rank) {
  if (o.per_gemm) throw InputError("compare --search ranks one dataflow per model: drop --per-gemm (search takes it)");
  if (grid.empty() || schemes.empty()) throw InternalError("compare_deployed_at_best: no deployment or scheme");
  model::CompareResult out;
  std::vector<std::string> skipped;
  for (const model::Parallel& p : grid) {
    model::Phases at = phases;
    at.parallel.tp = p.tp;
    at.parallel.pp = p.pp;
    at.parallel.ep = p.ep;
    for (const auto& s : schemes) {
      Best b = best_deployed(arch, whole, cfg, at, s, o, req ? &*req : nullptr, skipped);
      if (out.rows.empty()) out.info = b.one.info;
      detail::add_notes(out.info.notes, b.one.info.notes);
      model::CompareRow row = std::move(b.one.rows.front());
      row.deploy->deployment = out.deployments.size();
      out.rows.push_back(std::move(row));
      out.mappings.push_back(b.mapping);
      if (&s == &schemes.back()) out.deployments.push_back(*b.one.deployment);
    }
  }
  out.info.notes.insert(out.info.notes.end(), skipped.begin(), skipped.end());
  const std::string candidates = detail::candidate_names(o);
  out.info.dataflow = candidates;
  out.searched = "objective " + cost::to_string(o.objective) + " over dataflows " + candidates +
                 (req ? ", each deployment's whole request" : ", each deployment's prefill + decode step");
  if (grid.size() == 1) out.deployment = out.deployments.front();
  if (req) {
    out.request = *req;
    model::rank_requests(out, rank, phases);
  } else {
    model::set_ratios(out, phases);
  }
  return out;
}

}  // namespace tenet_cost::search
