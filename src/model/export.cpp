// Latency tables for serving simulators (docs/export.md): LLMServingSim 2.0's profile bundle
// (<HW>/<model>/<variant>/tp<N>/{dense,per_sequence,attention}.csv, meta.yaml) and Vidur's profiling CSVs
// (compute/<device>/<model>/{mlp,attention}.csv, network/<device>/{all_reduce,send_recv}.csv), each time the cost of
// one call of the operator on one chip of the --tp group, from the same plan pieces `estimate` costs.
#include <algorithm>
#include <map>
#include <set>

#include "plan_internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

ExportFormat parse_export_format(const std::string& text) {
  if (text == "llmservingsim") return ExportFormat::kLlmServingSim;
  if (text == "vidur") return ExportFormat::kVidur;
  throw InputError("export: expected llmservingsim or vidur, found '" + text + "'");
}

std::string to_string(ExportFormat f) { return f == ExportFormat::kVidur ? "vidur" : "llmservingsim"; }

namespace {

// LLMServingSim's dense grid: 1 .. 15, 16 .. 63 step 4, 64 .. max step 16, and max.
std::vector<std::int64_t> token_grid(std::int64_t max) {
  std::vector<std::int64_t> v;
  for (std::int64_t t = 1; t <= std::min<std::int64_t>(15, max); ++t) v.push_back(t);
  for (std::int64_t t = 16; t <= std::min<std::int64_t>(63, max); t += 4) v.push_back(t);
  for (std::int64_t t = 64; t <= max; t += 16) v.push_back(t);
  if (v.empty() || v.back() != max) v.push_back(max);
  return v;
}

// [0, start, 2·start, 4·start, ... , max] (LLMServingSim's attention axes).
std::vector<std::int64_t> doubling(std::int64_t max, std::int64_t start) {
  std::vector<std::int64_t> v = {0};
  for (std::int64_t x = start; x <= max; x *= 2) v.push_back(x);
  if (v.back() != max && max >= start) v.push_back(max);
  return v;
}

// A path component: the name's characters outside [A-Za-z0-9._-] (and '/' when !keep_slash) become '_'.
std::string path_part(const std::string& name, bool keep_slash) {
  std::string out;
  for (const char ch : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-' ||
                    (keep_slash && ch == '/');
    out += ok ? ch : '_';
  }
  return out.empty() ? std::string("model") : out;
}

// One call's seconds of each linear GEMM and operator of a prefill of `tokens` rows on one chip, by plan name.
std::map<std::string, double> dense_seconds(cost::Estimator& est, const ModelConfig& chip, const quant::Scheme& s,
                                            std::int64_t tokens) {
  Phases ph;
  ph.seq_len = ph.context = tokens;
  ph.allow_long_context = true;
  std::map<std::string, double> t;
  for (const ModelGemm& g : workloads_from_config(chip, ph))
    if (g.phase == Phase::kPrefill && g.shape.role == quant::GemmRole::kLinear && !g.lm_head)
      t[g.function] = gemm_cost(est, g, s).latency_s;
  for (const ModelOp& o : operators_from_config(chip, ph))
    if (o.phase == Phase::kPrefill) t[o.function] = cost::vector_op(est.arch(), o.shape).latency_s;
  return t;
}

// One call's seconds of lm_head and sampling for `n` sequences (a decode step's rows).
std::map<std::string, double> sequence_seconds(cost::Estimator& est, const ModelConfig& chip, const quant::Scheme& s,
                                               std::int64_t n) {
  Phases ph;
  ph.batch = n;
  ph.seq_len = ph.context = 1;
  std::map<std::string, double> t;
  for (const ModelGemm& g : workloads_from_config(chip, ph))
    if (g.phase == Phase::kDecode && g.lm_head) t["lm_head"] = gemm_cost(est, g, s).latency_s;
  for (const ModelOp& o : operators_from_config(chip, ph))
    if (o.phase == Phase::kDecode && o.function == "sampling")
      t["sampler"] = cost::vector_op(est.arch(), o.shape).latency_s;
  return t;
}

// One layer's attention on one chip: `n` sequences of `q` queries over `keys` keys (causal when `causal`, after
// `prior` keys of earlier chunks: a rectangle), with its softmax on the vector unit.
double attention_seconds(cost::Estimator& est, const ModelConfig& c, const quant::Scheme& s, std::int64_t n,
                         std::int64_t q, std::int64_t prior, std::int64_t keys, bool causal) {
  Phases ph;
  ph.batch = n;
  std::vector<ModelGemm> g;
  const Phase phase = causal ? Phase::kPrefill : Phase::kDecode;
  const std::int64_t rows = checked_mul(c.heads / c.kv_heads, q, "attention rows");
  if (prior > 0) {
    const std::int64_t b = checked_mul(n, c.kv_heads, "attention batch");
    g.push_back(ModelGemm{"attn_qk",
                          "x",
                          phase,
                          1,
                          cost::GemmShape{b, rows, prior, c.head_dim, quant::GemmRole::kAttnQK, true},
                          {},
                          GemmSource::kConfig});
    g.push_back(ModelGemm{"attn_pv",
                          "x",
                          phase,
                          1,
                          cost::GemmShape{b, rows, c.head_dim, prior, quant::GemmRole::kAttnPV, true},
                          {},
                          GemmSource::kConfig});
  }
  detail::attention(g, "x", phase, 1, c.heads, c.kv_heads, c.head_dim, q, causal ? q : keys, GemmSource::kConfig, ph);
  double sec = 0;
  for (const ModelGemm& x : g) sec += static_cast<double>(x.calls) * gemm_cost(est, x, s).latency_s;
  const std::int64_t pairs =
      checked_add(checked_mul(q, prior, "pairs"), attention_pairs(q, causal ? q : keys, 0), "pairs");
  const std::int64_t scores = checked_mul(checked_mul(n, c.heads, "scores"), pairs, "scores");
  return sec + cost::vector_op(est.arch(), cost::OpShape{checked_mul(5, scores, "softmax ops"), 0, 0}).latency_s;
}

// The KV-cache append of `tokens` tokens on one chip (Vidur's attn_kv_cache_save).
double kv_save_seconds(const cost::Estimator& est, const ModelConfig& c, std::int64_t tokens) {
  const std::int64_t bytes = checked_mul(checked_mul(2 * tokens, c.kv_heads, "kv"), c.head_dim * 2, "kv bytes");
  return cost::vector_op(est.arch(), cost::OpShape{0, bytes, bytes}).latency_s;
}

// [1, 2, 4, ... <= max] (LLMServingSim's power-of-two grid: the MoE block's tokens and activated experts).
std::vector<std::int64_t> powers_of_two(std::int64_t max) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = 1; x <= max; x *= 2) v.push_back(x);
  return v;
}

