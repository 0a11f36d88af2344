// Parametric counting (compile_parametric / evaluate): the closed forms equal
// brute-force enumeration on random tile sizes (group and block scales,
// extents that are not multiples of the periods), equal analyze() on large
// tiles, are reused (no new closed form, no allocation) for further extents of
// a compiled residue class; plus the engine's limits and options (issue 14).
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "tenet/metrics_check.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;

// Allocation counter for the "allocation-free" claim (counts every operator new of this executable;
// the replacement pairs malloc with free, which GCC cannot see through inlined allocators).
// Not under AddressSanitizer: its own operator new (still used by some allocations) and this free() would
// mismatch; the Release run checks the claim.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<long> g_allocs{0};
}
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCountAllocs = false;
#else
constexpr bool kCountAllocs = true;
void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

struct Scales {
  int P = 4, Q = 4;  // PE array
  int g = 8;         // group size along k (0: no scale)
  int bn = 0;        // block size along j (0: per column j)
  bool act_scale = false;
  int dataflow = 0;  // 0 os, 1 ws, 2 is
};

/// An estimator-shaped GEMM tile with a scale tensor, as a template problem.
tenet::Problem gemm(const Scales& s, long long M, long long N, long long K) {
  const std::string P = std::to_string(s.P), Q = std::to_string(s.Q);
  std::string space, time;
  if (s.dataflow == 0) {
    space = "PE[i%" + P + ",j%" + Q + "]";
    time = "T[floor(i/" + P + "),floor(j/" + Q + "),i%" + P + "+j%" + Q + "+k]";
  } else if (s.dataflow == 1) {
    space = "PE[k%" + P + ",j%" + Q + "]";
    time = "T[floor(j/" + Q + "),floor(k/" + P + "),i+j%" + Q + "+k%" + P + "]";
  } else {
    space = "PE[k%" + P + ",i%" + Q + "]";
    time = "T[floor(i/" + Q + "),floor(k/" + P + "),j+i%" + Q + "+k%" + P + "]";
  }
  std::vector<std::string> reads = {"{S[i,j,k] -> A[i,k]}", "{S[i,j,k] -> B[j,k]}"};
  if (s.g > 0) {
    const std::string fk = "floor(k/" + std::to_string(s.g) + ")";
    reads.push_back(s.bn > 0 ? "{S[i,j,k] -> SW[floor(j/" + std::to_string(s.bn) + ")," + fk + "]}"
                             : "{S[i,j,k] -> SW[j," + fk + "]}");
    if (s.act_scale) reads.push_back("{S[i,j,k] -> SA[i," + fk + "]}");
  }
  return tenet::make_problem(
      "{PE[p,q] : 0<=p<" + P + " and 0<=q<" + Q + "}", "{PE[p,q] -> PE[p,q+1]; PE[p,q] -> PE[p+1,q]}",
      "{S[i,j,k] : 0<=i<" + std::to_string(M) + " and 0<=j<" + std::to_string(N) + " and 0<=k<" + std::to_string(K) +
          "}",
      reads, {"{S[i,j,k] -> C[i,j]}"}, "{S[i,j,k] -> " + space + "}", "{S[i,j,k] -> " + time + "}");
}

void check_same(const tenet::Metrics& a, const tenet::Metrics& b) { test::check_same_metrics(a, b); }

}  // namespace

