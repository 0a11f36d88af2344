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

#include "extract/internal.hpp"

namespace tenet_cost::xtir {

constexpr unsigned kMaxThreads = 8;

/// `requested` when > 0, else $TC_EXTRACT_THREADS when a positive integer, else the
/// hardware threads; at most kMaxThreads.
inline unsigned extract_threads(unsigned requested) {
  if (requested > 0) return std::min(requested, kMaxThreads);
  if (const char* env = std::getenv("TC_EXTRACT_THREADS"); env != nullptr && *env != '\0') {
    unsigned v = 0;
    const char* end = env + std::strlen(env);
    const auto [ptr, ec] = std::from_chars(env, end, v);
    if (ec == std::errc() && ptr == end && v > 0) return std::min(v, kMaxThreads);
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

/// f(i) for i in [0, n) on `threads` threads (this one included), indices handed out in order.
template <class F>
void run_parallel(unsigned threads, std::size_t n, const F& f) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) f(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  try {
    for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(work);
  } catch (...) {  // no more threads: this one and those started do the rest
  }
  work();
  for (auto& t : pool) t.join();
}

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
