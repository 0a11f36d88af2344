#include "commands.hpp"

namespace tenet_cost::cli {
void add_tenet_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("tenet", "Evaluate a TENET (PE array, statement, mapping) triple");
  cmd->callback([&ctx] { ctx.result = ""; });
}
}  // namespace tenet_cost::cli
