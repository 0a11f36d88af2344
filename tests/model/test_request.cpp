// Whole requests (issue 24 item 2): TTFT = the prefill of the N prompts; TPOT = the mean of the G-1 decode steps, each
// at its own context P+1 .. P+G-1 (never one context); e2e, tokens/s, requests/s, energy per request and per token.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const model::ModelConfig& small_config() {
  static const model::ModelConfig c =
      model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 8,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 512, "max_position_embeddings": 64})",
                             "small.json");
  return c;
}

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                         mapping::parse_dataflow("os"));
}

model::PlanAt small_plan() {
  return [](const model::Phases& ph) { return model::plan_from_config("small/config.json", small_config(), ph); };
}

// One decode step's latency and energy at context c, from a plan of its own (the oracle: no request code).
std::pair<double, double> step_at(cost::Estimator& est, model::Phases ph, std::int64_t c,
                                  const std::optional<quant::Scheme>& s) {
  ph.context = c;
  const auto r = model::compare_row("x", model::run_model(est, small_plan()(ph), s));
  return {r.decode.latency_s, r.decode.energy_j};
}

// A compare of `schemes` on the small config with each row's request figures.
model::CompareResult with_requests(cost::Estimator& est, const model::Phases& ph,
                                   const std::vector<std::optional<quant::Scheme>>& schemes, model::Request req,
                                   model::RankBy rank = model::RankBy::kListed) {
  auto c = model::compare(est, small_plan()(ph), ph, schemes);
  model::add_requests(c, est, small_plan(), ph, req, schemes, rank, small_config());
  return c;
}

// Prompt and context of 16 tokens.
model::Phases phases16() {
  model::Phases ph;
  ph.seq_len = 16;
  ph.context = 16;
  return ph;
}

}  // namespace

TEST_CASE("a request: TTFT, TPOT over the growing context, e2e and rates against step-by-step oracles") {
  auto est = estimator();
  model::Phases ph = phases16();
  ph.batch = 2;
  const model::Request req{16, 6};  // P = 16, G = 6: 5 decode steps at contexts 17 .. 21
  const auto schemes = model::compare_schemes("q0f16,q4f16_1", false);
  const auto c = with_requests(est, ph, schemes, req);
  REQUIRE(c.request);
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const auto& f = *c.rows[i].request;
    double lat = 0, energy = 0;
    for (std::int64_t ctx = 17; ctx <= 21; ++ctx) {
      const auto [l, e] = step_at(est, ph, ctx, schemes[i]);
      lat += l;
      energy += e;
    }
    CHECK(f.decode_steps == 5);
    CHECK(f.batch == 2);
    CHECK(f.ttft_s == c.rows[i].prefill.latency_s);  // the prefill of both prompts
    CHECK(f.tpot_s == Approx(lat / 5).epsilon(1e-12));
    CHECK(f.e2e_s == Approx(c.rows[i].prefill.latency_s + lat).epsilon(1e-12));
    CHECK(f.energy_j == Approx(c.rows[i].prefill.energy_j + energy).epsilon(1e-12));
    CHECK(f.tokens_per_s == Approx(2.0 * 6 / f.e2e_s));
    CHECK(f.requests_per_s == Approx(2.0 / f.e2e_s));
    CHECK(f.energy_per_request_j == Approx(f.energy_j / 2));
    CHECK(f.energy_per_token_j == Approx(f.energy_j / 12));
    // the context grows: the mean step lies strictly between the first and the last step, and differs from a
    // request costed at one context (the prompt's)
    const double first = step_at(est, ph, 17, schemes[i]).first, last = step_at(est, ph, 21, schemes[i]).first;
    CHECK(first < last);
    CHECK(f.tpot_s > first);
    CHECK(f.tpot_s < last);
    CHECK(f.tpot_s != step_at(est, ph, 16, schemes[i]).first);
  }
}

TEST_CASE("request closed form: the KV-cache bytes grow by hand's 384 B per context token, summed over the steps") {
  // small config: 3 layers x 2 KV heads x head_dim 16, K and V at 2 bytes: each decode step at context c reads
  // 3·2·16·2·2 = 384 bytes per key more than at c - 1 (one sequence); the rest of a step is constant. So
  // dram(c) = A + 384·c exactly, and a request of G = 33 tokens after P = 8 moves prefill + 32·A + 384·(9 + ... + 40).
  auto est = estimator();
  model::Phases ph;
  ph.seq_len = 8;
  ph.context = 8;
  const std::optional<quant::Scheme> s = quant::parse_scheme("q0f16");
  auto dram_at = [&](std::int64_t c) {
    model::Phases at = ph;
    at.context = c;
    return model::compare_row("x", model::run_model(est, small_plan()(at), s)).decode.dram_bytes;
  };
  const std::int64_t b = 3 * 2 * 16 * 2 * 2, a = dram_at(9) - b * 9;
  for (std::int64_t c = 10; c <= 40; ++c) {
    INFO("context " << c);
    REQUIRE(dram_at(c) == a + b * c);
  }
  const model::Request req{8, 33};  // 32 steps at contexts 9 .. 40: sum of contexts (9 + 40)·32/2 = 784
  const auto c = with_requests(est, ph, {s}, req);
  const auto& f = *c.rows[0].request;
  CHECK(f.dram_bytes == c.rows[0].prefill.dram_bytes + 32 * a + b * 784);
  // latency: DRAM-bound steps, linear to the rounding of each GEMM's integer cycles; the mean step is the step at
  // the mean context 24.5 (an arithmetic series), not the step at the prompt's context
  const double l9 = step_at(est, ph, 9, s).first, l40 = step_at(est, ph, 40, s).first;
  CHECK(f.tpot_s == Approx(l9 + (l40 - l9) * (24.5 - 9) / 31).epsilon(1e-3));  // ~20 GEMMs x < 1 cycle each
  CHECK(f.e2e_s == Approx(f.ttft_s + 32 * f.tpot_s).epsilon(1e-12));
  CHECK(f.ttft_s == c.rows[0].prefill.latency_s);
}

