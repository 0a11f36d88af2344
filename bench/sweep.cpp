// bench_sweep: `tenet-cost sweep` of a spec file in memory (no results file), timed; target: the 1,000-point
// bench/sweep-1000.json (the shipped models, closed-form dataflows) <= 30 s on the 2-core machine.
//   bench_sweep DATA_DIR SPEC.json [--jobs N] [--repeat N]   (DATA_DIR: the source tree, with workloads/, configs/arch)
// Prints wall and CPU time (getrusage), points, models parsed, Estimators built and a checksum of the lines.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "args.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/sweep.hpp"

using namespace tenet_cost;

static double cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

namespace {
constexpr const char* kName = "bench_sweep";

int bench_main(int argc, char** argv) {
  if (argc < 3 || argc % 2 != 1)
    bench::fail(kName, "expected DATA_DIR SPEC.json [--jobs N] [--repeat N] (DATA_DIR: the source tree)");
  const std::string root = bench::require_dir(kName, argv[1], "the data folder (the source tree)");
  const std::string spec = bench::require_file(kName, argv[2], "the sweep spec");
  unsigned jobs = 0;
  int repeat = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--jobs")) jobs = static_cast<unsigned>(bench::count(kName, argv[i + 1], "--jobs"));
    else if (!std::strcmp(argv[i], "--repeat")) repeat = bench::count(kName, argv[i + 1], "--repeat");
    else bench::fail(kName, std::string("unknown option '") + argv[i] + "'");
  }
  const sweep::Grid grid = sweep::parse_spec(read_file(spec), spec);
  sweep::RunOptions opt;
  opt.presets_dir = bench::require_dir(kName, root + "/configs/arch", "the arch presets");
  opt.workloads_dir = bench::require_dir(kName, root + "/workloads", "the shipped models");
  opt.jobs = jobs;
  for (int r = 0; r < repeat; ++r) {
    const double c0 = cpu_s();
    const auto t0 = std::chrono::steady_clock::now();
    const auto sum = sweep::run(grid, opt);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::uint64_t check = 0;
    sum.lines.each([&check](const std::string& l) { check = check * 31 + std::hash<std::string>{}(l); });
    std::printf(
        "bench_sweep: %s: %lld points (%zu errors), %zu models parsed, %zu estimators, jobs %u: wall %.2f s, "
        "CPU %.2f s, %.1f points/s wall (checksum %016llx)\n",
        spec.c_str(), static_cast<long long>(sum.points), sum.errors, sum.models_loaded, sum.estimators, jobs, wall,
        cpu_s() - c0, static_cast<double>(sum.evaluated) / wall, static_cast<unsigned long long>(check));
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