// One call of an MoE block on one chip (LLMServingSim's `moe` row: vLLM's MixtralMoE, the router and the fused
// experts with their activation): `tokens` tokens routed to `activated` distinct experts, the tokens·k routed rows
// spread over them as evenly as the plan spreads them (⌈rows / activated⌉ or ⌊rows / activated⌋ each), the shared
// experts over every token, and the activation of those rows (the plan's silu_mul of one layer).
double moe_seconds(cost::Estimator& est, const ModelConfig& c, const quant::Scheme& s, std::int64_t tokens,
                   std::int64_t activated) {
  std::vector<ModelGemm> g;
  const auto lin = [&](const char* name, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t calls) {
    g.push_back(ModelGemm{name,
                          "x",
                          Phase::kPrefill,
                          calls,
                          cost::GemmShape{1, m, n, k, quant::GemmRole::kLinear},
                          {},
                          GemmSource::kConfig});
  };
  lin("router", tokens, c.experts, c.hidden, 1);
  const std::int64_t rows = checked_mul(tokens, c.experts_per_token, "routed rows");
  const std::int64_t q = rows / activated, rem = rows % activated;
  for (const auto& [m, n] : {std::pair{q + 1, rem}, std::pair{q, activated - rem}}) {
    if (n == 0) continue;
    lin("expert_gate_up", m, checked_mul(2, c.expert_intermediate, "expert width"), c.hidden, n);
    lin("expert_down", m, c.hidden, c.expert_intermediate, n);
  }
  if (c.shared_intermediate > 0) {
    lin("shared_gate_up", tokens, checked_mul(2, c.shared_intermediate, "shared width"), c.hidden, 1);
    lin("shared_down", tokens, c.hidden, c.shared_intermediate, 1);
    if (c.shared_expert_gate) lin("shared_expert_gate", tokens, 1, c.hidden, 1);
  }
  double sec = 0;
  for (const ModelGemm& x : g) sec += static_cast<double>(x.calls) * gemm_cost(est, x, s).latency_s;
  Phases ph;
  ph.seq_len = ph.context = tokens;
  ph.allow_long_context = true;
  for (const ModelOp& o : operators_from_config(c, ph))
    if (o.phase == Phase::kPrefill && o.function == "silu_mul") sec += cost::vector_op(est.arch(), o.shape).latency_s;
  return sec;
}

