// The view of a search::SearchResult (docs/search.md): per scheme its best configuration (and the next ones with
// --top), each GEMM's chosen dataflow, tile and order, and the latency-energy Pareto front.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

using nlohmann::json;

namespace {

json phase_json(const model::PhaseSum& p) {
  return {{"latency_s", p.latency_s}, {"energy_j", p.energy_j}, {"dram_bytes", p.dram_bytes}};
}

// The entries that are neither prefill nor decode, by name (compare's `entries` keys).
json entries_json(const search::Totals& t) {
  json x = json::object();
  for (const auto& e : t.other) x[e.entry] = phase_json(e.sum);
  return x;
}

json config_json(const search::Config& c) {
  json x;
  x["dataflow"] = c.dataflow;
  x["rows"] = c.rows;
  x["cols"] = c.cols;
  x["prefill"] = phase_json(c.totals.prefill);
  x["decode"] = phase_json(c.totals.decode);
  if (!c.totals.other.empty()) x["entries"] = entries_json(c.totals);
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

const model::EntrySum& other_entry(const search::Config& c, const std::string& name) {
  const auto it = std::find_if(c.totals.other.begin(), c.totals.other.end(),
                               [&name](const model::EntrySum& e) { return e.entry == name; });
  if (it == c.totals.other.end()) throw InternalError("search view: configurations with different entries");
  return *it;
}

// The entries that are neither prefill nor decode (every configuration of a model has the same ones), by name.
std::vector<std::string> other_entries(const search::SearchResult& r) {
  std::vector<std::string> out;
  if (!r.rows.empty())
    for (const auto& e : r.rows.front().top.front().totals.other) out.push_back(e.entry);
  return out;
}

// The ranking: one row per listed configuration, with the columns of the phases the model has (never a column of
// zeros for a phase it has not); `wide`: then three columns per other entry (<entry>_ms, _mJ, _MB).
Table ranking_table(const search::SearchResult& r, bool wide) {
  Table t;
  t.headers = {"scheme", "rank", "dataflow", "array"};
  if (r.info.has_prefill) t.headers.insert(t.headers.end(), {"prefill_ms", "prefill_J", "prefill_GB"});
  if (r.info.has_decode) t.headers.insert(t.headers.end(), {"decode_ms/step", "decode_mJ/step", "decode_MB/step"});
  const std::vector<std::string> entries = wide ? other_entries(r) : std::vector<std::string>{};
  for (const auto& e : entries) t.headers.insert(t.headers.end(), {e + "_ms", e + "_mJ", e + "_MB"});
  t.right_align.assign(t.headers.size(), true);
  t.right_align[0] = t.right_align[2] = t.right_align[3] = false;
  for (const auto& s : r.rows)
    for (std::size_t i = 0; i < s.top.size(); ++i) {
      const search::Config& c = s.top[i];
      std::vector<std::string> row = {s.scheme, std::to_string(i + 1), c.dataflow, array_text(c)};
      const model::PhaseSum &pre = c.totals.prefill, &dec = c.totals.decode;
      if (r.info.has_prefill)
        row.insert(row.end(), {fixed(pre.latency_s * 1e3, 1), fixed(pre.energy_j, 3),
                               fixed(static_cast<double>(pre.dram_bytes) / 1e9, 3)});
      if (r.info.has_decode)
        row.insert(row.end(), {fixed(dec.latency_s * 1e3, 2), fixed(dec.energy_j * 1e3, 2), megabytes(dec.dram_bytes)});
      for (const auto& name : entries) {
        const model::PhaseSum& e = other_entry(c, name).sum;
        row.insert(row.end(), {fixed(e.latency_s * 1e3, 3), fixed(e.energy_j * 1e3, 3), megabytes(e.dram_bytes)});
      }
      t.rows.push_back(std::move(row));
    }
  return t;
}

// The other entries as compare prints them: one row per listed configuration and entry.
Table entries_table(const search::SearchResult& r) {
  Table t;
  t.headers = {"scheme", "rank", "dataflow", "array", "entry", "ms", "mJ", "MB"};
  t.right_align = {false, true, false, false, false, true, true, true};
  const std::vector<std::string> entries = other_entries(r);
  for (const auto& s : r.rows)
    for (std::size_t i = 0; i < s.top.size(); ++i)
      for (const auto& name : entries) {
        const search::Config& c = s.top[i];
        const model::PhaseSum& e = other_entry(c, name).sum;
        t.rows.push_back({s.scheme, std::to_string(i + 1), c.dataflow, array_text(c), name, fixed(e.latency_s * 1e3, 3),
                          fixed(e.energy_j * 1e3, 3), megabytes(e.dram_bytes)});
      }
  return t;
}

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
      if (!best.totals.other.empty()) x["entries"] = entries_json(best.totals);
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
  // no prefill or decode entry: the ranking is the entries table (one row per configuration and entry); both: the
  // text prints the other entries as a second table, the CSV (one table) as three columns per entry
  const bool phases = r.info.has_prefill || r.info.has_decode, others = !other_entries(r).empty();
  const Table t = phases ? ranking_table(r, fmt == Format::kCsv) : entries_table(r);
  if (fmt == Format::kCsv) return render_csv(t);
  std::string out = "search of " + r.info.model + " on " + r.info.arch + " over dataflows " + r.info.dataflow +
                    (r.per_gemm ? r.objective == cost::Objective::kEdp
                                      ? " (each GEMM its own, chosen by its own latency x energy: not the product of "
                                        "the totals)"
                                      : " (each GEMM its own)"
                                : " (one per model)") +
                    ", objective " + cost::to_string(r.objective) +
                    (r.info.has_prefill ? ", prefill " + std::to_string(r.info.seq_len) + " tokens" : "") +
                    (r.info.has_decode ? ", decode at context " + std::to_string(r.info.context) : "") + ", batch " +
                    std::to_string(r.info.batch) + ", " + model::to_string(r.info.attention) + " attention\n" +
                    render_text(t) +
                    (phases && others ? "\nother entries\n" + render_text(entries_table(r)) : std::string());
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
  p.headers = {"scheme", "dataflow", "array", "latency_ms", "energy_mJ"};
  p.right_align = {false, false, false, true, true};
  for (const auto& x : r.pareto)
    p.rows.push_back({x.scheme, x.dataflow, std::to_string(x.rows) + "x" + std::to_string(x.cols),
                      fixed(x.latency_s * 1e3, 3), fixed(x.energy_j * 1e3, 3)});
  out += "\nlatency-energy Pareto front (every entry, every configuration)\n" + render_text(p);
  return out + notes_text(r.info);
}

}  // namespace tenet_cost::report
