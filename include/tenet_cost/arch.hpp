// Accelerator descriptions (JSON, docs/arch.md) and dataflow presets that
// generate TENET space/time maps for any array size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tenet_cost/tenet.hpp"

namespace tenet_cost::arch {

/// MAC precisions an arch can list (keys of macs_per_pe_per_cycle / mac_pj).
const std::vector<std::string>& precisions();

struct Arch {
  std::string name;
  std::string description;
  std::int64_t rows = 32, cols = 32;          // PE array
  std::string interconnect = "systolic";      // "systolic" | "mesh" | "none" | a TENET relation text
  /// MACs per PE per cycle as an exact fraction (JSON: an integer, or a fraction with denominator <= 64 such as 0.25).
  struct Rate {
    std::int64_t num = 1, den = 1;
  };
  std::map<std::string, Rate> macs_per_pe_per_cycle;  // precision -> rate (missing = unsupported)
  std::int64_t buffer_bytes = 0;              // on-chip buffer capacity
  std::int64_t buffer_bits_per_cycle = 0;     // buffer <-> array bandwidth
  std::int64_t dram_mb_per_s = 0;             // DRAM bandwidth, 10^6 bytes per second
  std::int64_t clock_mhz = 0;
  std::string dequant_placement = "edge";     // "edge": per weight element entering the array; "pe": per MAC
  std::int64_t dequant_per_cycle = 0;         // edge dequantizer throughput (elements/cycle); "pe": free in time
  std::int64_t vector_ops_per_cycle = 0;      // vector unit: activation quantization, rescaling
  // energy, picojoules
  std::map<std::string, double> mac_pj;       // per MAC per precision
  double dram_pj_per_bit = 0, buffer_pj_per_bit = 0, noc_pj_per_bit = 0;
  double dequant_pj = 0, vector_op_pj = 0;    // per element / per op
  std::vector<std::string> sources;           // where each figure comes from
  std::string file;                           // the JSON it was read from

  /// PE domain + interconnect as a TENET `.p` spec.
  [[nodiscard]] tenet::PEArraySpec pe_array() const;
  /// MACs/PE/cycle for a precision, falling back to a wider supported one
  /// (int4 -> int8 -> fp16? no: int4 -> int8, fp8 -> fp16, bf16 -> fp16 -> fp32);
  /// sets `used` to the precision that runs; throws InputError listing the supported ones.
  Rate mac_rate(const std::string& precision, std::string* used = nullptr) const;
};

/// Parse an arch JSON document; unknown keys -> InputError file:line:col listing the valid keys.
Arch parse_arch(const std::string& text, const std::string& filename);
/// A preset name (configs/arch/<name>.json) or a path to a JSON file.
Arch load_arch(const std::string& name_or_path);
/// Preset names found in configs/arch (sorted).
std::vector<std::string> arch_presets();
/// The default preset name ("edge-npu-32x32").
std::string default_arch();

/// Root directory holding configs/ and workloads/: $TENET_COST_DATA, then the
/// root set by set_data_root (the CLI passes its TC_SOURCE_DIR), then paths
/// relative to the executable. Throws InputError when none holds configs/arch.
std::string data_root();
void set_data_root(const std::string& dir);

// ---------------------------------------------------------------- dataflows

/// A dataflow: a named preset (generated for any array and tile size) or a user `.m` file.
struct Dataflow {
  std::string name;        // "os", "ws", "is", "ncf" or the .m path
  std::string kind;        // "os" | "ws" | "is" | "ncf" | "file"
  tenet::MappingSpec file_mapping;  // kind == "file"
  /// Space and time maps for an R x C array (TENET text). Batched: S[b,i,j,k] with b outermost in time.
  [[nodiscard]] tenet::MappingSpec mapping(std::int64_t rows, std::int64_t cols, bool batched = false) const;
  /// True for presets with proven closed forms (docs/model.md).
  [[nodiscard]] bool has_closed_form() const { return kind == "os" || kind == "ws"; }
};

/// "os" / "output-stationary", "ws" / "weight-stationary", "is" / "input-stationary",
/// "ncf", or a path to a `.m` file. Unknown -> InputError listing the choices.
Dataflow parse_dataflow(const std::string& text);
std::vector<std::string> dataflow_presets();

}  // namespace tenet_cost::arch
