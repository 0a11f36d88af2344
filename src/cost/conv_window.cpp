// Sliding-window reuse of a convolution's input (conv_window.hpp).
#include "conv_window.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <string>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost::detail {

namespace {

using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

// |xs + step·[0, n)|: the union of the n copies of xs shifted by multiples of step.
std::int64_t smeared(const Intervals& xs, std::int64_t n, std::int64_t step) {
  if (xs.size() == 1) {  // one interval of length L: L + (n - 1) min(step, L)
    const std::int64_t len = xs[0].second - xs[0].first + 1;
    return checked_add(len, checked_mul(n - 1, std::min(step, len), "conv input"), "conv input");
  }
  Intervals all;
  all.reserve(xs.size() * static_cast<std::size_t>(n));
  for (const auto& [lo, hi] : xs)
    for (std::int64_t j = 0; j < n; ++j) all.emplace_back(lo + j * step, hi + j * step);
  std::sort(all.begin(), all.end());
  std::int64_t total = 0, lo = all[0].first, hi = all[0].second;
  for (const auto& [a, b] : all) {
    if (a > hi + 1) {
      total += hi - lo + 1;
      lo = a;
      hi = b;
    } else {
      hi = std::max(hi, b);
    }
  }
  return total + hi - lo + 1;
}

}  // namespace

std::int64_t window_union(const Intervals& xs, std::int64_t kernel, std::int64_t stride, std::int64_t dilation) {
  if (xs.empty()) return 0;
  // r and r' land in the same residue class mod stride iff r = r' mod stride' (stride' = stride / g, g = gcd): the
  // classes are disjoint, and inside one, r = c + j·stride' adds j·dilation' strides (dilation' = dilation / g)
  const std::int64_t g = std::gcd(stride, dilation), sp = stride / g, dp = dilation / g;
  std::int64_t total = 0;
  for (std::int64_t c = 0; c < std::min(kernel, sp); ++c)
    total = checked_add(total, smeared(xs, (kernel - c + sp - 1) / sp, dp), "conv input");
  return total;
}

std::int64_t conv_run_elements(const ConvWindow& w, std::int64_t first, std::int64_t last) {
  const std::int64_t pq = w.out_h * w.out_w;
  const auto rows = [&](std::int64_t a, std::int64_t b) {
    return a > b ? 0 : window_union({{a, b}}, w.kernel_h, w.stride_h, w.dilation_h);
  };
  const auto cols = [&](const Intervals& xs) { return window_union(xs, w.kernel_w, w.stride_w, w.dilation_w); };
  // one image's positions a..b: output rows p0 (columns q0..), the rows between (whole), p1 (columns ..q1)
  const auto in_image = [&](std::int64_t a, std::int64_t b) -> std::int64_t {
    const std::int64_t p0 = a / w.out_w, q0 = a % w.out_w, p1 = b / w.out_w, q1 = b % w.out_w;
    if (p0 == p1) return checked_mul(rows(p0, p0), cols({{q0, q1}}), "conv input");
    const std::int64_t full = cols({{0, w.out_w - 1}}), c0 = cols({{q0, w.out_w - 1}}), c1 = cols({{0, q1}});
    const std::int64_t c01 = q1 + 1 >= q0 ? full : cols({{0, q1}, {q0, w.out_w - 1}});
    // input rows: those of a middle row see every column; the others those of p0, of p1, or of both
    const std::int64_t all = rows(p0, p1), head = rows(p0, p1 - 1), tail = rows(p0 + 1, p1), mid = rows(p0 + 1, p1 - 1);
    const std::int64_t only0 = all - tail, only1 = all - head, both = head + tail - mid - all;
    i128 n = static_cast<i128>(mid) * full + static_cast<i128>(only0) * c0 + static_cast<i128>(only1) * c1 +
             static_cast<i128>(both) * c01;
    return checked_narrow(n, "conv input");
  };
  const std::int64_t n0 = first / pq, n1 = last / pq;
  if (n0 == n1) return in_image(first % pq, last % pq);
  const std::int64_t whole = checked_mul(rows(0, w.out_h - 1), cols({{0, w.out_w - 1}}), "conv input");
  return checked_add(checked_add(in_image(first % pq, pq - 1), checked_mul(n1 - n0 - 1, whole, "conv input")),
                     in_image(0, last % pq), "conv input");
}

std::int64_t conv_input_elements(const ConvWindow& w, std::int64_t tm) {
  // the tile search asks for the same (window, tm) under every n, k and order: memoised per thread
  using Key = std::array<std::int64_t, 11>;
  thread_local std::map<Key, std::int64_t> memo;
  const Key key{w.images,   w.out_h,    w.out_w,      w.channels,   w.kernel_h, w.kernel_w,
                w.stride_h, w.stride_w, w.dilation_h, w.dilation_w, tm};
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  const std::int64_t m = w.images * w.out_h * w.out_w;
  std::int64_t sum = 0;
  for (std::int64_t first = 0; first < m; first += tm)
    sum = checked_add(sum, conv_run_elements(w, first, std::min(first + tm, m) - 1), "conv input");
  const std::int64_t out = checked_mul(sum, w.channels, "conv input");
  if (memo.size() > 4096) memo.clear();
  memo.emplace(key, out);
  return out;
}

bool is_conv_input(const quant::Operand& op) {
  if (op.write || op.role != quant::OperandRole::kActivation || op.index.size() != 2) return false;
  bool i = false, k = false;
  for (const auto& t : op.index) {
    i = i || (t.dim == 'i' && t.divisor == 1);
    k = k || (t.dim == 'k' && t.divisor == 1);
  }
  return i && k;
}

void check_conv_window(const GemmShape& s) {
  if (!s.conv) return;
  const ConvWindow& w = *s.conv;
  for (const std::int64_t v : {w.images, w.out_h, w.out_w, w.channels, w.kernel_h, w.kernel_w, w.stride_h, w.stride_w,
                               w.dilation_h, w.dilation_w})
    if (v < 1) throw InputError("expected a convolution window of positive sizes, found " + std::to_string(v));
  const std::int64_t m = checked_mul(checked_mul(w.images, w.out_h, "conv m"), w.out_w, "conv m");
  const std::int64_t k = checked_mul(checked_mul(w.channels, w.kernel_h, "conv k"), w.kernel_w, "conv k");
  if (m != s.m || k != s.k)
    throw InputError("expected a convolution window with m = images x output pixels = " + std::to_string(s.m) +
                     " and k = channels x kernel volume = " + std::to_string(s.k) + ", found m = " + std::to_string(m) +
                     ", k = " + std::to_string(k));
}

}  // namespace tenet_cost::cost::detail
