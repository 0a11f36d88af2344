// Systolic timing terms (docs/model.md "Latency"): a register-level simulation of an R x C systolic array —
// operands shifted one PE per cycle, skewed at the edges, a MAC where they meet — computes C = A·B and counts
// the cycles, folds included, with serial or double-buffered stationary loads and output drains. The estimator's
// compute + stationary_load + output_drain cycles must equal the simulated count, and the simulated C the
// reference product, on many shapes including partial folds, for os, ws and is.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

#include "cost/arch_support.hpp"
#include "tenet_cost/cost.hpp"

using namespace tenet_cost;

namespace {

using Mat = std::vector<std::vector<std::int64_t>>;

Mat make(std::int64_t rows, std::int64_t cols, std::int64_t seed) {
  Mat m(static_cast<std::size_t>(rows), std::vector<std::int64_t>(static_cast<std::size_t>(cols)));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) m[i][j] = (i * 7 + j * 3 + seed) % 11 - 5;
  return m;
}

Mat reference(const Mat& a, const Mat& b, std::int64_t M, std::int64_t N, std::int64_t K) {
  Mat c(static_cast<std::size_t>(M), std::vector<std::int64_t>(static_cast<std::size_t>(N), 0));
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      for (std::int64_t k = 0; k < K; ++k) c[i][j] += a[i][k] * b[k][j];
  return c;
}

struct SimResult {
  Mat c;
  std::int64_t cycles = 0;
};

// Output stationary: fold (bi, bj) keeps C[bi·R + r, bj·C + q] in PE[r, q]. A[i, k] enters row r at the left
// edge at cycle r + k of the fold and moves right one PE per cycle; B[k, j] enters column q at the top at cycle
// q + k and moves down. The fold ends one cycle after its last MAC. `serial_drain`: the accumulators are then
// shifted down and out of the bottom edge, one row per cycle (R cycles), before the next fold starts; double
// buffered: they are swapped into shadow registers and drained during the next fold (no cycles).
SimResult simulate_os(const Mat& a, const Mat& b, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t R,
                      std::int64_t C, bool serial_drain) {
  SimResult out;
  out.c.assign(static_cast<std::size_t>(M), std::vector<std::int64_t>(static_cast<std::size_t>(N), 0));
  for (std::int64_t bi = 0; bi * R < M; ++bi)
    for (std::int64_t bj = 0; bj * C < N; ++bj) {
      const std::int64_t rows = std::min(R, M - bi * R), cols = std::min(C, N - bj * C);
      struct Reg {
        std::int64_t v = 0;
        bool valid = false;
      };
      std::vector<std::vector<Reg>> ar(R, std::vector<Reg>(C)), br(R, std::vector<Reg>(C));
      std::vector<std::vector<std::int64_t>> acc(R, std::vector<std::int64_t>(C, 0));
      std::int64_t last_mac = -1;
      for (std::int64_t t = 0; t < K + R + C; ++t) {
        // shift: right for A, down for B (from the far end so values move one PE)
        for (std::int64_t r = 0; r < R; ++r)
          for (std::int64_t q = C - 1; q > 0; --q) ar[r][q] = ar[r][q - 1];
        for (std::int64_t q = 0; q < C; ++q)
          for (std::int64_t r = R - 1; r > 0; --r) br[r][q] = br[r - 1][q];
        // skewed injection at the edges
        for (std::int64_t r = 0; r < R; ++r) {
          const std::int64_t k = t - r;
          ar[r][0] = (r < rows && k >= 0 && k < K) ? Reg{a[bi * R + r][k], true} : Reg{};
        }
        for (std::int64_t q = 0; q < C; ++q) {
          const std::int64_t k = t - q;
          br[0][q] = (q < cols && k >= 0 && k < K) ? Reg{b[k][bj * C + q], true} : Reg{};
        }
        for (std::int64_t r = 0; r < R; ++r)
          for (std::int64_t q = 0; q < C; ++q)
            if (ar[r][q].valid && br[r][q].valid) {
              acc[r][q] += ar[r][q].v * br[r][q].v;
              last_mac = t;
            }
      }
      out.cycles += last_mac + 1;
      if (serial_drain) {
        // shift the accumulators down one row per cycle; row R-1 leaves first
        for (std::int64_t step = 0; step < R; ++step) {
          for (std::int64_t q = 0; q < C; ++q) {
            const std::int64_t r = R - 1 - step;  // the value leaving the bottom edge came from row r
            if (r < rows && q < cols) out.c[bi * R + r][bj * C + q] = acc[R - 1][q];
            for (std::int64_t x = R - 1; x > 0; --x) acc[x][q] = acc[x - 1][q];
            acc[0][q] = 0;
          }
          ++out.cycles;
        }
      } else {
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t q = 0; q < cols; ++q) out.c[bi * R + r][bj * C + q] = acc[r][q];
      }
    }
  return out;
}

