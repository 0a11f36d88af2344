// Parallelism over chips (docs/model.md "Parallelism over chips"): one chip's config under tensor and expert
// parallelism, the layers of each pipeline stage, and the collectives priced on the arch's chip links.
#include <algorithm>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace {

// Seconds of `steps` link steps of `bytes` each.
double link_seconds(const arch::ChipLink& link, std::int64_t steps, std::int64_t bytes) {
  return static_cast<double>(steps) * (link.latency_us * 1e-6 + static_cast<double>(bytes) / (link.gb_per_s * 1e9));
}

double link_joules(const arch::ChipLink& link, std::int64_t bytes) {
  return static_cast<double>(bytes) * 8.0 * link.pj_per_bit * 1e-12;
}

// Overlap of [a, a + n) with the last `count` of `total` layers.
std::int64_t last_overlap(std::int64_t a, std::int64_t n, std::int64_t count, std::int64_t total) {
  const std::int64_t lo = std::max(a, total - count), hi = a + n;
  return std::max<std::int64_t>(0, hi - lo);
}

}  // namespace

void CollectiveCost::add(const CollectiveCost& o, std::int64_t times) {
  bytes_per_chip =
      checked_add(bytes_per_chip, checked_mul(o.bytes_per_chip, times, "collective bytes"), "collective bytes");
  seconds += o.seconds * static_cast<double>(times);
  energy_j += o.energy_j * static_cast<double>(times);
}

CollectiveFormat collective_format(const quant::Scheme& s, const std::string& dtype) {
  CollectiveFormat f;
  if (dtype.empty()) {
    f.dtype = s.activation.dtype;
    f.bits = quant::dtype_bits(s.activation.dtype);
    const quant::Granularity g = s.activation.scale;
    // a dynamic scale is computed per chip and travels with its data; a static one is known to every chip
    if (s.dynamic_activation &&
        (g == quant::Granularity::kToken || g == quant::Granularity::kGroup || g == quant::Granularity::kTensor)) {
      f.scale = g;
      f.group = s.activation.group;
      f.scale_bits = s.activation.scale_bits;
    }
    return f;
  }
  static const std::vector<std::pair<const char*, const char*>> names = {{"fp32", "float32"},  {"fp16", "float16"},
                                                                         {"bf16", "bfloat16"}, {"fp8", "float8_e4m3fn"},
                                                                         {"int8", "int8"},     {"int4", "int4"}};
  for (const auto& [flag, name] : names)
    if (dtype == flag) {
      f.dtype = name;
      f.bits = quant::dtype_bits(name);
      f.from_scheme = false;
      if (f.bits < 16) {  // a quantized collective: one float32 scale per token travels with it
        f.scale = quant::Granularity::kToken;
        f.scale_bits = 32;
      }
      return f;
    }
  throw InputError("--collective-dtype: expected activation, fp32, fp16, bf16, fp8, int8 or int4, found '" + dtype +
                   "'");
}

std::int64_t chunk_bytes(const CollectiveFormat& f, std::int64_t rows, std::int64_t cols) {
  const std::int64_t elems = checked_mul(rows, cols, "collective elements");
  const std::int64_t bits = checked_mul(elems, f.bits, "collective bits");
  std::int64_t scales = 0;
  if (f.scale == quant::Granularity::kToken) scales = rows;
  else if (f.scale == quant::Granularity::kGroup) scales = checked_mul(rows, ceil_div(cols, f.group), "scales");
  else if (f.scale == quant::Granularity::kTensor) scales = 1;
  const std::int64_t scale_bits = checked_mul(scales, f.scale_bits, "collective scale bits");
  return ceil_div(checked_add(bits, scale_bits, "collective bits"), 8);
}

CollectiveCost all_reduce(const arch::ChipLink& link, std::int64_t n, const CollectiveFormat& f, std::int64_t rows,
                          std::int64_t cols) {
  CollectiveCost c;
  if (n <= 1) return c;
  if (cols % n != 0) throw InternalError("all_reduce: the columns must split into n chunks");
  const std::int64_t chunk = chunk_bytes(f, rows, cols / n);
  c.bytes_per_chip = checked_mul(2 * (n - 1), chunk, "collective bytes");
  const bool ring = link.topology == arch::ChipTopology::kRing;
  // ring: each of 2(n-1) steps sends one chunk to the next chip; fully connected: each of 2 steps sends n-1 chunks,
  // one per link, at once
  c.seconds = link_seconds(link, ring ? 2 * (n - 1) : 2, chunk);
  c.energy_j = link_joules(link, checked_mul(n, c.bytes_per_chip, "collective bytes"));
  return c;
}

CollectiveCost all_gather(const arch::ChipLink& link, std::int64_t n, const CollectiveFormat& f, std::int64_t rows,
                          std::int64_t cols_per_chip) {
  CollectiveCost c;
  if (n <= 1) return c;
  const std::int64_t chunk = chunk_bytes(f, rows, cols_per_chip);
  c.bytes_per_chip = checked_mul(n - 1, chunk, "collective bytes");
  c.seconds = link_seconds(link, link.topology == arch::ChipTopology::kRing ? n - 1 : 1, chunk);
  c.energy_j = link_joules(link, checked_mul(n, c.bytes_per_chip, "collective bytes"));
  return c;
}

