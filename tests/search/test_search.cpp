// The mapping search (docs/search.md): the winner equals the ordinary estimate path exactly, the best is the best
// of every configuration, the Pareto front is the non-dominated set, and the output does not depend on --jobs.
#include <catch2/catch.hpp>

#include "cost/arch_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/search.hpp"

using namespace tenet_cost;
using quant::GemmRole;

namespace {

model::Model small_model() {
  model::Model m;
  m.name = "small";
  auto add = [&](const char* fn, model::Phase ph, std::int64_t calls, std::int64_t rows, std::int64_t n,
                 std::int64_t k) {
    model::ModelGemm g;
    g.function = fn;
    g.entry = ph == model::Phase::kPrefill ? "prefill" : "decode";
    g.phase = ph;
    g.calls = calls;
    g.shape = cost::GemmShape{1, rows, n, k, GemmRole::kLinear};
    m.gemms.push_back(g);
  };
  // tiny extents: every size is a candidate (docs/search.md), so the search stays fast
  add("qkv", model::Phase::kPrefill, 2, 8, 6, 8);
  add("down", model::Phase::kPrefill, 2, 8, 4, 6);
  add("qkv", model::Phase::kDecode, 2, 1, 6, 8);
  add("down", model::Phase::kDecode, 2, 1, 4, 6);
  return m;
}

std::vector<std::optional<quant::Scheme>> schemes() {
  return {quant::parse_scheme("q0f16"), quant::parse_scheme("q4f16_1"), quant::parse_scheme("w8a8-token-channel")};
}

search::Options options(cost::Objective o) {
  search::Options so;
  so.objective = o;
  so.method = cost::ArrayMethod::kClosedForm;
  so.dataflows = search::parse_dataflows("os,ws");
  so.arrays = search::array_shapes(8);
  so.top = 100;
  return so;
}

double value(const search::Totals& t, cost::Objective o) {
  switch (o) {
    case cost::Objective::kLatency: return t.latency_s;
    case cost::Objective::kEnergy: return t.energy_j;
    case cost::Objective::kEdp: return t.latency_s * t.energy_j;
    case cost::Objective::kDram: return static_cast<double>(t.dram_bytes);
  }
  return 0;
}

}  // namespace

TEST_CASE("array_shapes: every R x C with R * C = budget, R ascending; parse_dataflows") {
  using P = std::pair<std::int64_t, std::int64_t>;
  CHECK(search::array_shapes(12) == std::vector<P>{{1, 12}, {2, 6}, {3, 4}, {4, 3}, {6, 2}, {12, 1}});
  CHECK(search::array_shapes(16) == std::vector<P>{{1, 16}, {2, 8}, {4, 4}, {8, 2}, {16, 1}});
  CHECK(search::array_shapes(7) == std::vector<P>{{1, 7}, {7, 1}});
  CHECK_THROWS_AS(search::array_shapes(0), InputError);
  CHECK(search::parse_dataflows("presets").size() == mapping::dataflow_presets().size());
  CHECK(search::parse_dataflows("ws,os").front().name == "ws");
  CHECK_THROWS_AS(search::parse_dataflows(","), InputError);
  CHECK_THROWS_AS(search::parse_dataflows("nope"), InputError);
}

TEST_CASE("the search winner equals the ordinary estimate path, and is the best of every configuration") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const model::Phases ph;
  const auto model = small_model();
  for (const auto o : {cost::Objective::kLatency, cost::Objective::kDram}) {
    const search::SearchResult r = search::run(arch, model, ph, schemes(), options(o));
    REQUIRE(r.rows.size() == 3);
    for (const auto& row : r.rows) {
      INFO(row.scheme << " " << cost::to_string(o));
      CHECK(row.configurations == 2 * 4);  // 2 dataflows x 4 arrays of 8 PEs
      REQUIRE(row.top.size() == 8);
      for (const auto& c : row.top) CHECK(value(row.top.front().totals, o) <= value(c.totals, o));
      // re-evaluate the winner with an ordinary Estimator at its dataflow and array
      const search::Config& best = row.top.front();
      auto a = arch;
      a.rows = best.rows;
      a.cols = best.cols;
      cost::Options co;
      co.method = cost::ArrayMethod::kClosedForm;
      co.objective = o;
      cost::Estimator est(a, mapping::parse_dataflow(best.dataflow), co);
      const auto e = model::estimate(est, model, ph, quant::parse_scheme(row.scheme));
      const auto cmp = model::compare(est, model, ph, {quant::parse_scheme(row.scheme)});
      CHECK(cmp.rows.front().prefill.latency_s == best.totals.prefill.latency_s);
      CHECK(cmp.rows.front().decode.latency_s == best.totals.decode.latency_s);
      CHECK(cmp.rows.front().prefill.energy_j == best.totals.prefill.energy_j);
      CHECK(cmp.rows.front().decode.dram_bytes == best.totals.decode.dram_bytes);
      REQUIRE(e.result.rows.size() == best.gemms.size());
      for (std::size_t i = 0; i < best.gemms.size(); ++i) {
        CHECK(e.result.rows[i].second.tile == best.gemms[i].tile);
        CHECK(e.result.rows[i].second.latency_s == best.gemms[i].latency_s);
      }
    }
  }
}

TEST_CASE("the Pareto front is exactly the non-dominated configurations") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const search::SearchResult r =
      search::run(arch, small_model(), model::Phases{}, schemes(), options(cost::Objective::kLatency));
  REQUIRE_FALSE(r.pareto.empty());
  std::vector<std::pair<double, double>> all;
  for (const auto& row : r.rows)
    for (const auto& c : row.top) all.emplace_back(c.totals.latency_s, c.totals.energy_j);
  auto dominated = [&](double l, double e) {
    for (const auto& [l2, e2] : all)
      if (l2 <= l && e2 <= e && (l2 < l || e2 < e)) return true;
    return false;
  };
  for (const auto& p : r.pareto) CHECK_FALSE(dominated(p.latency_s, p.energy_j));
  for (const auto& [l, e] : all) {
    if (dominated(l, e)) continue;
    bool on = false;
    for (const auto& p : r.pareto) on = on || (p.latency_s == l && p.energy_j == e);
    CHECK(on);
  }
  for (std::size_t i = 1; i < r.pareto.size(); ++i) CHECK(r.pareto[i - 1].latency_s < r.pareto[i].latency_s);
}

TEST_CASE("per-GEMM dataflows are never worse than one dataflow for the model; output independent of --jobs") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  auto o = options(cost::Objective::kLatency);
  const auto one = search::run(arch, small_model(), model::Phases{}, schemes(), o);
  o.per_gemm = true;
  const auto per = search::run(arch, small_model(), model::Phases{}, schemes(), o);
  for (std::size_t s = 0; s < one.rows.size(); ++s)
    CHECK(per.rows[s].top.front().totals.latency_s <= one.rows[s].top.front().totals.latency_s * (1 + 1e-12));
  o.per_gemm = false;
  o.jobs = 1;
  const std::string j1 =
      report::render(search::run(arch, small_model(), model::Phases{}, schemes(), o), report::Format::kJson);
  o.jobs = 3;
  const std::string j3 =
      report::render(search::run(arch, small_model(), model::Phases{}, schemes(), o), report::Format::kJson);
  CHECK(j1 == j3);
  CHECK(j1.find("\"pareto\"") != std::string::npos);
}
