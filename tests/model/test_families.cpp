// Model families from Hugging Face configs (docs/model.md "Model families"): MoE (Mixtral, Qwen2-MoE,
// DeepSeek-MoE), sliding-window attention, MQA/GQA, ungated MLPs, and the refusal of unmodelled structure; against
// published parameter counts, hand-computed MACs / bytes and brute-force enumerations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <set>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::string fixture(const std::string& name) { return std::string(TC_FIXTURE_DIR) + "/configs/" + name; }
model::ModelConfig load(const std::string& name) { return model::load_hf_config(fixture(name)); }

model::ModelConfig parse(const std::string& text) { return model::parse_hf_config(text, "t.json"); }

// MACs of a plan's GEMMs of one phase whose function satisfies `pick` (a causal diagonal block counts only its
// key <= query pairs).
std::int64_t macs(const std::vector<model::ModelGemm>& gemms, model::Phase phase,
                  const std::function<bool(const model::ModelGemm&)>& pick) {
  std::int64_t sum = 0;
  for (const auto& g : gemms) {
    if (g.phase != phase || !pick(g)) continue;
    const auto& s = g.shape;
    if (g.causal_diagonal) {
      // rows = group * b queries over b keys: group * b(b+1)/2 pairs
      const std::int64_t b = s.role == quant::GemmRole::kAttnQK ? s.n : s.k;
      const std::int64_t group = s.m / b;
      const std::int64_t other = s.role == quant::GemmRole::kAttnQK ? s.k : s.n;
      sum += g.calls * s.batch * group * (b * (b + 1) / 2) * other;
    } else {
      sum += g.calls * s.batch * s.m * s.n * s.k;
    }
  }
  return sum;
}

bool is_linear(const model::ModelGemm& g) { return g.shape.role == quant::GemmRole::kLinear; }
bool is_qk(const model::ModelGemm& g) { return g.shape.role == quant::GemmRole::kAttnQK; }

}  // namespace

TEST_CASE("expected distinct experts: the closed form against a brute-force enumeration of routings") {
  // every token picks a k-subset of E experts uniformly; enumerate all C(E,k)^T routings and average the experts hit
  for (std::int64_t E = 1; E <= 6; ++E)
    for (std::int64_t k = 1; k <= E; ++k) {
      std::vector<unsigned> subsets;
      for (unsigned m = 0; m < (1u << E); ++m)
        if (__builtin_popcount(m) == k) subsets.push_back(m);
      for (std::int64_t T = 1; T <= 3; ++T) {
        std::int64_t total = 0, routings = 0;
        std::function<void(std::int64_t, unsigned)> rec = [&](std::int64_t t, unsigned hit) {
          if (t == T) {
            total += __builtin_popcount(hit);
            ++routings;
            return;
          }
          for (const unsigned s : subsets) rec(t + 1, hit | s);
        };
        rec(0, 0);
        INFO("E=" << E << " k=" << k << " T=" << T);
        CHECK(model::expected_experts(E, k, T) == Approx(static_cast<double>(total) / routings).epsilon(1e-12));
        const std::int64_t touched = model::experts_touched(E, k, T);
        CHECK(touched >= k);
        CHECK(touched <= std::min(E, k * T));
      }
    }
  CHECK(model::experts_touched(8, 2, 1) == 2);     // batch-1 decode: exactly k experts
  CHECK(model::experts_touched(8, 2, 2048) == 8);  // a prefill: all experts
  CHECK(model::experts_touched(60, 4, 16) == 40);  // 60 (1 - (56/60)^16) = 40.1
}

