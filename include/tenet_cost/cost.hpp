// The cost of one GEMM on the hardware (docs/model.md), two levels:
//  - PE array <-> buffer: TENET metrics of each buffer tile (the engine, or the
//    proven closed forms of the preset dataflows: mapping.hpp), summed over the tiles;
//  - buffer <-> DRAM: closed forms of a tiled loop nest (tile factors and order),
//    with a working-set check against the buffer capacity.
// The result is a list of cost terms (cycles each; the slowest bounds the GEMM),
// per-tensor traffic and energy. The tile search is public so that estimate and a
// search command share it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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

/// What the automatic tile choice minimises (docs/search.md). Ties: energy, then DRAM bytes, then fewer tiles.
enum class Objective { kLatency, kEnergy, kEdp, kDram };
Objective parse_objective(const std::string& text);
/// --time-limit SECONDS: a finite number >= 0 (0 = no limit), else InputError naming the flag.
double checked_time_limit(double seconds);  // "latency" | "energy" | "edp" | "dram"
std::string to_string(Objective o);

/// A --tile that targets some GEMMs: by function name and/or by shape MxNxK; empty / 0 = any.
struct TileRule {
  std::string function;              // "" = any function
  std::int64_t m = 0, n = 0, k = 0;  // 0 = any
  Tile tile;
  bool operator==(const TileRule&) const = default;
};
/// "m=..,n=..", "lm_head:m=1,n=256", "1x32000x4096:m=1,k=4096"; throws InputError.
TileRule parse_tile_rule(const std::string& text);

/// The engine's default wall-clock limit per evaluation (tenet::AnalyzeOptions::time_limit_s).
inline constexpr double kDefaultEngineTimeLimit = 60.0;
/// The engine's default limit of statement instances in one brute-forced small instance
/// (tenet::AnalyzeOptions::max_instance_points; --engine-points).
inline constexpr std::int64_t kDefaultEnginePoints = 20'000'000;
/// --engine-points N: 1 .. 2^40, else InputError naming the flag.
std::int64_t checked_engine_points(std::int64_t points);

/// How a GEMM's cycles combine its terms (docs/model.md "Latency"): `roofline` the largest term over the whole GEMM
/// (the units overlap perfectly: the optimistic bound, the default); `pipeline` per buffer tile, double-buffered: the
/// first tile's fetch and the last tile's write-back are exposed, and each tile's window takes the longer of its
/// on-chip work and the DRAM transfers it overlaps (the next tile's fetch, the previous tile's write-back).
enum class Timing { kRoofline, kPipeline };
Timing parse_timing(const std::string& text);  // "roofline" | "pipeline"; InputError otherwise
std::string to_string(Timing t);

struct Options {
  Tile tile;                    // user tile for every GEMM without a rule (0 = auto per dim)
  std::vector<TileRule> rules;  // targeted tiles; the last matching rule wins over `tile`
  ArrayMethod method = ArrayMethod::kAuto;
  Objective objective = Objective::kLatency;
  Timing timing = Timing::kRoofline;
  /// Wall-clock limit of one TENET engine evaluation in seconds (--time-limit; <= 0: none).
  double engine_time_limit_s = kDefaultEngineTimeLimit;
  /// Statement instances of one brute-forced small instance of the engine (--engine-points); the engine's total
  /// work limit scales with it (200 x, at least its default).
  std::int64_t engine_max_points = kDefaultEnginePoints;
};

/// A convolution run as its implicit GEMM (docs/model.md "Convolutions"): m = images x out_h x out_w (the output
/// column fastest), k = channels x kernel_h x kernel_w (the kernel column fastest), n = output channels. Input row
/// h = out_row x stride_h + kernel_row x dilation_h (columns alike), in the coordinates of the tensor the convolution
/// reads (a padded input counts its padding). A 1-D convolution has out_h = kernel_h = 1.
struct ConvWindow {
  std::int64_t images = 1, out_h = 1, out_w = 1, channels = 1;
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  bool operator==(const ConvWindow&) const = default;
};

struct GemmShape {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
  quant::GemmRole role = quant::GemmRole::kLinear;
  /// Fused attention (docs/model.md "Attention"): the score matrix stays in the buffer, so the QK GEMM's output S
  /// and the PV GEMM's input P move no DRAM bytes (they still occupy the buffer and its bandwidth).
  bool scores_on_chip = false;
  /// Set for a convolution: the input's DRAM traffic counts the distinct input elements of each tile (its halo),
  /// not the im2col matrix (docs/model.md "Convolutions"). Must match m and k.
  std::optional<ConvWindow> conv = std::nullopt;
  bool operator==(const GemmShape&) const = default;
};

