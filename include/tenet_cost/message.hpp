// Helpers for user-facing messages and command-line values (docs/reliability.md):
// quoting input safely, "did you mean", tolerant comma lists, finite outputs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tenet_cost {

/// `'text'` for a message: a UTF-8 BOM shows as \ufeff, control bytes as \n, \t, \xNN, invalid
/// UTF-8 as \xNN, and text longer than `max_chars` is elided in the middle with its length:
/// `'12345678901234567890...7890' (100000 bytes)`. Always one line.
[[nodiscard]] std::string quote_for_message(std::string_view text, std::size_t max_chars = 40);

/// Length of the valid UTF-8 character starting at s[i]: 1 for ASCII, 2..4 for a valid
/// multi-byte sequence, 0 for an invalid byte (overlong, surrogate, truncated, > U+10FFFF).
[[nodiscard]] std::size_t utf8_char_length(std::string_view s, std::size_t i);

/// Edit distance with adjacent swaps (optimal string alignment; bytes,
/// case-insensitive for ASCII letters).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `text` when it is close enough to be a likely typo
/// (distance <= max(1, |text|/3)), else "". Ties: the first in `candidates`.
[[nodiscard]] std::string closest_match(std::string_view text, const std::vector<std::string>& candidates);

/// "; did you mean 'X'?" for closest_match, or "".
[[nodiscard]] std::string did_you_mean(std::string_view text, const std::vector<std::string>& candidates);

/// Splits a comma-separated command-line list: items are trimmed of spaces and
/// tabs ("q0f16, q4f16_1"); empty items ("a,,b", "a,") are kept as "" so the
/// caller can refuse them with its own message.
[[nodiscard]] std::vector<std::string> split_list(const std::string& text);

/// Returns `value` when it is finite; otherwise throws InputError
/// "<what> is not a finite number (...)": an output never shows inf or nan.
double require_finite(double value, std::string_view what);

}  // namespace tenet_cost
