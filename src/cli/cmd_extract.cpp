#include "commands.hpp"

namespace tenet_cost::cli {
void add_extract_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("extract", "Extract GEMM workloads from a TVMScript / TVM-JSON dump");
  cmd->callback([&ctx] { ctx.result = ""; });
}
}  // namespace tenet_cost::cli
