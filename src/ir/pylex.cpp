#include "ir/pylex.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace tenet_cost::ir::py {

namespace {

// Character classes: bit 1 = identifier start, bit 2 = identifier char.
struct CharTable {
  unsigned char t[256] = {};
  constexpr CharTable() {
    for (int c = 0; c < 256; ++c) {
      const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
      const bool digit = c >= '0' && c <= '9';
      t[c] = static_cast<unsigned char>((start ? 1 : 0) | ((start || digit) ? 2 : 0));
    }
  }
};
constexpr CharTable kChars;
constexpr bool is_ident_start(unsigned char c) { return (kChars.t[c] & 1) != 0; }
constexpr bool is_ident_char(unsigned char c) { return (kChars.t[c] & 2) != 0; }
constexpr bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

Kw keyword_of(std::string_view s) {
  // switch on length, then compare: most names are rejected after one or two byte tests
  switch (s.size()) {
    case 2:
      if (s[0] == 'a' && s == "as") return Kw::kAs;
      if (s[0] == 'i' && s == "if") return Kw::kIf;
      if (s[0] == 'i' && s == "in") return Kw::kIn;
      if (s[0] == 'i' && s == "is") return Kw::kIs;
      if (s[0] == 'o' && s == "or") return Kw::kOr;
      return Kw::kNone;
    case 3:
      if (s[0] == 'a' && s == "and") return Kw::kAnd;
      if (s[0] == 'd' && s == "def") return Kw::kDef;
      if (s[0] == 'd' && s == "del") return Kw::kDel;
      if (s[0] == 'f' && s == "for") return Kw::kFor;
      if (s[0] == 'n' && s == "not") return Kw::kNot;
      if (s[0] == 't' && s == "try") return Kw::kTry;
      return Kw::kNone;
    case 4:
      if (s[0] == 'N' && s == "None") return Kw::kNoneLit;
      if (s[0] == 'T' && s == "True") return Kw::kTrue;
      if (s[0] == 'e' && s == "elif") return Kw::kElif;
      if (s[0] == 'e' && s == "else") return Kw::kElse;
      if (s[0] == 'f' && s == "from") return Kw::kFrom;
      if (s[0] == 'p' && s == "pass") return Kw::kPass;
      if (s[0] == 'w' && s == "with") return Kw::kWith;
      return Kw::kNone;
    case 5:
      if (s[0] == 'F' && s == "False") return Kw::kFalse;
      if (s[0] == 'a' && s == "async") return Kw::kAsync;
      if (s[0] == 'a' && s == "await") return Kw::kAwait;
      if (s[0] == 'b' && s == "break") return Kw::kBreak;
      if (s[0] == 'c' && s == "class") return Kw::kClass;
      if (s[0] == 'r' && s == "raise") return Kw::kRaise;
      if (s[0] == 'w' && s == "while") return Kw::kWhile;
      if (s[0] == 'y' && s == "yield") return Kw::kYield;
      return Kw::kNone;
    case 6:
      if (s[0] == 'a' && s == "assert") return Kw::kAssert;
      if (s[0] == 'e' && s == "except") return Kw::kExcept;
      if (s[0] == 'g' && s == "global") return Kw::kGlobal;
      if (s[0] == 'i' && s == "import") return Kw::kImport;
      if (s[0] == 'l' && s == "lambda") return Kw::kLambda;
      if (s[0] == 'r' && s == "return") return Kw::kReturn;
      return Kw::kNone;
    case 7:
      if (s[0] == 'f' && s == "finally") return Kw::kFinally;
      return Kw::kNone;
    case 8:
      if (s[0] == 'c' && s == "continue") return Kw::kContinue;
      if (s[0] == 'n' && s == "nonlocal") return Kw::kNonlocal;
      return Kw::kNone;
    default: return Kw::kNone;
  }
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Parse the prefix and quote of a string literal token text.
struct StrShape {
  bool raw = false;
  std::size_t body_begin = 0;
  std::size_t body_end = 0;
};
StrShape string_shape(std::string_view t) {
  StrShape s;
  std::size_t i = 0;
  while (i < t.size() && t[i] != '"' && t[i] != '\'') {
    if (t[i] == 'r' || t[i] == 'R') s.raw = true;
    ++i;
  }
  const char q = t[i];
  const bool triple = i + 2 < t.size() && t[i + 1] == q && t[i + 2] == q && t.size() - i >= 6;
  const std::size_t ql = triple ? 3 : 1;
  s.body_begin = i + ql;
  s.body_end = t.size() - ql;
  return s;
}

}  // namespace

Lexer::Lexer(std::string_view src, const std::string& file, const LexRange& range)
    : src_(src), file_(file), stop_(range.stop) {
  if (src_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw InputError(SourceLocation{file_, 0, 0}, "expected a file smaller than 4 GiB, found a larger one");
  if (range.begin > 0) {
    // Resume at a line start inside the file (one chunk of a parallel parse).
    pos_ = std::min(range.begin, src_.size());
    line_start_ = pos_;
    line_ = range.line;
    if (range.indent > 0) indents_.push_back(range.indent);
    return;
  }
  // A UTF-8 byte order mark is not part of the program.
  if (src_.size() >= 3 && static_cast<unsigned char>(src_[0]) == 0xEF &&
      static_cast<unsigned char>(src_[1]) == 0xBB && static_cast<unsigned char>(src_[2]) == 0xBF) {
    pos_ = 3;
    line_start_ = 3;
  }
}

std::string Lexer::quote(std::string_view s) {
  std::string out = "'";
  std::size_t n = 0;
  for (const char ch : s) {
    if (++n > 40) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  out += "'";
  return out;
}

std::string Lexer::describe(const Token& t) const {
  switch (t.kind) {
    case Tok::kEnd: return "end of file";
    case Tok::kNewline: return "end of line";
    case Tok::kIndent: return "an indented block";
    case Tok::kDedent: return "the end of an indented block";
    case Tok::kString: return "string " + quote(text(t));
    default: return quote(text(t));
  }
}

void Lexer::fail(std::uint32_t line, std::uint32_t col, const std::string& msg) const {
  throw InputError(SourceLocation{file_, line, col}, msg);
}

void Lexer::fail_here(std::size_t pos, const std::string& msg) const { fail(line_, col_of(pos), msg); }

Token Lexer::make(Tok k, std::uint32_t b, std::uint32_t e, std::uint32_t line, std::uint32_t col) const {
  Token t;
  t.kind = k;
  t.begin = b;
  t.end = e;
  t.line = line;
  t.col = col;
  return t;
}

Token Lexer::next() {
  const std::size_t n = src_.size();
  for (;;) {
    if (pending_dedents_ > 0) {
      --pending_dedents_;
      return make(Tok::kDedent, static_cast<std::uint32_t>(pos_), static_cast<std::uint32_t>(pos_), line_,
                  col_of(pos_));
    }
    if (done_) return make(Tok::kEnd, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), line_, col_of(pos_));

    if (at_line_start_ && depth_ == 0) {
      // Measure the indentation of the next non-blank, non-comment line.
      std::uint32_t width = 0;
      std::size_t p = pos_;
      for (;;) {
        if (p >= n) break;
        const char c = src_[p];
        if (c == ' ') {
          ++width;
          ++p;
        } else if (c == '\t') {
          width = (width / 8 + 1) * 8;
          ++p;
        } else if (c == '\f') {
          width = 0;
          ++p;
        } else if (c == '#') {
          while (p < n && src_[p] != '\n' && src_[p] != '\r') ++p;
        } else if (c == '\n' || c == '\r') {
          if (c == '\r' && p + 1 < n && src_[p + 1] == '\n') ++p;
          ++p;
          newline_at(p);
          width = 0;
        } else if (c == '\\' && p + 1 < n && (src_[p + 1] == '\n' || src_[p + 1] == '\r')) {
          // A continuation line at the start of a logical line: the indent
          // of the first physical line counts.
          break;
        } else {
          break;
        }
        if (width > 1u << 20) fail_here(p, "expected an indentation of at most 1048576 columns, found more");
      }
      pos_ = p;
      at_line_start_ = false;
      if (p >= n) continue;  // handled by the end-of-file branch below
      if (line_start_ == stop_) {
        // The stop line: open or close the blocks its indentation says, then
        // end. An indentation matching no enclosing block is not a clean stop.
        done_ = true;
        if (width > indents_.back()) {
          if (indents_.size() > kMaxNesting) continue;
          indents_.push_back(width);
          stopped_ = true;
          last_newline_ = false;
          return make(Tok::kIndent, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p), line_, col_of(p));
        }
        std::uint32_t pops = 0;
        for (auto i = indents_.size(); i-- > 0 && width < indents_[i];) ++pops;
        if (indents_[indents_.size() - 1 - pops] != width) continue;
        indents_.resize(indents_.size() - pops);
        pending_dedents_ = pops;
        stopped_ = true;
        continue;
      }
      if (width > indents_.back()) {
        if (indents_.size() > kMaxNesting)
          fail_here(p, "expected at most " + std::to_string(kMaxNesting) + " indentation levels, found more");
        indents_.push_back(width);
        last_newline_ = false;
        return make(Tok::kIndent, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p), line_, col_of(p));
      }
      if (width < indents_.back()) {
        std::uint32_t pops = 0;
        while (width < indents_.back()) {
          indents_.pop_back();
          ++pops;
        }
        if (width != indents_.back())
          fail_here(p, "expected an indentation of " + std::to_string(indents_.back()) +
                           " columns (matching an enclosing block), found " + std::to_string(width));
        pending_dedents_ = pops;
        continue;
      }
    }

    // Skip blanks, comments and (inside brackets) line breaks.
    while (pos_ < n) {
      const char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < n && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
      } else if (c == '\\' && pos_ + 1 < n && (src_[pos_ + 1] == '\n' || src_[pos_ + 1] == '\r')) {
        pos_ += 1;
        if (src_[pos_] == '\r' && pos_ + 1 < n && src_[pos_ + 1] == '\n') ++pos_;
        ++pos_;
        newline_at(pos_);
      } else if ((c == '\n' || c == '\r') && depth_ > 0) {
        if (c == '\r' && pos_ + 1 < n && src_[pos_ + 1] == '\n') ++pos_;
        ++pos_;
        newline_at(pos_);
      } else {
        break;
      }
    }