/// The cost terms of a GEMM. They overlap in time: the GEMM takes as long as the slowest (its bound).
/// A new term is one enumerator here, its name in to_string and its cycles in the evaluation.
/// kStationaryLoad / kOutputDrain: the serial systolic timing terms (docs/model.md "Latency"); they add to kCompute
/// (the array is busy), the sum overlapping the other terms.
enum class Term { kCompute, kBuffer, kDram, kDequant, kVector, kStationaryLoad, kOutputDrain };
/// "compute" | "buffer" | "dram" | "dequant" | "vector" | "stationary_load" | "output_drain"
std::string to_string(Term t);

/// The energy terms (docs/model.md "Energy"): a closed set, each with its arch figure (energy_pj.*).
enum class EnergyTerm { kMac, kDram, kBuffer, kNoc, kDequant, kVector };
inline constexpr std::array<EnergyTerm, 6> kEnergyTerms{EnergyTerm::kMac, EnergyTerm::kDram,    EnergyTerm::kBuffer,
                                                        EnergyTerm::kNoc, EnergyTerm::kDequant, EnergyTerm::kVector};
/// "mac" | "dram" | "buffer" | "noc" | "dequant" | "vector" (the JSON keys and CSV column suffixes).
std::string to_string(EnergyTerm t);

/// Energy in joules per term; the terms sum to the energy_j beside them (within rounding: each term is its pJ x 1e-12).
struct EnergyByTerm {
  std::array<double, kEnergyTerms.size()> j{};
  double& operator[](EnergyTerm t) { return j[static_cast<std::size_t>(t)]; }
  double operator[](EnergyTerm t) const { return j[static_cast<std::size_t>(t)]; }
  /// The sum of the terms, in enum order.
  [[nodiscard]] double sum() const;
  /// this += times x o, term by term.
  void add(const EnergyByTerm& o, double times = 1.0);
};

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
  quant::Apply apply = quant::Apply::kMac;          // where it is used (docs/model.md "Where scales are applied")
  std::int64_t array_bits = 0;  // bits per element inside the array when not its storage bits (a weight
                                // dequantized at the edge moves at the MAC precision); 0 = storage bits
  // Reads: uses = register + noc + buffer (docs/model.md "Data movement by reuse class"). The output: total_elems
  // its writes by the MACs, buffer_elems its partial-sum writes and re-reads.
  std::int64_t total_elems = 0;     // uses by the unit that applies it (the MACs; the edge dequantizer; the rescale)
  std::int64_t register_elems = 0;  // uses served by that unit's register (the element it used at its previous stamp)
  std::int64_t noc_elems = 0;       // uses served by a neighbour PE (PE-to-PE transfers); 0 for the output
  std::int64_t buffer_elems = 0, buffer_bytes = 0;  // reads from the buffer (array <-> buffer unique volume)
};

/// One operand at one memory level of an N-level arch (docs/model.md "Memory levels"), in elements (batch included).
struct LevelOperandCost {
  std::string name;
  std::int64_t fills =
      0;  // in from the level above (DRAM for the outermost holder); the output: partial sums read back
  std::int64_t reads = 0;    // served to the next level holding it below, or to the PE array (the innermost holder)
  std::int64_t updates = 0;  // the output only: elements written back into this level from below
};

/// One memory level of an N-level arch at one GEMM's tiles (GemmCost::levels; empty on a two-level arch).
struct LevelCost {
  std::string name;
  Tile tile;                           // this level's tile (outermost: GemmCost::tile); with instances one instance's
  std::int64_t instances = 1;          // the level's stores (arch `instances`); bytes and counts below: per instance
                                       // for the tile, working set and usable bytes, summed over instances otherwise
  std::int64_t tiles = 0;              // tiles of this level (batch included)
  std::int64_t working_set_bytes = 0;  // one tile of every operand it holds (the output at accumulator bits)
  std::int64_t usable_bytes = 0;       // what a tile may use (halved when double-buffered; the partitions' sum)
  std::int64_t served_bytes = 0;       // reads + updates at the operands' bits: what its bandwidth and energy pay for
  std::int64_t cycles = 0;             // ceil(served bits / bits_per_cycle)
  double energy_j = 0;                 // served bits x pj_per_bit
  std::vector<LevelOperandCost> operands;  // the operands it holds, in operand order
};

