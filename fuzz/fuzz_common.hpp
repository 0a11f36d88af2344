// Shared by the fuzz targets. Each target defines LLVMFuzzerTestOneInput; an
// InputError (bad input, clean message) is the expected outcome for garbage,
// anything else escaping - another exception, a sanitizer report, a crash,
// a hang - is a bug. Built two ways (fuzz/CMakeLists.txt): with libFuzzer
// (clang, TC_FUZZ=ON) and with replay_main.cpp (any compiler) so the
// checked-in corpus also runs under gcc + ASan/UBSan in ctest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tenet_cost/error.hpp"

namespace tc_fuzz {

/// Inputs above this size are skipped: they only slow the fuzzer down (the
/// size limits themselves are tested in tests/malformed).
inline constexpr std::size_t kMaxInput = 64 * 1024;

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
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
