// One GEMM on the hardware: array level per distinct tile shape, buffer <-> DRAM by the
// loop-nest model, extra work of the scheme, the cost terms and energy (docs/model.md).
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <sstream>

#include "nest.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost {

using quant::Operand;

namespace {

std::int64_t bits_to_bytes(std::int64_t elems, const Operand& op) {
  const i128 bits = static_cast<i128>(elems) * op.bits_num;
  const i128 den = static_cast<i128>(op.bits_den) * 8;
  return checked_narrow((bits + den - 1) / den, "bytes");
}

// Which GEMM loop runs on the array's rows, on its columns and in time within a fold, where the dataflow says so
// plainly (os, ws, is and generated mappings); nullopt for ncf and .m files (their NoC keeps the streaming rule).
struct LoopRoles {
  char rows, cols, time;
};
std::optional<LoopRoles> loop_roles(const mapping::Dataflow& d) {
  if (d.generated) return LoopRoles{d.generated->space[0], d.generated->space[1], d.generated->time};
  if (!d.preset) return std::nullopt;
  switch (*d.preset) {
    case mapping::Preset::kOS: return LoopRoles{'i', 'j', 'k'};
    case mapping::Preset::kWS: return LoopRoles{'k', 'j', 'i'};
    case mapping::Preset::kIS: return LoopRoles{'k', 'i', 'j'};
    case mapping::Preset::kNCF: break;
  }
  return std::nullopt;
}

bool varies_along(const Operand& op, char loop) {
  return std::any_of(op.index.begin(), op.index.end(), [&](const quant::IndexTerm& t) { return t.dim == loop; });
}

// PE-to-PE transfers of a read operand over one tm x tn x tk tile (docs/model.md "NoC traffic"), from its access
// relation and the same unique / total volumes as the rest of the model:
//  - it varies along the time loop: it streams through the array, every access beyond the buffer reads is a
//    forwarded value: total - unique;
//  - it does not vary along time but along a space loop: a register per PE for the fold, filled once; each PE's
//    value comes from the buffer (unique) or from its neighbour along the space loop the operand does not vary
//    along: (PEs x folds = rows-loop extent x cols-loop extent) - unique;
//  - it varies along no loop of the fold (a per-tensor scale): one register, never forwarded: 0.
std::int64_t noc_elems(const Operand& op, const std::optional<LoopRoles>& roles, std::int64_t tm, std::int64_t tn,
                       std::int64_t tk, std::int64_t unique, std::int64_t total) {
  if (!roles || varies_along(op, roles->time)) return std::max<std::int64_t>(0, total - unique);
  if (!varies_along(op, roles->rows) && !varies_along(op, roles->cols)) return 0;
  const auto extent = [&](char loop) { return loop == 'i' ? tm : loop == 'j' ? tn : tk; };
  return std::max<std::int64_t>(0, checked_mul(extent(roles->rows), extent(roles->cols), "PE fills") - unique);
}

}  // namespace

struct Estimator::Impl {
  arch::Arch arch;
  mapping::Dataflow dataflow;
  Options options;
  std::int64_t evaluations = 0;
  std::map<std::string, tenet::CompiledProblem> compiled;  // by the operands' relations
  tenet::Metrics engine_out;                               // reused storage of tenet::evaluate
  std::map<std::string, GemmCost> gemm_cache;

