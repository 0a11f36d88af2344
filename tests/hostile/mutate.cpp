// The hostile-input generator: see mutate.hpp.
#include "hostile/mutate.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace tc_hostile {
namespace {

struct Value {
  const char* text;
  const char* name;
};
constexpr std::array<Value, 8> kValues = {{{"0", "0"},
                                           {"-1", "-1"},
                                           {"2147483648", "2^31"},
                                           {"4294967296", "2^32"},
                                           {"4611686018427387904", "2^62"},
                                           {"9223372036854775807", "2^63-1"},
                                           {"-9223372036854775808", "-2^63"},
                                           {"18446744073709551616", "2^64"}}};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string utf16le_with_bom(const std::string& text) {
  std::string out = "\xFF\xFE";
  for (const char c : text) {  // bytes as Latin-1 code points (ASCII fixtures: the exact UTF-16 text)
    out += c;
    out += '\0';
  }
  return out;
}

// Indices 0 .. n-1, all of them when n <= k, else k of them spread evenly from a seeded offset.
std::vector<std::size_t> sample(std::size_t n, std::size_t k, Rng& rng) {
  std::vector<std::size_t> out;
  if (n <= k) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  const std::size_t off = rng.below(n);
  for (std::size_t j = 0; j < k; ++j) out.push_back((off + j * n / k) % n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> integer_literals(const std::string& t) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = 0;
  while (i < t.size()) {
    if (std::isdigit(static_cast<unsigned char>(t[i])) == 0) {
      ++i;
      continue;
    }
    std::size_t b = i, e = i;
    while (e < t.size() && std::isdigit(static_cast<unsigned char>(t[e])) != 0) ++e;
    i = e;
    if (b > 0 && (ident_char(t[b - 1]) || t[b - 1] == '.')) continue;
    if (e < t.size() && (ident_char(t[e]) || t[e] == '.')) continue;
    if (b > 0 && t[b - 1] == '-') --b;
    out.emplace_back(b, e);
  }
  return out;
}

std::vector<Mutation> mutations(const std::string& text, std::size_t budget, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Mutation> out;
  // fixed classes: twice, two encodings
  out.push_back({MutationClass::kTwice, "the file twice", text + text});
  out.push_back({MutationClass::kEncoding, "a UTF-8 BOM", "\xEF\xBB\xBF" + text});
  out.push_back({MutationClass::kEncoding, "UTF-16LE with a BOM", utf16le_with_bom(text)});
  const std::size_t rest = budget > out.size() ? budget - out.size() : 0;
  // integers: half of the rest; truncations: a quarter; flips: the remainder
  const auto lits = integer_literals(text);
  for (const std::size_t li : sample(lits.size() * kValues.size(), rest / 2, rng)) {
    const auto [b, e] = lits[li / kValues.size()];
    const Value& v = kValues[li % kValues.size()];
    out.push_back(
        {MutationClass::kInteger,
         "integer " + std::to_string(li / kValues.size() + 1) + " ('" + text.substr(b, e - b) + "') -> " + v.name,
         text.substr(0, b) + v.text + text.substr(e)});
  }
  std::vector<std::size_t> line_ends;
  for (std::size_t p = 0; p < text.size(); ++p)
    if (text[p] == '\n' && p + 1 < text.size()) line_ends.push_back(p + 1);
  for (const std::size_t li : sample(line_ends.size(), rest / 4, rng))
    out.push_back(
        {MutationClass::kTruncate, "truncated after line " + std::to_string(li + 1), text.substr(0, line_ends[li])});
  const std::size_t flips = budget > out.size() ? budget - out.size() : 1;
  for (std::size_t f = 0; f < flips && !text.empty(); ++f) {
    const std::size_t pos = rng.below(text.size());
    const auto x = static_cast<unsigned char>(1 + rng.below(255));
    std::string b = text;
    b[pos] = static_cast<char>(static_cast<unsigned char>(b[pos]) ^ x);
    out.push_back({MutationClass::kFlip, "byte " + std::to_string(pos) + " xor " + std::to_string(x), std::move(b)});
  }
  return out;
}

}  // namespace tc_hostile
