#include "commands.hpp"

namespace tenet_cost::cli {
void add_estimate_commands(CLI::App& app, Context& ctx) {
  auto* est = app.add_subcommand("estimate", "Per-workload cost of a model on an accelerator");
  est->callback([&ctx] { ctx.result = ""; });
  auto* cmp = app.add_subcommand("compare", "Compare quantization schemes on one model and accelerator");
  cmp->callback([&ctx] { ctx.result = ""; });
}
}  // namespace tenet_cost::cli
