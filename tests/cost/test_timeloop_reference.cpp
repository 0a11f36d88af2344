// The reference suite's Timeloop half (tests/fixtures/reference/timeloop, docs/validation.md): every counter
// of every storage level in Timeloop's own timeloop-model.stats.txt (utilized capacity and instances, scalar
// reads, fills and updates per instance, partition size, cycles, computes), reproduced by the `timeloop`
// convention (src/cost/timeloop.cpp) on the mapping Timeloop printed. Inputs come from the vendored files;
// only each problem shape's projections are written here.
#include <catch2/catch.hpp>

#include <string>

#include "timeloop_reference.hpp"

namespace {

namespace tl = tenet_cost::cost::timeloop;
using timeloop_ref::SpaceSpec;

const std::string kRef = std::string(TC_FIXTURE_DIR) + "/reference/timeloop/";

const std::vector<SpaceSpec> kConv1d = {{"Weights", {"R"}}, {"Inputs", {"R+P"}}, {"Outputs", {"P"}, true}};
const std::vector<SpaceSpec> kConv1dOc = {{"Weights", {"K", "R"}}, {"Inputs", {"R+P"}}, {"Outputs", {"K", "P"}, true}};
const std::vector<SpaceSpec> kConv1dOcIc = {
    {"Weights", {"C", "K", "R"}}, {"Inputs", {"C", "R+P"}}, {"Outputs", {"K", "P"}, true}};
// The 2024 exercise's CNN layer (strides and dilations 1): a 1x1 convolution, i.e. a GEMM.
const std::vector<SpaceSpec> kCnn = {{"Weights", {"C", "M", "R", "S", "G"}},
                                     {"Inputs", {"N", "C", "R+P", "S+Q", "G"}},
                                     {"Outputs", {"N", "M", "Q", "P", "G"}, true}};

/// Checks every counter Timeloop printed for `stats_file` against the convention's counts.
void check_case(const std::string& prob, const std::vector<std::string>& dims, const std::vector<SpaceSpec>& spaces,
                const std::string& map_file, const std::string& stats_file) {
  const tl::Problem p = timeloop_ref::problem(dims, timeloop_ref::instance(kRef + prob), spaces);
  const tl::Mapping m = timeloop_ref::mapping(kRef + map_file, p);
  const tl::Counts c = tl::analyze(p, m);
  const timeloop_ref::Stats ref = timeloop_ref::stats(kRef + stats_file);
  int checked = 0;
  for (const auto& lv : c.levels) {
    if (ref.count(lv.name) == 0) {  // a level that keeps nothing (inter_PE_spatial) has no section
      for (const auto& s : lv.spaces) CHECK_FALSE(s.kept);
      continue;
    }
    const auto& sec = ref.at(lv.name);
    CHECK(sec.at("").at("Cycles") == c.cycles);
    for (std::size_t s = 0; s < p.spaces.size(); ++s) {
      const auto& name = p.spaces[s].name;
      INFO(stats_file << " " << lv.name << " " << name);
      REQUIRE(lv.spaces[s].kept == (sec.count(name) != 0));
      if (!lv.spaces[s].kept) continue;
      const auto& r = sec.at(name);
      const auto& got = lv.spaces[s];
      CHECK(r.at("Utilized capacity") == got.capacity);
      CHECK(r.at("Utilized instances (max)") == lv.instances);
      CHECK(r.at("Partition size") == got.partition);
      CHECK(r.at("Scalar reads (per-instance)") == got.reads);
      CHECK(r.at("Scalar fills (per-instance)") == got.fills);
      CHECK(r.at("Scalar updates (per-instance)") == got.updates);
      ++checked;
    }
  }
  CHECK(checked >= 3);
  bool mac = false;
  for (const auto& [comp, sec] : ref)
    if (sec.count("") != 0 && sec.at("").count("Computes (total)") != 0) {
      CHECK(sec.at("").at("Computes (total)") == c.computes);
      CHECK(sec.at("").at("Cycles") == c.cycles);
      CHECK(sec.at("").at("Utilized instances") == c.mac_instances);
      mac = true;
    }
  CHECK(mac);
}

}  // namespace

TEST_CASE("timeloop convention: conv1d tutorial cases 00-01 (one and two levels)", "[reference][timeloop]") {
  const std::vector<std::string> dims = {"R", "P"};
  check_case("00-model-conv1d-1level/prob/conv1d.prob.yaml", dims, kConv1d,
             "00-model-conv1d-1level/ref-output/timeloop-model.map.txt",
             "00-model-conv1d-1level/ref-output/timeloop-model.stats.txt");
  for (const std::string df : {"os", "ws"})
    check_case("01-model-conv1d-2level/prob/conv1d.prob.yaml", dims, kConv1d,
               "01-model-conv1d-2level/ref-output/" + df + "/timeloop-model.map.txt",
               "01-model-conv1d-2level/ref-output/" + df + "/timeloop-model.stats.txt");
}

TEST_CASE("timeloop convention: conv1d+oc cases 02-03 (tiling, three levels, bypass)", "[reference][timeloop]") {
  const std::vector<std::string> dims = {"K", "R", "P"};
  for (const std::string c : {"no-tiling", "tiling"})
    check_case("02-model-conv1d+oc-2level/prob/conv1d+oc.prob.yaml", dims, kConv1dOc,
               "02-model-conv1d+oc-2level/ref-output/" + c + "/timeloop-model.map.txt",
               "02-model-conv1d+oc-2level/ref-output/" + c + "/timeloop-model.stats.txt");
  for (const std::string c : {"bypass", "no-bypass"})
    check_case("03-model-conv1d+oc-3level/prob/conv1d+oc.prob.yaml", dims, kConv1dOc,
               "03-model-conv1d+oc-3level/ref-output/" + c + "/timeloop-model.map.txt",
               "03-model-conv1d+oc-3level/ref-output/" + c + "/timeloop-model.stats.txt");
}

TEST_CASE("timeloop convention: case 04 spatial (input multicast over K, output reduction over C)",
          "[reference][timeloop]") {
  const std::vector<std::string> dims = {"C", "K", "R", "P"};
  for (const std::string c : {"cp", "kp"})
    check_case("04-model-conv1d+oc-3levelspatial/prob/conv1d+oc+ic.prob.yaml", dims, kConv1dOcIc,
               "04-model-conv1d+oc-3levelspatial/ref-output/" + c + "/timeloop-model.map.txt",
               "04-model-conv1d+oc-3levelspatial/ref-output/" + c + "/timeloop-model.stats.txt");
}

TEST_CASE("timeloop convention: the 2024 design-space exercise's 1x1 conv (GEMM 524288x128x128, 8 PEs)",
          "[reference][timeloop]") {
  check_case("2024-gemm/inputs/problem.yaml", {"C", "M", "R", "S", "N", "P", "Q", "G"}, kCnn,
             "2024-gemm/outputs/timeloop-mapper.map.txt", "2024-gemm/outputs/timeloop-mapper.stats.txt");
}
