// The tile choice by objective (docs/search.md): exactly the best candidate (= exhaustive evaluation), never worse
// than any tile a user could pass, candidate sizes, targeted --tile rules.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "arch_support.hpp"
#include "cost/nest.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;
using cost::GemmShape;
using cost::Objective;
using quant::GemmRole;

namespace {

cost::Estimator make(std::int64_t rows, std::int64_t cols, std::int64_t buffer, const std::string& df, Objective o,
                     cost::ArrayMethod m = cost::ArrayMethod::kAuto) {
  cost::Options opt;
  opt.method = m;
  opt.objective = o;
  return cost::Estimator(tc_test::edge_arch(rows, cols, buffer), mapping::parse_dataflow(df), opt);
}

cost::TileProblem problem(const cost::Estimator& est, const GemmShape& s, const quant::Scheme& scheme) {
  const auto& a = est.arch();
  const bool coarse =
      est.options().method == cost::ArrayMethod::kEngine || !mapping::closed_forms_apply(a, est.dataflow());
  return cost::TileProblem{s,
                           quant::operands(scheme, s.role, quant::DequantSite::kEdge),
                           scheme.accum_bits,
                           a.buffer_bytes,
                           a.name,
                           a.rows,
                           a.cols,
                           coarse,
                           est.dataflow().preset,
                           {}};
}

// The exhaustive oracle: every candidate evaluated at its fixed tile, the first best in enumeration order.
cost::GemmCost exhaustive(cost::Estimator& est, const GemmShape& s, const quant::Scheme& scheme, Objective o) {
  const auto cands = cost::tile_candidates(problem(est, s, scheme), cost::Tile{});
  cost::GemmCost best;
  bool have = false;
  for (const auto& c : cands) {
    const cost::GemmCost& g = est.gemm(s, scheme, c.tile);
    if (!have || cost::better(g, best, o)) {
      best = g;
      have = true;
    }
  }
  return best;
}

const Objective kObjectives[] = {Objective::kLatency, Objective::kEnergy, Objective::kEdp, Objective::kDram};

}  // namespace

TEST_CASE("tile_sizes: every aligned multiple on small extents; 16·2^e, the array dims, groups and splits on large") {
  CHECK(cost::tile_sizes(40, 8, 4, 4) == std::vector<std::int64_t>{8, 16, 24, 32, 40});
  CHECK(cost::tile_sizes(7, 1, 4, 4) == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7});
  const auto big = cost::tile_sizes(4096, 32, 12, 14);
  for (const std::int64_t v : {32, 64, 2048, 96, 192, 224, 448, 1376, 1024})  // 16·2^e, 12·2^e, 14·2^e, ceil(4096/3)
    CHECK(std::find(big.begin(), big.end(), v) != big.end());
  CHECK(big.back() == 4096);
  for (const auto v : big) CHECK((v % 32 == 0 || v == 4096));
  CHECK(std::is_sorted(big.begin(), big.end()));
  CHECK(std::adjacent_find(big.begin(), big.end()) == big.end());
  const auto odd = cost::tile_sizes(11008, 1, 32, 32);
  CHECK(std::find(odd.begin(), odd.end(), 5504) != odd.end());  // ceil(11008/2)
  CHECK(std::find(odd.begin(), odd.end(), 8192) != odd.end());
}

TEST_CASE("tile_sizes_coarse: 16·2^e multiples of the alignment below the extent, then the extent") {
  CHECK(cost::tile_sizes_coarse(100, 1) == std::vector<std::int64_t>{16, 32, 64, 100});
  CHECK(cost::tile_sizes_coarse(300, 128) == std::vector<std::int64_t>{128, 256, 300});
  CHECK(cost::tile_sizes_coarse(8, 1) == std::vector<std::int64_t>{8});
}

