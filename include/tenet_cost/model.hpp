// The LLM as a whole (docs/model.md): Hugging Face config reading, the plan of
// GEMMs per entry function (from a dump's extracted workloads or from a config),
// the bindings policy for symbolic dims, running a plan on a cost::Estimator
// (per-entry totals) and the scheme comparison, each with its result type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tenet_cost/cost.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::model {

// ------------------------------------------------------------- configs

/// The MLP's activation (gated: act(gate) * up; ungated: act(fc1)).
enum class Activation { kSilu, kGelu, kRelu };
std::string to_string(Activation a);  // "silu" | "gelu" | "relu"

/// The float type of a config's weights and activations (torch_dtype; another value is read as kFloat16, said in
/// the notes).
enum class ModelDtype { kFloat16, kBFloat16, kFloat32 };
std::string to_string(ModelDtype d);  // "float16" | "bfloat16" | "float32"
std::int64_t bytes_of(ModelDtype d);  // 2 | 2 | 4
/// How a config's positions enter attention: rotary embeddings of q and k (a rotary operator per layer), or learned
/// absolute position embeddings added once (GPT-2: no per-layer operator).
enum class Positions { kRotary, kLearned };

struct ModelConfig {
  std::string name, model_type;  // name: _name_or_path, else model_type, else "" (the file stem names it); shown only
  std::int64_t hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, layers = 0;
  bool tie_embeddings = false, gated_mlp = true;
  ModelDtype dtype = ModelDtype::kFloat16;
  Positions positions = Positions::kRotary;  // from the family (model_type), read once by parse_hf_config
  Activation activation = Activation::kSilu;
  // Mixture of experts (docs/model.md "Model families"); experts = 0: every layer is dense.
  std::int64_t experts = 0, experts_per_token = 0;  // routed experts E, experts per token k
  std::string experts_field;                        // the config's name of E (num_local_experts, ...)
  std::int64_t expert_intermediate = 0;             // width of one routed expert's gated MLP
  std::int64_t shared_intermediate = 0;             // width of the shared experts' gated MLP (0: none)
  bool shared_expert_gate = false;                  // Qwen2-MoE: sigmoid(hidden -> 1) gate of the shared expert
  std::int64_t moe_layers = 0;                      // layers whose MLP is the MoE block (the rest are dense)
  // Sliding-window attention: `window_layers` layers attend to at most `sliding_window` keys (0: none).
  std::int64_t sliding_window = 0, window_layers = 0;
  /// The longest sequence the model's positions cover (max_position_embeddings / n_positions; 0: not given).
  std::int64_t max_positions = 0;
  // One chip's share of a deployment (docs/model.md "Parallelism over chips"; set by shard_config, never read from a
  // file): the routed experts are spread over `expert_shards` chips (whole experts each, this chip's share of the
  // routed rows); a pipeline stage that is not the first has no embedding, one that is not the last no final norm,
  // lm_head or sampling.
  std::int64_t expert_shards = 1;
  bool first_stage = true, last_stage = true;
  std::vector<std::string> notes;  // assumptions of the reading the output states (bf16, an unknown family)
};
/// Hugging Face config.json: Llama / Mistral / Mixtral / Qwen2 / Qwen2-MoE / DeepSeek-MoE / Phi-3 / Gemma (gated
/// MLPs), GPT-2 / GPT-NeoX / OPT / Falcon (ungated). A field that changes the structure and is not modelled (MLA's
/// kv_lora_rank, ...) is an InputError naming it.
ModelConfig parse_hf_config(const std::string& text, const std::string& filename);
/// parse_hf_config of a file.
ModelConfig load_hf_config(const std::string& path);
/// Parameters: the GEMM weights (all experts), the token embedding (once when tied) and the norm weights; no
/// biases, no learned position embeddings.
std::int64_t parameter_count(const ModelConfig& cfg);
/// Expected distinct experts hit when `tokens` tokens each pick `k` of `experts` experts uniformly and
/// independently: E·(1 - (1 - k/E)^T) (an expectation, a double).
double expected_experts(std::int64_t experts, std::int64_t k, std::int64_t tokens);
/// The experts a plan loads: expected_experts rounded to the nearest integer, within [k, min(E, T·k)].
std::int64_t experts_touched(std::int64_t experts, std::int64_t k, std::int64_t tokens);
/// (query, key) pairs of one sequence and head: causal prefill of `q` tokens (keys = queries) or decode (q = 1)
/// over `kv` keys, each query seeing at most `window` keys (0: no window).
std::int64_t attention_pairs(std::int64_t q, std::int64_t kv, std::int64_t window);

// ------------------------------------------------------------- the plan

/// What an entry function runs: prefill (a prompt) or decode (one token), or neither.
enum class Phase { kPrefill, kDecode, kOther };
/// "prefill" | "decode" | "" (the JSON contract's spelling).
std::string to_string(Phase p);
/// The phase of an entry name: *prefill*, encoding, *encode* -> prefill; *decode*, decoding -> decode.
Phase phase_of_entry(const std::string& entry);

