// The cost of one GEMM on the hardware (docs/model.md), two levels:
//  - PE array <-> buffer: TENET metrics of each buffer tile (the engine, or the
//    proven closed forms of the preset dataflows: mapping.hpp), summed over the tiles;
//  - buffer <-> DRAM: closed forms of a tiled loop nest (tile factors and order),
//    with a working-set check against the buffer capacity.
// The result is a list of cost terms (cycles each; the slowest bounds the GEMM),
// per-tensor traffic and energy. The tile search is public so that estimate and a
// search command share it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::cost {

/// Buffer tile factors and loop order (outermost first, a permutation of "mnk").
/// 0 = choose automatically.
struct Tile {
  std::int64_t m = 0, n = 0, k = 0;
  std::string order;  // "" = choose
  bool operator==(const Tile&) const = default;
};
/// "m=128,n=256,k=512[,order=nmk]" (any subset); throws InputError.
Tile parse_tile(const std::string& text);
/// "m=128,n=256,k=512,order=nmk".
std::string to_string(const Tile& t);

/// How the PE array <-> buffer level is evaluated.
enum class ArrayMethod {
  kAuto,        // the closed forms where they apply (os/ws on a systolic array, every operand proven), else the engine
  kEngine,      // the TENET engine only
  kClosedForm,  // closed forms only (an error where they do not apply)
};
ArrayMethod parse_array_method(const std::string& text);

/// Which array model produced a GEMM's numbers.
enum class ArrayModel { kClosedForm, kEngine };
std::string to_string(ArrayModel m);  // "closed-form" | "engine"

struct Options {
  Tile tile;                       // user tile (0 = auto per dim)
  ArrayMethod method = ArrayMethod::kAuto;
};

struct GemmShape {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
  quant::GemmRole role = quant::GemmRole::kLinear;
  /// Fused attention (docs/model.md "Attention"): the score matrix stays in the buffer, so the QK GEMM's output S
  /// and the PV GEMM's input P move no DRAM bytes (they still occupy the buffer and its bandwidth).
  bool scores_on_chip = false;
  bool operator==(const GemmShape&) const = default;
};

/// The cost terms of a GEMM. They overlap in time: the GEMM takes as long as the slowest (its bound).
/// A new term is one enumerator here, its name in to_string and its cycles in the evaluation.
/// kStationaryLoad / kOutputDrain: the serial systolic timing terms (docs/model.md "Latency"); they add to kCompute
/// (the array is busy), the sum overlapping the other terms.
enum class Term { kCompute, kBuffer, kDram, kDequant, kVector, kStationaryLoad, kOutputDrain };
/// "compute" | "buffer" | "dram" | "dequant" | "vector" | "stationary_load" | "output_drain"
std::string to_string(Term t);

struct TermCost {
  Term term = Term::kCompute;
  std::int64_t cycles = 0;
};

struct TensorCost {
  std::string name;
  quant::OperandRole role = quant::OperandRole::kActivation;
  std::int64_t bits_num = 16, bits_den = 1;
  std::string bits;                 // "4", "3.2"
  std::int64_t dram_elems = 0, dram_bytes = 0;      // buffer <-> DRAM (reads, or writes for outputs)
  std::int64_t buffer_elems = 0, buffer_bytes = 0;  // array <-> buffer (unique volume)
  std::int64_t total_elems = 0;     // accesses by the MACs (total volume)
};

