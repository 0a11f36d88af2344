// Non-GEMM operators on the vector unit and DRAM (docs/model.md "Operators").
#include <algorithm>

#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost {

std::int64_t OpCost::cycles_of(Term t) const {
  for (const auto& x : terms)
    if (x.term == t) return x.cycles;
  return 0;
}

OpCost vector_op(const arch::Arch& arch, const OpShape& s) {
  if (s.ops < 0 || s.dram_read_bytes < 0 || s.dram_write_bytes < 0)
    throw InputError("operator figures must not be negative");
  OpCost c;
  c.shape = s;
  c.dram_bytes = checked_add(s.dram_read_bytes, s.dram_write_bytes, "operator DRAM bytes");
  const std::int64_t vector_cycles = ceil_div(s.ops, std::max<std::int64_t>(1, arch.vector_ops_per_cycle));
  const std::int64_t dram_cycles =
      checked_narrow((static_cast<i128>(c.dram_bytes) * arch.clock_mhz + arch.dram_mb_per_s - 1) /
                         std::max<std::int64_t>(1, arch.dram_mb_per_s),
                     "cycles");
  c.terms = {{Term::kVector, vector_cycles}, {Term::kDram, dram_cycles}};
  c.cycles = vector_cycles;
  c.bound = Term::kVector;
  if (dram_cycles > c.cycles) {
    c.cycles = dram_cycles;
    c.bound = Term::kDram;
  }
  c.latency_s = static_cast<double>(c.cycles) / (static_cast<double>(arch.clock_mhz) * 1e6);
  const double bits = static_cast<double>(c.dram_bytes) * 8.0;
  const double vector_pj = static_cast<double>(s.ops) * arch.vector_op_pj, dram_pj = bits * arch.dram_pj_per_bit,
               buffer_pj = bits * arch.buffer_pj_per_bit;
  c.energy_j = (vector_pj + dram_pj + buffer_pj) * 1e-12;
  c.energy_by_term[EnergyTerm::kVector] = vector_pj * 1e-12;
  c.energy_by_term[EnergyTerm::kDram] = dram_pj * 1e-12;
  c.energy_by_term[EnergyTerm::kBuffer] = buffer_pj * 1e-12;
  return c;
}

}  // namespace tenet_cost::cost
