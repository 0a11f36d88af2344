// The buffer tile search (cost.hpp, docs/search.md): candidates, the working-set check, proven lower bounds and the
// exact best candidate under an objective, evaluated lazily best-bound-first.
#include <algorithm>
#include <numeric>

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

std::vector<TileCandidate> tile_candidates(const TileProblem& p, const Tile& user) {
  const GemmShape& s = p.shape;
  const i128 cap = static_cast<i128>(p.buffer_bytes) * 8;
  const std::int64_t am = detail::align_of(p.ops, 'm'), an = detail::align_of(p.ops, 'n'),
                     ak = detail::align_of(p.ops, 'k');
  auto check_align = [&](const char* dim, std::int64_t t, std::int64_t extent, std::int64_t a) {
    if (t < extent && t % a != 0)
      throw InputError(std::string("tile ") + dim + "=" + std::to_string(t) + " must be a multiple of the group size " +
                       std::to_string(a) + " (or cover the whole extent " + std::to_string(extent) + ")");
  };
  if (user.m) check_align("m", user.m, s.m, am);
  if (user.n) check_align("n", user.n, s.n, an);
  if (user.k) check_align("k", user.k, s.k, ak);
  auto sizes = [&](std::int64_t fixed, std::int64_t extent, std::int64_t align) {
    if (fixed) return std::vector<std::int64_t>{std::min(fixed, extent)};
    return p.coarse ? tile_sizes_coarse(extent, align) : tile_sizes(extent, align, p.rows, p.cols);
  };
  const auto cm = sizes(user.m, s.m, am), cn = sizes(user.n, s.n, an), ck = sizes(user.k, s.k, ak);
  std::vector<std::string> orders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
  if (!user.order.empty()) orders = {user.order};
  std::vector<TileCandidate> out;
  const std::vector<quant::Operand> dram_ops =
      detail::dram_operands(s, p.ops);  // the bound counts what the cost counts
  i128 smallest_ws = -1;
  Tile smallest;
  std::int64_t index = 0;
  for (const auto& order : orders)
    for (auto tm : cm)
      for (auto tn : cn)
        for (auto tk : ck) {
          const Tile t{tm, tn, tk, order};
          const Nest nest(s, t);
          const i128 ws = detail::working_set_bits(p.ops, nest, p.accum_bits);
          if (smallest_ws < 0 || ws < smallest_ws) {
            smallest_ws = ws;
            smallest = t;
          }
          if (ws > cap) continue;
          out.push_back(TileCandidate{t, detail::dram_bits(dram_ops, nest, p.accum_bits), ws, nest.tiles(), index++});
        }
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

TileFloors tile_floors(const arch::Arch& arch, const GemmShape& s, const quant::Scheme& scheme) {
  std::string precision;
  const arch::Arch::Rate rate = arch.mac_rate(quant::compute_precision(scheme, s.role), &precision);
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

Bounds bounds(const TileProblem& p, const TileCandidate& c, const TileFloors& f, Objective o) {
  const GemmShape& s = p.shape;
  // compute floor: every distinct tile shape (full / remainder per dim) needs ceil(MACs / PEs) time stamps
  i128 compute = 0;
  detail::for_each_tile_shape(s, c.tile, [&](i128 tm, i128 tn, i128 tk, std::int64_t count) {
    const i128 stamps = (tm * tn * tk + f.pes - 1) / f.pes;
    compute += (stamps * f.rate_den + f.rate_num - 1) / f.rate_num * count * s.batch;
  });
  // DRAM floor of this candidate: its bits (one batch, each operand's fraction rounded down) times the batch
  const i128 bytes = (c.dram_bits * s.batch + 7) / 8;
  const i128 dram_cycles = (bytes * f.clock_mhz + f.dram_mb_per_s - 1) / f.dram_mb_per_s;
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
  const std::vector<TileCandidate> cands = tile_candidates(p, user);
  std::vector<std::pair<Bounds, std::size_t>> order;
  order.reserve(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) order.emplace_back(bounds(p, cands[i], f, o), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first.primary < b.first.primary; });
  TileChoice out;
  out.candidates = static_cast<std::int64_t>(cands.size());
  bool have = false;
  std::size_t best_index = 0;
  for (const auto& [bd, i] : order) {
    if (have) {
      const ObjectiveValue best = objective_value(out.cost, o);
      if (best < bd.primary) break;  // every remaining candidate is worse on the objective
      if (!(bd.primary < best) && secondary_value(out.cost, o) < bd.secondary) continue;  // loses the first tie-break
    }
    GemmCost c = evaluate(cands[i].tile);
    ++out.evaluated;
    if (!have || better(c, out.cost, o) || (!better(out.cost, c, o) && i < best_index)) {
      out.cost = std::move(c);
      best_index = i;
      have = true;
    }
  }
  return out;
}

}  // namespace tenet_cost::cost
