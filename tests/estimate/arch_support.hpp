// Test helper: the shipped edge NPU preset with another PE array and buffer size.
#pragma once

#include <cstdint>

#include "tenet_cost/arch.hpp"

namespace tc_test {

inline tenet_cost::arch::Arch edge_arch(std::int64_t rows, std::int64_t cols, std::int64_t buffer) {
  tenet_cost::arch::set_data_root(TC_SOURCE_DIR);
  tenet_cost::arch::Arch a = tenet_cost::arch::load_arch("edge-npu-32x32");
  a.rows = rows;
  a.cols = cols;
  a.buffer_bytes = buffer;
  return a;
}

}  // namespace tc_test
