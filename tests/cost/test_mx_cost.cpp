// Issue 21 items 3-5 at the cost level: the DRAM bytes of every block-format scheme derived by hand on GEMV and
// GEMM shapes (K a multiple of the block and not), the KV-cache formats' scale tensors, the MAC path each GEMM
// takes on the MX preset and on the edge NPU, and the dequantize-to-fp16 path's work.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "arch_support.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using cost::GemmShape;
using quant::GemmRole;

namespace {

std::int64_t bytes_of(const cost::GemmCost& c, const std::string& name) {
  for (const auto& t : c.tensors)
    if (t.name == name) return t.dram_bytes;
  return -1;  // absent
}

const cost::TensorCost& named(const cost::GemmCost& c, const std::string& name) {
  for (const auto& t : c.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  return c.tensors.front();
}

// Element bits, elements per scale along K, per-tensor scale bits of a block format.
struct Fmt {
  std::int64_t bits, block, tensor_bits;
};

// Bytes of a [rows x K] tensor in the format: elements, then ceil(K/block) 8-bit scales per row, then one per-tensor
// scale (each tensor rounded up to whole bytes once).
std::int64_t values(std::int64_t rows, std::int64_t k, const Fmt& f) { return ceil_div(rows * k * f.bits, 8); }
std::int64_t scales(std::int64_t rows, std::int64_t k, const Fmt& f) { return rows * ceil_div(k, f.block); }

cost::Estimator estimator(const std::string& preset, const std::vector<arch::Override>& o = {}) {
  return cost::Estimator(arch::load_arch(preset, tc_test::presets_dir(), o), mapping::parse_dataflow("os"));
}

}  // namespace

TEST_CASE("block formats: DRAM bytes by hand on GEMV and GEMM, K a multiple of the block and not", "[cost][mx]") {
  struct Row {
    const char* scheme;
    Fmt w;
    std::optional<Fmt> a;  // nullopt: float16 activations
  };
  const Fmt mxfp4{4, 32, 0}, mxfp6{6, 32, 0}, mxfp8{8, 32, 0}, nvfp4{4, 16, 32};
  const std::vector<Row> rows = {
      {"mxfp4", mxfp4, mxfp4},
      {"mxfp6-e2m3", mxfp6, mxfp6},
      {"mxfp6-e3m2", mxfp6, mxfp6},
      {"mxfp8-e4m3", mxfp8, mxfp8},
      {"mxfp8-e5m2", mxfp8, mxfp8},
      {"mxint8", mxfp8, mxfp8},
      {"nvfp4", nvfp4, nvfp4},
      {"w4a16-mxfp4", mxfp4, std::nullopt},
      {"w4a16-nvfp4", nvfp4, std::nullopt},
      {"w8a16-mxfp8-e4m3", mxfp8, std::nullopt},
      {"w4a8-mxfp4-mxfp8", mxfp4, mxfp8},
      {"w6a8-mxfp6-e3m2-mxfp8-e5m2", mxfp6, mxfp8},
  };
  for (const char* preset : {"edge-npu-32x32", "mx-npu-32x32"}) {
    auto est = estimator(preset);
    for (const auto& r : rows)
      for (const auto& [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 96},
                                    {1, 64, 100},
                                    {1, 48, 40},
                                    {8, 48, 100},
                                    {5, 33, 70}}) {
        INFO(preset << " " << r.scheme << " " << m << "x" << n << "x" << k);
        // the whole GEMM as one buffer tile: every operand crosses DRAM exactly once
        const auto& c = est.gemm(GemmShape{1, m, n, k, GemmRole::kLinear}, quant::parse_scheme(r.scheme),
                                 cost::Tile{m, n, k, "mnk"});
        CHECK(bytes_of(c, "W") == values(n, k, r.w));
        CHECK(bytes_of(c, "SW") == scales(n, k, r.w));
        CHECK(bytes_of(c, "SW2") == (r.w.tensor_bits ? 4 : -1));
        if (r.a) {
          CHECK(bytes_of(c, "A") == values(m, k, *r.a));
          CHECK(bytes_of(c, "SA") == scales(m, k, *r.a));
          CHECK(bytes_of(c, "SA2") == (r.a->tensor_bits ? 4 : -1));
        } else {
          CHECK(bytes_of(c, "A") == m * k * 2);
          CHECK(bytes_of(c, "SA") == -1);
        }
        CHECK(bytes_of(c, "C") == m * n * 2);
        const std::int64_t scale_bytes = bytes_of(c, "SW") + std::max<std::int64_t>(0, bytes_of(c, "SW2")) +
                                         std::max<std::int64_t>(0, bytes_of(c, "SA")) +
                                         std::max<std::int64_t>(0, bytes_of(c, "SA2"));
        CHECK(c.scale_dram_bytes == scale_bytes);
      }
  }
  // the example: a 1 x N x K decode GEMV moves N·K·4/8 + N·ceil(K/32) weight bytes under MXFP4, and NVFP4
  // N·K·4/8 + N·ceil(K/16) + 4 (at the tile the search picks, not only the whole-GEMM tile)
  auto est = estimator("mx-npu-32x32");
  const std::int64_t n = 4096, k = 4100;
  const auto& mx = est.gemm(GemmShape{1, 1, n, k, GemmRole::kLinear}, quant::parse_scheme("mxfp4"));
  CHECK(bytes_of(mx, "W") + bytes_of(mx, "SW") == n * k / 2 + n * 129);
  const auto& nv = est.gemm(GemmShape{1, 1, n, k, GemmRole::kLinear}, quant::parse_scheme("nvfp4"));
  CHECK(bytes_of(nv, "W") + bytes_of(nv, "SW") + bytes_of(nv, "SW2") == n * k / 2 + n * 257 + 4);
}

