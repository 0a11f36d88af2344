// The mapping search (docs/search.md): the winner equals the ordinary estimate path exactly, the best is the best
// of every configuration, the Pareto front is the non-dominated set, and the output does not depend on --jobs.
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cost/arch_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/search.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using quant::GemmRole;

namespace {

model::Model small_model() {
  model::Model m;
  m.name = "small";
  auto add = [&](const char* fn, model::Phase ph, std::int64_t calls, std::int64_t rows, std::int64_t n,
                 std::int64_t k) {
    model::ModelGemm g;
    g.function = fn;
    g.entry = ph == model::Phase::kPrefill ? "prefill" : "decode";
    g.phase = ph;
    g.calls = calls;
    g.shape = cost::GemmShape{1, rows, n, k, GemmRole::kLinear};
    m.gemms.push_back(g);
  };
  // tiny extents: every size is a candidate (docs/search.md), so the search stays fast
  add("qkv", model::Phase::kPrefill, 2, 8, 6, 8);
  add("down", model::Phase::kPrefill, 2, 8, 4, 6);
  add("qkv", model::Phase::kDecode, 2, 1, 6, 8);
  add("down", model::Phase::kDecode, 2, 1, 4, 6);
  return m;
}

std::vector<std::optional<quant::Scheme>> schemes() {
  return {quant::parse_scheme("q0f16"), quant::parse_scheme("q4f16_1"), quant::parse_scheme("w8a8-token-channel")};
}

search::Options options(cost::Objective o) {
  search::Options so;
  so.objective = o;
  so.method = cost::ArrayMethod::kClosedForm;
  so.dataflows = search::parse_dataflows("os,ws");
  so.arrays = search::array_shapes(8);
  so.top = 100;
  return so;
}

double value(const search::Totals& t, cost::Objective o) {
  switch (o) {
    case cost::Objective::kLatency: return t.latency_s;
    case cost::Objective::kEnergy: return t.energy_j;
    case cost::Objective::kEdp: return t.latency_s * t.energy_j;
    case cost::Objective::kDram: return static_cast<double>(t.dram_bytes);
  }
  return 0;
}

// An ordinary Estimator (closed forms) at a configuration's dataflow and array.
std::unique_ptr<cost::Estimator> estimator_at(const arch::Arch& arch, const search::Config& c, cost::Objective o) {
  auto a = arch;
  a.rows = c.rows;
  a.cols = c.cols;
  cost::Options co;
  co.method = cost::ArrayMethod::kClosedForm;
  co.objective = o;
  return std::make_unique<cost::Estimator>(a, mapping::parse_dataflow(c.dataflow), co);
}

}  // namespace

TEST_CASE("array_shapes: every R x C with R * C = budget, R ascending; parse_dataflows") {
  using P = std::pair<std::int64_t, std::int64_t>;
  CHECK(search::array_shapes(12) == std::vector<P>{{1, 12}, {2, 6}, {3, 4}, {4, 3}, {6, 2}, {12, 1}});
  CHECK(search::array_shapes(16) == std::vector<P>{{1, 16}, {2, 8}, {4, 4}, {8, 2}, {16, 1}});
  CHECK(search::array_shapes(7) == std::vector<P>{{1, 7}, {7, 1}});
  CHECK_THROWS_AS(search::array_shapes(0), InputError);
  // both sides within the arch limit (4096): 2^26 was a 1024 x 65536 array; over 2^24 or a large prime: refused
  const auto big = search::array_shapes(std::int64_t{1} << 24);
  CHECK(big == std::vector<P>{{4096, 4096}});
  CHECK(search::array_shapes(std::int64_t{1} << 23) == std::vector<P>{{2048, 4096}, {4096, 2048}});
  CHECK_THROWS_AS(search::array_shapes((std::int64_t{1} << 24) + 1), InputError);
  CHECK_THROWS_AS(search::array_shapes(std::int64_t{1} << 62), InputError);
  CHECK_THROWS_AS(search::array_shapes(4099), InputError);  // a prime over 4096: only 1 x 4099
  CHECK(search::parse_dataflows("presets").size() == mapping::dataflow_presets().size());
  CHECK(search::parse_dataflows("ws,os").front().name == "ws");
  CHECK_THROWS_AS(search::parse_dataflows(","), InputError);
  CHECK_THROWS_AS(search::parse_dataflows("nope"), InputError);
}

