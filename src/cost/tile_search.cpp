// The buffer tile search (cost.hpp, docs/search.md): candidates, the working-set check, proven lower bounds and the
// exact best candidate under an objective, evaluated lazily best-bound-first.
#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <string_view>

#include "nest.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost {

using detail::Nest;

namespace {

std::int64_t round_up(std::int64_t v, std::int64_t a) { return ceil_div(v, a) * a; }

}  // namespace

std::vector<std::int64_t> tile_sizes(std::int64_t extent, std::int64_t align, std::int64_t rows, std::int64_t cols) {
  align = std::max<std::int64_t>(1, align);
  std::vector<std::int64_t> c;
  if (extent / align <= 32) {
    for (std::int64_t v = align; v < extent; v += align) c.push_back(v);
  } else {
    for (const std::int64_t b : {std::int64_t{16}, rows, cols, align}) {
      if (b <= 0) continue;
      for (std::int64_t v = std::lcm(b, align); v < extent; v *= 2) {
        c.push_back(v);
        if (v > INT64_MAX / 4) break;
      }
    }
    for (std::int64_t q = 2; q <= 8; ++q) {
      const std::int64_t v = round_up(ceil_div(extent, q), align);
      if (v < extent) c.push_back(v);
    }
  }
  c.push_back(extent);
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

std::vector<std::int64_t> tile_sizes_coarse(std::int64_t extent, std::int64_t align) {
  std::vector<std::int64_t> c;
  for (std::int64_t v = std::lcm<std::int64_t>(16, std::max<std::int64_t>(1, align)); v < extent; v *= 2) {
    c.push_back(v);
    if (v > INT64_MAX / 4) break;
  }
  c.push_back(extent);
  return c;
}

namespace {

// One operand's per-GEMM table for the 64-bit enumeration: its footprint factor along each loop at each candidate size
// of that loop (1 where it does not index the loop), its whole footprint and the loops it indexes.
struct OpTable {
  std::array<std::vector<std::int64_t>, 3> tile_fp;
  std::array<bool, 3> mine{};
  std::int64_t full_fp = 1, num = 1, den = 1;
  bool write = false, dram = true;
  // the output's first write of every element, one batch and all batches (bits; the same in every order and tile)
  std::int64_t first_bits = 0, first_bits_all = 0;
};

constexpr i128 kFastLimit = i128{1} << 62;

// a * b, or kFastLimit + 1 when it exceeds kFastLimit (a, b <= kFastLimit + 1: the product fits in i128).
i128 mul_capped(i128 a, i128 b) { return std::min(a * b, kFastLimit + 1); }

// The tables of every operand, or nullopt when some candidate's working set, DRAM bits or tile count could exceed
// kFastLimit (then the checked 128-bit path runs). Bounds: a tile footprint is at most the whole footprint; the
// repetitions of an operand at most the product of the trips (at the smallest size) of the loops it does not index.
std::optional<std::vector<OpTable>> op_tables(const TileProblem& p, const std::array<std::vector<std::int64_t>, 3>& sz,
                                              const std::array<std::int64_t, 3>& ext) {
  if (p.shape.conv) return std::nullopt;  // a convolution's input moves its tiles' halos (nest.cpp): the checked path
  std::vector<OpTable> out;
  std::array<i128, 3> max_trips{};
  for (std::size_t d = 0; d < 3; ++d) max_trips[d] = ceil_div(ext[d], sz[d].front());
  i128 ws = 0, dram = 0;
  for (auto& t : max_trips) t = std::min(t, kFastLimit + 1);
  const i128 tiles = mul_capped(mul_capped(max_trips[0], max_trips[1]), max_trips[2]);
  for (const auto& op : p.ops) {
    OpTable t;
    t.num = op.bits_num;
    t.den = op.bits_den;
    t.write = op.write;
    t.dram = !detail::stays_on_chip(p.shape, op);
    i128 full = 1;
    for (std::size_t d = 0; d < 3; ++d) t.tile_fp[d].assign(sz[d].size(), 1);
    for (const auto& x : op.index) {
      if (x.dim == '0') continue;
      const auto d = static_cast<std::size_t>(detail::loop_slot(detail::loop_of(x.dim)));
      if (d > 2) return std::nullopt;  // not a GEMM loop: the checked path reports it
      t.mine[d] = true;
      full *= ceil_div(ext[d], x.divisor);
      if (full > kFastLimit) return std::nullopt;
      for (std::size_t i = 0; i < sz[d].size(); ++i) t.tile_fp[d][i] *= ceil_div(std::min(sz[d][i], ext[d]), x.divisor);
    }
    t.full_fp = static_cast<std::int64_t>(full);
    i128 reps = 1;
    for (std::size_t d = 0; d < 3; ++d)
      if (!t.mine[d]) reps = mul_capped(reps, max_trips[d]);
    ws += mul_capped(full, std::max(t.num, p.accum_bits) + t.den);
    if (t.dram)  // the exact bytes count all batches
      dram += mul_capped(mul_capped(mul_capped(full, reps), t.num + 2 * p.accum_bits), p.shape.batch);
    if (ws > kFastLimit || dram > kFastLimit) return std::nullopt;
    t.first_bits = t.full_fp * t.num / t.den;  // below `dram` (reps, batch >= 1): no overflow
    t.first_bits_all = t.full_fp * p.shape.batch * t.num / t.den;
    out.push_back(std::move(t));
  }
  if (tiles > kFastLimit) return std::nullopt;
  return out;
}

}  // namespace

namespace {

// The orders of one pattern of iterating loops (bit d: loop slot d has more than one trip) that differ in some
// operand's DRAM moves: per operand the loops whose trips multiply its moves (bit d: slot d; nest.cpp dram_move: the
// loops it does not index, outside its deepest iterating loop). Orders with equal masks have equal DRAM figures:
// only the first is computed.
struct OrderMasks {
  std::size_t order = 0;
  std::vector<std::uint8_t> mask;  // per operand table
};

// Per pattern (8) the distinct orders in order, and per pattern and order the index of its distinct entry.
struct PatternOrders {
  std::array<std::vector<OrderMasks>, 8> distinct;
  std::array<std::vector<std::size_t>, 8> entry;
};

PatternOrders pattern_orders(const std::vector<OpTable>& tables, const std::vector<std::array<std::size_t, 3>>& slots) {
  PatternOrders out;
  for (unsigned pat = 0; pat < 8; ++pat)
    for (std::size_t o = 0; o < slots.size(); ++o) {
      OrderMasks om{o, {}};
      for (const auto& op : tables) {
        std::size_t deepest = 3;
        for (std::size_t pos = 0; pos < 3; ++pos)
          if (((pat >> slots[o][pos]) & 1U) != 0 && op.mine[slots[o][pos]]) deepest = pos;
        std::uint8_t m = 0;
        for (std::size_t pos = 0; deepest < 3 && pos <= deepest; ++pos)
          if (!op.mine[slots[o][pos]]) m = static_cast<std::uint8_t>(m | (1U << slots[o][pos]));
        om.mask.push_back(m);
      }
      auto& d = out.distinct[pat];
      const auto it = std::find_if(d.begin(), d.end(), [&](const OrderMasks& x) { return x.mask == om.mask; });
      out.entry[pat].push_back(static_cast<std::size_t>(it - d.begin()));
      if (it == d.end()) d.push_back(std::move(om));
    }
  return out;
}

// The DRAM bits (one batch, for the bound) and the evaluation's exact DRAM bytes (all batches; gemm.cpp: per operand
// rounded up to bytes, scores on chip excluded) of the candidate `tr` (trips per loop) with the operands' repetition
// masks `mask` (OrderMasks).
void dram_figures(const std::vector<OpTable>& tables, const std::vector<std::uint8_t>& mask,
                  const std::array<std::int64_t, 3>& tr, std::int64_t acc, std::int64_t batch, std::int64_t& bits,
                  std::int64_t& bytes) {
  bits = 0;
  bytes = 0;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const OpTable& op = tables[i];
    if (!op.dram) continue;
    const unsigned m = mask[i];
    const std::int64_t reps = ((m & 1U) != 0 ? tr[0] : 1) * ((m & 2U) != 0 ? tr[1] : 1) * ((m & 4U) != 0 ? tr[2] : 1);
    if (op.write) {
      bits += op.first_bits + op.full_fp * (reps - 1) * acc * 2;
      bytes += (op.first_bits_all + op.full_fp * (reps - 1) * batch * acc * 2 + 7) / 8;
    } else if (op.den == 1) {  // whole bits per element (no division)
      const std::int64_t b = op.full_fp * reps * op.num;
      bits += b;
      bytes += (b * batch + 7) / 8;
    } else {
      bits += op.full_fp * reps * op.num / op.den;
      const std::int64_t den = op.den * 8;
      bytes += (op.full_fp * reps * batch * op.num + den - 1) / den;
    }
  }
}

// The candidates (tile_candidates) in enumeration-index order, or with `dominance` only the one order per tile size
// whose evaluation cannot lose to the others': the order changes nothing but the DRAM bytes, and every term the search
// compares (cycles, energy, DRAM bytes) grows with them, so the fewest DRAM bytes (then the earliest order) wins.
std::vector<TileCandidate> enumerate(const TileProblem& p, const Tile& user, bool dominance,
                                     std::int64_t* legal = nullptr) {
  const GemmShape& s = p.shape;
  const i128 cap = static_cast<i128>(p.buffer_bytes) * 8;
  const std::int64_t am = detail::align_of(p.ops, 'm'), an = detail::align_of(p.ops, 'n');
  // a convolution's k tiles hold whole kernel windows (its input's halo is counted per channel, nest.cpp)
  const std::int64_t window = s.conv ? s.conv->kernel_h * s.conv->kernel_w : 1;
  const std::int64_t ak = std::lcm(detail::align_of(p.ops, 'k'), window);
  auto check_align = [&](const char* dim, std::int64_t t, std::int64_t extent, std::int64_t a) {
    if (t < extent && t % a != 0)
      throw InputError(std::string("tile ") + dim + "=" + std::to_string(t) + " must be a multiple of " +
                       (*dim == 'k' && window > 1 ? "the group size and the kernel window " : "the group size ") +
                       std::to_string(a) + " (or cover the whole extent " + std::to_string(extent) + ")");
  };
  if (user.m) check_align("m", user.m, s.m, am);
  if (user.n) check_align("n", user.n, s.n, an);
  if (user.k) check_align("k", user.k, s.k, ak);
  auto sizes = [&](std::int64_t fixed, std::int64_t extent, std::int64_t align) {
    if (fixed) return std::vector<std::int64_t>{std::min(fixed, extent)};
    return p.coarse ? tile_sizes_coarse(extent, align) : tile_sizes(extent, align, p.rows, p.cols);
  };
  const std::array<std::vector<std::int64_t>, 3> sz{sizes(user.m, s.m, am), sizes(user.n, s.n, an),
                                                    sizes(user.k, s.k, ak)};
  const std::array<std::int64_t, 3> ext{s.m, s.n, s.k};
  std::vector<std::string> orders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
  if (!user.order.empty()) orders = {user.order};
  std::vector<TileCandidate> out;
  // an arch with levels: the outermost level's own check (the first reason kept for the error when nothing fits)
  std::optional<std::string> misfit;
  const auto misfits = [&](const Tile& t) {
    if (!p.fits) return false;
    auto why = p.fits(t);
    if (!why) return false;
    if (!misfit) misfit = std::move(why);
    return true;
  };
  i128 smallest_ws = -1;
  Tile smallest;
  const bool valid_orders = std::all_of(orders.begin(), orders.end(), [](const std::string& o) {
    return o.size() == 3 && std::is_permutation(o.begin(), o.end(), std::string_view("mnk").begin());
  });
  const auto tables = valid_orders ? op_tables(p, sz, ext) : std::nullopt;
  if (tables) {
    // every figure proven below 2^62: plain int64, no allocation but the output. Sizes outer, orders inner (the
    // working set does not depend on the order); the index is the order-major enumeration's, set at the end.
    std::array<std::vector<std::int64_t>, 3> trips;
    for (std::size_t d = 0; d < 3; ++d)
      for (const std::int64_t v : sz[d]) trips[d].push_back(ceil_div(ext[d], v));
    std::vector<std::array<std::size_t, 3>> slots;
    for (const auto& order : orders) {
      std::array<std::size_t, 3> sl{};
      for (std::size_t pos = 0; pos < 3; ++pos) sl[pos] = static_cast<std::size_t>(detail::loop_slot(order[pos]));
      slots.push_back(sl);
    }
    const PatternOrders po = pattern_orders(*tables, slots);
    std::array<std::int64_t, 6> bits_of{};  // per distinct order of the pattern
    const std::int64_t acc = p.accum_bits;
    std::int64_t fitting = 0;                              // tile sizes that fit (in every order)
    std::vector<std::pair<std::int64_t, std::size_t>> at;  // per output: (rank among fitting sizes, order)
    const std::size_t most = sz[0].size() * sz[1].size() * sz[2].size() * (dominance ? 1 : orders.size());
    out.reserve(most);
    at.reserve(most);
    for (std::size_t im = 0; im < sz[0].size(); ++im)
      for (std::size_t in = 0; in < sz[1].size(); ++in)
        for (std::size_t ik = 0; ik < sz[2].size(); ++ik) {
          std::int64_t ws = 0;
          for (const auto& op : *tables) {
            const std::int64_t fp = op.tile_fp[0][im] * op.tile_fp[1][in] * op.tile_fp[2][ik];
            ws += op.write ? fp * acc : op.den == 1 ? fp * op.num : (fp * op.num + op.den - 1) / op.den;
          }
          if (smallest_ws < 0 || ws < smallest_ws) {
            smallest_ws = ws;
            smallest = Tile{sz[0][im], sz[1][in], sz[2][ik], orders.front()};
          }
          if (ws > cap || misfits(Tile{sz[0][im], sz[1][in], sz[2][ik], orders.front()})) continue;
          const std::array<std::int64_t, 3> tr{trips[0][im], trips[1][in], trips[2][ik]};
          const auto push = [&](std::size_t o, std::int64_t bits) {
            out.push_back(
                TileCandidate{Tile{sz[0][im], sz[1][in], sz[2][ik], orders[o]}, bits, ws, tr[0] * tr[1] * tr[2], 0});
            at.emplace_back(fitting, o);
          };
          const unsigned pat = (tr[0] > 1 ? 1U : 0U) | (tr[1] > 1 ? 2U : 0U) | (tr[2] > 1 ? 4U : 0U);
          const auto& distinct = po.distinct[pat];
          std::int64_t best_bytes = -1, best_bits = 0;
          std::size_t best_o = 0;
          for (std::size_t e = 0; e < distinct.size(); ++e) {  // in order: the earliest of equal bytes stays
            std::int64_t bytes = 0;
            dram_figures(*tables, distinct[e].mask, tr, acc, s.batch, bits_of[e], bytes);
            if (best_bytes < 0 || bytes < best_bytes) {
              best_bytes = bytes;
              best_bits = bits_of[e];
              best_o = distinct[e].order;
            }
          }
          if (dominance) {
            push(best_o, best_bits);
          } else {
            for (std::size_t o = 0; o < orders.size(); ++o) push(o, bits_of[po.entry[pat][o]]);
          }
          ++fitting;
        }
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i].index = static_cast<std::int64_t>(at[i].second) * fitting + at[i].first;
    if (!dominance)
      std::sort(out.begin(), out.end(),
                [](const TileCandidate& a, const TileCandidate& b) { return a.index < b.index; });
    if (legal) *legal = fitting * static_cast<std::int64_t>(orders.size());
  } else {
    const std::vector<quant::Operand> dram_ops =
        detail::dram_operands(s, p.ops);  // the bound counts what the cost counts
    std::int64_t index = 0;
    for (const auto& order : orders)
      for (auto tm : sz[0])
        for (auto tn : sz[1])
          for (auto tk : sz[2]) {
            const Tile t{tm, tn, tk, order};
            const Nest nest(s, t);
            const i128 ws = detail::working_set_bits(p.ops, nest, p.accum_bits);
            if (smallest_ws < 0 || ws < smallest_ws) {
              smallest_ws = ws;
              smallest = t;
            }
            if (ws <= cap && !misfits(t))
              out.push_back(
                  TileCandidate{t, detail::dram_bits(dram_ops, nest, p.accum_bits), ws, nest.tiles(), index++});
          }
    if (legal) *legal = index;
  }
  if (out.empty() && misfit) throw InputError(*misfit);
  if (out.empty()) {
    const i128 need = (smallest_ws + 7) / 8;
    throw InputError("tile " + to_string(smallest) + " needs " + std::to_string(static_cast<long long>(need)) +
                     " bytes of buffer (operands at their bits, output at " + std::to_string(p.accum_bits) +
                     "-bit partial sums) but arch '" + p.arch_name + "' has " + std::to_string(p.buffer_bytes) +
                     " bytes: over by " + std::to_string(static_cast<long long>(need - p.buffer_bytes)) +
                     " bytes; choose smaller --tile factors");
  }
  return out;
}

}  // namespace