// LLMServingSim's layer names for our plan's names (the llama / mixtral catalogs of its profiler).
const std::vector<std::pair<std::string, std::vector<std::string>>>& lss_layers() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> m = {
      {"act_fn", {"silu_mul", "activation"}},
      {"down_proj", {"down_proj"}},
      {"embedding", {"embedding"}},
      {"final_layernorm", {"final_norm"}},
      {"gate_up_proj", {"gate_up_proj", "up_proj"}},
      {"layernorm", {"norm"}},
      {"o_proj", {"o_proj"}},
      {"qkv_proj", {"qkv_proj"}},
      {"rotary_emb", {"rotary"}}};
  return m;
}

double pick(const std::map<std::string, double>& t, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (t.count(n)) return t.at(n);
  return 0;
}

std::vector<ExportTable> llmservingsim(cost::Estimator& est, const ModelConfig& cfg, const ModelConfig& chip,
                                       const quant::Scheme& s, std::int64_t tp, const ExportGrid& grid) {
  const std::string root =
      path_part(est.arch().name, false) + "/" + path_part(cfg.name, true) + "/" + path_part(s.name, false) + "/";
  const std::string dir = root + "tp" + std::to_string(tp) + "/";
  ExportTable dense{dir + "dense.csv", {"layer", "tokens", "time_us"}, {}, ""};
  std::map<std::int64_t, std::map<std::string, double>> by_tokens;
  for (const std::int64_t t : token_grid(grid.max_tokens)) by_tokens[t] = dense_seconds(est, chip, s, t);
  // an MoE model's MLP is its moe.csv (the mixtral catalog has no dense act_fn / gate_up_proj / down_proj)
  const bool moe = cfg.moe_layers > 0;
  for (const auto& [layer, names] : lss_layers())
    for (const auto& [t, sec] : by_tokens) {
      if (layer == "rotary_emb" && cfg.positions != Positions::kRotary) continue;
      if (moe && (layer == "act_fn" || layer == "gate_up_proj" || layer == "down_proj")) continue;
      dense.rows.push_back({layer, t, pick(sec, names) * 1e6});
    }
  ExportTable seq{dir + "per_sequence.csv", {"layer", "sequences", "time_us"}, {}, ""};
  std::map<std::int64_t, std::map<std::string, double>> by_seq;
  for (const std::int64_t n : token_grid(grid.max_seqs)) by_seq[n] = sequence_seconds(est, chip, s, n);
  for (const char* layer : {"lm_head", "sampler"})
    for (const auto& [n, sec] : by_seq) seq.rows.push_back({std::string(layer), n, sec.at(layer) * 1e6});
  // attention: a prefill chunk after kv_prefill keys and n_decode sequences at kv_decode keys, one kernel; the two
  // parts are independent GEMMs, each costed once per distinct shape
  ExportTable att{dir + "attention.csv", {"prefill_chunk", "kv_prefill", "n_decode", "kv_decode", "time_us"}, {}, ""};
  std::map<std::pair<std::int64_t, std::int64_t>, double> chunk_part, decode_part;
  const auto kvs = doubling(grid.max_kv, 16);
  for (const std::int64_t chunk : doubling(grid.max_tokens, 16))
    for (const std::int64_t kvp : kvs) {
      if (chunk == 0 && kvp != 0) continue;
      for (const std::int64_t nd : doubling(grid.max_seqs, 1))
        for (const std::int64_t kvd : kvs) {
          if ((nd == 0) != (kvd == 0) || (chunk == 0 && nd == 0)) continue;
          if (chunk > 0 && !chunk_part.count({chunk, kvp}))
            chunk_part[{chunk, kvp}] = attention_seconds(est, chip, s, 1, chunk, kvp, chunk, true);
          if (nd > 0 && !decode_part.count({nd, kvd}))
            decode_part[{nd, kvd}] = attention_seconds(est, chip, s, nd, 1, 0, kvd + 1, false);
          const double sec = (chunk > 0 ? chunk_part[{chunk, kvp}] : 0) + (nd > 0 ? decode_part[{nd, kvd}] : 0);
          att.rows.push_back({chunk, kvp, nd, kvd, sec * 1e6});
        }
    }
  std::vector<ExportTable> out = {dense, seq, att};
  if (moe) {  // the MoE block by (tokens, activated experts), at tp1 as LLMServingSim profiles it
    ExportTable moe_t{dir + "moe.csv", {"tokens", "activated_experts", "time_us"}, {}, ""};
    const std::int64_t k = cfg.experts_per_token;
    for (const std::int64_t t : powers_of_two(grid.max_tokens))
      for (const std::int64_t a : powers_of_two(cfg.experts))
        if (a >= k && a <= std::min(cfg.experts, checked_mul(t, k, "routed rows")))
          moe_t.rows.push_back({t, a, moe_seconds(est, chip, s, t, a) * 1e6});
    out.push_back(std::move(moe_t));
  }
  ExportTable meta{root + "meta.yaml", {}, {}, ""};
  meta.text =
      "# written by tenet-cost export llmservingsim (analytical model, not a profile; docs/export.md)\n"
      "hardware: " +
      path_part(est.arch().name, false) + "\nmodel: " + cfg.name + "\nvariant: " + s.name + "\ntp_degrees: [" +
      std::to_string(tp) + "]\nprofiler: tenet-cost\nskew_fit:\n  enabled: false\n";
  out.push_back(std::move(meta));
  return out;
}

