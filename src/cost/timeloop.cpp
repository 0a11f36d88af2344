#include "timeloop.hpp"

#include <optional>
#include <string>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost::timeloop {

namespace {

constexpr std::size_t kMaxWalkLoops = 24;  // 2^24 tiles walked per (level, data space) at most

struct FlatLoop {
  Loop loop;
  std::size_t level = 0;
  std::int64_t step = 1;  // the product of the factors of the inner loops over the same dimension
};

/// The mapping's loops in one list, outermost first, with each level's first loop index.
struct Nest {
  const Problem& p;
  std::vector<FlatLoop> loops;
  std::vector<std::size_t> first;  // per level: the index of its first loop (= where its tile starts)

  Nest(const Problem& prob, const Mapping& m) : p(prob) {
    for (std::size_t l = 0; l < m.levels.size(); ++l) {
      first.push_back(loops.size());
      for (const auto& lp : m.levels[l].loops) loops.push_back({lp, l, 1});
    }
    first.push_back(loops.size());  // the MAC
    for (std::size_t i = loops.size(); i-- > 0;) {
      std::int64_t s = 1;
      for (std::size_t j = i + 1; j < loops.size(); ++j)
        if (loops[j].loop.dim == loops[i].loop.dim) s = checked_mul(s, loops[j].loop.factor, "timeloop loop step");
      loops[i].step = s;
    }
  }

  [[nodiscard]] bool relevant(const DataSpace& d, std::size_t dim) const {
    for (const auto& axis : d.projection)
      for (const auto& t : axis)
        if (t.dim == dim && t.coef != 0) return true;
    return false;
  }

  /// Extents per dimension covered by the loops from index `from` inward, or (`outside_spatial`) the extent
  /// an instance at `from` covers over the whole run (the full extent over the spatial loops above it).
  [[nodiscard]] std::vector<std::int64_t> extents(std::size_t from, bool outside_spatial) const {
    std::vector<std::int64_t> e(p.dims.size(), 1);
    if (outside_spatial) e = p.extents;
    for (std::size_t i = 0; i < loops.size(); ++i) {
      const auto& lp = loops[i].loop;
      if (!outside_spatial && i >= from) e[lp.dim] = checked_mul(e[lp.dim], lp.factor, "timeloop tile");
      if (outside_spatial && i < from && lp.spatial) e[lp.dim] /= lp.factor;
    }
    return e;
  }

  /// Per tensor dimension, the width of the box the dimension extents `e` span.
  [[nodiscard]] static std::vector<std::int64_t> widths(const DataSpace& d, const std::vector<std::int64_t>& e) {
    std::vector<std::int64_t> w;
    for (const auto& axis : d.projection) {
      std::int64_t span = 0;
      for (const auto& t : axis)
        span = checked_add(span, checked_mul(t.coef, e[t.dim] - 1, "timeloop span"), "timeloop span");
      w.push_back(span + 1);
    }
    return w;
  }

  [[nodiscard]] static std::int64_t volume(const std::vector<std::int64_t>& w) {
    std::int64_t v = 1;
    for (const auto x : w) v = checked_mul(v, x, "timeloop tile volume");
    return v;
  }

  [[nodiscard]] std::int64_t instances(std::size_t from) const {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < from; ++i)
      if (loops[i].loop.spatial) n = checked_mul(n, loops[i].loop.factor, "timeloop instances");
    return n;
  }

  /// Spatial loops in [from, to) that index `d`: the distinct child instances one parent instance serves.
  [[nodiscard]] std::int64_t distinct(const DataSpace& d, std::size_t from, std::size_t to) const {
    std::int64_t n = 1;
    for (std::size_t i = from; i < to; ++i)
      if (loops[i].loop.spatial && relevant(d, loops[i].loop.dim))
        n = checked_mul(n, loops[i].loop.factor, "timeloop spatial fanout");
    return n;
  }

  [[nodiscard]] std::int64_t cycles() const {
    std::int64_t c = 1;
    for (const auto& l : loops)
      if (!l.loop.spatial) c = checked_mul(c, l.loop.factor, "timeloop cycles");
    return c;
  }

  std::int64_t walk(const DataSpace& d, std::size_t child) const;
};

/// Timeloop's delta rule between consecutive tiles of equal shape at corners `prev` and `cur`.
struct DeltaState {
  std::optional<std::vector<std::int64_t>> prev;         // the last tile's corner
  std::optional<std::vector<std::int64_t>> translation;  // the last non-zero stride (none after a reset)

