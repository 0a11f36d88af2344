// How a sweep hands its points to the threads (run.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace tenet_cost::sweep {

// The points handed to the threads in chunks. Each thread starts on its own contiguous share of the grid, so that
// threads work far apart in it and rarely need the same GEMM at the same moment (both would search it: the memo
// holds only finished results); a thread whose share is done takes the back half of the largest share left. One
// thread goes through the points in order.
class Shares {
 public:
  /// Points 0 .. points - 1 (at most a sweep's 10^7) for `threads` >= 1 threads, `chunk` >= 1 points at a time.
  Shares(std::int64_t points, unsigned threads, std::int64_t chunk) : chunk_(chunk) {
    for (unsigned t = 0; t < threads; ++t)
      left_.emplace_back(points * t / threads, points * (t + 1) / threads);  // [front, back)
  }
  /// The next chunk [b, e) of thread `t` (< threads); false when every point is handed out.
  bool next(unsigned t, std::int64_t& b, std::int64_t& e) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& mine = left_[t];
    if (mine.first == mine.second) {
      auto& most = *std::max_element(left_.begin(), left_.end(), [](const auto& x, const auto& y) {
        return x.second - x.first < y.second - y.first;
      });
      const std::int64_t rest = most.second - most.first;
      if (rest == 0) return false;
      const std::int64_t split = most.second - (rest >= 2 * chunk_ ? rest / 2 : std::min(rest, chunk_));
      mine = {split, most.second};
      most.second = split;
    }
    b = mine.first;
    e = std::min(b + chunk_, mine.second);
    mine.first = e;
    return true;
  }

 private:
  std::mutex mu_;
  std::int64_t chunk_;
  std::vector<std::pair<std::int64_t, std::int64_t>> left_;
};

}  // namespace tenet_cost::sweep