  // The array-level metrics of one tile: the proven closed forms when the method allows them and they cover every
  // operand (a typed capability: closed_form_tile returns nullopt otherwise), else the TENET engine.
  mapping::TileMetrics tile_metrics(std::int64_t tm, std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops,
                                    ArrayModel& model) {
    const bool closed_ok = mapping::closed_forms_apply(arch, dataflow);
    std::optional<mapping::TileMetrics> closed;
    if (options.method != ArrayMethod::kEngine && closed_ok)
      closed = mapping::closed_form_tile(*dataflow.preset, arch.rows, arch.cols, tm, tn, tk, ops);
    if (closed) {  // microseconds: not cached (the tile search evaluates many)
      ++evaluations;
      model = ArrayModel::kClosedForm;
      return std::move(*closed);
    }
    if (options.method == ArrayMethod::kClosedForm) {
      if (!closed_ok)
        throw InputError("the closed-form array model needs dataflow os or ws on a systolic interconnect (have " +
                         dataflow.name + " on " + arch::to_string(arch.interconnect) + "); use --array-model engine");
      std::string rel;
      for (const auto& op : ops) rel += (rel.empty() ? "" : ", ") + op.relation();
      throw InputError("no closed form for the operands " + rel + " under dataflow " + dataflow.name +
                       "; use --array-model engine or auto");
    }
    // the engine: one parametric compile per operand structure (the mapping and array are the Estimator's), then
    // every tile size from its closed forms (tenet::evaluate equals tenet::analyze of that tile exactly)
    std::string key;
    for (const auto& op : ops) key += "|" + op.relation();
    auto it = compiled.find(key);
    if (it == compiled.end()) {
      tenet::AnalyzeOptions ao;
      ao.spatial_reuse = false;
      ao.time_limit_s = options.engine_time_limit_s;
      ao.context = "a tile of a GEMM under dataflow " + dataflow.name + " on " + arch.name + " (compiled first at " +
                   std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(tk) + ")";
      it = compiled.emplace(key, tenet::compile_parametric(mapping::tile_problem(arch, dataflow, tm, tn, tk, ops), ao))
               .first;
    }
    ++evaluations;
    const std::int64_t extents[3] = {tm, tn, tk};
    tenet::evaluate(it->second, extents, engine_out);
    mapping::TileMetrics tmx;
    tmx.macs = engine_out.macs;
    tmx.time_stamps = engine_out.time_stamps;
    tmx.active_pes = engine_out.active_pes;
    for (const auto& t : engine_out.tensors) {
      tmx.unique[t.name] = t.unique_volume;
      tmx.total[t.name] = t.total_volume;
    }
    model = ArrayModel::kEngine;
    return tmx;
  }

  GemmCost evaluate(const GemmShape& s, const quant::Scheme& scheme, const Tile& user);
  GemmCost evaluate_at(const GemmShape& s, const quant::Scheme& scheme, const std::vector<Operand>& ops,
                       const Tile& tile);
};

// The best tile for the objective (tile_search.cpp: exact, pruned only by proven lower bounds).
GemmCost Estimator::Impl::evaluate(const GemmShape& s, const quant::Scheme& scheme, const Tile& user) {
  if (s.batch <= 0 || s.m <= 0 || s.n <= 0 || s.k <= 0)
    throw InputError("GEMM dimensions must be positive (batch=" + std::to_string(s.batch) + ", m=" +
                     std::to_string(s.m) + ", n=" + std::to_string(s.n) + ", k=" + std::to_string(s.k) + ")");
  const auto ops = quant::operands(scheme, s.role);
  if (dataflow.generated)
    if (const auto why = mapping::illegality(*dataflow.generated, arch.interconnect, ops))
      throw InputError("dataflow " + dataflow.name + " is not legal on " + arch.name + " for scheme " + scheme.name +
                       ": " + *why);
  const TileFloors f = tile_floors(arch, s, scheme);
  const bool coarse = options.method == ArrayMethod::kEngine || !mapping::closed_forms_apply(arch, dataflow);
  const TileProblem p{s, ops, scheme.accum_bits, arch.buffer_bytes, arch.name, arch.rows, arch.cols, coarse};
  return best_tile(p, user, options.objective, f, [&](const Tile& t) { return evaluate_at(s, scheme, ops, t); }).cost;
}