TEST_CASE("the search winner equals the ordinary estimate path, and is the best of every configuration") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const model::Phases ph;
  const auto model = small_model();
  for (const auto o : {cost::Objective::kLatency, cost::Objective::kDram}) {
    const search::SearchResult r = search::run(arch, model, ph, schemes(), options(o));
    REQUIRE(r.rows.size() == 3);
    for (const auto& row : r.rows) {
      INFO(row.scheme << " " << cost::to_string(o));
      CHECK(row.configurations == 2 * 4);  // 2 dataflows x 4 arrays of 8 PEs
      REQUIRE(row.top.size() == 8);
      for (const auto& c : row.top) CHECK(value(row.top.front().totals, o) <= value(c.totals, o));
      // re-evaluate the winner with an ordinary Estimator at its dataflow and array
      const search::Config& best = row.top.front();
      const auto ep = estimator_at(arch, best, o);
      cost::Estimator& est = *ep;
      const auto e = model::estimate(est, model, ph, quant::parse_scheme(row.scheme));
      const auto cmp = model::compare(est, model, ph, {quant::parse_scheme(row.scheme)});
      CHECK(cmp.rows.front().prefill.latency_s == best.totals.prefill.latency_s);
      CHECK(cmp.rows.front().decode.latency_s == best.totals.decode.latency_s);
      CHECK(cmp.rows.front().prefill.energy_j == best.totals.prefill.energy_j);
      CHECK(cmp.rows.front().decode.dram_bytes == best.totals.decode.dram_bytes);
      REQUIRE(e.result.rows.size() == best.gemms.size());
      for (std::size_t i = 0; i < best.gemms.size(); ++i) {
        CHECK(e.result.rows[i].second.tile == best.gemms[i].tile);
        CHECK(e.result.rows[i].second.latency_s == best.gemms[i].latency_s);
      }
    }
  }
}

TEST_CASE("the Pareto front is exactly the non-dominated configurations") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const search::SearchResult r =
      search::run(arch, small_model(), model::Phases{}, schemes(), options(cost::Objective::kLatency));
  REQUIRE_FALSE(r.pareto.empty());
  std::vector<std::pair<double, double>> all;
  for (const auto& row : r.rows)
    for (const auto& c : row.top) all.emplace_back(c.totals.latency_s, c.totals.energy_j);
  auto dominated = [&](double l, double e) {
    for (const auto& [l2, e2] : all)
      if (l2 <= l && e2 <= e && (l2 < l || e2 < e)) return true;
    return false;
  };
  for (const auto& p : r.pareto) CHECK_FALSE(dominated(p.latency_s, p.energy_j));
  for (const auto& [l, e] : all) {
    if (dominated(l, e)) continue;
    bool on = false;
    for (const auto& p : r.pareto) on = on || (p.latency_s == l && p.energy_j == e);
    CHECK(on);
  }
  for (std::size_t i = 1; i < r.pareto.size(); ++i) CHECK(r.pareto[i - 1].latency_s < r.pareto[i].latency_s);
}

TEST_CASE("per-GEMM dataflows are never worse than one dataflow for the model; output independent of --jobs") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  auto o = options(cost::Objective::kLatency);
  const auto one = search::run(arch, small_model(), model::Phases{}, schemes(), o);
  o.per_gemm = true;
  const auto per = search::run(arch, small_model(), model::Phases{}, schemes(), o);
  for (std::size_t s = 0; s < one.rows.size(); ++s)
    CHECK(per.rows[s].top.front().totals.latency_s <= one.rows[s].top.front().totals.latency_s * (1 + 1e-12));
  o.per_gemm = false;
  o.jobs = 1;
  const std::string j1 =
      report::render(search::run(arch, small_model(), model::Phases{}, schemes(), o), report::Format::kJson);
  o.jobs = 3;
  const std::string j3 =
      report::render(search::run(arch, small_model(), model::Phases{}, schemes(), o), report::Format::kJson);
  CHECK(j1 == j3);
  CHECK(j1.find("\"pareto\"") != std::string::npos);
}

namespace {

// Every generated mapping (6 loop assignments x 2 fold orders x 9 skews), independent of the generator's loop.
std::vector<mapping::Generated> every_generated() {
  std::vector<mapping::Generated> out;
  for (const char* xy : {"ij", "ik", "ji", "jk", "ki", "kj"})
    for (const char f : {'r', 'c'})
      for (int a = 0; a <= 2; ++a)
        for (int b = 0; b <= 2; ++b) {
          const char t = static_cast<char>('i' + 'j' + 'k' - xy[0] - xy[1]);
          out.push_back(*mapping::parse_generated(std::string("gen:") + xy + "-" + t + "-" + f + "-" +
                                                  std::to_string(a) + std::to_string(b)));
        }
  return out;
}

}  // namespace

