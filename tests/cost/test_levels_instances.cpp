// Memory levels with instances (src/cost/levels.cpp, docs/model.md "Memory levels"): the closed forms against a
// brute-force lockstep simulation of the tiled loop nest with its fan-outs. Every level's loops step over its span
// inside the segment of one instance of the level above; a fan-out then gives instance g the share
// [g s, (g + 1) s) of the segment (s = ceil(span / fan-out); an empty share: the instance idles). All instances run in
// lockstep: a step is the vector of the trip numbers of the loops. Each instance keeps one tile of an operand and
// fetches it when it changes (the output: a visit); what the parent serves at a step is the union of what its child
// instances fetch at that step (multicast: one read for instances that get the same element; for the output one
// reduced update per element). Checked: each instance's own fetches summed, and the parent's reads, for every
// order, spans nested in the instance tile above, fan-outs over m, n and k at one or two levels, grouped operands with
// group-aligned shares, partial and idle instances at the GEMM's edges.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cost/levels.hpp"
#include "cost/nest.hpp"
#include "levels_oracle.hpp"
#include "tenet_cost/quant.hpp"
#include "timeloop_reference.hpp"

using namespace tenet_cost;
using cost::detail::LevelFanouts;
using cost::detail::LevelTiles;

namespace {

using namespace levels_oracle;

struct Step {
  std::size_t split = 0;  // 0: a loop over `size`; else a fan-out `split` ways with shares of `size`
  std::size_t slot = 0;
  std::int64_t size = 1;
  std::size_t level = 0;
};

// The loops and fan-outs of levels 0..h, outermost first.
std::vector<Step> nest_of(const LevelTiles& tiles, const LevelFanouts& fans, std::size_t h) {
  std::vector<Step> out;
  for (std::size_t l = 0; l <= h; ++l) {
    const std::array<std::int64_t, 3> sz{tiles[l].m, tiles[l].n, tiles[l].k};
    for (const char c : tiles[l].order) {
      const auto slot = static_cast<std::size_t>(cost::detail::loop_slot(c));
      out.push_back(Step{0, slot, sz[slot], l});
    }
    for (std::size_t d = 0; d < 3; ++d)
      if (fans[l][d] > 1)
        out.push_back(Step{static_cast<std::size_t>(fans[l][d]), d, (sz[d] + fans[l][d] - 1) / fans[l][d], l});
  }
  return out;
}

struct Event {
  std::vector<std::int64_t> coord;  // the instance: its g at every fan-out
  std::vector<std::int64_t> time;   // the trip number of every loop
  Segs tile;
};

void run(const std::vector<Step>& nest, std::size_t pos, Segs cur, Event& e, std::vector<Event>& out) {
  if (pos == nest.size()) {
    e.tile = cur;
    out.push_back(e);
    return;
  }
  const Step& st = nest[pos];
  const Seg outer = cur[st.slot];
  if (st.split == 0) {
    std::int64_t trip = 0;
    for (std::int64_t lo = outer.lo; lo < outer.hi; lo += st.size, ++trip) {
      cur[st.slot] = Seg{lo, std::min(outer.hi, lo + st.size)};
      e.time.push_back(trip);
      run(nest, pos + 1, cur, e, out);
      e.time.pop_back();
    }
    return;
  }
  for (std::int64_t g = 0; g < static_cast<std::int64_t>(st.split); ++g) {
    const std::int64_t lo = outer.lo + g * st.size;
    if (lo >= outer.hi) break;  // idle
    cur[st.slot] = Seg{lo, std::min(outer.hi, lo + st.size)};
    e.coord.push_back(g);
    run(nest, pos + 1, cur, e, out);
    e.coord.pop_back();
  }
}

struct Counts {
  std::int64_t own = 0;     // every instance's fetches (visits), summed
  std::int64_t parent = 0;  // the union per parent instance and step
};

// `parent_splits`: how many of the fan-outs belong to the levels above the parent (they name the parent instance).
Counts simulate(const quant::Operand& op, const std::vector<Event>& events, std::size_t parent_splits) {
  Counts c;
  std::map<std::vector<std::int64_t>, std::set<Elem>> resident;  // per instance
  std::map<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>, std::set<Elem>> served;
  for (const auto& e : events) {
    std::set<Elem> tile = elements(op, e.tile);
    auto it = resident.find(e.coord);
    if (it != resident.end() && it->second == tile) continue;
    c.own += static_cast<std::int64_t>(tile.size());
    const std::vector<std::int64_t> parent(e.coord.begin(),
                                           e.coord.begin() + static_cast<std::ptrdiff_t>(parent_splits));
    served[{parent, e.time}].insert(tile.begin(), tile.end());
    resident[e.coord] = std::move(tile);
  }
  for (const auto& [k, v] : served) c.parent += static_cast<std::int64_t>(v.size());
  return c;
}

// Spans along one loop nested in the instance tile `parent` (dividing it, or covering the extent), whose share over
// `fan` instances is a multiple of `align`.
std::vector<std::int64_t> spans(std::int64_t parent, std::int64_t extent, std::int64_t align, std::int64_t fan) {
  std::vector<std::int64_t> out;
  const std::int64_t cover = std::min(parent, extent);
  for (std::int64_t v = 1; v <= cover; ++v) {
    const bool nests = parent >= extent || parent % v == 0 || v == cover;
    const bool aligned = (v % align == 0 || v == cover) && (fan == 1 || ((v + fan - 1) / fan) % align == 0);
    if (nests && aligned) out.push_back(v);
  }
  return out;
}

}  // namespace

