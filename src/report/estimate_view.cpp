// The view of an EstimateResult: per-GEMM rows and per-entry totals (docs/estimate-formats.md).
#include <nlohmann/json.hpp>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

namespace {

using nlohmann::json;
using namespace tenet_cost::model;

json tensor_json(const cost::TensorCost& t) {
  json j;
  j["name"] = t.name;
  j["role"] = quant::to_string(t.role);
  if (t.bits_num % t.bits_den == 0)
    j["bits"] = t.bits_num / t.bits_den;
  else
    j["bits"] = static_cast<double>(t.bits_num) / static_cast<double>(t.bits_den);
  j["dram_bytes"] = t.dram_bytes;
  j["buffer_bytes"] = t.buffer_bytes;
  j["dram_elements"] = t.dram_elems;
  j["buffer_elements"] = t.buffer_elems;
  j["total_accesses"] = t.total_elems;
  j["register_elements"] = t.register_elems;
  j["noc_elements"] = t.noc_elems;
  j["applied"] = quant::to_string(t.apply);
  if (t.array_bits > 0) j["array_bits"] = t.array_bits;
  return j;
}

// The per-level section of a GEMM on an arch with memory levels (absent otherwise).
json levels_json(const std::vector<cost::LevelCost>& levels) {
  json out = json::array();
  for (const auto& l : levels) {
    json j;
    j["name"] = l.name;
    j["tile"] = {{"m", l.tile.m}, {"n", l.tile.n}, {"k", l.tile.k}, {"order", l.tile.order}, {"count", l.tiles}};
    if (l.instances > 1) j["instances"] = l.instances;  // absent for one shared store
    j["working_set_bytes"] = l.working_set_bytes;
    j["usable_bytes"] = l.usable_bytes;
    j["served_bytes"] = l.served_bytes;
    j["cycles"] = l.cycles;
    j["energy_j"] = l.energy_j;
    j["operands"] = json::array();
    for (const auto& o : l.operands)
      j["operands"].push_back({{"name", o.name}, {"fills", o.fills}, {"reads", o.reads}, {"updates", o.updates}});
    out.push_back(j);
  }
  return out;
}

// The text table of the levels of every GEMM row that has them ("" when none has).
std::string levels_text(const EstimateResult& e) {
  Table t;
  t.headers = {"function",   "level",     "tile",   "tiles",     "ws_KiB",
               "usable_KiB", "served_MB", "cycles", "energy_mJ", "fills/reads/updates (elements)"};
  t.right_align = {false, false, false, true, true, true, true, true, true, false};
  for (const auto& [g, c] : e.result.rows)
    for (const auto& l : c.levels) {
      std::string moved;
      for (const auto& o : l.operands)
        moved += (moved.empty() ? "" : "  ") + o.name + " " + grouped(o.fills) + "/" + grouped(o.reads) +
                 (o.updates ? "/" + grouped(o.updates) : "");
      t.rows.push_back({g.function, l.instances > 1 ? l.name + " x" + std::to_string(l.instances) : l.name,
                        std::to_string(l.tile.m) + "x" + std::to_string(l.tile.n) + "x" + std::to_string(l.tile.k) +
                            ":" + l.tile.order,
                        grouped(l.tiles), fixed(static_cast<double>(l.working_set_bytes) / 1024.0, 1),
                        fixed(static_cast<double>(l.usable_bytes) / 1024.0, 1), megabytes(l.served_bytes),
                        grouped(l.cycles), fixed(l.energy_j * 1e3, 4), moved});
    }
  if (t.rows.empty()) return "";
  return "\nMemory levels (outermost first; fills from the level above, reads served below, updates written back):\n" +
         render_text(t);
}

std::string role_name(quant::GemmRole r) {
  switch (r) {
    case quant::GemmRole::kLinear: return "linear";
    case quant::GemmRole::kLinearUnquantized: return "linear-unquantized";
    case quant::GemmRole::kAttnQK: return "attention-qk";
    case quant::GemmRole::kAttnPV: return "attention-pv";
  }
  return "linear";
}

std::string scheme_name(const EstimateResult& r, const ModelGemm& g) { return scheme_of(g, r.scheme).name; }

std::string estimate_json(const EstimateResult& e) {
  json j = run_info_json(e.info);
  j["workloads"] = json::array();
  for (const auto& [g, c] : e.result.rows) {
    json w;
    w["function"] = g.function;
    w["entry"] = g.entry;
    w["phase"] = to_string(g.phase);
    w["calls"] = g.calls;
    w["source"] = to_string(g.source);
    w["kind"] = role_name(c.shape.role);
    w["shape"] = {{"batch", c.shape.batch}, {"m", c.shape.m}, {"n", c.shape.n}, {"k", c.shape.k}};
    w["scheme"] = scheme_name(e, g);
    w["precision"] = to_string(c.precision);
    w["mac_path"] = arch::to_string(c.mac_path);
    w["macs"] = c.macs;
    w["cycles"] = c.cycles;
    w["cycles_by_term"] = json::object();
    for (const auto& t : c.terms) w["cycles_by_term"][cost::to_string(t.term)] = t.cycles;
    w["bound"] = cost::to_string(c.bound);
    w["time_stamps"] = c.time_stamps;
    w["latency_s"] = c.latency_s;
    w["energy_j"] = c.energy_j;
    w["energy_by_term_j"] = energy_json(c.energy_by_term);
    w["utilization"] = c.utilization;
    w["dram_bytes"] = c.dram_bytes;
    w["buffer_bytes"] = c.buffer_bytes;
    w["dequant_ops"] = c.dequant_ops;
    w["vector_ops"] = c.vector_ops;
    w["tile"] = {{"m", c.tile.m}, {"n", c.tile.n}, {"k", c.tile.k}, {"order", c.tile.order}, {"count", c.tiles}};
    w["array_model"] = cost::to_string(c.array_model);
    w["tensors"] = json::array();
    for (const auto& t : c.tensors) w["tensors"].push_back(tensor_json(t));
    if (!c.levels.empty()) w["levels"] = levels_json(c.levels);
    j["workloads"].push_back(w);
  }
  j["operators"] = json::array();
  for (const auto& [op, c] : e.result.op_rows) {
    json o;
    o["function"] = op.function;
    o["entry"] = op.entry;
    o["phase"] = to_string(op.phase);
    o["calls"] = op.calls;
    o["source"] = to_string(op.source);
    o["ops"] = c.shape.ops;
    o["dram_read_bytes"] = c.shape.dram_read_bytes;
    o["dram_write_bytes"] = c.shape.dram_write_bytes;
    o["cycles"] = c.cycles;
    o["cycles_by_term"] = json::object();
    for (const auto& t : c.terms) o["cycles_by_term"][cost::to_string(t.term)] = t.cycles;
    o["bound"] = cost::to_string(c.bound);
    o["latency_s"] = c.latency_s;
    o["energy_j"] = c.energy_j;
    o["energy_by_term_j"] = energy_json(c.energy_by_term);
    j["operators"].push_back(o);
  }
  j["totals"] = json::object();
  for (const auto& [entry, t] : e.result.totals)
    j["totals"][entry] = {{"macs", t.macs},
                          {"cycles", t.cycles},
                          {"latency_s", t.latency_s},
                          {"dram_bytes", t.dram_bytes},
                          {"scale_dram_bytes", t.scale_dram_bytes},
                          {"buffer_bytes", t.buffer_bytes},
                          {"energy_j", t.energy_j},
                          {"energy_by_term_j", energy_json(t.energy_by_term)},
                          {"non_gemm",
                           {{"cycles", t.non_gemm_cycles},
                            {"latency_s", t.non_gemm_latency_s},
                            {"dram_bytes", t.non_gemm_dram_bytes},
                            {"ops", t.non_gemm_ops},
                            {"energy_j", t.non_gemm_energy_j}}},
                          {"phase", to_string(e.result.entry_phase.at(entry))}};
  return dump_json(j);
}

std::string shape_text(const cost::GemmShape& s) {
  return std::to_string(s.batch) + "x" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

std::string tile_text(const cost::Tile& t) {
  return std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) + ":" + t.order;
}

}  // namespace

