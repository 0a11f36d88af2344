// One GEMM on the hardware: array level per distinct tile shape, buffer <-> DRAM by the
// loop-nest model, extra work of the scheme, the cost terms and energy (docs/model.md).
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "conv_window.hpp"
#include "levels.hpp"
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

// Buffer reads of a scale applied once per output (Apply::kOutput): the output rescale reads the scale's elements of
// each output tile once, at the tile's last K step. Per output loop: the elements it spans summed over the tiles
// (an index d: the extent; floor(d/g): per tile ceil(tile/g)), or one per tile (a loop it does not index).
std::int64_t output_scale_reads(const Operand& op, const GemmShape& s, const Tile& t) {
  const auto along = [&](char dim, std::int64_t extent, std::int64_t tile) {
    const std::int64_t full = extent / tile, rem = extent % tile;
    for (const auto& x : op.index)
      if (x.dim == dim)
        return checked_add(checked_mul(full, ceil_div(tile, x.divisor), "scale reads"),
                           rem ? ceil_div(rem, x.divisor) : 0, "scale reads");
    return ceil_div(extent, tile);
  };
  return checked_mul(checked_mul(along('i', s.m, t.m), along('j', s.n, t.n), "scale reads"), s.batch, "scale reads");
}

// Bits per element of an operand inside the PE array (NoC transfers).
i128 array_bits_of(const Operand& op, std::int64_t elems) {
  if (op.array_bits > 0) return static_cast<i128>(elems) * op.array_bits;
  return static_cast<i128>(elems) * op.bits_num / op.bits_den;
}

}  // namespace

// The engine's view of a GEMM's array operands: its counts depend on the access relations (and whether a tensor is
// written), never on the names, so the operands are named by position of their relation (X0, X1, ...) and operands
// of one relation (a group scale and its zero point, SW[j, floor(k/g)] and ZW[j, floor(k/g)]) are one tensor. One
// compile then serves every structure equal up to names (A.W = C, Q.K = P, P.V = O; w4a16-g128 with or without
// zero points).
// (Outside the anonymous namespace: engine_problem's lambda captures one, and a unity build would otherwise
// give that lambda a member of internal linkage: -Wsubobject-linkage.)
struct EngineOperands {
  std::vector<Operand> tensors;   // distinct relations, named X0, X1, ...
  std::vector<std::size_t> slot;  // per operand of the GEMM: its tensor (SIZE_MAX: not in the array)
};

namespace {

EngineOperands engine_operands(const std::vector<Operand>& ops) {
  EngineOperands out;
  std::vector<std::string> relations;
  for (const auto& op : ops) {
    if (!op.in_array()) {
      out.slot.push_back(SIZE_MAX);
      continue;
    }
    Operand x = op;
    x.name = "X";
    const std::string rel = x.relation() + (x.write ? " w" : " r");
    const auto it = std::find(relations.begin(), relations.end(), rel);
    if (it != relations.end()) {
      out.slot.push_back(static_cast<std::size_t>(it - relations.begin()));
      continue;
    }
    out.slot.push_back(relations.size());
    relations.push_back(rel);
    x.name = "X" + std::to_string(out.tensors.size());
    out.tensors.push_back(std::move(x));
  }
  return out;
}

// The position of an engine tensor's name ("X12" -> 12); SIZE_MAX for any other name.
std::size_t engine_position(const std::string& name) {
  std::size_t i = 0;
  if (name.size() < 2 || name[0] != 'X') return SIZE_MAX;
  const auto [end, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), i);
  return ec == std::errc() && end == name.data() + name.size() ? i : SIZE_MAX;
}

}  // namespace

// What one GEMM's cost reads of its scheme: evaluate takes these, never the scheme, so they key the memo exactly.
// `ops` are placed for the MAC path the arch takes (quant::place_dequantized on the dequantized path).
struct GemmInputs {
  std::vector<Operand> ops;
  std::int64_t accum_bits = 32;
  MacPrecision precision = MacPrecision::kFp16;  // quant::compute_precision
  quant::ExtraWork work;
  std::vector<Operand> arr;  // quant::array_operands(ops): derived, not compared
  arch::Arch::MacUnit unit;  // arch.mac_unit(precision): derived from the Estimator's arch, not compared
  bool operator==(const GemmInputs& o) const {
    return ops == o.ops && accum_bits == o.accum_bits && precision == o.precision && work.dequant == o.work.dequant &&
           work.act_quant_ops == o.work.act_quant_ops && work.rescale_ops == o.work.rescale_ops;
  }
};

// (GemmKey and GemmKeyHash key GemmMemo's map: outside the anonymous namespace, like GemmInputs, since GemmMemo is
// declared in cost.hpp.)
struct GemmKey {
  GemmShape shape;
  GemmInputs in;
  Tile user;
  bool operator==(const GemmKey&) const = default;
};