TEST_CASE("--dataflows generated|all: each scheme's legal generated maps; search = exhaustive evaluation") {
  const auto arch = tc_test::edge_arch(2, 2, 1 << 10);
  const model::Phases ph;
  const auto model = small_model();
  CHECK(search::parse_dataflow_set("generated").listed.empty());
  CHECK(search::parse_dataflow_set("generated").generated);
  CHECK(search::parse_dataflow_set("all").listed.size() == mapping::dataflow_presets().size());
  CHECK(search::parse_dataflow_set("all").generated);
  CHECK_FALSE(search::parse_dataflow_set("os,gen:ij-k-r-21").generated);
  const auto all = search::parse_dataflow_set("all");
  for (const auto& sch : schemes()) {
    INFO(sch->name);
    // the expected set: presets, then every generated map legal for every GEMM's operands, twins of presets removed
    std::vector<std::string> expect = mapping::dataflow_presets();
    for (const auto& g : every_generated()) {
      bool legal = true;
      for (const auto& mg : model.gemms)
        legal = legal && mapping::is_legal(g, arch.interconnect,
                                           quant::operands(*sch, mg.shape.role, quant::DequantSite::kEdge));
      const bool twin = g.name() == "gen:ij-k-r-11" || g.name() == "gen:kj-i-c-11" || g.name() == "gen:ki-j-c-11";
      if (legal && !twin) expect.push_back(g.name());
    }
    const auto got = search::dataflows_for(all, arch, model, sch);
    std::vector<std::string> names;
    names.reserve(got.size());
    for (const auto& d : got) names.push_back(d.name);
    std::vector<std::string> e_sorted = expect, n_sorted = names;
    std::sort(e_sorted.begin(), e_sorted.end());
    std::sort(n_sorted.begin(), n_sorted.end());
    CHECK(n_sorted == e_sorted);
    CHECK(names.size() >= mapping::dataflow_presets().size() + 8);
  }
  // a small space: the search's best equals the best of evaluating every candidate with an ordinary Estimator
  model::Model one;
  one.name = "one";
  one.gemms = {model.gemms[0], model.gemms[2]};
  search::Options so;
  so.dataflows = all.listed;
  so.generated = true;
  so.top = 1000;
  so.jobs = 2;
  const std::vector<std::optional<quant::Scheme>> two = {quant::parse_scheme("q0f16"), quant::parse_scheme("q4f16_1")};
  const auto r = search::run(arch, one, ph, two, so);
  REQUIRE(r.rows.size() == 2);
  for (std::size_t s = 0; s < 2; ++s) {
    const auto dfs = search::dataflows_for(all, arch, one, two[s]);
    CHECK(r.rows[s].configurations == static_cast<std::int64_t>(dfs.size()));
    double best = 0;
    std::string best_name;
    for (const auto& d : dfs) {
      cost::Estimator est(arch, d, {});
      const auto cmp = model::compare(est, one, ph, {two[s]});
      const double v = cmp.rows.front().prefill.latency_s + cmp.rows.front().decode.latency_s;
      if (best_name.empty() || v < best) {
        best = v;
        best_name = d.name;
      }
      // every configuration the search lists has exactly these totals
      bool found = false;
      for (const auto& c : r.rows[s].top)
        if (c.dataflow == d.name) {
          found = true;
          CHECK(c.totals.prefill.latency_s == cmp.rows.front().prefill.latency_s);
          CHECK(c.totals.decode.energy_j == cmp.rows.front().decode.energy_j);
          CHECK(c.totals.decode.dram_bytes == cmp.rows.front().decode.dram_bytes);
        }
      CHECK(found);
    }
    const auto& w = r.rows[s].top.front();
    CHECK(w.totals.prefill.latency_s + w.totals.decode.latency_s == best);
  }
}

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("tc_search_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

// A replay's GEMMs are the search's: tile, latency, energy and DRAM bytes, exactly.
void check_same_gemms(const model::ModelResult& r, const search::Config& best) {
  REQUIRE(r.rows.size() == best.gemms.size());
  for (std::size_t i = 0; i < best.gemms.size(); ++i) {
    CHECK(r.rows[i].second.tile == best.gemms[i].tile);
    CHECK(r.rows[i].second.latency_s == best.gemms[i].latency_s);
    CHECK(r.rows[i].second.energy_j == best.gemms[i].energy_j);
    CHECK(r.rows[i].second.dram_bytes == best.gemms[i].dram_bytes);
  }
}

}  // namespace

