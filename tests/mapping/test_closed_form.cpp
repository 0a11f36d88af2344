// The closed forms' capability is typed: nullopt where a preset has none or an operand pattern has no proven row,
// and the cost model then falls back to the engine (never by reading an error message).
#include <catch2/catch.hpp>

#include "cost/arch_support.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;
using quant::Operand;
using quant::OperandRole;

namespace {

std::vector<Operand> gemm_ops() {
  return quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
}

// A weight scale indexed by a pattern no closed form covers: SW[floor(k/4), j] (groups along K first).
std::vector<Operand> odd_ops() {
  auto ops = gemm_ops();
  ops.insert(ops.end() - 1, Operand{"SW", OperandRole::kScale, {{'k', 4}, {'j', 1}}, 16, 1, false});
  return ops;
}

}  // namespace

TEST_CASE("the preset table: names, aliases, closed-form capability, choices text") {
  CHECK(mapping::dataflow_presets() == std::vector<std::string>{"os", "ws", "is", "ncf"});
  for (const auto& row : mapping::presets()) {
    const auto d = mapping::parse_dataflow(std::string(row.name));
    REQUIRE(d.preset);
    CHECK(*d.preset == row.id);
    CHECK(d.has_closed_form() == row.closed_form);
    if (!row.long_name.empty()) CHECK(mapping::parse_dataflow(std::string(row.long_name)).name == row.name);
  }
  CHECK(mapping::dataflow_choices() ==
        "os (output-stationary), ws (weight-stationary), is (input-stationary), ncf, a generated mapping "
        "gen:<xy>-<t>-<r|c>-<skews> (docs/model.md), or a path to a TENET .m mapping file");
}

TEST_CASE("closed_form_tile: nullopt for presets without closed forms and for unproven operand patterns") {
  CHECK(mapping::closed_form_tile(mapping::Preset::kOS, 4, 4, 8, 8, 8, gemm_ops()));
  CHECK(mapping::closed_form_tile(mapping::Preset::kWS, 4, 4, 8, 8, 8, gemm_ops()));
  CHECK_FALSE(mapping::closed_form_tile(mapping::Preset::kIS, 4, 4, 8, 8, 8, gemm_ops()));
  CHECK_FALSE(mapping::closed_form_tile(mapping::Preset::kNCF, 4, 4, 8, 8, 8, gemm_ops()));
  CHECK_FALSE(mapping::closed_form_tile(mapping::Preset::kOS, 4, 4, 8, 8, 8, odd_ops()));
}

TEST_CASE("auto falls back to the engine where a closed form is missing, and agrees with a forced engine run") {
  // a scheme whose operand pattern has no closed form is simulated by a custom statement: compare the tile metrics of
  // the engine with what the cost model reports through the array model it chose
  const arch::Arch a = tc_test::edge_arch(4, 4, 1 << 20);
  const auto df = mapping::parse_dataflow("os");
  const auto ops = odd_ops();
  const tenet::Metrics m = tenet::analyze(mapping::tile_problem(a, df, 8, 8, 8, ops), {});
  CHECK(m.macs == 512);
  // every shipped scheme has closed-form rows under os: auto uses them
  cost::Estimator est(a, df, {});
  const auto& c = est.gemm(cost::GemmShape{1, 8, 8, 8, quant::GemmRole::kLinear}, quant::parse_scheme("q4f16_1"));
  CHECK(c.array_model == cost::ArrayModel::kClosedForm);
  // the input-stationary preset has none: auto runs the engine, the closed-form method refuses
  cost::Estimator is_auto(a, mapping::parse_dataflow("is"), {});
  CHECK(is_auto.gemm(cost::GemmShape{1, 8, 8, 8}, quant::parse_scheme("q0f16")).array_model == cost::ArrayModel::kEngine);
  cost::Options cf;
  cf.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator is_cf(a, mapping::parse_dataflow("is"), cf);
  CHECK_THROWS_WITH(is_cf.gemm(cost::GemmShape{1, 8, 8, 8}, quant::parse_scheme("q0f16")),
                    Catch::Contains("use --array-model engine"));
}

TEST_CASE("a .m dataflow goes through TENET's loader: its own line numbers after blank lines") {
  const std::string path = std::string(TC_FIXTURE_DIR) + "/tenet/small/g_os.m";
  const auto d = mapping::parse_dataflow(path);
  CHECK_FALSE(d.preset);
  CHECK(d.file_mapping.space_map.loc.file == path);
  CHECK(d.mapping(4, 4).time_map.text == d.file_mapping.time_map.text);
}

TEST_CASE("preset_time_stamps (the tile search's compute bound) equals the closed forms' and the engine's stamps") {
  const auto ops = gemm_ops();
  for (const mapping::Preset p : {mapping::Preset::kOS, mapping::Preset::kWS})
    for (const std::int64_t rows : {1, 3, 8})
      for (const std::int64_t cols : {1, 4, 7})
        for (const std::int64_t tm : {1, 2, 5, 16, 33})
          for (const std::int64_t tn : {1, 3, 8, 29})
            for (const std::int64_t tk : {1, 2, 9, 64}) {
              INFO(mapping::info(p).name << " " << rows << "x" << cols << " tile " << tm << "x" << tn << "x" << tk);
              const auto m = mapping::closed_form_tile(p, rows, cols, tm, tn, tk, ops);
              REQUIRE(m);
              CHECK(mapping::preset_time_stamps<std::int64_t>(p, rows, cols, tm, tn, tk) == m->time_stamps);
              CHECK(mapping::preset_time_stamps<i128>(p, rows, cols, tm, tn, tk) == m->time_stamps);
            }
  // every preset against the engine's |TD| (brute force over the instances), on a systolic and a mesh array
  for (const char* df : {"os", "ws", "is", "ncf"})
    for (const auto ic : {arch::Interconnect::kSystolic, arch::Interconnect::kMesh})
      for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{3, 4}, {4, 2}, {1, 5}})
        for (const std::int64_t tm : {1, 4, 7})
          for (const std::int64_t tn : {1, 5, 9})
            for (const std::int64_t tk : {1, 3, 10}) {
              arch::Arch a = tc_test::edge_arch(rows, cols, 1 << 16);
              a.interconnect = ic;
              const mapping::Dataflow d = mapping::parse_dataflow(df);
              INFO(df << " " << rows << "x" << cols << " tile " << tm << "x" << tn << "x" << tk);
              tenet::AnalyzeOptions ao;
              ao.enumerate = true;
              ao.spatial_reuse = false;
              const auto m = tenet::analyze(mapping::tile_problem(a, d, tm, tn, tk, ops), ao);
              CHECK(mapping::preset_time_stamps<std::int64_t>(*d.preset, rows, cols, tm, tn, tk) == m.time_stamps);
            }
}