    if (pos_ >= stop_) {
      // Past the stop without meeting it at a line start: end (not stopped()).
      done_ = true;
      continue;
    }
    if (pos_ >= n) {
      if (depth_ > 0) fail_here(pos_, "expected a closing bracket, found end of file");
      if (!last_newline_) {
        last_newline_ = true;
        return make(Tok::kNewline, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), line_, col_of(n));
      }
      pending_dedents_ = static_cast<std::uint32_t>(indents_.size() - 1);
      indents_.resize(1);
      done_ = true;
      continue;
    }

    const std::size_t start = pos_;
    const auto c = static_cast<unsigned char>(src_[start]);
    if (c == '\n' || c == '\r') {
      if (c == '\r' && pos_ + 1 < n && src_[pos_ + 1] == '\n') ++pos_;
      ++pos_;
      const std::uint32_t line = line_;
      const std::uint32_t col = col_of(start);
      newline_at(pos_);
      at_line_start_ = true;
      if (last_newline_) continue;  // nothing on this logical line
      last_newline_ = true;
      return make(Tok::kNewline, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(start), line, col);
    }
    last_newline_ = false;
    emitted_any_ = true;

    if (is_ident_start(c)) {
      std::size_t p = start + 1;
      while (p < n && is_ident_char(static_cast<unsigned char>(src_[p]))) ++p;
      // String prefixes: r, b, u, f and their combinations.
      if (p < n && (src_[p] == '"' || src_[p] == '\'') && p - start <= 2) {
        bool prefix = true;
        for (std::size_t i = start; i < p; ++i) {
          const char x = static_cast<char>(src_[i] | 0x20);
          if (x != 'r' && x != 'b' && x != 'u' && x != 'f') prefix = false;
        }
        if (prefix) return lex_string(start, p);
      }
      if (p - start > kMaxNameBytes)
        fail_here(start, "expected a name of at most " + std::to_string(kMaxNameBytes) + " bytes, found one of " +
                             std::to_string(p - start) + " bytes");
      pos_ = p;
      Token t = make(Tok::kName, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p), line_, col_of(start));
      t.kw = keyword_of(src_.substr(start, p - start));
      return t;
    }
    if (is_digit(c) || (c == '.' && start + 1 < n && is_digit(static_cast<unsigned char>(src_[start + 1]))))
      return lex_number(start);
    if (c == '"' || c == '\'') return lex_string(start, start);
    return lex_op(start);
  }
}