TEST_CASE("estimate --plan replays a saved search exactly; a plan that does not match the model is refused") {
  const model::Phases ph;
  const auto model = small_model();
  // the closed forms on a tight buffer (tiles below the extents), then the engine (is, a generated map: its coarse
  // tile sizes need a larger buffer)
  auto replay_all = [&](const arch::Arch& arch, const char* dataflows) {
    auto o = options(cost::Objective::kLatency);
    o.dataflows = search::parse_dataflows(dataflows);
    o.method = cost::ArrayMethod::kAuto;
    const auto r = search::run(arch, model, ph, schemes(), o);
    const std::string text = report::render(r, report::Format::kJson);
    const std::string path = write_temp("plan.json", text);
    for (std::size_t s = 0; s < r.rows.size(); ++s) {
      const auto& best = r.rows[s].top.front();
      INFO(dataflows << ": " << r.rows[s].scheme << " " << best.dataflow);
      search::Replay rp = search::read_replay(path, model, arch.name, r.rows[s].scheme);
      CHECK(rp.scheme_name == r.rows[s].scheme);
      CHECK(rp.dataflow.name == best.dataflow);
      auto a = arch;
      a.rows = rp.rows;
      a.cols = rp.cols;
      cost::Options co;
      co.rules = rp.rules;
      cost::Estimator est(a, rp.dataflow, co);
      const auto e = model::estimate(est, model, ph, rp.scheme);
      check_same_gemms(e.result, best);
      const auto cmp = model::compare(est, model, ph, {rp.scheme});
      CHECK(cmp.rows.front().prefill.latency_s == best.totals.prefill.latency_s);
      CHECK(cmp.rows.front().decode.energy_j == best.totals.decode.energy_j);
      CHECK(cmp.rows.front().decode.dram_bytes == best.totals.decode.dram_bytes);
    }
    return std::pair{text, path};
  };
  (void)replay_all(tc_test::edge_arch(2, 4, 1 << 10), "is,gen:ij-k-r-21");
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const auto [text, path] = replay_all(arch, "os,ws");
  // several schemes and no --quant: choose one
  CHECK_THROWS_WITH(search::read_replay(path, model, arch.name, ""), Catch::Contains("choose one with --quant"));
  CHECK_THROWS_WITH(search::read_replay(path, model, arch.name, "w4a8"), Catch::Contains("found the plan's schemes"));
  CHECK_THROWS_WITH(search::read_replay(path, model, "tpu-v1", "q0f16"), Catch::Contains("expected arch tpu-v1"));
  // another model: the third GEMM's shape differs -> its location in the plan
  auto other = model;
  other.gemms[2].shape.n = 7;
  try {
    (void)search::read_replay(path, other, arch.name, "q0f16");
    FAIL("a plan for another model was accepted");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("expected GEMM 3 to be qkv in decode 1x7x8 (the model's), found qkv in decode 1x6x8") !=
          std::string::npos);
    CHECK(e.where().file == path);
    CHECK(e.where().line > 1);
    CHECK(e.where().column > 1);
    // the located line opens the third GEMM object of q0f16's best configuration
    std::size_t line = 1, n_obj = 0;
    for (std::size_t i = 0, gemms = text.find("\"gemms\""); i < text.size(); ++i) {
      if (text[i] == '\n') ++line;
      if (i > gemms && text[i] == '{' && ++n_obj == 3) break;
    }
    CHECK(e.where().line == line);
  }
  CHECK_THROWS_WITH(search::read_replay(path, model::Model{}, arch.name, "q0f16"),
                    Catch::Contains("expected 0 GEMMs (the model's), found 4"));
  const std::string bad = write_temp("bad.json", "{\"arch\": \"" + arch.name + "\", \"rows\": 3}");
  CHECK_THROWS_WITH(search::read_replay(bad, model, arch.name, ""),
                    Catch::Contains(bad + ":1:") && Catch::Contains("expected a list for 'rows'"));
  std::filesystem::remove(path);
  std::filesystem::remove(bad);
}

TEST_CASE("compare --search: each scheme's compare row at its own best configuration") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const model::Phases ph;
  const auto model = small_model();
  auto o = options(cost::Objective::kLatency);
  const auto r = search::run(arch, model, ph, schemes(), o);
  const auto c = search::compare_at_best(arch, model, ph, schemes(), o, r);
  REQUIRE(c.rows.size() == 3);
  CHECK_FALSE(c.searched.empty());
  for (std::size_t s = 0; s < 3; ++s) {
    const auto& best = r.rows[s].top.front();
    auto a = arch;
    a.rows = best.rows;
    a.cols = best.cols;
    cost::Options co;
    co.method = o.method;
    cost::Estimator est(a, mapping::parse_dataflow(best.dataflow), co);
    const auto one = model::compare(est, model, ph, {schemes()[s]});
    CHECK(c.rows[s].scheme == one.rows.front().scheme);
    CHECK(c.rows[s].prefill.latency_s == one.rows.front().prefill.latency_s);
    CHECK(c.rows[s].decode.latency_s == best.totals.decode.latency_s);
    CHECK(c.rows[s].decode.energy_j == best.totals.decode.energy_j);
    CHECK(c.rows[s].speedup_vs_first == c.rows[0].decode.latency_s / c.rows[s].decode.latency_s);
    CHECK(c.mappings[s] == best.dataflow + " " + std::to_string(best.rows) + "x" + std::to_string(best.cols));
  }
  const std::string table = report::render(c, report::Format::kTable);
  CHECK(table.find("each scheme at its own best mapping") != std::string::npos);
  o.per_gemm = true;
  CHECK_THROWS_AS(search::compare_at_best(arch, model, ph, schemes(), o, r), InputError);
}

