// tenet-cost: command-line entry point. Exit codes: 0 ok, 1 internal error,
// 2 bad input or usage (docs/cli.md). The app itself is app.cpp (shared with the Python module).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>

#include "app.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"

int main(int argc, char** argv) {
  using tenet_cost::ExitCode;
  tenet_cost::cli::use_stderr_log();
  CLI::App app{tenet_cost::cli::kAppDescription};
  tenet_cost::cli::Context ctx;
  tenet_cost::cli::build_app(app, ctx);

  try {
    app.parse(argc, argv);
    tenet_cost::write_output(ctx.output, ctx.result);
    return static_cast<int>(ExitCode::kOk);
  } catch (const CLI::Success& e) {
    std::cout << ctx.result;  // --list-commands' table; empty for --help and --version, which app.exit prints
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
