// The CLI is a thin adapter: each command parses its flags, calls the library
// (model/, cost/, extract, tenet) and hands the result to a report/ view. A
// command's callback computes its whole output into Context::result (or a Spool on disk); main()
// writes it only after the command succeeded (atomically when -o is a file).
// Every command is a row of commands() (commands.cpp), which also gives the
// --help text and the command table of docs/cli.md.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tenet_cost/output.hpp"

namespace tenet_cost::cli {

struct Context {
  std::string result;   // the complete output of the command that ran
  std::shared_ptr<Spool> result_file;  // instead of `result`: a large output built on disk (sweep, sweep merge)
  bool verbose = false; // -v
  std::string output = "-";  // -o: where main() writes `result` (a command may refuse an input or output it names)
};

struct Command {
  const char* name;
  const char* description;  // one line: --help and docs/cli.md
  const char* doc;          // the docs/ page(s) it is described in
  CLI::App* (*add)(CLI::App& app, const Command& self, Context& ctx);
};

/// Every command, in the order of --help.
const std::vector<Command>& commands();
/// The command table of docs/cli.md (markdown), from commands().
std::string commands_markdown();

CLI::App* add_tenet(CLI::App& app, const Command& self, Context& ctx);     // cmd_tenet.cpp
CLI::App* add_extract(CLI::App& app, const Command& self, Context& ctx);   // cmd_extract.cpp
CLI::App* add_estimate(CLI::App& app, const Command& self, Context& ctx);  // cmd_estimate.cpp
CLI::App* add_compare(CLI::App& app, const Command& self, Context& ctx);   // cmd_compare.cpp
CLI::App* add_search(CLI::App& app, const Command& self, Context& ctx);    // cmd_search.cpp
CLI::App* add_sweep(CLI::App& app, const Command& self, Context& ctx);     // cmd_sweep.cpp
CLI::App* add_quant(CLI::App& app, const Command& self, Context& ctx);     // cmd_quant.cpp
CLI::App* add_export(CLI::App& app, const Command& self, Context& ctx);    // cmd_export.cpp

/// The folder holding configs/ and workloads/ (data_root.cpp): $TENET_COST_DATA when set, else next to
/// the executable (.., ../share/tenet-cost, ., ../..), else the source tree it was built from.
/// Throws InputError naming what was tried.
std::string data_root();

}  // namespace tenet_cost::cli
