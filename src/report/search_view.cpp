// The view of a search::SearchResult (docs/search.md): per scheme its best configuration (and the next ones with
// --top), each GEMM's chosen dataflow, tile and order, and the latency-energy Pareto front.
#include <nlohmann/json.hpp>

#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

using nlohmann::json;

namespace {

json phase_json(const model::PhaseSum& p) {
  return {{"latency_s", p.latency_s}, {"energy_j", p.energy_j}, {"dram_bytes", p.dram_bytes}};
}

json config_json(const search::Config& c) {
  json x;
  x["dataflow"] = c.dataflow;
  x["rows"] = c.rows;
  x["cols"] = c.cols;
  x["prefill"] = phase_json(c.totals.prefill);
  x["decode"] = phase_json(c.totals.decode);
  x["latency_s"] = c.totals.latency_s;
  x["energy_j"] = c.totals.energy_j;
  x["dram_bytes"] = c.totals.dram_bytes;
  x["gemms"] = json::array();
  for (const auto& g : c.gemms)
    x["gemms"].push_back({{"function", g.function},
                          {"entry", g.entry},
                          {"calls", g.calls},
                          {"batch", g.shape.batch},
                          {"m", g.shape.m},
                          {"n", g.shape.n},
                          {"k", g.shape.k},
                          {"dataflow", g.dataflow},
                          {"tile", cost::to_string(g.tile)},
                          {"order", g.tile.order},
                          {"bound", cost::to_string(g.bound)},
                          {"latency_s", g.latency_s},
                          {"energy_j", g.energy_j},
                          {"dram_bytes", g.dram_bytes}});
  return x;
}

std::string array_text(const search::Config& c) { return std::to_string(c.rows) + "x" + std::to_string(c.cols); }

}  // namespace

std::string render(const search::SearchResult& r, Format fmt) {
  if (fmt == Format::kHtml) throw InternalError("the search html view needs the arch: report::html::search_doc");
  if (fmt == Format::kJson) {
    json j = run_info_json(r.info);
    j["objective"] = cost::to_string(r.objective);
    j["per_gemm"] = r.per_gemm;
    j["rows"] = json::array();
    for (const auto& s : r.rows) {
      const search::Config& best = s.top.front();
      json x;
      x["scheme"] = s.scheme;
      x["prefill"] = phase_json(best.totals.prefill);
      x["decode"] = phase_json(best.totals.decode);
      x["configurations"] = s.configurations;
      x["best"] = config_json(best);
      x["top"] = json::array();
      for (std::size_t i = 1; i < s.top.size(); ++i) {
        json c = config_json(s.top[i]);
        c.erase("gemms");
        x["top"].push_back(c);
      }
      j["rows"].push_back(x);
    }
    j["pareto"] = json::array();
    for (const auto& p : r.pareto)
      j["pareto"].push_back({{"scheme", p.scheme},
                             {"dataflow", p.dataflow},
                             {"rows", p.rows},
                             {"cols", p.cols},
                             {"latency_s", p.latency_s},
                             {"energy_j", p.energy_j}});
    return dump_json(j);
  }
  Table t;
  t.headers = {"scheme",    "rank",       "dataflow",      "array",         "prefill_ms",
               "prefill_J", "prefill_GB", "decode_ms/tok", "decode_mJ/tok", "decode_MB/tok"};
  t.right_align = {false, true, false, false, true, true, true, true, true, true};
  for (const auto& s : r.rows)
    for (std::size_t i = 0; i < s.top.size(); ++i) {
      const search::Config& c = s.top[i];
      t.rows.push_back({s.scheme, std::to_string(i + 1), c.dataflow, array_text(c),
                        fixed(c.totals.prefill.latency_s * 1e3, 1), fixed(c.totals.prefill.energy_j, 3),
                        fixed(static_cast<double>(c.totals.prefill.dram_bytes) / 1e9, 3),
                        fixed(c.totals.decode.latency_s * 1e3, 2), fixed(c.totals.decode.energy_j * 1e3, 2),
                        megabytes(c.totals.decode.dram_bytes)});
    }
  if (fmt == Format::kCsv) return render_csv(t);
  std::string out = "search of " + r.info.model + " on " + r.info.arch + " over dataflows " + r.info.dataflow +
                    (r.per_gemm ? " (each GEMM its own)" : " (one per model)") + ", objective " +
                    cost::to_string(r.objective) + ", prefill " + std::to_string(r.info.seq_len) +
                    " tokens, decode at context " + std::to_string(r.info.context) + "\n" + render_text(t);
  Table g;
  g.headers = {"scheme",   "entry",  "function", "m",      "n",     "k",
               "dataflow", "tile m", "tile n",   "tile k", "order", "bound"};
  g.right_align = {false, false, false, true, true, true, false, true, true, true, false, false};
  for (const auto& s : r.rows)
    for (const auto& c : s.top.front().gemms)
      g.rows.push_back({s.scheme, c.entry, c.function, std::to_string(c.shape.m), std::to_string(c.shape.n),
                        std::to_string(c.shape.k), c.dataflow, std::to_string(c.tile.m), std::to_string(c.tile.n),
                        std::to_string(c.tile.k), c.tile.order, cost::to_string(c.bound)});
  out += "\nchosen mappings (best configuration of each scheme)\n" + render_text(g);
  Table p;
  p.headers = {"scheme", "dataflow", "array", "latency_ms", "energy_J"};
  p.right_align = {false, false, false, true, true};
  for (const auto& x : r.pareto)
    p.rows.push_back({x.scheme, x.dataflow, std::to_string(x.rows) + "x" + std::to_string(x.cols),
                      fixed(x.latency_s * 1e3, 2), fixed(x.energy_j, 3)});
  out += "\nlatency-energy Pareto front (prefill + decode, every configuration)\n" + render_text(p);
  return out;
}

}  // namespace tenet_cost::report