TEST_CASE("published parameter counts: Llama-2-7B, Mistral-7B, Mixtral-8x7B, Qwen1.5-MoE, DeepSeek-MoE-16B") {
  CHECK(model::parameter_count(
            model::load_hf_config(std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json")) == 6738415616);
  CHECK(model::parameter_count(load("mistral-7b-v0.1.json")) == 7241732096);
  CHECK(model::parameter_count(load("mixtral-8x7b.json")) == 46702792704);
  // attention 4·2048², experts 60·3·2048·1408, router 60·2048, shared 3·2048·5632 + its gate 2048, norms 2·2048
  CHECK(model::parameter_count(load("qwen1.5-moe-a2.7b.json")) ==
        24LL * (16777216 + 519045120 + 122880 + 34603008 + 2048 + 4096) + 2LL * 151936 * 2048 + 2048);
  // layer 0 dense (3·2048·10944), 27 MoE layers of 64 experts of 1408 + 2 shared (one 2816-wide MLP)
  CHECK(model::parameter_count(load("deepseek-moe-16b.json")) ==
        (16777216 + 67239936 + 4096) + 27LL * (16777216 + 553648128 + 131072 + 17301504 + 4096) + 2LL * 102400 * 2048 +
            2048);
}

TEST_CASE("Mixtral decode at batch 1: weight bytes = non-expert weights + 2 experts per layer, exactly") {
  const auto cfg = load("mixtral-8x7b.json");
  CHECK(cfg.experts == 8);
  CHECK(cfg.experts_per_token == 2);
  CHECK(cfg.moe_layers == 32);
  CHECK(cfg.kv_heads == 8);
  CHECK(cfg.sliding_window == 0);
  arch::Arch a = arch::load_arch("edge-npu-32x32", std::string(TC_SOURCE_DIR) + "/configs/arch");
  cost::Estimator est(a, mapping::parse_dataflow("os"));
  model::Phases ph;
  ph.seq_len = 64;
  ph.context = 128;
  const model::Model m = model::plan_from_config(fixture("mixtral-8x7b.json"), cfg, ph);
  const auto r = model::run_model(est, m, quant::parse_scheme("q0f16"));
  std::int64_t weight_bytes = 0;
  for (const auto& [g, c] : r.rows)
    if (g.phase == model::Phase::kDecode && is_linear(g))  // the KV cache is attention's B operand
      for (const auto& t : c.tensors)
        if (t.role == quant::OperandRole::kWeight) weight_bytes += t.dram_bytes * g.calls;
  const std::int64_t H = 4096, I = 14336, L = 32;
  const std::int64_t non_expert = L * (H * (32 + 2 * 8) * 128 + 32 * 128 * H + 8 * H) + 32000 * H;
  const std::int64_t experts = L * 2 * 3 * H * I;
  CHECK(weight_bytes == 2 * (non_expert + experts));
  // decode MACs of the linear GEMMs = the active parameters per token; prefill runs 64·2 expert rows per layer
  CHECK(macs(m.gemms, model::Phase::kDecode, is_linear) == non_expert + experts);
  CHECK(macs(m.gemms, model::Phase::kPrefill,
             [](const model::ModelGemm& g) { return g.function.rfind("expert_", 0) == 0; }) == L * 64 * 2 * 3 * H * I);
  // prefill of 64 tokens touches all 8 experts: 8 gate_up weights per layer
  std::int64_t prefill_expert_calls = 0;
  for (const auto& g : m.gemms)
    if (g.phase == model::Phase::kPrefill && g.function == "expert_gate_up") prefill_expert_calls += g.calls;
  CHECK(prefill_expert_calls == 8 * L);
  // the routing assumption is stated
  CHECK(std::any_of(m.notes.begin(), m.notes.end(),
                    [](const std::string& n) { return n.find("uniform routing") != std::string::npos; }));
  CHECK(std::any_of(m.notes.begin(), m.notes.end(),
                    [](const std::string& n) { return n.find("bfloat16") != std::string::npos; }));
}

TEST_CASE("Qwen2-MoE and DeepSeek-MoE: active parameters per token as decode MACs, for any batch") {
  model::Phases ph;
  ph.seq_len = 16;
  ph.context = 32;
  SECTION("Qwen1.5-MoE-A2.7B: 4 of 60 experts, a gated shared expert") {
    const auto cfg = load("qwen1.5-moe-a2.7b.json");
    CHECK(cfg.moe_layers == 24);
    CHECK(cfg.sliding_window == 0);  // use_sliding_window: false
    for (const std::int64_t batch : {1, 3, 16}) {
      ph.batch = batch;
      const auto g = model::workloads_from_config(cfg, ph);
      const std::int64_t per_token =
          24LL * (4 * 2048 * 2048 + 60 * 2048 + 4 * 3 * 2048 * 1408 + 3 * 2048 * 5632 + 2048);
      CHECK(macs(g, model::Phase::kDecode, is_linear) == batch * (per_token + 151936 * 2048));
    }
  }
  SECTION("DeepSeek-MoE-16B: layer 0 dense, 6 of 64 experts and 2 shared") {
    const auto cfg = load("deepseek-moe-16b.json");
    CHECK(cfg.moe_layers == 27);
    CHECK(cfg.shared_intermediate == 2816);
    ph.batch = 2;
    const auto g = model::workloads_from_config(cfg, ph);
    const std::int64_t attn = 4 * 2048 * 2048;
    const std::int64_t per_token =
        28 * attn + 3 * 2048 * 10944 + 27 * (64 * 2048 + 6 * 3 * 2048 * 1408 + 3 * 2048 * 2816);
    CHECK(macs(g, model::Phase::kDecode, is_linear) == 2 * (per_token + 102400 * 2048));
  }
  SECTION("Qwen2-MoE layer selection: decoder_sparse_step and mlp_only_layers") {
    const auto cfg = parse(R"({"model_type": "qwen2_moe", "hidden_size": 64, "intermediate_size": 128,
      "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2, "num_attention_heads": 4,
      "num_hidden_layers": 8, "vocab_size": 100, "decoder_sparse_step": 2, "mlp_only_layers": [3]})");
    CHECK(cfg.moe_layers == 3);  // layers 1, 5, 7 ((i+1) % 2 == 0, not 3)
    CHECK(cfg.shared_intermediate == 0);
    // the closed count against a loop over the layers
    for (std::int64_t step = 1; step <= 4; ++step)
      for (std::int64_t freq = 1; freq <= 3; ++freq)
        for (std::int64_t first = 0; first <= 3; ++first)
          for (std::int64_t L = 1; L <= 12; ++L) {
            const auto c = parse(R"({"hidden_size": 64, "intermediate_size": 128, "moe_intermediate_size": 32,
              "n_routed_experts": 4, "num_experts_per_tok": 2, "num_attention_heads": 4, "vocab_size": 100,
              "mlp_only_layers": [1, 5, 40], "num_hidden_layers": )" +
                                 std::to_string(L) + R"(, "decoder_sparse_step": )" + std::to_string(step) +
                                 R"(, "moe_layer_freq": )" + std::to_string(freq) + R"(, "first_k_dense_replace": )" +
                                 std::to_string(first) + "}");
            std::int64_t n = 0;
            for (std::int64_t i = 0; i < L; ++i)
              n += i != 1 && i != 5 && (i + 1) % step == 0 && i % freq == 0 && i >= first ? 1 : 0;
            INFO("step=" << step << " freq=" << freq << " first=" << first << " L=" << L);
            CHECK(c.moe_layers == n);
          }
  }
}

TEST_CASE("sliding-window attention caps the attended keys: brute-force pair counts") {
  for (const std::int64_t w : {1, 2, 3, 5, 8, 64, 65, 100})
    for (const std::int64_t s : {1, 2, 3, 7, 8, 9, 64, 65, 130, 200, 257}) {
      std::int64_t pairs = 0;
      for (std::int64_t q = 0; q < s; ++q)
        for (std::int64_t k = 0; k <= q; ++k) pairs += q - k < w ? 1 : 0;
      INFO("w=" << w << " s=" << s);
      CHECK(model::attention_pairs(s, s, w) == pairs);
      // the plan's prefill QK MACs: layers · heads · head_dim · pairs (GQA: 4 heads over 2 KV heads)
      const auto cfg = parse(R"({"model_type": "mistral", "hidden_size": 64, "intermediate_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 100,
        "sliding_window": )" +
                             std::to_string(w) + "}");
      CHECK(cfg.window_layers == 3);
      model::Phases ph;
      ph.seq_len = s;
      ph.context = 2 * s;
      ph.batch = 2;
      const auto g = model::workloads_from_config(cfg, ph);
      CHECK(macs(g, model::Phase::kPrefill, is_qk) == 2 * 3 * 4 * 16 * pairs);
      CHECK(macs(g, model::Phase::kDecode, is_qk) == 2 * 3 * 4 * 16 * std::min(2 * s, w));
    }
}

