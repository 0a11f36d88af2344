// The N-level closed forms (src/cost/levels.cpp) against a brute-force simulation of the tiled loop nest over the
// levels: the walk runs every level's loops in its order over its tile inside the enclosing level's segment; at each
// step every level holding an operand keeps one tile of it and fetches the tile (its distinct elements) when the tile
// it needs changes; for the output each such visit ends in a write-back and reads back the elements visited before
// (partial sums; the first visit of an element reads nothing). Every order of every level, nested tiles (dividing or
// covering), grouped operands, one to three levels. Capacity: the largest resident tile bits per class over the walk
// against the level's usable bytes (a partition per class, halved when double-buffered) decides the same as the
// search's check. A three-level case is checked by hand.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cost/levels.hpp"
#include "cost/nest.hpp"
#include "levels_oracle.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;
using cost::detail::LevelTiles;

namespace {

using namespace levels_oracle;

// Every step of the walk: the segments of each level.
void walk(const LevelTiles& tiles, std::size_t level, std::size_t pos, Segs cur, std::vector<Segs>& path,
          std::vector<std::vector<Segs>>& steps) {
  if (level == tiles.size()) {
    steps.push_back(path);
    return;
  }
  const cost::Tile& t = tiles[level];
  if (pos == 3) {
    path.push_back(cur);
    walk(tiles, level + 1, 0, cur, path, steps);
    path.pop_back();
    return;
  }
  const auto slot = static_cast<std::size_t>(cost::detail::loop_slot(t.order[pos]));
  const std::int64_t size = slot == 0 ? t.m : slot == 1 ? t.n : t.k;
  const Seg outer = cur[slot];
  for (std::int64_t lo = outer.lo; lo < outer.hi; lo += size) {
    cur[slot] = Seg{lo, std::min(outer.hi, lo + size)};
    walk(tiles, level, pos + 1, cur, path, steps);
  }
}

struct Brute {
  std::int64_t fills = 0;       // elements fetched (the output: visited) into the level
  std::int64_t read_backs = 0;  // the output: elements of a visit visited before
};

Brute simulate(const quant::Operand& op, const std::vector<std::vector<Segs>>& steps, std::size_t h) {
  Brute b;
  std::set<Elem> resident, seen;
  bool first = true;
  for (const auto& step : steps) {
    const std::set<Elem> tile = elements(op, step[h]);
    if (!first && tile == resident) continue;
    first = false;
    resident = tile;
    b.fills += static_cast<std::int64_t>(tile.size());
    for (const auto& e : tile)
      if (!seen.insert(e).second) ++b.read_backs;
  }
  return b;
}

// Sizes along one loop nested in `parent` (dividing it, or any when it covers the extent), multiples of `align`.
std::vector<std::int64_t> nested(std::int64_t parent, std::int64_t extent, std::int64_t align) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = align; v <= std::min(parent, extent); v += align)
    if (parent >= extent || parent % v == 0) out.push_back(v);
  if (out.empty() || out.back() != std::min(parent, extent)) out.push_back(std::min(parent, extent));
  return out;
}

}  // namespace

