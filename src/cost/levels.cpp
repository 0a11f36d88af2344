// The N-level memory hierarchy (levels.hpp, docs/model.md "Memory levels").
#include "levels.hpp"

#include <algorithm>
#include <numeric>

#include "nest.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost::detail {

using quant::Operand;

arch::OperandClass class_of(const Operand& op) {
  using quant::OperandRole;
  const OperandRole r = quant::is_quant_metadata(op.role) ? op.of : op.role;
  if (op.write || r == OperandRole::kOutput) return arch::OperandClass::kC;
  return r == OperandRole::kActivation ? arch::OperandClass::kA : arch::OperandClass::kB;
}

namespace {

bool held(const arch::MemLevel& l, const Operand& op) { return l.holds[static_cast<std::size_t>(class_of(op))]; }

struct Loop {
  std::size_t slot = 0;  // m, n, k
  std::int64_t tile = 1;
};

struct Walk {
  const Operand& op;
  std::array<bool, 3> mine{};  // the loops the operand indexes
  std::vector<Loop> loops;     // outermost first
};

struct Visits {
  i128 elems = 0;
  bool varies = false;  // the subnest visits more than one tile of the operand
};

// Elements of the operand's tile when each loop's current segment has the sizes `c` (groups: the tile starts at a
// multiple of the group, so ceil(size / g) groups).
i128 tile_elems(const Operand& op, const std::array<std::int64_t, 3>& c) {
  i128 e = 1;
  for (const auto& x : op.index)
    if (x.dim != '0') e *= ceil_div(c[static_cast<std::size_t>(loop_slot(loop_of(x.dim)))], x.divisor);
  return e;
}

Visits walk(const Walk& w, std::size_t q, std::array<std::int64_t, 3> c) {
  if (q == w.loops.size()) return {tile_elems(w.op, c), false};
  const Loop& l = w.loops[q];
  const std::int64_t seg = c[l.slot];
  const std::int64_t full = l.tile >= seg ? 1 : seg / l.tile;
  const std::int64_t rem = l.tile >= seg ? 0 : seg % l.tile;
  c[l.slot] = std::min(l.tile, seg);
  const Visits f = walk(w, q + 1, c);
  Visits r;
  if (rem > 0) {
    c[l.slot] = rem;
    r = walk(w, q + 1, c);
  }
  Visits out;
  if (w.mine[l.slot]) {  // each trip visits new tiles of the operand
    out.elems = f.elems * full + (rem > 0 ? r.elems : 0);
    out.varies = full + (rem > 0 ? 1 : 0) > 1 || f.varies || r.varies;
  } else {  // a later trip starts where the first did: a refetch only when the subnest moved to another tile
    out.varies = f.varies;
    out.elems = f.elems + (f.varies ? f.elems * (full - 1) + (rem > 0 ? r.elems : 0) : 0);
  }
  if (out.elems > (i128{1} << 100)) throw OverflowError("level traffic exceeds 2^100 elements");
  return out;
}

}  // namespace

std::int64_t level_fills(const Operand& op, const GemmShape& s, const LevelTiles& tiles, std::size_t h) {
  Walk w{op, {}, {}};
  for (const auto& x : op.index)
    if (x.dim != '0') w.mine[static_cast<std::size_t>(loop_slot(loop_of(x.dim)))] = true;
  for (std::size_t l = 0; l <= h; ++l) {
    const Tile& t = tiles[l];
    const std::array<std::int64_t, 3> sz{t.m, t.n, t.k};
    for (const char name : t.order) {
      const auto slot = static_cast<std::size_t>(loop_slot(name));
      if (slot > 2) throw InternalError("level tile order '" + t.order + "' is not a permutation of mnk");
      w.loops.push_back(Loop{slot, sz[slot]});
    }
  }
  return checked_narrow(walk(w, 0, {s.m, s.n, s.k}).elems, "level traffic");
}

std::array<i128, arch::kOperandClasses> level_tile_bits(const std::vector<Operand>& ops, const GemmShape& s,
                                                        const Tile& t, std::int64_t accum_bits,
                                                        const arch::MemLevel& level) {
  std::array<i128, arch::kOperandClasses> bits{};
  const Nest nest(s, t);
  for (const auto& op : ops) {
    if (!held(level, op)) continue;
    const i128 fp = footprint(op, nest, true);
    bits[static_cast<std::size_t>(class_of(op))] +=
        op.write ? fp * accum_bits : (fp * op.bits_num + op.bits_den - 1) / op.bits_den;
  }
  return bits;
}