TEST_CASE("Qwen2 sliding window: only with use_sliding_window, from max_window_layers on") {
  const std::string base = R"({"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 10, "vocab_size": 100, "sliding_window": 16)";
  CHECK(parse(base + "}").window_layers == 0);
  CHECK(parse(base + R"(, "use_sliding_window": false, "max_window_layers": 4})").sliding_window == 0);
  const auto on = parse(base + R"(, "use_sliding_window": true, "max_window_layers": 4})");
  CHECK(on.sliding_window == 16);
  CHECK(on.window_layers == 6);
  model::Phases ph;
  ph.seq_len = 8;
  ph.context = 100;
  const auto g = model::workloads_from_config(on, ph);
  CHECK(macs(g, model::Phase::kDecode, is_qk) == (4 * 100 + 6 * 16) * 4 * 16);
  // Mistral-7B-v0.1 windows all 32 layers at 4096
  const auto mistral = load("mistral-7b-v0.1.json");
  CHECK(mistral.sliding_window == 4096);
  CHECK(mistral.window_layers == 32);
}

TEST_CASE("ungated families and MQA: OPT, Falcon, GPT-2, GPT-NeoX") {
  model::Phases ph;
  ph.seq_len = 4;
  ph.context = 8;
  auto width = [&](const model::ModelConfig& c, const char* fn) {
    for (const auto& g : model::workloads_from_config(c, ph))
      if (g.function == fn && g.phase == model::Phase::kDecode) return g.shape.n;
    return std::int64_t{-1};
  };
  const auto opt = load("opt-1.3b.json");
  CHECK_FALSE(opt.gated_mlp);
  CHECK(opt.activation == model::Activation::kRelu);
  CHECK(opt.intermediate == 8192);
  CHECK(opt.tie_embeddings);
  CHECK(width(opt, "up_proj") == 8192);
  CHECK(width(opt, "gate_up_proj") == -1);
  const auto falcon = load("falcon-7b.json");
  CHECK(falcon.kv_heads == 1);  // multi_query
  CHECK(falcon.head_dim == 64);
  CHECK(falcon.intermediate == 4 * 4544);
  CHECK(falcon.activation == model::Activation::kGelu);
  CHECK(width(falcon, "qkv_proj") == (71 + 2) * 64);
  const auto gpt2 = load("gpt2.json");
  CHECK(gpt2.hidden == 768);
  CHECK(gpt2.intermediate == 3072);
  CHECK(gpt2.tie_embeddings);
  CHECK(gpt2.activation == model::Activation::kGelu);
  CHECK(model::parameter_count(gpt2) == 12 * (4 * 768 * 768 + 2 * 768 * 3072 + 2 * 768) + 50257 * 768 + 768);
  const auto neox = load("pythia-1.4b.json");
  CHECK_FALSE(neox.gated_mlp);
  CHECK(width(neox, "up_proj") == 8192);
  // Falcon-40B style: new_decoder_architecture with num_kv_heads
  CHECK(parse(R"({"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128, "num_kv_heads": 8,
    "new_decoder_architecture": true, "num_hidden_layers": 60, "vocab_size": 65024})")
            .kv_heads == 8);
  // ReLU costs one element op per element, GELU four (docs/model.md "Operators")
  for (const auto& op : model::operators_from_config(opt, ph))
    if (op.function == "activation" && op.phase == model::Phase::kDecode) CHECK(op.shape.ops == 8192);
}