TEST_CASE("CLI: search --format json, then estimate --plan replays it; compare --search") {
  const std::string cfg = tc_test::fixture("estimate/tiny_config.json");
  const std::string common = " --hf-config " + cfg + " --arch eyeriss-12x14 --seq-len 24 --context 40";
  const auto s = tc_test::run_cli("search" + common + " --quant q0f16,q4f16_1 --dataflows os,ws --format json");
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  const std::string plan = write_temp("cli_plan.json", s.out);
  const auto js = nlohmann::json::parse(s.out);
  const auto e = tc_test::run_cli("estimate" + common + " --quant q4f16_1 --plan " + plan + " --format json");
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  const auto je = nlohmann::json::parse(e.out);
  const auto& best = js["rows"][1]["best"];
  REQUIRE(je["workloads"].size() == best["gemms"].size());
  for (std::size_t i = 0; i < best["gemms"].size(); ++i) {
    CHECK(je["workloads"][i]["latency_s"] == best["gemms"][i]["latency_s"]);
    CHECK(je["workloads"][i]["dram_bytes"] == best["gemms"][i]["dram_bytes"]);
  }
  const auto c =
      tc_test::run_cli("compare" + common + " --quant q0f16,q4f16_1 --search --dataflows os,ws --format json");
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const auto jc = nlohmann::json::parse(c.out);
  CHECK(jc["rows"][1]["decode"]["latency_s"] == js["rows"][1]["decode"]["latency_s"]);
  CHECK(jc["rows"][1]["prefill"]["energy_j"] == js["rows"][1]["prefill"]["energy_j"]);
  CHECK(jc["rows"][1]["mapping"].get<std::string>().rfind(best["dataflow"].get<std::string>(), 0) == 0);
  // a mismatching model: another --seq-len changes the prefill shapes
  const auto bad = tc_test::run_cli("estimate --hf-config " + cfg +
                                    " --arch eyeriss-12x14 --seq-len 16 --context 40 --quant q4f16_1 --plan " + plan);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find(plan + ":") != std::string::npos);
  CHECK(bad.err.find("expected GEMM 1 to be") != std::string::npos);
  const auto both = tc_test::run_cli("compare" + common + " --dataflows os");
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("--dataflows needs --search") != std::string::npos);
  std::filesystem::remove(plan);
}

namespace {

// small_model() plus GEMMs of entries that are neither prefill nor decode (a dump's `embed`, --gemm's `gemm`).
model::Model mixed_model() {
  model::Model m = small_model();
  auto add = [&](const char* fn, const char* entry, std::int64_t calls, std::int64_t rows, std::int64_t n,
                 std::int64_t k) {
    model::ModelGemm g;
    g.function = fn;
    g.entry = entry;
    g.phase = model::Phase::kOther;
    g.calls = calls;
    g.shape = cost::GemmShape{1, rows, n, k, GemmRole::kLinear};
    m.gemms.push_back(g);
  };
  add("proj", "embed", 3, 8, 8, 4);
  add("big", "gemm", 5, 8, 8, 8);
  return m;
}

model::Model other_only_model() {
  model::Model m = mixed_model();
  m.gemms.erase(m.gemms.begin(), m.gemms.begin() + 4);
  return m;
}

double phase_value(const model::PhaseSum& p, cost::Objective o) {
  search::Totals t;
  t.latency_s = p.latency_s;
  t.energy_j = p.energy_j;
  t.dram_bytes = p.dram_bytes;
  return value(t, o);
}

}  // namespace