std::optional<std::string> level_misfit(const std::vector<Operand>& ops, const GemmShape& s, const Tile& t,
                                        std::int64_t accum_bits, const arch::MemLevel& level) {
  const auto bits = level_tile_bits(ops, s, t, accum_bits, level);
  const std::string halved = level.buffering == arch::TileBuffering::kDouble ? " (double-buffered: half)" : "";
  const std::string tile = std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k);
  if (level.partitioned()) {
    for (std::size_t c = 0; c < arch::kOperandClasses; ++c) {
      const i128 need = (bits[c] + 7) / 8;
      const std::int64_t have = level.usable_bytes(static_cast<arch::OperandClass>(c));
      if (level.holds[c] && need > have)
        return "tile " + tile + " needs " + std::to_string(static_cast<long long>(need)) + " bytes of " +
               arch::to_string(static_cast<arch::OperandClass>(c)) + " in level '" + level.name +
               "' but its partition gives " + std::to_string(have) + " usable bytes" + halved;
    }
    return std::nullopt;
  }
  const i128 need = (bits[0] + bits[1] + bits[2] + 7) / 8;
  const std::int64_t have = level.usable_bytes(arch::OperandClass::kA);
  if (need > have)
    return "tile " + tile + " needs " + std::to_string(static_cast<long long>(need)) + " bytes in level '" +
           level.name + "' (operands at their bits, output at " + std::to_string(accum_bits) +
           "-bit partial sums) but it has " + std::to_string(have) + " usable bytes" + halved;
  return std::nullopt;
}