  std::int64_t next(const std::vector<std::int64_t>& cur, const std::vector<std::int64_t>& w) {
    const std::int64_t whole = Nest::volume(w);
    if (!prev) {
      prev = cur;
      return whole;
    }
    std::vector<std::int64_t> t(cur.size());
    bool zero = true;
    for (std::size_t a = 0; a < cur.size(); ++a) {
      t[a] = cur[a] - (*prev)[a];
      zero = zero && t[a] == 0;
    }
    if (zero) return 0;
    if (translation && *translation != t) {  // the stride changed: the residue is dropped, the tile fetched whole
      translation.reset();
      prev = cur;
      return whole;
    }
    if (!translation) translation = t;
    std::int64_t overlap = 1;
    for (std::size_t a = 0; a < cur.size(); ++a) {
      const std::int64_t gap = t[a] < 0 ? -t[a] : t[a];
      overlap = checked_mul(overlap, gap >= w[a] ? 0 : w[a] - gap, "timeloop overlap");
    }
    prev = cur;
    return whole - overlap;
  }
};

/// Transfers into one instance of the tile that starts at loop `child`, walked over the temporal loops above
/// it: iteration #0 and #1 of each (weight 1 and factor - 1), in time order.
std::int64_t Nest::walk(const DataSpace& d, std::size_t child) const {
  std::vector<std::size_t> above;
  for (std::size_t i = 0; i < child; ++i)
    if (!loops[i].loop.spatial && loops[i].loop.factor > 1) above.push_back(i);
  if (above.size() > kMaxWalkLoops)
    throw InputError("timeloop convention: expected at most " + std::to_string(kMaxWalkLoops) +
                     " temporal loops with a factor above 1, found " + std::to_string(above.size()));
  const auto w = widths(d, extents(child, false));
  DeltaState state;
  std::int64_t total = 0;
  const std::uint64_t steps = std::uint64_t{1} << above.size();
  for (std::uint64_t v = 0; v < steps; ++v) {
    std::vector<std::int64_t> base(p.dims.size(), 0);
    std::int64_t weight = 1;
    for (std::size_t j = 0; j < above.size(); ++j) {
      if (((v >> (above.size() - 1 - j)) & 1U) == 0) continue;  // bit of loop j (outermost = most significant)
      const auto& fl = loops[above[j]];
      base[fl.loop.dim] += fl.step;
      weight = checked_mul(weight, fl.loop.factor - 1, "timeloop walk");
    }
    std::vector<std::int64_t> corner;
    for (const auto& axis : d.projection) {
      std::int64_t c = 0;
      for (const auto& t : axis) c = checked_add(c, checked_mul(t.coef, base[t.dim], "timeloop corner"), "corner");
      corner.push_back(c);
    }
    total = checked_add(total, checked_mul(state.next(corner, w), weight, "timeloop transfers"), "timeloop transfers");
  }
  return total;
}

void validate(const Problem& p, const Mapping& m) {
  if (p.extents.size() != p.dims.size()) throw InputError("timeloop convention: expected an extent per dimension");
  std::vector<std::int64_t> product(p.dims.size(), 1);
  for (const auto& lv : m.levels) {
    if (lv.keep.size() != p.spaces.size())
      throw InputError("timeloop convention: level " + lv.name + " expected a keep flag per data space");
    for (const auto& lp : lv.loops) {
      if (lp.dim >= p.dims.size()) throw InputError("timeloop convention: a loop over an unknown dimension");
      if (lp.factor < 1)
        throw InputError("timeloop convention: expected a positive factor, found " + std::to_string(lp.factor));
      product[lp.dim] = checked_mul(product[lp.dim], lp.factor, "timeloop factors");
    }
  }
  for (std::size_t i = 0; i < p.dims.size(); ++i)
    if (product[i] != p.extents[i])
      throw InputError("timeloop convention: expected the factors of " + p.dims[i] + " to multiply to " +
                       std::to_string(p.extents[i]) + ", found " + std::to_string(product[i]) +
                       " (imperfect factorization is not modelled)");
  for (const auto& d : p.spaces)
    for (const auto& axis : d.projection)
      for (const auto& t : axis) {
        if (t.dim >= p.dims.size() || t.coef < 0) throw InputError("timeloop convention: a bad projection term");
        if (axis.size() < 2) continue;
        for (const auto& lv : m.levels)
          for (const auto& lp : lv.loops)
            if (lp.spatial && lp.dim == t.dim && lp.factor > 1)
              throw InputError("timeloop convention: a spatial loop over " + p.dims[t.dim] + ", a sliding-window " +
                               "dimension of " + d.name + " (link transfers between PEs are not modelled)");
      }
}

}  // namespace

