// bench_report: the HTML report of `compare --format html` (per-scheme breakdowns and rooflines included) for a
// model over the six default schemes on the default arch; target: report generation <= 1 s.
//   bench_report [WORKLOADS_DIR] [--repeat N]     (default: the shipped workloads/, i.e. Llama-2-7B)
// Prints the model time (compare + per-scheme estimates) and the report time (results -> ReportDoc -> HTML).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

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

int main(int argc, char** argv) {
  std::string workloads = std::string(TC_SOURCE_DIR) + "/workloads";
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      workloads = argv[i];
    }
  }
  try {
    const model::Phases ph;
    const model::Model plan = model::default_model(workloads, ph);
    cost::Estimator est(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                        mapping::parse_dataflow("os"));
    const auto schemes = model::compare_schemes("", false);
    const auto t0 = Clock::now();
    const auto result = model::compare(est, plan, ph, schemes);
    std::vector<model::EstimateResult> per;
    for (const auto& s : schemes) per.push_back(model::estimate(est, plan, ph, s));
    const double t_model = ms_since(t0);
    for (int rep = 0; rep < repeat; ++rep) {
      const auto t1 = Clock::now();
      const std::string html = report::html::render(report::html::compare_doc(result, per, est.arch()));
      std::printf("bench_report: %s, %zu schemes, %zu workloads: model %.1f ms (first run), report %.2f ms, %zu bytes\n",
                  plan.name.c_str(), schemes.size(), plan.gemms.size(), t_model, ms_since(t1), html.size());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_report: %s\n", e.what());
    return 1;
  }
  return 0;
}
