// The reference suite (tests/fixtures/reference, docs/validation.md): SCALE-Sim v3's own CI goldens and 34
// input-stationary layers run through it, reproduced by the `scalesim` convention's closed forms
// (src/cost/conventions.cpp); on the latter also the default model's serial stationary load. The inputs are read
// from the vendored config and topology files, the expected numbers from the vendored reports: nothing
// below is typed in by hand except which report goes with which dataflow and topology.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cost/arch_support.hpp"
#include "cost/conventions.hpp"
#include "tenet_cost/cost.hpp"

namespace {

namespace cv = tenet_cost::cost::convention;

const std::string kRef = std::string(TC_FIXTURE_DIR) + "/reference/scalesim-v3/";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  return out;
}

using Row = std::map<std::string, std::string>;

/// A SCALE-Sim report CSV (header line, one value line per layer): per layer, column name -> cell.
std::vector<Row> report_rows(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string head;
  std::string row;
  std::getline(in, head);
  const auto names = split(head);
  std::vector<Row> out;
  while (std::getline(in, row)) {
    if (trim(row).empty()) continue;
    const auto cells = split(row);
    Row r;
    for (std::size_t i = 0; i < names.size() && i < cells.size(); ++i)
      if (!names[i].empty()) r[names[i]] = cells[i];
    out.push_back(r);
  }
  return out;
}

/// A one-layer report.
Row report(const std::string& path) {
  const auto rows = report_rows(path);
  REQUIRE(rows.size() == 1);
  return rows.front();
}

std::int64_t integer(const std::map<std::string, std::string>& r, const std::string& name) {
  REQUIRE(r.count(name) == 1);
  return static_cast<std::int64_t>(std::stod(r.at(name)));  // "3294225" or "3294225.0": exact below 2^53
}

/// `key: value` from a SCALE-Sim config (scale.cfg unless named).
std::int64_t cfg_int(const std::string& key, const std::string& file = "scale.cfg") {
  std::ifstream in(kRef + file);
  REQUIRE(in.good());
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == key)
      return std::stoll(trim(line.substr(colon + 1)));
  }
  FAIL("scale.cfg has no " << key);
  return 0;
}

/// Each layer line of a topology CSV, as integers after the layer name.
std::vector<std::vector<std::int64_t>> topology_rows(const std::string& file) {
  std::ifstream in(kRef + file);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<std::int64_t>> out;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    std::vector<std::int64_t> v;
    const auto cells = split(line);
    for (std::size_t i = 1; i < cells.size(); ++i)
      if (!cells[i].empty()) v.push_back(std::stoll(cells[i]));
    out.push_back(v);
  }
  return out;
}

/// The first layer of a topology CSV.
std::vector<std::int64_t> topology(const std::string& file) { return topology_rows(file).front(); }

/// The counters the convention claims, for one layer's reports.
void check_counts(const cv::ScaleSimCounts& c, const Row& compute, const Row& access) {
  CHECK(c.total_cycles == integer(compute, "Total Cycles") - integer(compute, "Stall Cycles"));
  CHECK(c.sram_ifmap_reads == integer(access, "SRAM IFMAP Reads"));
  CHECK(c.sram_filter_reads == integer(access, "SRAM Filter Reads"));
  CHECK(c.sram_ofmap_writes == integer(access, "SRAM OFMAP Writes"));
  const double efficiency = 100.0 * static_cast<double>(c.mapped_macs) / static_cast<double>(c.padded_macs);
  CHECK(efficiency == Approx(std::stod(compute.at("Mapping Efficiency %"))).epsilon(1e-12));
}

void check_case(const std::string& dir, const cv::ScaleSimGemm& g, cv::ScaleSimDataflow df) {
  INFO("golden_trace_" << dir);
  const auto compute = report(kRef + "golden_trace_" + dir + "/COMPUTE_REPORT.csv");
  const auto access = report(kRef + "golden_trace_" + dir + "/DETAILED_ACCESS_REPORT.csv");
  check_counts(cv::scalesim_counts(g, cfg_int("ArrayHeight"), cfg_int("ArrayWidth"), df), compute, access);
}

}  // namespace

TEST_CASE("SCALE-Sim v3 goldens: the GEMM topology under os, ws and is (USER bandwidth)", "[reference][scalesim]") {
  const auto t = topology("test_mnk_input.csv");  // M, N, K
  REQUIRE(t.size() == 3);
  const cv::ScaleSimGemm g{t[0], t[1], t[2]};
  check_case("user_os", g, cv::ScaleSimDataflow::os);
  check_case("user_ws", g, cv::ScaleSimDataflow::ws);
  check_case("user_is", g, cv::ScaleSimDataflow::is);
}

TEST_CASE("SCALE-Sim v3 goldens: AlexNet conv1 under ws (CALC bandwidth, no stalls)", "[reference][scalesim]") {
  const auto t = topology("alexnet_part.csv");  // ifmap h, w, filter h, w, channels, filters, stride
  REQUIRE(t.size() == 7);
  const cv::ScaleSimConv conv{t[0], t[1], t[2], t[3], t[4], t[5], t[6]};
  const auto g = cv::scalesim_im2col(conv);
  CHECK(g.m == 55 * 55);  // ceil((224 - 11 + 4) / 4): SCALE-Sim's ofmap side, one more than floor's 54
  check_case("calc", g, cv::ScaleSimDataflow::ws);
  // No stalls under CALC: the reported total is the closed form itself.
  const auto compute = report(kRef + "golden_trace_calc/COMPUTE_REPORT.csv");
  CHECK(cv::scalesim_counts(g, 32, 32, cv::ScaleSimDataflow::ws).total_cycles == integer(compute, "Total Cycles"));
}