std::vector<TileCandidate> tile_candidates(const TileProblem& p, const Tile& user) { return enumerate(p, user, false); }

TileFloors tile_floors(const arch::Arch& arch, const GemmShape& s, const quant::Scheme& scheme) {
  return tile_floors(arch, s, quant::compute_precision(scheme, s.role));
}

TileFloors tile_floors(const arch::Arch& arch, const GemmShape& s, MacPrecision compute) {
  MacPrecision precision = compute;
  const arch::Arch::Rate rate = arch.mac_rate(compute, &precision);
  TileFloors f;
  f.pes = checked_mul(arch.rows, arch.cols, "PEs");
  f.rate_num = rate.num;
  f.rate_den = rate.den;
  f.clock_mhz = arch.clock_mhz;
  f.dram_mb_per_s = arch.dram_mb_per_s;
  const auto mac_pj = arch.mac_pj.find(precision);
  const std::int64_t macs = checked_mul(checked_mul(checked_mul(s.m, s.n, "MACs"), s.k, "MACs"), s.batch, "MACs");
  // the same expression as the evaluation's first energy term (so the bound is exact in floating point)
  f.mac_energy_pj = static_cast<double>(macs) * (mac_pj == arch.mac_pj.end() ? 0.0 : mac_pj->second);
  f.dram_pj_per_bit = arch.dram_pj_per_bit;
  return f;
}