TEST_CASE("parametric closed forms equal enumeration on random tile sizes") {
  const bool quick = std::getenv("TC_QUICK") != nullptr && std::string(std::getenv("TC_QUICK")) == "1";
  std::mt19937 rng(20261123u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int templates = quick ? 6 : 14;
  long reused = 0, evaluations = 0;
  for (int t = 0; t < templates; ++t) {
    Scales s;
    s.P = uni(2, 4);
    s.Q = uni(2, 4);
    s.g = t % 4 == 3 ? 0 : uni(3, 9);
    s.bn = s.g > 0 && t % 3 == 1 ? s.Q * uni(1, 2) : 0;
    s.act_scale = t % 5 == 2;
    s.dataflow = t % 3;
    INFO("template " << t << " P=" << s.P << " Q=" << s.Q << " g=" << s.g << " bn=" << s.bn << " act=" << s.act_scale
                     << " dataflow=" << s.dataflow);
    const auto c = tenet::compile_parametric(gemm(s, 4 * s.P, 4 * s.Q, 3 * std::max(s.g, 2)));
    REQUIRE(c.dims() == 3);
    tenet::AnalyzeOptions en;
    en.enumerate = true;
    for (int e = 0; e < 5; ++e) {
      // Mostly multiples of the periods (the search's tiles), sometimes not.
      const bool odd = uni(0, 2) == 0;
      const long long M = odd ? uni(1, 7 * s.P) : s.P * uni(1, 7);
      const long long N = odd ? uni(1, 7 * s.Q) : s.Q * uni(1, 7);
      const long long K = odd ? uni(1, 6 * std::max(s.g, 2)) : std::max(s.g, 1) * uni(1, 6);
      INFO("extents " << M << "x" << N << "x" << K);
      const std::vector<std::int64_t> ext = {M, N, K};
      const auto before = c.closed_forms();
      const auto a = tenet::evaluate(c, ext);
      const auto again = tenet::evaluate(c, ext);
      CHECK(c.closed_forms() - before <= 4);
      const auto b = tenet::analyze(gemm(s, M, N, K), en);
      check_same(a, b);
      check_same(again, b);
      ++evaluations;
      if (c.closed_forms() == before) ++reused;
    }
  }
  WARN("closed forms reused in " << reused << " of " << evaluations << " evaluations");
}

TEST_CASE("parametric closed forms equal analyze() on large tiles and are reused without allocating") {
  for (int df = 0; df < 3; ++df) {
    Scales s;
    s.P = 8;
    s.Q = 8;
    s.g = 32;
    s.dataflow = df;
    INFO("dataflow " << df);
    const auto c = tenet::compile_parametric(gemm(s, 64, 64, 128));
    const auto forms = c.closed_forms();
    // Same residues (multiples of 8 / 32), larger: no new closed form, same as analyze().
    const std::vector<std::vector<std::int64_t>> tiles = {{256, 512, 4096}, {2048, 64, 11008}, {72, 64, 160}};
    tenet::Metrics out = tenet::evaluate(c, tiles[0]);
    for (const auto& t : tiles) {
      INFO(t[0] << "x" << t[1] << "x" << t[2]);
      const long before = g_allocs.load();
      tenet::evaluate(c, t, out);
      const long allocs = g_allocs.load() - before;
      if (kCountAllocs) CHECK(allocs == 0);
      CHECK(c.closed_forms() == forms);
      check_same(out, tenet::analyze(gemm(s, t[0], t[1], t[2])));
    }
    // A block-scaled non-multiple compiles once more, then is exact too.
    const std::vector<std::int64_t> odd = {100, 70, 1000};
    check_same(tenet::evaluate(c, odd), tenet::analyze(gemm(s, 100, 70, 1000)));
  }
}

TEST_CASE("parametric evaluation rejects bad extents and non-box templates") {
  Scales s;
  const auto c = tenet::compile_parametric(gemm(s, 8, 8, 16));
  const std::vector<std::int64_t> two = {8, 8};
  CHECK_THROWS_AS(tenet::evaluate(c, two), InputError);
  const std::vector<std::int64_t> neg = {8, -1, 8};
  CHECK_THROWS_WITH(tenet::evaluate(c, neg), Catch::Contains("must be positive"));
  const std::vector<std::int64_t> huge = {8, INT64_MAX, 8};
  CHECK_THROWS_AS(tenet::evaluate(c, huge), OverflowError);
  auto tri = gemm(s, 8, 8, 8);
  tri.statement.domain.text = "{S[i,j,k] : 0<=i<8 and 0<=j<i and 0<=k<8}";
  CHECK_THROWS_WITH(tenet::compile_parametric(tri), Catch::Contains("not a box"));
}

TEST_CASE("engine limits: extents, work budget, time limit, context (issue 14)") {
  const auto huge = tenet::make_problem("{PE[p] : 0<=p<4}", "{PE[p] -> PE[p-1]}",
                                        "{S[i] : -9223372036854775807<=i<9223372036854775807}", {"{S[i] -> A[i]}"},
                                        {"{S[i] -> C[i]}"}, "{S[i] -> PE[i%4]}", "{S[i] -> T[floor(i/4)]}");
  CHECK_THROWS_AS(tenet::analyze(huge), OverflowError);
  CHECK_THROWS_WITH(tenet::analyze(huge), Catch::Contains("arithmetic overflow") && !Catch::Contains("empty"));

  // Coefficients near 2^63 in an access map: a clean error or a count, never UB.
  const auto coef = tenet::make_problem("{PE[p] : 0<=p<4}", "{PE[p] -> PE[p-1]}", "{S[i,k] : 0<=i<8 and 0<=k<64}",
                                        {"{S[i,k] -> A[9223372036854775807*i - 9223372036854775807*k + 3]}"},
                                        {"{S[i,k] -> C[i]}"}, "{S[i,k] -> PE[i%4]}", "{S[i,k] -> T[floor(i/4), k]}");
  try {
    (void)tenet::analyze(coef);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("overflow") != std::string::npos);
  }

  Scales s;
  s.g = 9;
  const auto p = gemm(s, 64, 64, 200);
  tenet::AnalyzeOptions o;
  o.max_work = 1000;
  o.context = "GEMM 64x64x200 tile under dataflow os";
  try {
    (void)tenet::analyze(p, o);
    FAIL("expected the work budget error");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind("GEMM 64x64x200 tile under dataflow os: ", 0) == 0);
    CHECK(msg.find("work budget") != std::string::npos);
    CHECK(msg.find("1000") != std::string::npos);
    CHECK(msg.find("<generated>") == std::string::npos);
  }
  o = {};
  o.time_limit_s = 1e-9;
  CHECK_THROWS_WITH(tenet::analyze(p, o), Catch::Contains("time limit") && Catch::Contains("--time-limit"));
  o = {};
  o.max_instance_points = 10;
  o.context = "my tile";
  CHECK_THROWS_WITH(tenet::analyze(p, o), Catch::StartsWith("my tile: ") && !Catch::Contains("<generated>"));
  o = {};
  o.min_base = 0;
  CHECK_THROWS_AS(tenet::analyze(p, o), InputError);
}