/// How attention runs (docs/model.md "Attention"): fused keeps the score matrix on chip (FlashAttention-style);
/// unfused writes it to DRAM and reads it back, with a softmax pass between.
enum class Attention { kFused, kUnfused };
/// "fused" | "unfused"; throws InputError otherwise.
Attention parse_attention(const std::string& text);
std::string to_string(Attention a);
/// Query block of causal prefill attention: the key <= query triangle is split into rectangles down to diagonal
/// blocks of this many queries, which run whole (masked) while only their key <= query pairs count as MACs.
inline constexpr std::int64_t kCausalBlock = 64;

/// Where a GEMM of the plan comes from.
enum class GemmSource { kTir, kRelax, kPacked, kSynthesized, kConfig, kShape };
std::string to_string(GemmSource s);  // "tir" | "relax" | "packed" | "synthesized" | "config" | "shape" (--gemm)

/// One GEMM of the model with its call count in one entry.
struct ModelGemm {
  std::string function;   // prim_func name, or q_proj/... for config workloads
  std::string entry;      // "prefill" | "decode" | a dump's entry name
  Phase phase = Phase::kOther;
  std::int64_t calls = 1;
  cost::GemmShape shape;
  std::optional<quant::Scheme> dump_scheme;  // the dump's own quantization (workloads of a dump)
  GemmSource source = GemmSource::kConfig;
  bool lm_head = false;                      // the final projection (schemes may leave it unquantized)
  /// A diagonal block of causal attention: it runs whole, but only its key <= query pairs are MACs
  /// (b(b+1)/2 of b·b, b = the block's keys).
  bool causal_diagonal = false;
};

/// A non-GEMM operator of the plan (docs/model.md "Operators") with its call count in one entry.
struct ModelOp {
  std::string function;  // rms_norm, rotary, silu_mul, softmax, residual_add, embedding, sampling, kv_append, ...
  std::string entry;
  Phase phase = Phase::kOther;
  std::int64_t calls = 1;
  cost::OpShape shape;
  GemmSource source = GemmSource::kConfig;
};

/// Parallelism over chips (docs/model.md "Parallelism over chips"): tensor parallelism over `tp` chips (Megatron:
/// QKV and gate/up column-parallel, O and down row-parallel with an all-reduce after each, vocab-parallel embedding
/// and lm_head), `pp` pipeline stages of consecutive layers, expert parallelism over `ep` chips of the TP group.
struct Parallel {
  std::int64_t tp = 1, pp = 1, ep = 1;
  std::int64_t micro_batches = 0;  // pipeline micro-batches per step (0: the largest divisor of the batch <= pp)
  /// The element type of the row-parallel all-reduces ("" = the scheme's activation format; docs/model.md)
  std::string collective_dtype;
  [[nodiscard]] std::int64_t chips() const { return tp * pp; }
  [[nodiscard]] bool any() const { return tp > 1 || pp > 1 || ep > 1; }
};

/// The bindings policy: prefill runs `batch` sequences of --seq-len tokens, decode one token for each of `batch`
/// sequences at --context; the user's --bind wins.
struct Phases {
  std::int64_t seq_len = 2048;  // prefill tokens per sequence
  std::int64_t context = 2048;  // decode context length per sequence
  std::int64_t batch = 1;       // sequences served together (--batch)
  Attention attention = Attention::kFused;
  /// --allow-long-context: a prompt or context beyond the config's max_position_embeddings is costed (and said in
  /// the notes) instead of refused
  bool allow_long_context = false;
  /// --chunk C (0: off): a config plan adds the entry chunked_prefill, one prompt of seq_len tokens in steps of at
  /// most C tokens with the `batch` running decode rows in the same GEMMs (docs/model.md "Chunked prefill")
  std::int64_t chunk = 0;
  /// --tp / --pp / --ep: a deployment over chips (compare and export cost it; the plan itself is one accelerator's)
  Parallel parallel;
  std::map<std::string, std::int64_t> bindings;  // --bind
  /// --calls NAME=N: calls of a function of a module without a Relax entry (default 1; docs/model.md "Any dump")
  std::map<std::string, std::int64_t> calls;
  /// --entry NAME (repeatable): the Relax entries of a dump to cost (default: docs/model.md "Entries")
  std::vector<std::string> entries;
  /// Entries that run no phase whatever their name: the file's stem under which a module without a Relax entry
  /// runs (`my_decode_kernel.py` is no decode; docs/model.md "Any dump"). Set by plan_from_extract.
  std::set<std::string> phaseless;
  /// The phase of an entry: none for `phaseless`, else phase_of_entry.
  [[nodiscard]] Phase phase_of(const std::string& entry) const;
  /// The symbol values of an entry of `phase` (prefill: n, m, seq_len, total_seq_len, ... -> seq_len; decode: ->
  /// context; batch_size, nseq, b, reserved_nseq -> batch; vocab_size from the config), then the user's bindings.
  /// `packed`: a prefill entry that packs the batch's tokens along one axis (MLC's batch_prefill): the length
  /// symbols are batch x seq_len.
  [[nodiscard]] std::map<std::string, std::int64_t> symbols(Phase phase, const std::optional<ModelConfig>& cfg,
                                                            bool packed = false) const;
};