Counts analyze(const Problem& p, const Mapping& m) {
  validate(p, m);
  const Nest nest(p, m);
  Counts out;
  out.cycles = nest.cycles();
  out.computes = 1;
  for (const auto e : p.extents) out.computes = checked_mul(out.computes, e, "timeloop computes");
  out.mac_instances = nest.instances(nest.loops.size());
  for (std::size_t l = 0; l < m.levels.size(); ++l)
    out.levels.push_back({m.levels[l].name, nest.instances(nest.first[l]), std::vector<SpaceCounts>(p.spaces.size())});
  const bool temporal_innermost = nest.loops.empty() || !nest.loops.back().loop.spatial;
  for (std::size_t s = 0; s < p.spaces.size(); ++s) {
    const DataSpace& d = p.spaces[s];
    std::vector<std::size_t> chain;
    for (std::size_t l = 0; l < m.levels.size(); ++l)
      if (m.levels[l].keep[s]) chain.push_back(l);
    for (const std::size_t l : chain) {
      auto& c = out.levels[l].spaces[s];
      c.kept = true;
      c.capacity = Nest::volume(Nest::widths(d, nest.extents(nest.first[l], false)));
      c.partition = Nest::volume(Nest::widths(d, nest.extents(nest.first[l], true)));
    }
    for (std::size_t j = 0; j < chain.size(); ++j) {
      const std::size_t l = chain[j];
      const bool mac = j + 1 == chain.size();
      const std::size_t child = mac ? nest.loops.size() : nest.first[chain[j + 1]];
      // Per child instance: every compute when the MAC reads the level directly, else the walked transfers.
      const std::int64_t each = mac && temporal_innermost ? out.cycles : nest.walk(d, child);
      const std::int64_t down = checked_mul(each, nest.distinct(d, nest.first[l], child), "timeloop accesses");
      auto& c = out.levels[l].spaces[s];
      if (d.read_write) {
        c.updates = down;
        c.reads = down - c.partition;
      } else {
        c.reads = down;
      }
      if (!mac) {
        auto& below = out.levels[chain[j + 1]].spaces[s];
        below.fills = d.read_write ? each - below.partition : each;
      }
    }
  }
  return out;
}

Problem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p;
  p.dims = {"M", "N", "K"};
  p.extents = {m, n, k};
  p.spaces = {{"Weights", {{{2, 1}}, {{1, 1}}}, false},
              {"Inputs", {{{0, 1}}, {{2, 1}}}, false},
              {"Outputs", {{{0, 1}}, {{1, 1}}}, true}};
  return p;
}

namespace {

std::size_t gemm_dim(char c) {
  if (c == 'm') return 0;
  if (c == 'n') return 1;
  if (c == 'k') return 2;
  throw InputError(std::string("timeloop convention: expected a GEMM dimension m, n or k, found '") + c + "'");
}

/// The largest divisor of `tile` that is at most `side`.
std::int64_t fit(std::int64_t tile, std::int64_t side) {
  for (std::int64_t s = side < tile ? side : tile; s > 1; --s)
    if (tile % s == 0) return s;
  return 1;
}

}  // namespace

Mapping gemm_mapping(const GemmMapping& g) {
  const std::int64_t ext[3] = {g.m, g.n, g.k};
  const std::int64_t tile[3] = {g.tile_m, g.tile_n, g.tile_k};
  const char* names = "mnk";
  for (std::size_t i = 0; i < 3; ++i)
    if (tile[i] < 1 || ext[i] % tile[i] != 0)
      throw InputError(std::string("timeloop convention: expected a tile ") + names[i] + " dividing " +
                       std::to_string(ext[i]) + ", found " + std::to_string(tile[i]) +
                       " (Timeloop needs exact factors; pass --tile)");
  if (g.order.size() != 3) throw InputError("timeloop convention: expected a loop order of m, n and k");
  const std::size_t row = gemm_dim(g.row_dim);
  const std::size_t col = gemm_dim(g.col_dim);
  const std::size_t streamed = 3 - row - col;
  if (row == col || streamed > 2) throw InputError("timeloop convention: the array's dimensions must differ");
  Mapping m;
  Level dram{"DRAM", {true, true, true}, {}};
  for (const char c : g.order) {
    const std::size_t d = gemm_dim(c);
    dram.loops.push_back({d, ext[d] / tile[d], false});
  }
  const std::int64_t sr = fit(tile[row], g.rows);
  const std::int64_t sc = fit(tile[col], g.cols);
  Level buffer{"Buffer", {true, true, true}, {}};
  buffer.loops.push_back({row, tile[row] / sr, false});
  buffer.loops.push_back({col, tile[col] / sc, false});
  buffer.loops.push_back({streamed, tile[streamed], false});
  buffer.loops.push_back({row, sr, true});
  buffer.loops.push_back({col, sc, true});
  m.levels = {dram, buffer};
  return m;
}

}  // namespace tenet_cost::cost::timeloop
