// tenet-cost estimate DUMP|--hf-config F [--quant S] [--plan FILE] [model options]
#include <memory>

#include "convention.hpp"
#include "cost/conventions.hpp"
#include "model_args.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::cli {

CLI::App* add_estimate(CLI::App& app, const Command& self, Context& ctx) {
  auto args = std::make_shared<ModelArgs>();
  auto replay = std::make_shared<std::string>();
  auto convention = std::make_shared<std::string>("physical");
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->dump, "TVMScript / TVM JSON dump (or use --hf-config)");
  cmd->add_option("--quant", args->quant,
                  "Quantization scheme (default: the dump's own; with --plan: which of the plan's schemes)");
  add_model_options(cmd, *args);
  cmd->add_option("--plan", *replay,
                  "Replay a saved `search --format json` result: its dataflow, array and each GEMM's tile and order");
  cmd->add_option("--convention", *convention,
                  "physical (default: our model) | scalesim | timeloop (count as SCALE-Sim v3 / Timeloop do; "
                  "docs/validation.md)");
  cmd->callback([&ctx, args, replay, convention, cmd] {
    const auto conv = cost::convention::parse_convention(*convention);
    if (conv != cost::convention::Convention::physical) {
      if (!replay->empty()) throw InputError("--convention " + *convention + " and --plan: drop one");
      ctx.result = conv == cost::convention::Convention::scalesim ? scalesim_convention_report(*args)
                                                                  : timeloop_convention_report(*args);
      return;
    }
    const auto format = report::parse_format(args->format);
    // the memory check (its notes), then the view
    auto emit = [&](model::EstimateResult result, const arch::Arch& ar, const model::Model& plan) {
      const auto memory = check_capacity(*args, ar, plan, {result.scheme});
      result.info.notes.insert(result.info.notes.end(), memory.begin(), memory.end());
      ctx.result = format == report::Format::kHtml ? report::html::render(report::html::estimate_doc(result, ar))
                                                   : report::render(result, format);
    };
    if (!replay->empty()) {
      for (const char* flag : {"--tile", "--dataflow"})
        if (cmd->count(flag) > 0) throw InputError(std::string(flag) + " and --plan: the plan fixes it; drop one");
      arch::Arch ar = load_arch(*args);
      const model::Phases ph = phases(*args);
      const model::Model plan = load_plan(*args, ph);
      const search::Replay r = search::read_replay(*replay, plan, ar.name, args->quant);
      ar.rows = r.rows;
      ar.cols = r.cols;
      emit(search::replay(r, ar, cost_options(*args), plan, ph), ar, plan);
      return;
    }
    std::optional<quant::Scheme> scheme;
    const std::string quant = quant_or_mlc(*args);
    if (!quant.empty()) scheme = quant::parse_scheme(quant);
    cost::Estimator est = make_estimator(*args);
    const model::Phases ph = phases(*args);
    const model::Model plan = load_plan(*args, ph);
    emit(model::estimate(est, plan, ph, scheme), est.arch(), plan);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
