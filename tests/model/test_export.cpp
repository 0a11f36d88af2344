// Exports for serving simulators (issue 24 item 5): the column sets LLMServingSim 2.0's and Vidur's readers expect,
// rows equal to the plan's own per-call figures (estimate's), positive finite times, determinism.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/report.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

model::ModelConfig small_config() {
  return model::parse_hf_config(R"({"_name_or_path": "org/small", "hidden_size": 128, "intermediate_size": 256,
    "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 4, "vocab_size": 512})",
                                "small.json");
}

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                         mapping::parse_dataflow("os"), {});
}

const model::ExportTable& table(const std::vector<model::ExportTable>& ts, const std::string& suffix) {
  for (const auto& t : ts)
    if (t.path.size() >= suffix.size() && t.path.compare(t.path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return t;
  FAIL("no table " << suffix);
  return ts.front();
}

double num(const model::ExportCell& c) {
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return static_cast<double>(std::get<std::int64_t>(c));
}

// Every time column (double cells) positive and finite.
void check_times(const model::ExportTable& t) {
  for (const auto& row : t.rows)
    for (const auto& c : row)
      if (const auto* d = std::get_if<double>(&c)) CHECK((std::isfinite(*d) && *d > 0));
}

model::ExportGrid grid() {
  model::ExportGrid g;
  g.max_tokens = 64;
  g.max_seqs = 8;
  g.max_kv = 256;
  return g;
}

}  // namespace

TEST_CASE("the LLMServingSim bundle has its reader's files, columns and the plan's per-call times", "[export]") {
  cost::Estimator est = estimator();
  const model::ModelConfig c = small_config();
  const quant::Scheme s = quant::parse_scheme("q4f16_1");
  const auto ts = model::export_tables(model::ExportFormat::kLlmServingSim, est, c, s, 2, "", grid());
  const auto& dense = table(ts, "/q4f16_1/tp2/dense.csv");
  CHECK(dense.path == "edge-npu-32x32/org/small/q4f16_1/tp2/dense.csv");
  CHECK(dense.columns == std::vector<std::string>{"layer", "tokens", "time_us"});
  const auto& seq = table(ts, "tp2/per_sequence.csv");
  CHECK(seq.columns == std::vector<std::string>{"layer", "sequences", "time_us"});
  const auto& att = table(ts, "tp2/attention.csv");
  CHECK(att.columns == std::vector<std::string>{"prefill_chunk", "kv_prefill", "n_decode", "kv_decode", "time_us"});
  CHECK(table(ts, "meta.yaml").text.find("variant: q4f16_1") != std::string::npos);
  for (const auto* t : {&dense, &seq, &att}) check_times(*t);
  std::set<std::string> layers;
  for (const auto& r : dense.rows) layers.insert(std::get<std::string>(r[0]));
  CHECK(layers == std::set<std::string>{"act_fn", "down_proj", "embedding", "final_layernorm", "gate_up_proj",
                                        "layernorm", "o_proj", "qkv_proj", "rotary_emb"});
  // the rows are the plan's: qkv_proj of 48 tokens on one of 2 chips = the sharded plan's prefill qkv_proj per call
  model::Parallel p;
  p.tp = 2;
  const model::ModelConfig chip = model::shard_config(c, p);
  model::Phases ph;
  ph.seq_len = ph.context = 48;
  double qkv = 0;
  for (const auto& g : model::workloads_from_config(chip, ph))
    if (g.function == "qkv_proj" && g.phase == model::Phase::kPrefill) qkv = model::gemm_cost(est, g, s).latency_s;
  bool found = false;
  for (const auto& r : dense.rows)
    if (std::get<std::string>(r[0]) == "qkv_proj" && std::get<std::int64_t>(r[1]) == 48) {
      CHECK(num(r[2]) == Approx(qkv * 1e6));
      found = true;
    }
  CHECK(found);
  // a pure-decode attention row = one layer of the plan's decode attention (QK, PV, softmax) at context kv + 1
  model::Phases dec;
  dec.batch = 4;
  dec.seq_len = 1;
  dec.context = 129;
  const model::Model plan = model::plan_from_config("small.json", chip, dec);
  double layer = 0;
  for (const auto& g : plan.gemms)
    if (g.phase == model::Phase::kDecode && g.shape.role != quant::GemmRole::kLinear)
      layer += model::gemm_cost(est, g, s).latency_s * static_cast<double>(g.calls) / 4.0;  // 4 layers
  for (const auto& o : plan.ops)
    if (o.phase == model::Phase::kDecode && o.function == "softmax")
      layer += cost::vector_op(est.arch(), o.shape).latency_s;
  found = false;
  for (const auto& r : att.rows)
    if (num(r[0]) == 0 && num(r[2]) == 4 && num(r[3]) == 128) {
      CHECK(num(r[4]) == Approx(layer * 1e6));
      found = true;
    }
  CHECK(found);
  // the rows LLMServingSim's grid has: no (q=1, history 0) decode, no empty batch
  for (const auto& r : att.rows) {
    CHECK((num(r[2]) > 0) == (num(r[3]) > 0));
    CHECK(num(r[0]) + num(r[2]) > 0);
  }
  // deterministic
  const auto again = model::export_tables(model::ExportFormat::kLlmServingSim, est, c, s, 2, "", grid());
  for (std::size_t i = 0; i < ts.size(); ++i) CHECK(report::render_export(ts[i]) == report::render_export(again[i]));
}

TEST_CASE("the Vidur tables have its predictor's columns, ms times and the collectives", "[export]") {
  cost::Estimator est = estimator();
  const model::ModelConfig c = small_config();
  const quant::Scheme s = quant::parse_scheme("w8a8-token-channel");
  const auto ts = model::export_tables(model::ExportFormat::kVidur, est, c, s, 2, "", grid());
  const auto& mlp = table(ts, "/org/small/mlp.csv");
  CHECK(mlp.path == "compute/edge-npu-32x32_w8a8-token-channel/org/small/mlp.csv");
  for (const char* col :
       {"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp",
        "num_tensor_parallel_workers", "num_tokens", "time_stats.attn_pre_proj.median",
        "time_stats.attn_post_proj.median", "time_stats.mlp_up_proj.median", "time_stats.mlp_down_proj.median",
        "time_stats.mlp_act.median", "time_stats.input_layernorm.median", "time_stats.post_attention_layernorm.median",
        "time_stats.attn_rope.median", "time_stats.add.median"})
    CHECK(std::find(mlp.columns.begin(), mlp.columns.end(), col) != mlp.columns.end());
  check_times(mlp);
  const auto& att = table(ts, "attention.csv");
  for (const char* col : {"n_embd", "n_q_head", "n_kv_head", "block_size", "num_tensor_parallel_workers", "batch_size",
                          "kv_cache_size", "prefill_chunk_size", "time_stats.attn_prefill.median",
                          "time_stats.attn_decode.median", "time_stats.attn_kv_cache_save.median"})
    CHECK(std::find(att.columns.begin(), att.columns.end(), col) != att.columns.end());
  // a decode row (prefill_chunk_size 0) leaves attn_prefill empty (NaN for pandas) and vice versa
  for (const auto& r : att.rows) {
    const bool decode = num(r[7]) == 0;
    CHECK(std::holds_alternative<std::string>(r[decode ? 9 : 10]));
  }
  // all_reduce: Vidur reads size as tokens x n_embd x 2; the time is our ring all-reduce of those tokens at int8 with
  // per-token scales, in ms
  const auto& ar = table(ts, "all_reduce.csv");
  CHECK(ar.columns == std::vector<std::string>{"num_workers", "devices_per_node", "collective", "size",
                                               "time_stats.all_reduce.median"});
  const auto& r0 = ar.rows.front();
  CHECK(num(r0[3]) == 1 * 128 * 2);
  const model::CollectiveCost want =
      model::all_reduce(est.arch().chip_link, 2, model::collective_format(s, ""), 1, 128);
  CHECK(num(r0[4]) == Approx(want.seconds * 1e3));
  CHECK(table(ts, "send_recv.csv").rows.size() == ar.rows.size());
}

TEST_CASE("exports refuse what they cannot state", "[export]") {
  cost::Estimator est = estimator();
  const model::ModelConfig mix =
      model::load_hf_config(std::string(TC_SOURCE_DIR) + "/tests/fixtures/configs/mixtral-8x7b.json");
  CHECK_THROWS_WITH(
      model::export_tables(model::ExportFormat::kVidur, est, mix, quant::parse_scheme("q0f16"), 1, "", grid()),
      Catch::Contains("MoE"));
  CHECK_THROWS_WITH(model::parse_export_format("genz"), Catch::Contains("llmservingsim or vidur"));
  model::ExportGrid g = grid();
  g.max_kv = 0;
  CHECK_THROWS_WITH(
      model::export_tables(model::ExportFormat::kVidur, est, small_config(), quant::parse_scheme("q0f16"), 1, "", g),
      Catch::Contains("--max-kv"));
}

TEST_CASE("an MoE model's LLMServingSim bundle: moe.csv by tokens and activated experts, as its reader expects",
          "[export][moe]") {
  cost::Estimator est = estimator();
  const model::ModelConfig mix =
      model::load_hf_config(std::string(TC_SOURCE_DIR) + "/workloads/mixtral-8x7b/config.json");
  model::ExportGrid g;
  g.max_tokens = 16;
  g.max_seqs = 2;
  g.max_kv = 32;
  const quant::Scheme s = quant::parse_scheme("q4f16_1");
  const auto ts = model::export_tables(model::ExportFormat::kLlmServingSim, est, mix, s, 1, "", g);
  const model::ExportTable& moe = table(ts, "/tp1/moe.csv");
  // ExpertPoint's columns (LLMServingSim's profiler/core/categories.py), keyed by (tokens, activated_experts)
  CHECK(moe.columns == std::vector<std::string>{"tokens", "activated_experts", "time_us"});
  check_times(moe);
  std::set<std::pair<std::int64_t, std::int64_t>> keys;
  std::size_t compared = 0;
  for (const auto& row : moe.rows) {
    const std::int64_t t = std::get<std::int64_t>(row[0]), a = std::get<std::int64_t>(row[1]);
    INFO(t << " tokens, " << a << " experts");
    CHECK(keys.insert({t, a}).second);
    // its grid: powers of two, top_k <= activated <= min(E, tokens x top_k)
    CHECK(((t & (t - 1)) == 0 && t <= 16 && (a & (a - 1)) == 0));
    CHECK((a >= 2 && a <= std::min<std::int64_t>(8, 2 * t)));
    if (a != model::experts_touched(8, 2, t)) continue;
    // where the plan loads the same experts, the row is the plan's MoE block of one layer (estimate's per-call
    // figures): the router, the experts' GEMMs (calls / MoE layers) and the layer's silu_mul
    model::Phases ph;
    ph.seq_len = ph.context = t;
    double want = 0;
    for (const auto& x : model::workloads_from_config(mix, ph))
      if (x.phase == model::Phase::kPrefill &&
          (x.function == "router" || x.function == "expert_gate_up" || x.function == "expert_down"))
        want += static_cast<double>(x.calls) / 32 * model::gemm_cost(est, x, s).latency_s;
    for (const auto& o : model::operators_from_config(mix, ph))
      if (o.phase == model::Phase::kPrefill && o.function == "silu_mul")
        want += cost::vector_op(est.arch(), o.shape).latency_s;
    CHECK(num(row[2]) == Approx(want * 1e6).epsilon(1e-12));
    ++compared;
  }
  CHECK(compared >= 2);          // 1 token: 2 experts, 16 tokens: all 8
  CHECK(moe.rows.size() == 12);  // 1 + 2 + 3 + 3 + 3 (tokens 1, 2, 4, 8, 16)
  // dense.csv: the attention block's layers, no dense MLP (the mixtral catalog's mlp_dense is empty)
  std::set<std::string> layers;
  for (const auto& row : table(ts, "/tp1/dense.csv").rows) layers.insert(std::get<std::string>(row[0]));
  CHECK(layers ==
        std::set<std::string>{"embedding", "final_layernorm", "layernorm", "o_proj", "qkv_proj", "rotary_emb"});
  CHECK_THROWS_WITH(model::export_tables(model::ExportFormat::kLlmServingSim, est, mix, s, 2, "", g),
                    Catch::Contains("tp1"));
}