/// The largest token count (--seq-len, --context, --prompt-len, --gen-len) and batch (--batch) tenet-cost costs.
inline constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;  // 16,777,216
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 16;   // 65,536
/// A length or count in 1 .. `limit`; otherwise an InputError naming the flag and the limit ("--context
/// 100000000000: expected 1 .. 16777216 (tenet-cost's limit for token counts)").
void check_range(const char* flag, std::int64_t value, std::int64_t limit, const char* what);
/// --seq-len, --context and --batch within their limits, and the prompt / context within the config's
/// max_position_embeddings (unless allow_long_context: then a note in `notes`, when given).
void check_phases(const Phases& ph, const std::optional<ModelConfig>& cfg, std::vector<std::string>* notes = nullptr);
/// `tokens` (--context, --seq-len, --prompt-len + --gen-len) against the config's max_position_embeddings.
void check_positions(const char* what, std::int64_t tokens, const Phases& ph, const std::optional<ModelConfig>& cfg,
                     std::vector<std::string>* notes);

/// An MLC-LLM mlc-chat-config.json (docs/model.md "MLC chat config"): the model config MLC compiled (its
/// `model_config` block, read as a Hugging Face config with the top level's model_type) and the build's settings.
/// An integer MLC leaves unset (-1, null, absent) is 0 here; the shards and stages are at least 1.
struct MlcChatConfig {
  ModelConfig model;
  std::string model_type, quantization;  // MLC's names (llama, q4f16_1)
  std::int64_t context_window = 0, prefill_chunk = 0, sliding_window = 0, max_batch = 0;
  std::int64_t tensor_parallel_shards = 1, pipeline_parallel_stages = 1;
};
MlcChatConfig parse_mlc_chat_config(const std::string& text, const std::string& filename);
MlcChatConfig load_mlc_chat_config(const std::string& path);
/// What the plan takes from the build and what it cannot model yet (prefill chunks, tensor / pipeline parallelism,
/// a batch over max_batch_size), as notes; --context over the build's context_window_size is an InputError.
std::vector<std::string> mlc_notes(const MlcChatConfig& m, const Phases& ph);

/// The GEMMs of a config's plan; `notes` receives its assumptions (MoE routing, sliding window).
std::vector<ModelGemm> workloads_from_config(const ModelConfig& cfg, const Phases& phases,
                                             std::vector<std::string>* notes = nullptr);
/// The entry of a config plan's chunked prefill (--chunk).
inline constexpr std::string_view kChunkedPrefillEntry = "chunked_prefill";
/// One chunked-prefill step (entry kChunkedPrefillEntry, Phase::kOther): the linear GEMMs of chunk + ph.batch rows (one
/// GEMM each, M = the combined rows; MoE routing of those tokens), lm_head of the ph.batch decode rows (+1 after the
/// prompt's `last` chunk), the chunk's attention over the `offset` prompt keys before it and its own causal block,
/// and each decoding sequence's query over ph.context keys.
std::vector<ModelGemm> chunk_step(const ModelConfig& cfg, const Phases& ph, std::int64_t chunk, std::int64_t offset,
                                  bool last);
/// Every step of the prompt's chunked prefill (nothing when ph.chunk = 0); its assumptions in `notes`.
void chunked_prefill(std::vector<ModelGemm>& out, const ModelConfig& cfg, const Phases& ph,
                     std::vector<std::string>* notes);
/// From extracted workloads: binds symbolic dims per entry (Phases::symbols), synthesizes attention from
/// AttentionSites (heads from the site or `cfg`). Throws InputError on unbound dims.
/// --batch N > 1: entries with a batch symbol run the N sequences per call; other entries run once per sequence
/// (calls x N), said in `notes` when given.
std::vector<ModelGemm> workloads_from_extract(const ExtractResult& extracted, const Phases& phases,
                                              const std::optional<ModelConfig>& cfg,
                                              std::vector<std::string>* notes = nullptr);

/// The standard non-GEMM operators of a config's family per phase (norms, rotary, activation·mul, residual adds,
/// embedding gather, KV-cache append, softmax — on chip when fused —, final norm, sampling head).
std::vector<ModelOp> operators_from_config(const ModelConfig& cfg, const Phases& phases);

/// A named plan.
struct Model {
  std::string name;
  std::vector<ModelGemm> gemms;
  std::vector<ModelOp> ops;        // non-GEMM operators (a config's family, a dump's non-GEMM prim_funcs)
  std::vector<std::string> notes;  // assumptions of the plan the output states (e.g. entries run per sequence)
  std::optional<ModelConfig> config =
      std::nullopt;  // the config a config plan was built from (its weights: all experts)
};
/// The plan of a dump already extracted (named after `path`'s file name): its GEMMs, convolutions (as implicit
/// GEMMs) and non-GEMM operators per entry; a module without a Relax entry runs each once (or Phases::calls times)
/// under an entry named after the file's stem. Throws when it has no GEMM.
Model plan_from_extract(const std::string& path, const ExtractResult& extracted, const Phases& phases,
                        const std::optional<ModelConfig>& cfg);