TEST_CASE("levels with instances: each instance's fills and the parent's multicast reads equal a lockstep simulation",
          "[levels][instances][oracle]") {
  const auto ops = oracle_ops();  // A, W, SW[j/4, k/2], SA[i, k/2], C, S[0]
  const std::array<std::int64_t, 3> align{1, 4, 2};
  const std::vector<const char*> orders = {"mnk", "nmk", "kmn", "nkm"};
  // fan-outs per level: (m, n) as os's rows and columns, (k, n) as ws's (the output reduced over k)
  const std::vector<LevelFanouts> fan_sets = {{{1, 1, 1}, {2, 2, 1}}, {{2, 1, 1}, {1, 2, 1}}, {{1, 1, 1}, {1, 2, 2}},
                                              {{1, 1, 2}, {1, 1, 1}}, {{3, 1, 1}, {1, 1, 1}}, {{1, 1, 1}, {4, 1, 1}}};
  const std::vector<std::array<std::int64_t, 3>> shapes = {{5, 8, 6}, {6, 8, 4}, {1, 8, 2}};
  int compared = 0;
  for (const auto& [M, N, K] : shapes) {
    const cost::GemmShape s{1, M, N, K, quant::GemmRole::kLinear};
    const std::array<std::int64_t, 3> ext{M, N, K};
    for (const auto& fans : fan_sets) {
      std::vector<LevelTiles> cases;
      std::array<std::vector<std::int64_t>, 3> s0;
      for (std::size_t d = 0; d < 3; ++d) s0[d] = spans(ext[d], ext[d], align[d], fans[0][d]);
      for (const auto tm : s0[0])
        for (const auto tn : s0[1])
          for (const auto tk : s0[2])
            for (const char* o0 : orders) {
              const cost::Tile t0{tm, tn, tk, o0};
              const cost::Tile i0 = cost::detail::instance_tile(t0, fans[0]);
              const std::array<std::int64_t, 3> p{i0.m, i0.n, i0.k};
              std::array<std::vector<std::int64_t>, 3> s1;
              for (std::size_t d = 0; d < 3; ++d) s1[d] = spans(p[d], ext[d], align[d], fans[1][d]);
              for (const auto um : s1[0])
                for (const auto un : s1[1])
                  for (const auto uk : s1[2])
                    for (const char* o1 : {"mnk", "knm"}) cases.push_back({t0, {um, un, uk, o1}});
            }
      for (const auto& tiles : cases)
        for (std::size_t h = 0; h < 2; ++h) {
          std::vector<Event> events;
          Event e;
          const auto nest = nest_of(tiles, fans, h);
          run(nest, 0, Segs{Seg{0, M}, Seg{0, N}, Seg{0, K}}, e, events);
          for (std::size_t parent = 0; parent <= h + 1; ++parent) {  // the level after the parent; h + 1: none
            std::size_t splits_above = 0;
            for (const auto& st : nest) splits_above += st.split > 0 && st.level < parent ? 1 : 0;
            for (const auto& op : ops) {
              INFO(op.relation() << " GEMM " << M << "x" << N << "x" << K << " level " << h << " shared from " << parent
                                 << " tiles " << cost::to_string(tiles[0]) << " " << cost::to_string(tiles[1])
                                 << " fans m" << fans[0][0] << fans[1][0] << " n" << fans[0][1] << fans[1][1] << " k"
                                 << fans[0][2] << fans[1][2]);
              const Counts b = simulate(op, events, splits_above);
              const std::int64_t got = cost::detail::level_fills(op, s, tiles, fans, h, parent);
              CHECK(got == (parent == h + 1 ? b.own : b.parent));
              ++compared;
            }
          }
        }
    }
  }
  CHECK(compared > 20000);
}

