// bench_report: the HTML report of `compare --format html` (per-scheme breakdowns and rooflines included) for a
// model over the six default schemes on the default arch; target: report generation <= 1 s.
//   bench_report DATA_DIR [--repeat N]     (DATA_DIR: the source tree, holding workloads/ and configs/arch)
// Prints the model time (compare + per-scheme estimates) and the report time (results -> ReportDoc -> HTML).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "args.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/report_html.hpp"

using namespace tenet_cost;
using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

namespace {
constexpr const char* kName = "bench_report";

int bench_main(int argc, char** argv) {
  if (argc != 2 && argc != 4)
    bench::fail(kName, "expected DATA_DIR [--repeat N] (DATA_DIR: the source tree, with workloads/ and configs/arch)");
  const std::string root = bench::require_dir(kName, argv[1], "the data folder (the source tree)");
  const std::string workloads = bench::require_dir(kName, root + "/workloads", "the shipped models");
  const std::string presets = bench::require_dir(kName, root + "/configs/arch", "the arch presets");
  int repeat = 3;
  if (argc == 4) {
    if (std::strcmp(argv[2], "--repeat") != 0) bench::fail(kName, std::string("unknown option '") + argv[2] + "'");
    repeat = bench::count(kName, argv[3], "--repeat");
  }
  const model::Phases ph;
  const model::Model plan = model::default_model(workloads, ph);
  cost::Estimator est(arch::load_arch(arch::default_arch(), presets), mapping::parse_dataflow("os"));
  const auto schemes = model::compare_schemes("", false);
  const auto t0 = Clock::now();
  const auto result = model::compare(est, plan, ph, schemes);
  std::vector<model::EstimateResult> per;
  per.reserve(schemes.size());
  for (const auto& s : schemes) per.push_back(model::estimate(est, plan, ph, s));
  const double t_model = ms_since(t0);
  for (int rep = 0; rep < repeat; ++rep) {
    const auto t1 = Clock::now();
    const std::string html = report::html::render(report::html::compare_doc(result, per, est.arch()));
    std::printf("bench_report: %s, %zu schemes, %zu workloads: model %.1f ms (first run), report %.2f ms, %zu bytes\n",
                plan.name.c_str(), schemes.size(), plan.gemms.size(), t_model, ms_since(t1), html.size());
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
