// The command table (commands.hpp).
#include "commands.hpp"

namespace tenet_cost::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"tenet", "every TENET metric of one (PE array, statement, mapping) triple or `experiment_N` file",
       "[tenet-engine.md](tenet-engine.md)", add_tenet},
      {"extract", "GEMM / convolution workloads, quantization and call counts found in a TVMScript or TVM-JSON dump",
       "[extract.md](extract.md)", add_extract},
      {"estimate", "per-workload and per-entry cost of a model on an accelerator under one quantization scheme",
       "[model.md](model.md), [estimate-formats.md](estimate-formats.md)", add_estimate},
      {"compare", "one row per quantization scheme: prefill/decode latency, tokens/s, DRAM bytes, energy",
       "[model.md](model.md)", add_compare},
      {"search", "each quantization scheme at its best dataflow, PE-array shape and tiles, with the Pareto front",
       "[search.md](search.md)", add_search},
      {"sweep",
       "a grid of compare points (models x archs x --set variants x dataflows x schemes x lengths x tp/pp/ep "
       "deployments) on threads, "
       "resumable and shardable; `sweep merge` joins the shards' results; `sweep plot` draws a results file as an "
       "HTML page",
       "[sweep.md](sweep.md), [report.md](report.md)", add_sweep},
      {"export",
       "latency tables of a model under each scheme for a serving simulator: LLMServingSim 2.0's profile bundle or "
       "Vidur's profiling CSVs",
       "[export.md](export.md)", add_export},
      {"quant", "`quant list`: the quantization schemes and the generic scheme grammar", "[quant.md](quant.md)",
       add_quant},
  };
  return table;
}

std::string commands_markdown() {
  std::string out = "| command | what it does | docs |\n|---|---|---|\n";
  for (const auto& c : commands())
    out += std::string("| `") + c.name + "` | " + c.description + " | " + c.doc + " |\n";
  return out;
}

}  // namespace tenet_cost::cli
