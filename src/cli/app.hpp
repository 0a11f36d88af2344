// The whole command line as a library (tc_cli): main() and the Python module (src/python) run the same app, so
// both take the same options, give the same output and the same errors.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "commands.hpp"

namespace tenet_cost::cli {

inline constexpr const char* kAppDescription =
    "tenet-cost: cost of LLM GEMM workloads on spatial accelerators (TENET relation-centric model)";

/// Log lines on stderr in the CLI's format (spdlog's default logger writes to stdout, where they would mix with a
/// result: a -v run's JSON would not parse). Warnings and errors only until -v asks for more.
void use_stderr_log();

/// The app: the global options (-o/--output into ctx.output, -v, --version, --list-commands) and every command of
/// commands(). A command's output lands in ctx.result; --list-commands puts the table there and throws CLI::Success.
void build_app(CLI::App& app, Context& ctx);

/// One command line run in-process (`args` without the program name, e.g. {"compare", "--format", "json"}): the
/// command's complete output, also written to -o FILE when given. --help / --version give their text. Bad input or
/// usage throws InputError (a CLI11 parse error becomes one, with CLI11's message); nothing exits the process.
std::string run(const std::vector<std::string>& args);

/// How a command's option takes its values (the Python module maps keyword arguments with it).
enum class OptionKind {
  kFlag,      // no value: `--strict`
  kValue,     // one value: `--quant a,b` (a list is one comma-separated value)
  kRepeated,  // one value per occurrence, repeatable: `--set a=1 --set b=2`
};
struct OptionInfo {
  std::string flag;  // the long name with its dashes ("--seq-len"); a positional: its name ("DUMP")
  OptionKind kind = OptionKind::kValue;
  bool positional = false;
  std::string help;  // the --help text
};
/// The options of the command at `path` ({"compare"}, {"quant", "list"}, {"sweep", "merge"}), in --help order,
/// without -h/--help and the global options. Throws InputError for an unknown command.
std::vector<OptionInfo> options(const std::vector<std::string>& path);

}  // namespace tenet_cost::cli