/// The plan of a dump (TVMScript or TVM JSON); `cfg` gives heads for attention. Throws when it has no GEMM.
Model plan_from_dump(const std::string& path, const Phases& phases, const std::optional<ModelConfig>& cfg);
/// --calls NAME=N items (repeatable) -> counts; throws InputError on a malformed or repeated item.
std::map<std::string, std::int64_t> parse_calls(const std::vector<std::string>& items);
/// --gemm MxNxK[xB]: a plain GEMM shape (all four positive; B = batch, default 1). Throws InputError otherwise.
cost::GemmShape parse_gemm_shape(const std::string& text);
/// A plan of plain shapes (--gemm, no dump): each GEMM once under the entry "gemm".
Model plan_from_shapes(const std::vector<std::string>& shapes, const Phases& phases);
/// The plan of a config; the model is named after the config's folder.
Model plan_from_config(const std::string& config_path, const ModelConfig& cfg, const Phases& phases);
/// The shipped default model (<workloads_dir>/llama-2-7b/q0f16.py with its config.json).
Model default_model(const std::string& workloads_dir, const Phases& phases);
/// The plan at given phases (rebuilt per decode context of a request; a config's plan, or a dump's from its one
/// extraction), with the config it reads (for max_position_embeddings), if any.
using PlanAt = std::function<Model(const Phases&)>;
struct PlanSource {
  PlanAt at;
  std::optional<ModelConfig> config;
};
/// The default model's source: its dump extracted once, its config.
PlanSource default_plan_source(const std::string& workloads_dir);
/// A dump's source: extracted once (named after `path`), with `cfg` for heads.
PlanSource dump_plan_source(const std::string& path, const std::optional<ModelConfig>& cfg);
/// What a plan keeps in DRAM at once under one scheme (docs/model.md "Memory capacity").
struct Footprint {
  std::string scheme;  // the scheme's name ("" = each GEMM's own)
  std::int64_t weight_bytes = 0, kv_bytes = 0, activation_bytes = 0;
  [[nodiscard]] std::int64_t total() const;
};
/// Weights (a config plan: every parameter incl. all experts; a dump: the weights of its decode entry's GEMMs, else
/// of its largest entry) at the scheme's weight width with its group / block scales, the KV cache of the decode
/// attention (`batch` sequences at --context, window-capped, at the scheme's KV width), and the largest GEMM's
/// input + output activations at 16 bits.
Footprint footprint(const Model& model, const std::optional<quant::Scheme>& scheme);
/// "weights W + KV cache K + activations A = T bytes exceed dram.bytes C (scheme S)".
std::string capacity_message(const Footprint& f, std::int64_t capacity);

/// The schemes `compare` runs when --quant is not given.
const std::vector<std::string>& default_schemes();

// ------------------------------------------------------------- running

/// Per entry: GEMMs and non-GEMM operators run one after another; the plain fields are the sums of both, the
/// non_gemm_* fields the operators' part.
struct EntryTotals {
  std::int64_t macs = 0, cycles = 0, dram_bytes = 0, scale_dram_bytes = 0, buffer_bytes = 0;
  double latency_s = 0, energy_j = 0;
  std::int64_t non_gemm_cycles = 0, non_gemm_dram_bytes = 0, non_gemm_ops = 0;
  double non_gemm_latency_s = 0, non_gemm_energy_j = 0;
  cost::EnergyByTerm energy_by_term;  // GEMMs and operators, x calls; sums to energy_j
};

struct ModelResult {
  std::vector<std::pair<ModelGemm, cost::GemmCost>> rows;   // in workload order
  std::vector<std::pair<ModelOp, cost::OpCost>> op_rows;    // non-GEMM operators, in plan order
  std::map<std::string, EntryTotals> totals;                // by entry
  std::map<std::string, Phase> entry_phase;
};

/// The scheme a GEMM runs under: `scheme` when given, else the dump's, else q0f16.
const quant::Scheme& scheme_of(const ModelGemm& g, const std::optional<quant::Scheme>& scheme);
/// The role a GEMM is costed with under scheme `s`: an lm_head the scheme leaves unquantized is kLinearUnquantized.
quant::GemmRole cost_role(const ModelGemm& g, const quant::Scheme& s);
/// One GEMM's cost on `est` under `scheme` (scheme_of, cost_role; a causal diagonal block counts its key <= query
/// MACs only).
cost::GemmCost gemm_cost(cost::Estimator& est, const ModelGemm& g, const std::optional<quant::Scheme>& scheme);
/// Append a GEMM's row (its cost per call) and add it x calls to its entry's totals.
void add_gemm(ModelResult& r, const ModelGemm& g, const cost::GemmCost& c);
/// Append an operator's row and add it x calls to its entry's totals.
void add_op(ModelResult& r, const ModelOp& op, const cost::OpCost& c);
/// Evaluate every workload.
ModelResult run_model(cost::Estimator& est, const std::vector<ModelGemm>& gemms,
                      const std::optional<quant::Scheme>& scheme);