namespace {

// The cycle terms of one GEMM before the timing rules combine them.
struct CycleTerms {
  std::int64_t compute = 0, buffer = 0, dram = 0, dequant = 0, vector = 0;
  std::int64_t folds = 0;  // array folds (os, ws): what a serial load / drain pays per fold
};

// c.terms, c.cycles, c.bound, c.latency_s and c.utilization from the cycle terms.
void set_timing(GemmCost& c, const arch::Arch& arch, const mapping::Dataflow& dataflow, const CycleTerms& k) {
  // serial systolic timing: R cycles per fold to shift the stationary operand in (ws) or the outputs out (os)
  const bool os = dataflow.preset == mapping::Preset::kOS, ws = dataflow.preset == mapping::Preset::kWS;
  if ((arch.stationary_load == arch::Buffering::kSerial || arch.output_drain == arch::Buffering::kSerial) && !os && !ws)
    throw InputError(
        "pe_array.stationary_load / output_drain 'serial' is modelled for the os and ws dataflows only, "
        "not " +
        dataflow.name);
  const std::int64_t fold_cycles = checked_mul(k.folds, arch.rows, "cycles");
  const std::int64_t load_cycles = ws && arch.stationary_load == arch::Buffering::kSerial ? fold_cycles : 0;
  const std::int64_t drain_cycles = os && arch.output_drain == arch::Buffering::kSerial ? fold_cycles : 0;
  // the array terms add up (compute, then the serial load / drain); the rest overlap: the slowest bounds the GEMM
  // (the first in enum order on a tie; the array's sum is reported as compute)
  c.terms = {{Term::kCompute, k.compute},       {Term::kBuffer, k.buffer}, {Term::kDram, k.dram},
             {Term::kDequant, k.dequant},       {Term::kVector, k.vector}, {Term::kStationaryLoad, load_cycles},
             {Term::kOutputDrain, drain_cycles}};
  c.cycles = checked_add(checked_add(k.compute, load_cycles, "cycles"), drain_cycles, "cycles");
  c.bound = Term::kCompute;
  for (const auto& t : c.terms)
    if (t.term != Term::kCompute && t.term != Term::kStationaryLoad && t.term != Term::kOutputDrain &&
        t.cycles > c.cycles) {
      c.cycles = t.cycles;
      c.bound = t.term;
    }
  c.latency_s = static_cast<double>(c.cycles) / (static_cast<double>(arch.clock_mhz) * 1e6);
  const double peak = static_cast<double>(c.cycles) * static_cast<double>(arch.rows * arch.cols) *
                      static_cast<double>(c.mac_rate_num) / static_cast<double>(c.mac_rate_den);
  c.utilization = peak > 0 ? static_cast<double>(c.macs) / peak : 0.0;
}

// c.energy_by_term and c.energy_j (pJ per event from the arch; bits moved through the buffer and the NoC).
void set_energy(GemmCost& c, const arch::Arch& arch, i128 buffer_bits, i128 noc_bits) {
  // energy by term (pJ), summed in enum order; each term in J beside the total
  const auto mac_pj = arch.mac_pj.find(c.precision);
  std::array<double, kEnergyTerms.size()> pj{};
  pj[static_cast<std::size_t>(EnergyTerm::kMac)] =
      static_cast<double>(c.macs) * (mac_pj == arch.mac_pj.end() ? 0.0 : mac_pj->second);
  pj[static_cast<std::size_t>(EnergyTerm::kDram)] = static_cast<double>(c.dram_bytes) * 8.0 * arch.dram_pj_per_bit;
  pj[static_cast<std::size_t>(EnergyTerm::kBuffer)] = static_cast<double>(buffer_bits) * arch.buffer_pj_per_bit;
  pj[static_cast<std::size_t>(EnergyTerm::kNoc)] = static_cast<double>(noc_bits) * arch.noc_pj_per_bit;
  pj[static_cast<std::size_t>(EnergyTerm::kDequant)] = static_cast<double>(c.dequant_ops) * arch.dequant_pj;
  pj[static_cast<std::size_t>(EnergyTerm::kVector)] = static_cast<double>(c.vector_ops) * arch.vector_op_pj;
  double energy_pj = 0;
  for (std::size_t i = 0; i < pj.size(); ++i) {
    energy_pj += pj[i];
    c.energy_by_term.j[i] = pj[i] * 1e-12;
  }
  c.energy_j = energy_pj * 1e-12;
}

}  // namespace