std::vector<ExportTable> vidur(cost::Estimator& est, const ModelConfig& cfg, const ModelConfig& chip,
                               const quant::Scheme& s, std::int64_t tp, const std::string& collective_dtype,
                               const ExportGrid& grid) {
  const std::string device = path_part(est.arch().name + "_" + s.name, false);
  const std::string dir = "compute/" + device + "/" + path_part(cfg.name, true) + "/";
  const std::vector<ExportCell> model_cells = {
      cfg.heads, cfg.kv_heads, cfg.hidden, cfg.intermediate, cfg.vocab, std::string(cfg.gated_mlp ? "True" : "False"),
      tp};
  const std::vector<std::string> model_cols = {
      "n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp", "num_tensor_parallel_workers"};
  static const std::vector<std::pair<std::string, std::vector<std::string>>> ops = {
      {"attn_pre_proj", {"qkv_proj"}},
      {"attn_post_proj", {"o_proj"}},
      {"mlp_up_proj", {"gate_up_proj", "up_proj"}},
      {"mlp_down_proj", {"down_proj"}},
      {"mlp_act", {"silu_mul", "activation"}},
      {"input_layernorm", {"norm"}},
      {"post_attention_layernorm", {"norm"}},
      {"attn_rope", {"rotary"}},
      {"add", {"residual_add"}}};
  ExportTable mlp{dir + "mlp.csv", model_cols, {}, ""};
  mlp.columns.emplace_back("num_tokens");
  for (const auto& [name, ours] : ops) mlp.columns.push_back("time_stats." + name + ".median");
  for (const std::int64_t t : token_grid(grid.max_tokens)) {
    const auto sec = dense_seconds(est, chip, s, t);
    std::vector<ExportCell> row = model_cells;
    row.emplace_back(t);
    for (const auto& [name, ours] : ops) row.emplace_back(pick(sec, ours) * 1e3);  // Vidur's times are ms
    mlp.rows.push_back(std::move(row));
  }
  ExportTable att{dir + "attention.csv",
                  {"n_embd", "n_q_head", "n_kv_head", "block_size", "num_tensor_parallel_workers", "batch_size",
                   "kv_cache_size", "prefill_chunk_size", "is_prefill", "time_stats.attn_prefill.median",
                   "time_stats.attn_decode.median", "time_stats.attn_kv_cache_save.median"},
                  {},
                  ""};
  const auto head = [&](std::int64_t b, std::int64_t kv, std::int64_t chunk) {
    return std::vector<ExportCell>{cfg.hidden,
                                   cfg.heads,
                                   cfg.kv_heads,
                                   std::int64_t{16},
                                   tp,
                                   b,
                                   kv,
                                   chunk,
                                   std::string(chunk > 0 ? "True" : "False")};
  };
  const auto kvs = doubling(grid.max_kv, 16);
  for (const std::int64_t chunk : token_grid(grid.max_tokens))
    for (const std::int64_t kv : kvs) {
      auto row = head(1, kv, chunk);
      row.emplace_back(attention_seconds(est, chip, s, 1, chunk, kv, chunk, true) * 1e3);
      row.emplace_back(std::string());
      row.emplace_back(kv_save_seconds(est, chip, chunk) * 1e3);
      att.rows.push_back(std::move(row));
    }
  for (const std::int64_t b : token_grid(grid.max_seqs))
    for (const std::int64_t kv : kvs) {
      if (kv == 0) continue;
      auto row = head(b, kv, 0);
      row.emplace_back(std::string());
      row.emplace_back(attention_seconds(est, chip, s, b, 1, 0, kv + 1, false) * 1e3);
      row.emplace_back(kv_save_seconds(est, chip, b) * 1e3);
      att.rows.push_back(std::move(row));
    }
  // the network tables: Vidur reads size as tokens x n_embd x 2 bytes
  const std::string net = "network/" + device + "/";
  const CollectiveFormat f = collective_format(s, collective_dtype);
  const arch::ChipLink& link = est.arch().chip_link;
  ExportTable ar{net + "all_reduce.csv",
                 {"num_workers", "devices_per_node", "collective", "size", "time_stats.all_reduce.median"},
                 {},
                 ""};
  ExportTable sr{net + "send_recv.csv",
                 {"num_workers", "devices_per_node", "collective", "size", "time_stats.send_recv.median"},
                 {},
                 ""};
  for (const std::int64_t t : token_grid(grid.max_tokens)) {
    const std::int64_t size = checked_mul(checked_mul(t, cfg.hidden, "size"), 2, "size");
    if (tp > 1)
      ar.rows.push_back(
          {tp, tp, std::string("all_reduce"), size, all_reduce(link, tp, f, t, cfg.hidden).seconds * 1e3});
    sr.rows.push_back(
        {std::int64_t{2}, std::int64_t{2}, std::string("send_recv"), size, send_recv(link, size).seconds * 1e3});
  }
  std::vector<ExportTable> out = {mlp, att, sr};
  if (tp > 1) out.push_back(ar);
  return out;
}

}  // namespace