Token Lexer::lex_number(std::size_t start) {
  const std::size_t n = src_.size();
  std::size_t p = start;
  bool is_float = false;
  auto digits = [&](bool (*ok)(unsigned char)) {
    const std::size_t b = p;
    while (p < n && (ok(static_cast<unsigned char>(src_[p])) || (src_[p] == '_' && p > b))) ++p;
    return p - b;
  };
  if (src_[p] == '0' && p + 1 < n && (src_[p + 1] | 0x20) != '.' ) {
    const char x = static_cast<char>(src_[p + 1] | 0x20);
    if (x == 'x' || x == 'o' || x == 'b') {
      p += 2;
      const std::size_t got = digits(+[](unsigned char ch) { return is_hex(ch); });
      if (got == 0) fail_here(p, "expected digits after '0" + std::string(1, x) + "', found " +
                                     quote(src_.substr(p, p < n ? 1 : 0)));
      goto done;
    }
  }
  digits(+[](unsigned char ch) { return is_digit(ch); });
  if (p < n && src_[p] == '.') {
    is_float = true;
    ++p;
    digits(+[](unsigned char ch) { return is_digit(ch); });
  }
  if (p < n && (src_[p] == 'e' || src_[p] == 'E')) {
    std::size_t q = p + 1;
    if (q < n && (src_[q] == '+' || src_[q] == '-')) ++q;
    if (q < n && is_digit(static_cast<unsigned char>(src_[q]))) {
      is_float = true;
      p = q;
      digits(+[](unsigned char ch) { return is_digit(ch); });
    } else {
      fail_here(q, "expected an exponent after 'e', found " +
                       (q < n ? quote(src_.substr(q, 1)) : std::string("end of file")));
    }
  }
  if (p < n && (src_[p] == 'j' || src_[p] == 'J')) {
    ++p;
    is_float = true;  // imaginary literal: kept as a number token; lowering treats it as unknown
  }
done:
  if (p < n && is_ident_char(static_cast<unsigned char>(src_[p])))
    fail_here(p, "expected an operator or delimiter after the number " + quote(src_.substr(start, p - start)) +
                     ", found " + quote(src_.substr(p, 1)));
  if (p - start > kMaxNameBytes)
    fail_here(start, "expected a number of at most " + std::to_string(kMaxNameBytes) + " digits, found " +
                         std::to_string(p - start));
  pos_ = p;
  return make(is_float ? Tok::kFloat : Tok::kInt, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p),
              line_, col_of(start));
}

