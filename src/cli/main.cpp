// tenet-cost: command-line entry point. Exit codes: 0 ok, 1 internal error,
// 2 bad input or usage (docs/cli.md).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>

#include "commands.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"

int main(int argc, char** argv) {
  using tenet_cost::ExitCode;
  // Logs go to stderr: spdlog's default logger writes to stdout, where they
  // would mix with the result (a -v run's JSON would not parse).
  spdlog::set_default_logger(spdlog::stderr_color_mt("tenet-cost"));
  spdlog::set_pattern("tenet-cost: %l: %v");
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"tenet-cost: cost of LLM GEMM workloads on spatial accelerators (TENET relation-centric model)"};
  tenet_cost::cli::Context ctx;
  app.require_subcommand(1);
  // -o/-v are accepted anywhere: subcommands created below inherit fallthrough, so an
  // option they do not know is matched against the app's (`compare -o out.csv`).
  app.fallthrough();
  app.set_version_flag("--version", std::string("tenet-cost 0.1.0"));
  app.add_option("-o,--output", ctx.output,
                 "Write the result to this file instead of stdout (atomically; a device or FIFO is written directly)");
  app.add_flag("-v,--verbose", ctx.verbose, "Debug logging on stderr");
  // the command table of docs/cli.md, generated from the one table that registers the commands
  app.add_flag_callback(
      "--list-commands",
      [] {
        std::cout << tenet_cost::cli::commands_markdown();
        throw CLI::Success();
      }, "Print the command table (markdown) and exit")
      ->group("");
  app.parse_complete_callback([&] {
    if (ctx.verbose) spdlog::set_level(spdlog::level::debug);
  });
  for (const auto& c : tenet_cost::cli::commands()) c.add(app, c, ctx);

  try {
    app.parse(argc, argv);
    tenet_cost::write_output(ctx.output, ctx.result);
    return static_cast<int>(ExitCode::kOk);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error; the usage text is one --help away.
    std::cerr << "tenet-cost: error: " << e.what() << " (see tenet-cost --help)\n";
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const tenet_cost::InputError& e) {
    std::cerr << "tenet-cost: error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const std::bad_alloc&) {
    std::cerr << "tenet-cost: error: out of memory\n";
    return static_cast<int>(ExitCode::kInternal);
  } catch (const std::exception& e) {
    std::cerr << "tenet-cost: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kInternal);
  }
}
