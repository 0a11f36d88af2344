// Shared by the fuzz targets. Each target defines LLVMFuzzerTestOneInput; an
// InputError (bad input, clean message) is the expected outcome for garbage,
// anything else escaping - another exception, a sanitizer report, a crash,
// a hang - is a bug. Built two ways (fuzz/CMakeLists.txt): with libFuzzer
// (clang, TC_FUZZ=ON) and with replay_main.cpp (any compiler) so the
// checked-in corpus also runs under gcc + ASan/UBSan in ctest.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tenet_cost/error.hpp"

namespace tc_fuzz {

/// Inputs above this size are skipped: they only slow the fuzzer down (the
/// size limits themselves are tested in tests/malformed).
inline constexpr std::size_t kMaxInput = 64 * 1024;

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Aborts (a finding) unless every number of the JSON text is finite and non-negative: an accepted input never
/// yields a negative count, a negative or infinite time or energy (issue 28: the silent-wrong-number classes).
inline void check_non_negative(const nlohmann::json& j) {
  if (j.is_number_float() && !(std::isfinite(j.get<double>()) && j.get<double>() >= 0)) __builtin_trap();
  if (j.is_number_integer() && j.get<std::int64_t>() < 0) __builtin_trap();
  if (j.is_array() || j.is_object())
    for (const auto& v : j) check_non_negative(v);
}

/// The output checks of a harness: `run()` returns the result as JSON text; it must be the same text on a second
/// run (deterministic) and hold only finite, non-negative numbers.
template <typename Run>
void check_output(Run&& run) {
  const std::string first = run();
  if (run() != first) __builtin_trap();  // not deterministic
  check_non_negative(nlohmann::json::parse(first));
}

/// Runs `f`; InputError (incl. OverflowError) is a clean rejection.
template <typename F>
int guarded(F&& f) {
  try {
    f();
  } catch (const tenet_cost::InputError&) {
    // expected for bad input (the message itself is checked by tests/malformed)
  }
  return 0;
}

}  // namespace tc_fuzz
