// The `timeloop` convention on GEMMs against two oracles that do not share its walk: a brute-force simulation of
// every cycle (each PE's operand per cycle; a buffer read per distinct operand a PE newly needs in that cycle, so
// a broadcast is one read; the buffer tile per DRAM iteration as an explicit set) on small shapes, for every
// dataflow, loop order and dividing tile; and hand-derived closed forms on a 64^3 GEMM on a 32x32 array.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cost/timeloop.hpp"
#include "tenet_cost/error.hpp"

namespace {

namespace tl = tenet_cost::cost::timeloop;
using Point = std::array<std::int64_t, 2>;

enum Space : std::size_t { kW = 0, kI = 1, kO = 2 };  // gemm_problem's order: Weights B[K][N], Inputs A[M][K], C

Point project(std::size_t s, const std::array<std::int64_t, 3>& mnk) {
  if (s == kW) return {mnk[2], mnk[1]};
  if (s == kI) return {mnk[0], mnk[2]};
  return {mnk[0], mnk[1]};
}

struct Brute {
  std::int64_t cycles = 0;
  std::array<std::int64_t, 3> pe_side{};    // buffer <-> PE: distinct new operands per cycle, summed
  std::array<std::int64_t, 3> dram_side{};  // DRAM <-> buffer: new points of the buffer tile, summed
};

/// Simulates the nest of gemm_mapping(g) literally: all temporal loops in order, all PEs each cycle.
Brute simulate(const tl::Mapping& m) {
  std::vector<tl::Loop> temporal;
  std::vector<tl::Loop> spatial;
  std::vector<tl::Loop> all;
  for (const auto& lv : m.levels)
    for (const auto& lp : lv.loops) {
      all.push_back(lp);
      (lp.spatial ? spatial : temporal).push_back(lp);
    }
  const auto dram_loops = m.levels[0].loops.size();
  // step of each loop in `all` (product of the inner factors over the same dimension)
  std::vector<std::int64_t> step(all.size(), 1);
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j)
      if (all[j].dim == all[i].dim) step[i] *= all[j].factor;
  Brute b;
  std::array<std::set<Point>, 3> prev_tile;
  std::vector<std::array<Point, 3>> prev_pe;
  std::vector<std::int64_t> idx(all.size(), 0);
  std::int64_t prev_outer = -1;
  for (;;) {
    // the DRAM iteration: a new buffer tile when a DRAM index changed
    std::int64_t outer = 0;
    for (std::size_t i = 0; i < dram_loops; ++i) outer = outer * all[i].factor + idx[i];
    if (outer != prev_outer) {
      prev_outer = outer;
      std::array<std::int64_t, 3> base{};
      for (std::size_t i = 0; i < dram_loops; ++i) base[all[i].dim] += idx[i] * step[i];
      std::array<std::int64_t, 3> ext{1, 1, 1};
      for (std::size_t i = dram_loops; i < all.size(); ++i) ext[all[i].dim] *= all[i].factor;
      for (std::size_t s = 0; s < 3; ++s) {
        std::set<Point> tile;
        for (std::int64_t a = 0; a < ext[0]; ++a)
          for (std::int64_t c = 0; c < ext[1]; ++c)
            for (std::int64_t d = 0; d < ext[2]; ++d) tile.insert(project(s, {base[0] + a, base[1] + c, base[2] + d}));
        for (const auto& p : tile) b.dram_side[s] += prev_tile[s].count(p) == 0 ? 1 : 0;
        prev_tile[s] = tile;
      }
    }
    // one cycle: every PE's operands
    std::array<std::set<Point>, 3> fresh;
    std::size_t pe = 0;
    std::vector<std::int64_t> sidx(all.size(), 0);
    for (;;) {
      std::array<std::int64_t, 3> mnk{};
      for (std::size_t i = 0; i < all.size(); ++i) mnk[all[i].dim] += (all[i].spatial ? sidx[i] : idx[i]) * step[i];
      if (prev_pe.size() <= pe) prev_pe.push_back({Point{-1, -1}, Point{-1, -1}, Point{-1, -1}});
      for (std::size_t s = 0; s < 3; ++s) {
        const Point p = project(s, mnk);
        if (p != prev_pe[pe][s]) fresh[s].insert(p);
        prev_pe[pe][s] = p;
      }
      ++pe;
      std::size_t i = all.size();
      while (i-- > 0) {
        if (!all[i].spatial) continue;
        if (++sidx[i] < all[i].factor) break;
        sidx[i] = 0;
      }
      if (i == static_cast<std::size_t>(-1)) break;
    }
    for (std::size_t s = 0; s < 3; ++s) b.pe_side[s] += static_cast<std::int64_t>(fresh[s].size());
    ++b.cycles;
    std::size_t i = all.size();
    while (i-- > 0) {
      if (all[i].spatial) continue;
      if (++idx[i] < all[i].factor) break;
      idx[i] = 0;
    }
    if (i == static_cast<std::size_t>(-1)) break;
  }
  return b;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

void check_against_brute(const tl::GemmMapping& g) {
  const tl::Counts c = tl::analyze(tl::gemm_problem(g.m, g.n, g.k), tl::gemm_mapping(g));
  const Brute b = simulate(tl::gemm_mapping(g));
  const auto& dram = c.levels[0].spaces;
  const auto& buf = c.levels[1].spaces;
  const std::int64_t outputs = g.m * g.n;
  CHECK(c.cycles == b.cycles);
  CHECK(buf[kW].reads == b.pe_side[kW]);
  CHECK(buf[kI].reads == b.pe_side[kI]);
  CHECK(buf[kO].updates == b.pe_side[kO]);
  CHECK(buf[kO].reads == b.pe_side[kO] - outputs);
  CHECK(dram[kW].reads == b.dram_side[kW]);
  CHECK(dram[kI].reads == b.dram_side[kI]);
  CHECK(buf[kW].fills == b.dram_side[kW]);
  CHECK(dram[kO].updates == b.dram_side[kO]);
  CHECK(dram[kO].reads == b.dram_side[kO] - outputs);
  CHECK(buf[kO].fills == b.dram_side[kO] - outputs);
}

}  // namespace

