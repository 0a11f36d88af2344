// --time-limit bounds a GEMM's whole tile search on the TENET engine (issue 28 item 4): every engine call of one
// search shares one deadline, so a search of many tiles stops at the limit instead of at (tiles x limit).
#include <catch2/catch.hpp>

#include <string>

#include "cost/arch_support.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"

using namespace tenet_cost;

TEST_CASE("the time limit bounds a GEMM's tile search on the engine", "[time-limit]") {
  cost::Options o;
  o.method = cost::ArrayMethod::kEngine;
  o.engine_time_limit_s = 1e-9;  // over before the first engine call
  cost::Estimator est(tc_test::edge_arch(8, 8, 1 << 20), mapping::parse_dataflow("os"), o);
  const cost::GemmShape s{1, 64, 48, 40, quant::GemmRole::kLinear};
  CHECK_THROWS_WITH(est.gemm(s, quant::parse_scheme("q0f16")),
                    Catch::Contains("the tile search of a 64x48x40 GEMM under dataflow os") &&
                        Catch::Contains("exceeded its time limit of 1e-09 s") && Catch::Contains("--time-limit"));
  // no limit: the same search succeeds
  o.engine_time_limit_s = 0;
  cost::Estimator free(tc_test::edge_arch(8, 8, 1 << 20), mapping::parse_dataflow("os"), o);
  CHECK(free.gemm(s, quant::parse_scheme("q0f16")).macs == 64 * 48 * 40);
}
