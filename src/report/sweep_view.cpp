// `sweep plot RESULTS.jsonl` (docs/report.md "Sweep plots"): a results file -> ReportDoc. For every swept axis (an
// axis with more than one value, the scheme excepted) and every combination of the other swept axes' values (a
// slice), the prefill and decode latency, energy and DRAM traffic against that axis, one line per scheme; and the
// decode latency-energy trade-off of every point of the grid with its Pareto front.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report_html.hpp"
#include "tenet_cost/sweep.hpp"

namespace tenet_cost::report::html {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxSlices = 8;  // per swept axis (the page says when more were left out)

// One point of the file: its axis values as text (by axis name), the scheme, the result.
struct Row {
  std::string id, scheme;
  std::map<std::string, std::string> axes;
  json result;
};

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Axis values in order: integers by value, other values by text.
bool value_less(const std::string& a, const std::string& b) {
  const bool ia = !a.empty() && std::all_of(a.begin(), a.end(), ::isdigit);
  const bool ib = !b.empty() && std::all_of(b.begin(), b.end(), ::isdigit);
  if (ia && ib) return a.size() != b.size() ? a.size() < b.size() : a < b;
  if (ia != ib) return ia;
  return a < b;
}

struct Metric {
  const char* key;    // the result's key
  const char* attr;   // the data attribute
  const char* what;   // "latency"
  const char* big;    // unit when the values reach 1 (or 1e9 bytes)
  const char* small;  // unit otherwise
  double big_unit, small_unit;
};
constexpr Metric kMetrics[] = {
    {"latency_s", "data-latency-s", "latency", "s", "ms", 1, 1e-3},
    {"energy_j", "data-energy-j", "energy", "J", "mJ", 1, 1e-3},
    {"dram_bytes", "data-dram-bytes", "DRAM traffic", "GB", "MB", 1e9, 1e6},
};

std::vector<Row> read_rows(const sweep::ResultsFile& file, std::size_t& errors) {
  std::vector<Row> rows;
  for (const auto& line : file.lines) {
    const json j = json::parse(line.text);
    if (!j.contains("result")) {
      ++errors;
      continue;
    }
    Row r;
    r.id = line.id;
    r.result = j.at("result");
    for (const auto& [key, v] : j.at("point").items()) {
      if (key == "files") continue;
      if (key == "set") {
        for (const auto& [path, sv] : v.items()) r.axes[path] = value_text(sv);
        continue;
      }
      r.axes[key] = value_text(v);
    }
    r.scheme = r.result.contains("scheme") ? r.result.at("scheme").get<std::string>() : r.axes["quant"];
    rows.push_back(std::move(r));
  }
  return rows;
}

// The lines of one (axis, slice, phase, metric).
LineChart chart_of(const std::vector<const Row*>& slice, const std::string& axis, const std::vector<std::string>& xs,
                   const std::vector<std::string>& schemes, const std::string& phase, const Metric& m) {
  LineChart c;
  double max = 0;
  for (const Row* r : slice) max = std::max(max, r->result.at(phase).at(m.key).get<double>());
  const bool big = max >= m.big_unit;
  c.unit = big ? m.big_unit : m.small_unit;
  const std::string per = phase == "decode" ? " per step" : "";
  c.y_title = std::string(m.what) + per + " (" + (big ? m.big : m.small) + ")";
  c.x_title = axis;
  c.attr = m.attr;
  c.phase = phase;
  c.x = xs;
  for (const auto& s : schemes) {
    LineSeries ser{s, std::vector<LinePoint>(xs.size())};
    for (const Row* r : slice) {
      if (r->scheme != s) continue;
      const auto at = static_cast<std::size_t>(std::find(xs.begin(), xs.end(), r->axes.at(axis)) - xs.begin());
      if (at >= xs.size() || ser.points[at].present) continue;
      const json& v = r->result.at(phase).at(m.key);
      ser.points[at] = {true, v.get<double>(), v.dump(), r->id};
    }
    c.series.push_back(std::move(ser));
  }
  return c;
}

}  // namespace