namespace {

// Candidate sizes of an inner level along one loop: multiples of the group size `align` (times 1, the array side or
// 2^e) that divide the level above's tile, or any when that covers the dimension; and the level above's own size.
std::vector<std::int64_t> inner_sizes(std::int64_t parent, std::int64_t extent, std::int64_t align, std::int64_t rows,
                                      std::int64_t cols) {
  const std::int64_t cover = std::min(parent, extent);
  std::vector<std::int64_t> out{cover};
  for (const std::int64_t b : {std::int64_t{1}, rows, cols})
    for (std::int64_t v = std::lcm(b, align); v < cover; v *= 2)
      if (parent >= extent || parent % v == 0) out.push_back(v);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Bits moved into level `h` from the levels above (the output: its partial sums read back and its write-backs).
i128 inflow_bits(const std::vector<Operand>& ops, const GemmShape& s, const LevelTiles& tiles, std::size_t h,
                 std::int64_t accum_bits, const arch::MemLevel& level) {
  i128 bits = 0;
  for (const auto& op : ops) {
    if (!held(level, op)) continue;
    const i128 f = level_fills(op, s, tiles, h);
    if (op.write) {
      const i128 fp = footprint(op, Nest(s, tiles[h]), false);
      bits += (2 * f - fp) * accum_bits;
    } else {
      bits += f * op.bits_num / op.bits_den;
    }
  }
  return bits;
}

}  // namespace

LevelTiles inner_tiles(const std::vector<Operand>& ops, const GemmShape& s, const Tile& outer, std::int64_t accum_bits,
                       const std::vector<arch::MemLevel>& levels, std::int64_t rows, std::int64_t cols,
                       const std::function<i128(const Tile&)>& array_stamps) {
  LevelTiles tiles{outer};
  const std::array<std::int64_t, 3> ext{s.m, s.n, s.k};
  const std::array<std::int64_t, 3> align{align_of(ops, 'm'), align_of(ops, 'n'), align_of(ops, 'k')};
  static const std::array<const char*, 6> kOrders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
  for (std::size_t h = 1; h < levels.size(); ++h) {
    const Tile& up = tiles[h - 1];
    const std::array<std::int64_t, 3> parent{up.m, up.n, up.k};
    std::array<std::vector<std::int64_t>, 3> sz;
    for (std::size_t d = 0; d < 3; ++d) sz[d] = inner_sizes(parent[d], ext[d], align[d], rows, cols);
    std::optional<Tile> best;
    i128 best_bits = 0, best_stamps = 0;
    const bool innermost = h + 1 == levels.size();
    std::int64_t best_tiles = 0;
    std::optional<std::string> why;
    for (const auto tm : sz[0])
      for (const auto tn : sz[1])
        for (const auto tk : sz[2]) {
          const Tile t{tm, tn, tk, "mnk"};
          if (const auto bad = level_misfit(ops, s, t, accum_bits, levels[h])) {
            if (!why) why = bad;
            continue;
          }
          const std::int64_t count = ceil_div(s.m, tm) * ceil_div(s.n, tn) * ceil_div(s.k, tk);
          const i128 stamps = innermost ? array_stamps(t) : 0;
          if (best && stamps > best_stamps) continue;
          for (const char* order : kOrders) {
            tiles.push_back(Tile{tm, tn, tk, order});
            const i128 bits = inflow_bits(ops, s, tiles, h, accum_bits, levels[h]);
            if (!best || stamps < best_stamps ||
                (stamps == best_stamps && (bits < best_bits || (bits == best_bits && count < best_tiles)))) {
              best = tiles.back();
              best_bits = bits;
              best_stamps = stamps;
              best_tiles = count;
            }
            tiles.pop_back();
          }
        }
    if (!best) throw InputError(why.value_or("no tile fits level '" + levels[h].name + "'"));
    tiles.push_back(*best);
  }
  return tiles;
}

namespace {

std::int64_t bits_to_bytes(i128 bits) { return checked_narrow((bits + 7) / 8, "bytes"); }

}  // namespace

LevelTraffic level_traffic(const std::vector<Operand>& ops, const GemmShape& s, const LevelTiles& tiles,
                           std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels,
                           const std::vector<std::int64_t>& array_reads, std::int64_t out_writes) {
  LevelTraffic out;
  out.levels.resize(levels.size());
  std::vector<i128> served(levels.size(), 0);
  for (std::size_t h = 0; h < levels.size(); ++h) {
    LevelCost& lc = out.levels[h];
    lc.name = levels[h].name;
    lc.tile = tiles[h];
    const Nest nest(s, tiles[h]);
    lc.tiles = checked_mul(nest.tiles(), s.batch, "tiles");
    const auto bits = level_tile_bits(ops, s, tiles[h], accum_bits, levels[h]);
    lc.working_set_bytes = bits_to_bytes(bits[0] + bits[1] + bits[2]);
    if (!levels[h].partitioned()) lc.usable_bytes = levels[h].usable_bytes(arch::OperandClass::kA);
    for (std::size_t c = 0; c < arch::kOperandClasses && levels[h].partitioned(); ++c)
      if (levels[h].holds[c]) lc.usable_bytes += levels[h].usable_bytes(static_cast<arch::OperandClass>(c));
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Operand& op = ops[i];
    std::vector<std::size_t> holders;
    for (std::size_t h = 0; h < levels.size(); ++h)
      if (held(levels[h], op)) holders.push_back(h);
    if (holders.empty()) throw InternalError("no level holds operand " + op.name);
    std::vector<std::int64_t> visits;
    visits.reserve(holders.size());
    for (const std::size_t h : holders) visits.push_back(checked_mul(level_fills(op, s, tiles, h), s.batch, "traffic"));
    const std::int64_t fp = op.write ? checked_mul(footprint(op, Nest(s, tiles[0]), false), s.batch, "outputs") : 0;
    for (std::size_t j = 0; j < holders.size(); ++j) {
      LevelOperandCost oc;
      oc.name = op.name;
      const bool last = j + 1 == holders.size();
      if (op.write) {
        oc.fills = visits[j] - fp;
        oc.updates = last ? out_writes : visits[j + 1];
        oc.reads = last ? array_reads[i] : visits[j + 1] - fp;
      } else {
        oc.fills = visits[j];
        oc.reads = last ? array_reads[i] : visits[j + 1];
      }
      const i128 moved = static_cast<i128>(oc.reads) + oc.updates;
      served[holders[j]] += op.write ? moved * accum_bits : (moved * op.bits_num + op.bits_den - 1) / op.bits_den;
      out.levels[holders[j]].operands.push_back(oc);
    }
    const std::int64_t first = op.write ? fp / s.batch : visits[0] / s.batch;
    out.dram.push_back({first, op.write ? (visits[0] - fp) / s.batch : 0});
  }
  for (std::size_t h = 0; h < levels.size(); ++h) {
    LevelCost& lc = out.levels[h];
    lc.served_bytes = bits_to_bytes(served[h]);
    lc.cycles = checked_narrow((served[h] + levels[h].bits_per_cycle - 1) / levels[h].bits_per_cycle, "cycles");
    lc.energy_j = static_cast<double>(served[h]) * levels[h].pj_per_bit * 1e-12;
  }
  return out;
}

}  // namespace tenet_cost::cost::detail
