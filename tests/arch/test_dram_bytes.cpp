// dram.bytes (optional DRAM capacity, docs/arch.md): absent = 0 (not checked), 1 .. 2^56, anything else an error.
#include <catch2/catch.hpp>

#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"

using namespace tenet_cost;

namespace {

const std::string kPresets = std::string(TC_SOURCE_DIR) + "/configs/arch";

arch::Arch with_bytes(const std::string& value) {
  return arch::load_arch("edge-npu-32x32", kPresets, {arch::parse_override("dram.bytes=" + value)});
}

}  // namespace

TEST_CASE("dram.bytes: optional, exact, range-checked", "[arch]") {
  CHECK(arch::load_arch("edge-npu-32x32", kPresets).dram_bytes == 0);  // no preset states a capacity
  CHECK(with_bytes("17179869184").dram_bytes == 17179869184);
  CHECK(with_bytes("1").dram_bytes == 1);
  CHECK(with_bytes("72057594037927936").dram_bytes == (std::int64_t{1} << 56));
  for (const char* bad : {"0", "-1", "72057594037927937", "1.5", "\"16GB\"", "1e9", "9223372036854775808"}) {
    INFO(bad);
    CHECK_THROWS_AS(with_bytes(bad), InputError);
  }
}