TEST_CASE("average latency near 2^62 is exact in the delays") {
  for (const std::uint64_t lat : {std::uint64_t{1} << 62, (std::uint64_t{1} << 62) + 12345, std::uint64_t{1} << 63}) {
    const auto p = tenet::make_problem("{PE[p] : 0<=p<4}", "{PE[p] -> PE[p-1]}", "{S[i] : 0<=i<64}", {"{S[i] -> A[i]}"},
                                       {"{S[i] -> C[i]}"}, "{S[i] -> PE[i%4]}", "{S[i] -> T[floor(i/4)]}", 64, lat);
    if (lat > static_cast<std::uint64_t>(INT64_MAX) - 64) {
      CHECK_THROWS_AS(tenet::analyze(p), OverflowError);
      continue;
    }
    const auto m = tenet::analyze(p);
    // unique volume 64 of A: 64*16/64 = 16 cycles + latency - 1.
    CHECK(m.tensors[0].unique_volume == 64);
    CHECK(m.ingress_delay == 16 + static_cast<std::int64_t>(lat) - 1);
  }
}

TEST_CASE("debug output goes to the options' sink, and the knobs change the plan, not the counts") {
  Scales s;
  s.g = 6;
  const auto p = gemm(s, 40, 36, 100);
  std::vector<std::string> lines;
  tenet::AnalyzeOptions o;
  o.debug = tenet::DebugLevel::kCount;
  o.debug_log = [&](const std::string& l) { lines.push_back(l); };
  const auto a = tenet::analyze(p, o);
  CHECK(!lines.empty());
  bool plan_line = false;
  for (const auto& l : lines) plan_line = plan_line || l.find("d0[L=") != std::string::npos;
  CHECK(plan_line);
  for (const auto vp : {tenet::VirtualPlan::kNever, tenet::VirtualPlan::kForce}) {
    tenet::AnalyzeOptions k;
    k.virtual_plan = vp;
    k.skewed_time_windows = vp == tenet::VirtualPlan::kForce;
    k.min_base = vp == tenet::VirtualPlan::kForce ? 3 : 1;
    check_same(tenet::analyze(p, k), a);
  }
}

