// tenet-cost search [DUMP|--hf-config F] [--quant S1,S2,...] [--objective O] [--dataflows presets|LIST]
//                   [--pe-budget N] [--per-gemm] [--top K] [--jobs N] [model options]
#include <memory>

#include "model_args.hpp"
#include "progress.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::cli {

CLI::App* add_search(CLI::App& app, const Command& self, Context& ctx) {
  struct Args {
    ModelArgs model;
    std::string dataflows;
    std::int64_t pe_budget = 0, top = 1, jobs = 1;
    bool per_gemm = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->model.dump, "Dump (default: the shipped Llama-2-7B)");
  cmd->add_option("--quant", args->model.quant, "Comma-separated schemes (default: the compare set)");
  add_model_options(cmd, args->model);
  cmd->add_option("--dataflows", args->dataflows,
                  "presets, or a comma-separated list of dataflows (default: --dataflow when given, else presets)");
  cmd->add_option("--pe-budget", args->pe_budget, "Search every R x C array with R * C = N PEs (default: the arch's)");
  cmd->add_flag("--per-gemm", args->per_gemm, "Each GEMM its own dataflow (default: one dataflow for the model)");
  cmd->add_option("--top", args->top, "Configurations listed per scheme (default 1)");
  cmd->add_option("--jobs", args->jobs, "Worker threads (the output does not depend on it; default 1)");
  cmd->callback([&ctx, args, cmd] {
    const ModelArgs& a = args->model;
    const auto format = report::parse_format(a.format);
    if (!a.tiles.empty()) throw InputError("search chooses every tile itself: drop --tile (estimate takes it)");
    if (args->top < 1) throw InputError("--top must be at least 1, found " + std::to_string(args->top));
    if (args->jobs < 1 || args->jobs > 256)
      throw InputError("--jobs must be in 1..256, found " + std::to_string(args->jobs));
    search::Options o;
    o.objective = cost::parse_objective(a.objective);
    o.method = cost::parse_array_method(a.array_model);
    std::string list = args->dataflows;
    if (list.empty()) list = cmd->count("--dataflow") > 0 ? a.dataflow : "presets";
    o.dataflows = search::parse_dataflows(list);
    if (args->pe_budget != 0) o.arrays = search::array_shapes(args->pe_budget);
    o.per_gemm = args->per_gemm;
    o.top = static_cast<std::size_t>(args->top);
    o.jobs = static_cast<unsigned>(args->jobs);
    o.engine_time_limit_s = cost::checked_time_limit(a.time_limit);
    const auto schemes = model::compare_schemes(a.quant, !a.dump.empty());
    const model::Phases ph = phases(a);
    const model::Model plan = load_plan(a, ph, true);
    const arch::Arch ar = load_arch(a);
    Progress progress("search", "configurations", 0);
    const auto result = search::run(ar, plan, ph, schemes, o, [&](std::size_t done, std::size_t total) {
      progress.set_total(total);
      progress.step(done);
    });
    ctx.result = format == report::Format::kHtml ? report::html::render(report::html::search_doc(result, ar))
                                                 : report::render(result, format);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