Token Lexer::lex_string(std::size_t start, std::size_t qpos) {
  const std::size_t n = src_.size();
  const std::uint32_t line = line_;
  const std::uint32_t col = col_of(start);
  const char q = src_[qpos];
  const bool triple = qpos + 2 < n && src_[qpos + 1] == q && src_[qpos + 2] == q;
  std::size_t p = qpos + (triple ? 3 : 1);
  for (;;) {
    if (p >= n) {
      fail(line, col, std::string("expected the closing ") + (triple ? std::string(3, q) : std::string(1, q)) +
                          " of this string, found end of file");
    }
    const char c = src_[p];
    if (c == '\\') {
      if (p + 1 < n) {
        const char d = src_[p + 1];
        if (d == '\n' || d == '\r') {
          p += 1;
          if (d == '\r' && p + 1 < n && src_[p + 1] == '\n') ++p;
          ++p;
          newline_at(p);
          continue;
        }
      }
      p += 2;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (!triple) fail(line, col, std::string("expected the closing ") + q + " of this string, found end of line");
      if (c == '\r' && p + 1 < n && src_[p + 1] == '\n') ++p;
      ++p;
      newline_at(p);
      continue;
    }
    if (c == q) {
      if (!triple) {
        ++p;
        break;
      }
      if (p + 2 < n && src_[p + 1] == q && src_[p + 2] == q) {
        p += 3;
        break;
      }
    }
    ++p;
  }
  if (p - start > kMaxStringBytes)
    fail(line, col, "expected a string literal of at most " + std::to_string(kMaxStringBytes) + " bytes, found " +
                        std::to_string(p - start) + " bytes");
  pos_ = p;
  return make(Tok::kString, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p), line, col);
}

