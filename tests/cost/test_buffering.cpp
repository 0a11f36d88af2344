// buffer.buffering (docs/arch.md "Buffer"): `double` lets a tile use only half the buffer, so SRAM-sizing studies
// are not a lower bound. Oracles: the compulsory traffic by hand when the whole GEMM fits, and the equivalence
// "double-buffered B bytes = single-buffered B/2 bytes" for the tile search's choice.
#include <catch2/catch.hpp>

#include <string>

#include "cost/arch_support.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

TEST_CASE("buffer.buffering double: a tile gets half the buffer", "[buffering]") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  const cost::GemmShape s{1, 128, 512, 512, quant::GemmRole::kLinear};
  const auto scheme = quant::parse_scheme("q0f16");
  // Single: A 128x512, B 512x512 at 2 bytes and C 128x512 at 32-bit partial sums = 896 KiB fit in 1 MiB: one tile,
  // every operand moved once: (128*512 + 512*512 + 128*512) * 2 bytes.
  arch::Arch single = tc_test::edge_arch(32, 32, 1 << 20);
  cost::Estimator est_single(single, mapping::parse_dataflow("os"), o);
  const auto& one = est_single.gemm(s, scheme);
  CHECK(one.tiles == 1);
  CHECK(one.dram_bytes == (128 * 512 + 512 * 512 + 128 * 512) * 2);
  // Double: 512 KiB usable, so the GEMM is tiled; the same choice as a single-buffered 512 KiB buffer.
  arch::Arch dbl = single;
  dbl.buffer_buffering = arch::TileBuffering::kDouble;
  CHECK(dbl.tile_buffer_bytes() == 512 * 1024);
  cost::Estimator est_double(dbl, mapping::parse_dataflow("os"), o);
  const auto& two = est_double.gemm(s, scheme);
  CHECK(two.tiles > 1);
  CHECK(two.dram_bytes >= one.dram_bytes);  // here the half still fits a tiling that moves everything once
  cost::Estimator est_half(tc_test::edge_arch(32, 32, 512 * 1024), mapping::parse_dataflow("os"), o);
  const auto& half = est_half.gemm(s, scheme);
  CHECK(two.tile == half.tile);
  CHECK(two.dram_bytes == half.dram_bytes);
  CHECK(two.cycles == half.cycles);
  // A user tile over the half is refused, naming the assumption.
  try {
    (void)est_double.gemm(s, scheme, cost::Tile{128, 512, 512, "mnk"});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("buffer.buffering double: half of 1048576 bytes usable per tile") !=
          std::string::npos);
  }
}

TEST_CASE("buffer.buffering: JSON field, default single, bad values refused, stated in the notes", "[buffering]") {
  const std::string base = R"({"name": "t", "clock_mhz": 1000, "pe_array": {"rows": 4, "cols": 4},
    "macs_per_pe_per_cycle": {"fp16": 1}, "buffer": {"bytes": 4096, "bits_per_cycle": 256BUF},
    "dram": {"mb_per_s": 1000}})";
  const auto with = [&](const std::string& extra) {
    std::string t = base;
    t.replace(t.find("BUF"), 3, extra);
    return t;
  };
  CHECK(arch::parse_arch(with(""), "t.json").buffer_buffering == arch::TileBuffering::kSingle);
  const auto d = arch::parse_arch(with(R"(, "buffering": "double")"), "t.json");
  CHECK(d.buffer_buffering == arch::TileBuffering::kDouble);
  CHECK(d.tile_buffer_bytes() == 2048);
  CHECK(arch::to_string(d.buffer_buffering) == "double");
  CHECK_THROWS_AS(arch::parse_arch(with(R"(, "buffering": "triple")"), "t.json"), InputError);
  const auto r = tc_test::run_cli("estimate --gemm 128x512x512 --quant q0f16 --set buffer.buffering=double");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: buffer.buffering double: a tile uses at most half the buffer (524288 of 1048576 bytes)") !=
        std::string::npos);
  CHECK(tc_test::run_cli("estimate --gemm 128x512x512 --set buffer.buffering=triple").exit_code == 2);
}
