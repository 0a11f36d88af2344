// Chunked prefill (issue 24 item 3): a step of C prompt tokens and the N running decode rows is one GEMM of the
// combined rows (M = C + N), not a sum of two; attention per sequence at its own context.
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

// 3 layers, 8 heads over 2 KV heads of 16, MLP 256, vocab 512
model::ModelConfig small_config() {
  return model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 8,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 512})",
                                "small.json");
}

bool is_attention(const model::ModelGemm& g) {
  return g.shape.role == quant::GemmRole::kAttnQK || g.shape.role == quant::GemmRole::kAttnPV;
}

// QK MACs of a plan's attn_qk rows counted by hand: calls·b·m·n·k, a causal diagonal block b(b+1)/2 of b·b pairs.
std::int64_t qk_macs(const std::vector<model::ModelGemm>& gemms) {
  std::int64_t macs = 0;
  for (const auto& g : gemms) {
    if (g.shape.role != quant::GemmRole::kAttnQK) continue;
    const auto& s = g.shape;
    std::int64_t per = s.batch * s.m * s.n * s.k;
    if (g.causal_diagonal) per = per / s.n * (s.n + 1) / 2;
    macs += g.calls * per;
  }
  return macs;
}

}  // namespace

TEST_CASE("a chunked step's linear GEMMs are the single GEMMs of the combined rows") {
  const auto cfg = small_config();
  model::Phases ph;
  ph.batch = 5;  // N decode rows
  ph.context = 40;
  const std::int64_t C = 24;
  const auto step = model::chunk_step(cfg, ph, C, 48, false);
  // the oracle: a plain prefill of C + N tokens of one sequence has the same linear GEMMs (names, shapes, calls)
  model::Phases combined;
  combined.seq_len = C + 5;
  combined.context = 8;
  std::vector<model::ModelGemm> expect;
  for (const auto& g : model::workloads_from_config(cfg, combined))
    if (g.phase == model::Phase::kPrefill && !is_attention(g) && !g.lm_head) expect.push_back(g);
  std::vector<model::ModelGemm> got;
  for (const auto& g : step)
    if (!is_attention(g) && !g.lm_head) got.push_back(g);
  REQUIRE(got.size() == expect.size());
  cost::Estimator est(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                      mapping::parse_dataflow("os"));
  const std::optional<quant::Scheme> s = quant::parse_scheme("q4f16_1");
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(got[i].function);
    CHECK(got[i].function == expect[i].function);
    CHECK(got[i].shape.m == C + 5);
    CHECK(got[i].shape.n == expect[i].shape.n);
    CHECK(got[i].shape.k == expect[i].shape.k);
    CHECK(got[i].calls == expect[i].calls);
    CHECK(got[i].entry == "chunked_prefill");
    // one GEMM of the combined rows: the weights are read once, so it is cheaper than the chunk's GEMM plus the
    // decode rows' GEMM (the sum peers predict)
    const auto one = model::gemm_cost(est, got[i], s);
    CHECK(one.latency_s == model::gemm_cost(est, expect[i], s).latency_s);
    model::ModelGemm part = got[i];
    part.shape.m = C;
    const double chunk_only = model::gemm_cost(est, part, s).latency_s;
    part.shape.m = 5;
    const double decode_only = model::gemm_cost(est, part, s).latency_s;
    CHECK(one.latency_s < chunk_only + decode_only);
  }
  // logits of the N decoding sequences (the prompt's first token only after its last chunk)
  for (const auto& g : step)
    if (g.lm_head) CHECK(g.shape.m == 5);
  for (const auto& g : model::chunk_step(cfg, ph, C, 48, true))
    if (g.lm_head) CHECK(g.shape.m == 6);
}

TEST_CASE("chunked prefill attention: each chunk over its prompt so far, the decode rows at their context") {
  const auto cfg = small_config();
  model::Phases ph;
  ph.seq_len = 100;  // chunks of 32, 32, 32, 4
  ph.context = 40;
  ph.batch = 3;
  ph.chunk = 32;
  std::vector<std::string> notes;
  std::vector<model::ModelGemm> out;
  model::chunked_prefill(out, cfg, ph, &notes);
  // QK MACs by hand: the prompt's causal pairs P(P+1)/2 over all chunks, and 4 steps of 3 decoding sequences over
  // 40 keys; per pair: 3 layers x 8 heads x head_dim 16
  const std::int64_t per_pair = 3 * 8 * 16;
  CHECK(qk_macs(out) == per_pair * (100 * 101 / 2 + 4 * 3 * 40));
  // the same prompt unchunked has the same prompt pairs
  model::Phases whole;
  whole.seq_len = 100;
  whole.context = 40;
  std::vector<model::ModelGemm> prefill;
  for (const auto& g : model::workloads_from_config(cfg, whole))
    if (g.phase == model::Phase::kPrefill) prefill.push_back(g);
  CHECK(qk_macs(prefill) == per_pair * 100 * 101 / 2);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("one prompt of 100 tokens in 4 steps of at most 32 tokens, each with the 3 running decode "
                      "rows at context 40") != std::string::npos);
  // the first chunk has no earlier keys; the fourth sees 96
  std::int64_t prior = 0;
  for (const auto& g : out)
    if (g.shape.role == quant::GemmRole::kAttnQK && g.shape.batch == 2 && !g.causal_diagonal && g.shape.m == 4 * 4)
      prior = g.shape.n;
  CHECK(prior == 96);
}

TEST_CASE("--chunk: off by default, a config plan's entry, refused where it has no meaning") {
  const auto cfg = small_config();
  model::Phases ph;
  ph.seq_len = 64;
  ph.context = 64;
  auto has_entry = [](const model::Model& m) {
    for (const auto& g : m.gemms)
      if (g.entry == "chunked_prefill") return true;
    return false;
  };
  CHECK_FALSE(has_entry(model::plan_from_config("small/config.json", cfg, ph)));
  ph.chunk = 16;
  CHECK(has_entry(model::plan_from_config("small/config.json", cfg, ph)));
  ph.chunk = -1;
  CHECK_THROWS_WITH(model::plan_from_config("small/config.json", cfg, ph),
                    Catch::Contains("--chunk -1: expected 1 .."));
  ph.chunk = 16;
  CHECK_THROWS_WITH(model::plan_from_shapes({"4x4x4"}, ph), Catch::Contains("--chunk"));
  CHECK_THROWS_WITH(
      model::plan_from_dump(std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/q0f16.py", ph, std::nullopt),
      Catch::Contains("--chunk builds a config's chunked prefill"));
  const auto mistral = model::load_hf_config(tc_test::fixture("configs/mistral-7b-v0.1.json"));
  CHECK_THROWS_WITH(model::plan_from_config("m/config.json", mistral, ph), Catch::Contains("sliding-window"));
}