TEST_CASE("parametric closed forms with large group sizes (interpolation in G) equal enumeration") {
  // OS systolic tiles with G = 18..40: the scale groups are compiled by interpolating over the divisor
  // (docs/tenet-engine.md §3 "Large floor divisors"); every further extent of the same remainder k % G and
  // array residues is evaluated from those forms; other extents compile new ones. All equal enumeration.
  const bool quick = std::getenv("TC_QUICK") != nullptr && std::string(std::getenv("TC_QUICK")) == "1";
  std::mt19937 rng(20261126u);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int templates = quick ? 3 : 6;
  long reused = 0, evaluations = 0;
  for (int t = 0; t < templates; ++t) {
    Scales s;
    s.P = uni(2, 4);
    s.Q = uni(2, 4);
    s.g = uni(18, 40);
    s.bn = t % 3 == 1 ? s.Q : 0;
    s.act_scale = t % 2 == 1;
    s.dataflow = 0;
    INFO("template " << t << " P=" << s.P << " Q=" << s.Q << " g=" << s.g << " bn=" << s.bn << " act=" << s.act_scale);
    std::vector<std::string> lines;
    tenet::AnalyzeOptions o;
    o.debug = tenet::DebugLevel::kCount;
    o.debug_log = [&](const std::string& l) { lines.push_back(l); };
    const auto c = tenet::compile_parametric(gemm(s, 3 * s.P, 2 * s.Q, 2 * s.g), o);
    bool interpolated = false;
    for (const auto& l : lines) interpolated = interpolated || l.find(": affine") != std::string::npos;
    CHECK(interpolated);
    tenet::AnalyzeOptions en;
    en.enumerate = true;
    for (int e = 0; e < 4; ++e) {
      const bool odd = e == 3;
      const long long M = odd ? uni(1, 6 * s.P) : s.P * uni(2, 6);
      const long long N = odd ? uni(1, 6 * s.Q) : s.Q * uni(2, 6);
      const long long K = odd ? uni(1, 4 * s.g) : static_cast<long long>(s.g) * uni(2, 4);
      INFO("extents " << M << "x" << N << "x" << K);
      const std::vector<std::int64_t> ext = {M, N, K};
      const auto before = c.closed_forms();
      const auto a = tenet::evaluate(c, ext);
      const auto b = tenet::analyze(gemm(s, M, N, K), en);
      check_same(a, b);
      ++evaluations;
      if (c.closed_forms() == before) ++reused;
    }
    // Any number q >= 2 of whole groups along k (the template's q) with the template's M and N: the inner forms
    // compress k, so the compiled forms cover these extents.
    for (int q = 2; q <= 5; ++q) {
      const std::vector<std::int64_t> ext = {3 * s.P, 2 * s.Q, static_cast<std::int64_t>(q) * s.g};
      INFO("extents " << ext[0] << "x" << ext[1] << "x" << ext[2]);
      const auto before = c.closed_forms();
      check_same(tenet::evaluate(c, ext), tenet::analyze(gemm(s, ext[0], ext[1], ext[2]), en));
      CHECK(c.closed_forms() == before);
    }
  }
  CHECK(reused > 0);
  WARN("closed forms reused in " << reused << " of " << evaluations << " evaluations");
}

TEST_CASE("floor(k/g) accesses keep the skewed-time window of k, so k is compressed in the interpolation in G") {
  // An 8x8 OS array: the general window of k is the time map's spread (15); with SW[j, floor(k/40)] the counter
  // samples divisors 7..9 and 15, where the skewed-time window max(2 delta + 1, G' + 1) is smaller, so k is
  // compressed (docs §3 "Skewed time dimensions") and one closed form covers every number of whole groups.
  Scales s;
  s.P = 8;
  s.Q = 8;
  s.g = 40;
  std::vector<std::string> lines;
  tenet::AnalyzeOptions o;
  o.debug = tenet::DebugLevel::kCount;
  o.debug_log = [&](const std::string& l) { lines.push_back(l); };
  const auto c = tenet::compile_parametric(gemm(s, 16, 16, 80), o);
  bool floor_skew = false;
  for (const auto& l : lines) {
    // k (d2) with a period > 1 (the floor term's divisor) compressed with the skewed-time window.
    const auto at = l.find("d2[L=");
    if (at == std::string::npos || std::stoll(l.substr(at + 5)) <= 1) continue;
    const auto end = l.find(']', at);
    floor_skew = floor_skew || l.substr(at, end - at).find(" C skew") != std::string::npos;
  }
  CHECK(floor_skew);
  tenet::AnalyzeOptions en;
  en.enumerate = true;
  const auto forms = c.closed_forms();
  for (const long long K : {80LL, 120LL, 200LL, 83LL}) {
    INFO("K = " << K);
    check_same(tenet::evaluate(c, std::vector<std::int64_t>{16, 24, K}), tenet::analyze(gemm(s, 16, 24, K), en));
    if (K % s.g == 0) CHECK(c.closed_forms() == forms);  // K = 83: a new remainder, new forms
  }
}