Token Lexer::lex_op(std::size_t start) {
  const std::size_t n = src_.size();
  const char c = src_[start];
  const char c1 = start + 1 < n ? src_[start + 1] : '\0';
  const char c2 = start + 2 < n ? src_[start + 2] : '\0';
  Op op = Op::kNone;
  std::size_t len = 1;
  switch (c) {
    case '(': op = Op::kLPar; break;
    case ')': op = Op::kRPar; break;
    case '[': op = Op::kLSq; break;
    case ']': op = Op::kRSq; break;
    case '{': op = Op::kLBrace; break;
    case '}': op = Op::kRBrace; break;
    case ',': op = Op::kComma; break;
    case ';': op = Op::kSemi; break;
    case '~': op = Op::kTilde; break;
    case ':':
      if (c1 == '=') op = Op::kWalrus, len = 2;
      else op = Op::kColon;
      break;
    case '.':
      if (c1 == '.' && c2 == '.') op = Op::kEllipsis, len = 3;
      else op = Op::kDot;
      break;
    case '@':
      if (c1 == '=') op = Op::kAtEq, len = 2;
      else op = Op::kAt;
      break;
    case '=':
      if (c1 == '=') op = Op::kEq, len = 2;
      else op = Op::kAssign;
      break;
    case '!':
      if (c1 == '=') op = Op::kNe, len = 2;
      break;
    case '+':
      if (c1 == '=') op = Op::kPlusEq, len = 2;
      else op = Op::kPlus;
      break;
    case '-':
      if (c1 == '=') op = Op::kMinusEq, len = 2;
      else if (c1 == '>') op = Op::kArrow, len = 2;
      else op = Op::kMinus;
      break;
    case '*':
      if (c1 == '*') {
        if (c2 == '=') op = Op::kDStarEq, len = 3;
        else op = Op::kDStar, len = 2;
      } else if (c1 == '=') {
        op = Op::kStarEq, len = 2;
      } else {
        op = Op::kStar;
      }
      break;
    case '/':
      if (c1 == '/') {
        if (c2 == '=') op = Op::kDSlashEq, len = 3;
        else op = Op::kDSlash, len = 2;
      } else if (c1 == '=') {
        op = Op::kSlashEq, len = 2;
      } else {
        op = Op::kSlash;
      }
      break;
    case '%':
      if (c1 == '=') op = Op::kPercentEq, len = 2;
      else op = Op::kPercent;
      break;
    case '&':
      if (c1 == '=') op = Op::kAmpEq, len = 2;
      else op = Op::kAmp;
      break;
    case '|':
      if (c1 == '=') op = Op::kPipeEq, len = 2;
      else op = Op::kPipe;
      break;
    case '^':
      if (c1 == '=') op = Op::kCaretEq, len = 2;
      else op = Op::kCaret;
      break;
    case '<':
      if (c1 == '<') {
        if (c2 == '=') op = Op::kShlEq, len = 3;
        else op = Op::kShl, len = 2;
      } else if (c1 == '=') {
        op = Op::kLe, len = 2;
      } else if (c1 == '>') {
        op = Op::kNe, len = 2;
      } else {
        op = Op::kLt;
      }
      break;
    case '>':
      if (c1 == '>') {
        if (c2 == '=') op = Op::kShrEq, len = 3;
        else op = Op::kShr, len = 2;
      } else if (c1 == '=') {
        op = Op::kGe, len = 2;
      } else {
        op = Op::kGt;
      }
      break;
    default: break;
  }
  if (op == Op::kNone) fail_here(start, "expected a token, found " + quote(src_.substr(start, 1)));
  if (op == Op::kLPar || op == Op::kLSq || op == Op::kLBrace) {
    if (++depth_ > kMaxNesting)
      fail_here(start, "expected at most " + std::to_string(kMaxNesting) + " nested brackets, found more");
  } else if ((op == Op::kRPar || op == Op::kRSq || op == Op::kRBrace) && depth_ > 0) {
    --depth_;
  }
  pos_ = start + len;
  Token t = make(Tok::kOp, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(start + len), line_,
                 col_of(start));
  t.op = op;
  return t;
}

