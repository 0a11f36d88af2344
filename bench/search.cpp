// bench_search: `tenet-cost search` of Llama-2-7B (prefill 2048 + decode at context 2048) over the six default
// schemes on the default arch, presets + N generated dataflows (legal for every scheme), all tiles, one dataflow per
// model; targets (issue 11): <= 60 s and <= 512 MB; one GEMM over all candidates <= 1 s. Prints the wall time, the
// peak RSS and the winners.
//   bench_search [--generated N] [--jobs N] [--gemm-only] DATA_DIR
// DATA_DIR is the folder holding workloads/llama-2-7b/{config.json,q0f16.py} and configs/arch/<the default
// arch>.json: the source tree. A missing file stops it with exit 2.
#include <sys/resource.h>

#include <algorithm>
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
#include "tenet_cost/search.hpp"

using namespace tenet_cost;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kName = "bench_search";

double s_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double cpu_s() {  // user + system time of the process
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kB
}

int bench_main(int argc, char** argv) {
  int generated = 8, jobs = 1;
  bool gemm_only = false;
  std::string root;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--generated" || a == "--jobs") && i + 1 == argc) bench::fail(kName, "expected a value after " + a);
    if (a == "--generated") generated = bench::count(kName, argv[++i], "--generated");
    else if (a == "--jobs") jobs = bench::count(kName, argv[++i], "--jobs");
    else if (a == "--gemm-only") gemm_only = true;
    else if (root.empty() && !a.starts_with("-")) root = a;
    else bench::fail(kName, "unexpected argument '" + a + "'");
  }
  const auto [workloads, presets] = bench::require_llama_tree(kName, root, arch::default_arch());

  const auto t0 = Clock::now();
  const model::Phases ph;
  const model::Model m = model::default_model(workloads, ph);
  const arch::Arch ar = arch::load_arch(arch::default_arch(), presets);
  std::vector<std::optional<quant::Scheme>> schemes;
  for (const char* s : {"q0f16", "q4f16_1", "q4f16_autoawq", "w8a8-token-channel", "w4a8-g128", "fp8-tensor"})
    schemes.emplace_back(quant::parse_scheme(s));
  // presets + the first N generated dataflows legal for every scheme (generator order)
  search::Options o;
  o.dataflows = search::parse_dataflows("presets");
  o.jobs = static_cast<unsigned>(jobs);
  auto common = search::dataflows_for(search::DataflowSet{o.dataflows, true}, ar, m, schemes.front());
  common.erase(common.begin(), common.begin() + static_cast<std::ptrdiff_t>(o.dataflows.size()));
  for (const auto& s : schemes) {
    const auto legal = search::dataflows_for(search::DataflowSet{{}, true}, ar, m, s);
    std::erase_if(common, [&](const mapping::Dataflow& d) {
      return std::none_of(legal.begin(), legal.end(), [&](const mapping::Dataflow& x) { return x.name == d.name; });
    });
  }
  if (common.size() > static_cast<std::size_t>(generated)) common.resize(static_cast<std::size_t>(generated));
  std::string names;
  for (const auto& d : common) names += (names.empty() ? "" : ",") + d.name;
  o.dataflows.insert(o.dataflows.end(), common.begin(), common.end());
  const double t_load = s_since(t0);

  // one GEMM (the largest prefill projection) under w4a8-g128 over every dataflow and tile, fresh estimators
  const model::ModelGemm* big = nullptr;
  for (const auto& g : m.gemms)
    if (g.phase == model::Phase::kPrefill && !g.lm_head &&
        (!big || g.shape.m * g.shape.n * g.shape.k > big->shape.m * big->shape.n * big->shape.k))
      big = &g;
  if (!big) bench::fail(kName, "the model has no prefill GEMM");
  const auto t1 = Clock::now();
  const double c1 = cpu_s();
  std::int64_t evals = 0;
  const quant::Scheme w4 = quant::parse_scheme("w4a8-g128");
  std::string per_dataflow;  // where the time goes
  for (const auto& d : o.dataflows) {
    const auto td = Clock::now();
    const double cd = cpu_s();
    cost::Estimator est(ar, d, {});
    (void)est.gemm(big->shape, w4);
    evals += est.array_evaluations();
    char line[160];
    std::snprintf(line, sizeof line, "  %-16s %8.3f s wall %8.3f s CPU  %6lld array evaluations\n", d.name.c_str(),
                  s_since(td), cpu_s() - cd, static_cast<long long>(est.array_evaluations()));
    per_dataflow += line;
  }
  const double t_gemm = s_since(t1), c_gemm = cpu_s() - c1;
  std::printf(
      "bench_search: one GEMM (%s %lldx%lldx%lld, w4a8-g128) over %zu dataflows x all tiles: %.3f s wall, %.3f s "
      "CPU (%lld array evaluations)\n",
      big->function.c_str(), static_cast<long long>(big->shape.m), static_cast<long long>(big->shape.n),
      static_cast<long long>(big->shape.k), o.dataflows.size(), t_gemm, c_gemm, static_cast<long long>(evals));
  std::printf("%s", per_dataflow.c_str());
  if (gemm_only) return 0;

  const auto t2 = Clock::now();
  const double c2 = cpu_s();
  const search::SearchResult r = search::run(ar, m, ph, schemes, o);
  const double t_search = s_since(t2), c_search = cpu_s() - c2;
  std::printf(
      "bench_search: llama-2-7b, 6 schemes, prefill 2048 + decode@2048, %zu dataflows (presets + %zu "
      "generated: %s), one per model, %d job(s): load %.2f s, search %.2f s wall, %.2f s CPU, peak RSS %.0f MB\n",
      o.dataflows.size(), common.size(), names.c_str(), jobs, t_load, t_search, c_search, peak_rss_mb());
  for (const auto& row : r.rows) {
    const auto& b = row.top.front();
    std::printf("  %-20s best %-16s prefill %.4f s  decode %.3f ms/tok  energy %.4f J\n", row.scheme.c_str(),
                b.dataflow.c_str(), b.totals.prefill.latency_s, b.totals.decode.latency_s * 1e3, b.totals.energy_j);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded(kName, [&] { return bench_main(argc, argv); });
}