/// Evaluate every GEMM and operator of a plan.
ModelResult run_model(cost::Estimator& est, const Model& model, const std::optional<quant::Scheme>& scheme);
/// Evaluate every GEMM and operator of a plan, GEMM i on `est_for(i)` (each GEMM its own dataflow: the replay of a
/// `search --per-gemm` plan), the operators on `arch`. Same totals as run_model when est_for is one estimator.
ModelResult run_model(const std::function<cost::Estimator&(std::size_t)>& est_for, const arch::Arch& arch,
                      const Model& model, const std::optional<quant::Scheme>& scheme);

/// What every estimate / compare result states about its run.
struct RunInfo {
  std::string model, arch, dataflow;
  std::int64_t seq_len = 0, context = 0;
  std::int64_t batch = 1;
  Attention attention = Attention::kFused;
  std::vector<std::string> notes;  // the plan's notes
  /// the model has GEMMs or operators of that phase (the views show a phase's columns and charts only then)
  bool has_prefill = false, has_decode = false;
};
/// What every output states about the run: the model's and arch's names, the dataflow (or candidate set), the
/// phases' parameters, the plan's notes and which phases the model has.
RunInfo run_info(const Model& model, std::string arch, std::string dataflow, const Phases& phases);
RunInfo run_info(const Model& model, const cost::Estimator& est, const Phases& phases);

struct EstimateResult {
  RunInfo info;
  std::optional<quant::Scheme> scheme;  // --quant (nullopt: each GEMM's own)
  ModelResult result;
};
EstimateResult estimate(cost::Estimator& est, const Model& model, const Phases& phases,
                        const std::optional<quant::Scheme>& scheme);

// ------------------------------------------------------------- compare

struct PhaseSum {
  double latency_s = 0, energy_j = 0;
  std::int64_t dram_bytes = 0, scale_dram_bytes = 0;
  double non_gemm_latency_s = 0, non_gemm_energy_j = 0;  // the operators' part of latency_s, energy_j
  std::int64_t non_gemm_dram_bytes = 0;                  // and of dram_bytes
  cost::EnergyByTerm energy_by_term;                     // sums to energy_j
};

/// An entry that is neither prefill nor decode (a kernel file, --gemm shapes, a custom entry), with its ratios
/// against the first row's same entry.
struct EntrySum {
  std::string entry;
  PhaseSum sum;
  double speedup_vs_first = 0, traffic_ratio_vs_first = 0;
};

// ------------------------------------------------------------- requests

/// Whole requests (docs/model.md "Requests"): each of the batch's N sequences is a request of a `prompt_len`-token
/// prompt and `gen_len` output tokens, served together (a static batch: they start and end together).
struct Request {
  std::int64_t prompt_len = 2048, gen_len = 256;
};
/// A request's figures for the batch: the first token comes from the prefill of the N prompts (TTFT); the others
/// from gen_len - 1 decode steps at the contexts prompt_len + 1 .. prompt_len + gen_len - 1, each costed at its
/// own context and summed exactly.
struct RequestFigures {
  std::int64_t prompt_len = 0, gen_len = 0, batch = 1, decode_steps = 0;
  double ttft_s = 0;                // the prefill of the N prompts
  double tpot_s = 0;                // mean latency of the decode steps (0 when gen_len = 1: no step)
  double e2e_s = 0;                 // ttft + every decode step
  double tokens_per_s = 0;          // N·gen_len / e2e
  double requests_per_s = 0;        // N / e2e
  double energy_j = 0;              // the batch: prefill + every step
  double energy_per_request_j = 0;  // energy_j / N
  double energy_per_token_j = 0;    // energy_j / (N·gen_len)
  std::int64_t dram_bytes = 0;      // the batch: prefill + every step
};
/// A request's decode steps: the decode-phase plan at each context prompt_len + 1 .. prompt_len + gen_len - 1.
struct DecodeSteps {
  std::vector<Model> plans;  // one per step, in order
};
/// A request's ranges (--prompt-len, --gen-len, --seq-len = --prompt-len, and the last context against
/// max_position_embeddings; with --allow-long-context a note in `notes`); returns the last decode context.
std::int64_t check_request(const Phases& phases, const Request& req, const std::optional<ModelConfig>& cfg,
                           std::vector<std::string>* notes = nullptr);
/// The decode-phase part of plan_at(phases at context c) for every step; checks the request's ranges
/// (--prompt-len, --gen-len, --seq-len = --prompt-len, and the last context against max_position_embeddings; with
/// --allow-long-context a note in `notes`).
DecodeSteps decode_steps(const PlanAt& plan_at, const Phases& phases, const Request& req,
                         const std::optional<ModelConfig>& cfg, std::vector<std::string>* notes = nullptr);
