// compare --search for whole requests (docs/search.md "Requests"): mappings chosen by the request's objective (the
// prefill and every decode step at its own context), or per phase, never by a prefill and one decode step.
#include <algorithm>

#include "search/internal.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::search {

namespace {

// The GEMMs and operators of `m` in `phase`.
model::Model phase_part(model::Model m, model::Phase phase) {
  m.gemms.erase(
      std::remove_if(m.gemms.begin(), m.gemms.end(), [&](const model::ModelGemm& g) { return g.phase != phase; }),
      m.gemms.end());
  m.ops.erase(std::remove_if(m.ops.begin(), m.ops.end(), [&](const model::ModelOp& op) { return op.phase != phase; }),
              m.ops.end());
  return m;
}

}  // namespace

RequestSearch search_request(const arch::Arch& arch, const model::PlanSource& source, const model::Phases& phases,
                             const model::Request& req, const std::vector<std::optional<quant::Scheme>>& schemes,
                             const Options& o, bool per_phase,
                             const std::function<void(std::size_t, std::size_t)>& progress) {
  RequestSearch out;
  out.plan = source.at(phases);
  out.steps = model::decode_steps(source.at, phases, req, source.config, &out.notes);
  const model::Model whole = model::request_model(out.plan, out.steps);
  if (std::none_of(whole.gemms.begin(), whole.gemms.end(),
                   [](const model::ModelGemm& g) { return g.phase == model::Phase::kPrefill; }))
    throw InputError("a request (--prompt-len / --gen-len) needs a model with a prefill and a decode phase");
  // one search over the whole request, or one per phase
  if (per_phase) {
    out.found.push_back(run(arch, phase_part(whole, model::Phase::kPrefill), phases, schemes, o, progress));
    out.found.push_back(run(arch, phase_part(whole, model::Phase::kDecode), phases, schemes, o, progress));
  } else {
    out.found.push_back(run(arch, whole, phases, schemes, o, progress));
  }
  const std::string steps = std::to_string(out.steps.plans.size());
  out.searched = per_phase
                     ? "per phase: the prefill's mapping by the prefill, the decode's by the " + steps + " decode steps"
                     : "of the whole request: the prefill and the " + steps + " decode steps";
  for (SearchResult& f : out.found) {
    f.request = req;
    detail::add_notes(f.info.notes, out.notes);
  }
  if (per_phase) {
    out.found.front().part = model::Phase::kPrefill;
    out.found.back().part = model::Phase::kDecode;
  }
  return out;
}

model::CompareResult compare_request_at_best(const arch::Arch& arch, const model::PlanSource& source,
                                             const model::Phases& phases, const model::Request& req,
                                             const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                                             bool per_phase, model::RankBy rank) {
  if (o.per_gemm) throw InputError("compare --search ranks one dataflow per model: drop --per-gemm (search takes it)");
  const RequestSearch rs = search_request(arch, source, phases, req, schemes, o, per_phase);
  const model::Model& plan = rs.plan;
  const model::DecodeSteps& steps = rs.steps;
  const std::vector<SearchResult>& found = rs.found;
  model::CompareResult out;
  for (std::size_t s = 0; s < schemes.size(); ++s) {
    const Config& first = found.front().rows.at(s).top.front();
    cost::Estimator est_prefill = estimator_at(arch, o, first);
    model::CompareResult one = model::compare(est_prefill, plan, phases, {schemes[s]});
    model::CompareRow row = one.rows.front();
    std::string mapping = detail::mapping_of(first);
    if (per_phase) {
      const Config& dec = found.back().rows.at(s).top.front();
      cost::Estimator est_decode = estimator_at(arch, o, dec);
      row.decode = model::compare(est_decode, plan, phases, {schemes[s]}).rows.front().decode;
      row.request = model::request_figures(est_decode, steps, row.prefill, phases, req, schemes[s]);
      mapping = "prefill " + mapping + ", decode " + detail::mapping_of(dec);
    } else {
      row.request = model::request_figures(est_prefill, steps, row.prefill, phases, req, schemes[s]);
    }
    if (s == 0) out.info = one.info;
    out.rows.push_back(std::move(row));
    out.mappings.push_back(std::move(mapping));
  }
  for (const SearchResult& f : found) detail::add_notes(out.info.notes, f.info.notes);
  out.info.dataflow = found.front().info.dataflow;
  out.searched = "objective " + cost::to_string(o.objective) + " " + rs.searched + ", over dataflows " +
                 found.front().info.dataflow;
  out.request = req;
  model::rank_requests(out, rank, phases);
  return out;
}

}  // namespace tenet_cost::search
