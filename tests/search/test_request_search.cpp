// compare --search for whole requests (docs/search.md "Requests"): the chosen mapping's request costs no more than the
// request at any candidate mapping (a brute oracle: a plain compare + add_requests at every dataflow and array), by
// the whole request or per phase.
#include <catch2/catch.hpp>

#include "cost/arch_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/search.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

struct Fixture {
  arch::Arch arch = tc_test::edge_arch(4, 4, 1 << 12);
  model::ModelConfig cfg = model::load_hf_config(tc_test::fixture("estimate/tiny_config.json"));
  model::PlanSource source{[this](const model::Phases& at) { return model::plan_from_config("tiny", cfg, at); }, cfg};
  model::Phases ph;
  model::Request req;
  std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"), quant::parse_scheme("q4f16_1")};
  search::Options o;
  Fixture() {
    ph.seq_len = req.prompt_len = 24;
    ph.context = 25;
    req.gen_len = 6;
    o.method = cost::ArrayMethod::kClosedForm;
    o.dataflows = search::parse_dataflows("os,ws");
    o.arrays = search::array_shapes(16);
  }
  // The request of scheme s at every candidate (dataflow, array): a plain compare and its request figures.
  std::vector<model::RequestFigures> oracle(std::size_t s) const {
    std::vector<model::RequestFigures> out;
    for (const auto& df : o.dataflows)
      for (const auto& [r, c] : o.arrays) {
        arch::Arch a = arch;
        a.rows = r;
        a.cols = c;
        cost::Options co;
        co.method = o.method;
        cost::Estimator est(a, df, co);
        model::CompareResult one = model::compare(est, source.at(ph), ph, {schemes[s]});
        model::add_requests(one, est, source.at, ph, req, {schemes[s]}, model::RankBy::kListed, cfg);
        out.push_back(*one.rows.front().request);
      }
    return out;
  }
};

}  // namespace

TEST_CASE("compare --search chooses each scheme's mapping by its whole request", "[search][request]") {
  const Fixture f;
  const model::CompareResult c =
      search::compare_request_at_best(f.arch, f.source, f.ph, f.req, f.schemes, f.o, false, model::RankBy::kListed);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.searched.find("of the whole request") != std::string::npos);
  for (std::size_t s = 0; s < f.schemes.size(); ++s) {
    const model::RequestFigures& got = *c.rows[s].request;
    CHECK(got.decode_steps == 5);
    double best = 1e300;
    for (const auto& x : f.oracle(s)) {
      CHECK(got.e2e_s <= x.e2e_s * (1 + 1e-12));  // no candidate's request is faster
      best = std::min(best, x.e2e_s);
    }
    CHECK(got.e2e_s == Approx(best).epsilon(1e-12));  // and it is one of them
  }
}

TEST_CASE("compare --search --per-phase chooses the prefill's and the decode's mappings apart", "[search][request]") {
  const Fixture f;
  const model::CompareResult c =
      search::compare_request_at_best(f.arch, f.source, f.ph, f.req, f.schemes, f.o, true, model::RankBy::kE2e);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.ranked == model::RankBy::kE2e);
  CHECK(c.rows[0].request->e2e_s <= c.rows[1].request->e2e_s);
  const model::CompareResult whole =
      search::compare_request_at_best(f.arch, f.source, f.ph, f.req, f.schemes, f.o, false, model::RankBy::kListed);
  for (const model::CompareRow& row : c.rows) {
    const std::size_t s = row.scheme == "q0f16" ? 0 : 1;
    INFO(row.scheme);
    CHECK(c.mappings[&row - c.rows.data()].find("prefill ") == 0);
    const double decode_s = row.request->e2e_s - row.request->ttft_s;
    for (const auto& x : f.oracle(s)) {
      CHECK(row.request->ttft_s <= x.ttft_s * (1 + 1e-12));
      CHECK(decode_s <= (x.e2e_s - x.ttft_s) * (1 + 1e-9));
    }
    // per phase is never slower than one mapping for the whole request
    const model::CompareRow& w = whole.rows[s];
    CHECK(row.request->e2e_s <= w.request->e2e_s * (1 + 1e-9));
  }
  search::Options per_gemm = f.o;
  per_gemm.per_gemm = true;
  CHECK_THROWS_AS(
      search::compare_request_at_best(f.arch, f.source, f.ph, f.req, f.schemes, per_gemm, true, model::RankBy::kE2e),
      InputError);
}

TEST_CASE("search with a request chooses by the whole request's objective, every candidate checked",
          "[search][request]") {
  const Fixture f;
  const search::RequestSearch rs = search::search_request(f.arch, f.source, f.ph, f.req, f.schemes, f.o, false);
  REQUIRE(rs.found.size() == 1);
  const search::SearchResult& r = rs.found.front();
  REQUIRE(r.request);
  CHECK(r.part == model::Phase::kOther);
  CHECK(rs.steps.plans.size() == 5);
  for (std::size_t s = 0; s < f.schemes.size(); ++s) {
    const search::Config& best = r.rows.at(s).top.front();
    CHECK(r.rows[s].configurations == static_cast<std::int64_t>(f.o.dataflows.size() * f.o.arrays.size()));
    double e2e = 1e300, ttft = 0;
    for (const auto& x : f.oracle(s)) {
      CHECK(best.totals.latency_s <= x.e2e_s * (1 + 1e-12));  // no candidate's request is faster
      if (x.e2e_s < e2e) {
        e2e = x.e2e_s;
        ttft = x.ttft_s;
      }
    }
    // the objective is the request's: prefill (TTFT) + every decode step at its own context
    CHECK(best.totals.latency_s == Approx(e2e).epsilon(1e-12));
    CHECK(best.totals.prefill.latency_s == Approx(ttft).epsilon(1e-12));
    CHECK(best.totals.decode.latency_s == Approx(e2e - ttft).epsilon(1e-9));
  }
  // the same mapping compare --search reports
  const model::CompareResult c =
      search::compare_request_at_best(f.arch, f.source, f.ph, f.req, f.schemes, f.o, false, model::RankBy::kListed);
  for (std::size_t s = 0; s < f.schemes.size(); ++s)
    CHECK(c.rows[s].request->e2e_s == Approx(r.rows[s].top.front().totals.latency_s).epsilon(1e-12));
}

TEST_CASE("search --per-phase with a request: the prefill part by TTFT, the decode part by the steps' sum",
          "[search][request]") {
  const Fixture f;
  const search::RequestSearch rs = search::search_request(f.arch, f.source, f.ph, f.req, f.schemes, f.o, true);
  REQUIRE(rs.found.size() == 2);
  const search::SearchResult &pre = rs.found[0], &dec = rs.found[1];
  CHECK(pre.part == model::Phase::kPrefill);
  CHECK(dec.part == model::Phase::kDecode);
  for (std::size_t s = 0; s < f.schemes.size(); ++s) {
    double ttft = 1e300, steps = 1e300;
    for (const auto& x : f.oracle(s)) {
      ttft = std::min(ttft, x.ttft_s);
      steps = std::min(steps, x.e2e_s - x.ttft_s);
    }
    CHECK(pre.rows[s].top.front().totals.latency_s == Approx(ttft).epsilon(1e-12));
    CHECK(pre.rows[s].top.front().totals.decode.latency_s == 0);
    CHECK(dec.rows[s].top.front().totals.latency_s == Approx(steps).epsilon(1e-9));
    CHECK(dec.rows[s].top.front().totals.prefill.latency_s == 0);
  }
}
