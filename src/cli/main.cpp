// tenet-cost: command-line entry point. Exit codes: 0 ok, 1 internal error,
// 2 bad input or usage (docs/cli.md). The app itself is app.cpp (shared with the Python module).
#include "entry.hpp"

int main(int argc, char** argv) { return tenet_cost::cli::main_entry(argc, argv); }
