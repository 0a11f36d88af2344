// Data movement by reuse class (docs/model.md "Data movement by reuse class") against a register-level
// enumeration of the PE array: per PE and time stamp the elements it uses; a use is a register hit when the PE
// used the same element at the previous stamp, a NoC transfer when an interconnect neighbour holds it (at this or
// the previous stamp), else a buffer read. The enumeration knows the dataflows only as functions
// (i, j, k) -> (PE, stamp) written here from their definitions, not through the relation text, the closed forms
// or the engine. Every GEMM is one tile, so the Estimator's per-tensor counts are the array's.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "arch_support.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;

namespace {

struct Place {
  int p = 0, q = 0;
  std::vector<long long> stamp;
};

// The dataflow as a function: presets from their maps (docs/model.md), generated ones from Generated's fields.
Place place(const mapping::Dataflow& d, int R, int C, int i, int j, int k) {
  const int v[3] = {i, j, k};
  const auto of = [&](char dim) { return v[dim == 'i' ? 0 : dim == 'j' ? 1 : 2]; };
  if (d.preset == mapping::Preset::kNCF) return {j % R, k % C, {i / R, k / C, i % R, j / R}};
  mapping::Generated g;
  if (d.generated) {
    g = *d.generated;
  } else if (d.preset == mapping::Preset::kOS) {
    g = {{'i', 'j'}, 'k', true, {1, 1}};
  } else if (d.preset == mapping::Preset::kWS) {
    g = {{'k', 'j'}, 'i', false, {1, 1}};
  } else {
    g = {{'k', 'i'}, 'j', false, {1, 1}};
  }
  const int x = of(g.space[0]), y = of(g.space[1]), t = of(g.time);
  const long long fx = x / R, fy = y / C, in = t + g.skew[0] * (x % R) + g.skew[1] * (y % C);
  return {x % R, y % C, g.rows_fold_outer ? std::vector<long long>{fx, fy, in} : std::vector<long long>{fy, fx, in}};
}

struct Classes {
  long long total = 0, reg = 0, noc = 0, buffer = 0;
  bool operator==(const Classes&) const = default;
};

}  // namespace

namespace Catch {
template <>
struct StringMaker<Classes> {
  static std::string convert(const Classes& c) {
    return "{total " + std::to_string(c.total) + ", register " + std::to_string(c.reg) + ", noc " +
           std::to_string(c.noc) + ", buffer " + std::to_string(c.buffer) + "}";
  }
};
}  // namespace Catch

namespace {

std::map<std::string, Classes> enumerate(const mapping::Dataflow& d, int R, int C, int M, int N, int K,
                                         const std::vector<quant::Operand>& ops) {
  std::vector<std::tuple<int, int, int, Place>> pts;
  std::set<std::vector<long long>> stamps;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k) {
        pts.emplace_back(i, j, k, place(d, R, C, i, j, k));
        stamps.insert(std::get<3>(pts.back()).stamp);
      }
  std::map<std::vector<long long>, int> rank;  // TENET's previous stamp: the previous occupied one
  for (const auto& s : stamps) rank.emplace(s, static_cast<int>(rank.size()));
  std::map<std::string, Classes> out;
  for (const auto& op : ops) {
    // the uses inside the array (an edge dequantizer's scale is checked by hand in test_energy.cpp)
    if (op.apply != quant::Apply::kMac && op.apply != quant::Apply::kGroup) continue;
    if (op.write) continue;
    // what each PE holds at each stamp: the elements it uses then
    std::map<std::tuple<int, int, int>, std::set<std::vector<long long>>> held;
    Classes& c = out[op.name];
    for (const auto& [i, j, k, pl] : pts) {
      if (op.apply == quant::Apply::kGroup && k % op.apply_group != 0) continue;  // used once per K group
      std::vector<long long> e;
      for (const auto& t : op.index)
        e.push_back(t.dim == '0' ? 0 : (t.dim == 'i' ? i : t.dim == 'j' ? j : k) / t.divisor);
      held[{pl.p, pl.q, rank.at(pl.stamp)}].insert(e);
      ++c.total;  // one use per statement instance
    }
    const auto has = [&](int p, int q, int t, const std::vector<long long>& e) {
      const auto it = held.find({p, q, t});
      return it != held.end() && it->second.count(e) > 0;
    };
    long long distinct = 0;
    for (const auto& [at, elems] : held) {
      const auto [p, q, t] = at;
      for (const auto& e : elems) {
        ++distinct;
        if (has(p, q, t - 1, e)) {
          ++c.reg;
        } else if (has(p - 1, q, t, e) || has(p, q - 1, t, e) || has(p - 1, q, t - 1, e) || has(p, q - 1, t - 1, e)) {
          ++c.noc;  // systolic: from the PE above or to the left
        } else {
          ++c.buffer;
        }
      }
    }
    c.reg += c.total - distinct;  // several uses of one element at one (PE, stamp): one register
  }
  return out;
}

