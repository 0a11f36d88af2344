// bench_compare: `tenet-cost compare` of Llama-2-7B (prefill 2048 + decode at context 2048) over the
// six default schemes on the default arch; target <= 2 s. Prints the wall time of each stage.
//   bench_compare [--array-model auto|engine|closed-form] [--repeat N]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;
using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int main(int argc, char** argv) {
  std::string method = "auto";
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--array-model")) method = argv[i + 1];
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
  }
  const std::string dir = std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/";
  const char* schemes[] = {"q0f16", "q4f16_1", "q4f16_autoawq", "w8a8-token-channel", "w4a8-g128", "fp8-tensor"};
  try {
    for (int rep = 0; rep < repeat; ++rep) {
      const auto t0 = Clock::now();
      model::Phases ph;
      const std::string source = "dump";
      const auto gemms = model::default_model(std::string(TC_SOURCE_DIR) + "/workloads", ph).gemms;
      const double t_load = ms_since(t0);
      const auto t1 = Clock::now();
      cost::Options o;
      o.method = cost::parse_array_method(method);
      cost::Estimator est(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                          mapping::parse_dataflow("os"), o);
      double decode_s = 0;
      for (const char* s : schemes) {
        const auto r = model::run_model(est, gemms, quant::parse_scheme(s));
        decode_s += r.totals.at("decode").latency_s;
      }
      const double t_model = ms_since(t1);
      std::printf("bench_compare: llama-2-7b, 6 schemes, prefill 2048 + decode@2048, array model %s, workloads from %s: "
                  "load %.1f ms, model %.1f ms, total %.1f ms (%lld array evaluations, %zu workloads; checksum %.6f)\n",
                  method.c_str(), source.c_str(), t_load, t_model, ms_since(t0),
                  static_cast<long long>(est.array_evaluations()), gemms.size(), decode_s);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_compare: %s\n", e.what());
    return 1;
  }
  return 0;
}
