// Checked ranges of the run's lengths and counts (docs/model.md "Checked ranges"): every token count and the
// batch within tenet-cost's limits, and the prompt / context within the config's max_position_embeddings.
#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

void check_range(const char* flag, std::int64_t value, std::int64_t limit, const char* what) {
  if (value >= 1 && value <= limit) return;
  throw InputError(std::string(flag) + " " + std::to_string(value) + ": expected 1 .. " + std::to_string(limit) + " (" +
                   what + ")");
}

void check_positions(const char* what, std::int64_t tokens, const Phases& ph, const std::optional<ModelConfig>& cfg,
                     std::vector<std::string>* notes) {
  if (!cfg || cfg->max_positions <= 0 || tokens <= cfg->max_positions) return;
  const std::string text = std::string(what) + " " + std::to_string(tokens) + " exceeds the config's " +
                           "max_position_embeddings " + std::to_string(cfg->max_positions);
  if (!ph.allow_long_context) throw InputError(text + " (pass --allow-long-context to cost it anyway)");
  if (notes) notes->push_back(text + ": costed as asked (--allow-long-context); the model was not trained that long");
}

void check_phases(const Phases& ph, const std::optional<ModelConfig>& cfg, std::vector<std::string>* notes) {
  check_range("--seq-len", ph.seq_len, kMaxTokens, "prefill tokens per sequence; tenet-cost's limit for token counts");
  check_range("--context", ph.context, kMaxTokens, "decode context per sequence; tenet-cost's limit for token counts");
  check_range("--batch", ph.batch, kMaxBatch, "sequences served together; tenet-cost's limit for the batch");
  if (ph.chunk != 0) check_range("--chunk", ph.chunk, kMaxTokens, "prompt tokens per chunked-prefill step");
  check_positions("--seq-len", ph.seq_len, ph, cfg, notes);
  check_positions("--context", ph.context, ph, cfg, notes);
}

}  // namespace tenet_cost::model
