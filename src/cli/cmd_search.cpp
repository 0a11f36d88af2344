// tenet-cost search [DUMP|--hf-config F] [--quant S1,S2,...] [--objective O] [--dataflows presets|generated|all|LIST]
//                   [--pe-budget N] [--per-gemm] [--top K] [--jobs N] [--prompt-len P] [--gen-len G [--per-phase]]
//                   [model options]
#include <memory>

#include "progress.hpp"
#include "request_args.hpp"
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

namespace {

// search with a request (docs/search.md "Requests"): the mappings chosen by the whole request, or per phase.
std::string request_search(const ModelArgs& a, const model::Phases& ph, const model::Request& req,
                           const std::vector<std::optional<quant::Scheme>>& schemes, const search::Options& o,
                           bool per_phase, report::Format format) {
  if (format == report::Format::kHtml)
    throw InputError("the search html report has no request section: use --format table, json or csv with a request");
  if (per_phase && format == report::Format::kCsv)
    throw InputError(
        "search --per-phase: the prefill's and the decode steps' searches are two rankings with different columns: "
        "use --format table or json");
  const arch::Arch ar = load_arch(a);
  Progress progress("search", "configurations", 0);
  const search::RequestSearch rs =
      search::search_request(ar, plan_source(a), ph, req, schemes, o, per_phase, [&](std::size_t done, std::size_t n) {
        progress.set_total(n);
        progress.step(done);
      });
  return report::render(rs, format);
}

}  // namespace

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
    RequestArgs request;
    std::int64_t top = 1;
    bool per_gemm = false, per_phase = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->model.dump, "Dump (default: the shipped Llama-2-7B)");
  cmd->add_option("--quant", args->model.quant, "Comma-separated schemes (default: the compare set)");
  add_model_options(cmd, args->model);
  add_search_options(cmd, args->search);
  cmd->add_flag("--per-gemm", args->per_gemm, "Each GEMM its own dataflow (default: one dataflow for the model)");
  cmd->add_option("--top", args->top, "Configurations listed per scheme (default 1)");
  add_request_options(cmd, args->request, false);
  cmd->add_flag("--per-phase", args->per_phase,
                "With a request: the prefill's mapping chosen by the prefill, the decode's by the decode steps "
                "(default: one mapping by the whole request)");
  cmd->callback([&ctx, args, cmd] {
    ModelArgs& a = args->model;
    const auto request = request_of(cmd, args->request, a);
    if (args->per_phase && !request)
      throw InputError(
          "--per-phase chooses a request's prefill and decode mappings apart: give --prompt-len / --gen-len");
    const auto format = report::parse_format(a.format);
    if (args->top < 1) throw InputError("--top must be at least 1, found " + std::to_string(args->top));
    search::Options o = search_options(a, args->search, cmd);
    o.per_gemm = args->per_gemm;
    o.top = static_cast<std::size_t>(args->top);
    const auto schemes = model::compare_schemes(a.quant, !a.dump.empty());
    const model::Phases ph = phases(a);
    if (request) {
      ctx.result = request_search(a, ph, *request, schemes, o, args->per_phase, format);
      return;
    }
    const model::Model plan = load_plan(a, ph);
    const arch::Arch ar = load_arch(a);
    const auto result = run_search(ar, plan, ph, schemes, o);
    ctx.result = format == report::Format::kHtml ? report::html::render(report::html::search_doc(result, ar))
                                                 : report::render(result, format);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