struct GemmCost {
  GemmShape shape;
  std::int64_t macs = 0;
  std::int64_t time_stamps = 0;     // sum of |TD| over the tiles
  std::int64_t active_pes = 0;      // max over tiles
  std::string precision;            // MAC precision that runs
  std::int64_t mac_rate_num = 1, mac_rate_den = 1;  // MACs/PE/cycle as a fraction
  std::vector<TermCost> terms;      // every term, in enum order
  std::int64_t cycles = 0;          // max over the terms (docs/model.md)
  Term bound = Term::kCompute;      // the first term with the max
  std::int64_t dequant_ops = 0, vector_ops = 0;
  std::int64_t dram_bytes = 0, buffer_bytes = 0;
  std::int64_t scale_dram_bytes = 0;  // DRAM bytes of scale and zero-point tensors
  double latency_s = 0, energy_j = 0, utilization = 0;
  Tile tile;                        // the tile used (order filled)
  std::int64_t tiles = 0;           // number of buffer tiles
  ArrayModel array_model = ArrayModel::kClosedForm;
  std::vector<TensorCost> tensors;
  /// Cycles of one term (0 when absent).
  [[nodiscard]] std::int64_t cycles_of(Term t) const;
};

// ------------------------------------------------------------- non-GEMM operators

/// A non-GEMM operator (norm, rotary, activation, softmax, residual add, gather, ...): element operations on the
/// vector unit and the bytes it moves between DRAM and the buffer (docs/model.md "Operators").
struct OpShape {
  std::int64_t ops = 0;                 // vector-unit element operations
  std::int64_t dram_read_bytes = 0;     // inputs (and parameters) read from DRAM
  std::int64_t dram_write_bytes = 0;    // outputs written to DRAM
  bool operator==(const OpShape&) const = default;
};

struct OpCost {
  OpShape shape;
  std::vector<TermCost> terms;          // kVector and kDram (the slowest bounds the operator)
  std::int64_t cycles = 0;
  Term bound = Term::kVector;
  std::int64_t dram_bytes = 0;          // read + write
  double latency_s = 0, energy_j = 0;   // energy: vector ops, DRAM bits, and the bits through the buffer
  [[nodiscard]] std::int64_t cycles_of(Term t) const;
};

/// One operator on the arch's vector unit and DRAM. Throws InputError on negative figures.
OpCost vector_op(const arch::Arch& arch, const OpShape& shape);

// ------------------------------------------------------------- tile search

/// One legal buffer tile with the figures it is ranked by.
struct TileCandidate {
  Tile tile;
  i128 dram_bits = 0;          // DRAM traffic of the whole GEMM (one batch), partial sums at accumulator bits
  i128 working_set_bits = 0;   // buffer footprint of one tile
  std::int64_t tiles = 0;      // number of tiles
};

/// What the tile search needs to know of one GEMM.
struct TileProblem {
  GemmShape shape;
  std::vector<quant::Operand> ops;
  std::int64_t accum_bits = 32;
  std::int64_t buffer_bytes = 0;
  std::string arch_name;          // for messages
};

/// Candidate tile sizes along one loop: 16·2^e (a multiple of `align`, the group sizes along that loop) below
/// the extent, and the extent itself.
std::vector<std::int64_t> tile_sizes(std::int64_t extent, std::int64_t align);
/// Every candidate (tile sizes x loop orders, narrowed by the user's fixed factors) that fits the buffer, best first:
/// fewest DRAM bits, then fewest tiles, then smallest working set. Throws InputError when the user's tile breaks a
/// group alignment, or when nothing fits (naming the smallest candidate and by how many bytes it is over).
std::vector<TileCandidate> rank_tiles(const TileProblem& p, const Tile& user);
/// The best of rank_tiles.
Tile choose_tile(const TileProblem& p, const Tile& user);

// ------------------------------------------------------------- evaluation

/// Evaluates GEMMs on one arch + dataflow; caches by (shape, scheme) and array tiles by (tile, operands).
class Estimator {
 public:
  Estimator(arch::Arch arch, mapping::Dataflow dataflow, Options options = {});
  ~Estimator();
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  const GemmCost& gemm(const GemmShape& shape, const quant::Scheme& scheme);
  [[nodiscard]] const arch::Arch& arch() const;
  [[nodiscard]] const mapping::Dataflow& dataflow() const;
  /// Engine / closed-form evaluations done so far (cache misses at the array level).
  [[nodiscard]] std::int64_t array_evaluations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tenet_cost::cost