TEST_CASE("the auto tile is exactly the best candidate for every objective (= exhaustive evaluation)") {
  struct Case {
    GemmShape s;
    const char* scheme;
    std::int64_t rows, cols, buffer;
    const char* df;
  };
  const std::vector<Case> cases = {
      {{1, 64, 96, 128, GemmRole::kLinear}, "q0f16", 8, 8, 1 << 14, "os"},
      {{1, 100, 72, 256, GemmRole::kLinear}, "w4a16-g32", 4, 8, 1 << 13, "ws"},
      {{1, 1, 512, 256, GemmRole::kLinear}, "q4f16_1", 8, 8, 1 << 13, "os"},
      {{2, 48, 80, 64, GemmRole::kLinear}, "w8a8-token-channel", 8, 4, 1 << 12, "ws"},
      {{1, 200, 300, 400, GemmRole::kLinear}, "q4f16_1", 16, 16, 1 << 16, "os"},
      // fused attention: the scores stay on chip, so the search's DRAM floor must leave them out too
      {{2, 2, 40, 16, GemmRole::kAttnQK, true}, "q0f16", 12, 14, 110592, "os"},
      {{2, 2, 16, 40, GemmRole::kAttnPV, true}, "q0f16", 12, 14, 110592, "os"},
      {{1, 64, 64, 32, GemmRole::kAttnQK, true}, "w8a8-token-channel+kv8", 8, 8, 1 << 13, "ws"},
  };
  for (const auto& c : cases)
    for (const Objective o : kObjectives) {
      auto est = make(c.rows, c.cols, c.buffer, c.df, o, cost::ArrayMethod::kClosedForm);
      const auto scheme = quant::parse_scheme(c.scheme);
      INFO(c.scheme << " " << c.s.m << "x" << c.s.n << "x" << c.s.k << " " << c.df << " objective "
                    << cost::to_string(o));
      const cost::GemmCost best = exhaustive(est, c.s, scheme, o);
      const cost::GemmCost& got = est.gemm(c.s, scheme);
      CHECK(got.tile == best.tile);
      CHECK(got.cycles == best.cycles);
      CHECK(got.energy_j == best.energy_j);
      CHECK(got.dram_bytes == best.dram_bytes);
    }
}

TEST_CASE("the lazy best-bound-first search evaluates fewer candidates and finds the same tile") {
  auto est = make(16, 16, 1 << 16, "os", Objective::kLatency, cost::ArrayMethod::kClosedForm);
  const auto scheme = quant::parse_scheme("q4f16_1");
  const GemmShape s{1, 512, 1024, 2048, GemmRole::kLinear};
  const auto p = problem(est, s, scheme);
  const cost::TileFloors f = cost::tile_floors(est.arch(), s, scheme);
  std::int64_t calls = 0;
  const auto choice = cost::best_tile(p, cost::Tile{}, Objective::kLatency, f, [&](const cost::Tile& t) {
    ++calls;
    return est.gemm(s, scheme, t);
  });
  CHECK(choice.evaluated == calls);
  CHECK(choice.evaluated < choice.candidates);
  CHECK(choice.cost.tile == exhaustive(est, s, scheme, Objective::kLatency).tile);
  // every lower bound is below the candidate's true value
  for (const auto& c : cost::tile_candidates(p, cost::Tile{})) {
    if (c.index % 37 != 0) continue;
    const auto& g = est.gemm(s, scheme, c.tile);
    for (const Objective o : kObjectives) {
      CHECK(!(cost::objective_value(g, o) < cost::lower_bound(p, c, f, o)));
    }
  }
}