TEST_CASE("entries that are neither prefill nor decode: in the totals, the ranking and every output") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const model::Phases ph;
  for (const bool per_gemm : {false, true})
    for (const auto o : {cost::Objective::kLatency, cost::Objective::kEnergy, cost::Objective::kDram}) {
      auto so = options(o);
      so.per_gemm = per_gemm;
      const auto r = search::run(arch, mixed_model(), ph, schemes(), so);
      CHECK(r.info.has_prefill);
      CHECK(r.info.has_decode);
      for (const auto& row : r.rows) {
        INFO(row.scheme << " " << cost::to_string(o) << " per-gemm " << per_gemm);
        for (const auto& c : row.top) {
          // the objective's total = prefill + decode + each other entry, and the best is the least total
          REQUIRE(c.totals.other.size() == 2);
          CHECK(c.totals.other[0].entry == "embed");
          CHECK(c.totals.other[1].entry == "gemm");
          double sum = phase_value(c.totals.prefill, o) + phase_value(c.totals.decode, o);
          for (const auto& e : c.totals.other) {
            CHECK(e.sum.latency_s > 0);
            sum += phase_value(e.sum, o);
          }
          CHECK(value(c.totals, o) == Approx(sum).epsilon(1e-12));
          CHECK(value(row.top.front().totals, o) <= value(c.totals, o));
        }
        // the other entries' sums are compare's, at the best configuration's dataflow and array
        const auto& best = row.top.front();
        if (per_gemm) continue;
        const auto cmp =
            model::compare(*estimator_at(arch, best, o), mixed_model(), ph, {quant::parse_scheme(row.scheme)});
        REQUIRE(cmp.rows.front().other.size() == 2);
        for (std::size_t i = 0; i < 2; ++i) {
          CHECK(cmp.rows.front().other[i].sum.latency_s == best.totals.other[i].sum.latency_s);
          CHECK(cmp.rows.front().other[i].sum.energy_j == best.totals.other[i].sum.energy_j);
          CHECK(cmp.rows.front().other[i].sum.dram_bytes == best.totals.other[i].sum.dram_bytes);
        }
      }
    }
}

TEST_CASE("the search view: no column for a phase the model has not, the other entries as compare's `entries`") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  auto so = options(cost::Objective::kLatency);
  so.top = 2;
  {
    const auto r = search::run(arch, other_only_model(), model::Phases{}, schemes(), so);
    CHECK_FALSE(r.info.has_prefill);
    CHECK_FALSE(r.info.has_decode);
    const std::string table = report::render(r, report::Format::kTable);
    INFO(table);
    CHECK(table.find("prefill") == std::string::npos);
    CHECK(table.find("decode") == std::string::npos);
    CHECK(table.find("entry") != std::string::npos);
    CHECK(table.find("other entries") == std::string::npos);  // the ranking is the entries table
    const std::string csv = report::render(r, report::Format::kCsv);
    CHECK(csv.substr(0, csv.find('\n')) == "scheme,rank,dataflow,array,entry,ms,mJ,MB");
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 3 * 2 * 2);  // schemes x top 2 x entries
    const auto& b = r.rows[1].top.front();
    const std::string line = "q4f16_1,1," + b.dataflow + "," + std::to_string(b.rows) + "x" + std::to_string(b.cols) +
                             ",gemm," + report::fixed(b.totals.other[1].sum.latency_s * 1e3, 3) + ",";
    CHECK(csv.find(line) != std::string::npos);
    const auto j = nlohmann::json::parse(report::render(r, report::Format::kJson));
    for (std::size_t s = 0; s < 3; ++s) {
      const auto& best = r.rows[s].top.front();
      const auto& entries = j["rows"][s]["entries"];
      REQUIRE(entries.size() == 2);
      CHECK(entries["gemm"]["latency_s"].get<double>() == best.totals.other[1].sum.latency_s);
      CHECK(entries["gemm"]["energy_j"].get<double>() == best.totals.other[1].sum.energy_j);
      CHECK(entries["embed"]["dram_bytes"].get<std::int64_t>() == best.totals.other[0].sum.dram_bytes);
      CHECK(j["rows"][s]["best"]["entries"] == entries);
      CHECK(j["rows"][s]["top"][0]["entries"]["gemm"]["latency_s"].get<double>() ==
            r.rows[s].top[1].totals.other[1].sum.latency_s);
      // compare's keys: prefill and decode stay (zero), as in compare's JSON
      CHECK(j["rows"][s]["prefill"]["latency_s"].get<double>() == 0.0);
    }
  }
  {
    const auto r = search::run(arch, mixed_model(), model::Phases{}, schemes(), so);
    const std::string csv = report::render(r, report::Format::kCsv);
    CHECK(csv.substr(0, csv.find('\n')) ==
          "scheme,rank,dataflow,array,prefill_ms,prefill_J,prefill_GB,decode_ms/step,decode_mJ/step,decode_MB/step,"
          "embed_ms,embed_mJ,embed_MB,gemm_ms,gemm_mJ,gemm_MB");
    const std::string table = report::render(r, report::Format::kTable);
    CHECK(table.find("prefill_ms") != std::string::npos);
    CHECK(table.find("\nother entries\n") != std::string::npos);
    // a plan without other entries: no `entries` key (the output of a prefill/decode model is unchanged)
    const auto j = nlohmann::json::parse(
        report::render(search::run(arch, small_model(), model::Phases{}, schemes(), so), report::Format::kJson));
    CHECK_FALSE(j["rows"][0].contains("entries"));
    CHECK_FALSE(j["rows"][0]["best"].contains("entries"));
  }
}

