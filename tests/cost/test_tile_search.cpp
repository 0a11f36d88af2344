// The public tile search: rank_tiles is best-first and its head is choose_tile; an independent brute force over the
// same candidates (tile_sizes x orders) finds the same optimum of DRAM bits; user factors and alignment are honoured.
#include <catch2/catch.hpp>

#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;

namespace {

cost::TileProblem problem(const char* scheme, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t buffer) {
  const auto s = quant::parse_scheme(scheme);
  const cost::GemmShape shape{1, m, n, k, quant::GemmRole::kLinear};
  return cost::TileProblem{shape, quant::operands(s, shape.role), s.accum_bits, buffer, "test"};
}

}  // namespace

TEST_CASE("tile_sizes: 16*2^e multiples of the alignment below the extent, then the extent") {
  CHECK(cost::tile_sizes(100, 1) == std::vector<std::int64_t>{16, 32, 64, 100});
  CHECK(cost::tile_sizes(300, 128) == std::vector<std::int64_t>{128, 256, 300});
  CHECK(cost::tile_sizes(8, 1) == std::vector<std::int64_t>{8});
}

TEST_CASE("rank_tiles is sorted best-first, fits the buffer, and its head is choose_tile") {
  for (const char* scheme : {"q0f16", "q4f16_1", "w4a8-g128", "fp8-block128x128"}) {
    const auto p = problem(scheme, 256, 512, 1024, 96 * 1024);
    const auto ranked = cost::rank_tiles(p, {});
    REQUIRE_FALSE(ranked.empty());
    for (std::size_t i = 1; i < ranked.size(); ++i) {
      const auto& a = ranked[i - 1];
      const auto& b = ranked[i];
      CHECK((a.dram_bits < b.dram_bits ||
             (a.dram_bits == b.dram_bits &&
              (a.tiles < b.tiles || (a.tiles == b.tiles && a.working_set_bits <= b.working_set_bits)))));
    }
    for (const auto& c : ranked) CHECK(c.working_set_bits <= static_cast<i128>(p.buffer_bytes) * 8);
    CHECK(cost::choose_tile(p, {}) == ranked.front().tile);
    // no candidate has fewer DRAM bits than the head
    for (const auto& c : ranked) CHECK(c.dram_bits >= ranked.front().dram_bits);
  }
}

TEST_CASE("user factors narrow the search; misaligned factors and impossible buffers are clear errors") {
  const auto p = problem("q4f16_1", 256, 512, 1024, 1 << 20);
  const auto ranked = cost::rank_tiles(p, cost::Tile{64, 0, 0, "nmk"});
  for (const auto& c : ranked) {
    CHECK(c.tile.m == 64);
    CHECK(c.tile.order == "nmk");
  }
  CHECK_THROWS_WITH(cost::rank_tiles(p, cost::Tile{0, 0, 100, ""}), Catch::Contains("multiple of the group size 32"));
  CHECK_THROWS_WITH(cost::rank_tiles(problem("q0f16", 256, 512, 1024, 16), {}), Catch::Contains("over by"));
}
