// Batch serving and attention as it runs (docs/model.md "Batch", "Attention"): closed forms of KV-cache
// traffic, causal MACs and tokens/s against the plan and the estimator.
#include <catch2/catch.hpp>

#include <optional>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using model::Phase;

namespace {

std::string presets_dir() { return std::string(TC_SOURCE_DIR) + "/configs/arch"; }

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch("edge-npu-32x32", presets_dir()), mapping::parse_dataflow("os"));
}

// A small GQA model: 8 query heads over 2 KV heads of 16, 3 layers.
model::ModelConfig small_config() {
  return model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 8,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 512})",
                                "small.json");
}

std::int64_t tensor_dram(const cost::GemmCost& c, const std::string& name) {
  for (const auto& t : c.tensors)
    if (t.name == name) return t.dram_bytes;
  FAIL("no tensor " << name);
  return 0;
}

struct AttnSums {
  std::int64_t qk_macs = 0, pv_macs = 0, k_bytes = 0, v_bytes = 0, score_bytes = 0;
};

AttnSums attention_sums(const model::ModelResult& r, Phase phase) {
  AttnSums s;
  for (const auto& [g, c] : r.rows) {
    if (g.phase != phase) continue;
    if (c.shape.role == quant::GemmRole::kAttnQK) {
      s.qk_macs += c.macs * g.calls;
      s.k_bytes += tensor_dram(c, "K") * g.calls;
      s.score_bytes += tensor_dram(c, "P") * g.calls;
    } else if (c.shape.role == quant::GemmRole::kAttnPV) {
      s.pv_macs += c.macs * g.calls;
      s.v_bytes += tensor_dram(c, "V") * g.calls;
      s.score_bytes += tensor_dram(c, "P") * g.calls;
    }
  }
  return s;
}

}  // namespace

TEST_CASE("causal prefill attention: MACs are h·d·s(s+1)/2 per layer for QK and for PV, times the batch") {
  const auto cfg = small_config();
  auto est = estimator();
  for (const std::int64_t s : {1, 2, 63, 64, 65, 100, 129, 300}) {
    for (const std::int64_t batch : {1, 3}) {
      model::Phases ph;
      ph.seq_len = s;
      ph.context = 16;
      ph.batch = batch;
      const auto r = model::run_model(est, model::workloads_from_config(cfg, ph), std::nullopt);
      const AttnSums a = attention_sums(r, Phase::kPrefill);
      const std::int64_t expect = cfg.layers * cfg.heads * cfg.head_dim * s * (s + 1) / 2 * batch;
      INFO("s=" << s << " batch=" << batch);
      CHECK(a.qk_macs == expect);
      CHECK(a.pv_macs == expect);
      // fused (the default): the scores never reach DRAM
      CHECK(a.score_bytes == 0);
    }
  }
}

TEST_CASE("causal diagonal blocks spend MAC energy on their key <= query pairs only") {
  const auto cfg = small_config();
  auto est = estimator();
  model::Phases ph;
  ph.seq_len = 300;  // rectangles and diagonal blocks of 37 and 38 queries
  ph.context = 16;
  const auto r = model::run_model(est, model::workloads_from_config(cfg, ph), std::nullopt);
  // every attention row, rectangle or diagonal block, spends the same energy per counted MAC (fp16 x fp16)
  std::optional<double> per_mac;
  int diagonal = 0;
  for (const auto& [g, c] : r.rows) {
    if (g.phase != Phase::kPrefill || c.shape.role == quant::GemmRole::kLinear) continue;
    diagonal += g.causal_diagonal ? 1 : 0;
    const double e = c.energy_by_term[cost::EnergyTerm::kMac] / static_cast<double>(c.macs);
    if (!per_mac) per_mac = e;
    INFO(g.function << " " << c.shape.m << "x" << c.shape.n << "x" << c.shape.k);
    CHECK(e == Approx(*per_mac).epsilon(1e-12));
    CHECK(c.energy_j == Approx(c.energy_by_term.sum()).epsilon(1e-12));
  }
  CHECK(diagonal > 0);
}

TEST_CASE("unfused attention writes the scores to DRAM and reads them back") {
  const auto cfg = small_config();
  auto est = estimator();
  model::Phases ph;
  ph.seq_len = 256;
  ph.context = 256;
  const auto fused = model::run_model(est, model::workloads_from_config(cfg, ph), std::nullopt);
  ph.attention = model::Attention::kUnfused;
  const auto unfused = model::run_model(est, model::workloads_from_config(cfg, ph), std::nullopt);
  const AttnSums f = attention_sums(fused, Phase::kPrefill);
  const AttnSums u = attention_sums(unfused, Phase::kPrefill);
  CHECK(f.score_bytes == 0);
  // at least every key <= query score written once and read once, fp16
  CHECK(u.score_bytes >= 2 * cfg.layers * cfg.heads * 256 * 257 / 2 * 2);
  CHECK(u.qk_macs == f.qk_macs);
  CHECK(unfused.totals.at("prefill").dram_bytes - fused.totals.at("prefill").dram_bytes == u.score_bytes);
}

