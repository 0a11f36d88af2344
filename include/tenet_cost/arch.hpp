// Accelerator descriptions (JSON, docs/arch.md): plain data. How a dataflow
// maps a GEMM onto the array, and the TENET PE-array spec of an Arch, live in
// mapping.hpp; this header knows nothing of the engine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tenet_cost/precision.hpp"

namespace tenet_cost::arch {

/// The largest pe_array.rows and pe_array.cols an arch may have (docs/arch.md "Ranges").
inline constexpr std::int64_t kMaxPeSide = 4096;

/// The names of the MAC precisions an arch can list (keys of macs_per_pe_per_cycle / energy_pj.mac, parsed once
/// into MacPrecision, tenet_cost/precision.hpp): fp32 fp16 bf16 fp8 fp6 fp4 int8 int4, and the block-scaled units
/// mxfp8 mxfp6 mxfp4 mxint8 nvfp4 (docs/arch.md "MAC precisions").
const std::vector<std::string>& precisions();

/// How a GEMM's MACs run (docs/arch.md "MAC precisions"; the estimate's `mac_path`):
enum class MacPath {
  kNative,       // the arch has a unit of the scheme's precision
  kWidened,      // a wider unit of the same kind runs it (int4 on int8, fp8 on fp16): values widened in the PE
  kBlockScaled,  // a block-scaled unit (mxfp*, mxint8, nvfp4; a narrower MX format on a wider MX unit)
  kDequantized,  // the arch lacks the block-scaled unit: the operands are dequantized at the array edge (scales
                 // applied there, dequant work counted) and the MACs run at fp16 or the next supported precision
};
std::string to_string(MacPath p);  // "native" | "widened" | "block-scaled" | "dequantized"

/// How neighbouring PEs are wired (docs/arch.md).
enum class Interconnect {
  kSystolic,  // PE[i,j] -> PE[i-1,j], PE[i,j-1]
  kMesh,      // the four neighbours
  kNone,      // no forwarding
  kRelation,  // a TENET relation given as text (Arch::interconnect_relation)
};
std::string to_string(Interconnect i);

/// Where weights are dequantized: at the array edge (per weight element entering the array) or in every PE (per MAC).
enum class DequantPlacement { kEdge, kPE };
std::string to_string(DequantPlacement p);

/// Systolic timing (docs/arch.md "Systolic timing"): whether the stationary operand is loaded, or the stationary
/// outputs drained, into shadow registers while the previous fold computes (no cycles) or serially between folds
/// (one row shifted per cycle: R cycles per fold).
enum class Buffering { kDoubleBuffered, kSerial };
std::string to_string(Buffering b);  // "double_buffered" | "serial"

/// How much of the buffer one tile may use (docs/arch.md "Buffer"): `single` the whole buffer (the next tile is fetched
/// after this one, or the traffic is a lower bound), `double` half (the next tile streams into the other half while
/// this one computes).
enum class TileBuffering { kSingle, kDouble };
std::string to_string(TileBuffering b);  // "single" | "double"

/// The operand classes of a memory level (docs/arch.md "Memory levels"): A the activation, B the weight (or KV cache),
/// C the output; a scale or zero point belongs to the class of the operand it scales.
enum class OperandClass { kA, kB, kC };
inline constexpr std::size_t kOperandClasses = 3;
std::string to_string(OperandClass c);  // "A" | "B" | "C"

/// One on-chip memory level of an N-level hierarchy (docs/arch.md "Memory levels"), outermost first in Arch::levels;
/// DRAM is above the first, the PE array below the last.
struct MemLevel {
  std::string name;
  std::int64_t bytes = 0;           // capacity (one shared store)
  std::int64_t bits_per_cycle = 0;  // bandwidth of what it serves to the level below (or the array)
  double pj_per_bit = 0;            // energy per bit it serves
  TileBuffering buffering = TileBuffering::kSingle;
  std::array<bool, kOperandClasses> holds{true, true, true};  // by OperandClass; false: bypassed
  std::array<std::int64_t, kOperandClasses> partition{};      // bytes per class; all 0: shared
  /// `instances` (docs/arch.md "Memory levels"): the level is grid_rows x grid_cols stores, each serving
  /// rows / grid_rows consecutive PE rows and cols / grid_cols columns (per_pe: rows x cols, per_row: rows x 1,
  /// per_col: 1 x cols, a count n: gcd(n, rows) x n / gcd(n, rows)); 1 x 1 (the default) is one shared store.
  /// `bytes`, `partition` and `bits_per_cycle` are per instance.
  std::int64_t grid_rows = 1, grid_cols = 1;
  [[nodiscard]] std::int64_t instances() const { return grid_rows * grid_cols; }
  [[nodiscard]] bool partitioned() const { return partition[0] + partition[1] + partition[2] > 0; }
  /// Bytes one tile of the class may use: its partition (or the whole level), halved when double-buffered.
  [[nodiscard]] std::int64_t usable_bytes(OperandClass c) const {
    const std::int64_t b = partitioned() ? partition[static_cast<std::size_t>(c)] : bytes;
    return buffering == TileBuffering::kDouble ? b / 2 : b;
  }
};

/// How the chips of a deployment are wired (docs/arch.md "Chip links"): a ring (each chip to two neighbours; a
/// collective over N chips takes N-1 hops per phase) or fully connected (one hop per phase, N-1 links per chip).
enum class ChipTopology { kRing, kFullyConnected };
std::string to_string(ChipTopology t);  // "ring" | "fully_connected"

/// The links between chips of a deployment (tensor / pipeline / expert parallelism; docs/arch.md "Chip links").
struct ChipLink {
  double gb_per_s = 32;   // one link's bandwidth per direction, 10^9 bytes per second
  double latency_us = 1;  // per hop (per step of a collective)
  double pj_per_bit = 5;  // energy per bit sent over a link
  ChipTopology topology = ChipTopology::kRing;
  bool given = false;  // false: the arch has no chip_link and these are the stated defaults
};

struct Arch {
  std::string name;
  std::string description;
  std::int64_t rows = 32, cols = 32;          // PE array
  Interconnect interconnect = Interconnect::kSystolic;
  Buffering stationary_load = Buffering::kDoubleBuffered;  // pe_array.stationary_load (weight/input stationary)
  Buffering output_drain = Buffering::kDoubleBuffered;     // pe_array.output_drain (output stationary)
  std::string interconnect_relation;          // kRelation: the relation text (from the JSON or a .p file)
  /// MACs per PE per cycle as an exact fraction (JSON: an integer, or a fraction with denominator <= 64 such as 0.25).
  struct Rate {
    std::int64_t num = 1, den = 1;
  };
  std::map<MacPrecision, Rate> macs_per_pe_per_cycle;  // precision -> rate (missing = unsupported)
  std::int64_t buffer_bytes = 0;              // on-chip buffer capacity
  TileBuffering buffer_buffering = TileBuffering::kSingle;  // buffer.buffering
  std::int64_t buffer_bits_per_cycle = 0;     // buffer <-> array bandwidth
  std::int64_t dram_mb_per_s = 0;             // DRAM bandwidth, 10^6 bytes per second
  std::int64_t dram_bytes = 0;                // DRAM capacity (0: not given, not checked)
  std::int64_t clock_mhz = 0;
  DequantPlacement dequant_placement = DequantPlacement::kEdge;
  std::int64_t dequant_per_cycle = 0;         // edge dequantizer throughput (elements/cycle); kPE: free in time
  std::int64_t vector_ops_per_cycle = 0;      // vector unit: activation quantization, rescaling
  // energy, picojoules
  std::map<MacPrecision, double> mac_pj;  // per MAC per precision
  double dram_pj_per_bit = 0, buffer_pj_per_bit = 0, noc_pj_per_bit = 0;
  double dequant_pj = 0, vector_op_pj = 0;    // per element / per op
  /// levels: the on-chip hierarchy, outermost first (empty: the two-level model of `buffer`). When given, the
  /// buffer_* fields above are the innermost level's.
  std::vector<MemLevel> levels;
  ChipLink chip_link;                         // chip_link (defaults when absent: ChipLink{})
  std::vector<std::string> sources;           // where each figure comes from
  std::string file;                           // the JSON it was read from

