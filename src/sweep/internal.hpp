// Private helpers of the sweep module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tenet_cost/sweep.hpp"

namespace tenet_cost::sweep {

/// A positive decimal integer; throws InputError "<what>: expected a positive integer, found '<text>'".
std::int64_t positive_integer(const std::string& text, const std::string& what);

/// FNV-1a, 64 bits: the point ids and the file digests (stable across runs, machines and builds).
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL) {
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}
/// 16 lowercase hex digits.
std::string hex16(std::uint64_t v);

}  // namespace tenet_cost::sweep
