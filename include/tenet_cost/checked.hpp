// Checked integer arithmetic. Counts of MACs, volumes and cycles reach
// 10^11..10^14 for LLM workloads; every operation that can overflow goes
// through these helpers, which throw OverflowError instead of wrapping.
#pragma once

#include <cstdint>
#include <string_view>

#include "tenet_cost/error.hpp"

namespace tenet_cost {

using i64 = std::int64_t;
using u64 = std::uint64_t;
__extension__ using i128 = __int128;  // GCC/Clang extension; -Wpedantic-safe

[[noreturn]] void throw_overflow(std::string_view what);

inline i64 checked_add(i64 a, i64 b, std::string_view what = "addition") {
  i64 r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(what);
  return r;
}
inline i64 checked_sub(i64 a, i64 b, std::string_view what = "subtraction") {
  i64 r;
  if (__builtin_sub_overflow(a, b, &r)) throw_overflow(what);
  return r;
}
inline i64 checked_mul(i64 a, i64 b, std::string_view what = "multiplication") {
  i64 r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(what);
  return r;
}
/// Narrow a 128-bit intermediate back to 64 bits, or throw.
inline i64 checked_narrow(i128 v, std::string_view what = "value") {
  if (v > static_cast<i128>(INT64_MAX) || v < static_cast<i128>(INT64_MIN)) throw_overflow(what);
  return static_cast<i64>(v);
}
/// Floor division and modulo (isl / Python semantics: the quotient rounds
/// toward minus infinity, the remainder has the divisor's sign). A zero
/// divisor is an InputError, INT64_MIN / -1 an OverflowError.
[[noreturn]] void throw_division_by_zero();
inline i64 floor_div(i64 a, i64 b) {
  if (b == 0) throw_division_by_zero();
  if (b == -1 && a == INT64_MIN) throw_overflow("floor division");
  i64 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline i64 floor_mod(i64 a, i64 b) {
  if (b == 0) throw_division_by_zero();
  if (b == -1) return 0;
  // a - floor_div(a, b) * b can overflow in the product although the result fits
  // (found by fuzz_relation); the truncated remainder and one correction cannot.
  const i64 r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline i64 ceil_div(i64 a, i64 b) {
  if (a == INT64_MIN) throw_overflow("ceiling division");
  return -floor_div(-a, b);
}

}  // namespace tenet_cost
