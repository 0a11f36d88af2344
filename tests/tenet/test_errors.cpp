// Bad input: one clear error line naming file:line(:col) and the problem, exit
// code 2, never a crash or a hang. Also overflow and large-size behaviour.
#include <catch2/catch.hpp>
#include <algorithm>
#include <tuple>

#include "tenet_cost/error.hpp"
#include "tenet_cost/tenet.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {
std::string bad(const std::string& f) { return tc_test::fixture("tenet/bad/" + f); }

struct Case {
  const char* pe;
  const char* st;
  const char* map;
  const char* where;  // expected "file:line[:col]" suffix
  const char* what;   // expected fragment of the message
};

const Case kCases[] = {
    {"ok.p", "malformed.s", "ok.m", "malformed.s:2:46", "expected ';', ':' or '}'"},
    {"ok.p", "count.s", "ok.m", "count.s:6", "declares 3 read and 1 write"},
    {"ok.p", "param.s", "ok.m", "param.s:2:1", "parameters"},
    {"ok.p", "empty.s", "ok.m", "empty.s:2:1", "empty"},
    {"ok.p", "unknown.s", "ok.m", "unknown.s:3:16", "unknown identifier 'q'"},
    {"ok.p", "noname.s", "ok.m", "noname.s:3:1", "no name"},
    {"ok.p", "ok.s", "outside.m", "outside.m:1:1", "outside the PE domain"},
    {"ok.p", "ok.s", "nonaff.m", "nonaff.m:1:16", "not quasi-affine"},
    {"ok.p", "ok.s", "div.m", "div.m:2:22", "integer divisor"},
    {"ok.p", "tri.s", "ok.m", "tri.s:2:1", "not a box"},
    {"badnum.p", "ok.s", "ok.m", "badnum.p:3:5", "l2 size"},
    {"ok.p", "bin.s", "ok.m", "bin.s:1", "binary"},
    {"ok.p", "missing.s", "ok.m", "missing.s", "cannot open"},
    {"ok.p", "ok.s", "extra.m", "extra.m:3:1", "extra line"},
    {"ok.p", "deep.s", "ok.m", "deep.s:2:", "nested too deeply"},
    // the PE file agrees with itself (2-D domain and interconnect): the mapping is the inconsistent file
    {"ok.p", "ok.s", "rank3.m", "rank3.m:1:1", "the space map targets PE[3 dims] but the PE array"},
    // counts beyond 64 bits from files: placed at the statement, naming the mapping and PE array with theirs
    {"ok.p", "huge.s", "ok.m", "huge.s:2:1", "does not fit in 64 bits, counting this statement under the mapping "},
    {"ok.p", "huge.s", "ok.m", "ok.m:2:1 on the PE array ", "does not fit in 64 bits"},
    {"zerobw.p", "ok.s", "ok.m", "zerobw.p:3:10", "bandwidth must be positive, found 0"},
};
}  // namespace