std::string render(const EstimateResult& e, Format fmt) {
  if (fmt == Format::kHtml) throw InternalError("the estimate html view needs the arch: report::html::estimate_doc");
  if (fmt == Format::kJson) return estimate_json(e);
  Table t;
  t.headers = {"entry", "function",   "calls",   "b x m x n x k", "scheme",    "prec",   "mac_path",  "MACs", "cycles",
               "bound", "latency_ms", "DRAM_MB", "scale_MB",      "buffer_MB", "util_%", "energy_mJ", "tile"};
  t.right_align = {false, false, true, false, false, false, false, true, true,
                   false, true,  true, true,  true,  true,  true,  false};
  const bool csv = fmt == Format::kCsv;
  // CSV: one column per energy term after the others (the text table keeps the total only)
  if (csv)
    for (auto& h : energy_columns("energy_", "_mJ")) t.headers.push_back(std::move(h));
  auto with_terms = [&](std::vector<std::string> row, const cost::EnergyByTerm& by_term) {
    if (csv)
      for (const auto term : cost::kEnergyTerms) row.push_back(fixed(by_term[term] * 1e3, 4));
    return row;
  };
  auto num = [&](std::int64_t v) { return csv ? std::to_string(v) : grouped(v); };
  for (const auto& [g, c] : e.result.rows)
    t.rows.push_back(with_terms(
        {g.entry, g.function, std::to_string(g.calls), shape_text(c.shape), scheme_name(e, g), to_string(c.precision),
         arch::to_string(c.mac_path), num(c.macs), num(c.cycles), cost::to_string(c.bound), fixed(c.latency_s * 1e3, 4),
         megabytes(c.dram_bytes), megabytes(c.scale_dram_bytes), megabytes(c.buffer_bytes),
         fixed(c.utilization * 100, 1), fixed(c.energy_j * 1e3, 4), tile_text(c.tile)},
        c.energy_by_term));
  Table ops;  // non-GEMM operators: CSV rows after the GEMMs (shape, scheme, MACs, tile empty), a table of their own
  ops.headers = {"entry", "function", "calls", "ops", "cycles", "bound", "latency_ms", "DRAM_MB", "energy_mJ"};
  ops.right_align = {false, false, true, true, true, false, true, true, true};
  for (const auto& [op, c] : e.result.op_rows) {
    if (csv)
      t.rows.push_back(
          with_terms({op.entry, op.function, std::to_string(op.calls), "", "", "vector", "", "0", num(c.cycles),
                      cost::to_string(c.bound), fixed(c.latency_s * 1e3, 4), megabytes(c.dram_bytes), megabytes(0),
                      megabytes(0), "", fixed(c.energy_j * 1e3, 4), ""},
                     c.energy_by_term));
    ops.rows.push_back({op.entry, op.function, std::to_string(op.calls), grouped(c.shape.ops), grouped(c.cycles),
                        cost::to_string(c.bound), fixed(c.latency_s * 1e3, 4), megabytes(c.dram_bytes),
                        fixed(c.energy_j * 1e3, 4)});
  }
  if (csv) return render_csv(t);
  std::string out = render_text(t);
  out += levels_text(e);
  if (!ops.rows.empty()) out += "\nNon-GEMM operators (vector unit and DRAM):\n" + render_text(ops);
  Table tot;
  tot.headers = {"entry", "phase", "MACs", "cycles", "latency_ms", "non_gemm_ms", "DRAM_MB", "scale_MB", "energy_mJ"};
  tot.right_align = {false, false, true, true, true, true, true, true, true};
  for (const auto& [entry, x] : e.result.totals)
    tot.rows.push_back({entry, to_string(e.result.entry_phase.at(entry)), grouped(x.macs), grouped(x.cycles),
                        fixed(x.latency_s * 1e3, 3), fixed(x.non_gemm_latency_s * 1e3, 3), megabytes(x.dram_bytes),
                        megabytes(x.scale_dram_bytes), fixed(x.energy_j * 1e3, 3)});
  out += "\nTotals per entry (per-call values x calls; arch " + e.info.arch + ", dataflow " + e.info.dataflow + ", " +
         run_info_text(e.info) + "):\n";
  out += render_text(tot) + notes_text(e.info);
  return out;
}

}  // namespace tenet_cost::report
