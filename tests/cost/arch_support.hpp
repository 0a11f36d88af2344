// Test helpers: the shipped presets folder, the edge NPU preset with another PE array and buffer
// size, and the closed forms of a preset named by text.
#pragma once

#include <cstdint>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"

namespace tc_test {

inline std::string presets_dir() { return std::string(TC_SOURCE_DIR) + "/configs/arch"; }

inline tenet_cost::arch::Arch edge_arch(std::int64_t rows, std::int64_t cols, std::int64_t buffer) {
  tenet_cost::arch::Arch a = tenet_cost::arch::load_arch("edge-npu-32x32", presets_dir());
  a.rows = rows;
  a.cols = cols;
  a.buffer_bytes = buffer;
  return a;
}

/// The closed forms of preset `name` ("os", "ws"); throws when the preset or an operand has none.
inline tenet_cost::mapping::TileMetrics cf_tile(const std::string& name, std::int64_t rows, std::int64_t cols,
                                                std::int64_t tm, std::int64_t tn, std::int64_t tk,
                                                const std::vector<tenet_cost::quant::Operand>& ops) {
  const auto df = tenet_cost::mapping::parse_dataflow(name);
  auto m = tenet_cost::mapping::closed_form_tile(*df.preset, rows, cols, tm, tn, tk, ops);
  if (!m) throw tenet_cost::InputError("no closed form for " + name);
  return *m;
}

}  // namespace tc_test
