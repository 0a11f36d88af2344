// The N-level memory hierarchy (levels.hpp, docs/model.md "Memory levels").
#include "levels.hpp"

#include <algorithm>
#include <numeric>
#include <set>

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
  std::size_t slot = 0;   // m, n, k
  std::int64_t tile = 1;  // a loop: its step; a split: the instance's share
  bool split = false;     // a fan-out to instances: the instance `g` keeps [g tile, (g + 1) tile) of the segment
  std::int64_t g = 0;
  std::size_t level = 0;  // the level whose loop or fan-out it is
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
  if (l.split) {  // an idle instance (an empty share) holds nothing
    if (seg <= l.g * l.tile) return {};
    c[l.slot] = std::min(l.tile, seg - l.g * l.tile);
    return walk(w, q + 1, c);
  }
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
    out.varies = (f.elems > 0 ? full : 0) + (rem > 0 && r.elems > 0 ? 1 : 0) > 1 || f.varies || r.varies;
  } else {  // a later trip starts where the first did: a refetch only when the subnest moved to another tile
    out.varies = f.varies;
    out.elems = f.elems + (f.varies ? f.elems * (full - 1) + (rem > 0 ? r.elems : 0) : 0);
  }
  if (out.elems > (i128{1} << 100)) throw OverflowError("level traffic exceeds 2^100 elements");
  return out;
}

// The loops of levels 0..h (with the fan-outs as splits after each level's loops when `fans` is given).
Walk make_walk(const Operand& op, const LevelTiles& tiles, const LevelFanouts* fans, std::size_t h) {
  Walk w{op, {}, {}};
  for (const auto& x : op.index)
    if (x.dim != '0') w.mine[static_cast<std::size_t>(loop_slot(loop_of(x.dim)))] = true;
  for (std::size_t l = 0; l <= h; ++l) {
    const Tile& t = tiles[l];
    const std::array<std::int64_t, 3> sz{t.m, t.n, t.k};
    for (const char name : t.order) {
      const auto slot = static_cast<std::size_t>(loop_slot(name));
      if (slot > 2) throw InternalError("level tile order '" + t.order + "' is not a permutation of mnk");
      w.loops.push_back(Loop{slot, sz[slot], false, 0, l});
    }
    for (std::size_t d = 0; fans && d < 3; ++d)
      if ((*fans)[l][d] > 1) w.loops.push_back(Loop{d, ceil_div(sz[d], (*fans)[l][d]), true, 0, l});
  }
  return w;
}

// The instance classes of each split of `w` (its index in w.loops, then (g, how many instances behave as g)):
// instances whose shares agree for every segment that can reach the split. The segments are followed as sets per
// loop (a loop's step or remainder, a split's share or remainder), so each class is exact.
using Classes = std::vector<std::pair<std::size_t, std::vector<std::pair<std::int64_t, std::int64_t>>>>;
Classes split_classes(const Walk& w, const GemmShape& s, const LevelFanouts& fans, std::size_t shared_from) {
  std::array<std::set<std::int64_t>, 3> segs{{{s.m}, {s.n}, {s.k}}};
  Classes out;
  for (std::size_t q = 0; q < w.loops.size(); ++q) {
    const Loop& l = w.loops[q];
    std::set<std::int64_t> next;
    if (!l.split) {
      for (const std::int64_t c : segs[l.slot]) {
        next.insert(std::min(l.tile, c));
        if (l.tile < c && c % l.tile > 0) next.insert(c % l.tile);
      }
    } else {
      const std::int64_t f = fans[l.level][l.slot];
      std::set<std::int64_t> points{0, f};
      for (const std::int64_t c : segs[l.slot]) {
        points.insert(std::min(c / l.tile, f));
        if (c % l.tile > 0) points.insert(std::min(c / l.tile + 1, f));
        if (c >= l.tile) next.insert(l.tile);
        if (c % l.tile > 0 && c / l.tile < f) next.insert(c % l.tile);
      }
      std::vector<std::pair<std::int64_t, std::int64_t>> cls;
      if (l.level >= shared_from && !w.mine[l.slot]) {
        cls.emplace_back(0, 1);  // the same elements for all: counted once
      } else {
        for (auto it = points.begin(); std::next(it) != points.end(); ++it) cls.emplace_back(*it, *std::next(it) - *it);
      }
      out.emplace_back(q, std::move(cls));
    }
    segs[l.slot] = std::move(next);
  }
  return out;
}

}  // namespace

