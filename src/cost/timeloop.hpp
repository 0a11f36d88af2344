// The `timeloop` convention (docs/validation.md): a loop nest over storage levels counted the way Timeloop's
// nest analysis counts it, so that the Timeloop/Accelergy tutorial reference outputs
// (tests/fixtures/reference/timeloop) are reproduced exactly. A GEMM on our arch maps onto it through
// `gemm_mapping`.
//
// The counting rules (each one checked against the reference outputs):
//  - a level's tile for a data space is the box of points its subnest touches (Timeloop's axis-aligned
//    hyper-rectangle: a projection R + P of extents 3 and 16 spans 18 points);
//  - the transfers from a keeping level to the next inner keeping level (its child) are, per child instance,
//    the first tile plus the delta of each later tile against the one before (sliding windows move in by a
//    column), walked as Timeloop walks it: iterations #0 and #1 of each loop, #1 standing for all the later
//    ones, and a tile whose stride changes (not 0 and not the previous stride) is fetched whole;
//  - multicast: the parent reads once what the child instances along a spatial loop that does not index the
//    data space receive together (a broadcast is one read); written outputs along such a loop are reduced
//    on the way up (one update);
//  - the MAC as the child: when the nest's innermost loop is temporal every compute accesses the innermost
//    keeping level; when it is spatial (PEs with no storage of their own), a PE holds its last operand, so the
//    level is read only when the operand changes;
//  - read-write data (outputs): the updates of a level are the drains of its child, its reads are the updates
//    minus its partition (the first update of each element reads nothing), its fills the transfers from its
//    parent minus its partition (the outermost level is never filled).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tenet_cost::cost::timeloop {

/// coef * dimension, one term of a projection.
struct Term {
  std::size_t dim = 0;
  std::int64_t coef = 1;
};

/// A data space (tensor): one sum of terms per tensor dimension (Weights[K][R], Inputs[R + P], ...).
struct DataSpace {
  std::string name;
  std::vector<std::vector<Term>> projection;
  bool read_write = false;  // the output: updated, read back for accumulation
};

struct Problem {
  std::vector<std::string> dims;
  std::vector<std::int64_t> extents;  // per dimension
  std::vector<DataSpace> spaces;
};

struct Loop {
  std::size_t dim = 0;
  std::int64_t factor = 1;
  bool spatial = false;  // a fanout to the level's children (Timeloop's Spatial-X / Spatial-Y)
};

/// A storage level: which data spaces it keeps and its loops (outermost first). Its tile is what one iteration
/// of the loops above it touches; a spatial loop fans out to the instances of the levels below.
struct Level {
  std::string name;
  std::vector<bool> keep;  // per data space
  std::vector<Loop> loops;
};

/// Storage levels, outermost (DRAM) first; the MAC is below the last.
struct Mapping {
  std::vector<Level> levels;
};

/// Timeloop's per-instance counters of one data space at one level (scalars, i.e. words).
struct SpaceCounts {
  bool kept = false;
  std::int64_t capacity = 0;   // "Utilized capacity": the level's tile
  std::int64_t partition = 0;  // "Partition size": distinct points an instance holds over the run
  std::int64_t reads = 0;      // "Scalar reads (per-instance)"
  std::int64_t fills = 0;      // "Scalar fills (per-instance)"
  std::int64_t updates = 0;    // "Scalar updates (per-instance)"
};

struct LevelCounts {
  std::string name;
  std::int64_t instances = 1;
  std::vector<SpaceCounts> spaces;  // per data space
};

struct Counts {
  std::int64_t computes = 0;
  std::int64_t cycles = 0;  // the product of the temporal factors (Timeloop with unlimited bandwidth)
  std::int64_t mac_instances = 1;
  std::vector<LevelCounts> levels;  // as in the mapping
};

/// The counts of `m` on `p`. InputError when the factors of a dimension do not multiply to its extent, on a
/// spatial loop over a sliding-window dimension (Timeloop's link transfers are not modelled), on more than
/// 24 temporal loops with a factor above 1, or on an index out of range; OverflowError past 64 bits.
[[nodiscard]] Counts analyze(const Problem& p, const Mapping& m);

/// GEMM C[M][N] = A[M][K] * B[K][N] in Timeloop's names: Inputs A, Weights B, Outputs C (dims M, N, K).
[[nodiscard]] Problem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k);

/// How a GEMM maps onto DRAM -> buffer -> rows x cols PEs -> MAC in the timeloop convention.
struct GemmMapping {
  std::int64_t m = 1, n = 1, k = 1;                 // the GEMM
  std::int64_t tile_m = 1, tile_n = 1, tile_k = 1;  // the buffer tile (each divides its dimension)
  std::string order = "mnk";                        // the DRAM loops over tiles, outermost first
  char row_dim = 'm';                               // the dimension on the array rows (os: m, ws and is: k)
  char col_dim = 'n';                               // on the columns (os and ws: n, is: m)
  std::int64_t rows = 1, cols = 1;                  // the array
};

/// The Timeloop mapping: DRAM loops over the tiles in `order`; buffer loops over the folds of the row and column
/// dimensions, then the streamed dimension innermost; spatial loops over the rows (the largest divisor of the
/// tile's row dimension that fits) and the columns. InputError when a tile does not divide its dimension.
[[nodiscard]] Mapping gemm_mapping(const GemmMapping& g);

}  // namespace tenet_cost::cost::timeloop
