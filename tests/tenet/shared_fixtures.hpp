// ../shared fixtures for the TENET tests: a skip outside CI, a failure in CI.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "test_support.hpp"

namespace tc_test {

/// ../shared/<rel>, or "" when it is absent: then the caller returns (a skip, with a warning) — unless the
/// environment variable CI is set (CI has ../shared): there a missing folder fails the test instead of passing it.
inline std::string shared_or_skip(const std::string& rel) {
  std::string p = shared_path(rel);
  if (!p.empty()) return p;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && *ci != '\0')
    FAIL("../shared/" << rel << " is missing, and CI is set: the fixtures must be there");
  WARN("../shared/" << rel << " absent: skipped");
  return p;
}

}  // namespace tc_test