LevelFanouts level_fanouts(const std::vector<arch::MemLevel>& levels,
                           const std::optional<std::array<char, 2>>& spatial_dims) {
  if (std::all_of(levels.begin(), levels.end(), [](const arch::MemLevel& l) { return l.instances() == 1; })) return {};
  if (!spatial_dims)
    throw InputError(
        "memory levels with instances need a dataflow whose loops on the PE rows and columns are known (a preset or "
        "a generated mapping; a user .m mapping is not read for them)");
  const auto row = static_cast<std::size_t>(loop_slot(loop_of((*spatial_dims)[0])));
  const auto col = static_cast<std::size_t>(loop_slot(loop_of((*spatial_dims)[1])));
  LevelFanouts fans(levels.size(), {1, 1, 1});
  std::int64_t gr = 1, gc = 1;
  for (std::size_t h = 0; h < levels.size(); ++h) {
    fans[h][row] = levels[h].grid_rows / gr;
    fans[h][col] = levels[h].grid_cols / gc;
    gr = levels[h].grid_rows;
    gc = levels[h].grid_cols;
  }
  return fans;
}

Tile instance_tile(const Tile& span, const std::array<std::int64_t, 3>& fan) {
  return Tile{ceil_div(span.m, fan[0]), ceil_div(span.n, fan[1]), ceil_div(span.k, fan[2]), span.order};
}

Tile array_tile(const GemmShape& s, const LevelTiles& tiles, const LevelFanouts& fans) {
  if (fans.empty()) return tiles.back();
  Tile t = instance_tile(tiles.back(), fans[tiles.size() - 1]);
  std::array<std::int64_t, 3> grid{1, 1, 1};
  for (std::size_t h = 0; h < tiles.size(); ++h)
    for (std::size_t d = 0; d < 3; ++d) grid[d] *= fans[h][d];
  t.m = std::min(s.m, t.m * grid[0]);
  t.n = std::min(s.n, t.n * grid[1]);
  t.k = std::min(s.k, t.k * grid[2]);
  return t;
}

std::int64_t active_instances(const GemmShape& s, const LevelTiles& tiles, const LevelFanouts& fans, std::size_t h) {
  if (fans.empty()) return 1;
  std::array<std::int64_t, 3> seg{s.m, s.n, s.k};
  std::int64_t active = 1;
  for (std::size_t l = 0; l <= h; ++l) {
    const std::array<std::int64_t, 3> sz{tiles[l].m, tiles[l].n, tiles[l].k};
    for (std::size_t d = 0; d < 3; ++d) {
      seg[d] = std::min(seg[d], sz[d]);
      if (fans[l][d] == 1) continue;
      const std::int64_t share = ceil_div(sz[d], fans[l][d]);
      active *= ceil_div(seg[d], share);
      seg[d] = std::min(seg[d], share);
    }
  }
  return active;
}

std::int64_t level_fills(const Operand& op, const GemmShape& s, const LevelTiles& tiles, const LevelFanouts& fans,
                         std::size_t h, std::size_t shared_from) {
  if (fans.empty()) return level_fills(op, s, tiles, h);
  Walk w = make_walk(op, tiles, &fans, h);
  const Classes classes = split_classes(w, s, fans, shared_from);
  std::vector<std::size_t> at(classes.size(), 0);  // the odometer over the classes of every split
  i128 total = 0;
  while (true) {
    i128 weight = 1;
    for (std::size_t i = 0; i < classes.size(); ++i) {
      w.loops[classes[i].first].g = classes[i].second[at[i]].first;
      weight *= classes[i].second[at[i]].second;
    }
    total += weight * walk(w, 0, {s.m, s.n, s.k}).elems;
    if (total > (i128{1} << 100)) throw OverflowError("level traffic exceeds 2^100 elements");
    std::size_t i = 0;
    for (; i < classes.size(); ++i) {
      if (++at[i] < classes[i].second.size()) break;
      at[i] = 0;
    }
    if (i == classes.size()) break;
  }
  return checked_narrow(total, "level traffic");
}