GemmCost Estimator::Impl::evaluate_at(const GemmShape& s, const quant::Scheme& scheme, const std::vector<Operand>& ops,
                                      const Tile& tile) {
  GemmCost c;
  c.shape = s;
  const std::int64_t accum = scheme.accum_bits;
  c.tile = tile;
  const detail::Nest nest(s, c.tile);
  c.macs = checked_mul(checked_mul(checked_mul(s.m, s.n, "MACs"), s.k, "MACs"), s.batch, "MACs");
  const arch::Arch::Rate rate = arch.mac_rate(quant::compute_precision(scheme, s.role), &c.precision);
  c.mac_rate_num = rate.num;
  c.mac_rate_den = rate.den;

  // array level: distinct tile shapes (full / remainder per dim)
  std::map<std::string, std::int64_t> unique, total, noc;
  const std::optional<LoopRoles> roles = loop_roles(dataflow);
  std::int64_t c_writes = 0, compute_cycles = 0, folds = 0;
  detail::for_each_tile_shape(s, c.tile, [&](std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t count) {
    const std::int64_t reps = checked_mul(count, s.batch, "tiles");
    const mapping::TileMetrics t = tile_metrics(tm, tn, tk, ops, c.array_model);
    c.tiles = checked_add(c.tiles, reps);
    c.time_stamps = checked_add(c.time_stamps, checked_mul(t.time_stamps, reps, "time stamps"));
    compute_cycles =
        checked_add(compute_cycles,
                    checked_mul(ceil_div(checked_mul(t.time_stamps, rate.den, "cycles"), rate.num), reps, "cycles"));
    c.active_pes = std::max(c.active_pes, t.active_pes);
    if (dataflow.preset == mapping::Preset::kOS)
      folds = checked_add(folds, checked_mul(ceil_div(tm, arch.rows) * ceil_div(tn, arch.cols), reps, "folds"));
    else if (dataflow.preset == mapping::Preset::kWS)
      folds = checked_add(folds, checked_mul(ceil_div(tn, arch.cols) * ceil_div(tk, arch.rows), reps, "folds"));
    for (const auto& op : ops) {
      const auto u = t.unique.find(op.name);
      const auto v = t.total.find(op.name);
      if (u == t.unique.end() || v == t.total.end())
        throw InternalError("array model returned no volume for tensor " + op.name);
      unique[op.name] = checked_add(unique[op.name], checked_mul(u->second, reps, "unique volume"));
      total[op.name] = checked_add(total[op.name], checked_mul(v->second, reps, "total volume"));
      if (!op.write)
        noc[op.name] = checked_add(
            noc[op.name], checked_mul(noc_elems(op, roles, tm, tn, tk, u->second, v->second), reps, "NoC transfers"));
      if (op.write) c_writes = checked_add(c_writes, checked_mul(u->second, reps, "output writes"));
    }
  });

  // buffer <-> DRAM and per-tensor costs
  i128 buffer_bits = 0, noc_bits = 0;
  const std::int64_t out_elems = checked_mul(checked_mul(s.m, s.n, "outputs"), s.batch, "outputs");
  for (const auto& op : ops) {
    TensorCost tc;
    tc.name = op.name;
    tc.role = op.role;
    tc.bits_num = op.bits_num;
    tc.bits_den = op.bits_den;
    tc.bits = op.bits_text();
    const detail::DramMove mv = detail::dram_move(op, nest);
    tc.total_elems = total[op.name];
    if (op.write) {
      // partial sums live in the buffer at accumulator bits: every write after an element's
      // first needs a read to accumulate into
      const std::int64_t writes = c_writes;
      const std::int64_t reads = std::max<std::int64_t>(0, writes - out_elems);
      tc.buffer_elems = checked_add(writes, reads, "output buffer traffic");
      const i128 bbits = static_cast<i128>(tc.buffer_elems) * accum;
      tc.buffer_bytes = checked_narrow((bbits + 7) / 8, "buffer bytes");
      buffer_bits += bbits;
      tc.dram_elems = checked_mul(checked_add(mv.first, checked_mul(mv.partial, 2, "partials"), "elems"), s.batch,
                                  "DRAM elements");
      const i128 dbits = static_cast<i128>(mv.first) * s.batch * op.bits_num / op.bits_den +
                         static_cast<i128>(mv.partial) * s.batch * accum * 2;
      tc.dram_bytes = checked_narrow((dbits + 7) / 8, "DRAM bytes");
    } else {
      tc.buffer_elems = unique[op.name];
      tc.buffer_bytes = bits_to_bytes(tc.buffer_elems, op);
      buffer_bits += (static_cast<i128>(tc.buffer_elems) * op.bits_num + op.bits_den - 1) / op.bits_den;
      tc.dram_elems = checked_mul(mv.first, s.batch, "DRAM elements");
      tc.dram_bytes = bits_to_bytes(tc.dram_elems, op);
      tc.noc_elems = noc[op.name];
      noc_bits += static_cast<i128>(tc.noc_elems) * op.bits_num / op.bits_den;
    }
    if (detail::stays_on_chip(s, op)) {
      tc.dram_elems = 0;  // fused attention: the scores never leave the chip
      tc.dram_bytes = 0;
    }
    c.dram_bytes = checked_add(c.dram_bytes, tc.dram_bytes, "DRAM bytes");
    c.buffer_bytes = checked_add(c.buffer_bytes, tc.buffer_bytes, "buffer bytes");
    if (quant::is_quant_metadata(tc.role))
      c.scale_dram_bytes = checked_add(c.scale_dram_bytes, tc.dram_bytes, "scale bytes");
    c.tensors.push_back(tc);
  }

  // extra work
  std::int64_t dequant_cycles = 0;
  const quant::ExtraWork xw = quant::extra_work(scheme, s.role, s.m, s.n, s.k);
  if (xw.dequant) {
    if (arch.dequant_placement == arch::DequantPlacement::kPE) {
      c.dequant_ops = c.macs;
    } else {
      for (const auto& op : ops)
        if (op.role == quant::OperandRole::kWeight) c.dequant_ops = unique[op.name];
      dequant_cycles = ceil_div(c.dequant_ops, std::max<std::int64_t>(1, arch.dequant_per_cycle));
    }
  }
  c.vector_ops = checked_mul(checked_add(xw.act_quant_ops, xw.rescale_ops, "vector ops"), s.batch, "vector ops");
  const std::int64_t vector_cycles = ceil_div(c.vector_ops, std::max<std::int64_t>(1, arch.vector_ops_per_cycle));
  const std::int64_t buffer_cycles = checked_narrow(
      (buffer_bits + arch.buffer_bits_per_cycle - 1) / arch.buffer_bits_per_cycle, "cycles");
  const std::int64_t dram_cycles = checked_narrow(
      (static_cast<i128>(c.dram_bytes) * arch.clock_mhz + arch.dram_mb_per_s - 1) / arch.dram_mb_per_s, "cycles");

  set_timing(c, arch, dataflow,
             CycleTerms{compute_cycles, buffer_cycles, dram_cycles, dequant_cycles, vector_cycles, folds});
  set_energy(c, arch, buffer_bits, noc_bits);
  return c;
}

