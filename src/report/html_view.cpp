// The html views: estimate / compare results (+ the arch's roofs) -> ReportDoc.
// Views do not compute costs; they only gather, multiply by call counts (checked) and name.
#include <algorithm>
#include <set>
#include <string>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::report::html {

namespace {

using model::EstimateResult;

std::vector<std::string> term_names() {
  std::vector<std::string> out;
  for (auto t :
       {cost::Term::kCompute, cost::Term::kBuffer, cost::Term::kDram, cost::Term::kDequant, cost::Term::kVector})
    out.push_back(cost::to_string(t));
  return out;
}

// The energy terms of a phase as bar segments, in enum order (every term, zeros too: one legend for all rows).
std::vector<Segment> energy_segments(const cost::EnergyByTerm& e) {
  std::vector<Segment> out;
  out.reserve(cost::kEnergyTerms.size());
  for (const auto t : cost::kEnergyTerms) out.push_back({cost::to_string(t), e[t]});
  return out;
}

RunFigures run_figures(const model::PhaseSum& p) {
  return RunFigures{p.latency_s, p.dram_bytes, p.scale_dram_bytes, p.energy_j, energy_segments(p.energy_by_term)};
}

std::vector<std::string> entries_in_order(const EstimateResult& e) {
  std::vector<std::string> out;
  for (const auto& row : e.result.rows)
    if (std::find(out.begin(), out.end(), row.first.entry) == out.end()) out.push_back(row.first.entry);
  return out;
}

std::string scheme_label(const EstimateResult& e) { return e.scheme ? e.scheme->name : "the dump's own schemes"; }

void add_breakdowns(const EstimateResult& e, ReportDoc& doc) {
  const auto terms = term_names();
  for (const auto& entry : entries_in_order(e)) {
    Breakdown b{entry, scheme_label(e), terms, {}};
    for (const auto& [g, c] : e.result.rows) {
      if (g.entry != entry) continue;
      OperatorRow r;
      r.name = g.function;
      r.calls = g.calls;
      r.cycles = c.cycles;
      r.bound = cost::to_string(c.bound);
      for (auto t :
           {cost::Term::kCompute, cost::Term::kBuffer, cost::Term::kDram, cost::Term::kDequant, cost::Term::kVector})
        r.cycles_by_term.push_back(c.cycles_of(t));
      b.rows.push_back(std::move(r));
    }
    doc.breakdowns.push_back(std::move(b));
  }
}

Roofline roofline_of(const EstimateResult& e, const arch::Arch& a) {
  Roofline rl;
  rl.scheme = scheme_label(e);
  const double pes_hz =
      static_cast<double>(a.rows) * static_cast<double>(a.cols) * static_cast<double>(a.clock_mhz) * 1e6;
  for (const auto& [g, c] : e.result.rows) {
    const double peak = pes_hz * static_cast<double>(c.mac_rate_num) / static_cast<double>(c.mac_rate_den);
    if (peak > rl.peak_macs_per_s) {
      rl.peak_macs_per_s = peak;
      rl.precision = to_string(c.precision);
    }
    RooflinePoint p;
    p.name = g.function;
    p.entry = g.entry;
    p.macs = checked_mul(c.macs, g.calls, "MACs x calls of " + g.function);
    p.dram_bytes = checked_mul(c.dram_bytes, g.calls, "DRAM bytes x calls of " + g.function);
    p.latency_s = c.latency_s * static_cast<double>(g.calls);
    rl.points.push_back(std::move(p));
  }
  rl.dram_bytes_per_s = static_cast<double>(a.dram_mb_per_s) * 1e6;
  return rl;
}

void add_common_assumptions(const model::RunInfo& info, const arch::Arch& a, ReportDoc& doc) {
  doc.assumptions.push_back({"model", info.model});
  doc.assumptions.push_back({"arch", info.arch + " (" + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                                         " PEs, " + std::to_string(a.clock_mhz) + " MHz, DRAM " +
                                         std::to_string(a.dram_mb_per_s) + " MB/s, buffer " +
                                         std::to_string(a.buffer_bytes) + " B)"});
  doc.assumptions.push_back({"dataflow", info.dataflow});
  std::string terms;
  for (const auto& t : term_names()) terms += (terms.empty() ? "" : ", ") + t;
  doc.assumptions.push_back({"timing terms", terms + "; a GEMM's cycles = the largest term (docs/model.md)"});
  const std::string seqs = std::to_string(info.batch);
  doc.assumptions.push_back({"sequences (--batch)", seqs});
  doc.assumptions.push_back({"prefill", seqs + " whole prompts x " + std::to_string(info.seq_len) + " tokens = " +
                                            std::to_string(info.batch * info.seq_len) + " prompt tokens"});
  doc.assumptions.push_back({"decode", "one step: one token for each of the " + seqs + " sequences (" + seqs +
                                           " tokens) at context " + std::to_string(info.context) +
                                           "; per token = per step / " + seqs});
  doc.assumptions.push_back(
      {"attention (--attention)", model::to_string(info.attention) + (info.attention == model::Attention::kFused
                                                                          ? ": scores on chip, causal prefill"
                                                                          : ": scores through DRAM, causal prefill")});
  for (const auto& n : info.notes) doc.assumptions.push_back({"note", n});  // the plan's stated assumptions
}

void add_plan_assumptions(const EstimateResult& e, ReportDoc& doc) {
  std::set<std::int64_t> batches;
  std::size_t attention = 0;
  for (const auto& [g, c] : e.result.rows) {
    batches.insert(g.shape.batch);
    attention += (g.shape.role == quant::GemmRole::kAttnQK || g.shape.role == quant::GemmRole::kAttnPV) ? 1 : 0;
  }
  std::string b;
  for (auto v : batches) b += (b.empty() ? "" : ", ") + std::to_string(v);
  doc.assumptions.push_back({"batch (GEMM batch dims)", b.empty() ? "-" : b});
  doc.assumptions.push_back({"attention GEMMs", attention ? std::to_string(attention) + " (QK and PV rows of the plan)"
                                                          : "none in the plan"});
}

// (g) Each row's request (compare --prompt-len / --gen-len) and what the figures are.
void add_request_rows(const model::CompareResult& c, ReportDoc& doc) {
  const model::Request& q = *c.request;
  const std::string n = std::to_string(c.info.batch);
  doc.assumptions.push_back(
      {"requests (--prompt-len, --gen-len)",
       (c.info.batch == 1 ? "1 request, " : n + " requests served together, each ") + std::to_string(q.prompt_len) +
           " prompt + " + std::to_string(q.gen_len) + " output tokens: TTFT = the prefill of the " + n +
           (c.info.batch == 1 ? " prompt" : " prompts") + "; TPOT = the mean of the " + std::to_string(q.gen_len - 1) +
           " decode steps at contexts " + std::to_string(q.prompt_len + 1) + " .. " +
           std::to_string(q.prompt_len + q.gen_len - 1) +
           " (each at its own context; one token of each sequence per step); end-to-end = TTFT + every step; "
           "energy per request = the batch's energy over the request / " +
           n + (c.deployments.empty() ? "" : " (every chip and link of the deployment)") +
           (c.ranked == model::RankBy::kListed ? "" : "; rows ranked by " + model::to_string(c.ranked))});
  for (const auto& r : c.rows) {
    if (!r.request) continue;
    const model::RequestFigures& f = *r.request;
    doc.requests.push_back({r.scheme, "", f.ttft_s, f.tpot_s, f.e2e_s, f.tokens_per_s, f.requests_per_s,
                            f.energy_per_request_j, f.energy_per_token_j});
  }
}

}  // namespace