ObjectiveValue objective_value(const GemmCost& c, Objective o) {
  switch (o) {
    case Objective::kLatency: return {c.cycles, 0};
    case Objective::kEnergy: return {0, c.energy_j};
    case Objective::kEdp: return {0, c.latency_s * c.energy_j};
    case Objective::kDram: return {c.dram_bytes, 0};
  }
  return {c.cycles, 0};
}

namespace {

// The value compared after the objective: energy (DRAM bytes when the objective is energy).
ObjectiveValue secondary_value(const GemmCost& c, Objective o) {
  return o == Objective::kEnergy ? ObjectiveValue{c.dram_bytes, 0} : ObjectiveValue{0, c.energy_j};
}

struct Bounds {
  ObjectiveValue primary, secondary;
};

// Integer floors of one candidate (cycles of compute, DRAM bytes and cycles) in I: i128 always correct, int64 when
// fits_int64 proved the range.
template <typename I>
void floors(const TileProblem& p, const TileCandidate& c, const TileFloors& f, I& compute, I& bytes, I& dram_cycles) {
  const GemmShape& s = p.shape;
  // compute floor: every distinct tile shape (full / remainder per dim) needs ceil(MACs / PEs) time stamps, or
  // exactly the preset's stamps (the evaluation's compute term)
  compute = 0;
  detail::for_each_tile_shape(s, c.tile, [&](I tm, I tn, I tk, std::int64_t count) {
    const I stamps = p.stamps ? mapping::preset_time_stamps<I>(*p.stamps, p.rows, p.cols, tm, tn, tk)
                              : (tm * tn * tk + f.pes - 1) / f.pes;
    compute += (stamps * f.rate_den + f.rate_num - 1) / f.rate_num * count * s.batch;
  });
  // DRAM floor of this candidate: its bits (one batch, each operand's fraction rounded down) times the batch
  bytes = (static_cast<I>(c.dram_bits) * s.batch + 7) / 8;
  dram_cycles = (bytes * f.clock_mhz + f.dram_mb_per_s - 1) / f.dram_mb_per_s;
}

// Every intermediate of floors<std::int64_t> below 2^62: MACs (plus one stamp per tile; the closed-form stamps of a
// tile are at most 3 x its MACs: bi·bj·tk + bj·tm + bi·tn with bi <= tm, bj <= tn) times the rate denominator and the
// batch; DRAM bits times the batch and the clock.
bool fits_int64(const TileProblem& p, const TileCandidate& c, const TileFloors& f) {
  const GemmShape& s = p.shape;
  constexpr i128 kLimit = i128{1} << 62;
  const i128 work = (static_cast<i128>(s.m) * s.n * s.k * 3 + f.pes + c.tiles + p.rows + p.cols) *
                    (f.rate_den + f.rate_num) * s.batch;
  const i128 dram = (c.dram_bits * s.batch + 8) * (f.clock_mhz + f.dram_mb_per_s);
  return work < kLimit && dram < kLimit;
}

Bounds bounds(const TileProblem& p, const TileCandidate& c, const TileFloors& f, Objective o) {
  i128 compute = 0, bytes = 0, dram_cycles = 0;
  if (fits_int64(p, c, f)) {
    std::int64_t c64 = 0, b64 = 0, d64 = 0;
    floors(p, c, f, c64, b64, d64);
    compute = c64;
    bytes = b64;
    dram_cycles = d64;
  } else {
    floors(p, c, f, compute, bytes, dram_cycles);
  }
  const i128 cycles = std::max(compute, dram_cycles);
  const double energy_j = (f.mac_energy_pj + static_cast<double>(bytes) * 8.0 * f.dram_pj_per_bit) * 1e-12;
  const double latency_s = static_cast<double>(cycles) / (static_cast<double>(f.clock_mhz) * 1e6);
  switch (o) {
    case Objective::kLatency: return {{cycles, 0}, {0, energy_j}};
    case Objective::kEnergy: return {{0, energy_j}, {bytes, 0}};
    case Objective::kEdp: return {{0, latency_s * energy_j}, {0, energy_j}};
    case Objective::kDram: return {{bytes, 0}, {0, energy_j}};
  }
  return {{cycles, 0}, {0, energy_j}};
}

}  // namespace