std::int64_t level_fills(const Operand& op, const GemmShape& s, const LevelTiles& tiles, std::size_t h) {
  return checked_narrow(walk(make_walk(op, tiles, nullptr, h), 0, {s.m, s.n, s.k}).elems, "level traffic");
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

// Candidate spans of an inner level along one loop fanned out `fan` ways: instance shares v, multiples of the group
// size `align` (times 1, the array side or 2^e), whose span v * fan divides the level above's instance tile, or any
// when that covers the dimension; and the span covering the level above's instance tile.
std::vector<std::int64_t> inner_sizes(std::int64_t parent, std::int64_t extent, std::int64_t align, std::int64_t rows,
                                      std::int64_t cols, std::int64_t fan) {
  const std::int64_t cover = std::min(parent, extent);
  std::vector<std::int64_t> out{cover};
  for (const std::int64_t b : {std::int64_t{1}, rows, cols})
    for (std::int64_t v = std::lcm(b, align); v * fan < cover; v *= 2)
      if (parent >= extent || parent % (v * fan) == 0) out.push_back(v * fan);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Bits moved into level `h`'s instances from the levels above (the output: its partial sums read back and its
// write-backs, reduced over the instances that share an element).
i128 inflow_bits(const std::vector<Operand>& ops, const GemmShape& s, const LevelTiles& tiles, const LevelFanouts& fans,
                 std::size_t h, std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels_above) {
  const arch::MemLevel& level = levels_above[h];
  i128 bits = 0;
  for (const auto& op : ops) {
    if (!held(level, op)) continue;
    if (op.write) {  // reduced over the fan-outs below the nearest level above holding it (DRAM: from 0)
      std::size_t from = h;
      while (from > 0 && !held(levels_above[from - 1], op)) --from;
      const i128 f = level_fills(op, s, tiles, fans, h, from);
      const i128 fp = footprint(op, Nest(s, tiles[0]), false);
      bits += (2 * f - fp) * accum_bits;
    } else {
      bits += static_cast<i128>(level_fills(op, s, tiles, fans, h, h + 1)) * op.bits_num / op.bits_den;
    }
  }
  return bits;
}

const std::array<std::int64_t, 3>& fan_of(const LevelFanouts& fans, std::size_t h) {
  static const std::array<std::int64_t, 3> kOne{1, 1, 1};
  return fans.empty() ? kOne : fans[h];
}

}  // namespace

LevelTiles inner_tiles(const std::vector<Operand>& ops, const GemmShape& s, const Tile& outer, std::int64_t accum_bits,
                       const std::vector<arch::MemLevel>& levels, const LevelFanouts& fans, std::int64_t rows,
                       std::int64_t cols, const std::function<i128(const Tile&)>& array_stamps) {
  LevelTiles tiles{outer};
  const std::array<std::int64_t, 3> ext{s.m, s.n, s.k};
  const std::array<std::int64_t, 3> align{align_of(ops, 'm'), align_of(ops, 'n'), align_of(ops, 'k')};
  static const std::array<const char*, 6> kOrders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
  for (std::size_t h = 1; h < levels.size(); ++h) {
    const Tile up = instance_tile(tiles[h - 1], fan_of(fans, h - 1));
    const std::array<std::int64_t, 3> parent{up.m, up.n, up.k};
    const auto& fan = fan_of(fans, h);
    std::array<std::vector<std::int64_t>, 3> sz;
    for (std::size_t d = 0; d < 3; ++d) sz[d] = inner_sizes(parent[d], ext[d], align[d], rows, cols, fan[d]);
    std::optional<Tile> best;
    i128 best_bits = 0, best_stamps = 0;
    const bool innermost = h + 1 == levels.size();
    std::int64_t best_tiles = 0;
    std::optional<std::string> why;
    for (const auto tm : sz[0])
      for (const auto tn : sz[1])
        for (const auto tk : sz[2]) {
          const Tile t{tm, tn, tk, "mnk"};
          if (const auto bad = level_misfit(ops, s, instance_tile(t, fan), accum_bits, levels[h])) {
            if (!why) why = bad;
            continue;
          }
          const std::int64_t count = ceil_div(s.m, tm) * ceil_div(s.n, tn) * ceil_div(s.k, tk);
          i128 stamps = 0;
          if (innermost && fans.empty()) {
            stamps = array_stamps(t);
          } else if (innermost) {  // the array runs the instance tile over all instances
            tiles.push_back(t);
            stamps = array_stamps(array_tile(s, tiles, fans));
            tiles.pop_back();
          }
          if (best && stamps > best_stamps) continue;
          for (const char* order : kOrders) {
            tiles.push_back(Tile{tm, tn, tk, order});
            const i128 bits = inflow_bits(ops, s, tiles, fans, h, accum_bits, levels);
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
                           const LevelFanouts& fans, std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels,
                           const std::vector<std::int64_t>& array_reads, std::int64_t out_writes) {
  LevelTraffic out;
  out.levels.resize(levels.size());
  std::vector<i128> served(levels.size(), 0);
  for (std::size_t h = 0; h < levels.size(); ++h) {
    LevelCost& lc = out.levels[h];
    lc.name = levels[h].name;
    lc.tile = instance_tile(tiles[h], fan_of(fans, h));
    lc.instances = levels[h].instances();
    const Nest nest(s, lc.tile);
    lc.tiles = checked_mul(nest.tiles(), s.batch, "tiles");
    const auto bits = level_tile_bits(ops, s, lc.tile, accum_bits, levels[h]);
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
    // into holder j: what its instances receive (child side) or what its parent holder serves (DRAM for the first):
    // a fan-out below the parent along a loop the operand does not index is one multicast read (one reduced update)
    std::vector<std::int64_t> into(holders.size()), served_in(holders.size());  // child side, parent side
    for (std::size_t j = 0; j < holders.size(); ++j) {
      const std::size_t from = j == 0 ? 0 : holders[j - 1] + 1;
      served_in[j] = checked_mul(level_fills(op, s, tiles, fans, holders[j], from), s.batch, "traffic");
      into[j] = fans.empty() || op.write
                    ? served_in[j]
                    : checked_mul(level_fills(op, s, tiles, fans, holders[j], holders[j] + 1), s.batch, "traffic");
    }
    const auto moved = [&](std::size_t j, bool child) { return child ? into[j] : served_in[j]; };
    const std::int64_t fp = op.write ? checked_mul(footprint(op, Nest(s, tiles[0]), false), s.batch, "outputs") : 0;
    for (std::size_t j = 0; j < holders.size(); ++j) {
      LevelOperandCost oc;
      oc.name = op.name;
      const bool last = j + 1 == holders.size();
      if (op.write) {  // visits reduced on the way up: write-backs into the parent, read-backs from it
        oc.fills = moved(j, false) - fp;
        oc.updates = last ? out_writes : moved(j + 1, false);
        oc.reads = last ? array_reads[i] : oc.updates - fp;
      } else {
        oc.fills = moved(j, true);
        oc.reads = last ? array_reads[i] : moved(j + 1, false);
      }
      const i128 moved_bits = static_cast<i128>(oc.reads) + oc.updates;
      served[holders[j]] +=
          op.write ? moved_bits * accum_bits : (moved_bits * op.bits_num + op.bits_den - 1) / op.bits_den;
      out.levels[holders[j]].operands.push_back(oc);
    }
    const std::int64_t visits0 = moved(0, false);
    const std::int64_t first = op.write ? fp / s.batch : visits0 / s.batch;
    out.dram.push_back({first, op.write ? (visits0 - fp) / s.batch : 0});
  }
  for (std::size_t h = 0; h < levels.size(); ++h) {
    LevelCost& lc = out.levels[h];
    lc.served_bytes = bits_to_bytes(served[h]);
    // the instances serve in parallel: the bits spread over those that hold data
    const i128 rate = static_cast<i128>(levels[h].bits_per_cycle) * active_instances(s, tiles, fans, h);
    lc.cycles = checked_narrow((served[h] + rate - 1) / rate, "cycles");
    lc.energy_j = static_cast<double>(served[h]) * levels[h].pj_per_bit * 1e-12;
  }
  return out;
}

}  // namespace tenet_cost::cost::detail