TEST_CASE("KV-cache formats: the K and V caches' values and scale tensors by hand", "[cost][mx]") {
  auto est = estimator("edge-npu-32x32");
  const std::int64_t batch = 2, rows = 4, keys = 40, head_dim = 64;
  struct Row {
    const char* scheme;
    std::int64_t bits, scale_bytes_per_batch, tensor_bytes_per_batch;  // -1: no such tensor
  };
  for (const Row& r : std::vector<Row>{
           {"q4f16_1+kv-nvfp4", 4, keys * (head_dim / 16), 4},
           {"q4f16_1+kv-mxfp4", 4, keys * (head_dim / 32), -1},
           {"q4f16_1+kv-mxfp8-e5m2", 8, keys * (head_dim / 32), -1},
           {"q4f16_1+kvfp8", 8, 4, -1},  // one float32 per tensor, loaded by each (sequence, KV head) GEMM
           {"q4f16_1+kvfp8-head", 8, 4, -1},
           {"q4f16_1+kvfp8-e5m2", 8, 4, -1},
       }) {
    INFO(r.scheme);
    const auto s = quant::parse_scheme(r.scheme);
    const auto& qk =
        est.gemm(GemmShape{batch, rows, keys, head_dim, GemmRole::kAttnQK}, s, cost::Tile{rows, keys, head_dim, "mnk"});
    CHECK(bytes_of(qk, "K") == batch * keys * head_dim * r.bits / 8);
    CHECK(bytes_of(qk, "SK") == batch * r.scale_bytes_per_batch);
    CHECK(bytes_of(qk, "SK2") == (r.tensor_bytes_per_batch < 0 ? -1 : batch * r.tensor_bytes_per_batch));
    CHECK(qk.precision == tc_test::mac("fp16"));  // attention runs at model dtype on the dequantized cache
    CHECK(qk.dequant_ops == named(qk, "K").buffer_elems);
    const auto& pv =
        est.gemm(GemmShape{batch, rows, head_dim, keys, GemmRole::kAttnPV}, s, cost::Tile{rows, head_dim, keys, "mnk"});
    CHECK(bytes_of(pv, "V") == batch * keys * head_dim * r.bits / 8);
    CHECK(bytes_of(pv, "SV") == batch * r.scale_bytes_per_batch);
    CHECK(bytes_of(pv, "SV2") == (r.tensor_bytes_per_batch < 0 ? -1 : batch * r.tensor_bytes_per_batch));
  }
}

