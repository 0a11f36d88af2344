// tenet-cost search [DUMP|--hf-config F] [--quant S1,S2,...] [--objective O] [--dataflows presets|generated|all|LIST]
//                   [--pe-budget N] [--per-gemm] [--top K] [--jobs N] [model options]
#include <memory>

#include "progress.hpp"
#include "search_args.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::cli {

void add_search_options(CLI::App* cmd, SearchArgs& s) {
  cmd->add_option("--dataflows", s.dataflows,
                  "presets, generated (the generated mappings legal for each scheme), all (both), or a "
                  "comma-separated list of dataflows (default: --dataflow when given, else presets)");
  cmd->add_option("--pe-budget", s.pe_budget, "Search every R x C array with R * C = N PEs (default: the arch's)");
  cmd->add_option("--jobs", s.jobs, "Worker threads (the output does not depend on it; default 1)");
}

search::Options search_options(const ModelArgs& a, const SearchArgs& s, const CLI::App* cmd) {
  if (!a.tiles.empty()) throw InputError("the search chooses every tile itself: drop --tile (estimate takes it)");
  if (s.jobs < 1 || s.jobs > 256) throw InputError("--jobs must be in 1..256, found " + std::to_string(s.jobs));
  search::Options o;
  o.objective = cost::parse_objective(a.objective);
  o.method = cost::parse_array_method(a.array_model);
  std::string list = s.dataflows;
  if (list.empty()) list = cmd->count("--dataflow") > 0 ? a.dataflow : "presets";
  const search::DataflowSet set = search::parse_dataflow_set(list);
  o.dataflows = set.listed;
  o.generated = set.generated;
  if (s.pe_budget != 0) o.arrays = search::array_shapes(s.pe_budget);
  o.jobs = static_cast<unsigned>(s.jobs);
  o.engine_time_limit_s = cost::checked_time_limit(a.time_limit);
  o.engine_max_points = cost::checked_engine_points(a.engine_points);
  o.memos = std::make_shared<search::MemoPool>();  // compare --search reruns the winners on the search's memos
  return o;
}

search::SearchResult run_search(const arch::Arch& ar, const model::Model& plan, const model::Phases& ph,
                                const std::vector<std::optional<quant::Scheme>>& schemes, const search::Options& o) {
  Progress progress("search", "configurations", 0);
  return search::run(ar, plan, ph, schemes, o, [&](std::size_t done, std::size_t total) {
    progress.set_total(total);
    progress.step(done);
  });
}

CLI::App* add_search(CLI::App& app, const Command& self, Context& ctx) {
  struct Args {
    ModelArgs model;
    SearchArgs search;
    std::int64_t top = 1;
    bool per_gemm = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->model.dump, "Dump (default: the shipped Llama-2-7B)");
  cmd->add_option("--quant", args->model.quant, "Comma-separated schemes (default: the compare set)");
  add_model_options(cmd, args->model);
  add_search_options(cmd, args->search);
  cmd->add_flag("--per-gemm", args->per_gemm, "Each GEMM its own dataflow (default: one dataflow for the model)");
  cmd->add_option("--top", args->top, "Configurations listed per scheme (default 1)");
  cmd->callback([&ctx, args, cmd] {
    const ModelArgs& a = args->model;
    const auto format = report::parse_format(a.format);
    if (args->top < 1) throw InputError("--top must be at least 1, found " + std::to_string(args->top));
    search::Options o = search_options(a, args->search, cmd);
    o.per_gemm = args->per_gemm;
    o.top = static_cast<std::size_t>(args->top);
    const auto schemes = model::compare_schemes(a.quant, !a.dump.empty());
    const model::Phases ph = phases(a);
    const model::Model plan = load_plan(a, ph);
    const arch::Arch ar = load_arch(a);
    const auto result = run_search(ar, plan, ph, schemes, o);
    ctx.result = format == report::Format::kHtml ? report::html::render(report::html::search_doc(result, ar))
                                                 : report::render(result, format);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