struct GemmKeyHash {
  std::size_t operator()(const GemmKey& k) const {
    std::size_t h = 0;
    const auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (const std::int64_t v : {k.shape.batch, k.shape.m, k.shape.n, k.shape.k, k.user.m, k.user.n, k.user.k,
                                 k.in.accum_bits, k.in.work.act_quant_ops, k.in.work.rescale_ops})
      mix(std::hash<std::int64_t>{}(v));
    mix(static_cast<std::size_t>(k.shape.role) * 4 + (k.shape.scores_on_chip ? 2 : 0) + (k.in.work.dequant ? 1 : 0));
    mix(std::hash<std::string>{}(k.user.order));
    mix(static_cast<std::size_t>(k.in.precision));
    for (const auto& op : k.in.ops) {
      mix(std::hash<std::string>{}(op.name));
      mix(static_cast<std::size_t>(op.bits_num * 31 + op.bits_den));
    }
    return h;
  }
};

class GemmMemo {
 public:
  // The cached cost, or nullptr. References stay valid (nodes are never erased).
  const GemmCost* find(const GemmKey& k) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = map_.find(k);
    return it == map_.end() ? nullptr : &it->second;
  }
  // Inserts (the first result stays when two threads computed the same key: they are equal).
  const GemmCost& insert(GemmKey k, GemmCost c) {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.emplace(std::move(k), std::move(c)).first->second;
  }
  // The engine's compiled problem of one operand structure (`key`: the operands' relations), made by `make` on the
  // first request (outside the lock: two threads may both compile it, the first stays; the closed forms are exact,
  // so either gives the same counts). tenet::evaluate on the result is thread-safe; nodes are never erased.
  template <class Make>
  const tenet::CompiledProblem& compiled(const std::string& key, Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto it = compiled_.find(key);
      if (it != compiled_.end()) return it->second;
    }
    tenet::CompiledProblem c = make();
    std::lock_guard<std::mutex> lock(mu_);
    return compiled_.emplace(key, std::move(c)).first->second;
  }
  // The closed forms of every compiled problem of this memo (one arch, dataflow and options): count groups equal
  // between operand structures (the plain A, W, C of a scheme with group scales) are counted once.
  [[nodiscard]] const std::shared_ptr<tenet::FormCache>& forms() const { return forms_; }

 private:
  std::mutex mu_;
  std::unordered_map<GemmKey, GemmCost, GemmKeyHash> map_;
  std::map<std::string, tenet::CompiledProblem> compiled_;
  std::shared_ptr<tenet::FormCache> forms_ = tenet::make_form_cache();
};

std::shared_ptr<GemmMemo> make_gemm_memo() { return std::make_shared<GemmMemo>(); }

namespace {

// The array's time stamps over the GEMM at tile t (batch excluded): the preset's closed form, else ceil(MACs / PEs)
// per tile, a floor (what the innermost level's tile choice minimises first).
i128 array_stamps_of(const std::optional<mapping::Preset>& preset, std::int64_t rows, std::int64_t cols,
                     const GemmShape& s, const Tile& t) {
  i128 stamps = 0;
  detail::for_each_tile_shape(s, t, [&](i128 tm, i128 tn, i128 tk, std::int64_t count) {
    stamps += (preset ? mapping::preset_time_stamps<i128>(*preset, rows, cols, tm, tn, tk)
                      : (tm * tn * tk + rows * cols - 1) / (rows * cols)) *
              count;
  });
  return stamps;
}

}  // namespace

// The array level summed over the tiles of one GEMM: per statement operand its total, unique and temporal-unique
// volumes, plus the cycles, time stamps and folds of the array.
struct ArraySums {
  std::vector<std::int64_t> unique, total, temporal_unique;  // by position in the array operands
  const std::vector<Operand>* arr = nullptr;                 // the array operands
  [[nodiscard]] std::size_t at(const std::string& name) const {
    for (std::size_t i = 0; i < arr->size(); ++i)
      if ((*arr)[i].name == name) return i;
    throw InternalError("array model returned no volume for tensor " + name);
  }
  std::int64_t c_writes = 0, compute_cycles = 0, folds = 0;
};

struct Estimator::Impl {
  arch::Arch arch;
  mapping::Dataflow dataflow;
  Options options;
  std::int64_t evaluations = 0;
  tenet::Metrics engine_out;     // reused storage of tenet::evaluate
  mapping::TileVolumes volumes;  // reused storage of tile_metrics
  tenet::Deadline search_end;    // the time limit of the current tile search (every engine call of it)
  ArraySums sums;                // reused storage of array_level
  std::shared_ptr<GemmMemo> memo;
  // the engine's compiled problem of one operand list (engine_problem)
  struct EngineProblem {
    std::vector<Operand> ops;       // the GEMM's array operands
    std::vector<std::size_t> slot;  // EngineOperands::slot
    const tenet::CompiledProblem* problem = nullptr;
  };
  // this Estimator's operand lists and their compiled problems (in the memo): no key built per tile
  std::deque<EngineProblem> engine;

