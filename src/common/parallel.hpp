// Worker threads shared by the front-end's parallel parse (src/ir) and the
// extractor (src/extract): how many, and a loop over indices on them.
#pragma once

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace tenet_cost::parallel {

inline constexpr unsigned kMaxThreads = 8;

/// `requested` when > 0, else the environment variable `env_var` when it is a
/// positive integer, else the hardware threads; at most kMaxThreads.
inline unsigned thread_count(unsigned requested, const char* env_var) {
  if (requested > 0) return std::min(requested, kMaxThreads);
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') {
    unsigned v = 0;
    const char* end = env + std::strlen(env);
    const auto [ptr, ec] = std::from_chars(env, end, v);
    if (ec == std::errc() && ptr == end && v > 0) return std::min(v, kMaxThreads);
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

/// f(0) .. f(n-1) on `threads` threads (this one included), each taking the
/// next index when it is done with one (indices handed out in order); f must
/// not throw. With no thread to spare, this thread does them all.
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

}  // namespace tenet_cost::parallel
