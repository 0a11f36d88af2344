// Random word swaps for the extractor's robustness tests.
#pragma once

#include <cctype>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace tc_test {

/// `text` with `edits` words replaced: each time the word (letters, digits,
/// '_') at or after a random position becomes a random entry of `swaps`.
inline std::string mutate_words(std::string t, int edits, std::mt19937& rng, const std::vector<std::string>& swaps) {
  for (int e = 0; e < edits; ++e) {
    std::size_t pos = rng() % t.size();
    while (pos < t.size() && !std::isalnum(static_cast<unsigned char>(t[pos]))) ++pos;
    std::size_t end = pos;
    while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) || t[end] == '_')) ++end;
    t.replace(pos, end - pos, swaps[rng() % swaps.size()]);
  }
  return t;
}

}  // namespace tc_test
