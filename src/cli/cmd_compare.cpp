// tenet-cost compare [DUMP|--hf-config F] [--quant S1,S2,...] [--search [--dataflows ..] [--pe-budget N] [--jobs N]]
//                    [model options]
#include <memory>

#include "model_args.hpp"
#include "progress.hpp"
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

}  // namespace

CLI::App* add_compare(CLI::App& app, const Command& self, Context& ctx) {
  auto args = std::make_shared<ModelArgs>();
  auto sargs = std::make_shared<SearchArgs>();
  auto searched = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->dump, "Dump (default: the shipped Llama-2-7B)");
  cmd->add_option("--quant", args->quant, "Comma-separated schemes (default: " + default_list() + ")");
  add_model_options(cmd, *args);
  cmd->add_flag("--search", *searched,
                "Rank each scheme at its own best mapping (the search's dataflow, array and tiles; docs/search.md)");
  add_search_options(cmd, *sargs);
  cmd->callback([&ctx, args, sargs, searched, cmd] {
    const auto format = report::parse_format(args->format);
    // with --mlc-config and no --quant: the build's quantization first, then the defaults
    std::string list = args->quant;
    if (list.empty() && !args->mlc_config.empty()) {
      list = quant_or_mlc(*args);
      for (const auto& n : model::default_schemes())
        if (n != list) list += "," + n;
    }
    const auto schemes = model::compare_schemes(list, !args->dump.empty());
    if (!*searched) {
      for (const char* flag : {"--dataflows", "--pe-budget", "--jobs"})
        if (cmd->count(flag) > 0) throw InputError(std::string(flag) + " needs --search");
    } else {
      if (format == report::Format::kHtml)
        throw InputError("compare --search has no html view: use search --format html");
      const search::Options o = search_options(*args, *sargs, cmd);
      const arch::Arch ar = load_arch(*args);
      const model::Phases ph = phases(*args);
      const model::Model plan = load_plan(*args, ph);
      const auto best = run_search(ar, plan, ph, schemes, o);
      ctx.result = report::render(search::compare_at_best(ar, plan, ph, schemes, o, best), format);
      return;
    }
    cost::Estimator est = make_estimator(*args);
    const model::Phases ph = phases(*args);
    const model::Model plan = load_plan(*args, ph);
    const auto memory = check_capacity(*args, est.arch(), plan, schemes);
    Progress progress("compare", "schemes", schemes.size());
    auto result =
        model::compare(est, plan, ph, schemes, [&](std::size_t done, const std::string& s) { progress.step(done, s); });
    result.info.notes.insert(result.info.notes.end(), memory.begin(), memory.end());
    if (format != report::Format::kHtml) {
      ctx.result = report::render(result, format);
      return;
    }
    // the report also shows each scheme's breakdown and roofline (the estimator's cache makes these cheap)
    std::vector<model::EstimateResult> per_scheme;
    per_scheme.reserve(schemes.size());
    for (const auto& s : schemes) per_scheme.push_back(model::estimate(est, plan, ph, s));
    ctx.result = report::html::render(report::html::compare_doc(result, per_scheme, est.arch()));
  });
  return cmd;
}

}  // namespace tenet_cost::cli
