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

/// The tiles of every level (outermost first), each with its loop order. With instances (docs/model.md "Memory
/// levels"), a level's tile is its span: the block its loops step over inside one instance of the level above, which
/// the fan-out splits evenly into the instances' tiles (instance_tile).
using LevelTiles = std::vector<Tile>;

/// Per level: the fan-out of each loop (m, n, k) from one instance of the level above (DRAM for the outermost) to
/// this level's instances: grid_rows / the level above's along the loop on the PE rows, grid_cols / ... along the
/// loop on the columns, 1 elsewhere. Empty when no level has instances (every count is then the shared model's).
using LevelFanouts = std::vector<std::array<std::int64_t, 3>>;
/// The fan-outs of `levels` under a dataflow's loops on the rows and columns (mapping::spatial_dims); InputError when
/// a level has instances and the dataflow's spatial loops are not known (a user `.m` mapping).
LevelFanouts level_fanouts(const std::vector<arch::MemLevel>& levels,
                           const std::optional<std::array<char, 2>>& spatial_dims);
/// The tile of one instance: the span split evenly along each fanned loop (ceil(span / fan-out)).
Tile instance_tile(const Tile& span, const std::array<std::int64_t, 3>& fan);
/// The tile the array runs: the innermost level's instance tile over all of its instances (the product of the
/// fan-outs along each loop), within the GEMM.
Tile array_tile(const GemmShape& s, const LevelTiles& tiles, const LevelFanouts& fans);
/// The instances of level h that hold data: per fanned loop, those whose share of the largest segment is not empty.
std::int64_t active_instances(const GemmShape& s, const LevelTiles& tiles, const LevelFanouts& fans, std::size_t h);

/// Elements moved into level `h` (an index into `tiles`) for `op` over one batch: the walk of the loops of levels
/// 0..h (each level's loops in its order over its tile, the outermost level's over the whole GEMM) fetches the
/// operand's level-h tile whenever it changes. The closed form is a recursion over the loops: a loop of full trips
/// and one remainder trip; a loop that indexes the operand fetches each trip's subnest afresh, a loop that does not
/// refetches it on each later trip only when the subnest visits more than one tile of the operand. For the output
/// these are the visits of a tile (each ends in a write-back; each but an element's first reads its partial sum back).
std::int64_t level_fills(const quant::Operand& op, const GemmShape& s, const LevelTiles& tiles, std::size_t h);
/// The same with instances, summed over the instances of level h: each instance walks the loops of levels 0..h with
/// its share of every fanned loop (an instance whose share is empty is idle). A fan-out at a level >= `shared_from`
/// along a loop the operand does not index counts once: its instances get the same elements at the same steps, so
/// the level above reads them once (multicast) or, for the output, receives one reduced update. shared_from = h + 1:
/// every instance's own fills (what is written into the level); the index of the level after the parent holder
/// (0 for DRAM): what the parent serves.
std::int64_t level_fills(const quant::Operand& op, const GemmShape& s, const LevelTiles& tiles,
                         const LevelFanouts& fans, std::size_t h, std::size_t shared_from);

/// Bits of one tile of each class at level `h` (the output at accumulator bits); operands the level bypasses are 0.
std::array<i128, arch::kOperandClasses> level_tile_bits(const std::vector<quant::Operand>& ops, const GemmShape& s,
                                                        const Tile& t, std::int64_t accum_bits,
                                                        const arch::MemLevel& level);
/// Why the tile does not fit the level (nullopt: it fits), naming the level, the class and the usable bytes.
std::optional<std::string> level_misfit(const std::vector<quant::Operand>& ops, const GemmShape& s, const Tile& t,
                                        std::int64_t accum_bits, const arch::MemLevel& level);

/// The tiles of the inner levels under the outermost level's tile `outer`: level by level inward, the tile (spans that
/// divide the level above's instance tile or cover the dimension, instance tiles multiples of the group sizes) and
/// order whose instance tile fits the level and that move the fewest bits into the level's instances; the innermost
/// level (the array's tiles) first minimises `array_stamps` (the array's time stamps over the GEMM at that tile). Ties:
/// fewer tiles, then enumeration order.
LevelTiles inner_tiles(const std::vector<quant::Operand>& ops, const GemmShape& s, const Tile& outer,
                       std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels, const LevelFanouts& fans,
                       std::int64_t rows, std::int64_t cols, const std::function<i128(const Tile&)>& array_stamps);

/// The per-level costs and each operand's DRAM move (`dram[i]` for ops[i]) at the tiles; `array_reads[i]` is what the
/// array reads of ops[i] from its innermost holder (the output: the array's writes + partial-sum reads), `out_writes`
/// the array's writes of the output (its unique write volume; both batch included).
struct LevelTraffic {
  std::vector<LevelCost> levels;
  std::vector<std::array<std::int64_t, 2>> dram;  // per operand: {first, partial} as DramMove, one batch
};
LevelTraffic level_traffic(const std::vector<quant::Operand>& ops, const GemmShape& s, const LevelTiles& tiles,
                           const LevelFanouts& fans, std::int64_t accum_bits, const std::vector<arch::MemLevel>& levels,
                           const std::vector<std::int64_t>& array_reads, std::int64_t out_writes);

}  // namespace tenet_cost::cost::detail
