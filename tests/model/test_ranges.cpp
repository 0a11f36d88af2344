// Checked ranges (issue 24 item 6): every length and count within tenet-cost's limits, the prompt and the context
// within the config's max_position_embeddings unless --allow-long-context (then said in the notes).
#include <catch2/catch.hpp>

#include <string>

#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const std::string kLlama = std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json";

model::Model llama_plan(const model::Phases& ph) {
  return model::plan_from_config(kLlama, model::load_hf_config(kLlama), ph);
}

}  // namespace

TEST_CASE("the config's max_position_embeddings / n_positions is read") {
  CHECK(model::load_hf_config(kLlama).max_positions == 4096);
  CHECK(model::load_hf_config(tc_test::fixture("configs/gpt2.json")).max_positions == 1024);
  CHECK(model::load_hf_config(tc_test::fixture("configs/mixtral-8x7b.json")).max_positions == 32768);
}

TEST_CASE("lengths and the batch beyond tenet-cost's limits are refused naming the flag and the limit") {
  model::Phases ph;
  ph.context = 100000000000;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph), Catch::Contains("--context 100000000000: expected 1 .. 16777216"));
  ph = {};
  ph.seq_len = 0;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph), Catch::Contains("--seq-len 0: expected 1 .. 16777216"));
  ph = {};
  ph.batch = model::kMaxBatch + 1;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph), Catch::Contains("--batch 65537: expected 1 .. 65536"));
  ph.batch = -3;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph), Catch::Contains("--batch -3"));
  // even with --allow-long-context the absolute limit holds
  ph = {};
  ph.allow_long_context = true;
  ph.context = model::kMaxTokens + 1;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph), Catch::Contains("--context 16777217"));
  // --gemm shapes: no config, the same limits
  ph = {};
  ph.batch = 0;
  CHECK_THROWS_AS(model::plan_from_shapes({"4x4x4"}, ph), InputError);
  CHECK_THROWS_WITH(model::plan_from_shapes({"4x4x4"}, ph), Catch::Contains("--batch 0"));
}

TEST_CASE("a context or prompt beyond max_position_embeddings: refused, or costed and said with --allow-long-context") {
  model::Phases ph;
  ph.context = 4096;  // the limit itself is fine
  CHECK_NOTHROW(llama_plan(ph));
  ph.context = 4097;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph),
                    Catch::Contains("--context 4097 exceeds the config's max_position_embeddings 4096") &&
                        Catch::Contains("--allow-long-context"));
  ph.context = 2048;
  ph.seq_len = 8192;
  CHECK_THROWS_AS(llama_plan(ph), InputError);
  CHECK_THROWS_WITH(llama_plan(ph), Catch::Contains("--seq-len 8192 exceeds"));
  ph.allow_long_context = true;
  const model::Model m = llama_plan(ph);
  bool said = false;
  for (const auto& n : m.notes)
    said = said || n.find("--seq-len 8192 exceeds the config's max_position_embeddings 4096") != std::string::npos;
  CHECK(said);
  // a dump with its config: the same check (the shipped Llama-2-7B dump reads llama-2-7b/config.json)
  model::Phases dump;
  dump.context = 5000;
  CHECK_THROWS_AS(model::default_model(std::string(TC_SOURCE_DIR) + "/workloads", dump), InputError);
  CHECK_THROWS_WITH(model::default_model(std::string(TC_SOURCE_DIR) + "/workloads", dump),
                    Catch::Contains("--context 5000 exceeds"));
  // GPT-2 covers 1024 positions: the default 2048 is refused
  const auto gpt2 = model::load_hf_config(tc_test::fixture("configs/gpt2.json"));
  CHECK_THROWS_AS(model::plan_from_config("gpt2/config.json", gpt2, model::Phases{}), InputError);
  CHECK_THROWS_WITH(model::plan_from_config("gpt2/config.json", gpt2, model::Phases{}),
                    Catch::Contains("max_position_embeddings 1024"));
}

TEST_CASE("CLI: --context 1e11 and 100000000000 exit 2 with one line") {
  for (const char* value : {"1e11", "100000000000"}) {
    const auto r = tc_test::run_cli(std::string("compare --hf-config ") + kLlama + " --quant q0f16 --context " + value);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--context") != std::string::npos);
  }
  const auto r =
      tc_test::run_cli(std::string("compare --hf-config ") + kLlama + " --quant q0f16 --context 100000000000");
  CHECK(r.err.find("expected 1 .. 16777216") != std::string::npos);
}
