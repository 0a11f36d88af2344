// What a plan keeps in DRAM at once (docs/model.md "Memory capacity"): weights, KV cache, activations.
#include <algorithm>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace {

// Bytes of `elems` elements stored in `f`, with its group / 2-D block scales and zero points (per-channel and
// per-tensor scales are left out: at most one per output channel).
std::int64_t stored_bytes(std::int64_t elems, const quant::TensorFormat& f) {
  const i128 bits = static_cast<i128>(elems) * f.storage_bits;
  std::int64_t bytes = checked_narrow((bits + f.elems_per_storage * 8 - 1) / (f.elems_per_storage * 8), "bytes");
  std::int64_t groups = 0;
  if (f.scale == quant::Granularity::kGroup && f.group > 0) groups = (elems + f.group - 1) / f.group;
  if (f.scale == quant::Granularity::kBlock && f.block_n > 0 && f.block_k > 0)
    groups = (elems + f.block_n * f.block_k - 1) / (f.block_n * f.block_k);
  const std::int64_t meta_bits = f.scale_bits + (f.zero_point ? f.zero_bits : 0);
  return checked_add(bytes, checked_narrow((static_cast<i128>(groups) * meta_bits + 7) / 8, "bytes"), "bytes");
}

quant::TensorFormat fp16() { return quant::TensorFormat{}; }

}  // namespace

std::int64_t Footprint::total() const {
  return checked_add(checked_add(weight_bytes, kv_bytes, "footprint"), activation_bytes, "footprint");
}

Footprint footprint(const Model& model, const std::optional<quant::Scheme>& scheme) {
  Footprint f;
  f.scheme = scheme ? scheme->name : "";
  // the decode entry holds the model's weights and its KV cache; a dump without one: its largest entry
  std::map<std::string, std::int64_t> weights_by_entry, kv_by_entry;
  std::string decode_entry;
  for (const auto& g : model.gemms) {
    const std::int64_t batch_elems =
        checked_mul(g.shape.batch, checked_mul(g.shape.n, g.shape.k, "elements"), "elements");
    const std::int64_t elems = checked_mul(g.calls, batch_elems, "elements");
    if (g.shape.role == quant::GemmRole::kLinear) {
      auto& w = weights_by_entry[g.entry];
      w = checked_add(w, stored_bytes(elems, scheme_of(g, scheme).weight), "weight bytes");
      if (g.phase == Phase::kDecode) decode_entry = g.entry;
    } else if (g.shape.role == quant::GemmRole::kAttnQK && g.phase == Phase::kDecode) {
      // K: batch (sequences x KV heads) x keys x head_dim, and V of the same size
      const auto& kv = scheme_of(g, scheme).kv;
      auto& k = kv_by_entry[g.entry];
      k = checked_add(k, checked_mul(2, stored_bytes(elems, kv ? *kv : fp16()), "KV bytes"), "KV bytes");
    }
    const std::int64_t rows = checked_mul(g.shape.batch, g.shape.m, "activations");
    const std::int64_t act = checked_mul(2, checked_mul(rows, checked_add(g.shape.k, g.shape.n, "a"), "a"), "a");
    f.activation_bytes = std::max(f.activation_bytes, act);
  }
  if (!decode_entry.empty()) f.kv_bytes = kv_by_entry[decode_entry];
  if (model.config) {
    const std::int64_t params = parameter_count(*model.config);
    f.weight_bytes = stored_bytes(params, scheme ? scheme->weight : fp16());
  } else if (!decode_entry.empty()) {
    f.weight_bytes = weights_by_entry[decode_entry];
  } else {
    for (const auto& [entry, w] : weights_by_entry) f.weight_bytes = std::max(f.weight_bytes, w);
  }
  return f;
}

std::string capacity_message(const Footprint& f, std::int64_t capacity) {
  return "weights " + std::to_string(f.weight_bytes) + " + KV cache " + std::to_string(f.kv_bytes) + " + activations " +
         std::to_string(f.activation_bytes) + " = " + std::to_string(f.total()) + " bytes exceed dram.bytes " +
         std::to_string(capacity) +
         (f.scheme.empty() ? std::string(" (the dump's own quantization)") : " (" + f.scheme + ")");
}

}  // namespace tenet_cost::model
