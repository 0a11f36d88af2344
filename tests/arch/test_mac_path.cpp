// Issue 21 item 5: MAC capability per format. The precisions an arch lists (fp4, fp6 and the block-scaled mxfp*,
// mxint8, nvfp4 units), the fallback chains and the path each precision takes (native, widened, block-scaled,
// dequantized), and the MX preset's figures against its published source.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/quant.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const std::string kPresets = std::string(TC_SOURCE_DIR) + "/configs/arch";

arch::Arch with_units(const std::string& macs) {
  return arch::parse_arch(R"({"pe_array": {"rows": 4, "cols": 4}, "macs_per_pe_per_cycle": )" + macs +
                              R"(, "buffer": {"bytes": 65536, "bits_per_cycle": 256}, "dram": {"mb_per_s": 1000},
                              "clock_mhz": 100})",
                          "units.json");
}

std::string path_of(const arch::Arch& a, const std::string& precision) {
  const auto u = a.mac_unit(tc_test::mac(precision));
  return std::string(to_string(u.precision)) + " " + arch::to_string(u.path);
}

}  // namespace

TEST_CASE("arch precisions: fp4, fp6 and the block-scaled units are keys of both MAC tables", "[arch][mx]") {
  const auto& p = arch::precisions();
  for (const char* k :
       {"fp32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8", "int4", "mxfp8", "mxfp6", "mxfp4", "mxint8", "nvfp4"})
    CHECK(std::find(p.begin(), p.end(), k) != p.end());
  const auto a = arch::parse_arch(
      R"({"pe_array": {"rows": 2, "cols": 2}, "macs_per_pe_per_cycle": {"fp4": 8, "fp6": 4, "nvfp4": 16, "mxint8": 0.5},
          "buffer": {"bytes": 1024, "bits_per_cycle": 64}, "dram": {"mb_per_s": 10}, "clock_mhz": 1,
          "energy_pj": {"mac": {"fp4": 0.1, "nvfp4": 0.05, "mxint8": 3}}})",
      "a.json");
  CHECK(a.macs_per_pe_per_cycle.at(tc_test::mac("nvfp4")).num == 16);
  CHECK(a.macs_per_pe_per_cycle.at(tc_test::mac("mxint8")).den == 2);
  CHECK(a.mac_pj.at(tc_test::mac("nvfp4")) == 0.05);
  try {
    (void)with_units(R"({"mxfp5": 1})");
    FAIL("mxfp5 accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("unknown key 'mxfp5' in macs_per_pe_per_cycle"));
    CHECK_THAT(e.what(), Catch::Contains("mxfp4"));
  }
  // every listed name parses to its precision and back; the block-scaled ones are the mx* and nvfp4 units
  for (const auto& k : p) {
    INFO(k);
    CHECK(to_string(tc_test::mac(k)) == k);
    CHECK(is_block_scaled(tc_test::mac(k)) == (k.rfind("mx", 0) == 0 || k == "nvfp4"));
  }
  CHECK(p.size() == kMacPrecisions.size());
  CHECK_FALSE(parse_mac_precision("mxfp5"));
  CHECK_FALSE(parse_mac_precision("FP16"));
  // every scheme's MAC precision is a key an arch can list
  for (const auto& s : quant::catalog()) {
    INFO(s.name);
    CHECK(std::find(p.begin(), p.end(), to_string(s.compute)) != p.end());
  }
}

TEST_CASE("MAC paths: the fallback chains and the path each precision takes", "[arch][mx]") {
  const auto fp16_only = with_units(R"({"fp16": 1})");
  CHECK(path_of(fp16_only, "fp16") == "fp16 native");
  CHECK(path_of(fp16_only, "fp8") == "fp16 widened");
  CHECK(path_of(fp16_only, "fp6") == "fp16 widened");
  CHECK(path_of(fp16_only, "fp4") == "fp16 widened");
  CHECK(path_of(fp16_only, "int4") == "fp16 widened");
  for (const char* mx : {"mxfp4", "mxfp6", "mxfp8", "mxint8", "nvfp4"})
    CHECK(path_of(fp16_only, mx) == "fp16 dequantized");

  const auto mx8 = with_units(R"({"mxfp8": 4, "fp8": 2, "fp16": 1})");
  CHECK(path_of(mx8, "mxfp8") == "mxfp8 block-scaled");
  CHECK(path_of(mx8, "mxfp6") == "mxfp8 block-scaled");  // an MX element widens exactly, its e8m0 scale unchanged
  CHECK(path_of(mx8, "mxfp4") == "mxfp8 block-scaled");
  CHECK(path_of(mx8, "mxint8") == "fp16 dequantized");  // int8 elements do not fit an fp8 unit
  CHECK(path_of(mx8, "nvfp4") == "fp16 dequantized");   // e4m3 block scales are no shared exponent
  CHECK(path_of(mx8, "fp4") == "fp8 widened");          // fp4 -> fp6 -> fp8 -> fp16
  CHECK(path_of(mx8, "fp8") == "fp8 native");
  CHECK(mx8.mac_unit(MacPrecision::kMxfp4).rate.num == 4);

  const auto bf = with_units(R"({"bf16": 1, "fp32": 0.25})");
  CHECK(path_of(bf, "mxfp4") == "bf16 dequantized");  // fp16, or the next supported precision
  CHECK(path_of(bf, "fp16") == "bf16 widened");
  CHECK(path_of(with_units(R"({"fp32": 1})"), "nvfp4") == "fp32 dequantized");
  CHECK(path_of(with_units(R"({"mxfp6": 2, "mxfp8": 1})"), "mxfp4") == "mxfp6 block-scaled");

  // mac_rate keeps its contract
  MacPrecision used{};
  CHECK(mx8.mac_rate(MacPrecision::kMxfp4, &used).num == 4);
  CHECK(used == MacPrecision::kMxfp8);
  // nothing in the chain: an error listing what the arch supports
  try {
    (void)with_units(R"({"mxfp4": 8})").mac_unit(MacPrecision::kFp16);
    FAIL("fp16 ran on an mxfp4-only array");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot run fp16 MACs"));
    CHECK_THAT(e.what(), Catch::Contains("it supports: mxfp4"));
  }
  CHECK(arch::to_string(arch::MacPath::kNative) == "native");
  CHECK(arch::to_string(arch::MacPath::kWidened) == "widened");
  CHECK(arch::to_string(arch::MacPath::kBlockScaled) == "block-scaled");
  CHECK(arch::to_string(arch::MacPath::kDequantized) == "dequantized");
}

