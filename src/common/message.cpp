#include "tenet_cost/message.hpp"

#include <algorithm>
#include <cmath>

#include "tenet_cost/error.hpp"

namespace tenet_cost {

namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned cp = 0, min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1fu, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0fu, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0u) != 0x80u) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

namespace {

// Appends `s` escaped for a one-line message.
void escape_into(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n", ++i;
    } else if (c == '\t') {
      out += "\\t", ++i;
    } else if (c == '\r') {
      out += "\\r", ++i;
    } else if (c == '\\' || c == '\'') {
      out += '\\', out += static_cast<char>(c), ++i;
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c), ++i;
    } else if (const std::size_t n = utf8_char_length(s, i); n > 1) {
      const std::string_view ch = s.substr(i, n);
      if (ch == "\xef\xbb\xbf") {
        out += "\\ufeff";
      } else if (ch == "\xc2\x85" || ch == "\xe2\x80\xa8" || ch == "\xe2\x80\xa9") {
        out += n == 2 ? "\\u0085" : (ch[2] == '\xa8' ? "\\u2028" : "\\u2029");  // line breaks
      } else {
        out += ch;
      }
      i += n;
    } else {
      out += "\\x", out += kHex[c >> 4], out += kHex[c & 0xf], ++i;
    }
  }
}

// Largest index <= pos that starts a character (not a UTF-8 continuation byte).
std::size_t boundary(std::string_view s, std::size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xc0u) == 0x80u) --pos;
  return pos;
}

}  // namespace

std::string quote_for_message(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  if (text.size() <= max_chars || max_chars < 8) {
    escape_into(out, text);
    out += '\'';
    return out;
  }
  const std::size_t head = boundary(text, max_chars * 2 / 3);
  const std::size_t tail = boundary(text, text.size() - (max_chars - max_chars * 2 / 3));
  escape_into(out, text.substr(0, head));
  out += "...";
  escape_into(out, text.substr(tail));
  out += "' (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and swaps of two
  // adjacent characters ("q0f61" -> "q0f16") cost 1 each.
  const std::size_t w = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * w);
  const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * w + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      std::size_t v = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        v = std::min(v, at(i - 2, j - 2) + 1);
      at(i, j) = v;
    }
  return at(a.size(), b.size());
}

std::string closest_match(std::string_view text, const std::vector<std::string>& candidates) {
  if (text.empty() || text.size() > 200) return "";
  const std::size_t limit = std::max<std::size_t>(1, text.size() / 3);
  std::string best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    if (c.size() > text.size() + limit || text.size() > c.size() + limit) continue;
    const std::size_t d = edit_distance(text, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string did_you_mean(std::string_view text, const std::vector<std::string>& candidates) {
  const std::string m = closest_match(text, candidates);
  return m.empty() ? "" : "; did you mean '" + m + "'?";
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    out.push_back(first == std::string::npos ? std::string() : item.substr(first, last - first + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

double require_finite(double value, std::string_view what) {
  if (!std::isfinite(value))
    throw InputError(std::string(what) + " is not a finite number (" + (std::isnan(value) ? "nan" : "overflow") +
                     "); check the arch's energy and rate figures (docs/arch.md lists their ranges)");
  return value;
}

}  // namespace tenet_cost
