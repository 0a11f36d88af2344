// estimate / compare flags -> library objects (model_args.hpp).
#include "model_args.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"

namespace tenet_cost::cli {

namespace fs = std::filesystem;

void add_model_options(CLI::App* cmd, ModelArgs& a) {
  cmd->add_option("--arch", a.arch, "Arch preset name or JSON file (default: " + arch::default_arch() + ")");
  cmd->add_option("--set", a.set,
                  "Override an arch field by its JSON path, e.g. --set pe_array.rows=64 (repeatable; docs/arch.md)")
      ->allow_extra_args(false);
  cmd->add_option("--dataflow", a.dataflow, mapping::dataflow_choices() + " (default: os)");
  cmd->add_option("--tile", a.tiles,
                  "Buffer tile [TARGET:]m=..,n=..,k=..[,order=mnk]; TARGET = a function name or a shape MxNxK "
                  "(repeatable; default: the best for --objective)");
  cmd->add_option("--objective", a.objective, "latency | energy | edp | dram: what the tile choice minimises");
  cmd->add_option("--timing", a.timing,
                  "roofline (default: the largest term over the GEMM, the optimistic bound) | pipeline (per tile, "
                  "first fetch and last write-back exposed; docs/model.md \"Latency\")");
  cmd->add_option("--bind", a.bind, "Bind symbolic dims, e.g. batch_size=4,nseq=4");
  cmd->add_option("--calls", a.calls,
                  "NAME=N: calls of a function of a module without a Relax entry (repeatable; default 1 each)")
      ->allow_extra_args(false);
  cmd->add_option("--entry", a.entries,
                  "Cost only this Relax entry of the dump (repeatable; default: every entry, one per phase, picked "
                  "by --batch)")
      ->allow_extra_args(false);
  cmd->add_option("--gemm", a.gemms, "Cost a plain GEMM MxNxK[xB] without a dump (repeatable; with --quant)")
      ->allow_extra_args(false);
  cmd->add_option("--seq-len", a.seq_len, "Prefill tokens per sequence (default 2048; 1 .. 16777216)");
  cmd->add_option("--context", a.context,
                  "Decode context length per sequence (default 2048; 1 .. 16777216 and at most the config's "
                  "max_position_embeddings)");
  cmd->add_flag("--allow-long-context", a.allow_long_context,
                "Cost --seq-len / --context beyond the config's max_position_embeddings (stated in the notes)");
  cmd->add_option("--batch", a.batch,
                  "Sequences served together (default 1; 1 .. 65536): N prompts / N decoding sequences; a decode "
                  "step is N tokens");
  cmd->add_option("--chunk", a.chunk,
                  "Chunked prefill (config plans): also cost entry chunked_prefill, the prompt in steps of at most C "
                  "tokens, each with the --batch decode rows in the same GEMMs (default 0: off)");
  cmd->add_option("--attention", a.attention,
                  "fused (default: scores stay on chip, causal blocks) | unfused (scores through DRAM)");
  cmd->add_option("--hf-config", a.hf_config,
                  "Hugging Face config.json: model workloads without a dump, or heads for attention");
  cmd->add_option("--mlc-config", a.mlc_config,
                  "MLC-LLM mlc-chat-config.json: its model_config as the model (like --hf-config), its quantization "
                  "as the default scheme, its context window, prefill chunk and shards in the notes");
  cmd->add_option("--format", a.format, "table | json | csv | html (a self-contained report page)");
  cmd->add_flag("--strict", a.strict,
                "Weights + KV cache + activations over the arch's dram.bytes is an error (default: a warning)");
  cmd->add_option("--array-model", a.array_model, "auto | engine | closed-form (PE array <-> buffer level)");
  add_time_limit_option(cmd, a.time_limit);
  add_engine_points_option(cmd, a.engine_points);
}

void add_parallel_options(CLI::App* cmd, ModelArgs& a) {
  cmd->add_option("--tp", a.tp_list,
                  "Tensor parallelism over N chips, or a list (1,4,8: one row per deployment and scheme; config "
                  "plans; default: --mlc-config's tensor_parallel_shards, else 1): QKV / gate-up column-parallel, "
                  "O / down row-parallel with an all-reduce each");
  cmd->add_option("--pp", a.pp_list,
                  "Pipeline stages, or a list (default: --mlc-config's pipeline_parallel_stages, else 1): "
                  "consecutive layers per stage, activations sent between them");
  cmd->add_option("--ep", a.ep_list,
                  "Expert parallelism (MoE) over the chips of the TP group: N = --tp, or tp (each deployment's "
                  "--tp), or a list (1,tp: both; default 1); all-to-all dispatch and combine");
  cmd->add_option("--micro-batches", a.micro_batches,
                  "Pipeline micro-batches per step (must divide --batch; default: the largest divisor <= --pp)");
  cmd->add_option("--collective-dtype", a.collective_dtype,
                  "activation (default: the scheme's activation format, its dynamic scales travel too) | fp32 | fp16 "
                  "| bf16 | fp8 | int8 | int4 (8/4-bit: a float32 scale per token): the all-reduces' element type");
}

bool deployed(ModelArgs& a) {
  if (!a.mlc_config.empty() && (a.tp_list.empty() || a.pp_list.empty())) {
    const model::MlcChatConfig mlc = model::load_mlc_chat_config(a.mlc_config);
    if (a.tp_list.empty()) a.tp_list = std::to_string(mlc.tensor_parallel_shards);
    if (a.pp_list.empty()) a.pp_list = std::to_string(mlc.pipeline_parallel_stages);
  }
  model::Parallel base;
  base.micro_batches = a.micro_batches;
  base.collective_dtype = a.collective_dtype == "activation" ? "" : a.collective_dtype;
  a.grid = model::deployment_grid(a.tp_list, a.pp_list, a.ep_list, base);
  a.tp = a.grid.front().tp;
  a.pp = a.grid.front().pp;
  a.ep = a.grid.front().ep;
  return a.grid.size() > 1 || a.grid.front().any() || a.micro_batches > 0 || a.collective_dtype != "activation";
}

void add_engine_points_option(CLI::App* cmd, std::int64_t& points) {
  cmd->add_option("--engine-points", points,
                  "Statement instances the TENET engine may enumerate in one small instance (default 20000000); "
                  "a search skips a candidate over it with a note");
}

void add_time_limit_option(CLI::App* cmd, double& seconds) {
  cmd->add_option("--time-limit", seconds,
                  "Wall-clock limit of one TENET engine evaluation in seconds (default 60; 0 = none)");
}

model::Phases phases(const ModelArgs& a) {
  model::Phases ph;
  ph.seq_len = a.seq_len;
  ph.context = a.context;
  ph.batch = a.batch;
  ph.allow_long_context = a.allow_long_context;
  ph.chunk = a.chunk;
  ph.parallel.tp = std::max<std::int64_t>(a.tp, 1);
  ph.parallel.pp = std::max<std::int64_t>(a.pp, 1);
  ph.parallel.ep = a.ep;
  ph.parallel.micro_batches = a.micro_batches;
  ph.parallel.collective_dtype = a.collective_dtype == "activation" ? "" : a.collective_dtype;
  ph.attention = model::parse_attention(a.attention);
  if (!a.bind.empty()) ph.bindings = parse_bindings(a.bind);
  ph.calls = model::parse_calls(a.calls);
  ph.entries = a.entries;
  return ph;
}

std::string arch_presets_dir() { return (fs::path(data_root()) / "configs" / "arch").string(); }

arch::Arch load_arch(const std::string& name, const std::vector<std::string>& set) {
  std::vector<arch::Override> overrides;
  overrides.reserve(set.size());
  for (const auto& s : set) overrides.push_back(arch::parse_override(s));
  return arch::load_arch(name.empty() ? arch::default_arch() : name, arch_presets_dir(), overrides);
}

cost::Options cost_options(const ModelArgs& a) {
  cost::Options o;
  for (const auto& text : a.tiles) {
    cost::TileRule r = cost::parse_tile_rule(text);
    if (r.function.empty() && r.m == 0 && r.n == 0 && r.k == 0) o.tile = r.tile;
    else o.rules.push_back(std::move(r));
  }
  o.method = cost::parse_array_method(a.array_model);
  o.objective = cost::parse_objective(a.objective);
  o.timing = cost::parse_timing(a.timing);
  o.engine_time_limit_s = cost::checked_time_limit(a.time_limit);
  o.engine_max_points = cost::checked_engine_points(a.engine_points);
  return o;
}

arch::Arch load_arch(const ModelArgs& a) { return load_arch(a.arch, a.set); }

cost::Estimator make_estimator(const ModelArgs& a) {
  return cost::Estimator(load_arch(a), mapping::parse_dataflow(a.dataflow), cost_options(a));
}

model::PlanSource plan_source(const ModelArgs& a) {
  std::optional<model::ModelConfig> cfg;
  if (!a.gemms.empty()) {
    if (!a.dump.empty() || !a.hf_config.empty() || !a.mlc_config.empty())
      throw InputError(
          "--gemm costs plain shapes without a model: drop the DUMP, --hf-config and --mlc-config, or drop --gemm");
    return {[gemms = a.gemms](const model::Phases& ph) { return model::plan_from_shapes(gemms, ph); }, std::nullopt};
  }
  if (!a.mlc_config.empty()) {
    if (!a.hf_config.empty()) throw InputError("--mlc-config and --hf-config both give the model's config: drop one");
    const model::MlcChatConfig mlc = model::load_mlc_chat_config(a.mlc_config);
    const model::PlanSource inner =
        a.dump.empty() ? model::PlanSource{[path = a.mlc_config, c = mlc.model](const model::Phases& ph) {
                                             return model::plan_from_config(path, c, ph);
                                           },
                                           mlc.model}
                       : model::dump_plan_source(a.dump, mlc.model);
    return {[inner, mlc](const model::Phases& ph) {
              model::Model m = inner.at(ph);
              const std::vector<std::string> notes = model::mlc_notes(mlc, ph);
              m.notes.insert(m.notes.end(), notes.begin(), notes.end());
              return m;
            },
            mlc.model};
  }
  if (!a.hf_config.empty()) cfg = model::load_hf_config(a.hf_config);
  if (!a.dump.empty()) return model::dump_plan_source(a.dump, cfg);
  if (cfg)
    return {[path = a.hf_config, c = *cfg](const model::Phases& ph) { return model::plan_from_config(path, c, ph); },
            cfg};
  return model::default_plan_source((fs::path(data_root()) / "workloads").string());
}

model::Model load_plan(const ModelArgs& a, const model::Phases& ph) { return plan_source(a).at(ph); }

std::string quant_or_mlc(const ModelArgs& a) {
  if (!a.quant.empty() || a.mlc_config.empty()) return a.quant;
  return model::load_mlc_chat_config(a.mlc_config).quantization;
}

std::vector<std::string> check_capacity(const ModelArgs& a, const arch::Arch& arch, const model::Model& plan,
                                        const std::vector<std::optional<quant::Scheme>>& schemes) {
  std::vector<std::string> notes;
  if (arch.dram_bytes <= 0) return notes;
  for (const auto& s : schemes) {
    const model::Footprint f = model::footprint(plan, s);
    if (f.total() <= arch.dram_bytes) continue;
    const std::string text = "memory: " + model::capacity_message(f, arch.dram_bytes);
    if (a.strict) throw InputError(text + " (--strict)");
    notes.push_back(text);
  }
  // one warning line, however many schemes are over
  for (std::size_t i = 0; i < notes.size(); ++i) std::cerr << (i == 0 ? "tenet-cost: warning: " : "; ") << notes[i];
  if (!notes.empty()) std::cerr << "\n";
  return notes;
}

}  // namespace tenet_cost::cli
