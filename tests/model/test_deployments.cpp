// Several deployments in one comparison (issue 24, --tp / --pp / --ep lists): the grid of the lists, and the rows of
// compare_deployments against a plain compare (one chip) and compare_deployed (each deployment alone).
#include <catch2/catch.hpp>

#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                         mapping::parse_dataflow("os"), {});
}

std::string triple(const model::Parallel& p) {
  return std::to_string(p.tp) + "/" + std::to_string(p.pp) + "/" + std::to_string(p.ep);
}

}  // namespace

TEST_CASE("the --tp / --pp / --ep lists give every deployment once", "[parallel][deployments]") {
  model::Parallel base;
  base.collective_dtype = "fp8";
  const auto grid = model::deployment_grid("1,4,8", "", "1,tp", base);
  std::vector<std::string> got;
  for (const auto& p : grid) {
    got.push_back(triple(p));
    CHECK(p.collective_dtype == "fp8");
  }
  // ep = tp = 1 and ep 1 are one deployment
  CHECK(got == std::vector<std::string>{"1/1/1", "4/1/1", "4/1/4", "8/1/1", "8/1/8"});
  CHECK(triple(model::deployment_grid("", "", "", base).front()) == "1/1/1");
  CHECK(model::deployment_grid("2", "1,2", "", base).size() == 2);
  CHECK_THROWS_WITH(model::deployment_grid("1,0", "", "", base),
                    Catch::Contains("--tp: expected") && Catch::Contains("found '0'"));
  CHECK_THROWS_WITH(model::deployment_grid("4", "x", "", base), Catch::Contains("--pp: expected"));
  CHECK_THROWS_WITH(model::deployment_grid("4", "", "tp2", base), Catch::Contains("or tp, found 'tp2'"));
  CHECK_THROWS_WITH(model::deployment_grid("4,", "", "", base), Catch::Contains("found ''"));
  CHECK_THROWS_AS(model::deployment_grid("99999999999999999999", "", "", base), InputError);
}

TEST_CASE("compare over several deployments: one row per deployment and scheme", "[parallel][deployments]") {
  const model::ModelConfig c = model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256,
    "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 4, "vocab_size": 512})",
                                                      "small.json");
  cost::Estimator est = estimator();
  model::Phases ph;
  ph.seq_len = ph.context = 64;
  ph.batch = 4;
  const model::Model whole = model::plan_from_config("small.json", c, ph);
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"),
                                                             quant::parse_scheme("w8a8-token-channel")};
  const auto grid = model::deployment_grid("1,2", "1,2", "", {});
  const model::CompareResult r = model::compare_deployments(est, whole, c, ph, schemes, grid);
  REQUIRE(r.deployments.size() == 4);
  REQUIRE(r.rows.size() == 8);
  // one chip: exactly the plain comparison's figures
  const model::CompareResult plain = model::compare(est, whole, ph, schemes);
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const model::CompareRow& a = r.rows[i];
    const model::CompareRow& b = plain.rows[i];
    CHECK(a.deploy->deployment == 0);
    CHECK(a.prefill.latency_s == Approx(b.prefill.latency_s).epsilon(1e-12));
    CHECK(a.decode.latency_s == Approx(b.decode.latency_s).epsilon(1e-12));
    CHECK(a.decode.energy_j == Approx(b.decode.energy_j).epsilon(1e-12));
    CHECK(a.decode.dram_bytes == b.decode.dram_bytes);
    CHECK(a.deploy->decode.collective_bytes == 0);
  }
  // every other deployment: compare_deployed's rows alone, the ratios against the first row of the whole table
  for (std::size_t d = 1; d < grid.size(); ++d) {
    model::Phases at = ph;
    at.parallel = grid[d];
    const model::CompareResult alone = model::compare_deployed(est, whole, c, at, schemes);
    CHECK(r.deployments[d].parallel.chips() == grid[d].chips());
    for (std::size_t i = 0; i < schemes.size(); ++i) {
      const model::CompareRow& a = r.rows[d * schemes.size() + i];
      INFO(triple(grid[d]) << " " << a.scheme);
      CHECK(a.deploy->deployment == d);
      CHECK(a.decode.latency_s == alone.rows[i].decode.latency_s);
      CHECK(a.deploy->decode.collective_bytes == alone.rows[i].deploy->decode.collective_bytes);
      CHECK(a.speedup_vs_first == Approx(r.rows[0].decode.latency_s / a.decode.latency_s));
    }
  }
  // the deployment notes: one per deployment, the shared ones once
  std::size_t deployment_notes = 0, figure_notes = 0;
  for (const auto& n : r.info.notes) {
    deployment_notes += n.rfind("deployment: ", 0) == 0 ? 1 : 0;
    figure_notes += n.rfind("deployment figures:", 0) == 0 ? 1 : 0;
  }
  CHECK(deployment_notes == 4);
  CHECK(figure_notes == 1);
}