// Weight stationary: fold (bj, bk) holds B[bk·R + r, bj·C + q] in PE[r, q]. `serial_load`: the weights are
// shifted in from the top edge, one row per cycle (R cycles), before the fold computes; double buffered: they
// were shifted into shadow registers during the previous fold. A[i, k] enters row r at the left at cycle i + r
// and moves right; the partial sum of C[i, j] enters column q at the top at cycle i + q, moves down adding
// A·B in each row, and leaves the bottom edge into the accumulator buffer (C += over the k folds).
SimResult simulate_ws(const Mat& a, const Mat& b, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t R,
                      std::int64_t C, bool serial_load) {
  SimResult out;
  out.c.assign(static_cast<std::size_t>(M), std::vector<std::int64_t>(static_cast<std::size_t>(N), 0));
  for (std::int64_t bj = 0; bj * C < N; ++bj)
    for (std::int64_t bk = 0; bk * R < K; ++bk) {
      const std::int64_t rows = std::min(R, K - bk * R), cols = std::min(C, N - bj * C);
      std::vector<std::vector<std::int64_t>> w(R, std::vector<std::int64_t>(C, 0));
      if (serial_load) {
        // shift rows in from the top: after R cycles row r holds weight row r
        for (std::int64_t step = 0; step < R; ++step) {
          for (std::int64_t r = R - 1; r > 0; --r) w[r] = w[r - 1];
          const std::int64_t src = R - 1 - step;
          for (std::int64_t q = 0; q < C; ++q) w[0][q] = (src < rows && q < cols) ? b[bk * R + src][bj * C + q] : 0;
          ++out.cycles;
        }
      } else {
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t q = 0; q < cols; ++q) w[r][q] = b[bk * R + r][bj * C + q];
      }
      struct Reg {
        std::int64_t v = 0;
        std::int64_t i = -1;  // the row of A / C it belongs to (-1: empty)
      };
      std::vector<std::vector<Reg>> ar(R, std::vector<Reg>(C)), pr(R, std::vector<Reg>(C));
      std::int64_t last_mac = -1;
      for (std::int64_t t = 0; t < M + R + C; ++t) {
        // partial sums leave the bottom edge
        for (std::int64_t q = 0; q < C; ++q)
          if (pr[R - 1][q].i >= 0 && q < cols) out.c[pr[R - 1][q].i][bj * C + q] += pr[R - 1][q].v;
        for (std::int64_t r = 0; r < R; ++r)
          for (std::int64_t q = C - 1; q > 0; --q) ar[r][q] = ar[r][q - 1];
        for (std::int64_t q = 0; q < C; ++q)
          for (std::int64_t r = R - 1; r > 0; --r) pr[r][q] = pr[r - 1][q];
        for (std::int64_t r = 0; r < R; ++r) {
          const std::int64_t i = t - r;
          ar[r][0] = (r < rows && i >= 0 && i < M) ? Reg{a[i][bk * R + r], i} : Reg{};
        }
        for (std::int64_t q = 0; q < C; ++q) {
          const std::int64_t i = t - q;
          pr[0][q] = (q < cols && i >= 0 && i < M) ? Reg{0, i} : Reg{};
        }
        // PE[r,q]: the A value arriving this cycle meets the partial sum of the same row i
        for (std::int64_t r = 0; r < R; ++r)
          for (std::int64_t q = 0; q < C; ++q)
            if (ar[r][q].i >= 0 && pr[r][q].i == ar[r][q].i && r < rows) {
              pr[r][q].v += ar[r][q].v * w[r][q];
              last_mac = t;
            }
      }
      // flush what is still in flight (not counted: it overlaps the next fold's start)
      for (std::int64_t step = 0; step < R; ++step) {
        for (std::int64_t q = 0; q < C; ++q)
          if (pr[R - 1][q].i >= 0 && q < cols) out.c[pr[R - 1][q].i][bj * C + q] += pr[R - 1][q].v;
        for (std::int64_t q = 0; q < C; ++q) {
          for (std::int64_t r = R - 1; r > 0; --r) pr[r][q] = pr[r - 1][q];
          pr[0][q] = Reg{};
        }
      }
      out.cycles += last_mac + 1;
    }
  return out;
}