TEST_CASE("structure the model does not understand is refused, naming the field") {
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK_THAT(message([] { load("deepseek-v2-lite.json"); }), Catch::Contains("kv_lora_rank"));
  const std::string base = R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 100)";
  CHECK_THAT(message([&] { parse(base + R"(, "model_type": "foo", "q_lora_rank": 8})"); }),
             Catch::Contains("q_lora_rank"));
  CHECK_THAT(message([&] { parse(base + R"(, "model_type": "foo", "num_expert_groups": 8})"); }),
             Catch::Contains("num_expert_groups"));
  CHECK_THAT(message([&] { parse(base + R"(, "model_type": "gemma2", "sliding_window": 8})"); }),
             Catch::Contains("sliding_window"));
  CHECK_THAT(message([&] { parse(base + R"(, "num_experts": 8})"); }), Catch::Contains("num_experts_per_tok"));
  CHECK_THAT(message([&] { parse(base + R"(, "hidden_act": "relu2"})"); }), Catch::Contains("relu2"));
  CHECK_THAT(message([&] { parse(base + R"(, "is_encoder_decoder": true})"); }), Catch::Contains("is_encoder_decoder"));
  // an unknown family without such fields is a Llama-style decoder, said in the notes
  const auto unknown = parse(base + R"(, "model_type": "foo"})");
  CHECK(std::any_of(unknown.notes.begin(), unknown.notes.end(),
                    [](const std::string& n) { return n.find("'foo'") != std::string::npos; }));
}