TEST_CASE("level traffic closed forms equal a simulation of the nest over 1-3 levels", "[levels][oracle]") {
  const auto ops = oracle_ops();  // A, W, SW[j/4, k/2], SA[i, k/2], C, S[0]
  const std::vector<const char*> orders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
  const std::vector<std::array<std::int64_t, 3>> shapes = {{5, 8, 6}, {3, 4, 4}, {1, 8, 2}};
  int compared = 0;
  for (const auto& [M, N, K] : shapes) {
    const cost::GemmShape s{1, M, N, K, quant::GemmRole::kLinear};
    std::vector<LevelTiles> cases;
    for (const auto tm : nested(M, M, 1))
      for (const auto tn : nested(N, N, 4))
        for (const auto tk : nested(K, K, 2))
          for (const char* o0 : orders) {
            cases.push_back({{tm, tn, tk, o0}});
            for (const auto um : nested(tm, M, 1))
              for (const auto un : nested(tn, N, 4))
                for (const auto uk : nested(tk, K, 2))
                  for (const char* o1 : {"mnk", "knm", "nkm"}) {
                    cases.push_back({{tm, tn, tk, o0}, {um, un, uk, o1}});
                    if ((um * un * uk) % 3 == 0)  // a sample of third levels
                      cases.push_back({{tm, tn, tk, o0}, {um, un, uk, o1}, {1, un, std::min<std::int64_t>(2, uk), o0}});
                  }
          }
    for (const auto& tiles : cases) {
      std::vector<std::vector<Segs>> steps;
      std::vector<Segs> path;
      walk(tiles, 0, 0, Segs{Seg{0, M}, Seg{0, N}, Seg{0, K}}, path, steps);
      for (std::size_t h = 0; h < tiles.size(); ++h)
        for (const auto& op : ops) {
          INFO(op.relation() << " GEMM " << M << "x" << N << "x" << K << " level " << h << " of " << tiles.size());
          for (const auto& t : tiles) INFO(cost::to_string(t));
          const Brute b = simulate(op, steps, h);
          const std::int64_t got = cost::detail::level_fills(op, s, tiles, h);
          CHECK(got == b.fills);
          if (op.write) CHECK(got - M * N == b.read_backs);  // each visit but an element's first reads it back
          if (h == 0 && tiles.size() == 1) {                 // one level: the two-level DRAM closed form
            const auto mv = cost::detail::dram_move(op, cost::detail::Nest(s, tiles[0]));
            CHECK((op.write ? M * N + mv.partial : mv.first) == got);
          }
          ++compared;
        }
    }
  }
  CHECK(compared > 20000);
}

TEST_CASE("level capacity: partitions and double buffering decide as the resident tiles over the walk",
          "[levels][oracle]") {
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  const cost::GemmShape s{1, 6, 8, 5, quant::GemmRole::kLinear};
  int decided = 0;
  for (std::int64_t tm = 1; tm <= 6; ++tm)
    for (std::int64_t tn = 1; tn <= 8; tn += 3)
      for (std::int64_t tk = 1; tk <= 5; tk += 2) {
        const LevelTiles tiles{{tm, tn, tk, "mnk"}};
        std::vector<std::vector<Segs>> steps;
        std::vector<Segs> path;
        walk(tiles, 0, 0, Segs{Seg{0, 6}, Seg{0, 8}, Seg{0, 5}}, path, steps);
        std::array<std::int64_t, 3> most{};  // bytes resident per class (A, B at 16 bits, C at 32)
        for (const auto& st : steps) {
          std::array<std::int64_t, 3> now{};
          for (const auto& op : ops)
            now[static_cast<std::size_t>(cost::detail::class_of(op))] +=
                static_cast<std::int64_t>(elements(op, st[0]).size()) * (op.write ? 4 : 2);
          for (std::size_t c = 0; c < 3; ++c) most[c] = std::max(most[c], now[c]);
        }
        for (const std::int64_t bytes : {60, 120, 200, 400})
          for (const bool dbl : {false, true})
            for (const bool part : {false, true}) {
              arch::MemLevel l;
              l.name = "x";
              l.bytes = bytes;
              l.buffering = dbl ? arch::TileBuffering::kDouble : arch::TileBuffering::kSingle;
              if (part) l.partition = {bytes / 4, bytes / 2, bytes / 4};
              bool fits = true;
              if (part) {
                for (std::size_t c = 0; c < 3; ++c)
                  fits = fits && most[c] <= (dbl ? l.partition[c] / 2 : l.partition[c]);
              } else {
                fits = most[0] + most[1] + most[2] <= (dbl ? bytes / 2 : bytes);
              }
              INFO(tm << "x" << tn << "x" << tk << " bytes " << bytes << (dbl ? " double" : "")
                      << (part ? " part" : ""));
              CHECK(fits == !cost::detail::level_misfit(ops, s, tiles[0], 32, l).has_value());
              ++decided;
            }
      }
  CHECK(decided == 6 * 3 * 3 * 16);
}

