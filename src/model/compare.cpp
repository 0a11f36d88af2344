// The scheme comparison: per-phase sums of each scheme's run, and ratios against the first (docs/model.md).
#include <set>

#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

std::vector<std::optional<quant::Scheme>> compare_schemes(const std::string& list, bool dump_given) {
  std::vector<std::optional<quant::Scheme>> schemes;
  // a DUMP given without --quant: its own quantization is the first row (the baseline of the ratios)
  if (dump_given && list.empty()) schemes.emplace_back(std::nullopt);
  if (list.empty()) {
    for (const auto& name : default_schemes()) schemes.emplace_back(quant::parse_scheme(name));
    return schemes;
  }
  for (auto& s : quant::parse_scheme_list(list)) schemes.emplace_back(std::move(s));  // "a, b": spaces trimmed
  if (schemes.empty()) throw InputError("--quant needs at least one scheme (valid schemes: `tenet-cost quant list`)");
  return schemes;
}

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
double ratio(std::int64_t a, std::int64_t b) { return ratio(static_cast<double>(a), static_cast<double>(b)); }

// A dump's own quantization: its schemes joined by '+', or q0f16 when none.
std::string dump_scheme_name(const Model& model) {
  std::set<std::string> found;
  for (const auto& g : model.gemms)
    if (g.dump_scheme) found.insert(g.dump_scheme->name);
  std::string name;
  for (const auto& f : found) name += (name.empty() ? "" : "+") + f;
  return (name.empty() ? std::string("q0f16") : name) + std::string(kDumpSchemeSuffix);
}

}  // namespace

CompareRow compare_row(std::string scheme, const ModelResult& r) {
  CompareRow row;
  row.scheme = std::move(scheme);
  for (const auto& [entry, t] : r.totals) {
    const Phase phase = r.entry_phase.at(entry);
    PhaseSum* p = phase == Phase::kPrefill ? &row.prefill : phase == Phase::kDecode ? &row.decode : nullptr;
    if (!p) {
      row.other.push_back(EntrySum{entry, {}, 0, 0});
      p = &row.other.back().sum;
    }
    p->latency_s += t.latency_s;
    p->energy_j += t.energy_j;
    p->energy_by_term.add(t.energy_by_term);
    p->dram_bytes += t.dram_bytes;
    p->scale_dram_bytes += t.scale_dram_bytes;
    p->non_gemm_latency_s += t.non_gemm_latency_s;
    p->non_gemm_energy_j += t.non_gemm_energy_j;
    p->non_gemm_dram_bytes = checked_add(p->non_gemm_dram_bytes, t.non_gemm_dram_bytes, "DRAM bytes");
  }
  return row;
}

std::string scheme_label(const Model& model, const std::optional<quant::Scheme>& s) {
  return s ? s->name : dump_scheme_name(model);
}

void set_ratios(CompareResult& out, const Phases& phases) {
  if (out.rows.empty()) return;
  const CompareRow first = out.rows.front();
  for (auto& r : out.rows) {
    const auto batch = static_cast<double>(phases.batch);
    r.prefill_tokens_per_s = ratio(batch * static_cast<double>(phases.seq_len), r.prefill.latency_s);
    r.decode_tokens_per_s = ratio(batch, r.decode.latency_s);
    r.decode_energy_per_token_j = r.decode.energy_j / batch;
    r.scale_traffic_share = ratio(r.decode.scale_dram_bytes, r.decode.dram_bytes);
    r.prefill_scale_traffic_share = ratio(r.prefill.scale_dram_bytes, r.prefill.dram_bytes);
    r.speedup_vs_first = ratio(first.decode.latency_s, r.decode.latency_s);
    r.prefill_speedup_vs_first = ratio(first.prefill.latency_s, r.prefill.latency_s);
    r.traffic_ratio_vs_first = ratio(r.decode.dram_bytes, first.decode.dram_bytes);
    r.prefill_traffic_ratio_vs_first = ratio(r.prefill.dram_bytes, first.prefill.dram_bytes);
    for (std::size_t i = 0; i < r.other.size() && i < first.other.size(); ++i) {
      EntrySum& e = r.other[i];
      e.speedup_vs_first = ratio(first.other[i].sum.latency_s, e.sum.latency_s);
      e.traffic_ratio_vs_first = ratio(e.sum.dram_bytes, first.other[i].sum.dram_bytes);
    }
  }
}

CompareResult compare(cost::Estimator& est, const Model& model, const Phases& phases,
                      const std::vector<std::optional<quant::Scheme>>& schemes,
                      const std::function<void(std::size_t, const std::string&)>& progress) {
  CompareResult out;
  out.info = run_info(model, est, phases);
  for (const auto& s : schemes) {
    out.rows.push_back(compare_row(scheme_label(model, s), run_model(est, model, s)));
    if (progress) progress(out.rows.size(), out.rows.back().scheme);
  }
  set_ratios(out, phases);
  return out;
}

}  // namespace tenet_cost::model