TEST_CASE("bad TENET inputs give one clear error line and exit code 2 (CLI)") {
  for (const auto& c : kCases) {
    const auto r = tc_test::run_cli("tenet --pe " + bad(c.pe) + " --statement " + bad(c.st) + " --mapping " + bad(c.map));
    INFO(c.st << " " << c.map << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.where) != std::string::npos);
    CHECK(r.err.find(c.what) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("bad TENET inputs throw InputError with the location (API)") {
  for (const auto& c : kCases) {
    INFO(c.st << " " << c.map);
    try {
      (void)tenet::analyze(tenet::load_problem(bad(c.pe), bad(c.st), bad(c.map)));
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(c.where) != std::string::npos);
      CHECK(std::string(e.what()).find(c.what) != std::string::npos);
    }
  }
}

TEST_CASE("CLI usage errors") {
  CHECK(tc_test::run_cli("tenet --pe " + bad("ok.p")).exit_code == 2);
  CHECK(tc_test::run_cli("tenet --experiment /nonexistent/x --data-root /tmp").exit_code == 2);
  const auto r = tc_test::run_cli("tenet --pe " + bad("ok.p") + " --statement " + bad("ok.s") + " --mapping " +
                                  bad("ok.m") + " --format csv");
  CHECK(r.exit_code == 2);
}

TEST_CASE("non-box domains are counted by --enumerate") {
  tenet::AnalyzeOptions en;
  en.enumerate = true;
  const auto m = tenet::analyze(tenet::load_problem(bad("ok.p"), bad("tri_small.s"), bad("ok.m")), en);
  CHECK(m.macs == 40LL * 39 / 2 * 30);
  // the triangle's rows i < 8 fill one 8x8 tile partially; every PE is used
  CHECK(m.active_pes == 64);
  CHECK(m.tensors.size() == 3);
  CHECK(m.tensors[0].total_volume == m.macs);
  CHECK(m.counting_method == "enumeration");
}

namespace {
tenet::Problem gemm(long long M, long long N, long long K, int R) {
  const std::string r = std::to_string(R);
  return tenet::make_problem(
      "{PE[i,j] : 0 <= i < " + r + " and 0 <= j < " + r + "}", "{PE[i,j] -> PE[i-1,j]; PE[i,j] -> PE[i,j-1]}",
      "{S[i,j,k] : 0 <= i < " + std::to_string(M) + " and 0 <= j < " + std::to_string(N) + " and 0 <= k < " +
          std::to_string(K) + "}",
      {"{S[i,j,k] -> A[i,k]}", "{S[i,j,k] -> B[k,j]}"}, {"{S[i,j,k] -> C[i,j]}"}, "{S[i,j,k] -> PE[i%" + r + ", j%" + r + "]}",
      "{S[i,j,k] -> T[floor(i/" + r + "), floor(j/" + r + "), i%" + r + " + j%" + r + " + k]}");
}
}  // namespace

TEST_CASE("a 2^40 cube GEMM is an OverflowError, not a wrapped number") {
  const long long n = 1LL << 40;
  CHECK_THROWS_AS(tenet::analyze(gemm(n, n, n, 16)), OverflowError);
}

TEST_CASE("a 2048 x 11008 x 4096 GEMM is counted exactly (closed forms)") {
  const long long M = 2048, N = 11008, K = 4096, R = 16;
  const auto m = tenet::analyze(gemm(M, N, K, static_cast<int>(R)));
  CHECK(m.macs == M * N * K);
  CHECK(m.time_stamps == (M / R) * (N / R) * (K + 2 * R - 2));
  CHECK(m.active_pes == R * R);
  REQUIRE(m.tensors.size() == 3);
  CHECK(m.tensors[0].unique_volume == M * N * K / R);  // A
  CHECK(m.tensors[1].unique_volume == M * N * K / R);  // B
  CHECK(m.tensors[2].unique_volume == M * N);          // C
  CHECK(m.macs_per_pe == M * N * K / (R * R));
}

TEST_CASE("sizes that are not multiples of the array agree with enumeration") {
  tenet::AnalyzeOptions en;
  en.enumerate = true;
  for (auto [M, N, K] : {std::tuple{100, 70, 33}, std::tuple{9, 130, 17}, std::tuple{61, 5, 90}}) {
    const auto p = gemm(M, N, K, 8);
    const auto a = tenet::analyze(p), b = tenet::analyze(p, en);
    INFO(M << "x" << N << "x" << K);
    CHECK(a.time_stamps == b.time_stamps);
    CHECK(a.energy == b.energy);
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(a.tensors[k].unique_volume == b.tensors[k].unique_volume);
      CHECK(a.tensors[k].spatial_reuse_volume == b.tensors[k].spatial_reuse_volume);
      CHECK(a.tensors[k].temporal_unique_volume == b.tensors[k].temporal_unique_volume);
    }
  }
}
