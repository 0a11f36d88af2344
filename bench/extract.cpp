// Benchmark of GEMM extraction.
//
//   bench_extract            fixture 01 (348 KB Llama-2-13B q4f16_1 module): parse + extract,
//                            and extract alone, 30 runs each: min / median ms (target <= 30 ms total)
//   bench_extract FILE...    the same for the given dumps
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void report(const char* what, std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  std::printf("  %-16s min %8.3f ms   median %8.3f ms\n", what, v.front(), v[v.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.emplace_back(argv[i]);
  if (files.empty())
    files.push_back(std::string(TC_SHARED_DIR) + "/fixtures/real/01_mlc_llama2_13b_q4f16_1_batched_whole_module.py");
  try {
    for (const auto& path : files) {
      const std::string text = tenet_cost::read_file(path);
      std::vector<double> total, extract_only;
      std::size_t n = 0;
      for (int i = 0; i < 30; ++i) {
        const auto t0 = Clock::now();
        const auto mod = tenet_cost::ir::parse_tvmscript(text, path);
        const auto t1 = Clock::now();
        const auto r = tenet_cost::extract_workloads(mod);
        total.push_back(ms_since(t0));
        extract_only.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t1).count());
        n = r.workloads.size();
      }
      std::printf("%s: %zu bytes, %zu workloads\n", path.c_str(), text.size(), n);
      report("parse+extract", total);
      report("extract only", extract_only);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_extract: %s\n", e.what());
    return 1;
  }
  return 0;
}