TEST_CASE("a request of one token has no decode step; ranking orders rows by the request's objective") {
  auto est = estimator();
  const model::Phases ph = phases16();
  const auto schemes = model::compare_schemes("q0f16,q4f16_1,w8a8-token-channel", false);
  for (const auto& r : with_requests(est, ph, schemes, model::Request{16, 1}).rows) {
    CHECK(r.request->decode_steps == 0);
    CHECK(r.request->tpot_s == 0);
    CHECK(r.request->e2e_s == r.prefill.latency_s);
    CHECK(r.request->energy_per_token_j == r.prefill.energy_j);
  }
  for (const auto rank : {model::RankBy::kEnergy, model::RankBy::kE2e, model::RankBy::kTpot}) {
    const auto c = with_requests(est, ph, schemes, model::Request{16, 8}, rank);
    CHECK(c.ranked == rank);
    for (std::size_t i = 1; i < c.rows.size(); ++i) {
      const auto &p = *c.rows[i - 1].request, &q = *c.rows[i].request;
      if (rank == model::RankBy::kEnergy) CHECK(p.energy_per_request_j <= q.energy_per_request_j);
      if (rank == model::RankBy::kE2e) CHECK(p.e2e_s <= q.e2e_s);
      if (rank == model::RankBy::kTpot) CHECK(p.tpot_s <= q.tpot_s);
    }
    CHECK(c.rows.front().speedup_vs_first == 1.0);  // the ratios are against the new first row
  }
  CHECK(model::parse_rank_by("edp") == model::RankBy::kEdp);
  CHECK_THROWS_WITH(model::parse_rank_by("speed"), Catch::Contains("expected listed, ttft, tpot, e2e, energy or edp"));
}

TEST_CASE("a request's ranges: gen-len, prompt = seq-len, the last context within max_position_embeddings") {
  auto est = estimator();
  model::Phases ph = phases16();
  const auto schemes = model::compare_schemes("q0f16", false);
  auto add = [&](model::Request r) { with_requests(est, ph, schemes, r); };
  CHECK_THROWS_WITH(add({16, 0}), Catch::Contains("--gen-len 0: expected 1 .. 16777216"));
  CHECK_THROWS_WITH(add({32, 4}), Catch::Contains("--seq-len 16 and --prompt-len 32 differ"));
  // 16 + 49 - 1 = 64 fits the 64 positions; one more token does not
  CHECK_NOTHROW(add({16, 49}));
  CHECK_THROWS_WITH(add({16, 50}), Catch::Contains("max_position_embeddings 64"));
  ph.allow_long_context = true;
  CHECK_NOTHROW(add({16, 50}));
}

TEST_CASE("CLI: compare --prompt-len / --gen-len gives the request columns and keys; --rank-by needs a request") {
  const std::string cfg = std::string(" --hf-config ") + TC_SOURCE_DIR + "/workloads/qwen2-0.5b/config.json";
  const auto csv =
      tc_test::run_cli("compare" + cfg + " --quant q0f16,q4f16_1 --prompt-len 32 --gen-len 4 --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.find("req_ttft_ms,req_tpot_ms,req_e2e_s,req_tok/s,req/s,req_J/req,req_mJ/tok") != std::string::npos);
  const auto js = tc_test::run_cli("compare" + cfg +
                                   " --quant q0f16,q4f16_1 --gen-len 4 --seq-len 32 --rank-by energy "
                                   "--format json");
  REQUIRE(js.exit_code == 0);
  const auto j = nlohmann::json::parse(js.out);
  CHECK(j["request"]["prompt_len"] == 32);
  CHECK(j["request"]["gen_len"] == 4);
  CHECK(j["request"]["ranked_by"] == "energy");
  CHECK(j["rows"][0]["request"]["decode_steps"] == 3);
  CHECK(j["rows"][0]["request"]["energy_per_request_j"] <= j["rows"][1]["request"]["energy_per_request_j"]);
  const auto bad = tc_test::run_cli("compare" + cfg + " --quant q0f16 --rank-by e2e");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--rank-by ranks requests") != std::string::npos);
}