ReportDoc estimate_doc(const EstimateResult& e, const arch::Arch& arch) {
  ReportDoc doc;
  doc.title = "tenet-cost estimate: " + e.info.model + " on " + e.info.arch + ", " + scheme_label(e);
  add_common_assumptions(e.info, arch, doc);
  add_plan_assumptions(e, doc);
  doc.assumptions.push_back({"scheme", scheme_label(e)});
  add_breakdowns(e, doc);
  doc.rooflines.push_back(roofline_of(e, arch));
  return doc;
}

ReportDoc compare_doc(const model::CompareResult& c, const std::vector<EstimateResult>& per_scheme,
                      const arch::Arch& arch) {
  ReportDoc doc;
  doc.title = "tenet-cost compare: " + c.info.model + " on " + c.info.arch;
  add_common_assumptions(c.info, arch, doc);
  if (!per_scheme.empty()) add_plan_assumptions(per_scheme.front(), doc);
  std::string schemes;
  for (const auto& r : c.rows) schemes += (schemes.empty() ? "" : ", ") + r.scheme;
  doc.assumptions.push_back({"schemes", schemes});
  doc.show_prefill = c.info.has_prefill;  // the phases the model has
  doc.show_decode = c.info.has_decode;
  for (const auto& r : c.rows) {
    SchemeRow s;
    s.scheme = r.scheme;
    s.prefill = run_figures(r.prefill);
    s.decode = run_figures(r.decode);
    double latency = 0, energy = 0;  // the trade-off without a decode phase: every entry, summed
    for (const auto& e : r.other) {
      s.entries.push_back({e.entry, run_figures(e.sum)});
      latency += e.sum.latency_s;
      energy += e.sum.energy_j;
    }
    doc.schemes.push_back(std::move(s));
    if (doc.show_decode) doc.tradeoff.push_back({r.scheme, r.decode.latency_s, r.decode.energy_j, r.scheme});
    else doc.tradeoff.push_back({r.scheme, r.prefill.latency_s + latency, r.prefill.energy_j + energy, r.scheme});
  }
  if (c.request) add_request_rows(c, doc);
  doc.tradeoff_per_step = doc.show_decode;
  doc.tradeoff_title = doc.show_decode ? "decode, per step of " + std::to_string(c.info.batch) + " sequences"
                                       : "every entry, one run each";
  for (std::size_t i = 0; i < per_scheme.size() && i < c.rows.size(); ++i) {
    const auto first = doc.breakdowns.size();
    add_breakdowns(per_scheme[i], doc);
    for (auto k = first; k < doc.breakdowns.size(); ++k) doc.breakdowns[k].scheme = c.rows[i].scheme;
    doc.rooflines.push_back(roofline_of(per_scheme[i], arch));
    doc.rooflines.back().scheme = c.rows[i].scheme;
  }
  return doc;
}

