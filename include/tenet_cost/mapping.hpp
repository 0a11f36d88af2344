// How a GEMM is mapped onto the PE array: the dataflow presets (one table:
// name, aliases, space and time maps for any R x C array, whether closed forms
// are proven), user `.m` mappings (read by TENET's loader), the TENET spec of
// an arch's PE array, the TENET problem of one buffer tile, and the proven
// closed forms of its array-level metrics (docs/model.md).
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/tenet.hpp"

namespace tenet_cost::mapping {

/// The dataflow presets (docs/model.md "Dataflows").
enum class Preset { kOS, kWS, kIS, kNCF };

struct PresetInfo {
  Preset id;
  std::string_view name;          // canonical name: "os"
  std::string_view long_name;     // alias: "output-stationary" ("" when none)
  bool closed_form;               // the array-level metrics have proven closed forms
};
/// Every preset, in the order of the help text.
const std::vector<PresetInfo>& presets();
const PresetInfo& info(Preset p);

/// A generated space-time mapping of the GEMM loop nest S[i,j,k] (docs/model.md "Generated dataflows"):
/// loop `space[0]` folds onto the rows and `space[1]` onto the columns (PE[x%R, y%C]); the third loop `time`
/// runs in time, skewed by the PE coordinates: T[folds..., time + skew[0]*(x%R) + skew[1]*(y%C)], the two fold
/// coordinates floor(x/R), floor(y/C) outermost in the order `rows_fold_outer` says.
/// Name: "gen:<x><y>-<time>-<r|c>-<skew0><skew1>" (os = gen:ij-k-r-11, ws = gen:kj-i-c-11, is = gen:ki-j-c-11).
struct Generated {
  std::array<char, 2> space{'i', 'j'};
  char time = 'k';
  bool rows_fold_outer = true;
  std::array<int, 2> skew{1, 1};
  [[nodiscard]] std::string name() const;
  bool operator==(const Generated&) const = default;
};

/// A dataflow: a preset (generated for any array and tile size), a generated mapping, or a user `.m` file.
struct Dataflow {
  std::string name;                     // the preset's canonical name, the generated name, or the .m path
  std::optional<Preset> preset;         // nullopt: generated or file_mapping
  std::optional<Generated> generated;
  tenet::MappingSpec file_mapping;      // a user mapping (TENET .m)
  /// Space and time maps for an R x C array (TENET text). Batched: S[b,i,j,k] with b outermost in time.
  [[nodiscard]] tenet::MappingSpec mapping(std::int64_t rows, std::int64_t cols, bool batched = false) const;
  /// A preset with proven closed forms (os, ws).
  [[nodiscard]] bool has_closed_form() const { return preset && info(*preset).closed_form; }
};

/// The statement dims ('i', 'j', 'k') a dataflow folds onto the PE rows and the columns (os: i, j; ws: k, j; is: k, i;
/// ncf: j, k; a generated mapping: its `space`); nullopt for a user `.m` file (its space map is not read for this).
std::optional<std::array<char, 2>> spatial_dims(const Dataflow& d);

/// A preset name or alias ("os", "output-stationary", ...) or a path to a TENET `.m` mapping file
/// (read with tenet::load_mapping: syntax checked at load, its own line numbers).
/// Unknown -> InputError listing the choices.
Dataflow parse_dataflow(const std::string& text);
/// The generated mappings of a GEMM (skews 0..2, both fold orders, every assignment of loops to rows,
/// columns and time) that are legal on an interconnect for the given operands: every reuse direction of every
/// operand (A, B, C and the scheme's scale / zero-point tensors) maps to the same PE with a positive time delay or
/// to an interconnect neighbour with a positive time delay, and the in-fold transform is unimodular (one MAC per PE
/// per time stamp). A relation-text interconnect gets none (its neighbours are not known to the generator).
std::vector<Dataflow> generate_dataflows(arch::Interconnect interconnect, const std::vector<quant::Operand>& ops);
/// The legality condition of generate_dataflows for one mapping.
bool is_legal(const Generated& g, arch::Interconnect interconnect, const std::vector<quant::Operand>& ops);
/// Why a generated mapping is not legal (the first operand and reuse loop that fails), or nullopt when it is.
std::optional<std::string> illegality(const Generated& g, arch::Interconnect interconnect,
                                      const std::vector<quant::Operand>& ops);
/// Parse a generated name ("gen:ij-k-r-11"); nullopt when `text` is not one.
std::optional<Generated> parse_generated(const std::string& text);

/// Canonical preset names.
std::vector<std::string> dataflow_presets();
/// "os (output-stationary), ws (weight-stationary), ..., or a path to a TENET .m mapping file".
std::string dataflow_choices();

/// Where the arch dequantizes a weight stored below the MAC precision (its dequant.placement).
inline quant::DequantSite dequant_site(const arch::Arch& arch) {
  return arch.dequant_placement == arch::DequantPlacement::kPE ? quant::DequantSite::kPE : quant::DequantSite::kEdge;
}

/// PE domain + interconnect of an arch as a TENET `.p` spec.
tenet::PEArraySpec pe_array(const arch::Arch& arch);

/// Array-level metrics of one buffer tile, as the cost model uses them.
struct TileMetrics {
  std::int64_t macs = 0, time_stamps = 0, active_pes = 0;
  std::map<std::string, std::int64_t> unique;  // per operand name: against the default neighbourhood
  std::map<std::string, std::int64_t> total;
  std::map<std::string, std::int64_t> temporal_unique;  // against the PE's own previous stamp only
};

/// The same metrics with the volumes by position in the operand list (-1 for an operand not in the array's
/// statement): what the cost model's inner loop reads, without a map or a string.
struct TileVolumes {
  std::int64_t macs = 0, time_stamps = 0, active_pes = 0;
  std::vector<std::int64_t> unique, total, temporal_unique;
};

/// True when the closed forms can apply at all: a preset that has them on a systolic interconnect.
bool closed_forms_apply(const arch::Arch& arch, const Dataflow& dataflow);
/// The closed forms of a preset on a systolic R x C array for one tm x tn x tk tile, or nullopt when the
/// preset has none or some operand's index pattern has no proven row (the TENET engine applies then).
std::optional<TileMetrics> closed_form_tile(Preset preset, std::int64_t rows, std::int64_t cols, std::int64_t tm,
                                            std::int64_t tn, std::int64_t tk, const std::vector<quant::Operand>& ops);

/// The time stamps (TENET's |TD|) of a tm x tn x tk tile under a preset on an R x C array, from its time map alone
/// (any interconnect, any operands): os and ws closed_form_tile's formula; is = ws with i and j exchanged (its map is
/// ws's with i, j renamed); ncf `T[floor(i/R), floor(k/C), i%R, floor(j/R)]` a product, tm·ceil(tk/C)·ceil(tn/R).
/// Equal to the engine's (tests/mapping); the tile search's compute bound. I is std::int64_t when the caller proved
/// the range (at most 3 x the tile's MACs), else i128.
template <typename I>
I preset_time_stamps(Preset preset, I rows, I cols, I tm, I tn, I tk) {
  const auto cdiv = [](I a, I b) { return (a + b - 1) / b; };
  switch (preset) {
    case Preset::kOS: return cdiv(tm, rows) * cdiv(tn, cols) * (tk - 2) + cdiv(tn, cols) * tm + cdiv(tm, rows) * tn;
    case Preset::kWS: return cdiv(tn, cols) * cdiv(tk, rows) * (tm - 2) + cdiv(tn, cols) * tk + cdiv(tk, rows) * tn;
    case Preset::kIS: return cdiv(tm, cols) * cdiv(tk, rows) * (tn - 2) + cdiv(tm, cols) * tk + cdiv(tk, rows) * tm;
    case Preset::kNCF: return tm * cdiv(tk, cols) * cdiv(tn, rows);
  }
  return 0;
}

/// closed_form_tile into `out` (its vectors resized to ops.size()); false where that gives nullopt.
bool closed_form_volumes(Preset preset, std::int64_t rows, std::int64_t cols, std::int64_t tm, std::int64_t tn,
                         std::int64_t tk, const std::vector<quant::Operand>& ops, TileVolumes& out);

/// The TENET problem of one tile (statement from the operands in the array, mapping from the dataflow).
tenet::Problem tile_problem(const arch::Arch& arch, const Dataflow& dataflow, std::int64_t tm, std::int64_t tn,
                            std::int64_t tk, const std::vector<quant::Operand>& ops);

}  // namespace tenet_cost::mapping
