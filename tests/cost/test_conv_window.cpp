// Sliding-window reuse of a convolution's input (src/cost/conv_window.cpp, docs/model.md "Convolutions") against
// brute force: the distinct input elements a tile touches, enumerated as a set; and the DRAM closed form of the
// input (nest.cpp) against a simulation of the tiled loop nest that fetches the touched elements of an input tile
// whenever the tile the nest needs changes, for every tile (k tiles of whole kernel windows) and every order.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cost/arch_support.hpp"
#include "cost/conv_window.hpp"
#include "cost/nest.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/quant.hpp"

using namespace tenet_cost;
using cost::ConvWindow;
using cost::detail::Nest;

namespace {

using Elem = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;  // image, channel, row, column

// The input elements touched by the outputs m in [m0, m1) and the reduction indices k in [k0, k1).
std::int64_t touched(const ConvWindow& w, std::int64_t m0, std::int64_t m1, std::int64_t k0, std::int64_t k1) {
  std::set<Elem> s;
  for (std::int64_t m = m0; m < m1; ++m) {
    const std::int64_t img = m / (w.out_h * w.out_w), p = m / w.out_w % w.out_h, q = m % w.out_w;
    for (std::int64_t k = k0; k < k1; ++k) {
      const std::int64_t c = k / (w.kernel_h * w.kernel_w), r = k / w.kernel_w % w.kernel_h, t = k % w.kernel_w;
      s.emplace(img, c, p * w.stride_h + r * w.dilation_h, q * w.stride_w + t * w.dilation_w);
    }
  }
  return static_cast<std::int64_t>(s.size());
}

// The tiled loop nest in the tile's order: the input tile (m, k tile) is fetched whenever it changes.
std::int64_t simulate_input(const ConvWindow& w, const Nest& nest) {
  std::int64_t moved = 0;
  std::array<std::int64_t, 2> prev{-1, -1};
  const std::string& order = nest.order;
  const auto trips = [&](std::size_t pos) { return nest.dim(order[pos]).trips(); };
  for (std::int64_t a = 0; a < trips(0); ++a)
    for (std::int64_t b = 0; b < trips(1); ++b)
      for (std::int64_t c = 0; c < trips(2); ++c) {
        std::array<std::int64_t, 3> at{};  // tile coordinates by loop slot
        at[static_cast<std::size_t>(cost::detail::loop_slot(order[0]))] = a;
        at[static_cast<std::size_t>(cost::detail::loop_slot(order[1]))] = b;
        at[static_cast<std::size_t>(cost::detail::loop_slot(order[2]))] = c;
        const std::array<std::int64_t, 2> tile{at[0], at[2]};
        if (tile == prev) continue;
        prev = tile;
        const auto& dm = nest.dim('m');
        const auto& dk = nest.dim('k');
        moved += touched(w, tile[0] * dm.tile, std::min(dm.extent, (tile[0] + 1) * dm.tile), tile[1] * dk.tile,
                         std::min(dk.extent, (tile[1] + 1) * dk.tile));
      }
  return moved;
}

cost::GemmShape conv_shape(const ConvWindow& w, std::int64_t n) {
  cost::GemmShape s{1, w.images * w.out_h * w.out_w, n, w.channels * w.kernel_h * w.kernel_w};
  s.conv = w;
  return s;
}

// images, out_h, out_w, channels, kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w
const std::vector<ConvWindow>& small_convs() {
  static const std::vector<ConvWindow> convs = {{1, 3, 4, 2, 3, 3, 1, 1, 1, 1}, {2, 2, 3, 1, 2, 3, 2, 1, 1, 2},
                                                {1, 4, 4, 2, 3, 1, 3, 2, 1, 1}, {2, 3, 2, 3, 1, 1, 1, 1, 1, 1},
                                                {1, 1, 5, 2, 1, 4, 1, 2, 1, 1}, {1, 3, 3, 1, 2, 2, 1, 1, 2, 3},
                                                {3, 2, 2, 2, 2, 2, 2, 2, 1, 1}, {1, 2, 5, 1, 3, 2, 2, 3, 2, 1}};
  return convs;
}

}  // namespace

TEST_CASE("conv window: 1-D unions of strided, dilated windows equal brute force") {
  for (std::int64_t kernel = 1; kernel <= 5; ++kernel)
    for (std::int64_t stride = 1; stride <= 5; ++stride)
      for (std::int64_t dil = 1; dil <= 4; ++dil)
        for (std::int64_t lo = 0; lo <= 2; ++lo)
          for (std::int64_t hi = lo; hi <= 7; ++hi)
            for (std::int64_t gap = 0; gap <= 3; ++gap) {
              // one interval [lo, hi], or two: [0, lo] and [hi + gap + 2, hi + gap + 4]
              std::vector<std::pair<std::int64_t, std::int64_t>> xs{{lo, hi}};
              if (gap > 0) xs = {{0, lo}, {hi + gap + 2, hi + gap + 4}};
              std::set<std::int64_t> s;
              for (const auto& [a, b] : xs)
                for (std::int64_t x = a; x <= b; ++x)
                  for (std::int64_t r = 0; r < kernel; ++r) s.insert(x * stride + r * dil);
              INFO("kernel " << kernel << " stride " << stride << " dilation " << dil << " lo " << lo << " hi " << hi
                             << " gap " << gap);
              CHECK(cost::detail::window_union(xs, kernel, stride, dil) == static_cast<std::int64_t>(s.size()));
            }
}