ReportDoc deployments_doc(const model::CompareResult& c, const arch::Arch& arch) {
  model::CompareResult labelled = c;
  std::vector<Assumption> per_chip;
  for (model::CompareRow& r : labelled.rows) {
    if (!r.deploy) throw InternalError("deployments_doc: a row without a deployment");
    const model::DeployRow& d = *r.deploy;
    const model::Parallel& p = c.deployments.at(d.deployment).parallel;
    r.scheme += " @ " + std::to_string(p.chips()) + (p.chips() == 1 ? " chip" : " chips") + " (tp " +
                std::to_string(p.tp) + ", pp " + std::to_string(p.pp) + ", ep " + std::to_string(p.ep) + ")";
    per_chip.push_back(
        {r.scheme + ", per chip", "decode step " + report::fixed(d.decode.chip_latency_s * 1e3, 2) +
                                      " ms of its own work, " + report::megabytes(d.decode.chip_dram_bytes) +
                                      " MB DRAM, " + report::fixed(d.decode.chip_energy_j * 1e3, 2) +
                                      " mJ; collectives " + report::fixed(d.decode.collective_s * 1e3, 3) + " ms, " +
                                      report::fixed(static_cast<double>(d.decode.collective_bytes) / 1e3, 1) +
                                      " KB sent (" + d.collective.dtype + "); weights " +
                                      report::fixed(static_cast<double>(d.weight_bytes_per_chip) / 1e9, 3) + " GB"});
  }
  for (model::CompareRow& r : labelled.rows) {  // the links' energy: part of energy_j, not of the chips' terms
    r.prefill.energy_j -= r.deploy->prefill.link_energy_j;
    r.decode.energy_j -= r.deploy->decode.link_energy_j;
  }
  ReportDoc doc = compare_doc(labelled, {}, arch);
  for (std::size_t i = 0; i < doc.schemes.size(); ++i) {
    const model::DeployRow& d = *labelled.rows[i].deploy;
    for (auto [run, link] : {std::pair{&doc.schemes[i].prefill, d.prefill.link_energy_j},
                             std::pair{&doc.schemes[i].decode, d.decode.link_energy_j}}) {
      run->energy_j += link;
      run->energy_by_term.push_back({"link", link});
    }
    doc.tradeoff[i].energy_j += d.decode.link_energy_j;
  }
  doc.assumptions.push_back({"deployments",
                             "the charts show each deployment as a whole, per step (every chip and "
                             "link: latency with its collectives and bubble, energy, DRAM bytes)"});
  doc.assumptions.insert(doc.assumptions.end(), per_chip.begin(), per_chip.end());
  return doc;
}

namespace {
std::string config_label(const std::string& scheme, const std::string& dataflow, std::int64_t rows, std::int64_t cols) {
  return scheme + " @ " + dataflow + " " + std::to_string(rows) + "x" + std::to_string(cols);
}
}  // namespace

ReportDoc search_doc(const search::SearchResult& r, const arch::Arch& arch) {
  ReportDoc doc;
  doc.title = "tenet-cost search: " + r.info.model + " on " + r.info.arch;
  add_common_assumptions(r.info, arch, doc);
  doc.assumptions.push_back({"objective", cost::to_string(r.objective)});
  doc.assumptions.push_back({"dataflow choice", r.per_gemm ? "each GEMM its own (--per-gemm)" : "one for the model"});
  doc.show_prefill = r.info.has_prefill;
  doc.show_decode = r.info.has_decode;
  std::set<std::string> listed;
  for (const auto& s : r.rows) {
    if (s.top.empty()) continue;
    const search::Config& b = s.top.front();
    SchemeRow row;
    row.scheme = config_label(s.scheme, b.dataflow, b.rows, b.cols);
    row.series = s.scheme;
    row.prefill = run_figures(b.totals.prefill);
    row.decode = run_figures(b.totals.decode);
    for (const auto& e : b.totals.other) row.entries.push_back({e.entry, run_figures(e.sum)});
    doc.schemes.push_back(std::move(row));
    for (const auto& c : s.top) {
      const std::string label = config_label(s.scheme, c.dataflow, c.rows, c.cols);
      if (listed.insert(label).second) doc.tradeoff.push_back({label, c.totals.latency_s, c.totals.energy_j, s.scheme});
    }
  }
  for (const auto& p : r.pareto) {
    const std::string label = config_label(p.scheme, p.dataflow, p.rows, p.cols);
    if (listed.insert(label).second) doc.tradeoff.push_back({label, p.latency_s, p.energy_j, p.scheme});
  }
  doc.tradeoff_title = "whole run (every entry), each configuration listed";
  return doc;
}

}  // namespace tenet_cost::report::html
