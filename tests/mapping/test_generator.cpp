// The dataflow generator: it reproduces the os/ws/is presets among its candidates, and its legality condition
// (computed from the transform matrix) equals a brute-force check over the points of one fold.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "cost/arch_support.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;

namespace {

std::vector<quant::Operand> ops_of(const char* scheme) {
  return quant::operands(quant::parse_scheme(scheme), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
}

// Every candidate of the space, legal or not.
std::vector<mapping::Generated> all_candidates() {
  std::vector<mapping::Generated> out;
  for (const char x : {'i', 'j', 'k'})
    for (const char y : {'i', 'j', 'k'}) {
      if (x == y) continue;
      const char t = static_cast<char>('i' + 'j' + 'k' - x - y);
      for (const bool r : {true, false})
        for (int a = 0; a <= 2; ++a)
          for (int b = 0; b <= 2; ++b) out.push_back(mapping::Generated{{x, y}, t, r, {a, b}});
    }
  return out;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Brute force on one fold of an n x n array with loop extents n: every point's (row, col, stamp) computed directly;
// injective; every pair of points one loop step apart that touch the same element of an operand is forwarded
// (same PE or a neighbour on the interconnect, at a later stamp).
bool brute_legal(const mapping::Generated& g, arch::Interconnect ic, const std::vector<quant::Operand>& ops) {
  const std::int64_t n = 4;
  auto coord = [&](const std::array<std::int64_t, 3>& p, char d) { return p[d == 'i' ? 0 : d == 'j' ? 1 : 2]; };
  auto place = [&](const std::array<std::int64_t, 3>& p) {
    const std::int64_t r = coord(p, g.space[0]), c = coord(p, g.space[1]);
    return std::array<std::int64_t, 3>{r, c, coord(p, g.time) + g.skew[0] * r + g.skew[1] * c};
  };
  auto element = [&](const quant::Operand& op, const std::array<std::int64_t, 3>& p) {
    std::vector<std::int64_t> e;
    for (const auto& t : op.index) e.push_back(t.dim == '0' ? 0 : floor_div(coord(p, t.dim), t.divisor));
    return e;
  };
  std::set<std::array<std::int64_t, 3>> seen;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t k = 0; k < n; ++k) {
        const std::array<std::int64_t, 3> p{i, j, k};
        if (!seen.insert(place(p)).second) return false;
        for (int l = 0; l < 3; ++l) {
          auto q = p;
          ++q[static_cast<std::size_t>(l)];
          if (q[static_cast<std::size_t>(l)] >= n) continue;
          for (const auto& op : ops) {
            if (element(op, p) != element(op, q)) continue;
            auto a = place(p), b = place(q);
            std::int64_t dr = b[0] - a[0], dc = b[1] - a[1], dt = b[2] - a[2];
            if (dt < 0) dr = -dr, dc = -dc, dt = -dt;
            if (dt <= 0) return false;
            const bool same = dr == 0 && dc == 0;
            const bool nb = ic == arch::Interconnect::kSystolic ? (dr + dc == 1 && dr >= 0 && dc >= 0)
                            : ic == arch::Interconnect::kMesh   ? (std::llabs(dr) + std::llabs(dc) == 1)
                                                                : false;
            if (!same && !nb) return false;
          }
        }
      }
  return true;
}

}  // namespace

TEST_CASE("the legality condition equals the brute-force check on every candidate, scheme and interconnect") {
  for (const char* scheme : {"q0f16", "q4f16_1", "w8a8-token-channel", "w4a8-g128", "fp8-tensor", "fp8-block128x128"}) {
    auto ops = ops_of(scheme);
    // the brute force sees a group only when it is smaller than its 4-point extent: use small groups
    for (auto& op : ops)
      for (auto& t : op.index)
        if (t.divisor > 1) t.divisor = 2;
    for (const auto ic : {arch::Interconnect::kSystolic, arch::Interconnect::kMesh, arch::Interconnect::kNone})
      for (const auto& g : all_candidates()) {
        INFO(scheme << " " << g.name() << " " << arch::to_string(ic));
        CHECK(mapping::is_legal(g, ic, ops) == brute_legal(g, ic, ops));
      }
  }
}

TEST_CASE("the generator reproduces os, ws and is: same TENET metrics as the presets") {
  const auto ops = ops_of("q4f16_1");
  const auto gen = mapping::generate_dataflows(arch::Interconnect::kSystolic, ops);
  std::set<std::string> names;
  for (const auto& d : gen) names.insert(d.name);
  CHECK(gen.size() >= 8);
  const std::map<std::string, std::string> twins = {{"os", "gen:ij-k-r-11"}, {"ws", "gen:kj-i-c-11"}, {"is", "gen:ki-j-c-11"}};
  const arch::Arch a = tc_test::edge_arch(4, 4, 1 << 20);
  for (const auto& [preset, name] : twins) {
    INFO(preset);
    CHECK(names.count(name) == 1);
    const auto p = mapping::parse_dataflow(preset);
    const auto g = mapping::parse_dataflow(name);
    REQUIRE(g.generated);
    CHECK(g.name == name);
    for (const auto& [tm, tn, tk] : std::vector<std::array<std::int64_t, 3>>{{8, 8, 8}, {6, 9, 5}}) {
      const auto mp = tenet::analyze(mapping::tile_problem(a, p, tm, tn, tk, ops), {});
      const auto mg = tenet::analyze(mapping::tile_problem(a, g, tm, tn, tk, ops), {});
      CHECK(mp.macs == mg.macs);
      CHECK(mp.time_stamps == mg.time_stamps);
      CHECK(mp.active_pes == mg.active_pes);
      REQUIRE(mp.tensors.size() == mg.tensors.size());
      for (std::size_t t = 0; t < mp.tensors.size(); ++t) {
        CHECK(mp.tensors[t].unique_volume == mg.tensors[t].unique_volume);
        CHECK(mp.tensors[t].total_volume == mg.tensors[t].total_volume);
      }
    }
  }
}

TEST_CASE("illegal maps are rejected; generated names round-trip; a relation interconnect gets none") {
  const auto ops = ops_of("q0f16");
  // no skew: A's reuse along j would need a broadcast in one stamp
  CHECK_FALSE(mapping::is_legal(*mapping::parse_generated("gen:ij-k-r-00"), arch::Interconnect::kSystolic, ops));
  // skew 2 along the rows: a neighbour two stamps later is still forwarded (a register more per hop)
  CHECK(mapping::is_legal(*mapping::parse_generated("gen:ij-k-r-21"), arch::Interconnect::kSystolic, ops));
  CHECK(mapping::generate_dataflows(arch::Interconnect::kNone, ops).empty());
  CHECK(mapping::generate_dataflows(arch::Interconnect::kRelation, ops).empty());
  for (const char* bad : {"gen:ii-k-r-11", "gen:ij-j-r-11", "gen:ij-k-x-11", "gen:ij-k-r-31", "gen:ij-k-r-1"})
    CHECK_FALSE(mapping::parse_generated(bad));
  for (const auto& g : all_candidates()) CHECK(mapping::parse_generated(g.name()) == g);
}

TEST_CASE("a generated dataflow is costed by the engine and equals its preset twin") {
  const arch::Arch a = tc_test::edge_arch(8, 8, 1 << 20);
  cost::Options eng;
  eng.method = cost::ArrayMethod::kEngine;
  cost::Estimator preset(a, mapping::parse_dataflow("ws"), eng);
  cost::Estimator gen(a, mapping::parse_dataflow("gen:kj-i-c-11"), {});
  const cost::GemmShape s{1, 64, 96, 128, quant::GemmRole::kLinear};
  const auto sch = quant::parse_scheme("w4a8-g128");
  const auto& x = preset.gemm(s, sch);
  const auto& y = gen.gemm(s, sch);
  CHECK(y.array_model == cost::ArrayModel::kEngine);
  CHECK(x.cycles == y.cycles);
  CHECK(x.dram_bytes == y.dram_bytes);
  CHECK(x.buffer_bytes == y.buffer_bytes);
  CHECK(x.energy_j == y.energy_j);
}

TEST_CASE("an illegal generated dataflow is refused with the operand and loop that fail, never costed") {
  const auto ops = ops_of("q0f16");
  const auto why = mapping::illegality(*mapping::parse_generated("gen:ij-k-r-00"), arch::Interconnect::kSystolic, ops);
  REQUIRE(why);
  CHECK(why->find("operand A is reused along loop j") != std::string::npos);
  CHECK(why->find("broadcast") != std::string::npos);
  const auto far = mapping::illegality(*mapping::parse_generated("gen:ij-k-r-11"), arch::Interconnect::kNone, ops);
  REQUIRE(far);
  CHECK(far->find("not a neighbour on a none interconnect") != std::string::npos);
  CHECK_FALSE(mapping::illegality(*mapping::parse_generated("gen:ij-k-r-11"), arch::Interconnect::kSystolic, ops));

  const arch::Arch a = tc_test::edge_arch(8, 8, 1 << 20);
  cost::Estimator est(a, mapping::parse_dataflow("gen:ij-k-r-00"), {});
  const cost::GemmShape s{1, 64, 96, 128, quant::GemmRole::kLinear};
  CHECK_THROWS_AS(est.gemm(s, quant::parse_scheme("q0f16")), InputError);
  CHECK(est.array_evaluations() == 0);
}

TEST_CASE("how many generated mappings are legal on a systolic array (docs/model.md)") {
  for (const char* s : {"q0f16", "q4f16_1", "w8a8-token-channel"}) {
    INFO(s);
    CHECK(mapping::generate_dataflows(arch::Interconnect::kSystolic, ops_of(s)).size() == 48);
  }
}