TEST_CASE("timeloop convention on GEMMs equals a cycle-by-cycle brute force", "[timeloop]") {
  const std::array<std::array<std::int64_t, 3>, 3> shapes = {{{4, 6, 4}, {6, 4, 2}, {2, 4, 6}}};
  const std::array<std::array<char, 2>, 3> flows = {{{'m', 'n'}, {'k', 'n'}, {'k', 'm'}}};  // os, ws, is
  const std::array<std::array<std::int64_t, 2>, 2> arrays = {{{2, 2}, {4, 3}}};
  int cases = 0;
  for (const auto& s : shapes)
    for (const auto& f : flows)
      for (const auto& a : arrays)
        for (const auto tm : divisors(s[0]))
          for (const auto tn : divisors(s[1]))
            for (const auto tk : divisors(s[2]))
              for (const std::string order : {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"}) {
                tl::GemmMapping g{s[0], s[1], s[2], tm, tn, tk, order, f[0], f[1], a[0], a[1]};
                INFO(s[0] << "x" << s[1] << "x" << s[2] << " tile " << tm << "," << tn << "," << tk << " " << order
                          << " rows " << f[0] << " cols " << f[1] << " array " << a[0] << "x" << a[1]);
                check_against_brute(g);
                ++cases;
              }
  CHECK(cases > 1000);
}

TEST_CASE("timeloop convention: hand-derived GEMM counts (64^3 on 32x32, one tile)", "[timeloop]") {
  // One buffer tile: every operand moves between DRAM and the buffer once (4096 elements each).
  // os (M rows, N cols, K streamed innermost): A is broadcast along the 32 columns and B down the 32 rows, so
  // A reads = M*K*(N/32) = 8192 and B reads = K*N*(M/32) = 8192 (per PE: a new operand every cycle; 256 cycles
  // x 1024 PEs / 32 sharing each element); C stays in its PE over K: 4096 updates, no read-back.
  tl::GemmMapping os{64, 64, 64, 64, 64, 64, "mnk", 'm', 'n', 32, 32};
  auto c = tl::analyze(tl::gemm_problem(64, 64, 64), tl::gemm_mapping(os));
  CHECK(c.cycles == 256);
  CHECK(c.mac_instances == 1024);
  auto b = c.levels[1].spaces;
  CHECK(b[kI].reads == 8192);
  CHECK(b[kW].reads == 8192);
  CHECK(b[kO].updates == 4096);
  CHECK(b[kO].reads == 0);
  for (std::size_t s = 0; s < 3; ++s) CHECK(b[s].capacity == 4096);
  auto d = c.levels[0].spaces;
  CHECK(d[kI].reads == 4096);
  CHECK(d[kW].reads == 4096);
  CHECK(d[kO].updates == 4096);
  CHECK(d[kO].reads == 0);
  // ws (K rows, N cols, M streamed): each weight read once (held in its PE over M); A multicast along the
  // columns: M*K*(N/32) = 8192; C reduced down the rows: one update per column per cycle, M*N*(K/32) = 8192,
  // and read back once per later K fold: 8192 - 4096.
  tl::GemmMapping ws{64, 64, 64, 64, 64, 64, "mnk", 'k', 'n', 32, 32};
  c = tl::analyze(tl::gemm_problem(64, 64, 64), tl::gemm_mapping(ws));
  b = c.levels[1].spaces;
  CHECK(c.cycles == 256);
  CHECK(b[kW].reads == 4096);
  CHECK(b[kI].reads == 8192);
  CHECK(b[kO].updates == 8192);
  CHECK(b[kO].reads == 4096);
  // Tiled ws, tile m=16, n=32, order mkn: the B tile (64x32) changes with the innermost n loop, so B is fetched
  // once per m tile: K*N*(M/16) = 16384; the A tile (16x64) stays over n: 4096; C written once (k has one trip).
  tl::GemmMapping tiled{64, 64, 64, 16, 32, 64, "mkn", 'k', 'n', 32, 32};
  c = tl::analyze(tl::gemm_problem(64, 64, 64), tl::gemm_mapping(tiled));
  d = c.levels[0].spaces;
  CHECK(d[kW].reads == 16384);
  CHECK(d[kI].reads == 4096);
  CHECK(d[kO].updates == 4096);
}

TEST_CASE("timeloop convention refuses what it does not model", "[timeloop]") {
  using tenet_cost::InputError;
  tl::GemmMapping g{64, 64, 64, 48, 64, 64, "mnk", 'm', 'n', 32, 32};
  CHECK_THROWS_AS(tl::gemm_mapping(g), InputError);  // 48 does not divide 64
  g.tile_m = 64;
  g.order = "mn";
  CHECK_THROWS_AS(tl::gemm_mapping(g), InputError);
  // factors that do not multiply to the extent
  tl::Mapping m = tl::gemm_mapping({64, 64, 64, 64, 64, 64, "mnk", 'm', 'n', 32, 32});
  m.levels[0].loops[0].factor = 2;
  CHECK_THROWS_AS(tl::analyze(tl::gemm_problem(64, 64, 64), m), InputError);
  // a spatial loop over a sliding-window dimension (link transfers)
  tl::Problem conv;
  conv.dims = {"R", "P"};
  conv.extents = {3, 4};
  conv.spaces = {{"Weights", {{{0, 1}}}, false}, {"Inputs", {{{0, 1}, {1, 1}}}, false}, {"Outputs", {{{1, 1}}}, true}};
  tl::Mapping sw;
  sw.levels = {{"Buffer", {true, true, true}, {{0, 3, false}, {1, 4, true}}}};
  CHECK_THROWS_AS(tl::analyze(conv, sw), InputError);
}
