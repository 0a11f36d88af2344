// The counter's resource limits, debug log and period helper.
#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <utility>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

void debug(const AnalyzeOptions& o, const std::string& line) {
  if (o.debug_log) {
    o.debug_log(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

std::string fmt_seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", s);
  return buf;
}

void Limits::charge(i64 points, i64 accesses, bool enumerate) {
  const i64 w = points > INT64_MAX / std::max<i64>(accesses, 1) ? INT64_MAX : points * accesses;
  work_ = w > INT64_MAX - work_ ? INT64_MAX : work_ + w;
  ++instances_;
  if (!enumerate && work_ > o_.max_work)
    throw InputError("cannot count within the work budget: the small instances of this mapping need " +
                     (work_ == INT64_MAX ? std::string("more than 9.2e18") : std::to_string(work_)) +
                     " point-accesses (statement instances x (1 + access relations)) after " +
                     std::to_string(instances_) + " instances, over the limit of " + std::to_string(o_.max_work) +
                     " (large periods, many tensors or coupled dimensions); use a smaller tile, another dataflow, "
                     "or raise the work budget");
  check_time();
}

void Limits::check_time() const {
  if (deadline_ != nullptr) deadline_->check();
  if (o_.time_limit_s <= 0) return;
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (el > o_.time_limit_s)
    throw InputError("the TENET engine exceeded its time limit of " + fmt_seconds(o_.time_limit_s) + " s (" +
                     fmt_seconds(el) + " s elapsed, " + std::to_string(instances_) +
                     " small instances counted); use a smaller tile, another dataflow, or raise the time limit "
                     "(--time-limit)");
}

}  // namespace tenet_cost::tenet::detail

namespace tenet_cost::tenet {

Deadline Deadline::from_now(double limit_s, std::string what) {
  Deadline d;
  if (!(limit_s > 0)) return d;
  d.at = std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limit_s));
  d.limit_s = limit_s;
  d.what = std::move(what);
  return d;
}

void Deadline::check() const {
  if (!set() || std::chrono::steady_clock::now() <= at) return;
  throw InputError(what + " exceeded its time limit of " + detail::fmt_seconds(limit_s) +
                   " s; use a smaller problem, another dataflow, or raise the time limit (--time-limit)");
}

}  // namespace tenet_cost::tenet

namespace tenet_cost::tenet::detail {

std::vector<i64> lcm_periods(const std::vector<const Piece*>& pieces, std::size_t nd) {
  std::vector<i64> L(nd, 1);
  for (const Piece* p : pieces) {
    const auto per = relation::periods(*p);
    for (std::size_t d = 0; d < nd; ++d) L[d] = checked_mul(L[d] / std::gcd(L[d], per[d]), per[d], "period");
  }
  return L;
}

}  // namespace tenet_cost::tenet::detail
