// Helpers shared by the tests: fixture paths and running the CLI binary.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tenet_cost/precision.hpp"

namespace tc_test {

/// The project's own fixtures (tests/fixtures).
inline std::string fixture(const std::string& rel) { return std::string(TC_FIXTURE_DIR) + "/" + rel; }

/// ../shared/<rel>, or "" when ../shared is not there (callers SKIP/return).
inline std::string shared_path(const std::string& rel) {
  const std::string p = std::string(TC_SHARED_DIR) + "/" + rel;
  return std::filesystem::exists(p) ? p : std::string();
}

struct RunResult {
  int exit_code = -1;
  std::string out;   // stdout
  std::string err;   // stderr
};

/// A MAC precision by the name an arch JSON gives it (throws on a typo in a test).
inline tenet_cost::MacPrecision mac(std::string_view name) {
  if (const auto p = tenet_cost::parse_mac_precision(name)) return *p;
  throw std::invalid_argument("no MAC precision " + std::string(name));
}

/// Run the tenet-cost binary with the given argument string (shell-quoted by
/// the caller) and capture stdout/stderr.
RunResult run_cli(const std::string& args);

}  // namespace tc_test
