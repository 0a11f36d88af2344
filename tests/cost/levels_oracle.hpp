// What the brute-force oracles of the memory levels share (test_levels_oracle.cpp, test_levels_instances.cpp):
// a loop segment per GEMM loop, the elements of an operand over segments, and the operand list with groups.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "cost/nest.hpp"
#include "tenet_cost/quant.hpp"

namespace levels_oracle {

struct Seg {
  std::int64_t lo = 0, hi = 0;
};
using Segs = std::array<Seg, 3>;  // m, n, k
using Elem = std::vector<std::int64_t>;

/// The distinct elements of `op` over the segments (a grouped index: v / divisor).
inline std::set<Elem> elements(const tenet_cost::quant::Operand& op, const Segs& s) {
  using namespace tenet_cost::cost::detail;
  std::set<Elem> out{Elem{}};
  for (const auto& x : op.index) {
    if (x.dim == '0') continue;
    const Seg& g = s[static_cast<std::size_t>(loop_slot(loop_of(x.dim)))];
    std::set<Elem> next;
    for (const auto& e : out)
      for (std::int64_t v = g.lo; v < g.hi; ++v) {
        Elem f = e;
        f.push_back(v / x.divisor);
        next.insert(f);
      }
    out = std::move(next);
  }
  return out;
}

/// A, W, SW[j/4, k/2], SA[i, k/2], C (fp8-block4x2) and a per-tensor scale S[0].
inline std::vector<tenet_cost::quant::Operand> oracle_ops() {
  using namespace tenet_cost::quant;
  auto ops = operands(parse_scheme("fp8-block4x2"), GemmRole::kLinear, DequantSite::kEdge);
  ops.push_back(operands(parse_scheme("fp8-tensor"), GemmRole::kLinear, DequantSite::kEdge)[2]);
  return ops;
}

}  // namespace levels_oracle