TEST_CASE("memory footprint: weights, KV cache and activations against hand-computed bytes") {
  const std::string path = std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json";
  const auto cfg = model::load_hf_config(path);
  model::Phases ph;
  ph.seq_len = 2048;
  ph.context = 2048;
  const std::int64_t params = 6738415616;
  for (const std::int64_t batch : {1, 16}) {
    ph.batch = batch;
    const auto m = model::plan_from_config(path, cfg, ph);
    const auto f16 = model::footprint(m, quant::parse_scheme("q0f16"));
    CHECK(f16.weight_bytes == 2 * params);
    CHECK(f16.kv_bytes == batch * 2 * 32 * 32 * 128 * 2048 * 2);  // K and V, 32 layers x 32 heads x 128, fp16
    // the largest GEMM's input + output: prefill gate_up, N·2048 rows x (4096 + 22016) at 2 bytes
    CHECK(f16.activation_bytes == batch * 2048 * (4096 + 22016) * 2);
    // q4f16_1: 4-bit weights + one fp16 scale per 32
    CHECK(model::footprint(m, quant::parse_scheme("q4f16_1")).weight_bytes == params / 2 + params / 32 * 2);
    // +kv8: 8-bit cache (its per-token scales are not counted when per channel / token)
    CHECK(model::footprint(m, quant::parse_scheme("q0f16+kv8")).kv_bytes < f16.kv_bytes * 3 / 5);
  }
  // a sliding window caps the cache: Mistral-7B at context 8192 holds 4096 tokens per layer
  const auto mistral = load("mistral-7b-v0.1.json");
  ph.batch = 1;
  ph.context = 8192;
  ph.seq_len = 16;
  const auto mm = model::plan_from_config(fixture("mistral-7b-v0.1.json"), mistral, ph);
  CHECK(model::footprint(mm, quant::parse_scheme("q0f16")).kv_bytes == 2 * 32 * 8 * 128 * 4096 * 2);
}

TEST_CASE("dram.bytes: a warning line over capacity, an error with --strict, silence under it") {
  const std::string base = "estimate --hf-config " + std::string(TC_SOURCE_DIR) +
                           "/workloads/llama-2-7b/config.json --quant q0f16 --seq-len 16 --context 32 --format json";
  const auto over = tc_test::run_cli(base + " --set dram.bytes=1000000000");
  CHECK(over.exit_code == 0);
  CHECK(std::count(over.err.begin(), over.err.end(), '\n') == 1);
  CHECK_THAT(over.err, Catch::Contains("warning: memory: weights 13476831232 + KV cache"));
  CHECK_THAT(over.err, Catch::Contains("exceed dram.bytes 1000000000 (q0f16)"));
  CHECK_THAT(over.out, Catch::Contains("memory: weights 13476831232"));
  const auto strict = tc_test::run_cli(base + " --set dram.bytes=1000000000 --strict");
  CHECK(strict.exit_code == 2);
  CHECK_THAT(strict.err, Catch::Contains("exceed dram.bytes 1000000000"));
  CHECK(strict.out.empty());
  const auto under = tc_test::run_cli(base + " --set dram.bytes=17179869184 --strict");
  CHECK(under.exit_code == 0);
  CHECK(under.err.empty());
  CHECK_THAT(under.out, !Catch::Contains("memory:"));
}

