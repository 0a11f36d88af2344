// tenet-cost export llmservingsim|vidur --hf-config F|--mlc-config F [--quant S1,S2] [--tp N] --out DIR [grid flags]
#include <filesystem>
#include <memory>

#include "model_args.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::cli {

namespace fs = std::filesystem;

namespace {

struct ExportArgs {
  ModelArgs model;
  std::string target, out;
  model::ExportGrid grid;
};

// The config the tables are of: --hf-config or --mlc-config's model_config, named after its path when unnamed.
model::ModelConfig export_config(const ModelArgs& a) {
  if (a.hf_config.empty() == a.mlc_config.empty())
    throw InputError("export: give exactly one of --hf-config and --mlc-config (the tables are of a config's model)");
  model::ModelConfig c =
      a.hf_config.empty() ? model::load_mlc_chat_config(a.mlc_config).model : model::load_hf_config(a.hf_config);
  if (c.name.empty()) c.name = fs::path(a.hf_config.empty() ? a.mlc_config : a.hf_config).stem().string();
  return c;
}

}  // namespace

CLI::App* add_export(CLI::App& app, const Command& self, Context& ctx) {
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("TARGET", a->target, "llmservingsim (LLMServingSim 2.0 profile bundle) | vidur (profiling CSVs)")
      ->required();
  cmd->add_option("--hf-config", a->model.hf_config, "Hugging Face config.json of the model");
  cmd->add_option("--mlc-config", a->model.mlc_config, "MLC-LLM mlc-chat-config.json (its model_config)");
  cmd->add_option("--quant", a->model.quant, "Comma-separated schemes, one bundle each (default: q0f16)");
  cmd->add_option("--arch", a->model.arch, "Arch preset name or JSON file");
  cmd->add_option("--set", a->model.set, "Override an arch field by its JSON path (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--dataflow", a->model.dataflow, "Dataflow (default: os)");
  add_parallel_options(cmd, a->model);
  cmd->add_option("--out", a->out, "Folder the bundle is written under (created)")->required();
  cmd->add_option("--max-tokens", a->grid.max_tokens, "Largest token count of the tables (default 512)");
  cmd->add_option("--max-seqs", a->grid.max_seqs, "Largest number of sequences (default 64)");
  cmd->add_option("--max-kv", a->grid.max_kv, "Largest KV length of the attention tables (default 4096)");
  cmd->callback([&ctx, a, cmd] {
    const model::ExportFormat format = model::parse_export_format(a->target);
    for (const char* flag : {"--pp", "--ep", "--micro-batches"})
      if (cmd->count(flag) > 0)
        throw InputError(std::string("export: ") + flag + " is the simulator's to schedule; the tables are per --tp");
    deployed(a->model);  // --mlc-config's tensor_parallel_shards as --tp
    if (a->model.grid.size() > 1)
      throw InputError("export: --tp " + a->model.tp_list + ": one TP degree per bundle (run export once per degree)");
    const std::int64_t tp = std::max<std::int64_t>(a->model.tp, 1);
    const model::ModelConfig cfg = export_config(a->model);
    cost::Estimator est = make_estimator(a->model);
    const std::string dtype = a->model.collective_dtype == "activation" ? "" : a->model.collective_dtype;
    std::string listing = "export " + model::to_string(format) + ": model " + cfg.name + " on " + est.arch().name +
                          " (" + est.dataflow().name + " dataflow), tp " + std::to_string(tp) + "; chip link " +
                          (est.arch().chip_link.given ? "from the arch" : "default (the arch has no chip_link)") + "\n";
    const std::string quant = a->model.quant.empty() ? quant_or_mlc(a->model) : a->model.quant;
    for (const quant::Scheme& s : quant::parse_scheme_list(quant.empty() ? "q0f16" : quant))
      for (const model::ExportTable& t : model::export_tables(format, est, cfg, s, tp, dtype, a->grid)) {
        const fs::path path = fs::path(a->out) / t.path;
        fs::create_directories(path.parent_path());
        write_output(path.string(), report::render_export(t));
        listing +=
            t.path + (t.columns.empty() ? std::string() : " (" + std::to_string(t.rows.size()) + " rows)") + "\n";
      }
    ctx.result = listing;
  });
  return cmd;
}

}  // namespace tenet_cost::cli