TEST_CASE("the auto tile is never worse than any tile the user could pass for that GEMM") {
  for (const char* scheme_name : {"q0f16", "w4a16-g4"})
    for (const Objective o : kObjectives) {
      auto est = make(4, 4, 1 << 11, "os", o, cost::ArrayMethod::kClosedForm);
      const auto scheme = quant::parse_scheme(scheme_name);
      const GemmShape s{1, 10, 12, 16, GemmRole::kLinear};
      const cost::GemmCost& best = est.gemm(s, scheme);
      const auto best_value = cost::objective_value(best, o);
      int tried = 0;
      for (const char* order : {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"})
        for (std::int64_t tm = 1; tm <= s.m; ++tm)
          for (std::int64_t tn = 1; tn <= s.n; ++tn)
            for (std::int64_t tk = 1; tk <= s.k; ++tk) {
              cost::GemmCost g;
              try {
                g = est.gemm(s, scheme, cost::Tile{tm, tn, tk, order});
              } catch (const InputError&) {
                continue;  // breaks a group or does not fit: the user cannot pass it either
              }
              ++tried;
              INFO(scheme_name << " " << cost::to_string(o) << " user tile " << cost::to_string(g.tile));
              REQUIRE(!(cost::objective_value(g, o) < best_value));
            }
      CHECK(tried > 1000);
    }
}

TEST_CASE("the engine path is searched lazily and equals exhaustive evaluation") {
  auto est = make(4, 4, 1 << 12, "is", Objective::kLatency, cost::ArrayMethod::kEngine);
  const auto scheme = quant::parse_scheme("q0f16");
  const GemmShape s{1, 12, 8, 16, GemmRole::kLinear};
  const cost::GemmCost best = exhaustive(est, s, scheme, Objective::kLatency);
  const cost::GemmCost& got = est.gemm(s, scheme);
  CHECK(got.tile == best.tile);
  CHECK(got.cycles == best.cycles);
  CHECK(got.array_model == cost::ArrayModel::kEngine);
}

TEST_CASE("--tile rules target one GEMM by function name or by shape") {
  const auto all = cost::parse_tile_rule("m=64,n=128");
  CHECK(all.function.empty());
  CHECK(all.m == 0);
  CHECK(all.tile == cost::Tile{64, 128, 0, ""});
  const auto named = cost::parse_tile_rule("lm_head:m=1,n=256,k=4096");
  CHECK(named.function == "lm_head");
  CHECK(named.tile == cost::Tile{1, 256, 4096, ""});
  const auto shaped = cost::parse_tile_rule("1x32000x4096:n=256,order=nmk");
  CHECK(shaped.function.empty());
  CHECK((shaped.m == 1 && shaped.n == 32000 && shaped.k == 4096));
  CHECK(shaped.tile == cost::Tile{0, 256, 0, "nmk"});
  CHECK_THROWS_AS(cost::parse_tile_rule(":m=1"), InputError);
  CHECK_THROWS_AS(cost::parse_tile_rule("0x1x1:m=1"), InputError);
  CHECK_THROWS_AS(cost::parse_tile_rule("lm_head:m=x"), InputError);
  CHECK_THROWS_AS(cost::parse_objective("speed"), InputError);
  CHECK(cost::parse_objective("edp") == Objective::kEdp);

  cost::Options o;
  o.tile = cost::Tile{32, 0, 0, ""};
  o.rules = {shaped, named};  // the last matching rule wins
  const cost::Estimator est(tc_test::edge_arch(8, 8, 1 << 20), mapping::parse_dataflow("os"), o);
  CHECK(est.tile_for("lm_head", GemmShape{1, 1, 32000, 4096}) == named.tile);
  CHECK(est.tile_for("other", GemmShape{1, 1, 32000, 4096}) == shaped.tile);
  CHECK(est.tile_for("other", GemmShape{1, 2, 32000, 4096}) == o.tile);
}

TEST_CASE("the candidates' 64-bit figures equal the checked nest model (nest.cpp) on every candidate") {
  // every order and tile, remainders, groups and 2-D blocks, fractional bits, fused attention (scores on chip),
  // a fixed user tile and order
  struct Case {
    GemmShape s;
    const char* scheme;
    cost::Tile user;
  };
  const std::vector<Case> cases = {
      {{1, 100, 72, 256, GemmRole::kLinear}, "w4a16-g32", {}},
      {{3, 2048, 22016, 4096, GemmRole::kLinear}, "q4f16_1", {}},
      {{1, 1, 4096, 11008, GemmRole::kLinear}, "q3f16_1", {}},
      {{1, 257, 384, 640, GemmRole::kLinear}, "fp8-block128x128", {}},
      {{2, 48, 80, 64, GemmRole::kLinear}, "w8a8-token-channel", {0, 16, 0, "knm"}},
      {{2, 2, 40, 16, GemmRole::kAttnQK, true}, "q0f16", {}},
      {{2, 2, 16, 40, GemmRole::kAttnPV, true}, "q0f16", {}},
      {{1, 64, 64, 32, GemmRole::kAttnQK, true}, "w8a8-token-channel+kv8", {}},
  };
  for (const auto& c : cases) {
    const auto scheme = quant::parse_scheme(c.scheme);
    INFO(c.scheme << " " << c.s.m << "x" << c.s.n << "x" << c.s.k);
    const cost::TileProblem p{c.s,
                              quant::operands(scheme, c.s.role, quant::DequantSite::kEdge),
                              scheme.accum_bits,
                              std::int64_t{1} << 40,
                              "big",
                              16,
                              16,
                              false,
                              std::nullopt,
                              {}};
    const auto dram_ops = cost::detail::dram_operands(c.s, p.ops);
    const auto cands = cost::tile_candidates(p, c.user);
    REQUIRE(!cands.empty());
    for (const auto& cand : cands) {
      const cost::detail::Nest nest(c.s, cand.tile);
      CHECK(cand.dram_bits == cost::detail::dram_bits(dram_ops, nest, p.accum_bits));
      CHECK(cand.working_set_bits == cost::detail::working_set_bits(p.ops, nest, p.accum_bits));
      CHECK(cand.tiles == nest.tiles());
    }
  }
}

TEST_CASE("the GEMM memo: schemes with the same operands share a result; Estimators share a memo") {
  const auto q0 = quant::parse_scheme("q0f16"), q4 = quant::parse_scheme("q4f16_1");
  const GemmShape attn{32, 128, 128, 128, GemmRole::kAttnQK};
  const GemmShape lin{1, 64, 512, 256, GemmRole::kLinear};
  auto est = make(16, 16, 1 << 16, "os", Objective::kLatency, cost::ArrayMethod::kClosedForm);
  const cost::GemmCost a0 = est.gemm(attn, q0);
  const auto n = est.array_evaluations();
  // q4f16_1 quantizes weights only: its attention GEMM has q0f16's operands, so it is not searched again
  CHECK(est.gemm(attn, q4).tile == a0.tile);
  CHECK(est.array_evaluations() == n);
  // a linear GEMM's operands differ between the schemes: searched for each
  const cost::GemmCost l0 = est.gemm(lin, q0);
  const auto n0 = est.array_evaluations();
  const cost::GemmCost l4 = est.gemm(lin, q4);
  CHECK(est.array_evaluations() > n0);
  CHECK(l4.dram_bytes < l0.dram_bytes);
  // a second Estimator on the same memo evaluates nothing and returns the same costs as a fresh one
  cost::Options opt;
  opt.method = cost::ArrayMethod::kClosedForm;
  opt.objective = Objective::kLatency;
  const auto memo = cost::make_gemm_memo();
  cost::Estimator first(tc_test::edge_arch(16, 16, 1 << 16), mapping::parse_dataflow("os"), opt, memo);
  cost::Estimator second(tc_test::edge_arch(16, 16, 1 << 16), mapping::parse_dataflow("os"), opt, memo);
  first.gemm(lin, q4);
  const cost::GemmCost& shared = second.gemm(lin, q4);
  CHECK(second.array_evaluations() == 0);
  CHECK(shared.tile == l4.tile);
  CHECK(shared.cycles == l4.cycles);
  CHECK(shared.energy_j == l4.energy_j);
  // the user's tile is part of the key
  const cost::Tile fixed{32, 64, 128, "nmk"};
  CHECK(second.gemm(lin, q4, fixed).tile == fixed);
}

TEST_CASE(
    "per tile size only the order with the fewest DRAM bytes is evaluated, and the choice is still exhaustive's") {
  // fractional bits (q3f16_1), 2-D blocks, batches, user-fixed factors: the dominance keeps the exact optimum
  struct Case {
    GemmShape s;
    const char* scheme;
    cost::Tile user;
  };
  const std::vector<Case> cases = {
      {{3, 40, 96, 200, GemmRole::kLinear}, "q3f16_1", {}},
      {{2, 130, 256, 384, GemmRole::kLinear}, "fp8-block128x128", {}},
      {{4, 1, 320, 160, GemmRole::kLinear}, "w4a8-g128", {}},
      {{1, 96, 64, 128, GemmRole::kLinear}, "q4f16_1", {0, 32, 0, ""}},
  };
  for (const auto& c : cases)
    for (const Objective o : kObjectives) {
      auto est = make(8, 8, 1 << 16, "os", o, cost::ArrayMethod::kClosedForm);
      const auto scheme = quant::parse_scheme(c.scheme);
      INFO(c.scheme << " " << c.s.m << "x" << c.s.n << "x" << c.s.k << " objective " << cost::to_string(o));
      const auto p = problem(est, c.s, scheme);
      const auto all = cost::tile_candidates(p, c.user);
      std::int64_t calls = 0;
      const auto choice =
          cost::best_tile(p, c.user, o, cost::tile_floors(est.arch(), c.s, scheme), [&](const cost::Tile& t) {
            ++calls;
            return est.gemm(c.s, scheme, t);
          });
      CHECK(choice.candidates == static_cast<std::int64_t>(all.size()));
      CHECK(calls == choice.evaluated);
      cost::GemmCost best;
      bool have = false;
      for (const auto& cand : all) {
        const cost::GemmCost& g = est.gemm(c.s, scheme, cand.tile);
        if (!have || cost::better(g, best, o)) {
          best = g;
          have = true;
        }
      }
      CHECK(choice.cost.tile == best.tile);
      CHECK(choice.cost.cycles == best.cycles);
      CHECK(choice.cost.energy_j == best.energy_j);
      CHECK(choice.cost.dram_bytes == best.dram_bytes);
    }
}

TEST_CASE("Estimators sharing a memo share the engine's compiles and give a fresh Estimator's costs") {
  // is and ncf run on the engine: the schemes' equal operand structures (attention, q0f16 = fp8-tensor in the array)
  // are compiled once per memo; every figure equals what an Estimator of its own computes
  const GemmShape lin{1, 48, 64, 256, GemmRole::kLinear};
  const GemmShape attn{2, 40, 32, 64, GemmRole::kAttnQK};
  for (const char* df : {"is", "ncf"}) {
    const auto memo = cost::make_gemm_memo();
    cost::Options opt;
    opt.objective = Objective::kEnergy;
    for (const char* name : {"q0f16", "q4f16_1", "fp8-tensor", "w4a8-g128"}) {
      const auto scheme = quant::parse_scheme(name);
      cost::Estimator shared(tc_test::edge_arch(8, 8, 1 << 16), mapping::parse_dataflow(df), opt, memo);
      for (const GemmShape& s : {lin, attn}) {
        INFO(df << " " << name << " role " << static_cast<int>(s.role));
        auto fresh = make(8, 8, 1 << 16, df, Objective::kEnergy);
        const cost::GemmCost a = shared.gemm(s, scheme);
        const cost::GemmCost& b = fresh.gemm(s, scheme);
        CHECK(a.array_model == cost::ArrayModel::kEngine);
        CHECK(a.tile == b.tile);
        CHECK(a.cycles == b.cycles);
        CHECK(a.energy_j == b.energy_j);
        CHECK(a.dram_bytes == b.dram_bytes);
        CHECK(a.time_stamps == b.time_stamps);
        REQUIRE(a.tensors.size() == b.tensors.size());
        for (std::size_t i = 0; i < a.tensors.size(); ++i) {
          CHECK(a.tensors[i].name == b.tensors[i].name);
          CHECK(a.tensors[i].buffer_elems == b.tensors[i].buffer_elems);
          CHECK(a.tensors[i].noc_elems == b.tensors[i].noc_elems);
          CHECK(a.tensors[i].register_elems == b.tensors[i].register_elems);
        }
      }
    }
  }
}

TEST_CASE("the engine's shared compiles (operands by position, one tensor per relation) give analyze()'s volumes") {
  // q4f16_autoawq's scale SW and zero point ZW have one relation: the engine counts it once and both get its
  // figures; the names are positional (X0, X1, ...) in the compile, the volumes return to the named operands. Oracle:
  // tenet::analyze of the tile with the operands' own names, one tile (the user's tile is the whole GEMM).
  const GemmShape s{1, 16, 16, 256, GemmRole::kLinear};
  for (const char* df : {"is", "ncf"})
    for (const char* name : {"q4f16_autoawq", "q4f16_1", "q0f16"}) {
      INFO(df << " " << name);
      auto est = make(8, 8, 1 << 16, df, Objective::kLatency, cost::ArrayMethod::kEngine);
      const auto scheme = quant::parse_scheme(name);
      const cost::GemmCost& c = est.gemm(s, scheme, cost::Tile{16, 16, 256, ""});
      REQUIRE(c.array_model == cost::ArrayModel::kEngine);
      const auto ops =
          quant::array_operands(quant::operands(scheme, quant::GemmRole::kLinear, mapping::dequant_site(est.arch())));
      tenet::AnalyzeOptions ao;
      ao.spatial_reuse = false;
      const tenet::Metrics m = tenet::analyze(mapping::tile_problem(est.arch(), est.dataflow(), 16, 16, 256, ops), ao);
      CHECK(c.time_stamps == m.time_stamps);
      int checked = 0;
      for (const auto& tc : c.tensors) {
        // the reads in the array (the output's buffer figures are its partial sums)
        if (tc.role == quant::OperandRole::kOutput || tc.apply == quant::Apply::kOutput) continue;
        INFO(tc.name);
        const auto t =
            std::find_if(m.tensors.begin(), m.tensors.end(), [&](const auto& x) { return x.name == tc.name; });
        REQUIRE(t != m.tensors.end());
        CHECK(tc.buffer_elems == t->unique_volume);
        ++checked;
        if (tc.apply == quant::Apply::kEdge) continue;
        CHECK(tc.total_elems == t->total_volume);
        CHECK(tc.noc_elems == std::max<std::int64_t>(0, t->temporal_unique_volume - t->unique_volume));
      }
      CHECK(checked == (std::string(name) == "q4f16_autoawq" ? 4 : std::string(name) == "q4f16_1" ? 3 : 2));
    }
}
