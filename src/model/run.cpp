// Running a plan on the cost model: per-GEMM costs and per-entry totals (docs/model.md).
#include <algorithm>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

const quant::Scheme& scheme_of(const ModelGemm& g, const std::optional<quant::Scheme>& scheme) {
  static const quant::Scheme fp16 = quant::parse_scheme("q0f16");
  return scheme ? *scheme : g.dump_scheme ? *g.dump_scheme : fp16;
}

quant::GemmRole cost_role(const ModelGemm& g, const quant::Scheme& s) {
  if (g.shape.role == quant::GemmRole::kLinear && g.lm_head && !s.quantize_lm_head)
    return quant::GemmRole::kLinearUnquantized;
  return g.shape.role;
}

cost::GemmCost gemm_cost(cost::Estimator& est, const ModelGemm& g, const std::optional<quant::Scheme>& scheme) {
  const quant::Scheme& s = scheme_of(g, scheme);
  cost::GemmShape shape = g.shape;
  shape.role = cost_role(g, s);
  cost::GemmCost c = est.gemm(shape, s, est.tile_for(g.function, g.shape));
  if (g.causal_diagonal) {
    // the block runs whole (its cycles and traffic are the b x b block's); only its key <= query pairs are MACs,
    // b(b+1)/2 of b·b, and only they spend MAC energy (a masked PE is idle, docs/model.md "Attention")
    const std::int64_t b = shape.role == quant::GemmRole::kAttnQK ? shape.n : shape.k;
    const double kept = static_cast<double>(b + 1) / static_cast<double>(2 * b);
    c.macs = checked_narrow(static_cast<i128>(c.macs / b) * (b + 1) / 2, "MACs");
    c.utilization = c.utilization * kept;
    double& mac_j = c.energy_by_term[cost::EnergyTerm::kMac];
    c.energy_j -= mac_j * (1.0 - kept);
    mac_j *= kept;
  }
  return c;
}

void add_gemm(ModelResult& r, const ModelGemm& g, const cost::GemmCost& c) {
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
  t.energy_by_term.add(c.energy_by_term, static_cast<double>(n));
}

void add_op(ModelResult& r, const ModelOp& op, const cost::OpCost& c) {
  r.op_rows.emplace_back(op, c);
  EntryTotals& t = r.totals[op.entry];
  r.entry_phase[op.entry] = op.phase;
  const std::int64_t n = op.calls;
  const std::int64_t cycles = checked_mul(c.cycles, n, "total cycles");
  const std::int64_t bytes = checked_mul(c.dram_bytes, n, "total DRAM bytes");
  t.cycles = checked_add(t.cycles, cycles, "total cycles");
  t.dram_bytes = checked_add(t.dram_bytes, bytes, "total DRAM bytes");
  t.non_gemm_cycles = checked_add(t.non_gemm_cycles, cycles, "total cycles");
  t.non_gemm_dram_bytes = checked_add(t.non_gemm_dram_bytes, bytes, "total DRAM bytes");
  t.non_gemm_ops = checked_add(t.non_gemm_ops, checked_mul(c.shape.ops, n, "operator ops"), "operator ops");
  t.latency_s += c.latency_s * static_cast<double>(n);
  t.energy_j += c.energy_j * static_cast<double>(n);
  t.non_gemm_latency_s += c.latency_s * static_cast<double>(n);
  t.non_gemm_energy_j += c.energy_j * static_cast<double>(n);
  t.energy_by_term.add(c.energy_by_term, static_cast<double>(n));
}

ModelResult run_model(cost::Estimator& est, const std::vector<ModelGemm>& gemms,
                      const std::optional<quant::Scheme>& scheme) {
  ModelResult r;
  for (const auto& g : gemms) add_gemm(r, g, gemm_cost(est, g, scheme));
  return r;
}

