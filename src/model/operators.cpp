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
constexpr std::int64_t kActOps = 4;      // gelu / relu and friends, one pass
constexpr std::int64_t kSoftmaxOps = 5;  // max, subtract, exp, sum, divide

void phase_ops(std::vector<ModelOp>& out, const ModelConfig& c, Phase phase, std::int64_t seq_tokens,
               std::int64_t kv_tokens, const Phases& ph) {
  const std::string entry = to_string(phase);
  const std::int64_t e = c.dtype == "float32" ? 4 : 2;  // activation bytes
  const std::int64_t T = checked_mul(ph.batch, seq_tokens, "batch tokens");
  const std::int64_t H = c.hidden, L = c.layers;
  const std::int64_t TH = prod({T, H});
  auto op = [&](const char* name, std::int64_t calls, std::int64_t ops, std::int64_t read, std::int64_t write) {
    out.push_back(ModelOp{name, entry, phase, calls, cost::OpShape{ops, read, write}, GemmSource::kConfig});
  };
  op("embedding", 1, 0, prod({TH, e}), prod({TH, e}));
  // per layer: two norms, rotary of q and k, the KV-cache append, softmax, activation, two residual adds
  op("norm", checked_mul(2, L, "calls"), prod({kNormOps, TH}), prod({TH + H, e}), prod({TH, e}));
  if (c.model_type != "gpt2") {
    const std::int64_t qk = prod({T, c.heads + c.kv_heads, c.head_dim});
    op("rotary", L, prod({kRotaryOps, qk}), prod({qk + prod({2, T, c.head_dim}), e}), prod({qk, e}));
  }
  const std::int64_t kv_new = prod({2, T, c.kv_heads, c.head_dim, e});
  op("kv_append", L, 0, kv_new, kv_new);
  // (query, key) pairs per sequence and head: causal prefill s(s+1)/2, decode the context
  const std::int64_t pairs = seq_tokens == kv_tokens && seq_tokens > 1
                                 ? checked_narrow(static_cast<i128>(seq_tokens) * (seq_tokens + 1) / 2, "pairs")
                                 : prod({seq_tokens, kv_tokens});
  const std::int64_t scores = prod({ph.batch, c.heads, pairs});
  const bool fused = ph.attention == Attention::kFused;
  op("softmax", L, prod({kSoftmaxOps, scores}), fused ? 0 : prod({scores, e}), fused ? 0 : prod({scores, e}));
  const std::int64_t TI = prod({T, c.intermediate});
  if (c.gated_mlp) op("silu_mul", L, prod({kGatedOps, TI}), prod({2, TI, e}), prod({TI, e}));
  else op("activation", L, prod({kActOps, TI}), prod({TI, e}), prod({TI, e}));
  op("residual_add", checked_mul(2, L, "calls"), TH, prod({2, TH, e}), prod({TH, e}));
  // once: the final norm, then sampling over the last token's fp32 logits of each sequence
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