std::vector<ExportTable> export_tables(ExportFormat format, cost::Estimator& est, const ModelConfig& cfg,
                                       const quant::Scheme& scheme, std::int64_t tp,
                                       const std::string& collective_dtype, const ExportGrid& grid) {
  check_range("--max-tokens", grid.max_tokens, kMaxTokens, "tokens per step; tenet-cost's limit");
  check_range("--max-seqs", grid.max_seqs, kMaxBatch, "sequences per step; tenet-cost's limit");
  check_range("--max-kv", grid.max_kv, kMaxTokens, "KV length; tenet-cost's limit");
  if (cfg.moe_layers > 0 && format == ExportFormat::kVidur)
    throw InputError(
        "export vidur: an MoE model has no table in Vidur's profiling CSVs (its mlp.csv is a dense MLP's: "
        "n_expanded_embd, use_gated_mlp, no experts); export llmservingsim writes its moe.csv");
  if (cfg.moe_layers > 0 && cfg.moe_layers != cfg.layers)
    throw InputError("export llmservingsim: an MoE model with dense layers too (" +
                     std::to_string(cfg.layers - cfg.moe_layers) +
                     " of them) is not exported yet: its dense.csv MLP rows would hold only those layers' MLPs "
                     "beside moe.csv, a split this export does not write; all-MoE models (Mixtral) are exported");
  if (cfg.moe_layers > 0 && tp > 1)
    throw InputError(
        "export llmservingsim: an MoE model's moe.csv is profiled at tp1 only (LLMServingSim scales it by its "
        "ep_size); export it with --tp 1");
  if (cfg.window_layers > 0 && grid.max_kv + grid.max_tokens > cfg.sliding_window)
    throw InputError("export: the sliding window " + std::to_string(cfg.sliding_window) +
                     " would cut the attention grid's keys; pass --max-kv and --max-tokens within it");
  Parallel p;
  p.tp = tp;
  const ModelConfig chip = shard_config(cfg, p);
  return format == ExportFormat::kVidur ? vidur(est, cfg, chip, scheme, tp, collective_dtype, grid)
                                        : llmservingsim(est, cfg, chip, scheme, tp, grid);
}

}  // namespace tenet_cost::model
