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
