// tenet-cost compare [DUMP|--hf-config F] [--quant S1,S2,...] [--search [--dataflows ..] [--pe-budget N] [--jobs N]]
//                    [--prompt-len P] [--gen-len G] [--rank-by ttft|tpot|e2e|energy|edp] [model options]
#include <memory>
#include <optional>

#include "model_args.hpp"
#include "progress.hpp"
#include "request_args.hpp"
#include "search_args.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::cli {

namespace {

std::string default_list() {
  std::string s;
  for (const auto& n : model::default_schemes()) s += (s.empty() ? "" : ",") + n;
  return s;
}

// compare over chips (--tp / --pp / --ep; docs/model.md "Parallelism over chips"), with whole requests when asked.
// With --search (`search`), each (deployment, scheme) at the mapping whose deployment is best (docs/search.md
// "Deployments").
std::string deployed_compare(const ModelArgs& args, const std::vector<std::optional<quant::Scheme>>& schemes,
                             report::Format format, const std::optional<search::Options>& search,
                             const std::optional<model::Request>& request, model::RankBy rank) {
  if (request && args.grid.size() > 1 && format != report::Format::kJson && format != report::Format::kHtml)
    throw InputError(
        "requests (--prompt-len / --gen-len) over several deployments: the deployments' table has no request columns; "
        "use --format json or html, or one deployment");
  cost::Estimator est = make_estimator(args);
  const model::Phases ph = phases(args);
  const model::Model plan = plan_source(args).at(ph);
  if (!plan.config)
    throw InputError(
        "--tp / --pp / --ep shard a config's plan (--hf-config or --mlc-config); a dump's or --gemm's GEMMs are one "
        "chip's shapes already");
  if (search) {
    if (format == report::Format::kHtml) throw InputError("compare --search has no html view: use --format table");
    return report::render(search::compare_deployed_at_best(load_arch(args), plan, *plan.config, ph, schemes, args.grid,
                                                           *search, request, rank),
                          format);
  }
  Progress progress("compare", "rows", schemes.size() * args.grid.size());
  const auto step = [&](std::size_t done, const std::string& s) { progress.step(done, s); };
  const model::CompareResult result =
      request ? model::compare_deployments(est, plan, *plan.config, ph, schemes, args.grid, *request, rank, step)
              : model::compare_deployments(est, plan, *plan.config, ph, schemes, args.grid, step);
  if (format == report::Format::kHtml) return report::html::render(report::html::deployments_doc(result, est.arch()));
  return report::render(result, format);
}

}  // namespace

CLI::App* add_compare(CLI::App& app, const Command& self, Context& ctx) {
  auto args = std::make_shared<ModelArgs>();
  auto sargs = std::make_shared<SearchArgs>();
  auto searched = std::make_shared<bool>(false);
  auto per_phase = std::make_shared<bool>(false);
  auto rargs = std::make_shared<RequestArgs>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->dump, "Dump (default: the shipped Llama-2-7B)");
  cmd->add_option("--quant", args->quant, "Comma-separated schemes (default: " + default_list() + ")");
  add_model_options(cmd, *args);
  add_parallel_options(cmd, *args);
  cmd->add_flag("--search", *searched,
                "Rank each scheme at its own best mapping (the search's dataflow, array and tiles; docs/search.md)");
  add_search_options(cmd, *sargs);
  cmd->add_flag("--per-phase", *per_phase,
                "With --search and a request: the prefill's mapping chosen by the prefill, the decode's by the "
                "decode steps (default: one mapping by the whole request)");
  add_request_options(cmd, *rargs, true);
  cmd->callback([&ctx, args, sargs, searched, per_phase, rargs, cmd] {
    const auto format = report::parse_format(args->format);
    // with --mlc-config and no --quant: the build's quantization first, then the defaults
    std::string list = args->quant;
    if (list.empty() && !args->mlc_config.empty()) {
      list = quant_or_mlc(*args);
      for (const auto& n : model::default_schemes())
        if (n != list) list += "," + n;
    }
    const auto schemes = model::compare_schemes(list, !args->dump.empty());
    const auto request = request_of(cmd, *rargs, *args);
    const model::RankBy rank = model::parse_rank_by(rargs->rank_by);
    if (*per_phase && !(*searched && request))
      throw InputError(
          "--per-phase chooses the prefill's and the decode's mappings of a request apart: give --search and "
          "--prompt-len / --gen-len");
    if (deployed(*args)) {
      if (*per_phase)
        throw InputError(
            "--per-phase with --tp / --pp / --ep: a deployment's mapping is chosen by its whole request (drop "
            "--per-phase)");
      const auto o = *searched ? std::optional(search_options(*args, *sargs, cmd)) : std::nullopt;
      if (!*searched)
        for (const char* flag : {"--dataflows", "--pe-budget", "--jobs"})
          if (cmd->count(flag) > 0) throw InputError(std::string(flag) + " needs --search");
      ctx.result = deployed_compare(*args, schemes, format, o, request, rank);
      return;
    }
    if (!*searched) {
      for (const char* flag : {"--dataflows", "--pe-budget", "--jobs"})
        if (cmd->count(flag) > 0) throw InputError(std::string(flag) + " needs --search");
    } else {
      if (format == report::Format::kHtml)
        throw InputError("compare --search has no html view: use search --format html");
      const search::Options o = search_options(*args, *sargs, cmd);
      const arch::Arch ar = load_arch(*args);
      const model::Phases ph = phases(*args);
      if (request) {  // mappings chosen by the whole request (or per phase), never by one decode step
        ctx.result = report::render(
            search::compare_request_at_best(ar, plan_source(*args), ph, *request, schemes, o, *per_phase, rank),
            format);
        return;
      }
      const model::Model plan = load_plan(*args, ph);
      const auto best = run_search(ar, plan, ph, schemes, o);
      ctx.result = report::render(search::compare_at_best(ar, plan, ph, schemes, o, best), format);
      return;
    }
    cost::Estimator est = make_estimator(*args);
    const model::Phases ph = phases(*args);
    const model::PlanSource source = plan_source(*args);
    const model::Model plan = source.at(ph);
    const auto memory = check_capacity(*args, est.arch(), plan, schemes);
    Progress progress("compare", "schemes", schemes.size());
    auto result =
        model::compare(est, plan, ph, schemes, [&](std::size_t done, const std::string& s) { progress.step(done, s); });
    if (request) model::add_requests(result, est, source.at, ph, *request, schemes, rank, source.config);
    result.info.notes.insert(result.info.notes.end(), memory.begin(), memory.end());
    if (format != report::Format::kHtml) {
      ctx.result = report::render(result, format);
      return;
    }
    // the report also shows each scheme's breakdown and roofline (the estimator's cache makes these cheap)
    std::vector<model::EstimateResult> per_scheme;  // in the rows' order (--rank-by may have reordered them)
    per_scheme.reserve(schemes.size());
    for (const model::CompareRow& row : result.rows)
      for (const auto& s : schemes)
        if (model::scheme_label(plan, s) == row.scheme) {
          per_scheme.push_back(model::estimate(est, plan, ph, s));
          break;
        }
    ctx.result = report::html::render(report::html::compare_doc(result, per_scheme, est.arch()));
  });
  return cmd;
}

}  // namespace tenet_cost::cli