arch::Arch small_arch(int R, int C, bool dequant_in_pe) {
  arch::Arch a = tc_test::edge_arch(R, C, 1 << 24);
  a.dequant_placement = dequant_in_pe ? arch::DequantPlacement::kPE : arch::DequantPlacement::kEdge;
  return a;
}

}  // namespace

TEST_CASE("register / NoC / buffer counts of values and scales equal a register-level enumeration") {
  const std::vector<std::string> dataflows = {
      "os", "ws", "is", "ncf", "gen:ij-k-r-21", "gen:ij-k-c-12", "gen:ik-j-r-11", "gen:kj-i-r-22"};
  // weight group scales per MAC (dequantized in the PE), group scales on the partial sum (int4 MACs), 2-D block
  // scales and per-token-group activation scales on the partial sum, per-channel / per-token scales at the output
  const std::vector<std::string> schemes = {"w4a16-g4-asym", "w4a16-g3",           "w4a4-g4", "w4a4-g6", "fp8-block2x4",
                                            "fp8-block3x3",  "w8a8-token-channel", "q0f16"};
  const std::vector<std::array<int, 5>> shapes = {{3, 4, 7, 9, 12}, {4, 4, 8, 8, 8}, {2, 3, 5, 7, 13}, {1, 4, 5, 6, 9}};
  int compared = 0;
  for (const auto& [R, C, M, N, K] : shapes)
    for (const bool in_pe : {true, false})
      for (const auto& df_name : dataflows)
        for (const auto& scheme_name : schemes) {
          const auto df = mapping::parse_dataflow(df_name);
          const arch::Arch a = small_arch(R, C, in_pe);
          const auto scheme = quant::parse_scheme(scheme_name);
          const auto ops = quant::operands(scheme, quant::GemmRole::kLinear, mapping::dequant_site(a));
          if (df.generated && !mapping::is_legal(*df.generated, a.interconnect, quant::array_operands(ops))) continue;
          INFO(df_name << " " << scheme_name << " R=" << R << " C=" << C << " GEMM " << M << "x" << N << "x" << K
                       << (in_pe ? " dequant in the PE" : " dequant at the edge"));
          const auto want = enumerate(df, R, C, M, N, K, ops);
          for (const auto method : {cost::ArrayMethod::kAuto, cost::ArrayMethod::kEngine}) {
            cost::Options o;
            o.method = method;
            o.tile = cost::Tile{M, N, K, "mnk"};
            cost::Estimator est(a, df, o);
            const cost::GemmCost& c = est.gemm({1, M, N, K, quant::GemmRole::kLinear}, scheme);
            for (const auto& t : c.tensors) {
              const auto it = want.find(t.name);
              if (it == want.end()) continue;  // the output, and scales outside the array
              INFO(t.name << " " << cost::to_string(c.array_model));
              CHECK(Classes{t.total_elems, t.register_elems, t.noc_elems, t.buffer_elems} == it->second);
              ++compared;
            }
          }
        }
  CHECK(compared > 500);
}

TEST_CASE("a scale on the partial sum is used once per K group; outside the array it moves no NoC bits") {
  const arch::Arch a = small_arch(4, 4, false);
  cost::Options o;
  o.tile = cost::Tile{8, 8, 16, "mnk"};
  cost::Estimator est(a, mapping::parse_dataflow("os"), o);
  const auto& c = est.gemm({1, 8, 8, 16, quant::GemmRole::kLinear}, quant::parse_scheme("w4a4-g4"));
  for (const auto& t : c.tensors) {
    INFO(t.name);
    if (t.name == "SW") {
      CHECK(t.apply == quant::Apply::kGroup);
      CHECK(t.total_elems == 8 * 8 * (16 / 4));  // one use per (output, group)
      CHECK(t.register_elems == 0);              // the PE ran k - 1 at its previous stamp: no use then
    }
    if (t.name == "SA") {  // per-token scale of the int4 activations: applied once per output, never in the array
      CHECK(t.apply == quant::Apply::kOutput);
      CHECK(t.noc_elems == 0);
      CHECK(t.total_elems == 64);
      CHECK(t.buffer_elems == 8);
    }
  }
}
