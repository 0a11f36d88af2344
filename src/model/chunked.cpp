// Chunked prefill with the running decode batch (docs/model.md "Chunked prefill"): a prompt of seq_len tokens runs
// in steps of at most `chunk` tokens, each step one set of GEMMs with the --batch decode rows (M = chunk + decode
// rows), attention per sequence at its own context.
#include <algorithm>

#include "plan_internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace {

const std::string kEntry(kChunkedPrefillEntry);

bool is_attention(const ModelGemm& g) {
  return g.shape.role == quant::GemmRole::kAttnQK || g.shape.role == quant::GemmRole::kAttnPV;
}

// The prompt's queries of one chunk over the keys of the chunks before it (a plain rectangle, no mask).
void prior_keys(std::vector<ModelGemm>& out, const ModelConfig& c, std::int64_t chunk, std::int64_t offset,
                const Phases& ph) {
  const std::int64_t rows = checked_mul(c.heads / c.kv_heads, chunk, "attention rows");
  const bool fused = ph.attention == Attention::kFused;
  const cost::GemmShape qk{c.kv_heads, rows, offset, c.head_dim, quant::GemmRole::kAttnQK, fused};
  const cost::GemmShape pv{c.kv_heads, rows, c.head_dim, offset, quant::GemmRole::kAttnPV, fused};
  out.push_back(ModelGemm{"attn_qk", kEntry, Phase::kOther, c.layers, qk, {}, GemmSource::kConfig});
  out.push_back(ModelGemm{"attn_pv", kEntry, Phase::kOther, c.layers, pv, {}, GemmSource::kConfig});
}

}  // namespace

std::vector<ModelGemm> chunk_step(const ModelConfig& c, const Phases& ph, std::int64_t chunk, std::int64_t offset,
                                  bool last) {
  const std::int64_t decode_rows = ph.batch;
  const std::int64_t rows = checked_add(chunk, decode_rows, "chunk step rows");
  Phases one = ph;
  one.batch = 1;
  // the linear GEMMs (and MoE routing) of the combined rows: one GEMM of M = chunk + decode rows each
  std::vector<ModelGemm> lin;
  detail::layer_gemms(lin, c, Phase::kPrefill, rows, 1, one, nullptr);
  std::vector<ModelGemm> out;
  for (auto& g : lin) {
    if (is_attention(g)) continue;
    g.entry = kEntry;
    g.phase = Phase::kOther;
    // logits: each decoding sequence's token and, after the prompt's last chunk, its first output token
    if (g.lm_head) g.shape.m = decode_rows + (last ? 1 : 0);
    out.push_back(g);
  }
  // attention per sequence at its own context: the chunk over the prompt so far (the keys before it, then its own
  // causal block), and each decoding sequence's one query over its context
  if (offset > 0) prior_keys(out, c, chunk, offset, ph);
  std::vector<ModelGemm> att;
  detail::attention(att, kEntry, Phase::kOther, c.layers, c.heads, c.kv_heads, c.head_dim, chunk, chunk,
                    GemmSource::kConfig, one);
  Phases decoding = ph;
  decoding.batch = decode_rows;
  detail::attention(att, kEntry, Phase::kOther, c.layers, c.heads, c.kv_heads, c.head_dim, 1, ph.context,
                    GemmSource::kConfig, decoding);
  out.insert(out.end(), att.begin(), att.end());
  return out;
}

void chunked_prefill(std::vector<ModelGemm>& out, const ModelConfig& c, const Phases& ph,
                     std::vector<std::string>* notes) {
  if (ph.chunk <= 0) return;
  if (c.window_layers > 0)
    throw InputError(
        "--chunk: a sliding-window model's chunked prefill is not modelled (the window cuts the keys of "
        "earlier chunks); drop --chunk");
  std::int64_t steps = 0;
  for (std::int64_t offset = 0; offset < ph.seq_len; offset += ph.chunk, ++steps) {
    const std::int64_t n = std::min(ph.chunk, ph.seq_len - offset);
    const auto step = chunk_step(c, ph, n, offset, offset + n >= ph.seq_len);
    out.insert(out.end(), step.begin(), step.end());
  }
  if (notes)
    notes->push_back("chunked_prefill (--chunk " + std::to_string(ph.chunk) + "): one prompt of " +
                     std::to_string(ph.seq_len) + " tokens in " + std::to_string(steps) + " steps of at most " +
                     std::to_string(ph.chunk) + " tokens, each with the " + std::to_string(ph.batch) +
                     " running decode rows at context " + std::to_string(ph.context) +
                     " in the same GEMMs (M = chunk + " + std::to_string(ph.batch) +
                     "); attention per sequence at its own context; its non-GEMM operators are not costed");
}

}  // namespace tenet_cost::model