Estimator::Estimator(arch::Arch a, mapping::Dataflow d, Options o) : impl_(std::make_unique<Impl>()) {
  impl_->arch = std::move(a);
  impl_->dataflow = std::move(d);
  impl_->options = std::move(o);
}
Estimator::~Estimator() = default;
const arch::Arch& Estimator::arch() const { return impl_->arch; }
const mapping::Dataflow& Estimator::dataflow() const { return impl_->dataflow; }
std::int64_t Estimator::array_evaluations() const { return impl_->evaluations; }

const Options& Estimator::options() const { return impl_->options; }

const GemmCost& Estimator::gemm(const GemmShape& shape, const quant::Scheme& scheme) {
  return gemm(shape, scheme, impl_->options.tile);
}

const GemmCost& Estimator::gemm(const GemmShape& shape, const quant::Scheme& scheme, const Tile& user) {
  std::ostringstream key;
  key << shape.batch << "x" << shape.m << "x" << shape.n << "x" << shape.k << "/" << static_cast<int>(shape.role)
      << (shape.scores_on_chip ? "f" : "") << "/" << scheme.name << "/" << scheme.description << "/" << to_string(user);
  const std::string k = key.str();
  if (const auto it = impl_->gemm_cache.find(k); it != impl_->gemm_cache.end()) return it->second;
  return impl_->gemm_cache.emplace(k, impl_->evaluate(shape, scheme, user)).first->second;
}

const Tile& Estimator::tile_for(const std::string& function, const GemmShape& shape) const {
  const Tile* t = &impl_->options.tile;
  for (const auto& r : impl_->options.rules) {
    if ((r.function.empty() || r.function == function) && (r.m == 0 || r.m == shape.m) &&
        (r.n == 0 || r.n == shape.n) && (r.k == 0 || r.k == shape.k))
      t = &r.tile;
  }
  return *t;
}

}  // namespace tenet_cost::cost
