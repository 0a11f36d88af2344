// --timing pipeline (docs/model.md "Latency"): per buffer tile, double-buffered, first fetch and last write-back
// exposed. Oracles: the closed form recomputed by hand from the GEMM's public counts (terms, tiles, the output's
// DRAM bytes, the arch's clock and bandwidth); a single-tile GEMV where nothing overlaps (fetch + compute +
// write-back); and the property pipeline >= roofline at the same tile, equal when one term dominates every window.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "cost/arch_support.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/cost.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::int64_t term(const cost::GemmCost& c, cost::Term t) { return c.cycles_of(t); }

/// DRAM cycles of `bytes` on `a` (the roofline's own rounding).
std::int64_t dram_cycles(const arch::Arch& a, std::int64_t bytes) {
  return (bytes * a.clock_mhz + a.dram_mb_per_s - 1) / a.dram_mb_per_s;
}

/// The pipeline's cycles recomputed from the roofline result `r` of the same tile.
std::int64_t expected_pipeline(const arch::Arch& a, const cost::GemmCost& r) {
  using cost::Term;
  const std::int64_t array = term(r, Term::kCompute) + term(r, Term::kStationaryLoad) + term(r, Term::kOutputDrain);
  const std::int64_t p = std::max({array, term(r, Term::kBuffer), term(r, Term::kDequant), term(r, Term::kVector)});
  std::int64_t out_bytes = 0;
  for (const auto& t : r.tensors)
    if (t.role == quant::OperandRole::kOutput) out_bytes += t.dram_bytes;
  const std::int64_t d = term(r, Term::kDram);
  const std::int64_t o = std::min(d, dram_cycles(a, out_bytes));
  const std::int64_t i = d - o;
  const std::int64_t n = r.tiles;
  if (n == 1) return i + p + o;
  const i128 total = i128{i} + std::max(p, i) + i128{n - 2} * std::max(p, i + o) + std::max(p, o) + o;
  return static_cast<std::int64_t>((total + n - 1) / n);
}

}  // namespace

TEST_CASE("--timing pipeline: the closed form from public counts, and never below the roofline", "[timing]") {
  const arch::Arch a = tc_test::edge_arch(32, 32, 1 << 20);
  for (const char* df : {"os", "ws"})
    for (const cost::GemmShape& s :
         {cost::GemmShape{1, 1, 512, 512}, cost::GemmShape{1, 1, 4096, 4096}, cost::GemmShape{1, 64, 4096, 4096},
          cost::GemmShape{1, 2048, 1024, 4096}, cost::GemmShape{4, 128, 128, 64}})
      for (const char* q : {"q0f16", "q4f16_1", "w8a8-token-channel"}) {
        INFO(df << " " << s.batch << "x" << s.m << "x" << s.n << "x" << s.k << " " << q);
        cost::Options ro;
        ro.method = cost::ArrayMethod::kClosedForm;
        cost::Estimator roof(a, mapping::parse_dataflow(df), ro);
        const auto scheme = quant::parse_scheme(q);
        const cost::GemmCost r = roof.gemm(s, scheme);
        cost::Options po = ro;
        po.timing = cost::Timing::kPipeline;
        cost::Estimator pipe(a, mapping::parse_dataflow(df), po);
        const cost::GemmCost p = pipe.gemm(s, scheme, r.tile);  // the same tile
        CHECK(p.tile == r.tile);
        CHECK(p.dram_bytes == r.dram_bytes);
        CHECK(p.cycles == expected_pipeline(a, r));
        CHECK(p.cycles >= r.cycles);
      }
}

TEST_CASE("--timing pipeline: a one-tile GEMV exposes its fetch, compute and write-back", "[timing]") {
  // 1x512x512 fp16 fits the 1 MiB buffer: one tile, nothing to overlap. Fetch = A + B bytes, write-back = C bytes,
  // compute = the array's cycles; the roofline takes only the largest of them.
  const arch::Arch a = tc_test::edge_arch(32, 32, 1 << 20);
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator roof(a, mapping::parse_dataflow("os"), o);
  const auto scheme = quant::parse_scheme("q0f16");
  const cost::GemmShape s{1, 1, 512, 512};
  const auto& r = roof.gemm(s, scheme);
  REQUIRE(r.tiles == 1);
  const std::int64_t fetch_bytes = (1 * 512 + 512 * 512) * 2, write_bytes = 512 * 2;
  CHECK(r.dram_bytes == fetch_bytes + write_bytes);
  const std::int64_t dram = dram_cycles(a, fetch_bytes + write_bytes);
  CHECK(r.cycles == std::max(dram, term(r, cost::Term::kCompute)));
  o.timing = cost::Timing::kPipeline;
  cost::Estimator pipe(a, mapping::parse_dataflow("os"), o);
  const cost::GemmCost p = pipe.gemm(s, scheme, r.tile);  // the one tile
  const std::int64_t o_cycles = dram_cycles(a, write_bytes);
  CHECK(p.cycles == (dram - o_cycles) + term(r, cost::Term::kCompute) + o_cycles);
  CHECK(p.cycles > r.cycles);
  // Left to choose, the pipeline's tile search splits the GEMV so that fetches overlap compute: never worse.
  const auto& best = pipe.gemm(s, scheme);
  CHECK(best.cycles <= p.cycles);
  CHECK(best.cycles >= r.cycles);
}

TEST_CASE("--timing: parsed, stated in the notes, default roofline unchanged", "[timing]") {
  CHECK(cost::parse_timing("roofline") == cost::Timing::kRoofline);
  CHECK(cost::parse_timing("pipeline") == cost::Timing::kPipeline);
  CHECK(cost::to_string(cost::Timing::kPipeline) == "pipeline");
  CHECK_THROWS_AS(cost::parse_timing("stall"), InputError);
  const auto def = tc_test::run_cli("estimate --gemm 1x512x512 --quant q0f16 --format json");
  const auto roof = tc_test::run_cli("estimate --gemm 1x512x512 --quant q0f16 --format json --timing roofline");
  REQUIRE(def.exit_code == 0);
  CHECK(def.out == roof.out);
  const auto pipe = tc_test::run_cli("estimate --gemm 1x512x512 --quant q0f16 --timing pipeline");
  REQUIRE(pipe.exit_code == 0);
  CHECK(pipe.out.find("note: timing pipeline:") != std::string::npos);
  CHECK(tc_test::run_cli("estimate --gemm 1x512x512 --timing stall").exit_code == 2);
}
