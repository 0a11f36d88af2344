// Benchmark of the TVMScript front-end.
//
//   bench_parse_tvmscript FILE...         parse each file repeatedly: ms per parse, MB/s (fixture 01:
//                                         ../shared/fixtures/real/01_mlc_llama2_13b_q4f16_1_batched_whole_module.py,
//                                         the 348 KB MLC dump)
//   bench_parse_tvmscript --synthetic MB FILE
//                                         build an MB-sized dump (FILE's functions repeated under new
//                                         names), parse it once: MB/s and peak RSS / size, then parse +
//                                         extract it once more
//   bench_parse_tvmscript --runs N --synthetic MB FILE
//                                         the same N times, each in a fresh (forked) process as a CLI run
//                                         would be, then the min / median / max of the N runs
// A missing file stops it with exit 2.
//
// TC_PARSE_THREADS=N sets the parse's threads (1: serial; default: the hardware threads, at most 8).
//
// Run each mode in its own process so the peak RSS (getrusage) belongs to it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.hpp"
#include "synthetic.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Usage {
  double user = 0, sys = 0;  // seconds
  long faults = 0;           // minor page faults
};
Usage usage() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return Usage{static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6,
               static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6,
               ru.ru_minflt};
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

using bench::synthetic;

constexpr const char* kName = "bench_parse_tvmscript";

std::size_t count_stmts(const tenet_cost::ir::Module& m) { return m.prim_funcs.size() + m.relax_funcs.size(); }

