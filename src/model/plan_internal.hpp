// Pieces of the config plan shared by plan.cpp and chunked.cpp (private to src/model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tenet_cost/model.hpp"

namespace tenet_cost::model::detail {

/// QK^T and PV of `calls` attention layers for `ph.batch` sequences of q_tokens queries over kv_tokens keys (causal
/// when the queries are the keys), `window` keys at most (0: none); docs/model.md "Attention".
void attention(std::vector<ModelGemm>& out, const std::string& entry, Phase phase, std::int64_t calls,
               std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t q_tokens,
               std::int64_t kv_tokens, GemmSource source, const Phases& ph, std::int64_t window = 0);

/// One phase of a config's layers: the linear GEMMs of ph.batch x seq_tokens rows, attention over kv_tokens keys,
/// the lm_head of ph.batch rows; the assumptions in `notes` when given.
void layer_gemms(std::vector<ModelGemm>& out, const ModelConfig& c, Phase phase, std::int64_t seq_tokens,
                 std::int64_t kv_tokens, const Phases& ph, std::vector<std::string>* notes);

}  // namespace tenet_cost::model::detail