/// The request figures of one scheme: `prefill` the sums of the prefill at seq_len = prompt_len, each step run on
/// `est` under `scheme`.
RequestFigures request_figures(cost::Estimator& est, const DecodeSteps& steps, const PhaseSum& prefill,
                               const Phases& phases, const Request& req, const std::optional<quant::Scheme>& scheme);

/// The request figures from the prefill's sums and the sums of its `steps` decode steps (latency, energy, DRAM bytes).
RequestFigures request_totals(const PhaseSum& prefill, const PhaseSum& decode, std::int64_t steps, const Phases& phases,
                              const Request& req);

/// What compare --rank-by orders the rows by (smallest first); kListed keeps the --quant order.
enum class RankBy { kListed, kTtft, kTpot, kE2e, kEnergy, kEdp };
/// "listed" | "ttft" | "tpot" | "e2e" | "energy" | "edp"; parse throws InputError otherwise.
RankBy parse_rank_by(const std::string& text);
std::string to_string(RankBy r);

// ------------------------------------------------------------- deployments over chips

/// The element format of a collective: bits per element and the scales that travel with the data (a dynamic
/// activation scale per token, per group along the row or per tensor; a static scale is known to every chip).
struct CollectiveFormat {
  std::string dtype = "float16";  // the scheme's activation dtype, or --collective-dtype's
  std::int64_t bits = 16;
  quant::Granularity scale = quant::Granularity::kNone;  // kToken, kGroup, kTensor: scales travel; else none
  std::int64_t group = 0, scale_bits = 0;
  bool from_scheme = true;  // false: --collective-dtype
};
/// The row-parallel all-reduce's format under scheme `s`: `dtype` (fp32 | fp16 | bf16 | fp8 | int8 | int4; the 8- and
/// 4-bit ones carry a float32 scale per token) or, when empty, the scheme's activation format. Throws InputError.
CollectiveFormat collective_format(const quant::Scheme& s, const std::string& dtype);
/// Bytes of `rows` x `cols` elements in format f, with the scales of those rows.
std::int64_t chunk_bytes(const CollectiveFormat& f, std::int64_t rows, std::int64_t cols);

/// A collective on the chip links: bytes each chip sends, seconds, and joules over every link.
struct CollectiveCost {
  std::int64_t bytes_per_chip = 0;
  double seconds = 0, energy_j = 0;
  void add(const CollectiveCost& o, std::int64_t times = 1);
};
/// All-reduce of a rows x cols tensor over n chips: reduce-scatter then all-gather of n chunks of cols/n columns
/// (cols % n == 0). Ring: 2(n-1) steps of one chunk per chip (bytes per chip 2(n-1)/n of the data); fully
/// connected: 2 steps, n-1 chunks per chip over n-1 links at once. Each step costs the link latency + chunk /
/// bandwidth.
CollectiveCost all_reduce(const arch::ChipLink& link, std::int64_t n, const CollectiveFormat& f, std::int64_t rows,
                          std::int64_t cols);
/// All-gather of rows x cols_per_chip from each of n chips (ring: n-1 steps; fully connected: 1).
CollectiveCost all_gather(const arch::ChipLink& link, std::int64_t n, const CollectiveFormat& f, std::int64_t rows,
                          std::int64_t cols_per_chip);
/// All-to-all over n chips, each chip sending `rows_per_pair` x cols (format f, its scales with it) to every other
/// (expert parallelism's dispatch and combine). Ring: n-1 steps, step s forwarding the n-s chunks still travelling
/// (n(n-1)/2 chunks per chip; seconds (n-1)·latency + bytes / bandwidth); fully connected: one step, n-1 chunks over
/// n-1 links at once (latency + chunk / bandwidth). Energy: every chip's bytes over the links.
CollectiveCost all_to_all(const arch::ChipLink& link, std::int64_t n, const CollectiveFormat& f,
                          std::int64_t rows_per_pair, std::int64_t cols);
/// One hop of `bytes` (a pipeline stage boundary).
CollectiveCost send_recv(const arch::ChipLink& link, std::int64_t bytes);

/// One chip's config under tensor and expert parallelism: heads, KV heads and the MLP widths / tp, experts / ep, the
/// vocabulary ⌈vocab / tp⌉ (padded, noted). A degree that does not divide a field is an InputError naming it.
ModelConfig shard_config(const ModelConfig& c, const Parallel& p, std::vector<std::string>* notes = nullptr);
/// Layers per pipeline stage: the first L mod pp stages ⌈L/pp⌉ layers, the others ⌊L/pp⌋ (pp <= L, else InputError).
std::vector<std::int64_t> stage_layers(std::int64_t layers, std::int64_t pp);
/// A stage of `layers` consecutive layers from layer `first` of a (sharded) config; its window and MoE layers are the
/// ones in its range, counting those kinds as the model's last layers (docs/model.md).
ModelConfig stage_config(const ModelConfig& chip, std::int64_t first, std::int64_t layers, bool last);

