// Benchmark of GEMM extraction.
//
//   bench_extract            fixture 01 (348 KB Llama-2-13B q4f16_1 module): parse + extract,
//                            and extract alone, 30 runs each: min / median ms (target <= 30 ms total)
//   bench_extract FILE...    the same for the given dumps
//   bench_extract --synthetic MB [RUNS]
//                            fixture 01's functions repeated under new names up to MB megabytes (as
//                            bench_parse_tvmscript --synthetic), parsed once, then extracted RUNS times
//                            (default 7): min / median ms and MB/s of input (target: 50 MB <= 100 ms)
//
// TC_EXTRACT_THREADS=N sets the extraction's threads (1: serial; default: the hardware threads, at most 8).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "synthetic.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void report(const char* what, std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  std::printf("  %-16s min %8.3f ms   median %8.3f ms\n", what, v.front(), v[v.size() / 2]);
}

using bench::fixture01;
using bench::synthetic;


int bench_synthetic(double mb, int runs) {
  const std::string text = synthetic(fixture01(), static_cast<std::size_t>(mb * 1e6));
  const double size_mb = static_cast<double>(text.size()) / 1e6;
  const auto mod = tenet_cost::ir::parse_tvmscript(text, "synthetic.py");
  std::vector<double> ms;
  std::size_t n = 0;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    const auto r = tenet_cost::extract_workloads(mod);
    ms.push_back(ms_since(t0));
    n = r.workloads.size();
  }
  std::printf("synthetic: %.1f MB, %zu prim_funcs, %zu Relax functions, %zu workloads\n", size_mb,
              mod.prim_funcs.size(), mod.relax_funcs.size(), n);
  std::sort(ms.begin(), ms.end());
  std::printf("  extract          min %8.3f ms   median %8.3f ms   (%.1f MB/s at the median)\n", ms.front(),
              ms[ms.size() / 2], size_mb / (ms[ms.size() / 2] / 1e3));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.emplace_back(argv[i]);
  try {
    if (!files.empty() && files[0] == "--synthetic") {
      const double mb = files.size() > 1 ? std::atof(files[1].c_str()) : 50.0;
      const int runs = files.size() > 2 ? std::max(1, std::atoi(files[2].c_str())) : 7;
      return bench_synthetic(mb, runs);
    }
    if (files.empty()) files.push_back(fixture01());
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
