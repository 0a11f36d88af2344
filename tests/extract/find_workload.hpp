// The workload of a function in an extraction result (tests of src/extract).
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "tenet_cost/extract.hpp"

namespace tc_test {

/// The first workload whose function is `fn`; fails the test when there is none.
inline const tenet_cost::Workload& workload_named(const tenet_cost::ExtractResult& r, const std::string& fn) {
  for (const auto& w : r.workloads)
    if (w.function == fn) return w;
  FAIL("no workload " << fn);
  throw 0;
}

}  // namespace tc_test