/// A phase of a deployment, per step (docs/model.md "Parallelism over chips").
struct DeployPhase {
  double latency_s = 0;               // the deployment's step: stages, collectives, send/recv, pipeline bubble
  double energy_j = 0;                // every chip's work + every link's bits
  std::int64_t dram_bytes = 0;        // every chip's
  double chip_latency_s = 0;          // the busiest chip's own work (GEMMs and operators; no collectives)
  double chip_energy_j = 0;           // that chip's energy (no links)
  std::int64_t chip_dram_bytes = 0;   // that chip's DRAM bytes
  std::int64_t collective_bytes = 0;  // sent by one chip of the busiest stage (all-reduces, logits all-gather)
  double collective_s = 0;            // that chip's collective time (on its critical path)
  std::int64_t all_to_all_bytes = 0;  // the part of collective_bytes in expert parallelism's all-to-alls
  double all_to_all_s = 0;            // and of collective_s
  double link_energy_j = 0;           // every collective and send/recv over the links (part of energy_j)
  std::int64_t send_recv_bytes = 0;   // pipeline: activations over all stage boundaries (one TP rank's copy)
  double send_recv_s = 0;
  double bubble_fraction = 0;  // idle chip-time / (stages x latency)
};
struct DeployRow {
  DeployPhase prefill, decode;
  std::size_t deployment = 0;              // index into CompareResult::deployments
  std::int64_t weight_bytes_per_chip = 0;  // the largest stage's weights on one chip
  CollectiveFormat collective;             // the row-parallel all-reduces' format
};
struct Deployment {
  Parallel parallel;
  std::int64_t micro_batches = 1;
  std::vector<std::int64_t> stages;  // layers per stage
  arch::ChipLink link;
};

struct CompareRow {
  std::string scheme;                      // name; a dump's own schemes: "q4f16_1 (dump)"
  PhaseSum prefill, decode;
  std::optional<RequestFigures> request;  // with a Request (compare --prompt-len / --gen-len)
  /// over chips (--tp / --pp / --ep): the deployment's figures; prefill / decode then hold the deployment's sums
  std::optional<DeployRow> deploy;
  std::vector<EntrySum> other;  // the other entries, by name (empty for prefill/decode models)
  double prefill_tokens_per_s = 0, decode_tokens_per_s = 0;  // batch·seq_len / prefill, batch / decode step latency
  double decode_energy_per_token_j = 0;                      // decode step energy / batch (one token per sequence)
  double scale_traffic_share = 0, prefill_scale_traffic_share = 0;          // scale bytes / DRAM bytes
  double speedup_vs_first = 0, prefill_speedup_vs_first = 0;                // first latency / this latency
  double traffic_ratio_vs_first = 0, prefill_traffic_ratio_vs_first = 0;    // this DRAM bytes / first's
};

struct CompareResult {
  RunInfo info;
  std::vector<CompareRow> rows;   // the first row is the baseline of the ratios
  /// compare --search: each row at its scheme's own best mapping; what was searched ("" for a plain compare)
  std::string searched;
  std::vector<std::string> mappings;     // compare --search: each row's mapping ("ws 32x32"), else empty
  RankBy ranked = RankBy::kListed;       // the rows' order (ratios are against the first row in that order)
  std::optional<Request> request;        // the requests of the rows' `request` figures
  std::optional<Deployment> deployment;  // --tp / --pp / --ep (one deployment)
  /// every deployment of the rows (DeployRow::deployment indexes it); more than one: --tp / --pp / --ep lists, one
  /// row per (deployment, scheme), deployments outer
  std::vector<Deployment> deployments;
};

/// One scheme's row from its run (per-phase sums; the ratios are set by set_ratios).
CompareRow compare_row(std::string scheme, const ModelResult& r);
/// A row's scheme name: the scheme's, or the dump's own quantization ("q4f16_1 (dump)").
std::string scheme_label(const Model& model, const std::optional<quant::Scheme>& s);
/// The label of a dump's own quantization ends in this suffix (written by scheme_label; a --plan file's reader
/// parses a label with it as "the dump's own", never as a scheme name).
inline constexpr std::string_view kDumpSchemeSuffix = " (dump)";
inline bool is_dump_scheme_label(std::string_view label) {
  return label.size() >= kDumpSchemeSuffix.size() &&
         label.substr(label.size() - kDumpSchemeSuffix.size()) == kDumpSchemeSuffix;
}
/// The per-token rates and the ratios against the first row.
void set_ratios(CompareResult& c, const Phases& phases);

/// The schemes of a comparison: `list` (comma-separated; "" = default_schemes()), preceded by the dump's own
/// quantization (nullopt) when a dump is given without a list. Throws InputError when the list names none.
std::vector<std::optional<quant::Scheme>> compare_schemes(const std::string& list, bool dump_given);
/// One row per scheme; `progress(done, name)` after each.
CompareResult compare(cost::Estimator& est, const Model& model, const Phases& phases,
                      const std::vector<std::optional<quant::Scheme>>& schemes,
                      const std::function<void(std::size_t, const std::string&)>& progress = {});
