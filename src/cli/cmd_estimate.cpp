// tenet-cost estimate DUMP|--hf-config F [--quant S] [model options]
#include <memory>

#include "model_args.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"

namespace tenet_cost::cli {

CLI::App* add_estimate(CLI::App& app, const Command& self, Context& ctx) {
  auto args = std::make_shared<ModelArgs>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->dump, "TVMScript / TVM JSON dump (or use --hf-config)");
  cmd->add_option("--quant", args->quant, "Quantization scheme (default: the dump's own)");
  add_model_options(cmd, *args);
  cmd->callback([&ctx, args] {
    const auto format = report::parse_format(args->format);
    std::optional<quant::Scheme> scheme;
    if (!args->quant.empty()) scheme = quant::parse_scheme(args->quant);
    cost::Estimator est = make_estimator(*args);
    const model::Phases ph = phases(*args);
    const model::Model plan = load_plan(*args, ph, false);
    const auto memory = check_capacity(*args, est.arch(), plan, {scheme});
    auto result = model::estimate(est, plan, ph, scheme);
    result.info.notes.insert(result.info.notes.end(), memory.begin(), memory.end());
    ctx.result = format == report::Format::kHtml ? report::html::render(report::html::estimate_doc(result, est.arch()))
                                                 : report::render(result, format);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
