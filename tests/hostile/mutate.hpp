// The hostile-input generator (issue 28 item 6): deterministic mutations of a project fixture. Each mutation
// is a whole file's bytes plus its class; the caller runs it in-process and judges the outcome.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tc_hostile {

enum class MutationClass {
  kInteger,   // one integer literal set to 0, -1, 2^31, 2^32, 2^62, 2^63-1, -2^63 or 2^64
  kTruncate,  // the file cut after a line
  kTwice,     // the file given twice (concatenated with itself)
  kFlip,      // one byte xor-ed with a non-zero byte
  kEncoding,  // a UTF-8 byte-order mark, or the whole file as UTF-16LE with its BOM
};

/// A mutation whose accepted result must equal the unmutated file's (the same text, or the text twice).
inline bool keeps_value(MutationClass c) { return c == MutationClass::kTwice || c == MutationClass::kEncoding; }

struct Mutation {
  MutationClass cls;
  std::string what;   // e.g. "integer 3 of 41 -> 2^63-1", "truncated after line 12"
  std::string bytes;  // the mutated file
};

/// A deterministic generator (splitmix64).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t s_;
};

/// FNV-1a of a name: the per-file seed.
inline std::uint64_t seed_of(const std::string& name, std::uint64_t base) {
  std::uint64_t h = 1469598103934665603ULL ^ base;
  for (const unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  return h;
}

/// The integer literals of `text`: [begin, end) of each maximal digit run (with a directly preceding '-'), not
/// part of an identifier or of a float (a '.', 'e' or 'x' next to it).
std::vector<std::pair<std::size_t, std::size_t>> integer_literals(const std::string& text);

/// About `budget` mutations of `text` (at least one of every class the file allows), chosen by `seed`: every integer
/// literal with each of the 8 values when they fit the budget, else a seeded sample; truncations after every line
/// (or an even sample); the file twice; byte flips; the two encodings.
std::vector<Mutation> mutations(const std::string& text, std::size_t budget, std::uint64_t seed);

}  // namespace tc_hostile