TEST_CASE("levels with instances: no fan-out gives the shared model's fills", "[levels][instances]") {
  const auto ops = oracle_ops();
  const cost::GemmShape s{1, 5, 8, 6, quant::GemmRole::kLinear};
  const LevelTiles tiles{{5, 8, 6, "nkm"}, {2, 4, 2, "kmn"}};
  const LevelFanouts ones{{1, 1, 1}, {1, 1, 1}};
  for (const auto& op : ops)
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t from = 0; from <= h + 1; ++from) {
        CHECK(cost::detail::level_fills(op, s, tiles, ones, h, from) == cost::detail::level_fills(op, s, tiles, h));
        CHECK(cost::detail::level_fills(op, s, tiles, {}, h, from) == cost::detail::level_fills(op, s, tiles, h));
      }
}

TEST_CASE("levels with instances by hand: a multicast read, a reduced update, the traffic per level",
          "[levels][instances]") {
  // GEMM 4x4x4 fp16. L0 holds the whole GEMM (shared); L1 is 2 instances along m (os rows), span 4x4x2 in order knm,
  // so each instance holds 2x4x2 and walks the 2 k steps.
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  const auto &A = ops[0], &B = ops[1], &C = ops[2];
  const cost::GemmShape s{1, 4, 4, 4, quant::GemmRole::kLinear};
  const LevelTiles tiles{{4, 4, 4, "mnk"}, {4, 4, 2, "knm"}};
  const LevelFanouts rows{{1, 1, 1}, {2, 1, 1}};
  // A[i, k]: each instance its own 2 rows, 2 k steps of 2x2: 8 each, 16 in all, 16 read from L0 (no sharing)
  CHECK(cost::detail::level_fills(A, s, tiles, rows, 1, 2) == 16);
  CHECK(cost::detail::level_fills(A, s, tiles, rows, 1, 1) == 16);
  // B[k, j]: both instances need the same 2x4 per k step: 16 each, 32 written, 16 multicast reads from L0
  CHECK(cost::detail::level_fills(B, s, tiles, rows, 1, 2) == 32);
  CHECK(cost::detail::level_fills(B, s, tiles, rows, 1, 1) == 16);
  // C[i, j]: one visit of 2x4 per instance (the k steps keep it): 16, no partial sums
  CHECK(cost::detail::level_fills(C, s, tiles, rows, 1, 1) == 16);
  // the same level over k (ws rows): the output's partial sums of the 2 instances are reduced into one update
  const LevelTiles kt{{4, 4, 4, "mnk"}, {4, 4, 4, "mnk"}};
  const LevelFanouts ks{{1, 1, 1}, {1, 1, 2}};
  CHECK(cost::detail::level_fills(C, s, kt, ks, 1, 2) == 32);  // each instance visits its 16 partial sums
  CHECK(cost::detail::level_fills(C, s, kt, ks, 1, 1) == 16);  // L0 receives 16 reduced updates
  CHECK(cost::detail::level_fills(A, s, kt, ks, 1, 1) == 16);  // A[i, k] splits over k: no sharing
  std::vector<arch::MemLevel> levels(2);
  for (std::size_t h = 0; h < 2; ++h) {
    levels[h].name = "L" + std::to_string(h);
    levels[h].bytes = 1 << 20;
    levels[h].bits_per_cycle = 16;
  }
  levels[1].grid_rows = 2;
  const auto lt = cost::detail::level_traffic(ops, s, tiles, rows, 32, levels, {64, 64, 32}, 32);
  REQUIRE(lt.levels.size() == 2);
  CHECK(lt.levels[1].instances == 2);
  CHECK(cost::to_string(lt.levels[1].tile) == cost::to_string(cost::Tile{2, 4, 2, "knm"}));
  CHECK(lt.levels[0].operands[0].reads == 16);  // A
  CHECK(lt.levels[0].operands[1].reads == 16);  // B: multicast
  CHECK(lt.levels[1].operands[1].fills == 32);  // B: one copy per instance
  CHECK(lt.levels[0].operands[2].updates == 16);
  // L1 serves the array: A 64 + B 64 reads (16 bits), C 32 reads + 32 updates (32 bits) = 4,096 bits over its 2
  // instances at 16 bits per cycle each: 128 cycles
  CHECK(lt.levels[1].served_bytes == 512);
  CHECK(lt.levels[1].cycles == 128);
  CHECK(cost::detail::active_instances(s, tiles, rows, 1) == 2);
  CHECK(cost::detail::active_instances(cost::GemmShape{1, 1, 4, 4, quant::GemmRole::kLinear}, tiles, rows, 1) == 1);
}