TEST_CASE("decode KV-cache traffic is N x the per-sequence KV cache") {
  const auto cfg = small_config();
  auto est = estimator();
  for (const std::int64_t context : {16, 100, 1000}) {
    for (const std::int64_t batch : {1, 4, 16}) {
      model::Phases ph;
      ph.seq_len = 8;
      ph.context = context;
      ph.batch = batch;
      const auto r = model::run_model(est, model::workloads_from_config(cfg, ph), std::nullopt);
      const AttnSums a = attention_sums(r, Phase::kDecode);
      // fp16 K and V: layers x kv_heads x context x head_dim x 2 bytes, per sequence
      const std::int64_t per_seq = cfg.layers * cfg.kv_heads * context * cfg.head_dim * 2;
      INFO("context=" << context << " batch=" << batch);
      CHECK(a.k_bytes == batch * per_seq);
      CHECK(a.v_bytes == batch * per_seq);
      CHECK(a.qk_macs == batch * cfg.layers * cfg.heads * cfg.head_dim * context);
    }
  }
}

TEST_CASE("tokens/s: batch x seq_len / prefill latency, batch / decode latency") {
  const auto cfg = small_config();
  auto est = estimator();
  model::Phases ph;
  ph.seq_len = 32;
  ph.context = 64;
  ph.batch = 8;
  const model::Model m{"small", model::workloads_from_config(cfg, ph), {}, {}};
  const auto schemes = model::compare_schemes("q0f16,q4f16_1", false);
  const auto c = model::compare(est, m, ph, schemes);
  REQUIRE(c.rows.size() == 2);
  CHECK(c.info.batch == 8);
  for (const auto& r : c.rows) {
    CHECK(r.decode_tokens_per_s == Approx(8.0 / r.decode.latency_s));
    CHECK(r.prefill_tokens_per_s == Approx(8.0 * 32 / r.prefill.latency_s));
  }
}

TEST_CASE("batch scales the linear GEMMs' rows and the lm_head to one row per sequence") {
  const auto cfg = small_config();
  model::Phases ph;
  ph.seq_len = 10;
  ph.context = 20;
  ph.batch = 5;
  for (const auto& g : model::workloads_from_config(cfg, ph)) {
    if (g.shape.role != quant::GemmRole::kLinear) continue;
    if (g.lm_head) CHECK(g.shape.m == 5);
    else CHECK(g.shape.m == (g.phase == Phase::kPrefill ? 50 : 5));
  }
}

TEST_CASE("bindings and batch are checked against the dump") {
  const std::string dump = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/q0f16.py";
  const std::string config = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
  model::Phases ph;
  ph.bindings["batch_sz"] = 4;
  try {
    (void)model::plan_from_dump(dump, ph, std::nullopt);
    FAIL("an unknown --bind name was accepted");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("'batch_sz' is not a symbol of the dump") != std::string::npos);
    CHECK(msg.find("its symbols: ") != std::string::npos);
  }
  model::Phases batched;
  batched.batch = 4;
  // entries without a batch symbol (the shipped dump's decode and prefill, named by --entry): each runs once per
  // sequence (calls x N), and the plan says so
  batched.entries = {"decode", "prefill"};
  model::Phases one;
  one.entries = batched.entries;
  const auto single = model::plan_from_dump(dump, one, model::load_hf_config(config));
  const auto seq = model::plan_from_dump(dump, batched, model::load_hf_config(config));
  REQUIRE(single.gemms.size() == seq.gemms.size());
  for (std::size_t i = 0; i < seq.gemms.size(); ++i) {
    CHECK(seq.gemms[i].shape == single.gemms[i].shape);
    CHECK(seq.gemms[i].calls == 4 * single.gemms[i].calls);
  }
  REQUIRE(!seq.notes.empty());
  CHECK(seq.notes.front().find("runs once per sequence, 4 calls") != std::string::npos);
  CHECK(single.notes.empty());  // the dump's non-GEMM operators are costed: no note that they are not
  CHECK(!single.ops.empty());
  // a config plan has no symbols to bind
  CHECK_THROWS_WITH(model::workloads_from_config(small_config(), ph), Catch::Contains("a config plan has none"));
  model::Phases zero;
  zero.batch = 0;
  CHECK_THROWS_WITH(model::workloads_from_config(small_config(), zero),
                    Catch::Contains("--batch 0: expected 1 .. 65536"));
}

TEST_CASE("a batched MLC dump binds its batch symbols and scales attention per sequence") {
  const std::string dump = tc_test::shared_path("fixtures/real/01_mlc_llama2_13b_q4f16_1_batched_whole_module.py");
  if (dump.empty()) return;  // ../shared absent
  model::Phases one, many;
  many.batch = 16;
  one.bindings["vocab_size"] = many.bindings["vocab_size"] = 32000;  // Llama-2-13B's vocabulary
  const auto a = model::plan_from_dump(dump, one, std::nullopt);
  const auto b = model::plan_from_dump(dump, many, std::nullopt);
  std::int64_t kv_a = 0, kv_b = 0;
  for (const auto& g : a.gemms)
    if (g.shape.role == quant::GemmRole::kAttnQK && g.phase == Phase::kDecode) kv_a += g.shape.batch * g.calls;
  for (const auto& g : b.gemms)
    if (g.shape.role == quant::GemmRole::kAttnQK && g.phase == Phase::kDecode) kv_b += g.shape.batch * g.calls;
  CHECK(kv_a > 0);
  CHECK(kv_b == 16 * kv_a);
  // the unbatched prefill entry runs once per sequence
  CHECK(b.notes.size() == 1);
}
