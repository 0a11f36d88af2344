// The standard non-GEMM operators of a config's family (docs/model.md "Operators"): per phase, their element
// operations on the vector unit and the bytes they move, from the config's sizes.
#include <initializer_list>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace {

std::int64_t prod(std::initializer_list<std::int64_t> xs) {
  std::int64_t p = 1;
  for (const std::int64_t x : xs) p = checked_mul(p, x, "operator size");
  return p;
}

// Element operations per element (docs/model.md "Operators").
constexpr std::int64_t kNormOps = 4;     // square, accumulate, scale by 1/rms, multiply by the weight
constexpr std::int64_t kRotaryOps = 3;   // x·cos + rotate(x)·sin
constexpr std::int64_t kGatedOps = 5;    // silu(gate) (exp, add, divide, multiply) · up
constexpr std::int64_t kActOps = 4;      // gelu and friends, one pass
constexpr std::int64_t kReluOps = 1;     // max(x, 0)
constexpr std::int64_t kSoftmaxOps = 5;  // max, subtract, exp, sum, divide

void phase_ops(std::vector<ModelOp>& out, const ModelConfig& c, Phase phase, std::int64_t seq_tokens,
               std::int64_t kv_tokens, const Phases& ph) {
  const std::string entry = to_string(phase);
  const std::int64_t e = bytes_of(c.dtype);  // activation bytes
  const std::int64_t T = checked_mul(ph.batch, seq_tokens, "batch tokens");
  const std::int64_t H = c.hidden, L = c.layers;
  const std::int64_t TH = prod({T, H});
  auto op = [&](const char* name, std::int64_t calls, std::int64_t ops, std::int64_t read, std::int64_t write) {
    out.push_back(ModelOp{name, entry, phase, calls, cost::OpShape{ops, read, write}, GemmSource::kConfig});
  };
  if (c.first_stage) op("embedding", 1, 0, prod({TH, e}), prod({TH, e}));
  // per layer: two norms, rotary of q and k, the KV-cache append, softmax, activation, two residual adds
  op("norm", checked_mul(2, L, "calls"), prod({kNormOps, TH}), prod({TH + H, e}), prod({TH, e}));
  if (c.positions == Positions::kRotary) {
    const std::int64_t qk = prod({T, c.heads + c.kv_heads, c.head_dim});
    op("rotary", L, prod({kRotaryOps, qk}), prod({qk + prod({2, T, c.head_dim}), e}), prod({qk, e}));
  }
  const std::int64_t kv_new = prod({2, T, c.kv_heads, c.head_dim, e});
  op("kv_append", L, 0, kv_new, kv_new);
  // (query, key) pairs per sequence and head: causal prefill s(s+1)/2, decode the context (capped by a window)
  const bool fused = ph.attention == Attention::kFused;
  auto softmax = [&](std::int64_t calls, std::int64_t window) {
    const std::int64_t scores = prod({ph.batch, c.heads, attention_pairs(seq_tokens, kv_tokens, window)});
    op("softmax", calls, prod({kSoftmaxOps, scores}), fused ? 0 : prod({scores, e}), fused ? 0 : prod({scores, e}));
  };
  if (L - c.window_layers > 0) softmax(L - c.window_layers, 0);
  if (c.window_layers > 0) softmax(c.window_layers, c.sliding_window);
  // the MLP's activation: dense layers over T x intermediate, MoE layers over the routed rows and the shared MLP
  auto mlp_act = [&](std::int64_t calls, std::int64_t elems) {
    if (calls <= 0) return;
    if (c.gated_mlp) op("silu_mul", calls, prod({kGatedOps, elems}), prod({2, elems, e}), prod({elems, e}));
    else
      op("activation", calls, prod({c.activation == Activation::kRelu ? kReluOps : kActOps, elems}), prod({elems, e}),
         prod({elems, e}));
  };
  mlp_act(L - c.moe_layers, prod({T, c.intermediate}));
  if (c.moe_layers > 0)
    mlp_act(c.moe_layers,
            checked_add(prod({ceil_div(prod({T, c.experts_per_token}), c.expert_shards), c.expert_intermediate}),
                        prod({T, c.shared_intermediate}), "MoE activations"));
  op("residual_add", checked_mul(2, L, "calls"), TH, prod({2, TH, e}), prod({TH, e}));
  // once (the last pipeline stage): the final norm, then sampling over the last token's fp32 logits of each sequence
  if (!c.last_stage) return;
  op("final_norm", 1, prod({kNormOps, TH}), prod({TH + H, e}), prod({TH, e}));
  const std::int64_t logits = prod({ph.batch, c.vocab});
  op("sampling", 1, prod({kSoftmaxOps, logits}), prod({logits, 4}), prod({ph.batch, 4}));
}

}  // namespace

std::vector<ModelOp> operators_from_config(const ModelConfig& cfg, const Phases& ph) {
  std::vector<ModelOp> out;
  phase_ops(out, cfg, Phase::kPrefill, ph.seq_len, ph.seq_len, ph);
  phase_ops(out, cfg, Phase::kDecode, 1, ph.context, ph);
  return out;
}

}  // namespace tenet_cost::model