TEST_CASE("three levels by hand: partial sums between the on-chip levels", "[levels][oracle]") {
  // GEMM 4x4x4 fp16. Global 2x4x4 mnk (m: 2 trips), local 2x2x2 knm (k, n: 2 trips each inside), operand buffer
  // 2x2x1 mnk (k: 2 trips), holding A and B only.
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  const cost::GemmShape s{1, 4, 4, 4, quant::GemmRole::kLinear};
  const LevelTiles tiles{{2, 4, 4, "mnk"}, {2, 2, 2, "knm"}, {2, 2, 1, "mnk"}};
  const auto& A = ops[0];
  const auto& B = ops[1];
  const auto& C = ops[2];
  REQUIRE(C.write);
  // A: global once (16); local: per global tile its 2 k tiles of 2x2 (the n loop inside does not change A's tile): 16;
  // operand buffer: per local visit its 2 k columns (4), refetched on the second n trip: 2 x 2 x 2 x 4 = 32.
  CHECK(cost::detail::level_fills(A, s, tiles, 0) == 16);
  CHECK(cost::detail::level_fills(A, s, tiles, 1) == 16);
  CHECK(cost::detail::level_fills(A, s, tiles, 2) == 32);
  // B: global once (the m loop re-walks nothing: its subnest has one tile); local: 4 tiles of 4 per global tile,
  // refetched for the second m: 32; operand buffer: each local visit in 2 k rows: 32.
  CHECK(cost::detail::level_fills(B, s, tiles, 0) == 16);
  CHECK(cost::detail::level_fills(B, s, tiles, 1) == 32);
  CHECK(cost::detail::level_fills(B, s, tiles, 2) == 32);
  // C: global 2 tiles of 8 (16, no DRAM partial sums); local: per global tile k (2) x n (2) visits of 4 = 16, so 32
  // visits: 32 write-backs and 32 - 16 = 16 partial sums read back from the global buffer.
  CHECK(cost::detail::level_fills(C, s, tiles, 0) == 16);
  CHECK(cost::detail::level_fills(C, s, tiles, 1) == 32);
  std::vector<arch::MemLevel> levels(3);
  for (std::size_t h = 0; h < 3; ++h) {
    levels[h].name = "L" + std::to_string(h);
    levels[h].bytes = 1 << 20;
    levels[h].bits_per_cycle = 16;
  }
  levels[2].holds = {true, true, false};
  const std::int64_t array_c_writes = 48;  // (what the array writes; only passed through)
  const auto lt = cost::detail::level_traffic(ops, s, tiles, {}, 32, levels, {100, 200, 48 - 16}, array_c_writes);
  CHECK(lt.dram[0] == std::array<std::int64_t, 2>{16, 0});
  CHECK(lt.dram[1] == std::array<std::int64_t, 2>{16, 0});
  CHECK(lt.dram[2] == std::array<std::int64_t, 2>{16, 0});
  // L0 serves A 16, B 32 to the local buffer (16 bits) and C: 16 read back + 32 updates (32 bits):
  // (16 + 32) x 16 + (16 + 32) x 32 = 2,304 bits = 288 bytes, 144 cycles at 16 bits per cycle.
  CHECK(lt.levels[0].served_bytes == 288);
  CHECK(lt.levels[0].cycles == 144);
  // L1 serves A 32, B 32 to the operand buffer and C to the array: 32 reads + 48 updates at 32 bits.
  CHECK(lt.levels[1].served_bytes == ((32 + 32) * 16 + (32 + 48) * 32) / 8);
  CHECK(lt.levels[1].operands[2].fills == 16);
  CHECK(lt.levels[1].operands[2].updates == 48);
  // L2 serves the array's reads as given (A 100, B 200).
  CHECK(lt.levels[2].served_bytes == (100 + 200) * 2);
  CHECK(lt.levels[2].operands.size() == 2);
}