  // The engine's compiled problem of `ops` (the array operands): found by the operand list in `engine` (this
  // Estimator's), else in the memo by the engine tensors' relations (engine_operands), else compiled at tm x tn x tk.
  const EngineProblem& engine_problem(std::int64_t tm, std::int64_t tn, std::int64_t tk,
                                      const std::vector<Operand>& ops) {
    for (const auto& e : engine)
      if (e.ops == ops) return e;
    EngineOperands eo = engine_operands(ops);
    std::string key;
    for (const auto& t : eo.tensors) key += "|" + t.relation() + (t.write ? " w" : " r");
    const tenet::CompiledProblem& problem = memo->compiled(key, [&] {
      tenet::AnalyzeOptions ao;
      ao.spatial_reuse = false;
      ao.time_limit_s = options.engine_time_limit_s;
      ao.max_instance_points = options.engine_max_points;
      ao.max_work = std::max(ao.max_work, checked_mul(options.engine_max_points, 200, "engine work limit"));
      ao.context = "a tile of a GEMM under dataflow " + dataflow.name + " on " + arch.name + " (compiled first at " +
                   std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(tk) + ")";
      return tenet::compile_parametric(mapping::tile_problem(arch, dataflow, tm, tn, tk, eo.tensors), ao, &search_end,
                                       memo->forms());
    });
    engine.push_back({ops, std::move(eo.slot), &problem});
    return engine.back();
  }

  // The array-level metrics of one tile: the proven closed forms when the method allows them and they cover every
  // operand (a typed capability: closed_form_tile returns nullopt otherwise), else the TENET engine.
  // `tmx`: by position in `ops` (reused storage).
  void tile_metrics(std::int64_t tm, std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops,
                    ArrayModel& model, mapping::TileVolumes& tmx) {
    const bool closed_ok = mapping::closed_forms_apply(arch, dataflow);
    if (options.method != ArrayMethod::kEngine && closed_ok &&
        mapping::closed_form_volumes(*dataflow.preset, arch.rows, arch.cols, tm, tn, tk, ops, tmx)) {
      ++evaluations;  // microseconds: not cached (the tile search evaluates many)
      model = ArrayModel::kClosedForm;
      return;
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
    // the engine: one parametric compile per operand structure (the mapping and array are the Estimator's; kept in
    // the memo, so Estimators sharing it compile once), then every tile size from its closed forms (tenet::evaluate
    // equals tenet::analyze of that tile exactly)
    search_end.check();  // a tile search evaluates many tiles: the limit bounds all of them together
    const EngineProblem& ep = engine_problem(tm, tn, tk, ops);
    ++evaluations;
    const std::int64_t extents[3] = {tm, tn, tk};
    tenet::evaluate(*ep.problem, extents, engine_out, &search_end);
    tmx.macs = engine_out.macs;
    tmx.time_stamps = engine_out.time_stamps;
    tmx.active_pes = engine_out.active_pes;
    tmx.unique.assign(ops.size(), -1);
    tmx.total.assign(ops.size(), -1);
    tmx.temporal_unique.assign(ops.size(), -1);
    for (const auto& t : engine_out.tensors) {
      const std::size_t x = engine_position(t.name);
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ep.slot[i] == x) {
          tmx.unique[i] = t.unique_volume;
          tmx.total[i] = t.total_volume;
          tmx.temporal_unique[i] = t.temporal_unique_volume;
        }
    }
    model = ArrayModel::kEngine;
  }

  GemmCost evaluate(const GemmShape& s, const GemmInputs& in, const Tile& user);
  const ArraySums& array_level(GemmCost& c, const std::vector<Operand>& arr, arch::Arch::Rate rate,
                               const Tile& array_tile);
  GemmCost evaluate_at(const GemmShape& s, const GemmInputs& in, const Tile& tile);
  [[nodiscard]] i128 array_stamps(const GemmShape& s, const Tile& t) const {
    return array_stamps_of(dataflow.preset, arch.rows, arch.cols, s, t);
  }
  std::pair<i128, i128> tensor_costs(GemmCost& c, const GemmInputs& in, const ArraySums& a, const Tile& array_tile);
};

