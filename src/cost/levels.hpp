// The N-level memory hierarchy of an arch with `levels` (docs/model.md "Memory levels"): nested tiles, one per
// level (each divides the tile of the level above, or covers the whole dimension, so every level's tiling of a
// dimension is the uniform one), the traffic between each pair of adjacent levels holding an operand, the capacity
// check per level (shared or partitioned per operand class, halved when double-buffered) and the choice of the inner
// levels' tiles.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::cost::detail {

/// The class of an operand (a scale or zero point: the class of the operand it scales).
arch::OperandClass class_of(const quant::Operand& op);

/// The tiles of every level (outermost first), each with its loop order.
using LevelTiles = std::vector<Tile>;

/// Elements moved into level `h` (an index into `tiles`) for `op` over one batch: the walk of the loops of levels
/// 0..h (each level's loops in its order over its tile, the outermost level's over the whole GEMM) fetches the
/// operand's level-h tile whenever it changes. The closed form is a recursion over the loops: a loop of full trips
/// and one remainder trip; a loop that indexes the operand fetches each trip's subnest afresh, a loop that does not
/// refetches it on each later trip only when the subnest visits more than one tile of the operand. For the output
/// these are the visits of a tile (each ends in a write-back; each but an element's first reads its partial sum back).
std::int64_t level_fills(const quant::Operand& op, const GemmShape& s, const LevelTiles& tiles, std::size_t h);

/// Bits of one tile of each class at level `h` (the output at accumulator bits); operands the level bypasses are 0.
std::array<i128, arch::kOperandClasses> level_tile_bits(const std::vector<quant::Operand>& ops, const GemmShape& s,
                                                        const Tile& t, std::int64_t accum_bits,
                                                        const arch::MemLevel& level);
/// Why the tile does not fit the level (nullopt: it fits), naming the level, the class and the usable bytes.
std::optional<std::string> level_misfit(const std::vector<quant::Operand>& ops, const GemmShape& s, const Tile& t,
                                        std::int64_t accum_bits, const arch::MemLevel& level);

/// The tiles of the inner levels under the outermost level's tile `outer`: level by level inward, the tile (sizes that
/// divide the level above's tile or cover the dimension, multiples of the group sizes) and order that fit the level
/// and move the fewest bits into it from the levels above; the innermost level (the array's tiles) first minimises
/// `array_stamps` (the array's time stamps over the GEMM at that tile). Ties: fewer tiles, then enumeration order.
LevelTiles inner_tiles(const std::vector<quant::Operand>& ops, const GemmShape& s, const Tile& outer,
                       std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels, std::int64_t rows,
                       std::int64_t cols, const std::function<i128(const Tile&)>& array_stamps);

/// The per-level costs and each operand's DRAM move (`dram[i]` for ops[i]) at the tiles; `array_reads[i]` is what the
/// array reads of ops[i] from its innermost holder (the output: the array's writes + partial-sum reads), `out_writes`
/// the array's writes of the output (its unique write volume; both batch included).
struct LevelTraffic {
  std::vector<LevelCost> levels;
  std::vector<std::array<std::int64_t, 2>> dram;  // per operand: {first, partial} as DramMove, one batch
};
LevelTraffic level_traffic(const std::vector<quant::Operand>& ops, const GemmShape& s, const LevelTiles& tiles,
                           std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels,
                           const std::vector<std::int64_t>& array_reads, std::int64_t out_writes);

}  // namespace tenet_cost::cost::detail