CollectiveCost all_to_all(const arch::ChipLink& link, std::int64_t n, const CollectiveFormat& f,
                          std::int64_t rows_per_pair, std::int64_t cols) {
  CollectiveCost c;
  if (n <= 1) return c;
  const std::int64_t chunk = chunk_bytes(f, rows_per_pair, cols);
  const bool ring = link.topology == arch::ChipTopology::kRing;
  // ring: n-1 steps, step s forwards the n-s chunks still travelling to the next chip (n(n-1)/2 chunks per chip);
  // fully connected: one step, n-1 chunks over n-1 links at once
  const std::int64_t chunks = ring ? checked_mul(n, n - 1, "all-to-all chunks") / 2 : n - 1;
  c.bytes_per_chip = checked_mul(chunks, chunk, "collective bytes");
  c.seconds = static_cast<double>(ring ? n - 1 : 1) * link.latency_us * 1e-6 +
              static_cast<double>(ring ? c.bytes_per_chip : chunk) / (link.gb_per_s * 1e9);
  c.energy_j = link_joules(link, checked_mul(n, c.bytes_per_chip, "collective bytes"));
  return c;
}

CollectiveCost send_recv(const arch::ChipLink& link, std::int64_t bytes) {
  return CollectiveCost{bytes, link_seconds(link, 1, bytes), link_joules(link, bytes)};
}

ModelConfig shard_config(const ModelConfig& c, const Parallel& p, std::vector<std::string>* notes) {
  check_range("--tp", p.tp, 4096, "chips of a tensor-parallel group");
  check_range("--pp", p.pp, 4096, "pipeline stages");
  check_range("--ep", p.ep, 4096, "chips of an expert-parallel group");
  if (p.ep > 1 && c.experts == 0)
    throw InputError("--ep " + std::to_string(p.ep) + ": the model has no experts (expert parallelism is for MoE)");
  if (p.ep > 1 && p.ep != p.tp)
    throw InputError("--ep " + std::to_string(p.ep) +
                     ": expert parallelism runs over the tensor-parallel group (vLLM's enable_expert_parallel): give "
                     "--tp " +
                     std::to_string(p.ep) + " as well");
  ModelConfig s = c;
  s.notes.clear();
  const std::int64_t n = p.tp;
  auto div = [&](std::int64_t v, const char* field) {
    if (v % n != 0)
      throw InputError("--tp " + std::to_string(n) + ": " + field + " " + std::to_string(v) + " is not divisible by " +
                       std::to_string(n) + " (tensor parallelism splits it evenly over the chips; choose a divisor)");
    return v / n;
  };
  if (n > 1) {
    s.heads = div(c.heads, "num_attention_heads");
    s.kv_heads = div(c.kv_heads, "num_key_value_heads");
    div(c.hidden, "hidden_size");  // the all-reduce's chunks
    if (c.layers > c.moe_layers) s.intermediate = div(c.intermediate, "intermediate_size");
    if (c.moe_layers > 0 && p.ep == 1) s.expert_intermediate = div(c.expert_intermediate, "moe_intermediate_size");
    if (c.shared_intermediate > 0)
      s.shared_intermediate = div(c.shared_intermediate, "shared_expert_intermediate_size");
    s.vocab = ceil_div(c.vocab, n);
    if (notes && c.vocab % n != 0)
      notes->push_back("vocab-parallel embedding and lm_head: vocab_size " + std::to_string(c.vocab) + " padded to " +
                       std::to_string(s.vocab * n) + " (" + std::to_string(s.vocab) + " per chip)");
  }
  if (p.ep > 1) {
    if (c.experts % p.ep != 0)
      throw InputError("--ep " + std::to_string(p.ep) + ": " +
                       (c.experts_field.empty() ? std::string("the routed experts") : c.experts_field) + " " +
                       std::to_string(c.experts) + " is not divisible by " + std::to_string(p.ep) +
                       " (expert parallelism places whole experts, the same number on every chip; choose a divisor)");
    s.expert_shards = p.ep;
  }
  return s;
}

std::vector<std::int64_t> stage_layers(std::int64_t layers, std::int64_t pp) {
  if (pp > layers)
    throw InputError("--pp " + std::to_string(pp) + ": the model has " + std::to_string(layers) +
                     " layers, fewer than the stages");
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < pp; ++i) out.push_back(layers / pp + (i < layers % pp ? 1 : 0));
  return out;
}

ModelConfig stage_config(const ModelConfig& chip, std::int64_t first, std::int64_t layers, bool last) {
  ModelConfig s = chip;
  s.layers = layers;
  s.window_layers = last_overlap(first, layers, chip.window_layers, chip.layers);
  s.moe_layers = last_overlap(first, layers, chip.moe_layers, chip.layers);
  s.first_stage = first == 0;
  s.last_stage = last;
  return s;
}

}  // namespace tenet_cost::model
