// Where each operand of a GEMM statement is used (docs/model.md "Where scales are applied"): values by every MAC;
// a weight-only scheme's scales where the arch dequantizes (the array edge or every MAC); the scales of a
// low-precision MAC on the partial sum once per K group / block, or once per output.
#include <algorithm>

#include "tenet_cost/error.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::quant {

std::string to_string(Apply a) {
  switch (a) {
    case Apply::kMac: return "mac";
    case Apply::kGroup: return "group";
    case Apply::kEdge: return "edge";
    case Apply::kOutput: break;
  }
  return "output";
}

namespace {

// The reduction-axis divisor of a scale index (floor(k/g): g), 1 for a plain k, 0 when k does not occur.
std::int64_t k_divisor(const Operand& op) {
  for (const auto& t : op.index)
    if (t.dim == 'k') return t.divisor;
  return 0;
}

// Where a scale or zero point is applied when its operand is not dequantized before the MAC: on the partial sum
// once per K group (a k index floor(k/g)), by every MAC (a plain k index), else once per output.
void place_on_accumulator(Operand& op) {
  const std::int64_t g = k_divisor(op);
  if (g > 1) {
    op.apply = Apply::kGroup;
    op.apply_group = g;
  } else if (g == 1) {
    op.apply = Apply::kMac;
  } else {
    op.apply = Apply::kOutput;
  }
}

}  // namespace

void place(std::vector<Operand>& ops, const Scheme& s, GemmRole role, DequantSite site) {
  // the B operand (weight or KV cache) is converted to the MAC precision before the MAC
  const bool dequantized = role == GemmRole::kLinear
                               ? s.dequant_weight
                               : (role == GemmRole::kAttnQK || role == GemmRole::kAttnPV) && s.kv.has_value();
  for (auto& op : ops) {
    if (op.role == OperandRole::kWeight && dequantized && site == DequantSite::kEdge)
      op.array_bits = precision_bits(compute_precision(s, role));
    if (!is_quant_metadata(op.role)) continue;
    if (op.of == OperandRole::kWeight && dequantized)
      op.apply = site == DequantSite::kEdge ? Apply::kEdge : Apply::kMac;
    else place_on_accumulator(op);
  }
}

void place_dequantized(std::vector<Operand>& ops, std::int64_t mac_bits, DequantSite site) {
  for (auto& op : ops) {
    const bool value = op.role == OperandRole::kActivation || op.role == OperandRole::kWeight;
    if (value && op.bits_num < 16 * op.bits_den) {
      if (site == DequantSite::kEdge) op.array_bits = mac_bits;  // enters the array dequantized
    } else if (is_quant_metadata(op.role) && op.apply != Apply::kOutput) {
      op.apply = site == DequantSite::kEdge ? Apply::kEdge : Apply::kMac;  // applied by the dequantizer
      op.apply_group = 0;
    }
  }
}

std::vector<Operand> array_operands(const std::vector<Operand>& ops) {
  std::vector<Operand> out;
  std::copy_if(ops.begin(), ops.end(), std::back_inserter(out), [](const Operand& op) { return op.in_array(); });
  return out;
}

}  // namespace tenet_cost::quant
