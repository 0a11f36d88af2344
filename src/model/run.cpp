// Running a plan on the cost model: per-GEMM costs and per-entry totals (docs/model.md).
#include "tenet_cost/checked.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

const quant::Scheme& scheme_of(const ModelGemm& g, const std::optional<quant::Scheme>& scheme) {
  static const quant::Scheme fp16 = quant::parse_scheme("q0f16");
  return scheme ? *scheme : g.dump_scheme ? *g.dump_scheme : fp16;
}

ModelResult run_model(cost::Estimator& est, const std::vector<ModelGemm>& gemms,
                      const std::optional<quant::Scheme>& scheme) {
  ModelResult r;
  for (const auto& g : gemms) {
    const quant::Scheme& s = scheme_of(g, scheme);
    cost::GemmShape shape = g.shape;
    if (shape.role == quant::GemmRole::kLinear && g.lm_head && !s.quantize_lm_head)
      shape.role = quant::GemmRole::kLinearUnquantized;
    const cost::GemmCost& c = est.gemm(shape, s, est.tile_for(g.function, g.shape));
    r.rows.emplace_back(g, c);
    EntryTotals& t = r.totals[g.entry];
    r.entry_phase[g.entry] = g.phase;
    const std::int64_t n = g.calls;
    t.macs = checked_add(t.macs, checked_mul(c.macs, n, "total MACs"), "total MACs");
    t.cycles = checked_add(t.cycles, checked_mul(c.cycles, n, "total cycles"), "total cycles");
    t.dram_bytes = checked_add(t.dram_bytes, checked_mul(c.dram_bytes, n, "total DRAM bytes"), "total DRAM bytes");
    t.buffer_bytes = checked_add(t.buffer_bytes, checked_mul(c.buffer_bytes, n, "buffer bytes"), "buffer bytes");
    t.scale_dram_bytes =
        checked_add(t.scale_dram_bytes, checked_mul(c.scale_dram_bytes, n, "scale bytes"), "scale bytes");
    t.latency_s += c.latency_s * static_cast<double>(n);
    t.energy_j += c.energy_j * static_cast<double>(n);
  }
  return r;
}

RunInfo run_info(const Model& model, const cost::Estimator& est, const Phases& phases) {
  return RunInfo{model.name, est.arch().name, est.dataflow().name, phases.seq_len, phases.context};
}

EstimateResult estimate(cost::Estimator& est, const Model& model, const Phases& phases,
                        const std::optional<quant::Scheme>& scheme) {
  return EstimateResult{run_info(model, est, phases), scheme, run_model(est, model.gemms, scheme)};
}

}  // namespace tenet_cost::model
