#include "tenet_cost/error.hpp"

#include "tenet_cost/checked.hpp"

namespace tenet_cost {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  unsigned min = 0;
  unsigned cp = 0;
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

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\n') {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? utf8_length(text, i) : 0; n > 0) {
      out.append(text, i, n);
      i += n;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string SourceLocation::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

// Messages quote input (tokens, keys, file names): control bytes and invalid UTF-8 are
// escaped as \\xNN so an error line never corrupts a terminal or a JSON/CSV consumer.
InputError::InputError(const std::string& message)
    : std::runtime_error(printable(message)), detail_(printable(message)) {}

InputError::InputError(const SourceLocation& where, const std::string& message)
    : std::runtime_error(printable(where.str() + ": " + message)), where_(where), detail_(printable(message)) {}

OverflowError::OverflowError(const std::string& what_overflowed)
    : InputError("arithmetic overflow: " + what_overflowed + " does not fit in 64 bits") {}

InternalError::InternalError(const std::string& message) : std::logic_error("internal error: " + message) {}

void throw_overflow(std::string_view what) { throw OverflowError(std::string(what)); }

void throw_division_by_zero() { throw InputError("division by zero"); }

}  // namespace tenet_cost
