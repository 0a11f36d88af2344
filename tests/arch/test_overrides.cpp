// --set KEY=VALUE arch overrides (src/arch/overrides.cpp): applied to the JSON document, validated like the file.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using arch::Override;

namespace {

const std::string kPresets = std::string(TC_SOURCE_DIR) + "/configs/arch";

arch::Arch with(const std::vector<std::string>& sets, const std::string& name = "edge-npu-32x32") {
  std::vector<Override> o;
  o.reserve(sets.size());
  for (const auto& s : sets) o.push_back(arch::parse_override(s));
  return arch::load_arch(name, kPresets, o);
}

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh file under /tmp holding `text` (removed at exit of the scope that owns the returned guard).
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char tmpl[] = "/tmp/tc_arch_testXXXXXX.json";
    const int fd = mkstemps(tmpl, 5);
    REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { unlink(path.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

std::string error_of(const std::vector<std::string>& sets) {
  try {
    with(sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse_override splits at the first '=' and refuses malformed keys", "[arch][set]") {
  CHECK(arch::parse_override("pe_array.rows=64") == Override{"pe_array.rows", "64"});
  CHECK(arch::parse_override("name=a=b") == Override{"name", "a=b"});
  CHECK(arch::parse_override("description=") == Override{"description", ""});
  CHECK_THROWS_AS(arch::parse_override("pe_array.rows"), InputError);
  CHECK_THROWS_AS(arch::parse_override("=64"), InputError);
  CHECK_THROWS_AS(arch::parse_override(".rows=64"), InputError);
  CHECK_THROWS_AS(arch::parse_override("pe_array..rows=64"), InputError);
  CHECK_THROWS_AS(arch::parse_override("pe_array.=64"), InputError);
  CHECK(arch::to_string(arch::parse_override("energy_pj.mac.fp16=0.5")) == "energy_pj.mac.fp16=0.5");
}

TEST_CASE("an override equals editing the file", "[arch][set]") {
  const arch::Arch base = with({});
  const arch::Arch a =
      with({"pe_array.rows=64", "dram.mb_per_s=51200", "energy_pj.mac.fp16=0.5", "pe_array.interconnect=mesh",
            "dequant.placement=\"pe\"", "macs_per_pe_per_cycle.int8=0.25"});
  CHECK(a.rows == 64);
  CHECK(a.cols == base.cols);
  CHECK(a.dram_mb_per_s == 51200);
  CHECK(a.mac_pj.at(tc_test::mac("fp16")) == 0.5);
  CHECK(a.mac_pj.at(tc_test::mac("int8")) == base.mac_pj.at(tc_test::mac("int8")));
  CHECK(a.interconnect == arch::Interconnect::kMesh);
  CHECK(a.dequant_placement == arch::DequantPlacement::kPE);
  CHECK(a.macs_per_pe_per_cycle.at(tc_test::mac("int8")).num == 1);
  CHECK(a.macs_per_pe_per_cycle.at(tc_test::mac("int8")).den == 4);
  CHECK(a.buffer_bytes == base.buffer_bytes);
  // the outputs state the overrides through the arch's name
  CHECK(a.name ==
        "edge-npu-32x32 --set pe_array.rows=64 --set dram.mb_per_s=51200 --set energy_pj.mac.fp16=0.5 "
        "--set pe_array.interconnect=mesh --set dequant.placement=\"pe\" "
        "--set macs_per_pe_per_cycle.int8=0.25");
  // later overrides win; no override = the file
  CHECK(with({"clock_mhz=500", "clock_mhz=700"}).clock_mhz == 700);
  CHECK(with({}).name == "edge-npu-32x32");
  // every preset accepts an override of every scalar field it has (round trip through the file's own values)
  for (const auto& p : arch::arch_presets(kPresets)) {
    const arch::Arch f = with({}, p);
    std::vector<std::string> set = {"pe_array.rows=" + std::to_string(f.rows),
                                    "clock_mhz=" + std::to_string(f.clock_mhz)};
    if (f.levels.empty()) set.push_back("buffer.bytes=" + std::to_string(f.buffer_bytes));  // levels: no `buffer`
    const arch::Arch g = with(set, p);
    CHECK(g.rows == f.rows);
    CHECK(g.clock_mhz == f.clock_mhz);
    CHECK(g.buffer_bytes == f.buffer_bytes);
  }
}

TEST_CASE("a bad override names the path and the value", "[arch][set]") {
  const auto unknown = error_of({"pe_array.rowz=64"});
  CHECK(unknown.find("--set pe_array.rowz=64") != std::string::npos);
  CHECK(unknown.find("unknown key 'rowz'") != std::string::npos);
  CHECK(error_of({"nosuch=1"}).find("--set nosuch=1: unknown key 'nosuch'") != std::string::npos);
  CHECK(error_of({"pe_array.rows=abc"}).find("--set pe_array.rows=abc: expected an integer") != std::string::npos);
  CHECK(error_of({"pe_array.rows=0"}).find("--set pe_array.rows=0:") != std::string::npos);
  CHECK(error_of({"pe_array.rows=1.5"}).find("--set pe_array.rows=1.5:") != std::string::npos);
  CHECK(error_of({"pe_array.rows=99999999999999999999999"}).find("--set pe_array.rows=") != std::string::npos);
  CHECK(error_of({"energy_pj.mac.fp16=-1"}).find("--set energy_pj.mac.fp16=-1:") != std::string::npos);
  CHECK(error_of({"pe_array.interconnect=ring"}).find("--set pe_array.interconnect=ring:") != std::string::npos);
  CHECK(error_of({"clock_mhz.x=1"}).find("--set clock_mhz.x=1: expected 'clock_mhz' to be an object") !=
        std::string::npos);
  CHECK(error_of({"sources.x=1"}).find("--set sources.x=1:") != std::string::npos);
  CHECK(error_of({"macs_per_pe_per_cycle.int2=4"}).find("unknown key 'int2'") != std::string::npos);
  // the first bad one of several is named
  CHECK(error_of({"clock_mhz=800", "buffer.bytes=x"}).find("--set buffer.bytes=x:") != std::string::npos);
}

TEST_CASE("the CLI's --set: estimate and compare, errors exit 2 with one line", "[arch][set][cli]") {
  const std::string dump = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/q0f16.py";
  const std::string common = "estimate " + dump + " --format json --seq-len 16 --context 32 ";
  const auto base = tc_test::run_cli(common);
  const auto set = tc_test::run_cli(common + "--set pe_array.rows=64 --set pe_array.cols=64");
  REQUIRE(base.exit_code == 0);
  REQUIRE(set.exit_code == 0);
  CHECK(set.out != base.out);
  CHECK(set.out.find("\"edge-npu-32x32 --set pe_array.rows=64 --set pe_array.cols=64\"") != std::string::npos);
  // oracle: the same arch written as a file (with the name the override gives) gives the same output
  {
    const std::string preset = slurp_file(kPresets + "/edge-npu-32x32.json");
    std::string edited = preset;
    const std::string from = "\"rows\": 32, \"cols\": 32", to = "\"rows\": 64, \"cols\": 64";
    REQUIRE(edited.find(from) != std::string::npos);
    edited.replace(edited.find(from), from.size(), to);
    const std::string name_from = "\"name\": \"edge-npu-32x32\"";
    edited.replace(edited.find(name_from), name_from.size(),
                   "\"name\": \"edge-npu-32x32 --set pe_array.rows=64 --set pe_array.cols=64\"");
    const TempFile file(edited);
    const auto from_file = tc_test::run_cli(common + "--arch " + file.path);
    REQUIRE(from_file.exit_code == 0);
    CHECK(from_file.out == set.out);
  }
  const auto bad = tc_test::run_cli("compare " + dump + " --seq-len 16 --context 32 --set pe_array.rows=abc");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--set pe_array.rows=abc: expected an integer") != std::string::npos);
  CHECK(bad.err.find('\n') == bad.err.size() - 1);
  const auto unknown = tc_test::run_cli(common + "--set dram.gb_per_s=3");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--set dram.gb_per_s=3: unknown key 'gb_per_s'") != std::string::npos);
  const auto noeq = tc_test::run_cli(common + "--set dram.mb_per_s");
  CHECK(noeq.exit_code == 2);
  CHECK(noeq.err.find("KEY=VALUE") != std::string::npos);
}