TEST_CASE("mx-npu-32x32: MX MAC rates and energies from arXiv 2511.06313, the rest as edge-npu-32x32", "[arch][mx]") {
  const auto mx = arch::load_arch("mx-npu-32x32", kPresets);
  const auto edge = arch::load_arch("edge-npu-32x32", kPresets);
  // pJ per MAC = 2000 / (GOPS/W): 657 (MXINT8), 1438-1675 (MXFP8/6), 4065 (MXFP4), to the preset's 3 decimals
  const std::vector<std::pair<std::string, double>> gops_per_w = {
      {"mxint8", 657}, {"mxfp8", 1438}, {"mxfp6", 1675}, {"mxfp4", 4065}};
  for (const auto& [p, g] : gops_per_w) {
    INFO(p);
    CHECK(mx.mac_pj.at(tc_test::mac(p)) == Approx(2000.0 / g).margin(0.0005));
  }
  // MACs/PE/cycle: the throughput ratio 64 : 256 : 256 : 512 GOPS
  CHECK(mx.macs_per_pe_per_cycle.at(tc_test::mac("mxint8")).num == 1);
  CHECK(mx.macs_per_pe_per_cycle.at(tc_test::mac("mxfp8")).num == 4);
  CHECK(mx.macs_per_pe_per_cycle.at(tc_test::mac("mxfp6")).num == 4);
  CHECK(mx.macs_per_pe_per_cycle.at(tc_test::mac("mxfp4")).num == 8);
  CHECK(mx.macs_per_pe_per_cycle.count(tc_test::mac("nvfp4")) == 0);
  const bool cited = std::any_of(mx.sources.begin(), mx.sources.end(),
                                 [](const std::string& s) { return s.find("arXiv 2511.06313") != std::string::npos; });
  CHECK(cited);
  // the same array, memories, units and non-MAC energies as the default preset
  CHECK(mx.rows == edge.rows);
  CHECK(mx.cols == edge.cols);
  CHECK(mx.buffer_bytes == edge.buffer_bytes);
  CHECK(mx.buffer_bits_per_cycle == edge.buffer_bits_per_cycle);
  CHECK(mx.dram_mb_per_s == edge.dram_mb_per_s);
  CHECK(mx.clock_mhz == edge.clock_mhz);
  CHECK(mx.dequant_per_cycle == edge.dequant_per_cycle);
  CHECK(mx.vector_ops_per_cycle == edge.vector_ops_per_cycle);
  CHECK(mx.dram_pj_per_bit == edge.dram_pj_per_bit);
  CHECK(mx.buffer_pj_per_bit == edge.buffer_pj_per_bit);
  CHECK(mx.noc_pj_per_bit == edge.noc_pj_per_bit);
  CHECK(mx.mac_pj.at(tc_test::mac("fp16")) == edge.mac_pj.at(tc_test::mac("fp16")));
  // the paths of the schemes' precisions on the two presets
  CHECK(path_of(mx, "mxfp4") == "mxfp4 block-scaled");
  CHECK(path_of(mx, "nvfp4") == "fp16 dequantized");
  CHECK(path_of(mx, "fp8") == "fp16 widened");
  CHECK(path_of(edge, "mxfp4") == "fp16 dequantized");
  CHECK(path_of(edge, "fp8") == "fp8 native");
  CHECK(path_of(edge, "int4") == "int4 native");
  CHECK(path_of(arch::load_arch("tpu-v1-256x256", kPresets), "fp8") == "fp16 widened");
}