TEST_CASE("MAC path per GEMM: block-scaled on the MX preset, dequantized on the edge NPU", "[cost][mx]") {
  auto mx = estimator("mx-npu-32x32");
  auto edge = estimator("edge-npu-32x32");
  const GemmShape g{1, 8, 48, 100, GemmRole::kLinear};
  const cost::Tile whole{8, 48, 100, "mnk"};
  struct Row {
    const char* scheme;
    const char* mx_precision;
    arch::MacPath mx_path;
    const char* edge_precision;
    arch::MacPath edge_path;
  };
  using P = arch::MacPath;
  for (const Row& r : std::vector<Row>{
           {"mxfp4", "mxfp4", P::kBlockScaled, "fp16", P::kDequantized},
           {"mxfp6-e2m3", "mxfp6", P::kBlockScaled, "fp16", P::kDequantized},
           {"mxfp8-e4m3", "mxfp8", P::kBlockScaled, "fp16", P::kDequantized},
           {"mxint8", "mxint8", P::kBlockScaled, "fp16", P::kDequantized},
           {"w4a8-mxfp4-mxfp8", "mxfp8", P::kBlockScaled, "fp16", P::kDequantized},
           {"nvfp4", "fp16", P::kDequantized, "fp16", P::kDequantized},
           {"w4a16-mxfp4", "fp16", P::kNative, "fp16", P::kNative},
           {"fp8-tensor", "fp16", P::kWidened, "fp8", P::kNative},
           {"w4a4-g128", "fp16", P::kWidened, "int4", P::kNative},
           {"q0f16", "fp16", P::kNative, "fp16", P::kNative},
       }) {
    INFO(r.scheme);
    const auto s = quant::parse_scheme(r.scheme);
    const auto& a = mx.gemm(g, s, whole);
    const auto& b = edge.gemm(g, s, whole);
    CHECK(a.precision == tc_test::mac(r.mx_precision));
    CHECK(a.mac_path == r.mx_path);
    CHECK(b.precision == tc_test::mac(r.edge_precision));
    CHECK(b.mac_path == r.edge_path);
    // the MAC energy is the precision that runs (its pJ per MAC)
    CHECK(a.energy_by_term[cost::EnergyTerm::kMac] ==
          Approx(static_cast<double>(a.macs) * mx.arch().mac_pj.at(a.precision) * 1e-12));
    for (const auto* c : {&a, &b}) {
      // dequantized path: every operand narrower than 16 bits converted at the array edge (one per element
      // entering the array); native / block-scaled: only a weight-only scheme's weight
      std::int64_t expected = 0;
      if (c->mac_path == P::kDequantized) expected = named(*c, "A").buffer_elems + named(*c, "W").buffer_elems;
      else if (s.dequant_weight) expected = named(*c, "W").buffer_elems;
      CHECK(c->dequant_ops == expected);
    }
  }
  // MXFP4 on its unit: 8 MACs per PE per cycle, no conversion; the same GEMM dequantized on the edge NPU pays
  // the conversions (and the MACs at fp16)
  const auto& on_mx = mx.gemm(g, quant::parse_scheme("mxfp4"), whole);
  CHECK(on_mx.mac_rate_num == 8);
  CHECK(on_mx.dequant_ops == 0);
  CHECK(on_mx.cycles_of(cost::Term::kDequant) == 0);
  const auto& on_edge = edge.gemm(g, quant::parse_scheme("mxfp4"), whole);
  CHECK(on_edge.mac_rate_num == 1);
  CHECK(on_edge.cycles_of(cost::Term::kDequant) == ceil_div(on_edge.dequant_ops, 32));
  CHECK(on_edge.energy_by_term[cost::EnergyTerm::kDequant] ==
        Approx(static_cast<double>(on_edge.dequant_ops) * 0.5e-12));
  // dequantizers in the PEs: one conversion per MAC and converted operand
  auto pe = estimator("edge-npu-32x32", {arch::parse_override("dequant.placement=pe")});
  CHECK(pe.gemm(g, quant::parse_scheme("mxfp4"), whole).dequant_ops == 2 * 8 * 48 * 100);
  CHECK(pe.gemm(g, quant::parse_scheme("w4a16-mxfp4"), whole).dequant_ops == 8 * 48 * 100);
  // vector work of NVFP4 by hand: 3·M·K + M·ceil(K/16) activation ops, M·N rescales
  CHECK(mx.gemm(g, quant::parse_scheme("nvfp4"), whole).vector_ops == 3 * 8 * 100 + 8 * 7 + 8 * 48);
  CHECK(mx.gemm(g, quant::parse_scheme("mxfp4"), whole).vector_ops == 2 * 8 * 100 + 8 * 4);
}

TEST_CASE("CLI: the estimate names each GEMM's MAC path in JSON, CSV and the table", "[cost][mx]") {
  const auto j =
      tc_test::run_cli("estimate --gemm 1x256x100 --gemm 16x256x100 --quant nvfp4 --arch mx-npu-32x32 --format json");
  REQUIRE(j.exit_code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  REQUIRE(doc["workloads"].size() == 2);
  for (const auto& w : doc["workloads"]) {
    CHECK(w["mac_path"] == "dequantized");
    CHECK(w["precision"] == "fp16");
  }
  const auto csv = tc_test::run_cli("estimate --gemm 16x256x128 --quant mxfp4 --arch mx-npu-32x32 --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::Contains(",prec,mac_path,MACs,"));
  CHECK_THAT(csv.out, Catch::Contains(",mxfp4,mxfp4,block-scaled,"));
  const auto table = tc_test::run_cli("estimate --gemm 16x256x128 --quant w4a8-mxfp4-mxfp8 --arch edge-npu-32x32");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("dequantized"));
}
