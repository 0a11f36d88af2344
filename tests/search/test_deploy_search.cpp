// compare --search over chips (docs/search.md "Deployments"): each (deployment, scheme) row is the deployment at the
// candidate mapping whose deployment is best — a brute oracle runs model::compare_deployed at every dataflow and array
// — so the chosen total is the minimum over the candidates and never more than the unsearched deployment's.
#include <catch2/catch.hpp>

#include <algorithm>

#include "cost/arch_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/search.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

struct DeployFixture {
  arch::Arch arch = tc_test::edge_arch(4, 4, 1 << 12);
  model::ModelConfig cfg = model::load_hf_config(tc_test::fixture("estimate/tiny_config.json"));  // 4 heads, 2 KV
  model::Phases ph;
  std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"),
                                                       quant::parse_scheme("w8a8-token-channel")};
  search::Options o;
  DeployFixture() {
    ph.seq_len = 24;
    ph.context = 25;
    ph.batch = 2;
    o.method = cost::ArrayMethod::kClosedForm;
    o.dataflows = search::parse_dataflows("os,ws");
    o.arrays = search::array_shapes(16);
  }
  [[nodiscard]] model::Model plan() const { return model::plan_from_config("tiny", cfg, ph); }
  // The deployment of scheme s at one candidate (a plain compare_deployed on that array and dataflow).
  [[nodiscard]] model::CompareRow at(const model::Parallel& p, std::size_t s, const mapping::Dataflow& df,
                                     std::int64_t rows, std::int64_t cols, const model::Request* req) const {
    arch::Arch a = arch;
    a.rows = rows;
    a.cols = cols;
    cost::Options co;
    co.method = o.method;
    co.objective = o.objective;
    cost::Estimator est(a, df, co);
    model::Phases x = ph;
    x.parallel = p;
    model::CompareResult one = model::compare_deployed(est, plan(), cfg, x, {schemes[s]});
    if (req != nullptr) model::add_deployed_requests(one, est, plan(), cfg, x, *req, {schemes[s]});
    return one.rows.front();
  }
};

double step_total(const model::CompareRow& r) { return r.prefill.latency_s + r.decode.latency_s; }

}  // namespace

TEST_CASE("compare --search --tp/--pp: the chosen deployment is the minimum over every candidate mapping",
          "[search][deploy]") {
  const DeployFixture f;
  model::Parallel tp2, pp2;
  tp2.tp = 2;
  pp2.tp = 2;
  pp2.pp = 2;
  const std::vector<model::Parallel> grid = {tp2, pp2};
  const model::CompareResult c = search::compare_deployed_at_best(f.arch, f.plan(), f.cfg, f.ph, f.schemes, grid, f.o,
                                                                  std::nullopt, model::RankBy::kListed);
  REQUIRE(c.rows.size() == 4);
  REQUIRE(c.mappings.size() == 4);
  REQUIRE(c.deployments.size() == 2);
  CHECK(c.searched.find("prefill + decode step") != std::string::npos);
  int non_default = 0;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const model::Parallel& p = grid[i / 2];
    const std::size_t s = i % 2;
    INFO("row " << i << " " << c.rows[i].scheme << " at " << c.mappings[i]);
    CHECK(c.deployments.at(c.rows[i].deploy->deployment).parallel.pp == p.pp);
    double best = 1e300;
    std::string best_mapping;
    for (const auto& df : f.o.dataflows)
      for (const auto& [r, k] : f.o.arrays) {
        const double t = step_total(f.at(p, s, df, r, k, nullptr));
        CHECK(step_total(c.rows[i]) <= t);
        if (t < best) {
          best = t;
          best_mapping = df.name + " " + std::to_string(r) + "x" + std::to_string(k);
        }
      }
    CHECK(step_total(c.rows[i]) == best);  // the minimum, exactly: the row is that candidate's deployment
    CHECK(c.mappings[i] == best_mapping);
    // never more than the unsearched deployment (os on the arch's own 4x4 array)
    CHECK(step_total(c.rows[i]) <= step_total(f.at(p, s, mapping::parse_dataflow("os"), 4, 4, nullptr)));
    if (c.mappings[i] != "os 4x4") ++non_default;
  }
  CHECK(non_default > 0);  // the case is not trivial: the search moves some rows off the default mapping
}

TEST_CASE("compare --search --tp with a request: chosen by the deployment's whole request", "[search][deploy]") {
  const DeployFixture f;
  model::Parallel tp2;
  tp2.tp = 2;
  const model::Request req{24, 4};
  const model::CompareResult c =
      search::compare_deployed_at_best(f.arch, f.plan(), f.cfg, f.ph, f.schemes, {tp2}, f.o, req, model::RankBy::kE2e);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.deployment.has_value());
  CHECK(c.ranked == model::RankBy::kE2e);
  CHECK(c.rows[0].request->e2e_s <= c.rows[1].request->e2e_s);
  for (const model::CompareRow& row : c.rows) {
    const std::size_t s = row.scheme == "q0f16" ? 0 : 1;
    INFO(row.scheme);
    CHECK(row.request->decode_steps == 3);
    double best = 1e300;
    for (const auto& df : f.o.dataflows)
      for (const auto& [r, k] : f.o.arrays) best = std::min(best, f.at(tp2, s, df, r, k, &req).request->e2e_s);
    CHECK(row.request->e2e_s == best);
  }
  search::Options per_gemm = f.o;
  per_gemm.per_gemm = true;
  CHECK_THROWS_AS(search::compare_deployed_at_best(f.arch, f.plan(), f.cfg, f.ph, f.schemes, {tp2}, per_gemm,
                                                   std::nullopt, model::RankBy::kListed),
                  InputError);
}

TEST_CASE("compare --search --tp: a candidate that fails on its input is skipped with a note", "[search][deploy]") {
  DeployFixture f;
  f.o.dataflows = search::parse_dataflows("os,is");  // is has no closed form on a systolic array: skipped
  model::Parallel tp2;
  tp2.tp = 2;
  const model::CompareResult c = search::compare_deployed_at_best(f.arch, f.plan(), f.cfg, f.ph, {f.schemes[0]}, {tp2},
                                                                  f.o, std::nullopt, model::RankBy::kListed);
  REQUIRE(c.rows.size() == 1);
  CHECK(c.mappings.front().rfind("os ", 0) == 0);
  CHECK(std::any_of(c.info.notes.begin(), c.info.notes.end(),
                    [](const std::string& n) { return n.rfind("search skipped is 1x16 for q0f16: ", 0) == 0; }));
  f.o.dataflows = search::parse_dataflows("is");  // no candidate left: the candidates' error
  CHECK_THROWS_AS(search::compare_deployed_at_best(f.arch, f.plan(), f.cfg, f.ph, {f.schemes[0]}, {tp2}, f.o,
                                                   std::nullopt, model::RankBy::kListed),
                  InputError);
}
