// Whole requests (docs/model.md "Requests"): TTFT from the prefill of the N prompts, then gen_len - 1 decode steps,
// each costed at its own context (the attention and the KV-cache traffic grow with it) and summed exactly.
#include <algorithm>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

RankBy parse_rank_by(const std::string& text) {
  for (const RankBy r : {RankBy::kListed, RankBy::kTtft, RankBy::kTpot, RankBy::kE2e, RankBy::kEnergy, RankBy::kEdp})
    if (to_string(r) == text) return r;
  throw InputError("--rank-by: expected listed, ttft, tpot, e2e, energy or edp, found '" + text + "'");
}

std::string to_string(RankBy r) {
  switch (r) {
    case RankBy::kListed: return "listed";
    case RankBy::kTtft: return "ttft";
    case RankBy::kTpot: return "tpot";
    case RankBy::kE2e: return "e2e";
    case RankBy::kEnergy: return "energy";
    case RankBy::kEdp: return "edp";
  }
  return "listed";
}

namespace {

// The decode-phase GEMMs and operators of a plan (the prefill of a step's plan is not the request's).
Model decode_part(Model m) {
  m.gemms.erase(
      std::remove_if(m.gemms.begin(), m.gemms.end(), [](const ModelGemm& g) { return g.phase != Phase::kDecode; }),
      m.gemms.end());
  m.ops.erase(std::remove_if(m.ops.begin(), m.ops.end(), [](const ModelOp& o) { return o.phase != Phase::kDecode; }),
              m.ops.end());
  return m;
}

// The objective of a row's request (smaller is better).
double rank_key(const CompareRow& r, RankBy by) {
  const RequestFigures& f = *r.request;
  switch (by) {
    case RankBy::kTtft: return f.ttft_s;
    case RankBy::kTpot: return f.tpot_s;
    case RankBy::kE2e: return f.e2e_s;
    case RankBy::kEnergy: return f.energy_per_request_j;
    case RankBy::kEdp: return f.e2e_s * f.energy_per_request_j;
    case RankBy::kListed: break;
  }
  return 0;
}

}  // namespace

std::int64_t check_request(const Phases& phases, const Request& req, const std::optional<ModelConfig>& cfg,
                           std::vector<std::string>* notes) {
  check_range("--prompt-len", req.prompt_len, kMaxTokens, "prompt tokens per request; tenet-cost's limit");
  check_range("--gen-len", req.gen_len, kMaxTokens, "output tokens per request; tenet-cost's limit");
  if (phases.seq_len != req.prompt_len)
    throw InputError("--seq-len " + std::to_string(phases.seq_len) + " and --prompt-len " +
                     std::to_string(req.prompt_len) + " differ: a request's prefill is its prompt (give one of them)");
  const std::int64_t last = checked_add(req.prompt_len, req.gen_len - 1, "request context");
  check_range("--prompt-len + --gen-len - 1", last, kMaxTokens, "the request's last context; tenet-cost's limit");
  check_positions("--prompt-len + --gen-len - 1 (the last decode context)", last, phases, cfg, notes);
  return last;
}

DecodeSteps decode_steps(const PlanAt& plan_at, const Phases& phases, const Request& req,
                         const std::optional<ModelConfig>& cfg, std::vector<std::string>* notes) {
  const std::int64_t last = check_request(phases, req, cfg, notes);
  DecodeSteps out;
  for (std::int64_t c = req.prompt_len + 1; c <= last; ++c) {
    Phases at = phases;
    at.context = c;
    out.plans.push_back(decode_part(plan_at(at)));
    if (out.plans.back().gemms.empty() && out.plans.back().ops.empty())
      throw InputError("a request needs a decode phase, and the model has no decode entry");
  }
  return out;
}