bool better(const GemmCost& a, const GemmCost& b, Objective o) {
  const ObjectiveValue va = objective_value(a, o), vb = objective_value(b, o);
  if (va < vb) return true;
  if (vb < va) return false;
  if (a.energy_j != b.energy_j) return a.energy_j < b.energy_j;
  if (a.dram_bytes != b.dram_bytes) return a.dram_bytes < b.dram_bytes;
  return a.tiles < b.tiles;
}

ObjectiveValue lower_bound(const TileProblem& p, const TileCandidate& c, const TileFloors& f, Objective o) {
  return bounds(p, c, f, o).primary;
}

TileChoice best_tile(const TileProblem& p, const Tile& user, Objective o, const TileFloors& f,
                     const std::function<GemmCost(const Tile&)>& evaluate) {
  std::int64_t legal = 0;
  // with levels every order is a candidate: the order also changes the inner levels' traffic
  const std::vector<TileCandidate> cands = enumerate(p, user, !p.fits, &legal);
  std::vector<Bounds> bds;
  bds.reserve(cands.size());
  for (const auto& c : cands) bds.push_back(bounds(p, c, f, o));
  TileChoice out;
  out.candidates = legal;
  // The candidates in order of their bound (stable: enumeration order on a tie), evaluated until the next bound exceeds
  // the best value. That value never exceeds the first candidate's, so only the candidates whose bound is at most the
  // first's value are sorted: the same sequence as sorting all of them.
  std::size_t first = 0;
  for (std::size_t i = 1; i < cands.size(); ++i)
    if (bds[i].primary < bds[first].primary ||
        (!(bds[first].primary < bds[i].primary) && cands[i].index < cands[first].index))
      first = i;
  out.cost = evaluate(cands[first].tile);
  out.evaluated = 1;
  std::int64_t best_index = cands[first].index;
  const ObjectiveValue first_value = objective_value(out.cost, o);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (i != first && !(first_value < bds[i].primary)) order.push_back(i);
  // a heap of (bound, secondary bound, enumeration order), built in linear time (the loop usually stops long before the
  // heap is empty); among equal bounds the lowest secondary bound first, so the tie-break prunes early. The order
  // changes which candidates are evaluated, never the choice: the best under (objective, energy, DRAM bytes, tiles,
  // enumeration index) is a minimum of a total order, and a candidate is only skipped when its bounds lose to it.
  const auto later = [&](std::size_t a, std::size_t b) {
    const Bounds &x = bds[a], &y = bds[b];
    if (y.primary < x.primary) return true;
    if (x.primary < y.primary) return false;
    if (y.secondary < x.secondary) return true;
    if (x.secondary < y.secondary) return false;
    return cands[b].index < cands[a].index;
  };
  std::make_heap(order.begin(), order.end(), later);
  for (auto end = order.end(); end != order.begin(); --end) {
    std::pop_heap(order.begin(), end, later);
    const std::size_t i = *(end - 1);
    const Bounds& bd = bds[i];
    const ObjectiveValue best = objective_value(out.cost, o);
    if (best < bd.primary) break;  // every remaining candidate is worse on the objective
    if (!(bd.primary < best) && secondary_value(out.cost, o) < bd.secondary) continue;  // loses the first tie-break
    GemmCost c = evaluate(cands[i].tile);
    ++out.evaluated;
    if (better(c, out.cost, o) || (!better(out.cost, c, o) && cands[i].index < best_index)) {
      out.cost = std::move(c);
      best_index = cands[i].index;
    }
  }
  return out;
}

}  // namespace tenet_cost::cost
