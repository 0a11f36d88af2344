// `sweep plot RESULTS.jsonl` (docs/report.md "Sweep plots"): the charts of a real sweep (the CLI), each drawn number
// equal to the results file's, one chart per (swept axis, slice, phase, metric), the trade-off's front against brute
// force over the file, error records counted, a file without results refused.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<json> result_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    if (j.contains("id")) out.push_back(j);
  }
  return out;
}

// Every element with a data-id: its attributes.
std::vector<std::map<std::string, std::string>> points_of(const std::string& html) {
  static const std::regex el_re(R"re(<(circle)([^>]*data-id="[^"]*"[^>]*)>)re");
  static const std::regex attr_re(R"re(([a-z-]+)="([^"]*)")re");
  std::vector<std::map<std::string, std::string>> out;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), el_re); it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[2].str();
    std::map<std::string, std::string> m;
    for (auto a = std::sregex_iterator(attrs.begin(), attrs.end(), attr_re); a != std::sregex_iterator(); ++a)
      m[(*a)[1].str()] = (*a)[2].str();
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

TEST_CASE("sweep plot: every drawn number is the results file's, one chart per axis, slice, phase and metric") {
  const fs::path dir = fs::temp_directory_path() / ("tc_sweep_plot_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string results = (dir / "r.jsonl").string();
  // 2 schemes x 2 PE-array sizes x 3 contexts: two swept axes (context: 2 slices; pe_array.rows: 3 slices)
  const auto run = tc_test::run_cli(
      "sweep -q --model qwen2-0.5b --quant q0f16,q4f16_1 --set pe_array.rows=16,32 --context 128,256,512 "
      "--seq-len 32 --out " +
      results);
  REQUIRE(run.exit_code == 0);
  const auto lines = result_lines(results);
  REQUIRE(lines.size() == 12);
  const auto plot = tc_test::run_cli("sweep plot " + results);
  INFO(plot.err);
  REQUIRE(plot.exit_code == 0);
  const std::string& html = plot.out;

  std::map<std::string, json> by_id;
  for (const auto& l : lines) by_id[l.at("id").get<std::string>()] = l.at("result");
  // charts: against context, 2 slices (rows 16, 32); against pe_array.rows, 3 slices; x 2 phases x 3 metrics
  static const std::regex chart_re(R"re(<figure class="chart" id="(sweep-[0-9]+-[0-9]+-[a-z]+-[a-z_]+)")re");
  std::set<std::string> charts;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), chart_re); it != std::sregex_iterator(); ++it)
    charts.insert((*it)[1].str());
  CHECK(charts.size() == (2 + 3) * 2 * 3);
  CHECK(charts.count("sweep-0-1-decode-latency_s") == 1);  // axes in name order: context, then pe_array.rows
  CHECK(charts.count("sweep-1-2-prefill-dram_bytes") == 1);
  CHECK(html.find("Decode latency per step vs context (pe_array.rows = 32)") != std::string::npos);
  CHECK(html.find("latency per step (ms)") != std::string::npos);

  // every point: its value equals the file's number for its id, phase and metric
  const auto pts = points_of(html);
  std::size_t line_points = 0, tradeoff_points = 0;
  for (const auto& p : pts) {
    INFO(p.at("data-id"));
    REQUIRE(by_id.count(p.at("data-id")) == 1);
    const json& r = by_id.at(p.at("data-id"));
    const std::string phase = p.count("data-phase") ? p.at("data-phase") : "decode";
    std::size_t values = 0;
    for (const auto& [attr, key] : std::map<std::string, std::string>{
             {"data-latency-s", "latency_s"}, {"data-energy-j", "energy_j"}, {"data-dram-bytes", "dram_bytes"}}) {
      if (!p.count(attr)) continue;
      ++values;
      CHECK(std::stod(p.at(attr)) == r.at(phase).at(key).get<double>());
    }
    CHECK(values >= 1);
    if (p.count("data-pareto")) ++tradeoff_points;
    else ++line_points;
  }
  // against context: 2 slices x 6 charts x (2 schemes x 3 contexts); against pe_array.rows: 3 x 6 x (2 x 2)
  CHECK(line_points == 2 * 6 * (2 * 3) + 3 * 6 * (2 * 2));
  CHECK(tradeoff_points == lines.size());
  // the trade-off's front against brute force over the file (decode per step; minimise both)
  for (const auto& p : pts) {
    if (!p.count("data-pareto")) continue;
    const json& r = by_id.at(p.at("data-id")).at("decode");
    const double lat = r.at("latency_s").get<double>(), en = r.at("energy_j").get<double>();
    bool dominated = false;
    for (const auto& [id, o] : by_id) {
      const double l2 = o.at("decode").at("latency_s").get<double>(), e2 = o.at("decode").at("energy_j").get<double>();
      dominated = dominated || (l2 <= lat && e2 <= en && (l2 < lat || e2 < en));
    }
    CHECK(p.at("data-pareto") == (dominated ? "false" : "true"));
  }

  // an error record is counted, not drawn; a file of error records only is refused
  std::ifstream in(results);
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  auto errorize = [](const std::string& line) {  // the same point as an error record (canonical: keys sorted)
    json j = json::parse(line);
    j.erase("result");
    j["error"] = "no tile fits the buffer";
    return j.dump();
  };
  const std::string mixed = (dir / "mixed.jsonl").string();
  std::ofstream(mixed) << first << "\n" << errorize(second) << "\n";
  const auto m = tc_test::run_cli("sweep plot " + mixed);
  INFO(m.err);
  REQUIRE(m.exit_code == 0);
  CHECK(m.out.find("1 with a result, 1 error record(s) (not drawn)") != std::string::npos);
  CHECK(m.out.find("none besides the scheme") != std::string::npos);  // one point: nothing swept, the trade-off only
  const std::string errors_only = (dir / "errors.jsonl").string();
  std::ofstream(errors_only) << errorize(first) << "\n";
  const auto e = tc_test::run_cli("sweep plot " + errors_only);
  CHECK(e.exit_code == 2);
  CHECK(e.err.find("expected at least one point with a result to plot") != std::string::npos);
  const auto bad = tc_test::run_cli("sweep plot " + (dir / "missing.jsonl").string());
  CHECK(bad.exit_code == 2);
  fs::remove_all(dir);
}
