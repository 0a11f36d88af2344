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

// A request search (search --prompt-len / --gen-len): its decode steps, and the batch's figures of a configuration
// (the prefill = TTFT, the decode total = every step's sum; a part of --per-phase has one of them).
std::int64_t decode_steps(const search::SearchResult& r) { return r.request ? r.request->gen_len - 1 : 0; }

const std::vector<std::string>& request_headers(const search::SearchResult& r) {
  static const std::vector<std::string> whole = {"ttft_ms",    "tpot_ms",   "e2e_ms", "J/request",
                                                 "GB/request", "prefill_J", "steps_J"};
  static const std::vector<std::string> prefill = {"ttft_ms", "prefill_J", "prefill_GB"};
  static const std::vector<std::string> decode = {"tpot_ms", "steps_ms", "steps_J", "steps_GB"};
  return r.part == model::Phase::kPrefill ? prefill : r.part == model::Phase::kDecode ? decode : whole;
}

std::vector<std::string> request_cells(const search::SearchResult& r, const search::Config& c) {
  const model::PhaseSum &pre = c.totals.prefill, &dec = c.totals.decode;
  const auto steps = static_cast<double>(std::max<std::int64_t>(decode_steps(r), 1));
  const double tpot_ms = decode_steps(r) > 0 ? dec.latency_s * 1e3 / steps : 0.0;
  const auto gb = [](std::int64_t b) { return fixed(static_cast<double>(b) / 1e9, 3); };
  if (r.part == model::Phase::kPrefill)
    return {fixed(pre.latency_s * 1e3, 1), fixed(pre.energy_j, 3), gb(pre.dram_bytes)};
  if (r.part == model::Phase::kDecode)
    return {fixed(tpot_ms, 2), fixed(dec.latency_s * 1e3, 1), fixed(dec.energy_j, 3), gb(dec.dram_bytes)};
  const auto n = static_cast<double>(r.info.batch);
  return {fixed(pre.latency_s * 1e3, 1),
          fixed(tpot_ms, 2),
          fixed((pre.latency_s + dec.latency_s) * 1e3, 1),
          fixed((pre.energy_j + dec.energy_j) / n, 3),
          fixed(static_cast<double>(pre.dram_bytes + dec.dram_bytes) / n / 1e9, 3),
          fixed(pre.energy_j, 3),
          fixed(dec.energy_j, 3)};
}

// The request object of a request search's JSON (docs/search.md "Requests").
json request_json(const search::SearchResult& r) {
  return {{"prompt_len", r.request->prompt_len},
          {"gen_len", r.request->gen_len},
          {"decode_steps", decode_steps(r)},
          {"part", r.part == model::Phase::kOther ? std::string("whole") : model::to_string(r.part)}};
}

// The ranking: one row per listed configuration, with the columns of the phases the model has (never a column of
// zeros for a phase it has not); `wide`: then three columns per other entry (<entry>_ms, _mJ, _MB).
Table ranking_table(const search::SearchResult& r, bool wide) {
  Table t;
  t.headers = {"scheme", "rank", "dataflow", "array"};
  if (r.request) {
    t.headers.insert(t.headers.end(), request_headers(r).begin(), request_headers(r).end());
  } else {
    if (r.info.has_prefill) t.headers.insert(t.headers.end(), {"prefill_ms", "prefill_J", "prefill_GB"});
    if (r.info.has_decode) t.headers.insert(t.headers.end(), {"decode_ms/step", "decode_mJ/step", "decode_MB/step"});
  }
  const std::vector<std::string> entries = wide ? other_entries(r) : std::vector<std::string>{};
  for (const auto& e : entries) t.headers.insert(t.headers.end(), {e + "_ms", e + "_mJ", e + "_MB"});
  t.right_align.assign(t.headers.size(), true);
  t.right_align[0] = t.right_align[2] = t.right_align[3] = false;
  for (const auto& s : r.rows)
    for (std::size_t i = 0; i < s.top.size(); ++i) {
      const search::Config& c = s.top[i];
      std::vector<std::string> row = {s.scheme, std::to_string(i + 1), c.dataflow, array_text(c)};
      const model::PhaseSum &pre = c.totals.prefill, &dec = c.totals.decode;
      if (r.request) {
        const std::vector<std::string> cells = request_cells(r, c);
        row.insert(row.end(), cells.begin(), cells.end());
      } else if (r.info.has_prefill)
        row.insert(row.end(), {fixed(pre.latency_s * 1e3, 1), fixed(pre.energy_j, 3),
                               fixed(static_cast<double>(pre.dram_bytes) / 1e9, 3)});
      if (!r.request && r.info.has_decode)
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

// The search's JSON document (docs/search.md).
json search_json(const search::SearchResult& r) {
  json j = run_info_json(r.info);
  j["objective"] = cost::to_string(r.objective);
  j["per_gemm"] = r.per_gemm;
  if (r.request) j["request"] = request_json(r);
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
  return j;
}

// What the text's first line says was searched: the phases, or the request (and its part).
std::string phases_text(const search::SearchResult& r) {
  return (r.info.has_prefill ? ", prefill " + std::to_string(r.info.seq_len) + " tokens" : "") +
         (r.info.has_decode ? ", decode at context " + std::to_string(r.info.context) : "");
}

std::string request_text(const search::SearchResult& r) {
  const model::Request& q = *r.request;
  const std::string steps = std::to_string(decode_steps(r)) + " decode steps at contexts " +
                            std::to_string(q.prompt_len + 1) + " .. " + std::to_string(q.prompt_len + q.gen_len - 1);
  const std::string what = r.part == model::Phase::kPrefill  ? "the prefill part (TTFT)"
                           : r.part == model::Phase::kDecode ? "the decode part: " + steps
                                                             : "the prefill and " + steps;
  return " of the request (prompt " + std::to_string(q.prompt_len) + ", " + std::to_string(q.gen_len) +
         " output tokens): " + what;
}

}  // namespace

std::string render(const search::SearchResult& r, Format fmt) {
  if (fmt == Format::kHtml) throw InternalError("the search html view needs the arch: report::html::search_doc");
  if (fmt == Format::kJson) return dump_json(search_json(r));
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
                    ", objective " + cost::to_string(r.objective) + (r.request ? request_text(r) : phases_text(r)) +
                    ", batch " + std::to_string(r.info.batch) + ", " + model::to_string(r.info.attention) +
                    " attention\n" + render_text(t) +
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

std::string render(const search::RequestSearch& rs, Format fmt) {
  if (rs.found.size() == 1) return render(rs.found.front(), fmt);
  if (fmt == Format::kJson) {
    json j;
    j["per_phase"] = true;
    j["prefill"] = search_json(rs.found.front());
    j["decode"] = search_json(rs.found.back());
    return dump_json(j);
  }
  if (fmt != Format::kTable)
    throw InputError(
        "search --per-phase: the prefill's and the decode steps' searches are two rankings with different columns: "
        "use --format table or json");
  return render(rs.found.front(), fmt) + "\n" + render(rs.found.back(), fmt);
}

}  // namespace tenet_cost::report
