// bench_compare: `tenet-cost compare` of Llama-2-7B (prefill 2048 + decode at context 2048) over the
// six default schemes on the default arch; target <= 2 s. Prints the wall time of each stage.
//   bench_compare [--array-model auto|engine|closed-form] [--repeat N] DATA_DIR
// DATA_DIR is the folder holding workloads/llama-2-7b/{config.json,q0f16.py} and
// configs/arch/<the default arch>.json: the source tree. A missing file stops it with exit 2.
#include <chrono>
#include <cstdio>
#include <string>

#include "args.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kName = "bench_compare";

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int bench_main(int argc, char** argv) {
  std::string method = "auto";
  int repeat = 3;
  std::string root;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--array-model" || a == "--repeat") && i + 1 == argc) bench::fail(kName, "expected a value after " + a);
    if (a == "--array-model") method = argv[++i];
    else if (a == "--repeat") repeat = bench::count(kName, argv[++i], "--repeat");
    else if (root.empty() && !a.starts_with("-")) root = a;
    else bench::fail(kName, "unexpected argument '" + a + "'");
  }
  const auto [workloads, presets] = bench::require_llama_tree(kName, root, arch::default_arch());
  const char* schemes[] = {"q0f16", "q4f16_1", "q4f16_autoawq", "w8a8-token-channel", "w4a8-g128", "fp8-tensor"};
  for (int rep = 0; rep < repeat; ++rep) {
    const auto t0 = Clock::now();
    const model::Phases ph;
    const auto gemms = model::default_model(workloads, ph).gemms;
    const double t_load = ms_since(t0);
    const auto t1 = Clock::now();
    cost::Options o;
    o.method = cost::parse_array_method(method);
    cost::Estimator est(arch::load_arch(arch::default_arch(), presets), mapping::parse_dataflow("os"), o);
    double decode_s = 0;
    for (const char* s : schemes) {
      const auto r = model::run_model(est, gemms, quant::parse_scheme(s));
      decode_s += r.totals.at("decode").latency_s;
    }
    const double t_model = ms_since(t1);
    std::printf(
        "bench_compare: llama-2-7b, 6 schemes, prefill 2048 + decode@2048, array model %s, workloads from dump: "
        "load %.1f ms, model %.1f ms, total %.1f ms (%lld array evaluations, %zu workloads; checksum %.6f)\n",
        method.c_str(), t_load, t_model, ms_since(t0), static_cast<long long>(est.array_evaluations()), gemms.size(),
        decode_s);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