// The best tile for the objective (tile_search.cpp: exact, pruned only by proven lower bounds).
GemmCost Estimator::Impl::evaluate(const GemmShape& s, const GemmInputs& in, const Tile& user) {
  const TileFloors f = tile_floors(arch, s, in.precision);
  const bool coarse = options.method == ArrayMethod::kEngine || !mapping::closed_forms_apply(arch, dataflow);
  // buffer.buffering double: a tile may use only half the buffer (the next tile streams into the other half)
  const std::string name = arch.buffer_buffering == arch::TileBuffering::kDouble
                               ? arch.name + ", buffer.buffering double: half of " + std::to_string(arch.buffer_bytes) +
                                     " bytes usable per tile"
                               : arch.name;
  search_end = tenet::Deadline::from_now(
      options.engine_time_limit_s, "the tile search of a " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                       std::to_string(s.k) + " GEMM under dataflow " + dataflow.name + " on " +
                                       arch.name + " (TENET engine)");
  TileProblem p{s,         in.ops,    in.accum_bits, arch.tile_buffer_bytes(), name,
                arch.rows, arch.cols, coarse,        dataflow.preset,          {}};
  if (!arch.levels.empty()) {
    // levels: the tile is the outermost level's, checked against that level (docs/model.md "Memory levels"); the
    // array runs the innermost level's tiles, so the compute bound is the preset-free ceil(MACs / PEs) per tile
    p.buffer_bytes = std::numeric_limits<std::int64_t>::max() / 8;
    p.arch_name = arch.name;
    p.stamps = std::nullopt;
    const detail::LevelFanouts fans = detail::level_fanouts(arch.levels, mapping::spatial_dims(dataflow));
    const std::array<std::int64_t, 3> fan0 = fans.empty() ? std::array<std::int64_t, 3>{1, 1, 1} : fans.front();
    p.fits = [&, fan0](const Tile& t) {
      return detail::level_misfit(in.ops, s, detail::instance_tile(t, fan0), in.accum_bits, arch.levels.front());
    };
  }
  return best_tile(p, user, options.objective, f, [&](const Tile& t) { return evaluate_at(s, in, t); }).cost;
}