Model request_model(const Model& plan, const DecodeSteps& steps) {
  Model out = plan;
  out.gemms.erase(
      std::remove_if(out.gemms.begin(), out.gemms.end(), [](const ModelGemm& g) { return g.phase != Phase::kPrefill; }),
      out.gemms.end());
  out.ops.erase(
      std::remove_if(out.ops.begin(), out.ops.end(), [](const ModelOp& o) { return o.phase != Phase::kPrefill; }),
      out.ops.end());
  for (const Model& step : steps.plans) {
    out.gemms.insert(out.gemms.end(), step.gemms.begin(), step.gemms.end());
    out.ops.insert(out.ops.end(), step.ops.begin(), step.ops.end());
  }
  return out;
}

RequestFigures request_figures(cost::Estimator& est, const DecodeSteps& steps, const PhaseSum& prefill,
                               const Phases& phases, const Request& req, const std::optional<quant::Scheme>& scheme) {
  PhaseSum decode;
  for (const Model& m : steps.plans) {
    const ModelResult r = run_model(est, m, scheme);
    for (const auto& [entry, t] : r.totals) {
      decode.latency_s += t.latency_s;
      decode.energy_j += t.energy_j;
      decode.dram_bytes = checked_add(decode.dram_bytes, t.dram_bytes, "request DRAM bytes");
    }
  }
  return request_totals(prefill, decode, static_cast<std::int64_t>(steps.plans.size()), phases, req);
}

RequestFigures request_totals(const PhaseSum& prefill, const PhaseSum& decode, std::int64_t steps, const Phases& phases,
                              const Request& req) {
  RequestFigures f;
  f.prompt_len = req.prompt_len;
  f.gen_len = req.gen_len;
  f.batch = phases.batch;
  f.decode_steps = steps;
  f.ttft_s = prefill.latency_s;
  f.energy_j = prefill.energy_j + decode.energy_j;
  f.dram_bytes = checked_add(prefill.dram_bytes, decode.dram_bytes, "request DRAM bytes");
  const double decode_s = decode.latency_s;
  const auto n = static_cast<double>(phases.batch);
  const double tokens = n * static_cast<double>(req.gen_len);
  f.tpot_s = f.decode_steps > 0 ? decode_s / static_cast<double>(f.decode_steps) : 0.0;
  f.e2e_s = f.ttft_s + decode_s;
  f.tokens_per_s = f.e2e_s > 0 ? tokens / f.e2e_s : 0.0;
  f.requests_per_s = f.e2e_s > 0 ? n / f.e2e_s : 0.0;
  f.energy_per_request_j = f.energy_j / n;
  f.energy_per_token_j = f.energy_j / tokens;
  return f;
}

void add_requests(CompareResult& c, cost::Estimator& est, const PlanAt& plan_at, const Phases& phases,
                  const Request& req, const std::vector<std::optional<quant::Scheme>>& schemes, RankBy rank,
                  const std::optional<ModelConfig>& cfg) {
  if (schemes.size() != c.rows.size()) throw InternalError("add_requests: one scheme per row expected");
  if (!c.info.has_prefill || !c.info.has_decode)
    throw InputError("a request (--prompt-len / --gen-len) needs a model with a prefill and a decode phase");
  const DecodeSteps steps = decode_steps(plan_at, phases, req, cfg, &c.info.notes);
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    c.rows[i].request = request_figures(est, steps, c.rows[i].prefill, phases, req, schemes[i]);
  c.request = req;
  rank_requests(c, rank, phases);
}

void rank_requests(CompareResult& c, RankBy rank, const Phases& phases) {
  c.ranked = rank;
  if (rank != RankBy::kListed) {
    std::vector<std::size_t> order(c.rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return rank_key(c.rows[a], rank) < rank_key(c.rows[b], rank);
    });
    std::vector<CompareRow> rows;
    std::vector<std::string> mappings;
    for (const std::size_t i : order) {
      rows.push_back(c.rows[i]);
      if (!c.mappings.empty()) mappings.push_back(c.mappings[i]);
    }
    c.rows = std::move(rows);
    c.mappings = std::move(mappings);
  }
  set_ratios(c, phases);
}

}  // namespace tenet_cost::model
