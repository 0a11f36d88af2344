// The view of a CompareResult: one row per scheme (docs/estimate-formats.md).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "tenet_cost/error.hpp"
#include "tenet_cost/model_json.hpp"
#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

using nlohmann::json;

namespace {

json sum_json(const model::PhaseSum& s) {
  return {{"latency_s", s.latency_s},
          {"dram_bytes", s.dram_bytes},
          {"scale_dram_bytes", s.scale_dram_bytes},
          {"energy_j", s.energy_j},
          {"energy_by_term_j", energy_json(s.energy_by_term)},
          {"non_gemm_latency_s", s.non_gemm_latency_s},
          {"non_gemm_dram_bytes", s.non_gemm_dram_bytes},
          {"non_gemm_energy_j", s.non_gemm_energy_j}};
}

// The entries that are neither prefill nor decode: one row per scheme and entry.
Table other_table(const model::CompareResult& c) {
  Table t;
  t.headers = {"scheme", "entry", "ms", "MB", "mJ", "scale_%", "speedup", "traffic_ratio", "non_gemm_%"};
  t.right_align = {false, false, true, true, true, true, true, true, true};
  for (const auto& r : c.rows)
    for (const auto& e : r.other) {
      const auto& s = e.sum;
      const double scale =
          s.dram_bytes > 0 ? 100.0 * static_cast<double>(s.scale_dram_bytes) / static_cast<double>(s.dram_bytes) : 0.0;
      t.rows.push_back({r.scheme, e.entry, fixed(s.latency_s * 1e3, 3), megabytes(s.dram_bytes),
                        fixed(s.energy_j * 1e3, 3), fixed(scale, 2), fixed(e.speedup_vs_first, 2),
                        fixed(e.traffic_ratio_vs_first, 3),
                        fixed(100.0 * (s.latency_s > 0 ? s.non_gemm_latency_s / s.latency_s : 0.0), 1)});
    }
  return t;
}

const std::vector<std::string>& request_headers() {
  static const std::vector<std::string> h = {"req_ttft_ms", "req_tpot_ms", "req_e2e_s", "req_tok/s",
                                             "req/s",       "req_J/req",   "req_mJ/tok"};
  return h;
}

std::vector<std::string> request_cells(const model::RequestFigures& f) {
  return {fixed(f.ttft_s * 1e3, 1),
          fixed(f.tpot_s * 1e3, 2),
          fixed(f.e2e_s, 3),
          fixed(f.tokens_per_s, 2),
          fixed(f.requests_per_s, 4),
          fixed(f.energy_per_request_j, 3),
          fixed(f.energy_per_token_j * 1e3, 3)};
}

// The requests' table: one row per scheme (in the rows' order, ranked when asked).
Table request_table(const model::CompareResult& c) {
  Table t;
  t.headers = {"scheme"};
  for (const auto& h : request_headers()) t.headers.push_back(h);
  t.right_align.assign(t.headers.size(), true);
  t.right_align[0] = false;
  for (const auto& r : c.rows) {
    std::vector<std::string> row = {r.scheme};
    for (auto& cell : request_cells(*r.request)) row.push_back(std::move(cell));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// "requests: batch 4 x (prompt 2048 + 256 output tokens): TTFT = the prefill, TPOT = mean of 255 decode steps at
// contexts 2049 .. 2303; ranked by e2e"
std::string request_text(const model::CompareResult& c) {
  const model::Request& q = *c.request;
  const std::string steps = std::to_string(q.gen_len - 1);
  return "requests: batch " + std::to_string(c.info.batch) + " x (prompt " + std::to_string(q.prompt_len) + " + " +
         std::to_string(q.gen_len) + " output tokens): TTFT = the prefill, TPOT = mean of " + steps +
         " decode steps at contexts " + std::to_string(q.prompt_len + 1) + " .. " +
         std::to_string(q.prompt_len + q.gen_len - 1) + " (each at its own context)" +
         (c.ranked == model::RankBy::kListed ? "" : "; ranked by " + model::to_string(c.ranked)) + "\n" +
         render_text(request_table(c));
}

// The deployment's columns of the comparison (per step; the collectives per chip).
void add_deploy_columns(Table& t, const model::CompareResult& c) {
  for (const char* h : {"chips", "coll_dtype", "weights_GB/chip", "prefill_coll_ms", "decode_coll_ms",
                        "decode_coll_KB/chip", "decode_link_mJ", "decode_bubble_%"}) {
    t.headers.emplace_back(h);
    t.right_align.push_back(true);
  }
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const model::DeployRow& d = *c.rows[i].deploy;
    auto& row = t.rows[i];
    row.push_back(std::to_string(c.deployment->parallel.chips()));
    row.push_back(d.collective.dtype);
    row.push_back(fixed(static_cast<double>(d.weight_bytes_per_chip) / 1e9, 3));
    row.push_back(fixed(d.prefill.collective_s * 1e3, 3));
    row.push_back(fixed(d.decode.collective_s * 1e3, 3));
    row.push_back(fixed(static_cast<double>(d.decode.collective_bytes) / 1e3, 1));
    row.push_back(fixed(d.decode.link_energy_j * 1e3, 3));
    row.push_back(fixed(100.0 * d.decode.bubble_fraction, 1));
  }
}

}  // namespace

std::string render(const model::CompareResult& c, Format fmt) {
  if (fmt == Format::kHtml) throw InternalError("the compare html view needs the arch: report::html::compare_doc");
  if (fmt == Format::kJson) {
    json j = run_info_json(c.info);
    j["rows"] = json::array();
    for (const auto& r : c.rows) {
      json x;
      x["scheme"] = r.scheme;
      x["prefill"] = {{"latency_s", r.prefill.latency_s},
                      {"dram_bytes", r.prefill.dram_bytes},
                      {"scale_dram_bytes", r.prefill.scale_dram_bytes},
                      {"energy_j", r.prefill.energy_j},
                      {"energy_by_term_j", energy_json(r.prefill.energy_by_term)},
                      {"non_gemm_latency_s", r.prefill.non_gemm_latency_s},
                      {"non_gemm_dram_bytes", r.prefill.non_gemm_dram_bytes},
                      {"non_gemm_energy_j", r.prefill.non_gemm_energy_j},
                      {"tokens_per_s", r.prefill_tokens_per_s}};
      x["decode"] = {{"latency_s", r.decode.latency_s},
                     {"tokens_per_s", r.decode_tokens_per_s},
                     {"tokens_per_step", c.info.batch},
                     {"energy_per_token_j", r.decode_energy_per_token_j},
                     {"dram_bytes", r.decode.dram_bytes},
                     {"scale_dram_bytes", r.decode.scale_dram_bytes},
                     {"energy_j", r.decode.energy_j},
                     {"energy_by_term_j", energy_json(r.decode.energy_by_term)},
                     {"non_gemm_latency_s", r.decode.non_gemm_latency_s},
                     {"non_gemm_dram_bytes", r.decode.non_gemm_dram_bytes},
                     {"non_gemm_energy_j", r.decode.non_gemm_energy_j}};
      x["scale_traffic_share"] = r.scale_traffic_share;
      x["prefill_scale_traffic_share"] = r.prefill_scale_traffic_share;
      x["speedup_vs_first"] = r.speedup_vs_first;
      x["prefill_speedup_vs_first"] = r.prefill_speedup_vs_first;
      x["traffic_ratio_vs_first"] = r.traffic_ratio_vs_first;
      x["prefill_traffic_ratio_vs_first"] = r.prefill_traffic_ratio_vs_first;
      if (!c.searched.empty()) x["mapping"] = c.mappings.at(j["rows"].size());
      if (r.request) x["request"] = model::request_json(*r.request);
      if (r.deploy) {
        const model::Deployment& dep = c.deployments.at(r.deploy->deployment);
        x["deployment"] = model::deploy_row_json(*r.deploy, dep.parallel.ep > 1);
        if (c.deployments.size() > 1) x["deployment"].update(model::deployment_json(dep));
      }
      if (!r.other.empty()) {
        x["entries"] = json::object();
        for (const auto& e : r.other) {
          json y = sum_json(e.sum);
          y["speedup_vs_first"] = e.speedup_vs_first;
          y["traffic_ratio_vs_first"] = e.traffic_ratio_vs_first;
          x["entries"][e.entry] = y;
        }
      }
      j["rows"].push_back(x);
    }
    if (!c.searched.empty()) j["searched"] = c.searched;
    if (c.deployment) j["deployment"] = model::deployment_json(*c.deployment);
    if (c.deployments.size() > 1) {
      j["deployments"] = json::array();
      for (const auto& d : c.deployments) j["deployments"].push_back(model::deployment_json(d));
    }
    if (c.request)
      j["request"] = {{"prompt_len", c.request->prompt_len},
                      {"gen_len", c.request->gen_len},
                      {"ranked_by", model::to_string(c.ranked)}};
    return dump_json(j);
  }
  if (c.deployments.size() > 1) return render_deployments(c, fmt);
  const bool phases = c.info.has_prefill || c.info.has_decode;
  const bool other =
      std::any_of(c.rows.begin(), c.rows.end(), [](const model::CompareRow& r) { return !r.other.empty(); });
  const std::string head =
      "model " + c.info.model + " on " + c.info.arch + " (" + c.info.dataflow + " dataflow), " + run_info_text(c.info);
  if (other && !phases) {
    // no prefill or decode entry: the entries it has, never a table of zeros
    const Table o = other_table(c);
    if (fmt == Format::kCsv) return render_csv(o);
    return head + "; speedup and traffic ratio vs " + c.rows.front().scheme + "\n" + render_text(o) +
           notes_text(c.info);
  }
  Table t;
  // decode figures are per step: one token for each of the `batch` sequences; per token = per step / batch
  t.headers = {"scheme",  "prefill_ms",     "prefill_GB",       "prefill_J",     "decode_ms/step",
               "tok/s",   "decode_MB/step", "decode_mJ/step",   "decode_mJ/tok", "decode_scale_%",
               "speedup", "traffic_ratio",  "decode_non_gemm_%"};
  t.right_align = {false, true, true, true, true, true, true, true, true, true, true, true, true};
  // CSV: one column per energy term and phase after the others (the text table keeps the totals only)
  const bool csv = fmt == Format::kCsv;
  if (csv) {
    for (auto& h : energy_columns("prefill_", "_J")) t.headers.push_back(std::move(h));
    for (auto& h : energy_columns("decode_", "_mJ/step")) t.headers.push_back(std::move(h));
  }
  for (const auto& r : c.rows) {
    t.rows.push_back(
        {r.scheme, fixed(r.prefill.latency_s * 1e3, 1), fixed(static_cast<double>(r.prefill.dram_bytes) / 1e9, 3),
         fixed(r.prefill.energy_j, 3), fixed(r.decode.latency_s * 1e3, 2), fixed(r.decode_tokens_per_s, 2),
         megabytes(r.decode.dram_bytes), fixed(r.decode.energy_j * 1e3, 2), fixed(r.decode_energy_per_token_j * 1e3, 3),
         fixed(100.0 * r.scale_traffic_share, 2), fixed(r.speedup_vs_first, 2), fixed(r.traffic_ratio_vs_first, 3),
         fixed(100.0 * (r.decode.latency_s > 0 ? r.decode.non_gemm_latency_s / r.decode.latency_s : 0.0), 1)});
    if (!csv) continue;
    for (const auto term : cost::kEnergyTerms) t.rows.back().push_back(fixed(r.prefill.energy_by_term[term], 3));
    for (const auto term : cost::kEnergyTerms) t.rows.back().push_back(fixed(r.decode.energy_by_term[term] * 1e3, 2));
  }
  if (!c.searched.empty()) {  // compare --search: each row at its scheme's own best mapping
    t.headers.push_back("mapping");
    t.right_align.push_back(false);
    for (std::size_t i = 0; i < t.rows.size(); ++i) t.rows[i].push_back(c.mappings.at(i));
  }
  if (c.deployment) add_deploy_columns(t, c);
  if (c.request && csv) {  // the request's columns after the others
    for (const auto& h : request_headers()) t.headers.push_back(h);
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (auto& cell : request_cells(*c.rows[i].request)) t.rows[i].push_back(std::move(cell));
  }
  if (csv) return render_csv(t);
  const std::string others = (other ? "\nother entries:\n" + render_text(other_table(c)) : std::string()) +
                             (c.request ? "\n" + request_text(c) : std::string());
  if (!c.searched.empty())
    return "model " + c.info.model + " on " + c.info.arch +
           ", each scheme at its own best mapping (search: " + c.searched + "; tiles per GEMM), " +
           run_info_text(c.info) + "; speedup and traffic ratio: decode, vs " + c.rows.front().scheme + "\n" +
           render_text(t) + others + notes_text(c.info);
  const std::string over =
      c.deployment ? "; over " + std::to_string(c.deployment->parallel.chips()) +
                         " chips: latency, energy and DRAM bytes per step of the whole deployment, coll_* per chip"
                   : std::string();
  return head + over + "; speedup and traffic ratio: decode, vs " + c.rows.front().scheme + "\n" + render_text(t) +
         others + notes_text(c.info);
}

}  // namespace tenet_cost::report