TEST_CASE("estimate --plan replays a --per-gemm search exactly; a bad GEMM dataflow is refused at its location") {
  const model::Phases ph;
  const auto model = mixed_model();
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  auto o = options(cost::Objective::kLatency);
  o.method = cost::ArrayMethod::kAuto;
  o.per_gemm = true;
  const auto r = search::run(arch, model, ph, schemes(), o);
  const std::string text = report::render(r, report::Format::kJson);
  const std::string path = write_temp("per_gemm_plan.json", text);
  bool mixed_dataflows = false;
  for (std::size_t s = 0; s < r.rows.size(); ++s) {
    const auto& best = r.rows[s].top.front();
    INFO(r.rows[s].scheme);
    REQUIRE(best.dataflow == "per-gemm");
    const search::Replay rp = search::read_replay(path, model, arch.name, r.rows[s].scheme);
    REQUIRE(rp.gemm_dataflows.size() == best.gemms.size());
    std::set<std::string> used;
    for (std::size_t i = 0; i < best.gemms.size(); ++i) {
      CHECK(rp.gemm_dataflows[i].name == best.gemms[i].dataflow);
      used.insert(best.gemms[i].dataflow);
    }
    mixed_dataflows = mixed_dataflows || used.size() > 1;
    cost::Options co;
    co.method = o.method;
    const model::EstimateResult e = search::replay(rp, arch, co, model, ph);
    CHECK(e.info.dataflow == "per-gemm");
    check_same_gemms(e.result, best);
    const model::CompareRow row = model::compare_row("", e.result);
    CHECK(row.prefill.latency_s == best.totals.prefill.latency_s);
    CHECK(row.prefill.energy_j == best.totals.prefill.energy_j);
    CHECK(row.prefill.dram_bytes == best.totals.prefill.dram_bytes);
    CHECK(row.decode.latency_s == best.totals.decode.latency_s);
    CHECK(row.decode.energy_j == best.totals.decode.energy_j);
    CHECK(row.decode.dram_bytes == best.totals.decode.dram_bytes);
    REQUIRE(row.other.size() == best.totals.other.size());
    for (std::size_t i = 0; i < row.other.size(); ++i) {
      CHECK(row.other[i].sum.latency_s == best.totals.other[i].sum.latency_s);
      CHECK(row.other[i].sum.energy_j == best.totals.other[i].sum.energy_j);
      CHECK(row.other[i].sum.dram_bytes == best.totals.other[i].sum.dram_bytes);
    }
  }
  CHECK(mixed_dataflows);  // the replay is not one dataflow in disguise
  // a GEMM's dataflow the tool does not know: refused at that value
  const std::string bad_text = [&] {
    std::string t = text;
    const std::size_t at = t.find("\"dataflow\": \"", t.find("\"gemms\""));
    REQUIRE(at != std::string::npos);
    const std::size_t v = at + std::string("\"dataflow\": \"").size();
    t.replace(v, t.find('"', v) - v, "zz");
    return t;
  }();
  const std::string bad = write_temp("per_gemm_bad.json", bad_text);
  try {
    (void)search::read_replay(bad, model, arch.name, "q0f16");
    FAIL("an unknown dataflow was accepted");
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(e.where().file == bad);
    const std::size_t off = bad_text.find("\"zz\"");
    CHECK(e.where().line == 1 + static_cast<std::size_t>(std::count(
                                    bad_text.begin(), bad_text.begin() + static_cast<std::ptrdiff_t>(off), '\n')));
  }
  // a GEMM of the plan the model does not have
  auto fewer = model;
  fewer.gemms.pop_back();
  CHECK_THROWS_WITH(search::read_replay(path, fewer, arch.name, "q0f16"),
                    Catch::Contains("expected 5 GEMMs (the model's), found 6"));
  std::filesystem::remove(path);
  std::filesystem::remove(bad);
}

