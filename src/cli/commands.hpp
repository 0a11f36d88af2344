// Each subcommand registers itself on the CLI11 app. A command's callback
// computes its whole output into Context::result; main() writes it only
// after the command succeeded (atomically when --output is a file).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tenet_cost::cli {

struct Context {
  std::string result;   // the complete output of the command that ran
};

void add_tenet_command(CLI::App& app, Context& ctx);     // src/cli/cmd_tenet.cpp
void add_extract_command(CLI::App& app, Context& ctx);   // src/cli/cmd_extract.cpp
void add_estimate_commands(CLI::App& app, Context& ctx); // src/cli/cmd_estimate.cpp (estimate, compare, quant)

}  // namespace tenet_cost::cli