int bench_files(const std::vector<std::string>& files) {
  for (const auto& path : files) {
    const std::string text = tenet_cost::read_file(path);
    std::vector<double> ms, cpu;
    std::size_t funcs = 0;
    for (int i = 0; i < 30; ++i) {
      const double c0 = cpu_seconds();
      const auto t0 = Clock::now();
      const auto mod = tenet_cost::ir::parse_tvmscript(text, path);
      const auto t1 = Clock::now();
      cpu.push_back((cpu_seconds() - c0) * 1e3);
      funcs = count_stmts(mod);
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    const double med = ms[ms.size() / 2];
    double cpu_total = 0;
    for (const double c : cpu) cpu_total += c;
    const double cpu_mean = cpu_total / static_cast<double>(cpu.size());
    std::printf("%s: %zu bytes, %zu functions\n  wall: min %.3f ms, median %.3f ms (%.1f MB/s at the median)\n"
                "  cpu:  mean %.3f ms (%.1f MB/s)\n",
                path.c_str(), text.size(), funcs, ms.front(), med,
                static_cast<double>(text.size()) / 1e6 / (med / 1e3), cpu_mean,
                static_cast<double>(text.size()) / 1e6 / (cpu_mean / 1e3));
  }
  std::printf("peak RSS %.1f MB\n", peak_rss_mb());
  return 0;
}


struct SyntheticRun {
  double parse_ms = 0, rss_ratio = 0, parse_extract_ms = 0, extract_ms = 0;
};

SyntheticRun run_synthetic(const std::string& text) {
  SyntheticRun run;
  const double rss_before = peak_rss_mb();
  const double size_mb = static_cast<double>(text.size()) / 1e6;
  {
    tenet_cost::ir::ParseStats stats;
    tenet_cost::ir::ParseOptions opt;
    opt.stats = &stats;
    const Usage u0 = usage();
    const auto t0 = Clock::now();
    const auto mod = tenet_cost::ir::parse_tvmscript(text, "synthetic.py", opt);
    const auto t1 = Clock::now();
    const Usage u1 = usage();
    const double cpu = (u1.user - u0.user) + (u1.sys - u0.sys);
    const double s = std::chrono::duration<double>(t1 - t0).count();
    const double peak = peak_rss_mb();
    std::printf("synthetic: %.1f MB, %zu functions\n  wall %.1f ms (%.1f MB/s), cpu %.1f ms (%.1f MB/s)\n", size_mb,
                count_stmts(mod), s * 1e3, size_mb / s, cpu * 1e3, size_mb / cpu);
    std::printf("  cpu: user %.1f ms, sys %.1f ms, %ld page faults\n", (u1.user - u0.user) * 1e3,
                (u1.sys - u0.sys) * 1e3, u1.faults - u0.faults);
    std::printf("  threads: %u (%u chunk%s)%s\n", stats.threads, stats.chunks, stats.chunks == 1 ? "" : "s",
                stats.fell_back ? ", a parallel parse was given up: parsed serially" : "");
    run.parse_ms = s * 1e3;
    run.rss_ratio = peak / (static_cast<double>(text.size()) / (1024.0 * 1024.0));
    std::printf("peak RSS %.1f MB (%.2fx the file; %.1f MB before parsing, text included)\n", peak,
                run.rss_ratio, rss_before);
  }
  {
    // parse + extract of the same dump (after the figures above, so the peak RSS is the parse's)
    const auto t0 = Clock::now();
    const auto mod = tenet_cost::ir::parse_tvmscript(text, "synthetic.py");
    const auto t1 = Clock::now();
    const auto r = tenet_cost::extract_workloads(mod);
    const auto t2 = Clock::now();
    const double total = std::chrono::duration<double>(t2 - t0).count();
    run.parse_extract_ms = total * 1e3;
    run.extract_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    std::printf("parse+extract: wall %.1f ms (%.1f MB/s; extract %.1f ms), %zu workloads\n", total * 1e3,
                size_mb / total, run.extract_ms, r.workloads.size());
  }
  std::fflush(stdout);
  return run;
}

void print_spread(const char* what, std::vector<double> v, double size_mb) {
  std::sort(v.begin(), v.end());
  const double med = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  std::printf("  %-14s min %7.1f ms (%5.1f MB/s)  median %7.1f ms (%5.1f MB/s)  max %7.1f ms\n", what, v.front(),
              size_mb / v.front() * 1e3, med, size_mb / med * 1e3, v.back());
}

// Each run in a forked child (a fresh heap and peak RSS, as one CLI run); the
// child sends its figures back through a pipe.
int bench_synthetic(double mb, const std::string& path, int runs) {
  const std::string text = synthetic(path, static_cast<std::size_t>(mb * 1e6));
  if (runs <= 1) {
    run_synthetic(text);
    return 0;
  }
  std::vector<double> parse, parse_extract, extract, rss;
  for (int i = 0; i < runs; ++i) {
    std::printf("--- run %d of %d\n", i + 1, runs);
    std::fflush(stdout);
    int fd[2];
    if (pipe(fd) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(fd[0]);
      const SyntheticRun r = run_synthetic(text);
      const bool sent = write(fd[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
      _exit(sent ? 0 : 1);
    }
    close(fd[1]);
    SyntheticRun r;
    const bool got = read(fd[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("a run failed");
    parse.push_back(r.parse_ms);
    parse_extract.push_back(r.parse_extract_ms);
    extract.push_back(r.extract_ms);
    rss.push_back(r.rss_ratio);
  }
  const double size_mb = static_cast<double>(text.size()) / 1e6;
  std::printf("=== %d runs of %.1f MB\n", runs, size_mb);
  print_spread("parse", parse, size_mb);
  print_spread("parse+extract", parse_extract, size_mb);
  print_spread("extract", extract, size_mb);
  std::printf("  peak RSS       max %.2fx the file\n", *std::max_element(rss.begin(), rss.end()));
  return 0;
}

int bench_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int runs = 1;
  if (args.size() >= 2 && args[0] == "--runs") {
    runs = bench::count(kName, args[1], "--runs");
    args.erase(args.begin(), args.begin() + 2);
  }
  if (!args.empty() && args[0] == "--synthetic") {
    if (args.size() != 3) bench::fail(kName, "expected --synthetic MB FILE");
    const double mb = bench::positive(kName, args[1], "MB");
    return bench_synthetic(mb, bench::require_file(kName, args[2], "the dump to repeat"), runs);
  }
  if (runs != 1) bench::fail(kName, "--runs goes with --synthetic MB FILE");
  if (args.empty()) bench::fail(kName, "expected one or more TVMScript dumps (e.g. ../shared/fixtures/real/01_*.py)");
  for (const auto& path : args) bench::require_file(kName, path, "a TVMScript dump");
  return bench_files(args);
}

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
