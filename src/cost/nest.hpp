// The buffer <-> DRAM model of a tiled GEMM loop nest (docs/model.md "Buffer and DRAM"):
// per operand, the elements moved for a given tile and loop order, and the buffer footprint
// of one tile. Shared by the tile search and the evaluation.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::cost::detail {

struct DimInfo {
  std::int64_t extent = 1;
  std::int64_t tile = 1;
  [[nodiscard]] std::int64_t trips() const { return ceil_div(extent, tile); }
};

/// The loop ('m', 'n', 'k') that a statement dim ('i', 'j', 'k') runs in; '0' for a constant index.
inline char loop_of(char dim) { return dim == 'i' ? 'm' : dim == 'j' ? 'n' : dim == 'k' ? 'k' : '0'; }

struct Nest {
  std::map<char, DimInfo> d;  // 'm','n','k'
  std::string order;          // outermost first
  Nest(const GemmShape& s, const Tile& t) : order(t.order) {
    d['m'] = {s.m, t.m};
    d['n'] = {s.n, t.n};
    d['k'] = {s.k, t.k};
  }
  [[nodiscard]] std::int64_t tiles() const { return d.at('m').trips() * d.at('n').trips() * d.at('k').trips(); }
};

/// Elements of an operand moved between DRAM and the buffer (reads; for the output: writes + partial re-reads).
struct DramMove {
  std::int64_t first = 0;     // elements at the operand's own bits (reads, or final writes)
  std::int64_t partial = 0;   // output only: extra partial-sum writes (= re-reads), at accumulator bits
};

std::int64_t footprint(const quant::Operand& op, const Nest& nest, bool tile_only);
DramMove dram_move(const quant::Operand& op, const Nest& nest);
/// Bits of DRAM traffic for the whole GEMM (one batch), for ranking tiles.
i128 dram_bits(const std::vector<quant::Operand>& ops, const Nest& nest, std::int64_t accum_bits);
/// Bits one tile of every operand occupies in the buffer (the output at accumulator bits).
i128 working_set_bits(const std::vector<quant::Operand>& ops, const Nest& nest, std::int64_t accum_bits);
/// The lcm of the group divisors along a loop (tiles must be multiples of it or cover the whole extent).
std::int64_t align_of(const std::vector<quant::Operand>& ops, char loop);

}  // namespace tenet_cost::cost::detail
