// estimate --convention scalesim: SCALE-Sim v3's own CI golden (tests/fixtures/reference/scalesim-v3, the
// GEMM topology 256x128x256 on its 32x32 array) through the command line, and the refusals.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;

TEST_CASE("estimate --convention scalesim reproduces SCALE-Sim's golden counters", "[convention]") {
  // golden_trace_user_{ws,os,is}: Total Cycles - Stall Cycles = 11199 / 10175 / 14207; SRAM counters below.
  struct Case {
    const char* dataflow;
    std::int64_t cycles, ifmap, filter, ofmap;
  };
  for (const Case c : {Case{"ws", 11199, 262144, 32768, 262144}, Case{"os", 10175, 262144, 262144, 34816},
                       Case{"is", 14207, 65536, 262144, 262144}}) {
    INFO(c.dataflow);
    const auto r =
        tc_test::run_cli(std::string("estimate --gemm 256x128x256 --set pe_array.rows=32 --set pe_array.cols=32 "
                                     "--convention scalesim --format json --dataflow ") +
                         c.dataflow);
    REQUIRE(r.exit_code == 0);
    const json g = json::parse(r.out)["gemms"].at(0);
    CHECK(g["total_cycles"] == c.cycles);
    CHECK(g["sram_ifmap_reads"] == c.ifmap);
    CHECK(g["sram_filter_reads"] == c.filter);
    CHECK(g["sram_ofmap_writes"] == c.ofmap);
  }
}

TEST_CASE("estimate --convention: the default is physical; unknown names and unsupported flags are refused",
          "[convention]") {
  const auto physical = tc_test::run_cli("estimate --gemm 64x64x64 --format json");
  const auto named = tc_test::run_cli("estimate --gemm 64x64x64 --format json --convention physical");
  REQUIRE(physical.exit_code == 0);
  CHECK(named.out == physical.out);
  CHECK(tc_test::run_cli("estimate --gemm 64x64x64 --convention timeloop").exit_code == 2);
  CHECK(tc_test::run_cli("estimate --gemm 64x64x64 --convention scalesim --dataflow gen:ij-k-r-21").exit_code == 2);
  CHECK(tc_test::run_cli("estimate --gemm 64x64x64 --convention scalesim --format html").exit_code == 2);
  CHECK(tc_test::run_cli("estimate --gemm 64x64x64x2 --convention scalesim").exit_code == 2);
  CHECK(tc_test::run_cli("estimate --gemm 64x64x64 --convention scalesim --tile m=8,n=8,k=8").exit_code == 2);
}
