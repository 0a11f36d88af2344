// bench_tenet_engine: wall time of every metric of each GEMM anchor, an LLM-size
// GEMM and all shipped TENET experiments; peak RSS of the process.
//   ./build/bench/bench_tenet_engine TENET_FIXTURES      (e.g. ../shared/fixtures/tenet: anchors/inputs, data)
// A missing folder stops it with exit 2.
// Plus parametric counting: the first compile of a tile, then microseconds per further tile; last, the
// estimator's ncf g128 tile with and without outer blocks (docs/tenet-engine.md §3).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "args.hpp"
#include "tenet_cost/tenet.hpp"

namespace fs = std::filesystem;
using namespace tenet_cost;

namespace {
long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

double cpu_ms() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return (static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
          static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}

struct Timing {
  double wall = 1e300, cpu = 1e300;
};

/// Best of `reps` runs: wall-clock and CPU (user + system) milliseconds.
template <class F>
Timing time_ms(F&& f, int reps) {
  Timing best;
  for (int r = 0; r < reps; ++r) {
    const double c0 = cpu_ms();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_ms();
    best.wall = std::min(best.wall, std::chrono::duration<double, std::milli>(t1 - t0).count());
    best.cpu = std::min(best.cpu, c1 - c0);
  }
  return best;
}

tenet::Problem gemm(long long M, long long N, long long K, int R) {
  const std::string r = std::to_string(R);
  return tenet::make_problem(
      "{PE[i,j] : 0 <= i < " + r + " and 0 <= j < " + r + "}", "{PE[i,j] -> PE[i-1,j]; PE[i,j] -> PE[i,j-1]}",
      "{S[i,j,k] : 0 <= i < " + std::to_string(M) + " and 0 <= j < " + std::to_string(N) + " and 0 <= k < " +
          std::to_string(K) + "}",
      {"{S[i,j,k] -> A[i,k]}", "{S[i,j,k] -> B[k,j]}"}, {"{S[i,j,k] -> C[i,j]}"},
      "{S[i,j,k] -> PE[i%" + r + ", j%" + r + "]}",
      "{S[i,j,k] -> T[floor(i/" + r + "), floor(j/" + r + "), i%" + r + " + j%" + r + " + k]}");
}

/// A GEMM tile on an R x R systolic array with a group-wise weight scale SW[j, floor(k/g)] under the given maps.
tenet::Problem gemm_scaled(long long M, long long N, long long K, int R, int g, const std::string& space,
                           const std::string& time) {
  const std::string r = std::to_string(R), G = std::to_string(g);
  return tenet::make_problem(
      "{PE[i,j] : 0 <= i < " + r + " and 0 <= j < " + r + "}", "{PE[i,j] -> PE[i-1,j]; PE[i,j] -> PE[i,j-1]}",
      "{S[i,j,k] : 0 <= i < " + std::to_string(M) + " and 0 <= j < " + std::to_string(N) + " and 0 <= k < " +
          std::to_string(K) + "}",
      {"{S[i,j,k] -> A[i,k]}", "{S[i,j,k] -> B[j,k]}", "{S[i,j,k] -> SW[j, floor(k/" + G + ")]}"},
      {"{S[i,j,k] -> C[i,j]}"}, "{S[i,j,k] -> PE[" + space + "]}", "{S[i,j,k] -> T[" + time + "]}");
}

/// The estimator's OS systolic GEMM tile with a group-wise weight scale SW[j, floor(k/g)].
tenet::Problem gemm_g(long long M, long long N, long long K, int R, int g) {
  const std::string r = std::to_string(R);
  return gemm_scaled(M, N, K, R, g, "i%" + r + ", j%" + r,
                     "floor(i/" + r + "), floor(j/" + r + "), i%" + r + " + j%" + r + " + k");
}

/// The estimator's ncf tile (j over the rows, k over the columns, i in time; src/mapping/dataflow.cpp) with the
/// group-wise weight scale SW[j, floor(k/g)]: i is an outer block dimension (docs/tenet-engine.md §3).
tenet::Problem ncf_g(long long M, long long N, long long K, int R, int g) {
  const std::string r = std::to_string(R);
  return gemm_scaled(M, N, K, R, g, "j%" + r + ", k%" + r,
                     "floor(i/" + r + "), floor(k/" + r + "), i%" + r + ", floor(j/" + r + ")");
}

/// Parametric counting: compile once, then every metric of many tiles (same residues).
void parametric(const std::string& name, const tenet::Problem& templ, int R, const tenet::AnalyzeOptions& o = {}) {
  const double c0 = cpu_ms();
  const auto t0 = std::chrono::steady_clock::now();
  const auto c = tenet::compile_parametric(templ, o);
  const double compile_wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double compile_cpu = cpu_ms() - c0;
  std::vector<std::vector<std::int64_t>> tiles;
  for (int a = 2; a <= 64; a *= 2)
    for (int b = 2; b <= 64; b *= 2)
      for (int k = 1; k <= 16; k *= 2) tiles.push_back({a * R, b * R, k * 256});
  tenet::Metrics m = tenet::evaluate(c, tiles[0]);
  const auto forms = c.closed_forms();
  const auto t1 = std::chrono::steady_clock::now();
  std::int64_t sum = 0;
  constexpr int kReps = 20;
  for (int rep = 0; rep < kReps; ++rep)
    for (const auto& t : tiles) {
      tenet::evaluate(c, t, m);
      sum += m.energy;
    }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count() /
                    static_cast<double>(tiles.size() * kReps);
  std::printf("%-44s %10.2f %10.2f %12ld  then %.2f us/tile over %zu tiles (%zu -> %zu closed forms, checksum %lld)\n",
              name.c_str(), compile_wall, compile_cpu, peak_rss_kb(), us, tiles.size(), forms, c.closed_forms(),
              static_cast<long long>(sum % 1000));
}

constexpr const char* kName = "bench_tenet_engine";

int bench_main(int argc, char** argv) {
  if (argc != 2) bench::fail(kName, "expected one argument, the TENET fixture folder (e.g. ../shared/fixtures/tenet)");
  const std::string root = bench::require_dir(kName, argv[1], "the TENET fixture folder");
  const std::string anchors = bench::require_dir(kName, root + "/anchors/inputs", "the GEMM anchors' .p/.s/.m files");
  const std::string data = bench::require_dir(kName, root + "/data", "the TENET experiment sets");
  std::printf("%-44s %10s %10s %12s\n", "case", "wall_ms", "cpu_ms", "peakRSS_KB");
  double anchors_max = 0, anchors_max_cpu = 0, total_exp = 0, total_exp_cpu = 0;
  auto run = [&](const std::string& name, const tenet::Problem& p, int reps) {
    tenet::Metrics m;
    const Timing t = time_ms([&] { m = tenet::analyze(p); }, reps);
    std::printf("%-44s %10.2f %10.2f %12ld\n", name.c_str(), t.wall, t.cpu, peak_rss_kb());
    return t;
  };
  for (int R : {8, 16})
    for (int N : {256, 512, 1024, 2048, 4096}) {
      const std::string a = std::to_string(R) + "x" + std::to_string(R);
      const tenet::Problem p =
          tenet::load_problem(anchors + "/systolic_" + a + ".p", anchors + "/gemm_" + std::to_string(N) + ".s",
                              anchors + "/gemm_os_" + a + ".m");
      const Timing t = run("anchor gemm_" + std::to_string(N) + "_os_" + a, p, 3);
      anchors_max = std::max(anchors_max, t.wall);
      anchors_max_cpu = std::max(anchors_max_cpu, t.cpu);
    }
  run("gemm 2048x11008x4096 os 16x16", gemm(2048, 11008, 4096, 16), 3);
  run("gemm 2048x11008x4096 os 8x8", gemm(2048, 11008, 4096, 8), 3);
  parametric("parametric gemm 256x512x512 os 32x32", gemm(256, 512, 512, 32), 32);
  parametric("parametric gemm 256x512x512 g128 os 32x32", gemm_g(256, 512, 512, 32, 128), 32);
  parametric("parametric gemm 256x512x512 g32 os 32x32", gemm_g(256, 512, 512, 32, 32), 32);
  run("analyze gemm 256x512x512 g128 os 32x32", gemm_g(256, 512, 512, 32, 128), 1);
  int nexp = 0;
  std::vector<fs::path> exps;
  for (const auto& set : fs::directory_iterator(data)) {
    const fs::path dir = set.path() / "experiment";
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) exps.push_back(e.path());
  }
  if (exps.empty()) bench::fail(kName, "no experiment files under '" + data + "/*/experiment'");
  std::sort(exps.begin(), exps.end());
  for (const auto& e : exps) {
    const auto p = tenet::load_experiment(e.string(), data);
    const Timing t = run(e.parent_path().parent_path().filename().string() + "/" + e.filename().string(), p, 1);
    total_exp += t.wall;
    total_exp_cpu += t.cpu;
    ++nexp;
  }
  std::printf("max per GEMM anchor: %.2f ms wall, %.2f ms cpu\n", anchors_max, anchors_max_cpu);
  std::printf("all %d experiments: %.1f ms wall, %.1f ms cpu in total\n", nexp, total_exp, total_exp_cpu);
  std::printf("peak RSS: %ld KB\n", peak_rss_kb());
  // last (their peak RSS would mask the others'): the estimator's ncf g128 tile with and without outer blocks, the
  // OS g128 compile without outer blocks, then without the interpolation in the group size
  run("analyze ncf 128x512x256 g128 32x32", ncf_g(128, 512, 256, 32, 128), 1);
  {
    tenet::AnalyzeOptions general;  // the general base of two blocks for ncf's i (comparison)
    general.outer_blocks = false;
    const tenet::Problem p = ncf_g(128, 512, 256, 32, 128);
    const Timing t = time_ms([&] { (void)tenet::analyze(p, general); }, 1);
    std::printf("%-44s %10.2f %10.2f %12ld\n", "analyze ncf 128x512x256 g128, outer_blocks=false", t.wall, t.cpu,
                peak_rss_kb());
  }
  {
    tenet::AnalyzeOptions general;  // OS's i sampled at two and three blocks, the general base (comparison)
    general.outer_blocks = false;
    parametric("parametric g128 os 32x32, outer_blocks=false", gemm_g(256, 512, 512, 32, 128), 32, general);
  }
  {
    tenet::AnalyzeOptions plain;
    plain.scaled_divisors = false;
    parametric("parametric g128 32x32, scaled_divisors=false", gemm_g(256, 512, 512, 32, 128), 32, plain);
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