/// compare over chips (ph.parallel): one row per scheme, the model's config `cfg` sharded per chip and stage; each
/// row's prefill / decode sums are the deployment's (latency with collectives and bubble; energy and DRAM bytes over
/// every chip, energy_j with the links' energy, energy_by_term the chips' only). Throws InputError.
CompareResult compare_deployed(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                               const std::vector<std::optional<quant::Scheme>>& schemes,
                               const std::function<void(std::size_t, const std::string&)>& progress = {});

/// The deployments of --tp / --pp / --ep lists ("1,4,8"; "" = 1): every combination, tp outermost, then pp, then ep;
/// an --ep entry `tp` is each deployment's TP degree (expert parallelism over its TP group); combinations that come
/// out equal are listed once. `base` gives --micro-batches and --collective-dtype. Throws InputError naming the flag.
std::vector<Parallel> deployment_grid(const std::string& tp, const std::string& pp, const std::string& ep,
                                      const Parallel& base);
/// compare_deployed for each deployment of `grid`, the rows concatenated (deployments outer, schemes inner), the
/// ratios against the first row, the notes of every deployment (each once). One deployment: compare_deployed.
CompareResult compare_deployments(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                                  const std::vector<std::optional<quant::Scheme>>& schemes,
                                  const std::vector<Parallel>& grid,
                                  const std::function<void(std::size_t, const std::string&)>& progress = {});
/// compare_deployments with whole requests: each row's request figures over its deployment (TTFT = the deployment's
/// prefill step; each of the gen_len - 1 decode steps the deployment's decode step at its own context, collectives,
/// pipeline and bubble included), then the rows ordered by `rank` (docs/model.md "Parallelism over chips").
CompareResult compare_deployments(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                                  const std::vector<std::optional<quant::Scheme>>& schemes,
                                  const std::vector<Parallel>& grid, const Request& req, RankBy rank,
                                  const std::function<void(std::size_t, const std::string&)>& progress = {});
/// Each row of a one-deployment compare_deployed result (rows in the order of `schemes`) gets its request figures.
void add_deployed_requests(CompareResult& c, cost::Estimator& est, const Model& whole, const ModelConfig& cfg,
                           const Phases& ph, const Request& req,
                           const std::vector<std::optional<quant::Scheme>>& schemes);

/// Each row's request figures (rows in the order of `schemes`, as compare made them), then the rows ordered by
/// `rank` (stable; kListed keeps them) and the ratios set against the new first row.
void add_requests(CompareResult& c, cost::Estimator& est, const PlanAt& plan_at, const Phases& phases,
                  const Request& req, const std::vector<std::optional<quant::Scheme>>& schemes, RankBy rank,
                  const std::optional<ModelConfig>& cfg);
/// The rows (each with its request figures) ordered by `rank` (stable; kListed keeps them, mappings follow their
/// rows), then the ratios against the new first row.
void rank_requests(CompareResult& c, RankBy rank, const Phases& phases);
/// The model a request runs: the prefill part of `plan` (its prefill-phase GEMMs and operators) and every decode
/// step's decode part (decode_steps), so that run_model's decode total is the sum of the steps exactly as
/// request_figures adds them (the search ranks mappings by it: docs/search.md "Requests").
Model request_model(const Model& plan, const DecodeSteps& steps);

// ------------------------------------------------------------- exports for serving simulators

/// Latency tables for a serving simulator (docs/export.md): LLMServingSim 2.0's profile bundle or Vidur's profiling
/// CSVs, one chip of a --tp group under one scheme.
enum class ExportFormat { kLlmServingSim, kVidur };
/// "llmservingsim" | "vidur"; parse throws InputError otherwise.
ExportFormat parse_export_format(const std::string& text);
std::string to_string(ExportFormat f);
/// The grid of the tables: token counts 1 .. max_tokens (LLMServingSim's dense grid: every count to 15, then steps of
/// 4 to 63, then 16, and max), sequences 1 .. max_seqs, KV lengths 16 .. max_kv doubling (and max).
struct ExportGrid {
  std::int64_t max_tokens = 512, max_seqs = 64, max_kv = 4096;
};
using ExportCell = std::variant<std::string, std::int64_t, double>;  // a double is a time, written %.6g
/// One CSV file of a bundle (path relative to the output folder) or a text file (columns empty, `text` set).
struct ExportTable {
  std::string path;
  std::vector<std::string> columns;
  std::vector<std::vector<ExportCell>> rows;
  std::string text;
};
/// The tables of one scheme on `est`'s arch: `cfg` sharded over `tp` chips (config plans; MoE models are refused),
/// per-layer times of one call on one chip, collectives at the scheme's format (`collective_dtype` as
/// --collective-dtype).
std::vector<ExportTable> export_tables(ExportFormat format, cost::Estimator& est, const ModelConfig& cfg,
                                       const quant::Scheme& scheme, std::int64_t tp,
                                       const std::string& collective_dtype, const ExportGrid& grid);

}  // namespace tenet_cost::model
