#include "tenet_cost/error.hpp"

#include "tenet_cost/checked.hpp"
#include "tenet_cost/message.hpp"

namespace tenet_cost {

namespace {

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\n') {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? utf8_char_length(text, i) : 0; n > 0) {
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