namespace {

// The cycle terms of one GEMM before the timing rules combine them.
struct CycleTerms {
  std::int64_t compute = 0, buffer = 0, dram = 0, dequant = 0, vector = 0;
  std::int64_t folds = 0;       // array folds (os, ws, is): what a serial load / drain pays per fold
  std::int64_t dram_write = 0;  // the part of `dram` that writes the output back (the rest fetches)
  std::int64_t tiles = 1;       // buffer tiles (batch included): the pipeline's steps
};

// c.terms, c.cycles, c.bound, c.latency_s and c.utilization from the cycle terms.
// The pipeline timing (Timing::kPipeline). On-chip work P (the array's sum `array`, and the buffer, dequantizer and
// vector units overlapping it), fetches I and write-backs O over T equal buffer tiles, double-buffered: the first
// fetch and the last write-back are exposed; tile 1's window overlaps the next fetch, tiles 2..T-1 the next fetch and
// the previous write-back, tile T the previous write-back. In totals (x T):
//   T x cycles = I + max(P, I) + (T - 2) max(P, I + O) + max(P, O) + O      (T = 1: I + P + O, nothing overlaps)
// which is never below the roofline max(P, I + O).
std::int64_t pipeline_cycles(std::int64_t array, const CycleTerms& k) {
  const i128 p = std::max({array, k.buffer, k.dequant, k.vector});
  const i128 o = k.dram_write, i = k.dram - k.dram_write, t = k.tiles;
  if (t <= 1) return checked_narrow(i + p + o, "cycles");
  const i128 total = i + std::max(p, i) + (t - 2) * std::max(p, i + o) + std::max(p, o) + o;
  return checked_narrow((total + t - 1) / t, "cycles");
}

void set_timing(GemmCost& c, const arch::Arch& arch, const mapping::Dataflow& dataflow, const CycleTerms& k,
                Timing timing) {
  // serial systolic timing: R cycles per fold to shift the stationary operand in (ws: the weights, is: the inputs) or
  // the outputs out (os)
  const bool os = dataflow.preset == mapping::Preset::kOS, ws = dataflow.preset == mapping::Preset::kWS;
  const bool is = dataflow.preset == mapping::Preset::kIS;
  if ((arch.stationary_load == arch::Buffering::kSerial || arch.output_drain == arch::Buffering::kSerial) && !os &&
      !ws && !is)
    throw InputError(
        "pe_array.stationary_load / output_drain 'serial' is modelled for the os, ws and is dataflows only, "
        "not " +
        dataflow.name);
  const std::int64_t fold_cycles = checked_mul(k.folds, arch.rows, "cycles");
  const std::int64_t load_cycles = (ws || is) && arch.stationary_load == arch::Buffering::kSerial ? fold_cycles : 0;
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
  if (timing == Timing::kPipeline)
    c.cycles = pipeline_cycles(checked_add(checked_add(k.compute, load_cycles, "cycles"), drain_cycles, "cycles"), k);
  c.latency_s = static_cast<double>(c.cycles) / (static_cast<double>(arch.clock_mhz) * 1e6);
  const double peak = static_cast<double>(c.cycles) * static_cast<double>(arch.rows * arch.cols) *
                      static_cast<double>(c.mac_rate_num) / static_cast<double>(c.mac_rate_den);
  c.utilization = peak > 0 ? static_cast<double>(c.macs) / peak : 0.0;
}

// c.energy_by_term and c.energy_j (pJ per event from the arch; `buffer_pj` the on-chip levels' energy, the NoC bits).
void set_energy(GemmCost& c, const arch::Arch& arch, double buffer_pj, i128 noc_bits) {
  // energy by term (pJ), summed in enum order; each term in J beside the total
  const auto mac_pj = arch.mac_pj.find(c.precision);
  std::array<double, kEnergyTerms.size()> pj{};
  pj[static_cast<std::size_t>(EnergyTerm::kMac)] =
      static_cast<double>(c.macs) * (mac_pj == arch.mac_pj.end() ? 0.0 : mac_pj->second);
  pj[static_cast<std::size_t>(EnergyTerm::kDram)] = static_cast<double>(c.dram_bytes) * 8.0 * arch.dram_pj_per_bit;
  pj[static_cast<std::size_t>(EnergyTerm::kBuffer)] = buffer_pj;
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

// Conversions before the MACs: the weight of a scheme that dequantizes it, and on the dequantized MAC path (an
// arch without the scheme's block-scaled unit) every activation / weight operand narrower than 16 bits; at the edge
// one per element entering the array (unique volume), in the PE one per MAC and operand.
std::int64_t dequant_ops(const arch::Arch& arch, const std::vector<Operand>& ops, const ArraySums& a, std::int64_t macs,
                         bool weight, bool dequantized_path) {
  std::int64_t count = 0, operands = 0;
  for (const auto& op : ops) {
    const bool narrow = (op.role == quant::OperandRole::kActivation || op.role == quant::OperandRole::kWeight) &&
                        op.bits_num < 16 * op.bits_den;
    if ((weight && op.role == quant::OperandRole::kWeight) || (dequantized_path && narrow)) {
      ++operands;
      count = checked_add(count, a.unique[a.at(op.name)], "dequant ops");
    }
  }
  if (arch.dequant_placement == arch::DequantPlacement::kPE) return checked_mul(macs, operands, "dequant ops");
  return count;
}

}  // namespace

const ArraySums& Estimator::Impl::array_level(GemmCost& c, const std::vector<Operand>& arr, arch::Arch::Rate rate,
                                              const Tile& array_tile) {
  ArraySums& a = sums;  // storage reused across the tile search's evaluations
  a.c_writes = a.compute_cycles = a.folds = 0;
  a.arr = &arr;
  const GemmShape& s = c.shape;
  a.unique.assign(arr.size(), 0);
  a.total.assign(arr.size(), 0);
  a.temporal_unique.assign(arr.size(), 0);
  const auto add = [](std::int64_t& to, std::int64_t v, std::int64_t reps) {
    to = checked_add(to, checked_mul(v, reps, "volume"));
  };
  detail::for_each_tile_shape(
      s, array_tile, [&](std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t count) {
        const std::int64_t reps = checked_mul(count, s.batch, "tiles");
        tile_metrics(tm, tn, tk, arr, c.array_model, volumes);
        const mapping::TileVolumes& t = volumes;
        c.tiles = checked_add(c.tiles, reps);
        c.time_stamps = checked_add(c.time_stamps, checked_mul(t.time_stamps, reps, "time stamps"));
        a.compute_cycles = checked_add(
            a.compute_cycles,
            checked_mul(ceil_div(checked_mul(t.time_stamps, rate.den, "cycles"), rate.num), reps, "cycles"));
        c.active_pes = std::max(c.active_pes, t.active_pes);
        if (dataflow.preset == mapping::Preset::kOS)
          a.folds = checked_add(a.folds, checked_mul(ceil_div(tm, arch.rows) * ceil_div(tn, arch.cols), reps, "folds"));
        else if (dataflow.preset == mapping::Preset::kWS)
          a.folds = checked_add(a.folds, checked_mul(ceil_div(tn, arch.cols) * ceil_div(tk, arch.rows), reps, "folds"));
        else if (dataflow.preset == mapping::Preset::kIS)  // A[i, k] stationary: k on the rows, i on the columns
          a.folds = checked_add(a.folds, checked_mul(ceil_div(tm, arch.cols) * ceil_div(tk, arch.rows), reps, "folds"));
        for (std::size_t i = 0; i < arr.size(); ++i) {
          const Operand& op = arr[i];
          if (t.unique[i] < 0 || t.total[i] < 0 || t.temporal_unique[i] < 0)
            throw InternalError("array model returned no volume for tensor " + op.name);
          add(a.unique[i], t.unique[i], reps);
          add(a.total[i], t.total[i], reps);
          add(a.temporal_unique[i], t.temporal_unique[i], reps);
          if (op.write) a.c_writes = checked_add(a.c_writes, checked_mul(t.unique[i], reps, "output writes"));
        }
      });
  return a;
}

namespace {

// Where a read operand's uses are served (docs/model.md "Data movement by reuse class"): from the register of the
// unit that uses it (the same element as at its previous stamp), from a neighbour PE (NoC), or from the buffer.
// `owner_unique`: the elements of the operand a scale belongs to entering the array (what an edge dequantizer
// converts).
void set_reuse_classes(TensorCost& tc, const Operand& op, const ArraySums& a, const GemmShape& s, const Tile& tile,
                       std::int64_t owner_unique) {
  switch (op.apply) {
    case quant::Apply::kMac:
    case quant::Apply::kGroup: {  // in the array: the engine's reuse analysis
      const std::size_t i = a.at(op.name);
      const std::int64_t uv = a.unique[i], uvt = a.temporal_unique[i];
      tc.total_elems = a.total[i];
      tc.buffer_elems = uv;
      tc.noc_elems = std::max<std::int64_t>(0, uvt - uv);
      tc.register_elems = std::max<std::int64_t>(0, tc.total_elems - uvt);
      return;
    }
    case quant::Apply::kEdge:  // read by the edge dequantizer as the weight enters; never in the array
      tc.buffer_elems = a.unique[a.at(op.name)];
      tc.total_elems = std::max(owner_unique, tc.buffer_elems);
      break;
    case quant::Apply::kOutput:  // read by the output rescale once per output tile; one use per output
      tc.buffer_elems = output_scale_reads(op, s, tile);
      tc.total_elems = std::max(checked_mul(checked_mul(s.m, s.n, "outputs"), s.batch, "outputs"), tc.buffer_elems);
      break;
  }
  tc.noc_elems = 0;
  tc.register_elems = tc.total_elems - tc.buffer_elems;
}

}  // namespace

namespace {

// A tensor's DRAM figures from its move (elements of one batch; the output's partial sums written and read back at
// the accumulator width).
void set_dram(TensorCost& tc, const Operand& op, const detail::DramMove& mv, const GemmShape& s, std::int64_t accum) {
  if (op.write) {
    tc.dram_elems =
        checked_mul(checked_add(mv.first, checked_mul(mv.partial, 2, "partials"), "elems"), s.batch, "DRAM elements");
    const i128 dbits = static_cast<i128>(mv.first) * s.batch * op.bits_num / op.bits_den +
                       static_cast<i128>(mv.partial) * s.batch * accum * 2;
    tc.dram_bytes = checked_narrow((dbits + 7) / 8, "DRAM bytes");
  } else {
    tc.dram_elems = checked_mul(mv.first, s.batch, "DRAM elements");
    tc.dram_bytes = bits_to_bytes(tc.dram_elems, op);
  }
  if (detail::stays_on_chip(s, op)) {
    tc.dram_elems = 0;  // fused attention: the scores never leave the chip
    tc.dram_bytes = 0;
  }
}

}  // namespace

// Per tensor: the array side (reuse classes, buffer reads) into c.tensors; returns the buffer and NoC bits.
std::pair<i128, i128> Estimator::Impl::tensor_costs(GemmCost& c, const GemmInputs& in, const ArraySums& a,
                                                    const Tile& array_tile) {
  const GemmShape& s = c.shape;
  std::int64_t weight_unique = 0, activation_unique = 0;
  for (const auto& op : in.ops) {
    if (op.role == quant::OperandRole::kWeight) weight_unique = a.unique[a.at(op.name)];
    if (op.role == quant::OperandRole::kActivation) activation_unique = a.unique[a.at(op.name)];
  }
  i128 buffer_bits = 0, noc_bits = 0;
  c.tensors.reserve(in.ops.size());
  const std::int64_t out_elems = checked_mul(checked_mul(s.m, s.n, "outputs"), s.batch, "outputs");
  for (const auto& op : in.ops) {
    TensorCost tc;
    tc.name = op.name;
    tc.role = op.role;
    tc.apply = op.apply;
    tc.array_bits = op.array_bits;
    tc.bits_num = op.bits_num;
    tc.bits_den = op.bits_den;
    tc.bits = op.bits_text();
    if (op.write) {
      // partial sums live in the buffer at accumulator bits: every write after an element's
      // first needs a read to accumulate into
      tc.total_elems = a.total[a.at(op.name)];
      const std::int64_t writes = a.c_writes;
      const std::int64_t reads = std::max<std::int64_t>(0, writes - out_elems);
      tc.buffer_elems = checked_add(writes, reads, "output buffer traffic");
      const i128 bbits = static_cast<i128>(tc.buffer_elems) * in.accum_bits;
      tc.buffer_bytes = checked_narrow((bbits + 7) / 8, "buffer bytes");
      buffer_bits += bbits;
    } else {
      set_reuse_classes(tc, op, a, s, array_tile,
                        op.of == quant::OperandRole::kActivation ? activation_unique : weight_unique);
      tc.buffer_bytes = bits_to_bytes(tc.buffer_elems, op);
      buffer_bits += (static_cast<i128>(tc.buffer_elems) * op.bits_num + op.bits_den - 1) / op.bits_den;
      noc_bits += array_bits_of(op, tc.noc_elems);
    }
    c.buffer_bytes = checked_add(c.buffer_bytes, tc.buffer_bytes, "buffer bytes");
    c.tensors.push_back(tc);
  }
  return {buffer_bits, noc_bits};
}

GemmCost Estimator::Impl::evaluate_at(const GemmShape& s, const GemmInputs& in, const Tile& tile) {
  const std::vector<Operand>& ops = in.ops;
  GemmCost c;
  c.shape = s;
  const std::int64_t accum = in.accum_bits;
  c.tile = tile;
  const detail::Nest nest(s, c.tile);
  c.macs = checked_mul(checked_mul(checked_mul(s.m, s.n, "MACs"), s.k, "MACs"), s.batch, "MACs");
  const arch::Arch::Rate rate = in.unit.rate;
  c.precision = in.unit.precision;
  c.mac_path = in.unit.path;
  c.mac_rate_num = rate.num;
  c.mac_rate_den = rate.den;

  // levels: the inner levels' tiles under this one; the array runs the innermost level's tiles
  // (with instances the array runs the innermost level's instance tile over all of its instances)
  const detail::LevelFanouts fans = detail::level_fanouts(arch.levels, mapping::spatial_dims(dataflow));
  const detail::LevelTiles tiles =
      arch.levels.empty() ? detail::LevelTiles{tile}
                          : detail::inner_tiles(ops, s, tile, accum, arch.levels, fans, arch.rows, arch.cols,
                                                [&](const Tile& t) { return array_stamps(s, t); });
  const Tile on_array = detail::array_tile(s, tiles, fans);
  // array level: distinct tile shapes (full / remainder per dim), the statement of the operands in the array
  const ArraySums& a = array_level(c, in.arr, rate, on_array);
  auto [buffer_bits, noc_bits] = tensor_costs(c, in, a, on_array);
  std::int64_t buffer_cycles = 0;
  double buffer_pj = 0;
  if (arch.levels.empty()) {
    for (std::size_t i = 0; i < ops.size(); ++i)
      set_dram(c.tensors[i], ops[i], detail::dram_move(ops[i], nest), s, accum);
    buffer_cycles =
        checked_narrow((buffer_bits + arch.buffer_bits_per_cycle - 1) / arch.buffer_bits_per_cycle, "cycles");
    buffer_pj = static_cast<double>(buffer_bits) * arch.buffer_pj_per_bit;
  } else {
    c.tiles = checked_mul(nest.tiles(), s.batch, "tiles");  // the outermost level's tiles (the DRAM-side pipeline)
    std::vector<std::int64_t> array_reads;
    for (const auto& tc : c.tensors)
      array_reads.push_back(tc.role == quant::OperandRole::kOutput ? tc.buffer_elems - a.c_writes : tc.buffer_elems);
    detail::LevelTraffic lt = detail::level_traffic(ops, s, tiles, fans, accum, arch.levels, array_reads, a.c_writes);
    for (std::size_t i = 0; i < ops.size(); ++i)
      set_dram(c.tensors[i], ops[i], detail::DramMove{lt.dram[i][0], lt.dram[i][1]}, s, accum);
    for (std::size_t h = 0; h < arch.levels.size(); ++h) {
      buffer_cycles = std::max(buffer_cycles, lt.levels[h].cycles);
      buffer_pj += lt.levels[h].energy_j * 1e12;
    }
    c.levels = std::move(lt.levels);
  }
  for (const auto& tc : c.tensors) {
    c.dram_bytes = checked_add(c.dram_bytes, tc.dram_bytes, "DRAM bytes");
    if (quant::is_quant_metadata(tc.role))
      c.scale_dram_bytes = checked_add(c.scale_dram_bytes, tc.dram_bytes, "scale bytes");
  }

  // extra work
  std::int64_t dequant_cycles = 0;
  const quant::ExtraWork& xw = in.work;
  if (xw.dequant || c.mac_path == arch::MacPath::kDequantized) {
    c.dequant_ops = dequant_ops(arch, ops, a, c.macs, xw.dequant, c.mac_path == arch::MacPath::kDequantized);
    if (arch.dequant_placement == arch::DequantPlacement::kEdge)
      dequant_cycles = ceil_div(c.dequant_ops, std::max<std::int64_t>(1, arch.dequant_per_cycle));
  }
  c.vector_ops = checked_mul(checked_add(xw.act_quant_ops, xw.rescale_ops, "vector ops"), s.batch, "vector ops");
  const std::int64_t vector_cycles = ceil_div(c.vector_ops, std::max<std::int64_t>(1, arch.vector_ops_per_cycle));
  const std::int64_t dram_cycles = checked_narrow(
      (static_cast<i128>(c.dram_bytes) * arch.clock_mhz + arch.dram_mb_per_s - 1) / arch.dram_mb_per_s, "cycles");

  std::int64_t write_bytes = 0;  // the output's DRAM bytes (its write-back, partial sums included)
  for (const auto& tc : c.tensors)
    if (tc.role == quant::OperandRole::kOutput) write_bytes = checked_add(write_bytes, tc.dram_bytes, "DRAM bytes");
  const std::int64_t write_cycles = std::min(
      dram_cycles,
      checked_narrow((static_cast<i128>(write_bytes) * arch.clock_mhz + arch.dram_mb_per_s - 1) / arch.dram_mb_per_s,
                     "cycles"));
  set_timing(c, arch, dataflow,
             CycleTerms{a.compute_cycles, buffer_cycles, dram_cycles, dequant_cycles, vector_cycles, a.folds,
                        write_cycles, std::max<std::int64_t>(1, c.tiles)},
             options.timing);
  set_energy(c, arch, buffer_pj, noc_bits);
  return c;
}

Estimator::Estimator(arch::Arch a, mapping::Dataflow d, Options o, std::shared_ptr<GemmMemo> memo)
    : impl_(std::make_unique<Impl>()) {
  impl_->arch = std::move(a);
  impl_->dataflow = std::move(d);
  impl_->options = std::move(o);
  impl_->memo = memo ? std::move(memo) : make_gemm_memo();
}
Estimator::~Estimator() = default;
const arch::Arch& Estimator::arch() const { return impl_->arch; }
const mapping::Dataflow& Estimator::dataflow() const { return impl_->dataflow; }
std::int64_t Estimator::array_evaluations() const { return impl_->evaluations; }

const Options& Estimator::options() const { return impl_->options; }

const GemmCost& Estimator::gemm(const GemmShape& shape, const quant::Scheme& scheme) {
  return gemm(shape, scheme, impl_->options.tile);
}

const GemmCost& Estimator::gemm(const GemmShape& given, const quant::Scheme& scheme, const Tile& user) {
  const auto& arch = impl_->arch;
  const auto& dataflow = impl_->dataflow;
  if (given.batch <= 0 || given.m <= 0 || given.n <= 0 || given.k <= 0)
    throw InputError("GEMM dimensions must be positive (batch=" + std::to_string(given.batch) +
                     ", m=" + std::to_string(given.m) + ", n=" + std::to_string(given.n) +
                     ", k=" + std::to_string(given.k) + ")");
  detail::check_conv_window(given);
  GemmShape shape = given;
  if (!arch.levels.empty()) shape.conv.reset();  // levels count a convolution's input as im2col (docs/model.md)
  GemmKey key{shape,
              GemmInputs{quant::operands(scheme, shape.role, mapping::dequant_site(arch)),
                         scheme.accum_bits,
                         quant::compute_precision(scheme, shape.role),
                         quant::extra_work(scheme, shape.role, shape.m, shape.n, shape.k),
                         {},
                         {}},
              user};
  key.in.unit = arch.mac_unit(key.in.precision);
  if (key.in.unit.path == arch::MacPath::kDequantized)  // no block-scaled unit: dequantized before the MACs
    quant::place_dequantized(key.in.ops, precision_bits(key.in.unit.precision), mapping::dequant_site(arch));
  if (const GemmCost* hit = impl_->memo->find(key)) return *hit;
  key.in.arr = quant::array_operands(key.in.ops);
  if (dataflow.generated)
    if (const auto why = mapping::illegality(*dataflow.generated, arch.interconnect, key.in.arr))
      throw InputError("dataflow " + dataflow.name + " is not legal on " + arch.name + " for scheme " + scheme.name +
                       ": " + *why);
  GemmCost c = impl_->evaluate(shape, key.in, user);
  return impl_->memo->insert(std::move(key), std::move(c));
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
