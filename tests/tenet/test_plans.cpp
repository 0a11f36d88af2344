// Golden traces of the counter's plans (issue 26 step 0): per problem, the `DebugLevel::kCount` lines (periods,
// windows, bases, compressed / virtual / block / free dimensions of every group, self-check failures, floor-divisor
// interpolations), `instances_counted` and `self_check_retries`. A change that moves code must leave them identical:
// a different plan means a different speed even when the counts agree. The traces live in
// tests/fixtures/tenet/plans/; `TC_UPDATE_PLANS=1 build/tests/test_tenet "[plans]"` rewrites them (then review
// `git diff tests/fixtures/tenet/plans` and say why in the commit message, as for the goldens).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cost/arch_support.hpp"
#include "tenet/shared_fixtures.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/tenet.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
namespace fs = std::filesystem;

namespace {

/// The plan of one analyze(): its debug lines and the two counters of the effort.
std::string analyze_trace(const tenet::Problem& prob) {
  std::string out;
  tenet::AnalyzeOptions o;
  o.debug = tenet::DebugLevel::kCount;
  o.debug_log = [&](const std::string& line) { out += line + "\n"; };
  const tenet::Metrics m = tenet::analyze(prob, o);
  out += "instances_counted " + std::to_string(m.instances_counted) + "\n";
  out += "self_check_retries " + std::to_string(m.self_check_retries) + "\n";
  return out;
}

/// The plans of compile_parametric() at the template's extents, then of the slow path of evaluate() at `further`.
std::string parametric_trace(const tenet::Problem& prob, const std::vector<std::int64_t>& further) {
  std::string out;
  tenet::AnalyzeOptions o;
  o.debug = tenet::DebugLevel::kCount;
  o.debug_log = [&](const std::string& line) { out += line + "\n"; };
  const tenet::CompiledProblem c = tenet::compile_parametric(prob, o);
  out += "closed_forms " + std::to_string(c.closed_forms()) + "\n";
  out += "-- evaluate at";
  for (const auto e : further) out += " " + std::to_string(e);
  out += "\n";
  const tenet::Metrics m = tenet::evaluate(c, further);
  out += "instances_counted " + std::to_string(m.instances_counted) + "\n";
  out += "self_check_retries " + std::to_string(m.self_check_retries) + "\n";
  out += "closed_forms " + std::to_string(c.closed_forms()) + "\n";
  return out;
}

/// The trace, or the refusal (a limit is part of the plan too).
template <class F>
std::string or_refusal(F&& trace) {
  try {
    return trace();
  } catch (const InputError& e) {
    return std::string("refused: ") + e.what() + "\n";
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool updating() {
  const char* u = std::getenv("TC_UPDATE_PLANS");
  return u != nullptr && std::string(u) == "1";
}

/// Compare (or with TC_UPDATE_PLANS=1 rewrite) tests/fixtures/tenet/plans/<name>.txt, case by case.
void check_traces(const std::string& name, const std::vector<std::pair<std::string, std::string>>& cases) {
  std::string got;
  for (const auto& [title, trace] : cases) got += "### " + title + "\n" + trace;
  const std::string path = tc_test::fixture("tenet/plans/" + name + ".txt");
  if (updating()) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << got;
    WARN("rewrote " << path);
    return;
  }
  REQUIRE(fs::exists(path));
  const std::string want = slurp(path);
  if (got == want) {
    SUCCEED();
    return;
  }
  // Name the first case that differs, with both traces.
  std::map<std::string, std::string> w;
  std::istringstream in(want);
  std::string line, title;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) {
      title = line.substr(4);
      w[title];
    } else {
      w[title] += line + "\n";
    }
  }
  for (const auto& [t, trace] : cases) {
    INFO("plan trace of " << t << " (" << path << ")\n--- want:\n" << w[t] << "--- got:\n" << trace);
    CHECK(w.count(t) == 1);
    CHECK(trace == w[t]);
  }
  CHECK(cases.size() == w.size());
}

}  // namespace

TEST_CASE("counter plans: TENET's small cases", "[plans]") {
  const std::string dir = tc_test::fixture("tenet/small");
  std::istringstream in(slurp(dir + "/tenet_small.txt"));
  std::vector<std::pair<std::string, std::string>> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) != 0) continue;
    std::istringstream hs(line.substr(4));
    std::string p, s, m;
    hs >> p >> s >> m;
    cases.emplace_back(line.substr(4), analyze_trace(tenet::load_problem(dir + "/" + p, dir + "/" + s, dir + "/" + m)));
  }
  REQUIRE(cases.size() == 5);
  check_traces("small", cases);
}

TEST_CASE("counter plans: the shipped experiments and GEMM anchors (../shared)", "[plans]") {
  const std::string root = tc_test::shared_or_skip("fixtures/tenet");
  if (root.empty()) return;
  std::vector<std::pair<std::string, std::string>> cases;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(root + "/expected/all_metrics_int64"))
    if (e.path().extension() == ".out") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string stem = f.stem().string();
    const auto sep = stem.find("__");
    const std::string set = stem.substr(0, sep), ex = stem.substr(sep + 2);
    cases.emplace_back(
        stem, analyze_trace(tenet::load_experiment(root + "/data/" + set + "/experiment/" + ex, root + "/data")));
  }
  REQUIRE(cases.size() == 52);
  for (int N : {256, 4096})
    for (const char* a : {"8x8", "16x16"}) {
      const std::string in = root + "/anchors/inputs/";
      cases.emplace_back(
          "gemm_" + std::to_string(N) + "_os_" + a,
          analyze_trace(tenet::load_problem(in + "systolic_" + a + ".p", in + "gemm_" + std::to_string(N) + ".s",
                                            in + "gemm_os_" + a + ".m")));
    }
  check_traces("shared", cases);
}

TEST_CASE("counter plans: os/ws/is/ncf GEMM tiles with group and block scales", "[plans]") {
  // The statement of a group scale (w4a16-g128) and of block scales (fp8: the scale of a group-applied operand
  // ends in `: k mod g = 0`), 128 x 128 blocks analyzed only (their parametric forms are refused by the point
  // limit after seconds of work), 32 x 32 blocks parametric too.
  struct Case {
    const char* scheme;
    std::int64_t tm, tn, tk;
    bool parametric;
  };
  const std::vector<Case> list = {{"w4a16-g128", 128, 512, 256, true},
                                  {"w4a16-g128", 64, 96, 384, true},
                                  {"fp8-block128x128", 64, 96, 384, false},
                                  {"fp8-block32x32", 64, 96, 384, true}};
  std::vector<std::pair<std::string, std::string>> cases;
  const arch::Arch a = tc_test::edge_arch(32, 32, 1 << 20);
  for (const auto& c : list)
    for (const char* df : {"os", "ws", "is", "ncf"}) {
      const auto ops = quant::array_operands(
          quant::operands(quant::parse_scheme(c.scheme), quant::GemmRole::kLinear, quant::DequantSite::kEdge));
      const auto prob = mapping::tile_problem(a, mapping::parse_dataflow(df), c.tm, c.tn, c.tk, ops);
      const std::string title = std::string(df) + " " + c.scheme + " " + std::to_string(c.tm) + "x" +
                                std::to_string(c.tn) + "x" + std::to_string(c.tk);
      cases.emplace_back(title + " analyze", or_refusal([&] { return analyze_trace(prob); }));
      if (c.parametric)
        cases.emplace_back(title + " parametric", or_refusal([&] {
                             return parametric_trace(prob, {c.tm - 8, c.tn + 16, c.tk});
                           }));
    }
  check_traces("gemm", cases);
}