ModelResult run_model(const std::function<cost::Estimator&(std::size_t)>& est_for, const arch::Arch& arch,
                      const Model& model, const std::optional<quant::Scheme>& scheme) {
  ModelResult r;
  for (std::size_t i = 0; i < model.gemms.size(); ++i)
    add_gemm(r, model.gemms[i], gemm_cost(est_for(i), model.gemms[i], scheme));
  for (const auto& op : model.ops) add_op(r, op, cost::vector_op(arch, op.shape));
  return r;
}

ModelResult run_model(cost::Estimator& est, const Model& model, const std::optional<quant::Scheme>& scheme) {
  return run_model([&est](std::size_t) -> cost::Estimator& { return est; }, est.arch(), model, scheme);
}

RunInfo run_info(const Model& model, std::string arch, std::string dataflow, const Phases& phases) {
  RunInfo info;
  info.model = model.name;
  info.arch = std::move(arch);
  info.dataflow = std::move(dataflow);
  info.seq_len = phases.seq_len;
  info.context = phases.context;
  info.batch = phases.batch;
  info.attention = phases.attention;
  info.notes = model.notes;  // the plan's stated assumptions (entries chosen, MoE routing, windows, ...)
  const auto has = [&](Phase p) {
    return std::any_of(model.gemms.begin(), model.gemms.end(), [&](const ModelGemm& g) { return g.phase == p; }) ||
           std::any_of(model.ops.begin(), model.ops.end(), [&](const ModelOp& o) { return o.phase == p; });
  };
  info.has_prefill = has(Phase::kPrefill);
  info.has_decode = has(Phase::kDecode);
  return info;
}

RunInfo run_info(const Model& model, const cost::Estimator& est, const Phases& phases) {
  RunInfo info = run_info(model, est.arch().name, est.dataflow().name, phases);
  if (!est.arch().levels.empty()) {
    std::string names;
    bool instances = false;
    for (const auto& l : est.arch().levels) {
      names += (names.empty() ? "" : " > ") + l.name;
      if (l.instances() > 1) names += " (" + std::to_string(l.instances()) + " instances)";
      instances = instances || l.instances() > 1;
    }
    info.notes.push_back(
        "memory levels " + names +
        ": the tile is the outermost level's (chosen by the objective); each inner level's tile divides the one "
        "above and moves the fewest bits into it; a transfer between levels is charged to the level that serves it "
        "(bandwidth and energy), DRAM to DRAM; the buffer term is the slowest level (docs/model.md \"Memory levels\")");
    if (instances)
      info.notes.push_back(
          "a level with instances splits the tile over the PE rows / columns of the dataflow: its tile and capacity "
          "are "
          "per instance, its fills summed over instances; instances that get the same element at the same step share "
          "one read from the level above (multicast) and their partial sums of one output one update (reduced; the "
          "reduction's adds are not costed); a level's cycles spread its traffic evenly over the instances holding "
          "data");
  } else if (est.arch().buffer_buffering == arch::TileBuffering::kDouble) {
    info.notes.push_back("buffer.buffering double: a tile uses at most half the buffer (" +
                         std::to_string(est.arch().tile_buffer_bytes()) + " of " +
                         std::to_string(est.arch().buffer_bytes) +
                         " bytes), the next tile streams into the other half; tiles and DRAM traffic are chosen under "
                         "that capacity");
  }
  if (est.options().timing == cost::Timing::kPipeline)
    info.notes.push_back(
        "timing pipeline: a GEMM's cycles are per buffer tile, double-buffered: the first tile's fetch and the last "
        "tile's write-back are exposed, each tile's window takes the longer of its on-chip work and the DRAM "
        "transfers it overlaps (cycles can exceed the largest term; docs/model.md \"Latency\")");
  return info;
}

EstimateResult estimate(cost::Estimator& est, const Model& model, const Phases& phases,
                        const std::optional<quant::Scheme>& scheme) {
  return EstimateResult{run_info(model, est, phases), scheme, run_model(est, model, scheme)};
}

}  // namespace tenet_cost::model