struct GemmCost {
  GemmShape shape;
  std::int64_t macs = 0;
  std::int64_t time_stamps = 0;     // sum of |TD| over the tiles
  std::int64_t active_pes = 0;      // max over tiles
  MacPrecision precision = MacPrecision::kFp16;     // MAC precision that runs
  arch::MacPath mac_path = arch::MacPath::kNative;  // how the MACs run (native, widened, block-scaled, dequantized)
  std::int64_t mac_rate_num = 1, mac_rate_den = 1;  // MACs/PE/cycle as a fraction
  std::vector<TermCost> terms;      // every term, in enum order
  std::int64_t cycles = 0;          // max over the terms (docs/model.md)
  Term bound = Term::kCompute;      // the first term with the max
  std::int64_t dequant_ops = 0, vector_ops = 0;
  std::int64_t dram_bytes = 0, buffer_bytes = 0;
  std::int64_t scale_dram_bytes = 0;  // DRAM bytes of scale and zero-point tensors
  double latency_s = 0, energy_j = 0, utilization = 0;
  EnergyByTerm energy_by_term;      // sums to energy_j
  Tile tile;                        // the tile used (order filled)
  std::int64_t tiles = 0;           // number of buffer tiles
  ArrayModel array_model = ArrayModel::kClosedForm;
  std::vector<TensorCost> tensors;
  /// Per memory level (an arch with `levels`; empty otherwise): the `buffer` term is the slowest level's cycles, the
  /// `buffer` energy their sum, and `tile` the outermost level's tile.
  std::vector<LevelCost> levels;
  /// Cycles of one term (0 when absent).
  [[nodiscard]] std::int64_t cycles_of(Term t) const;
};

// ------------------------------------------------------------- non-GEMM operators

/// A non-GEMM operator (norm, rotary, activation, softmax, residual add, gather, ...): element operations on the
/// vector unit and the bytes it moves between DRAM and the buffer (docs/model.md "Operators").
struct OpShape {
  std::int64_t ops = 0;               // vector-unit element operations
  std::int64_t dram_read_bytes = 0;   // inputs (and parameters) read from DRAM
  std::int64_t dram_write_bytes = 0;  // outputs written to DRAM
  bool operator==(const OpShape&) const = default;
};

struct OpCost {
  OpShape shape;
  std::vector<TermCost> terms;  // kVector and kDram (the slowest bounds the operator)
  std::int64_t cycles = 0;
  Term bound = Term::kVector;
  std::int64_t dram_bytes = 0;         // read + write
  double latency_s = 0, energy_j = 0;  // energy: vector ops, DRAM bits, and the bits through the buffer
  EnergyByTerm energy_by_term;         // vector, dram, buffer (the others 0); sums to energy_j
  [[nodiscard]] std::int64_t cycles_of(Term t) const;
};

/// One operator on the arch's vector unit and DRAM. Throws InputError on negative figures.
OpCost vector_op(const arch::Arch& arch, const OpShape& shape);

// ------------------------------------------------------------- tile search

/// One legal buffer tile with the figures that bound its cost.
struct TileCandidate {
  Tile tile;
  i128 dram_bits = 0;          // DRAM traffic of the whole GEMM (one batch), partial sums at accumulator bits
  i128 working_set_bits = 0;   // buffer footprint of one tile
  std::int64_t tiles = 0;      // number of tiles (one batch)
  std::int64_t index = 0;      // enumeration order (the last tie-break)
};

/// What the tile search needs to know of one GEMM.
struct TileProblem {
  GemmShape shape;
  std::vector<quant::Operand> ops;
  std::int64_t accum_bits = 32;
  std::int64_t buffer_bytes = 0;
  std::string arch_name;          // for messages
  std::int64_t rows = 1, cols = 1;  // the PE array (its dims' multiples are candidate sizes)
  bool coarse = false;  // the engine's candidate sizes (tile_sizes_coarse): each new residue class is an engine compile
  /// A preset dataflow: the compute bound is the tile's exact time stamps (mapping::preset_time_stamps) instead of
  /// ceil(MACs / PEs).
  std::optional<mapping::Preset> stamps;
  /// An arch with `levels`: why a tile does not fit the outermost level (nullopt: it fits), checked after the
  /// buffer_bytes check; every loop order of a tile size is then a candidate of its own (the order also changes the
  /// inner levels' traffic).
  std::function<std::optional<std::string>(const Tile&)> fits;
};

/// Candidate tile sizes along one loop (docs/search.md): every multiple of `align` (the group sizes along that loop)
/// up to the extent when there are at most 32 of them; otherwise b·2^e for b in {16, rows, cols, align} (each rounded
/// up to a multiple of align) and ceil(extent/q) rounded up to align for q = 2..8, below the extent; always the
/// extent itself. Sorted, distinct.
std::vector<std::int64_t> tile_sizes(std::int64_t extent, std::int64_t align, std::int64_t rows, std::int64_t cols);
/// The engine's candidate sizes along one loop: 16·2^e rounded up to a multiple of `align` below the extent, and the
/// extent itself.
std::vector<std::int64_t> tile_sizes_coarse(std::int64_t extent, std::int64_t align);
/// Every candidate (tile sizes x loop orders, narrowed by the user's fixed factors) that fits the buffer, in
/// enumeration order (orders mnk nmk mkn kmn nkm knm, then m, n, k sizes ascending). Throws InputError when the user's
/// tile breaks a group alignment, or when nothing fits (naming the smallest candidate and by how many bytes it is
/// over).
std::vector<TileCandidate> tile_candidates(const TileProblem& p, const Tile& user);