Mat transpose(const Mat& x) {
  Mat t(x.empty() ? 0 : x[0].size(), std::vector<std::int64_t>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x[i].size(); ++j) t[j][i] = x[i][j];
  return t;
}

// Input stationary: fold (bi, bk) holds A[bi·C + q, bk·R + r] in PE[r, q] (k on the rows, i on the columns) and
// streams B[k, j] in from the left, one column j per cycle: the weight-stationary array of C^T = B^T · A^T, whose
// stationary operand is A^T (K x M) and whose streamed one is B^T (N x K). `serial_load` shifts A's fold in from the
// top, one row per cycle (R cycles), before the fold computes, as SCALE-Sim v3 does.
SimResult simulate_is(const Mat& a, const Mat& b, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t R,
                      std::int64_t C, bool serial_load) {
  SimResult t = simulate_ws(transpose(b), transpose(a), N, M, K, R, C, serial_load);
  t.c = transpose(t.c);
  return t;
}

arch::Arch sim_arch(std::int64_t R, std::int64_t C, arch::Buffering load, arch::Buffering drain) {
  arch::Arch a = tc_test::edge_arch(R, C, std::int64_t{1} << 30);  // one buffer tile: the whole GEMM
  a.stationary_load = load;
  a.output_drain = drain;
  a.buffer_bits_per_cycle = std::int64_t{1} << 40;  // the array terms are the only ones that matter here
  a.dram_mb_per_s = std::int64_t{1} << 40;
  return a;
}

std::int64_t array_cycles(const cost::GemmCost& c) {
  return c.cycles_of(cost::Term::kCompute) + c.cycles_of(cost::Term::kStationaryLoad) +
         c.cycles_of(cost::Term::kOutputDrain);
}

}  // namespace

TEST_CASE("register-level systolic simulation = compute + stationary_load + output_drain cycles") {
  const auto fp16 = quant::parse_scheme("q0f16");
  std::int64_t cases = 0;
  for (const std::int64_t R : {1, 2, 3, 4})
    for (const std::int64_t C : {1, 2, 4})
      for (const std::int64_t M : {1, 2, 5, 9})
        for (const std::int64_t N : {1, 3, 4, 7})
          for (const std::int64_t K : {1, 2, 6, 9}) {
            const Mat a = make(M, K, 1), b = make(K, N, 2), ref = reference(a, b, M, N, K);
            for (const bool serial : {false, true}) {
              const auto mode = serial ? arch::Buffering::kSerial : arch::Buffering::kDoubleBuffered;
              INFO("R=" << R << " C=" << C << " M=" << M << " N=" << N << " K=" << K << " serial=" << serial);
              // per dataflow: the serial mode on the load (ws, is) or the drain (os), the simulation, the other term
              const std::array<std::tuple<const char*, bool, SimResult, cost::Term>, 3> runs{
                  std::tuple{"os", false, simulate_os(a, b, M, N, K, R, C, serial), cost::Term::kStationaryLoad},
                  std::tuple{"ws", true, simulate_ws(a, b, M, N, K, R, C, serial), cost::Term::kOutputDrain},
                  std::tuple{"is", true, simulate_is(a, b, M, N, K, R, C, serial), cost::Term::kOutputDrain}};
              for (const auto& [df, on_load, sim, idle] : runs) {
                INFO("dataflow " << df);
                const auto dbl = arch::Buffering::kDoubleBuffered;
                cost::Estimator est(sim_arch(R, C, on_load ? mode : dbl, on_load ? dbl : mode),
                                    mapping::parse_dataflow(df));
                const auto& c = est.gemm(cost::GemmShape{1, M, N, K}, fp16);
                CHECK(sim.c == ref);
                CHECK(array_cycles(c) == sim.cycles);
                CHECK(c.cycles_of(idle) == 0);
              }
              ++cases;
            }
          }
  CHECK(cases == 4 * 3 * 4 * 4 * 4 * 2);
}

