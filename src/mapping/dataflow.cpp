// The dataflow preset table and user mapping files (docs/model.md "Dataflows").
#include <algorithm>

#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"

namespace tenet_cost::mapping {

const std::vector<PresetInfo>& presets() {
  static const std::vector<PresetInfo> table = {
      {Preset::kOS, "os", "output-stationary", true},
      {Preset::kWS, "ws", "weight-stationary", true},
      {Preset::kIS, "is", "input-stationary", false},
      {Preset::kNCF, "ncf", "", false},  // TENET's ncf_nmk generalised
  };
  return table;
}

const PresetInfo& info(Preset p) {
  for (const auto& row : presets())
    if (row.id == p) return row;
  throw InternalError("dataflow preset missing from the table");
}

std::vector<std::string> dataflow_presets() {
  std::vector<std::string> out;
  for (const auto& row : presets()) out.emplace_back(row.name);
  return out;
}

std::string dataflow_choices() {
  std::string out;
  for (const auto& row : presets()) {
    out += std::string(row.name);
    if (!row.long_name.empty()) out += " (" + std::string(row.long_name) + ")";
    out += ", ";
  }
  return out + "a generated mapping gen:<xy>-<t>-<r|c>-<skews> (docs/model.md), or a path to a TENET .m mapping file";
}

namespace {

tenet::MappingSpec generated_mapping(const Generated& g, std::int64_t rows, std::int64_t cols, bool batched) {
  const std::string R = std::to_string(rows), C = std::to_string(cols);
  const std::string x(1, g.space[0]), y(1, g.space[1]), t(1, g.time);
  const std::string S = batched ? "S[b,i,j,k]" : "S[i,j,k]";
  const std::string fx = "floor(" + x + "/" + R + ")", fy = "floor(" + y + "/" + C + ")";
  std::string inner = t;
  auto skew = [&](int c, const std::string& v, const std::string& n) {
    if (c == 0) return;
    inner += "+" + (c == 1 ? std::string() : std::to_string(c) + "*") + "(" + v + "%" + n + ")";
  };
  skew(g.skew[0], x, R);
  skew(g.skew[1], y, C);
  const std::string time = std::string("T[") + (batched ? "b," : "") + (g.rows_fold_outer ? fx + "," + fy : fy + "," + fx) +
                           "," + inner + "]";
  tenet::MappingSpec m;
  m.space_map = {"{" + S + "->PE[" + x + "%" + R + "," + y + "%" + C + "]}", SourceLocation{"<generated>", 1, 1}};
  m.time_map = {"{" + S + "->" + time + "}", SourceLocation{"<generated>", 2, 1}};
  return m;
}

}  // namespace

Dataflow parse_dataflow(const std::string& text) {
  for (const auto& row : presets())
    if (text == row.name || (!row.long_name.empty() && text == row.long_name))
      return Dataflow{std::string(row.name), row.id, std::nullopt, {}};
  if (const auto g = parse_generated(text)) return Dataflow{g->name(), std::nullopt, *g, {}};
  if (text.size() > 2 && text.substr(text.size() - 2) == ".m") {
    Dataflow d{text, std::nullopt, std::nullopt, tenet::load_mapping(text)};
    const auto& space = d.file_mapping.space_map;
    if (space.text.find("S[i,j,k]") == std::string::npos && space.text.find("S[b,i,j,k]") == std::string::npos)
      throw InputError(space.loc, "expected a space map over S[i,j,k] (A[i,k] x B[k,j] -> C[i,j]), found " + space.text);
    return d;
  }
  throw InputError("unknown dataflow '" + text + "'; valid: " + dataflow_choices());
}

namespace {

// os, ws and is are generated mappings (the generator's names in mapping.hpp); ncf folds j over the rows and is not.
std::optional<Generated> as_generated(Preset p) {
  switch (p) {
    case Preset::kOS: return Generated{{'i', 'j'}, 'k', true, {1, 1}};
    case Preset::kWS: return Generated{{'k', 'j'}, 'i', false, {1, 1}};
    case Preset::kIS: return Generated{{'k', 'i'}, 'j', false, {1, 1}};
    case Preset::kNCF: break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::array<char, 2>> spatial_dims(const Dataflow& d) {
  if (d.generated) return d.generated->space;
  if (!d.preset) return std::nullopt;
  if (const auto g = as_generated(*d.preset)) return g->space;
  return std::array<char, 2>{'j', 'k'};  // ncf
}

tenet::MappingSpec Dataflow::mapping(std::int64_t rows, std::int64_t cols, bool batched) const {
  if (generated) return generated_mapping(*generated, rows, cols, batched);
  if (!preset) return file_mapping;
  if (const auto g = as_generated(*preset)) return generated_mapping(*g, rows, cols, batched);
  // ncf (TENET's ncf_nmk generalised): j over the rows and k over the columns, i in time.
  const std::string R = std::to_string(rows), C = std::to_string(cols);
  const std::string S = batched ? "S[b,i,j,k]" : "S[i,j,k]";
  const std::string B = batched ? "b," : "";
  const std::string space = "PE[j%" + R + ",k%" + C + "]";
  const std::string time = "T[" + B + "floor(i/" + R + "),floor(k/" + C + "),i%" + R + ",floor(j/" + R + ")]";
  tenet::MappingSpec m;
  m.space_map = {"{" + S + "->" + space + "}", SourceLocation{"<generated>", 1, 1}};
  m.time_map = {"{" + S + "->" + time + "}", SourceLocation{"<generated>", 2, 1}};
  return m;
}

tenet::PEArraySpec pe_array(const arch::Arch& arch) {
  tenet::PEArraySpec p;
  const std::string r = std::to_string(arch.rows), c = std::to_string(arch.cols);
  p.domain.text = "{PE[i,j]: 0<=i<" + r + " and 0<=j<" + c + "}";
  p.domain.loc.file = "<generated>";
  p.domain.loc.line = 1;
  switch (arch.interconnect) {
    case arch::Interconnect::kSystolic: p.interconnect.text = "{PE[i,j]->PE[i-1,j]; PE[i,j]->PE[i,j-1]}"; break;
    case arch::Interconnect::kMesh:
      p.interconnect.text = "{PE[i,j]->PE[i-1,j]; PE[i,j]->PE[i+1,j]; PE[i,j]->PE[i,j-1]; PE[i,j]->PE[i,j+1]}";
      break;
    case arch::Interconnect::kNone: p.interconnect.text = "{PE[i,j]->PE[i,j]}"; break;
    case arch::Interconnect::kRelation: p.interconnect.text = arch.interconnect_relation; break;
  }
  p.interconnect.loc.file = "<generated>";
  p.interconnect.loc.line = 2;
  p.bandwidth = static_cast<std::uint64_t>(arch.buffer_bits_per_cycle);
  p.avg_latency = 1;
  return p;
}

tenet::Problem tile_problem(const arch::Arch& arch, const Dataflow& dataflow, std::int64_t tm, std::int64_t tn,
                            std::int64_t tk, const std::vector<quant::Operand>& ops) {
  tenet::Problem p;
  p.pe = pe_array(arch);
  const SourceLocation gen{"<generated>", 1, 1};
  p.statement.domain = {"{S[i,j,k]: 0<=i<" + std::to_string(tm) + " and 0<=j<" + std::to_string(tn) +
                            " and 0<=k<" + std::to_string(tk) + "}",
                        gen};
  for (const auto& op : ops)
    if (op.in_array()) (op.write ? p.statement.writes : p.statement.reads).push_back({op.relation(), gen});
  p.mapping = dataflow.mapping(arch.rows, arch.cols);
  return p;
}

}  // namespace tenet_cost::mapping
