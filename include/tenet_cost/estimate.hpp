// Two-level cost model of LLM GEMMs on a spatial accelerator (docs/model.md):
//  - PE array <-> buffer: TENET metrics of one buffer tile (engine, or the
//    proven closed forms of the preset dataflows), summed over the tiles;
//  - buffer <-> DRAM: closed forms of a tiled loop nest (tile factors and order),
//    with a working-set check against the buffer capacity.
// Whole-model totals per entry function (prefill at --seq-len, decode per token
// at --context) from a dump's workloads or from a Hugging Face config.json.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/workload.hpp"

namespace tenet_cost::estimate {

/// Buffer tile factors and loop order (outermost first, a permutation of "mnk").
/// 0 = choose automatically.
struct Tile {
  std::int64_t m = 0, n = 0, k = 0;
  std::string order;  // "" = choose
  bool operator==(const Tile&) const = default;
};
/// "m=128,n=256,k=512[,order=nmk]" (any subset); throws InputError.
Tile parse_tile(const std::string& text);

/// How the PE array <-> buffer level is evaluated.
enum class ArrayMethod {
  kAuto,        // the closed forms where they apply (os/ws on a systolic array), else the TENET engine
  kEngine,      // the TENET engine only
  kClosedForm,  // closed forms (preset os/ws dataflows on a systolic interconnect)
};
ArrayMethod parse_array_method(const std::string& text);

struct Options {
  Tile tile;                       // user tile (0 = auto per dim)
  ArrayMethod method = ArrayMethod::kAuto;
};

struct GemmShape {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
  quant::GemmRole role = quant::GemmRole::kLinear;
  bool operator==(const GemmShape&) const = default;
};

struct TensorCost {
  std::string name, role;
  std::int64_t bits_num = 16, bits_den = 1;
  std::string bits;                 // "4", "3.2"
  std::int64_t dram_elems = 0, dram_bytes = 0;      // buffer <-> DRAM (reads, or writes for outputs)
  std::int64_t buffer_elems = 0, buffer_bytes = 0;  // array <-> buffer (unique volume)
  std::int64_t total_elems = 0;     // accesses by the MACs (total volume)
};

struct GemmCost {
  GemmShape shape;
  std::int64_t macs = 0;
  std::int64_t time_stamps = 0;     // sum of |TD| over the tiles
  std::int64_t active_pes = 0;      // max over tiles
  std::string precision;            // MAC precision that runs
  std::int64_t mac_rate_num = 1, mac_rate_den = 1;  // MACs/PE/cycle as a fraction
  std::int64_t compute_cycles = 0, buffer_cycles = 0, dram_cycles = 0, dequant_cycles = 0, vector_cycles = 0;
  std::int64_t cycles = 0;          // max of the above (docs/model.md)
  std::string bound;                // which term is the max: compute|buffer|dram|dequant|vector
  std::int64_t dequant_ops = 0, vector_ops = 0;
  std::int64_t dram_bytes = 0, buffer_bytes = 0;
  double latency_s = 0, energy_j = 0, utilization = 0;
  Tile tile;                        // the tile used (order filled)
  std::int64_t tiles = 0;           // number of buffer tiles
  std::string array_method;         // "engine" | "closed-form"
  std::vector<TensorCost> tensors;
};

/// Evaluates GEMMs on one arch + dataflow; caches by (shape, scheme, tile).
class Estimator {
 public:
  Estimator(arch::Arch arch, arch::Dataflow dataflow, Options options = {});
  ~Estimator();
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  const GemmCost& gemm(const GemmShape& shape, const quant::Scheme& scheme);
  [[nodiscard]] const arch::Arch& arch() const;
  [[nodiscard]] const arch::Dataflow& dataflow() const;
  /// Engine / closed-form evaluations done so far (cache misses at the array level).
  [[nodiscard]] std::int64_t array_evaluations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Array-level metrics of one tile, as the cost model uses them.
struct TileMetrics {
  std::int64_t macs = 0, time_stamps = 0, active_pes = 0;
  std::map<std::string, std::int64_t> unique;  // per operand name
  std::map<std::string, std::int64_t> total;
};
/// Closed forms (os / ws on a systolic R x C array); throws InputError when not applicable.
TileMetrics closed_form_tile(const std::string& dataflow_kind, std::int64_t rows, std::int64_t cols,
                             std::int64_t tm, std::int64_t tn, std::int64_t tk,
                             const std::vector<quant::Operand>& ops);
/// The TENET problem of one tile (statement from the operands, mapping from the dataflow).
tenet::Problem tile_problem(const arch::Arch& arch, const arch::Dataflow& dataflow, std::int64_t tm,
                            std::int64_t tn, std::int64_t tk, const std::vector<quant::Operand>& ops);

// ------------------------------------------------------------- whole model

struct ModelConfig {
  std::string name, model_type;
  std::int64_t hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, layers = 0;
  bool tie_embeddings = false, gated_mlp = true;
  std::string dtype = "float16";
};
/// Hugging Face config.json (Llama / Mistral / Qwen2 / GPT-NeoX-like).
ModelConfig parse_hf_config(const std::string& text, const std::string& filename);

/// One GEMM of the model with its call count in one entry.
struct ModelGemm {
  std::string function;   // prim_func name, or q_proj/... for config workloads
  std::string entry;      // "prefill" | "decode" | a dump's entry name
  std::string phase;      // "prefill" | "decode"
  std::int64_t calls = 1;
  GemmShape shape;
  std::optional<quant::Scheme> dump_scheme;  // the dump's own quantization (workloads of a dump)
  std::string source = "config";             // "tir" | "synthesized" | "config"
  bool lm_head = false;                      // the final projection (schemes may leave it unquantized)
};

struct Phases {
  std::int64_t seq_len = 2048;   // prefill tokens
  std::int64_t context = 2048;   // decode context length
  std::map<std::string, std::int64_t> bindings;  // --bind
};

std::vector<ModelGemm> workloads_from_config(const ModelConfig& cfg, const Phases& phases);
/// From extracted workloads: binds symbolic dims per entry (prefill: n, seq_len, m, total_seq_len -> seq_len;
/// decode: total_seq_len, n, m -> context; batch_size, nseq -> 1), synthesizes attention from
/// AttentionSites (heads from the site or `cfg`). Throws InputError on unbound dims.
std::vector<ModelGemm> workloads_from_extract(const ExtractResult& extracted, const Phases& phases,
                                              const std::optional<ModelConfig>& cfg);
/// "prefill" | "decode" | "" for an entry name.
std::string phase_of_entry(const std::string& entry);

struct EntryTotals {
  std::int64_t macs = 0, cycles = 0, dram_bytes = 0, scale_dram_bytes = 0, buffer_bytes = 0;
  double latency_s = 0, energy_j = 0;
};

struct ModelResult {
  std::vector<std::pair<ModelGemm, GemmCost>> rows;   // in workload order
  std::map<std::string, EntryTotals> totals;          // by entry
  std::map<std::string, std::string> entry_phase;
};

/// Evaluate every workload (scheme: `scheme` when given, else the dump's, else q0f16).
ModelResult run_model(Estimator& est, const std::vector<ModelGemm>& gemms, const std::optional<quant::Scheme>& scheme);

}  // namespace tenet_cost::estimate