TEST_CASE("is with a serial stationary load: hand-derived closed form") {
  // M = 5, N = 3, K = 6 on a 4 x 4 array, one buffer tile. Input stationary: K on the rows (folds of 4 and 2), M on
  // the columns (4 and 1), N streamed. A fold of r rows and c columns computes in N + r + c - 2 stamps:
  // (4,4) 9, (2,4) 7, (4,1) 6, (2,1) 4 = 26; the serial load shifts each fold's inputs in: 4 folds x R = 16.
  const auto fp16 = quant::parse_scheme("q0f16");
  cost::Estimator serial(sim_arch(4, 4, arch::Buffering::kSerial, arch::Buffering::kDoubleBuffered),
                         mapping::parse_dataflow("is"));
  const auto& c = serial.gemm(cost::GemmShape{1, 5, 3, 6}, fp16);
  CHECK(c.cycles_of(cost::Term::kCompute) == 26);
  CHECK(c.cycles_of(cost::Term::kStationaryLoad) == 16);
  CHECK(array_cycles(c) == 42);
  cost::Estimator dbl(sim_arch(4, 4, arch::Buffering::kDoubleBuffered, arch::Buffering::kDoubleBuffered),
                      mapping::parse_dataflow("is"));
  CHECK(dbl.gemm(cost::GemmShape{1, 5, 3, 6}, fp16).cycles_of(cost::Term::kStationaryLoad) == 0);
  // a serial output drain has no output-stationary fold under is: no cycles (as under ws)
  cost::Estimator drain(sim_arch(4, 4, arch::Buffering::kDoubleBuffered, arch::Buffering::kSerial),
                        mapping::parse_dataflow("is"));
  CHECK(drain.gemm(cost::GemmShape{1, 5, 3, 6}, fp16).cycles_of(cost::Term::kOutputDrain) == 0);
}

TEST_CASE("pe_array.stationary_load / output_drain: parsed, checked, refused where not modelled") {
  const std::string base = R"({"pe_array": {"rows": 4, "cols": 4, "interconnect": "systolic", "output_drain": "DRAIN"},
    "macs_per_pe_per_cycle": {"fp16": 1}, "buffer": {"bytes": 65536, "bits_per_cycle": 64},
    "dram": {"mb_per_s": 1000}, "clock_mhz": 100})";
  auto with = [&](const std::string& mode) {
    std::string t = base;
    t.replace(t.find("DRAIN"), 5, mode);
    return t;
  };
  CHECK(arch::parse_arch(with("serial"), "a.json").output_drain == arch::Buffering::kSerial);
  CHECK(arch::parse_arch(with("serial"), "a.json").stationary_load == arch::Buffering::kDoubleBuffered);
  CHECK(arch::parse_arch(with("double_buffered"), "a.json").output_drain == arch::Buffering::kDoubleBuffered);
  CHECK_THROWS_WITH(arch::parse_arch(with("sometimes"), "a.json"),
                    Catch::Contains("expected double_buffered or serial for 'output_drain'"));
  // serial on a dataflow whose folds are not modelled (ncf, a generated mapping) is refused, not ignored
  for (const char* df : {"ncf", "gen:ij-k-r-21"}) {
    cost::Estimator est(arch::parse_arch(with("serial"), "a.json"), mapping::parse_dataflow(df));
    CHECK_THROWS_WITH(est.gemm(cost::GemmShape{1, 8, 8, 8}, quant::parse_scheme("q0f16")),
                      Catch::Contains("os, ws and is dataflows only"));
  }
  // the presets state their choice
  for (const char* name : {"edge-npu-32x32", "eyeriss-12x14", "mx-npu-32x32", "tpu-v1-256x256"}) {
    const auto a = arch::load_arch(name, tc_test::presets_dir());
    bool stated = false;
    for (const auto& s : a.sources) stated = stated || s.find("stationary_load") != std::string::npos;
    CHECK(stated);
  }
}
