// Benchmark of GEMM extraction.
//
//   bench_extract FILE...    parse + extract, and extract alone, 30 runs each: min / median ms
//                            (fixture 01, ../shared/fixtures/real/01_mlc_llama2_13b_q4f16_1_batched_whole_module.py,
//                            348 KB: target <= 30 ms total)
//   bench_extract --synthetic MB FILE [RUNS]
//                            FILE's functions repeated under new names up to MB megabytes (as
//                            bench_parse_tvmscript --synthetic), parsed once, then extracted RUNS times
//                            (default 7): min / median ms and MB/s of input (fixture 01, 50 MB: target <= 100 ms)
// A missing file stops it with exit 2.
//
// TC_EXTRACT_THREADS=N sets the extraction's threads (1: serial; default: the hardware threads, at most 8).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "synthetic.hpp"
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

using bench::synthetic;

constexpr const char* kName = "bench_extract";

int bench_synthetic(double mb, const std::string& file, int runs) {
  const std::string text = synthetic(file, static_cast<std::size_t>(mb * 1e6));
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

int bench_main(int argc, char** argv) {
  std::vector<std::string> files(argv + 1, argv + argc);
  if (!files.empty() && files[0] == "--synthetic") {
    if (files.size() < 3 || files.size() > 4) bench::fail(kName, "expected --synthetic MB FILE [RUNS]");
    const double mb = bench::positive(kName, files[1], "MB");
    const int runs = files.size() > 3 ? bench::count(kName, files[3], "RUNS") : 7;
    return bench_synthetic(mb, bench::require_file(kName, files[2], "the dump to repeat"), runs);
  }
  if (files.empty()) bench::fail(kName, "expected one or more TVMScript dumps (e.g. ../shared/fixtures/real/01_*.py)");
  for (const auto& path : files) bench::require_file(kName, path, "a TVMScript dump");
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
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