TEST_CASE("SCALE-Sim v3 runs: 34 input-stationary layers, serial stationary load (CALC bandwidth)",
          "[reference][scalesim]") {
  // is_runs/: 12 GEMM and 5 conv layers on an 8x8 and a 16x32 array (README). Under CALC there are no stalls.
  const auto fp16 = tenet_cost::quant::parse_scheme("q0f16");
  std::int64_t cases = 0;
  for (const std::string array : {"8x8", "16x32"}) {
    const std::string cfg = "is_runs/is_" + array + ".cfg";
    const std::int64_t rows = cfg_int("ArrayHeight", cfg), cols = cfg_int("ArrayWidth", cfg);
    // the physical model on the same array with a serial stationary load, one buffer tile (the whole GEMM)
    auto arch = tc_test::edge_arch(rows, cols, std::int64_t{1} << 40);
    arch.stationary_load = tenet_cost::arch::Buffering::kSerial;
    tenet_cost::cost::Estimator physical(arch, tenet_cost::mapping::parse_dataflow("is"));
    for (const std::string kind : {"gemm", "conv"}) {
      const auto layers = topology_rows("is_runs/is_" + kind + ".csv");
      const auto compute = report_rows(kRef + "is_runs/" + kind + "_" + array + "_COMPUTE_REPORT.csv");
      const auto access = report_rows(kRef + "is_runs/" + kind + "_" + array + "_DETAILED_ACCESS_REPORT.csv");
      REQUIRE(layers.size() == compute.size());
      REQUIRE(layers.size() == access.size());
      for (std::size_t i = 0; i < layers.size(); ++i) {
        const auto& t = layers[i];
        const cv::ScaleSimGemm g =
            kind == "gemm" ? cv::ScaleSimGemm{t.at(0), t.at(1), t.at(2)}
                           : cv::scalesim_im2col({t.at(0), t.at(1), t.at(2), t.at(3), t.at(4), t.at(5), t.at(6)});
        INFO(kind << " layer " << i << " on " << array << ": M=" << g.m << " N=" << g.n << " K=" << g.k);
        const auto c = cv::scalesim_counts(g, rows, cols, cv::ScaleSimDataflow::is);
        check_counts(c, compute[i], access[i]);
        CHECK(integer(compute[i], "Stall Cycles") == 0);
        // The default model's array cycles: per fold N + r + c - 2 for the rows r and columns c it uses, plus the
        // serial load's R. SCALE-Sim pads every fold to R x C and reports the last cycle's index, so
        //   physical = Total Cycles + 1 - (col folds (row folds R - K) + row folds (col folds C - M)).
        const auto& p = physical.gemm(tenet_cost::cost::GemmShape{1, g.m, g.n, g.k}, fp16);
        const std::int64_t padding =
            c.col_folds * (c.row_folds * rows - g.k) + c.row_folds * (c.col_folds * cols - g.m);
        CHECK(p.cycles_of(tenet_cost::cost::Term::kCompute) + p.cycles_of(tenet_cost::cost::Term::kStationaryLoad) ==
              integer(compute[i], "Total Cycles") + 1 - padding);
        CHECK(p.cycles_of(tenet_cost::cost::Term::kStationaryLoad) == c.row_folds * c.col_folds * rows);
        ++cases;
      }
    }
  }
  CHECK(cases == 34);
}

TEST_CASE("SCALE-Sim convention: hand-derived small cases and refusals", "[reference][scalesim]") {
  // 4x4x4 os on a 4x4 array: one fold of R + C + T - 2 = 10 cycles, SCALE-Sim reports index 9 (scalesim #125).
  const auto os = cv::scalesim_counts({4, 4, 4}, 4, 4, cv::ScaleSimDataflow::os);
  CHECK(os.total_cycles == 9);
  CHECK(os.sram_ofmap_writes == 16 + 8);
  // A partial fold takes a full fold's time: K = 5 on 4 rows under ws is two folds of 2*4 + 4 + M - 2.
  const auto ws = cv::scalesim_counts({3, 4, 5}, 4, 4, cv::ScaleSimDataflow::ws);
  CHECK(ws.row_folds == 2);
  CHECK(ws.total_cycles == 2 * (8 + 4 + 3 - 2) - 1);
  CHECK(ws.sram_ofmap_writes == 3 * 4 * 2);
  CHECK(ws.mapped_macs == 20);
  CHECK(ws.padded_macs == 32);
  CHECK_THROWS(cv::scalesim_counts({0, 1, 1}, 4, 4, cv::ScaleSimDataflow::ws));
  CHECK_THROWS(cv::scalesim_counts({INT64_MAX, INT64_MAX, 2}, 4, 4, cv::ScaleSimDataflow::ws));
}
