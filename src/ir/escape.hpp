// One character of a quoted literal the IR's text outputs write: a control character (below 0x20, or DEL) as
// `\xHH`, anything else as itself. Shared by the printer's Python strings (print_quoted, which first writes its
// named escapes \" \\ \n \t \r) and the lexer's quoted excerpts in error messages (Lexer::quote).
#pragma once

#include <string>

namespace tenet_cost::ir {

inline void append_escaped(std::string& out, char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if (c < 0x20 || c == 0x7F) {
    static constexpr const char* kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  } else {
    out += ch;
  }
}

}  // namespace tenet_cost::ir
