// The flags estimate and compare share, and how they become library objects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::cli {

struct ModelArgs {
  std::string dump, arch, dataflow = "os", quant, bind, hf_config, format = "table", array_model = "auto";
  std::string mlc_config;  // --mlc-config: MLC's mlc-chat-config.json (model config, quantization, build settings)
  std::string attention = "fused";
  std::string objective = "latency";
  std::string timing = "roofline";   // --timing roofline | pipeline
  std::vector<std::string> tiles;    // --tile, repeatable: [TARGET:]m=..,n=..,k=..[,order=..]
  std::vector<std::string> gemms;    // --gemm MxNxK[xB], repeatable: plain shapes without a dump
  std::vector<std::string> calls;    // --calls NAME=N, repeatable: counts of a module without a Relax entry
  std::vector<std::string> entries;  // --entry NAME, repeatable: the dump's entries to cost
  std::int64_t seq_len = 2048, context = 2048, batch = 1, chunk = 0;
  // --tp / --pp / --ep / --micro-batches / --collective-dtype: a deployment over chips (0: not given; --mlc-config's
  // tensor_parallel_shards / pipeline_parallel_stages then, else 1)
  std::int64_t tp = 0, pp = 0, ep = 1, micro_batches = 0;  // the first deployment's (set by deployed())
  std::string tp_list, pp_list, ep_list;                   // the flags' text: "4", "1,4,8", --ep "1,tp"
  std::vector<model::Parallel> grid;                       // every deployment of the lists (set by deployed())
  std::string collective_dtype = "activation";
  bool strict = false;                                      // --strict: a plan over the arch's dram.bytes is an error
  bool allow_long_context = false;                          // --allow-long-context: beyond max_position_embeddings
  std::vector<std::string> set;                             // --set KEY=VALUE (arch overrides), in order
  double time_limit = cost::kDefaultEngineTimeLimit;        // --time-limit: seconds per TENET engine evaluation
  std::int64_t engine_points = cost::kDefaultEnginePoints;  // --engine-points: instances per brute-forced instance
};

/// --arch, --set, --dataflow, --tile, --objective, --bind, --calls, --gemm, --seq-len, --context, --hf-config,
/// --format, --array-model.
void add_model_options(CLI::App* cmd, ModelArgs& a);
/// --time-limit SECONDS (the TENET engine's wall-clock limit per evaluation).
void add_time_limit_option(CLI::App* cmd, double& seconds);
/// --engine-points N (the TENET engine's limit of statement instances per brute-forced small instance).
void add_engine_points_option(CLI::App* cmd, std::int64_t& points);
model::Phases phases(const ModelArgs& a);
/// --tp / --pp / --ep / --micro-batches / --collective-dtype (the --mlc-config's shards and stages by default).
void add_parallel_options(CLI::App* cmd, ModelArgs& a);
/// A deployment over chips was asked for (by the flags, or by the --mlc-config's shards / stages, which it copies
/// into --tp / --pp when those are not given). Fills `grid` with every deployment of the --tp / --pp / --ep lists
/// and tp / pp / ep with the first one's.
bool deployed(ModelArgs& a);
/// The cost options named by the flags (--tile rules, --array-model, --objective).
cost::Options cost_options(const ModelArgs& a);
/// The arch named by --arch (a preset, a JSON file or the default) with the --set overrides applied.
arch::Arch load_arch(const ModelArgs& a);
arch::Arch load_arch(const std::string& name, const std::vector<std::string>& set);
/// The presets folder of the data root.
std::string arch_presets_dir();
/// The arch, dataflow and options named by the flags.
cost::Estimator make_estimator(const ModelArgs& a);
/// The plan: --gemm shapes (alone), the DUMP (with --hf-config or --mlc-config for heads), else --hf-config or
/// --mlc-config alone, else the shipped default model (estimate, compare and search alike).
model::Model load_plan(const ModelArgs& a, const model::Phases& ph);
/// load_plan's source: the plan at any phases (a dump extracted once), with its config.
model::PlanSource plan_source(const ModelArgs& a);
/// --quant, else the --mlc-config's quantization (estimate's scheme), else "".
std::string quant_or_mlc(const ModelArgs& a);
/// The arch's dram.bytes against the plan's footprint under each scheme (docs/model.md "Memory capacity"): the
/// notes to add to the result (one per scheme over it), joined by "; " into one warning line on stderr; with --strict
/// the first is an InputError (exit 2). Nothing when the arch gives no dram.bytes.
std::vector<std::string> check_capacity(const ModelArgs& a, const arch::Arch& arch, const model::Model& plan,
                                        const std::vector<std::optional<quant::Scheme>>& schemes);

}  // namespace tenet_cost::cli
