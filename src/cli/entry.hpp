// The process entry of tenet-cost, declared without CLI11: main.cpp includes only this, so it compiles in a moment
// (CLI11 is header-only and costs seconds per translation unit; docs/performance.md "Build").
#pragma once

namespace tenet_cost::cli {

/// The whole process: runs the command line and writes the result (-o); returns the exit code (0 ok, 1 internal
/// error, 2 bad input or usage; docs/cli.md). Errors are one line on stderr.
int main_entry(int argc, char** argv);

}  // namespace tenet_cost::cli