TEST_CASE("conv window: the distinct inputs of every run of outputs equal brute force") {
  std::int64_t runs = 0;
  for (const auto& w : small_convs()) {
    const std::int64_t m = w.images * w.out_h * w.out_w;
    for (std::int64_t first = 0; first < m; ++first)
      for (std::int64_t last = first; last < m; ++last) {
        INFO("outputs " << first << ".." << last);
        CHECK(cost::detail::conv_run_elements(w, first, last) ==
              touched(w, first, last + 1, 0, w.kernel_h * w.kernel_w));
        ++runs;
      }
  }
  CHECK(runs > 500);
}

TEST_CASE("conv input DRAM traffic equals a simulation of the tiled loop nest, every tile and order") {
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), quant::GemmRole::kLinear, quant::DequantSite::kEdge);
  std::int64_t compared = 0;
  for (const auto& w : small_convs()) {
    const std::int64_t window = w.kernel_h * w.kernel_w;
    for (const std::int64_t n : {1, 3}) {
      const cost::GemmShape s = conv_shape(w, n);
      cost::GemmShape plain = s;
      plain.conv.reset();
      for (std::int64_t tm = 1; tm <= s.m; ++tm)
        for (std::int64_t tk = window; tk <= s.k; tk += window)
          for (const std::int64_t tn : {std::int64_t{1}, n})
            for (const char* order : {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"}) {
              const Nest nest(s, {tm, tn, tk, order});
              const Nest im2col(plain, {tm, tn, tk, order});
              INFO("conv m=" << s.m << " k=" << s.k << " tile " << tm << "x" << tn << "x" << tk << " " << order);
              for (const auto& op : ops) {
                const auto got = cost::detail::dram_move(op, nest);
                if (cost::detail::is_conv_input(op)) {
                  CHECK(got.first == simulate_input(w, nest));
                  CHECK(got.first <= cost::detail::dram_move(op, im2col).first);
                } else {  // the filter and the output move as in the GEMM
                  CHECK(got.first == cost::detail::dram_move(op, im2col).first);
                  CHECK(got.partial == cost::detail::dram_move(op, im2col).partial);
                }
              }
              ++compared;
            }
    }
  }
  CHECK(compared > 2000);
}

TEST_CASE("conv window: hand-derived closed forms") {
  // AlexNet conv1: 55 x 55 outputs, 11 x 11 x 3 window, stride 4. One tile: (54·4 + 11)^2 = 227^2 inputs per channel.
  const ConvWindow alex{1, 55, 55, 3, 11, 11, 4, 4, 1, 1};
  CHECK(cost::detail::conv_input_elements(alex, 55 * 55) == 3 * 227 * 227);  // 154,587 (im2col: 1,098,075)
  // one output row per tile: 11 input rows x 227 columns, 55 tiles
  CHECK(cost::detail::conv_input_elements(alex, 55) == 55 * 11 * 227 * 3);
  // a 1x1 convolution with stride 2 touches one input per output, no halo: as im2col
  const ConvWindow pointwise{2, 4, 4, 8, 1, 1, 2, 2, 1, 1};
  CHECK(cost::detail::conv_input_elements(pointwise, 5) == 2 * 4 * 4 * 8);
  // 3x3, dilation 2, stride 1 over 4 x 4 outputs: (4 - 1) + 2·2 + 1 = 8 rows and columns
  CHECK(cost::detail::conv_input_elements({1, 4, 4, 1, 3, 3, 1, 1, 2, 2}, 16) == 8 * 8);
}

TEST_CASE("conv window through the estimator: k tiles of whole windows, input bytes from the halo") {
  const auto fp16 = quant::parse_scheme("q0f16");
  const ConvWindow w{1, 28, 28, 16, 3, 3, 1, 1, 1, 1};  // m = 784, k = 144
  const cost::GemmShape s = conv_shape(w, 32);
  cost::GemmShape plain = s;
  plain.conv.reset();
  cost::Estimator est(tc_test::edge_arch(8, 8, 4096), mapping::parse_dataflow("ws"));
  const auto& c = est.gemm(s, fp16);
  CHECK((c.tile.k == s.k || c.tile.k % 9 == 0));
  const Nest nest(s, c.tile);
  const auto& a = c.tensors.front();
  REQUIRE(a.name == "A");
  CHECK(a.dram_bytes == 2 * simulate_input(w, nest));
  // the same tile as a plain GEMM moves the im2col matrix
  cost::Estimator est2(tc_test::edge_arch(8, 8, 4096), mapping::parse_dataflow("ws"));
  CHECK(est2.gemm(plain, fp16, c.tile).tensors.front().dram_bytes >= a.dram_bytes);
  // a k tile that splits a window is refused, naming it
  CHECK_THROWS_WITH(est.gemm(s, fp16, cost::Tile{16, 32, 8, "mnk"}),
                    Catch::Contains("the group size and the kernel window 9"));
  // a window that does not match the GEMM is refused
  cost::GemmShape bad = s;
  bad.k = 145;
  CHECK_THROWS_WITH(est.gemm(bad, fp16), Catch::Contains("k = channels x kernel volume = 145"));
}