/// The tile-independent figures of a GEMM the proven lower bounds need.
struct TileFloors {
  std::int64_t pes = 1;                     // rows x cols
  std::int64_t rate_num = 1, rate_den = 1;  // MACs/PE/cycle
  std::int64_t clock_mhz = 1, dram_mb_per_s = 1;
  double mac_energy_pj = 0;  // MACs x pJ/MAC (the first energy term)
  double dram_pj_per_bit = 0;
};
/// The floors of one GEMM on an arch under a scheme.
TileFloors tile_floors(const arch::Arch& arch, const GemmShape& s, const quant::Scheme& scheme);
/// The same from the MAC precision (quant::compute_precision of the scheme and role).
TileFloors tile_floors(const arch::Arch& arch, const GemmShape& s, MacPrecision precision);
/// A value of the objective: integer objectives (latency cycles, DRAM bytes) in `exact`, real ones (energy J,
/// EDP J·s) in `real`; compared lexicographically.
struct ObjectiveValue {
  i128 exact = 0;
  double real = 0;
  bool operator<(const ObjectiveValue& o) const { return exact != o.exact ? exact < o.exact : real < o.real; }
};
ObjectiveValue objective_value(const GemmCost& c, Objective o);
/// a ranks before b under the objective: the objective, then energy, then DRAM bytes, then fewer tiles.
bool better(const GemmCost& a, const GemmCost& b, Objective o);
/// A proven lower bound of a candidate's objective value: compute floor (per tile, ceil(tile MACs / PEs) time stamps
/// at the MAC rate: a PE does one MAC per time stamp) and a floor of the candidate's DRAM bytes.
ObjectiveValue lower_bound(const TileProblem& p, const TileCandidate& c, const TileFloors& f, Objective o);

struct TileChoice {
  GemmCost cost;                // the best candidate's full cost
  std::int64_t candidates = 0;  // legal candidates
  std::int64_t evaluated = 0;   // evaluated before the bound proved the rest worse
};
/// The exact best candidate under `o`: candidates are evaluated lazily in order of their lower bound and the search
/// stops when the next bound exceeds the best value found; equals evaluating every candidate (tests/cost).
TileChoice best_tile(const TileProblem& p, const Tile& user, Objective o, const TileFloors& f,
                     const std::function<GemmCost(const Tile&)>& evaluate);

// ------------------------------------------------------------- evaluation

/// Per-GEMM results that Estimators of one arch, dataflow and options share (the points and threads of a sweep
/// group, the schemes of a search candidate): keyed by what a GEMM's cost depends on (shape, operands, accumulator
/// bits, MAC precision, extra work, the user's tile), so schemes with the same operands share it too; and the TENET
/// engine's compiled problems by operand structure (one parametric compile per structure, whichever Estimator asks
/// first). Thread-safe.
class GemmMemo;
std::shared_ptr<GemmMemo> make_gemm_memo();

/// Evaluates GEMMs on one arch + dataflow; caches by (shape, operands, ...: GemmMemo), the engine's compiled problems
/// by operands (in the GemmMemo too).
class Estimator {
 public:
  /// `memo`: shared with other Estimators of the same arch, dataflow and options (nullptr: one of its own).
  Estimator(arch::Arch arch, mapping::Dataflow dataflow, Options options = {},
            std::shared_ptr<GemmMemo> memo = nullptr);
  ~Estimator();
  Estimator(const Estimator&) = delete;
  Estimator& operator=(const Estimator&) = delete;

  /// The cost at the best tile for the options' objective (the user's tile narrows the candidates).
  const GemmCost& gemm(const GemmShape& shape, const quant::Scheme& scheme);
  const GemmCost& gemm(const GemmShape& shape, const quant::Scheme& scheme, const Tile& user);
  /// The user tile of one GEMM: the last rule matching its function name and shape, else Options::tile.
  [[nodiscard]] const Tile& tile_for(const std::string& function, const GemmShape& shape) const;
  [[nodiscard]] const Options& options() const;
  [[nodiscard]] const arch::Arch& arch() const;
  [[nodiscard]] const mapping::Dataflow& dataflow() const;
  /// Engine / closed-form evaluations done so far (cache misses at the array level).
  [[nodiscard]] std::int64_t array_evaluations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tenet_cost::cost