TEST_CASE("dram.bytes in compare: one warning line naming only the schemes over capacity") {
  // Llama-2-7B: q0f16 weights 13.5 GB, q4f16_1 3.8 GB; 8 GB of DRAM holds only the latter
  const auto r = tc_test::run_cli("compare --hf-config " + std::string(TC_SOURCE_DIR) +
                                  "/workloads/llama-2-7b/config.json --quant q0f16,q4f16_1 --seq-len 16 --context 32 "
                                  "--format json --set dram.bytes=8000000000");
  CHECK(r.exit_code == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::Contains("(q0f16)"));
  CHECK_THAT(r.err, !Catch::Contains("(q4f16_1)"));
  CHECK_THAT(r.out, Catch::Contains("exceed dram.bytes 8000000000 (q0f16)"));
  const auto strict = tc_test::run_cli("compare --hf-config " + std::string(TC_SOURCE_DIR) +
                                       "/workloads/llama-2-7b/config.json --quant q4f16_1,q0f16 --seq-len 16 "
                                       "--context 32 --set dram.bytes=8000000000 --strict");
  CHECK(strict.exit_code == 2);
  CHECK(std::count(strict.err.begin(), strict.err.end(), '\n') == 1);
  CHECK_THAT(strict.err, Catch::Contains("(q0f16) (--strict)"));
}

TEST_CASE("torch_dtype: an unknown value is costed as float16 with a note saying so") {
  const std::string head =
      R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1, )"
      R"("intermediate_size": 128, "vocab_size": 100)";
  const auto has_dtype_note = [](const model::ModelConfig& c) {
    return std::any_of(c.notes.begin(), c.notes.end(),
                       [](const std::string& n) { return n.find("torch_dtype") != std::string::npos; });
  };
  const auto odd = parse(head + R"(, "torch_dtype": "float8_e4m3"})");
  CHECK(odd.dtype == model::ModelDtype::kFloat16);
  REQUIRE(has_dtype_note(odd));
  CHECK_THAT(odd.notes.front(), Catch::Contains("torch_dtype 'float8_e4m3' is not float16, bfloat16 or float32: "
                                                "costed as float16"));
  CHECK_FALSE(has_dtype_note(parse(head + "}")));  // absent: float16, as HF's default, no note
  CHECK_FALSE(has_dtype_note(parse(head + R"(, "torch_dtype": "float32"})")));
  CHECK_FALSE(has_dtype_note(parse(head + R"(, "torch_dtype": "float16"})")));
}

TEST_CASE("a config's model name: _name_or_path, else model_type, else the file stem (issue 27)") {
  model::Phases ph;
  ph.seq_len = 8;
  ph.context = 16;
  // every fixture in one folder has its own name, not the folder's ("configs")
  const model::ModelConfig mixtral = load("mixtral-8x7b.json");
  CHECK(model::plan_from_config(fixture("mixtral-8x7b.json"), mixtral, ph).name == "mistralai/Mixtral-8x7B-v0.1");
  CHECK(model::plan_from_config(fixture("gpt2.json"), load("gpt2.json"), ph).name == "gpt2");
  const std::string body =
      R"("hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2,
         "vocab_size": 100)";
  const model::ModelConfig typed = parse("{\"model_type\": \"qwen2\", " + body + "}");
  CHECK(model::plan_from_config("hf/config.json", typed, ph).name == "qwen2");
  const model::ModelConfig bare = parse("{" + body + "}");
  CHECK(bare.model_type == "llama");  // read as a Llama-style decoder, said in the notes
  CHECK(model::plan_from_config("hf/tiny-model.json", bare, ph).name == "tiny-model");
  const model::ModelConfig empty_name = parse(R"({"_name_or_path": "", "model_type": "gpt2", )" + body + "}");
  CHECK(model::plan_from_config("x/config.json", empty_name, ph).name == "gpt2");
}