TEST_CASE("levels with instances reproduce Timeloop's per-PE weight and output counters of exercise 04",
          "[levels][instances][reference]") {
  // tests/fixtures/reference/timeloop/04-model-conv1d+oc-3levelspatial: MainMemory -> 16 x GlobalBuffer ->
  // 16 x RegisterFile -> MACC, conv1d C=32 K=32 R=3 P=16. Its weights W[K][C][R] and outputs O[K][P] are a GEMM's
  // B[k = C R][n = K] and C[m = P][n = K] (C outer in k, so C's spatial split is a k fan-out with shares of 2 x 3).
  // The register file's tile is one weight and 16 outputs (P16 innermost). kp splits K (n) 16 ways, cp C (k).
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  const auto &W = ops[1], &O = ops[2];
  const cost::GemmShape s{1, 16, 32, 96, quant::GemmRole::kLinear};
  const std::string dir = std::string(TC_FIXTURE_DIR) + "/reference/timeloop/04-model-conv1d+oc-3levelspatial/";
  for (const std::string run : {"kp", "cp"}) {
    INFO(run);
    const auto st = timeloop_ref::stats(dir + "ref-output/" + run + "/timeloop-model.stats.txt");
    const LevelFanouts fans = run == "kp" ? LevelFanouts{{1, 16, 1}, {1, 1, 1}} : LevelFanouts{{1, 1, 16}, {1, 1, 1}};
    const LevelTiles tiles{{16, 32, 96, "mnk"}, {16, 1, 1, "knm"}};
    const std::int64_t pes = 16;
    CHECK(st.at("GlobalBuffer").at("Weights").at("Utilized instances (max)") == pes);
    CHECK(st.at("RegisterFile").at("Weights").at("Utilized instances (max)") == pes);
    // MainMemory's weight reads: what DRAM serves into the global buffers (no two share a weight)
    CHECK(cost::detail::level_fills(W, s, tiles, fans, 0, 0) ==
          st.at("MainMemory").at("Weights").at("Scalar reads (per-instance)"));
    // the global buffers' weight fills, their reads (= the register files' fills) and the register files' fills,
    // per instance
    CHECK(cost::detail::level_fills(W, s, tiles, fans, 0, 1) / pes ==
          st.at("GlobalBuffer").at("Weights").at("Scalar fills (per-instance)"));
    CHECK(cost::detail::level_fills(W, s, tiles, fans, 1, 1) / pes ==
          st.at("GlobalBuffer").at("Weights").at("Scalar reads (per-instance)"));
    CHECK(cost::detail::level_fills(W, s, tiles, fans, 1, 2) / pes ==
          st.at("RegisterFile").at("Weights").at("Scalar fills (per-instance)"));
    // outputs: MainMemory's updates (cp: 16 partial sums of each output reduced into one), the global buffers'
    // fills (none: an element's first visit reads nothing)
    const std::int64_t visits = cost::detail::level_fills(O, s, tiles, fans, 0, 0);
    CHECK(visits == st.at("MainMemory").at("Outputs").at("Scalar updates (per-instance)"));
    CHECK(visits - 16 * 32 == st.at("GlobalBuffer").at("Outputs").at("Scalar fills (per-instance)"));
  }
}