TEST_CASE("CLI: search --per-gemm --format json -o plan, then estimate --plan replays it") {
  const std::string cfg = tc_test::fixture("estimate/tiny_config.json");
  const std::string common = " --hf-config " + cfg + " --arch eyeriss-12x14 --seq-len 24 --context 40";
  const std::string plan = write_temp("cli_per_gemm_plan.json", "");
  const auto s =
      tc_test::run_cli("search" + common + " --quant q4f16_1 --dataflows os,ws --per-gemm --format json -o " + plan);
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  std::ifstream in(plan);
  const auto js = nlohmann::json::parse(in);
  const auto e = tc_test::run_cli("estimate" + common + " --plan " + plan + " --format json");
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  const auto je = nlohmann::json::parse(e.out);
  const auto& best = js["rows"][0]["best"];
  CHECK(je["dataflow"] == "per-gemm");
  REQUIRE(je["workloads"].size() == best["gemms"].size());
  for (std::size_t i = 0; i < best["gemms"].size(); ++i) {
    CHECK(je["workloads"][i]["latency_s"] == best["gemms"][i]["latency_s"]);
    CHECK(je["workloads"][i]["energy_j"] == best["gemms"][i]["energy_j"]);
    CHECK(je["workloads"][i]["dram_bytes"] == best["gemms"][i]["dram_bytes"]);
  }
  for (const char* phase : {"prefill", "decode"}) {
    CHECK(je["totals"][phase]["latency_s"] == js["rows"][0][phase]["latency_s"]);
    CHECK(je["totals"][phase]["energy_j"] == js["rows"][0][phase]["energy_j"]);
    CHECK(je["totals"][phase]["dram_bytes"] == js["rows"][0][phase]["dram_bytes"]);
  }
  const auto t = tc_test::run_cli("estimate" + common + " --plan " + plan);
  CHECK(t.exit_code == 0);
  CHECK(t.out.find("each GEMM at its own dataflow from the plan") != std::string::npos);
  std::filesystem::remove(plan);
}

TEST_CASE("the search reports the run as compare does: batch, attention and the plan's notes") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  model::Phases ph;
  ph.batch = 3;
  ph.attention = model::Attention::kUnfused;
  auto model = small_model();
  model.notes = {"a stated assumption", "another"};
  const search::SearchResult r = search::run(arch, model, ph, schemes(), options(cost::Objective::kLatency));
  const auto ep = estimator_at(arch, r.rows.front().top.front(), cost::Objective::kLatency);
  const auto c = model::compare(*ep, model, ph, {quant::parse_scheme("q0f16")});
  CHECK(r.info.batch == c.info.batch);
  CHECK(r.info.attention == c.info.attention);
  CHECK(r.info.notes == c.info.notes);
  CHECK(r.info.seq_len == c.info.seq_len);
  CHECK(r.info.context == c.info.context);
  const std::string text = report::render(r, report::Format::kTable);
  CHECK(text.find("batch 3, unfused attention") != std::string::npos);
  CHECK(text.find("note: a stated assumption\nnote: another\n") != std::string::npos);
  const auto j = nlohmann::json::parse(report::render(r, report::Format::kJson));
  CHECK(j["batch"] == 3);
  CHECK(j["attention"] == "unfused");
  CHECK(j["notes"] == nlohmann::json(model.notes));
}

TEST_CASE("a candidate over the engine's limits is skipped with a note; a scheme with none left is an error") {
  const auto arch = tc_test::edge_arch(2, 4, 1 << 8);
  const model::Phases ph;
  const auto model = small_model();
  search::Options o = options(cost::Objective::kLatency);
  o.method = cost::ArrayMethod::kAuto;  // os by its closed forms, ncf by the engine
  o.dataflows = search::parse_dataflows("os,ncf");
  o.arrays = {{2, 4}};
  o.engine_max_points = 1;  // no engine count fits: every ncf candidate fails
  const std::vector<std::optional<quant::Scheme>> one = {quant::parse_scheme("q0f16")};
  const search::SearchResult r = search::run(arch, model, ph, one, o);
  REQUIRE(r.rows.size() == 1);
  CHECK(r.rows[0].configurations == 1);  // os only
  CHECK(r.rows[0].top.front().dataflow == "os");
  const auto skipped = std::count_if(r.info.notes.begin(), r.info.notes.end(), [](const std::string& n) {
    return n.rfind("search skipped ncf on 2x4 for q0f16: ", 0) == 0;
  });
  CHECK(skipped == 1);
  // per-GEMM choice: each GEMM from the dataflows that were evaluated
  o.per_gemm = true;
  const search::SearchResult pg = search::run(arch, model, ph, one, o);
  REQUIRE(pg.rows[0].top.size() == 1);
  for (const auto& g : pg.rows[0].top.front().gemms) CHECK(g.dataflow == "os");
  // nothing left to rank: the candidate's own error
  o.per_gemm = false;
  o.dataflows = search::parse_dataflows("ncf");
  CHECK_THROWS_AS(search::run(arch, model, ph, one, o), InputError);
  CHECK_THROWS_AS(cost::checked_engine_points(0), InputError);
}
