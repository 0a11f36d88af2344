// The buffer <-> DRAM closed forms (src/cost/nest.cpp) against a simulation of the tiled loop nest and its buffer:
// the loops run in the tile's order; a read operand's tile is fetched whenever the tile it needs changes; the
// output tile is written back when the nest leaves it — a final write when its reduction is complete, else a
// partial-sum spill that is read back when the nest returns to it. Every order, every tile (remainders included),
// grouped operands, one-trip loops.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "cost/nest.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;
using cost::detail::Nest;

namespace {

struct Moved {
  std::int64_t first = 0, partial = 0;
};

// Elements of the operand's tile at tile coordinates t (per loop m, n, k), remainders and groups included.
std::int64_t tile_elems(const quant::Operand& op, const Nest& nest, const std::map<char, std::int64_t>& t) {
  std::int64_t e = 1;
  for (const auto& x : op.index) {
    if (x.dim == '0') continue;
    const char l = cost::detail::loop_of(x.dim);
    const auto& d = nest.d.at(l);
    const std::int64_t lo = t.at(l) * d.tile, hi = std::min(d.extent, lo + d.tile);
    e *= (hi - 1) / x.divisor - lo / x.divisor + 1;  // the groups the tile touches
  }
  return e;
}

Moved simulate(const quant::Operand& op, const Nest& nest) {
  Moved mv;
  std::vector<std::int64_t> prev;
  std::map<std::vector<std::int64_t>, std::int64_t> k_done;  // output: reduction tiles accumulated per output tile
  const std::int64_t k_trips = nest.d.at('k').trips();
  std::map<char, std::int64_t> last;
  const auto key = [&](const std::map<char, std::int64_t>& t) {
    std::vector<std::int64_t> kk;
    for (const auto& x : op.index)
      if (x.dim != '0') kk.push_back(t.at(cost::detail::loop_of(x.dim)));
    return kk;
  };
  const auto leave = [&](const std::map<char, std::int64_t>& t) {  // the output tile t is written back
    const std::int64_t e = tile_elems(op, nest, t);
    if (k_done[key(t)] == k_trips) mv.first += e;
    else mv.partial += e;  // a spill (its read-back is counted when the nest returns)
  };
  const std::string order = nest.order;
  const auto trips = [&](int pos) { return nest.d.at(order[static_cast<std::size_t>(pos)]).trips(); };
  for (std::int64_t a = 0; a < trips(0); ++a)
    for (std::int64_t b = 0; b < trips(1); ++b)
      for (std::int64_t c = 0; c < trips(2); ++c) {
        std::map<char, std::int64_t> t = {{order[0], a}, {order[1], b}, {order[2], c}};
        const auto kk = key(t);
        if (kk != prev || last.empty()) {
          if (op.write && !last.empty()) leave(last);
          if (!op.write) mv.first += tile_elems(op, nest, t);
          prev = kk;
        }
        if (op.write) ++k_done[kk];
        last = t;
      }
  if (op.write) leave(last);
  return mv;
}

}  // namespace

TEST_CASE("DRAM traffic closed forms equal a simulation of the tiled loop nest, one-trip loops included") {
  const auto s = quant::parse_scheme("fp8-block4x2");  // A, W, SW[j/4, k/2], SA[i, k/2], C
  auto ops = quant::operands(s, quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  ops.push_back(quant::operands(quant::parse_scheme("fp8-tensor"), quant::GemmRole::kLinear,
                                quant::DequantSite::kEdge)[2]);  // a per-tensor scale S[0]
  const std::vector<std::array<std::int64_t, 3>> shapes = {{5, 8, 6}, {1, 12, 8}, {7, 4, 2}, {3, 3, 4}};
  int compared = 0;
  for (const auto& [M, N, K] : shapes)
    for (std::int64_t tm = 1; tm <= M; ++tm)
      for (std::int64_t tn = 4; tn <= N; tn += 4)  // multiples of the block along N (or the whole axis)
        for (std::int64_t tk = 2; tk <= K; tk += 2)
          for (const char* order : {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"}) {
            const Nest nest({1, M, N, K, quant::GemmRole::kLinear}, {tm, tn, tk, order});
            for (const auto& op : ops) {
              INFO(op.relation() << " GEMM " << M << "x" << N << "x" << K << " tile " << tm << "x" << tn << "x" << tk
                                 << " " << order);
              const Moved want = simulate(op, nest);
              const auto got = cost::detail::dram_move(op, nest);
              CHECK(got.first == want.first);
              CHECK(got.partial == want.partial);
              ++compared;
            }
          }
  CHECK(compared > 1000);
}

TEST_CASE("orders that differ only in where a one-trip loop sits give the same traffic") {
  // the case: m has one trip, so nkm and nmk are the same nest (the output stays on chip across k)
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  const Nest nkm({1, 64, 4096, 4096, quant::GemmRole::kLinear}, {64, 256, 256, "nkm"});
  const Nest nmk({1, 64, 4096, 4096, quant::GemmRole::kLinear}, {64, 256, 256, "nmk"});
  for (const auto& op : ops) {
    INFO(op.name);
    CHECK(cost::detail::dram_move(op, nkm).first == cost::detail::dram_move(op, nmk).first);
    CHECK(cost::detail::dram_move(op, nkm).partial == cost::detail::dram_move(op, nmk).partial);
  }
  CHECK(cost::detail::dram_move(ops.back(), nkm).partial == 0);  // C written once
}
