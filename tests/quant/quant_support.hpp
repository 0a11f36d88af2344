// Test helper of tests/quant: the message of a scheme name's InputError ("" when it parses).
#pragma once

#include <string>

#include "tenet_cost/error.hpp"
#include "tenet_cost/quant.hpp"

namespace tc_test {

inline std::string error_of(const std::string& scheme) {
  try {
    (void)tenet_cost::quant::parse_scheme(scheme);
  } catch (const tenet_cost::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tc_test
