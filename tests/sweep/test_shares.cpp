// sweep::Shares (src/sweep/shares.hpp): how a sweep hands its points to its threads. Oracle: the set of points, each
// handed out exactly once, whatever the order in which the threads ask.
#include <catch2/catch.hpp>

#include <cstdint>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "sweep/shares.hpp"

using tenet_cost::sweep::Shares;

namespace {

// Every chunk handed out, with the thread that asked, until every thread was refused; threads ask in the order
// `pick` gives.
template <class Pick>
std::vector<std::pair<unsigned, std::pair<std::int64_t, std::int64_t>>> drain(Shares& s, unsigned threads,
                                                                              Pick&& pick) {
  std::vector<std::pair<unsigned, std::pair<std::int64_t, std::int64_t>>> got;
  std::vector<bool> done(threads, false);
  for (unsigned left = threads; left > 0;) {
    const unsigned t = pick();
    if (done[t]) continue;
    std::int64_t b = -1, e = -1;
    if (s.next(t, b, e)) {
      got.push_back({t, {b, e}});
    } else {
      done[t] = true;
      --left;
    }
  }
  return got;
}

void require_each_point_once(const std::vector<std::pair<unsigned, std::pair<std::int64_t, std::int64_t>>>& got,
                             std::int64_t points, std::int64_t chunk) {
  std::vector<int> seen(static_cast<std::size_t>(points), 0);
  for (const auto& [t, r] : got) {
    REQUIRE(r.first < r.second);
    REQUIRE(r.second - r.first <= chunk);
    REQUIRE(r.first >= 0);
    REQUIRE(r.second <= points);
    for (auto i = r.first; i < r.second; ++i) ++seen[static_cast<std::size_t>(i)];
  }
  for (const int n : seen) REQUIRE(n == 1);
}

}  // namespace

TEST_CASE("one thread takes the points in order, chunk by chunk", "[sweep][shares]") {
  Shares s(10, 1, 4);
  std::int64_t b = 0, e = 0;
  REQUIRE(s.next(0, b, e));
  CHECK((b == 0 && e == 4));
  REQUIRE(s.next(0, b, e));
  CHECK((b == 4 && e == 8));
  REQUIRE(s.next(0, b, e));
  CHECK((b == 8 && e == 10));
  CHECK_FALSE(s.next(0, b, e));
  CHECK_FALSE(s.next(0, b, e));
}

TEST_CASE("threads start on their own share; a thread done takes the back half of the largest left",
          "[sweep][shares]") {
  Shares s(100, 2, 5);  // shares [0, 50) and [50, 100)
  std::int64_t b = 0, e = 0;
  REQUIRE(s.next(1, b, e));
  CHECK((b == 50 && e == 55));
  for (int i = 0; i < 10; ++i) REQUIRE(s.next(0, b, e));  // thread 0's whole share
  CHECK((b == 45 && e == 50));
  REQUIRE(s.next(0, b, e));  // thread 1 has [55, 100) left: thread 0 takes [78, 100) (45 / 2 = 22 points)
  CHECK((b == 78 && e == 83));
  REQUIRE(s.next(1, b, e));
  CHECK((b == 55 && e == 60));
  // less than two chunks left in the largest share: the thief takes one chunk from its back
  Shares t(12, 2, 5);  // [0, 6) and [6, 12)
  REQUIRE(t.next(0, b, e));
  REQUIRE(t.next(0, b, e));
  CHECK((b == 5 && e == 6));
  REQUIRE(t.next(0, b, e));  // 6 left in [6, 12): 6 >= 2 * 5 is false, so the last 5
  CHECK((b == 7 && e == 12));
  REQUIRE(t.next(1, b, e));
  CHECK((b == 6 && e == 7));
  CHECK_FALSE(t.next(1, b, e));
  CHECK_FALSE(t.next(0, b, e));
}

TEST_CASE("every point is handed out exactly once, in any order of requests", "[sweep][shares]") {
  std::mt19937 rng(25);
  for (int trial = 0; trial < 400; ++trial) {
    const auto points = std::uniform_int_distribution<std::int64_t>(1, 400)(rng);
    const auto threads = std::uniform_int_distribution<unsigned>(1, 8)(rng);
    const auto chunk = std::uniform_int_distribution<std::int64_t>(1, 64)(rng);
    Shares s(points, threads, chunk);
    std::uniform_int_distribution<unsigned> any(0, threads - 1);
    const auto got = drain(s, threads, [&] { return any(rng); });
    INFO("points " << points << ", threads " << threads << ", chunk " << chunk);
    require_each_point_once(got, points, chunk);
  }
}

TEST_CASE("every point is handed out exactly once to real threads", "[sweep][shares]") {
  const std::int64_t points = 100000;
  Shares s(points, 4, 7);
  std::mutex mu;
  std::vector<std::pair<unsigned, std::pair<std::int64_t, std::int64_t>>> got;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      std::vector<std::pair<std::int64_t, std::int64_t>> mine;
      for (std::int64_t b = 0, e = 0; s.next(t, b, e);) mine.emplace_back(b, e);
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& r : mine) got.push_back({t, r});
    });
  for (auto& th : pool) th.join();
  require_each_point_once(got, points, 7);
}
