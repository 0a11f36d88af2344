// MLC-LLM mlc-chat-config.json as a model source (docs/model.md "MLC chat config").
#include <catch2/catch.hpp>

#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const auto& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("mlc-chat-config.json: the model_config block is the model, the build's settings are read") {
  const model::MlcChatConfig m =
      model::load_mlc_chat_config(tc_test::fixture("mlc/llama-2-7b-q4f16_1-mlc-chat-config.json"));
  CHECK(m.model_type == "llama");
  CHECK(m.quantization == "q4f16_1");
  CHECK(m.context_window == 4096);
  CHECK(m.prefill_chunk == 2048);
  CHECK(m.sliding_window == 0);  // MLC's -1: not set
  CHECK(m.tensor_parallel_shards == 2);
  CHECK(m.pipeline_parallel_stages == 1);
  CHECK(m.max_batch == 80);
  CHECK(m.model.name == "llama");
  // the same model as the shipped Hugging Face config of Llama-2-7B: the same GEMMs
  const model::ModelConfig hf = model::load_hf_config(std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json");
  model::Phases ph;
  ph.seq_len = 64;
  ph.context = 128;
  const auto a = model::workloads_from_config(m.model, ph);
  const auto b = model::workloads_from_config(hf, ph);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].function == b[i].function);
    CHECK(a[i].shape == b[i].shape);
    CHECK(a[i].calls == b[i].calls);
  }
  CHECK(model::parameter_count(m.model) == model::parameter_count(hf));
  // what is not modelled is said; a context over the window is refused
  ph.seq_len = 4096;
  const auto notes = model::mlc_notes(m, ph);
  CHECK(has_note(notes, "quantization 'q4f16_1'"));
  CHECK(has_note(notes, "prefill_chunk_size 2048"));
  CHECK(has_note(notes, "tensor_parallel_shards 2: not modelled"));
  ph.seq_len = 2048;
  CHECK_FALSE(has_note(model::mlc_notes(m, ph), "prefill_chunk_size"));
  ph.context = 4097;
  CHECK_THROWS_WITH(model::mlc_notes(m, ph), Catch::Contains("context_window_size 4096"));
  ph.context = 128;
  ph.batch = 81;
  CHECK(has_note(model::mlc_notes(m, ph), "max_batch_size 80"));
}

TEST_CASE("mlc-chat-config.json: bad input is one InputError naming the field") {
  const std::string body = R"("hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
      "num_hidden_layers": 2, "vocab_size": 100)";
  CHECK_THROWS_WITH(
      model::parse_mlc_chat_config(R"({"quantization": "q0f16", "model_config": {)" + body + "}}", "c.json"),
      Catch::Contains("'model_type'"));
  CHECK_THROWS_WITH(model::parse_mlc_chat_config(R"({"model_type": "llama", "quantization": "q0f16"})", "c.json"),
                    Catch::Contains("'model_config'"));
  CHECK_THROWS_WITH(
      model::parse_mlc_chat_config(
          R"({"model_type": "llama", "quantization": "q0f16", "context_window_size": "big", "model_config": {)" + body +
              "}}",
          "c.json"),
      Catch::Contains("'context_window_size'"));
  CHECK_THROWS_AS(model::parse_mlc_chat_config("[1]", "c.json"), InputError);
  CHECK_THROWS_AS(model::parse_mlc_chat_config("{", "c.json"), InputError);
  // MLC's model_config has no model_type: the top level's is used (gpt2: an ungated MLP)
  const auto g = model::parse_mlc_chat_config(
      R"({"model_type": "gpt2", "quantization": "q0f16", "model_config": {)" + body + "}}", "c.json");
  CHECK_FALSE(g.model.gated_mlp);
  CHECK(g.tensor_parallel_shards == 1);
}

TEST_CASE("mlc-chat-config.json: an error in model_config is at the key in the file as written", "[location]") {
  // before: "c.json (model_config): expected a positive integer for 'vocab_size'" (the object re-dumped, no line)
  const std::string text =
      "{\"model_type\": \"llama\", \"quantization\": \"q0f16\",\n"
      " \"context_window_size\": [1],\n"
      " \"model_config\": {\"hidden_size\": 64, \"intermediate_size\": 128,\n"
      "   \"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 0}}";
  CHECK_THROWS_WITH(model::parse_mlc_chat_config(text, "c.json"),
                    "c.json:4:68: expected a positive integer for 'vocab_size'");
  std::string fixed = text;
  fixed.replace(fixed.rfind('0'), 1, "9");
  CHECK_THROWS_WITH(model::parse_mlc_chat_config(fixed, "c.json"),
                    "c.json:2:25: expected an integer for 'context_window_size', found array");
}
