// The buffer <-> DRAM model of a tiled GEMM loop nest (docs/model.md "Buffer and DRAM"):
// per operand, the elements moved for a given tile and loop order, and the buffer footprint
// of one tile. Shared by the tile search and the evaluation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::cost::detail {

struct DimInfo {
  std::int64_t extent = 1;
  std::int64_t tile = 1;
  [[nodiscard]] std::int64_t trips() const { return ceil_div(extent, tile); }
};

/// The loop ('m', 'n', 'k') that a statement dim ('i', 'j', 'k') runs in; '0' for a constant index.
inline char loop_of(char dim) { return dim == 'i' ? 'm' : dim == 'j' ? 'n' : dim == 'k' ? 'k' : '0'; }

/// The slot of loop 'm', 'n' or 'k' (0, 1, 2); 3 for anything else.
inline int loop_slot(char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : loop == 'k' ? 2 : 3; }

struct Nest {
  std::array<DimInfo, 3> dims;       // m, n, k
  std::string order;                 // outermost first
  const ConvWindow* conv = nullptr;  // a convolution's window (the GemmShape outlives the nest)
  Nest(const GemmShape& s, const Tile& t)
      : dims{DimInfo{s.m, t.m}, DimInfo{s.n, t.n}, DimInfo{s.k, t.k}},
        order(t.order),
        conv(s.conv ? &*s.conv : nullptr) {}
  /// The loop 'm', 'n' or 'k'; InternalError for another name.
  [[nodiscard]] const DimInfo& dim(char loop) const {
    const int i = loop_slot(loop);
    if (i > 2) throw InternalError(std::string("no loop '") + loop + "' in a GEMM nest");
    return dims[static_cast<std::size_t>(i)];
  }
  [[nodiscard]] std::int64_t tiles() const { return dims[0].trips() * dims[1].trips() * dims[2].trips(); }
};

/// Elements of an operand moved between DRAM and the buffer (reads; for the output: writes + partial re-reads):
/// the closed form of docs/model.md "Buffer <-> DRAM" on the nest without its one-trip loops. A convolution's input
/// moves the distinct elements of each of its tiles (conv_window.hpp), not its im2col footprint.
struct DramMove {
  std::int64_t first = 0;     // elements at the operand's own bits (reads, or final writes)
  std::int64_t partial = 0;   // output only: extra partial-sum writes (= re-reads), at accumulator bits
};

std::int64_t footprint(const quant::Operand& op, const Nest& nest, bool tile_only);
DramMove dram_move(const quant::Operand& op, const Nest& nest);
/// Bits of DRAM traffic for the whole GEMM (one batch), for ranking tiles.
i128 dram_bits(const std::vector<quant::Operand>& ops, const Nest& nest, std::int64_t accum_bits);
/// Fused attention keeps the scores on chip: QK's output and PV's P input (its one activation operand,
/// quant::operands) move no DRAM bytes.
inline bool stays_on_chip(const GemmShape& s, const quant::Operand& op) {
  return s.scores_on_chip && ((s.role == quant::GemmRole::kAttnQK && op.write) ||
                              (s.role == quant::GemmRole::kAttnPV && op.role == quant::OperandRole::kActivation));
}
/// The operands that move between DRAM and the buffer (all but those that stay on chip).
inline std::vector<quant::Operand> dram_operands(const GemmShape& s, const std::vector<quant::Operand>& ops) {
  std::vector<quant::Operand> out;
  for (const auto& op : ops)
    if (!stays_on_chip(s, op)) out.push_back(op);
  return out;
}
/// Bits one tile of every operand occupies in the buffer (the output at accumulator bits).
i128 working_set_bits(const std::vector<quant::Operand>& ops, const Nest& nest, std::int64_t accum_bits);
/// The lcm of the group divisors along a loop (tiles must be multiples of it or cover the whole extent).
std::int64_t align_of(const std::vector<quant::Operand>& ops, char loop);

/// Calls fn(tm, tn, tk, count) for each distinct tile shape of the nest (full / remainder per dim: at most 8), with
/// the number of such tiles in one batch.
template <typename Fn>
void for_each_tile_shape(const GemmShape& s, const Tile& t, Fn&& fn) {
  const std::int64_t fm = s.m / t.m, rm = s.m % t.m;
  const std::int64_t fn_ = s.n / t.n, rn = s.n % t.n;
  const std::int64_t fk = s.k / t.k, rk = s.k % t.k;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int d = 0; d < 2; ++d) {
        const std::int64_t tm = a ? rm : t.m, tn = b ? rn : t.n, tk = d ? rk : t.k;
        const std::int64_t count = (a ? (rm ? 1 : 0) : fm) * (b ? (rn ? 1 : 0) : fn_) * (d ? (rk ? 1 : 0) : fk);
        if (count == 0 || tm == 0 || tn == 0 || tk == 0) continue;
        fn(tm, tn, tk, count);
      }
}

}  // namespace tenet_cost::cost::detail