ReportDoc sweep_doc(const sweep::ResultsFile& file, const std::string& filename) {
  std::size_t errors = 0;
  const std::vector<Row> rows = read_rows(file, errors);
  if (rows.empty())
    throw InputError(filename + ": expected at least one point with a result to plot, found " + std::to_string(errors) +
                     " error record(s) and no result");
  // every axis's values, and the schemes (the lines), in order
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> schemes;
  for (const auto& r : rows) {
    for (const auto& [k, v] : r.axes)
      if (std::find(values[k].begin(), values[k].end(), v) == values[k].end()) values[k].push_back(v);
    if (std::find(schemes.begin(), schemes.end(), r.scheme) == schemes.end()) schemes.push_back(r.scheme);
  }
  std::vector<std::string> swept, fixed;
  for (auto& [k, v] : values) {
    std::sort(v.begin(), v.end(), value_less);
    if (k == "quant") continue;
    (v.size() > 1 ? swept : fixed).push_back(k);
  }
  ReportDoc doc;
  doc.title = "tenet-cost sweep plot: " + filename;
  doc.assumptions.push_back({"results file", filename + (file.grid_id.empty() ? "" : " (grid " + file.grid_id + ")")});
  doc.assumptions.push_back({"points", std::to_string(rows.size()) + " with a result, " + std::to_string(errors) +
                                           " error record(s) (not drawn)"});
  std::string sw, fx;
  for (const auto& k : swept) {
    std::string vs;
    for (const auto& v : values[k]) vs += (vs.empty() ? "" : ", ") + v;
    sw += (sw.empty() ? "" : "; ") + k + ": " + vs;
  }
  for (const auto& k : fixed) fx += (fx.empty() ? "" : ", ") + k + " = " + values[k].front();
  doc.assumptions.push_back({"swept axes", sw.empty() ? "none besides the scheme" : sw});
  doc.assumptions.push_back({"fixed axes", fx});
  std::string ss;
  for (const auto& s : schemes) ss += (ss.empty() ? "" : ", ") + s;
  doc.assumptions.push_back({"schemes (one line each)", ss});
  doc.assumptions.push_back(
      {"figures", "prefill: the whole prompts of the point's batch; decode: one step (one token of each sequence)"});
  for (std::size_t a = 0; a < swept.size(); ++a) {
    const std::string& axis = swept[a];
    // the slices: each combination of the other swept axes' values, in the order of the sorted values
    std::map<std::vector<std::size_t>, std::vector<const Row*>> slices;
    for (const auto& r : rows) {
      std::vector<std::size_t> key;
      for (const auto& o : swept)
        if (o != axis)
          key.push_back(static_cast<std::size_t>(std::find(values[o].begin(), values[o].end(), r.axes.at(o)) -
                                                 values[o].begin()));
      slices[key].push_back(&r);
    }
    if (slices.size() > kMaxSlices)
      doc.assumptions.push_back({"note", "against " + axis + ": the first " + std::to_string(kMaxSlices) + " of " +
                                             std::to_string(slices.size()) +
                                             " combinations of the other swept axes are drawn (the trade-off has every "
                                             "point)"});
    std::size_t si = 0;
    for (const auto& [key, slice] : slices) {
      if (si == kMaxSlices) break;
      std::string where;
      for (const auto& o : swept)
        if (o != axis) where += (where.empty() ? "" : ", ") + o + " = " + slice.front()->axes.at(o);
      for (const char* phase : {"prefill", "decode"})
        for (std::size_t m = 0; m < 3; ++m) {
          LineChart c = chart_of(slice, axis, values[axis], schemes, phase, kMetrics[m]);
          c.id = "sweep-" + std::to_string(a) + "-" + std::to_string(si) + "-" + phase + "-" + kMetrics[m].key;
          c.title = std::string(phase == std::string("prefill") ? "Prefill " : "Decode ") + kMetrics[m].what +
                    (phase == std::string("decode") ? " per step" : "") + " vs " + axis +
                    (where.empty() ? "" : " (" + where + ")");
          doc.lines.push_back(std::move(c));
        }
      ++si;
    }
  }
  // the trade-off over the whole grid: decode per step, each point labelled by its scheme and swept values
  for (const auto& r : rows) {
    std::string label = r.scheme;
    for (const auto& k : swept) label += " " + k + "=" + r.axes.at(k);
    doc.tradeoff.push_back({label, r.result.at("decode").at("latency_s").get<double>(),
                            r.result.at("decode").at("energy_j").get<double>(), r.scheme});
    doc.tradeoff_ids.push_back(r.id);
  }
  doc.tradeoff_title = "decode per step, every point of the grid";
  doc.tradeoff_per_step = true;
  return doc;
}

}  // namespace tenet_cost::report::html
