// Threads of the extractor (docs/extract.md "Threads"): independent per-function
// work run on worker threads, its results, debug lines and errors taken back on the
// calling thread in function order, so the outcome is always the serial one.
#pragma once

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/parallel.hpp"
#include "extract/internal.hpp"

namespace tenet_cost::xtir {

/// `requested` when > 0, else $TC_EXTRACT_THREADS when a positive integer, else the
/// hardware threads; at most parallel::kMaxThreads.
inline unsigned extract_threads(unsigned requested) { return parallel::thread_count(requested, "TC_EXTRACT_THREADS"); }

using parallel::run_parallel;

/// The serial loop `for i in [0, n): take(i, work(i))`, with the work(i) on `threads`
/// threads: each work's debug lines (xtir::debug) are kept and written just before its
/// take, in index order, and the first exception in index order that a work throws is
/// rethrown here after the takes before it (later works are then not needed; those
/// not yet started are skipped). take runs on the calling thread only.
template <class R, class Work, class Take>
void ordered_parallel(unsigned threads, std::size_t n, const Work& work, const Take& take) {
  struct Slot {
    std::optional<R> value;
    std::vector<std::string> log;
    std::exception_ptr error;
  };
  std::vector<Slot> slots(n);
  std::atomic<std::size_t> first_error{n};
  run_parallel(threads, n, [&](std::size_t i) {
    if (i > first_error.load(std::memory_order_relaxed)) return;
    Slot& s = slots[i];
    LogCapture capture(s.log);
    try {
      s.value.emplace(work(i));
    } catch (...) {
      s.error = std::current_exception();
      std::size_t cur = first_error.load();
      while (i < cur && !first_error.compare_exchange_weak(cur, i)) {
      }
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    for (const auto& line : s.log) spdlog::debug("{}", line);
    if (s.error) std::rethrow_exception(s.error);
    take(i, std::move(*s.value));
    s = Slot{};
  }
}

}  // namespace tenet_cost::xtir