  /// The MAC unit that runs a precision: the precision itself, else the next in its chain (docs/arch.md
  /// "MAC precisions": int4 -> int8 -> fp16, fp4 -> fp6 -> fp8 -> fp16, bf16 -> fp16 -> fp32, mxfp4 -> mxfp6 ->
  /// mxfp8 -> [dequantized] fp16 -> bf16 -> fp32, ...).
  struct MacUnit {
    Rate rate;
    MacPrecision precision = MacPrecision::kFp16;  // the precision that runs
    MacPath path = MacPath::kNative;
  };
  /// Throws InputError listing the supported precisions when none of the chain is.
  [[nodiscard]] MacUnit mac_unit(MacPrecision precision) const;
  /// The bytes one buffer tile may use: buffer_bytes, or half of it when double-buffered.
  [[nodiscard]] std::int64_t tile_buffer_bytes() const {
    return buffer_buffering == TileBuffering::kDouble ? buffer_bytes / 2 : buffer_bytes;
  }
  /// mac_unit's rate; sets `used` to the precision that runs.
  Rate mac_rate(MacPrecision precision, MacPrecision* used = nullptr) const;
};

/// Parse an arch JSON document; unknown keys -> InputError file:line:col listing the valid keys.
Arch parse_arch(const std::string& text, const std::string& filename);
/// A preset name (`<presets_dir>/<name>.json`) or a path to a JSON file (contains '/' or ends in .json).
Arch load_arch(const std::string& name_or_path, const std::string& presets_dir);
/// Preset names found in presets_dir (sorted).
std::vector<std::string> arch_presets(const std::string& presets_dir);
/// The default preset name ("edge-npu-32x32").
std::string default_arch();
/// The JSON file `load_arch` reads for a preset name or a path (throws InputError for an unknown preset).
std::string arch_file(const std::string& name_or_path, const std::string& presets_dir);

// ------------------------------------------------------------- overrides (--set, overrides.cpp)

/// One `--set KEY=VALUE`: a dotted JSON path into the arch document (`pe_array.rows`, `energy_pj.mac.fp16`) and
/// the value's text (JSON when it parses as a JSON scalar, else a string: `pe_array.interconnect=mesh`).
struct Override {
  std::string path, value;
  bool operator==(const Override&) const = default;
};
/// "KEY=VALUE" -> Override; throws InputError for a missing '=' or an empty key.
Override parse_override(const std::string& text);
/// "KEY=VALUE".
std::string to_string(const Override& o);
/// The arch document `text` with the overrides applied, in order, each validated like the file: an unknown path or
/// a bad value throws InputError "--set KEY=VALUE: <what parse_arch says>". The arch's name gets the overrides
/// appended ("edge-npu-32x32 --set pe_array.rows=64") so that every output states them.
Arch parse_arch(const std::string& text, const std::string& filename, const std::vector<Override>& overrides);
/// load_arch with overrides.
Arch load_arch(const std::string& name_or_path, const std::string& presets_dir, const std::vector<Override>& overrides);

}  // namespace tenet_cost::arch