bool Lexer::plain_string(const Token& t, std::string_view& body) const {
  const std::string_view s = text(t);
  const StrShape sh = string_shape(s);
  const std::string_view b = s.substr(sh.body_begin, sh.body_end - sh.body_begin);
  if (b.find('\\') != std::string_view::npos) return false;
  body = b;
  return true;
}

void Lexer::decode_string(const Token& t, std::string& out) const {
  const std::string_view s = text(t);
  const StrShape sh = string_shape(s);
  const std::string_view b = s.substr(sh.body_begin, sh.body_end - sh.body_begin);
  if (sh.raw) {
    out.append(b);
    return;
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    const char c = b[i];
    if (c != '\\' || i + 1 >= b.size()) {
      out += c;
      continue;
    }
    const char d = b[++i];
    switch (d) {
      case '\n': break;
      case '\r':
        if (i + 1 < b.size() && b[i + 1] == '\n') ++i;
        break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x':
      case 'u':
      case 'U': {
        const std::size_t want = d == 'x' ? 2 : d == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        std::size_t k = 0;
        while (k < want && i + 1 + k < b.size() && is_hex(static_cast<unsigned char>(b[i + 1 + k]))) {
          const char h = b[i + 1 + k];
          cp = cp * 16 + static_cast<std::uint32_t>(is_digit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
          ++k;
        }
        if (k != want || cp > 0x10FFFF) {
          // Python rejects this; keep the text as written.
          out += '\\';
          out += d;
          break;
        }
        i += k;
        if (d == 'x') out += static_cast<char>(cp);
        else append_utf8(out, cp);
        break;
      }
      default:
        if (d >= '0' && d <= '7') {
          std::uint32_t v = static_cast<std::uint32_t>(d - '0');
          for (int k = 0; k < 2 && i + 1 < b.size() && b[i + 1] >= '0' && b[i + 1] <= '7'; ++k)
            v = v * 8 + static_cast<std::uint32_t>(b[++i] - '0');
          out += static_cast<char>(v & 0xFF);
        } else {
          out += '\\';
          out += d;
        }
    }
  }
}

}  // namespace tenet_cost::ir::py
