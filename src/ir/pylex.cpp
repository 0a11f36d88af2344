#include "ir/pylex.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>

#include "ir/escape.hpp"
#include "ir/pylex_tables.hpp"

namespace tenet_cost::ir::py {

using namespace lex_tables;  // NOLINT(google-build-using-namespace): the lexer's own tables (pylex_tables.hpp)

namespace {

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
  } else if (src_.size() >= 3 && static_cast<unsigned char>(src_[0]) == 0xEF &&
      static_cast<unsigned char>(src_[1]) == 0xBB && static_cast<unsigned char>(src_[2]) == 0xBF) {
    // A UTF-8 byte order mark is not part of the program.
    pos_ = 3;
    line_start_ = 3;
  }
  const std::size_t last_nl = src_.rfind('\n');
  fast_lim_ = last_nl == std::string_view::npos ? 0 : last_nl;
  fast_end_ = std::min(fast_lim_, stop_);
}

std::string Lexer::quote(std::string_view s) {
  std::string out = "'";
  std::size_t n = 0;
  for (const char ch : s) {
    if (++n > 40) {
      out += "...";
      break;
    }
    append_escaped(out, ch);
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

Kw Lexer::keyword_at(std::size_t start, std::size_t len) const {
  if (len < 2 || len > 8) return Kw::kNone;
  const char* s = src_.data() + start;
  std::uint64_t w = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (start + 8 <= src_.size()) {
      std::memcpy(&w, s, 8);
      if (len < 8) w &= (std::uint64_t{1} << (8 * len)) - 1;
    } else {
      for (std::size_t i = 0; i < len; ++i) w |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
    }
  } else {
    for (std::size_t i = 0; i < len; ++i) w |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
  }
  const auto h = static_cast<std::size_t>((w * kKwMul) >> 58);
  return kKeywords.word[h] == w ? kKeywords.kw[h] : Kw::kNone;
}

void Lexer::fail_name_length(std::size_t start, std::size_t len) const {
  fail_here(start, "expected a name of at most " + std::to_string(kMaxNameBytes) + " bytes, found one of " +
                       std::to_string(len) + " bytes");
}

void Lexer::fail_nesting(std::size_t start) const {
  fail_here(start, "expected at most " + std::to_string(kMaxNesting) + " nested brackets, found more");
}

// One token starting at `start` (a byte of a class below kCSpace, after the
// blanks). kFast: start < fast_lim_, so s[start + 1] is readable and runs of
// name or digit bytes end by fast_lim_ (a '\n') without an end-of-input check.
template <bool kFast>
inline __attribute__((always_inline)) void Lexer::lex_token(Token& t, std::size_t start) {
  const std::size_t n = src_.size();
  const char* s = src_.data();
  const auto c = static_cast<unsigned char>(s[start]);
  pos_ = start;
  last_newline_ = false;
  Op op = Op::kNone;
  switch (kClass.cls[c]) {
    case kCName: {
      std::size_t p = start + 1;
      if constexpr (kFast) {
        while (is_ident_char(static_cast<unsigned char>(s[p]))) ++p;
      } else {
        while (p < n && is_ident_char(static_cast<unsigned char>(s[p]))) ++p;
      }
      const std::size_t len = p - start;
      // String prefixes: r, b, u, f and their combinations.
      if (len <= 2 && (kFast || p < n) && (s[p] == '"' || s[p] == '\'')) {
        bool prefix = true;
        for (std::size_t i = start; i < p; ++i) {
          const char x = static_cast<char>(s[i] | 0x20);
          if (x != 'r' && x != 'b' && x != 'u' && x != 'f') prefix = false;
        }
        if (prefix) {
          lex_string(t, start, p);
          return;
        }
      }
      if (len > kMaxNameBytes) fail_name_length(start, len);
      pos_ = p;
      t = Token{Tok::kName, Op::kNone, keyword_at(start, len), line_, col_of(start),
                static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p)};
      return;
    }
    case kCOp1: {
      const int br = kClass.bracket[c];
      if (br > 0) {
        if (++depth_ > kMaxNesting) fail_nesting(start);
      } else if (br < 0 && depth_ > 0) {
        --depth_;
      }
      op = kClass.op1[c];
      pos_ = start + 1;
      break;
    }
    case kCDot: {
      const char c1 = kFast || start + 1 < n ? s[start + 1] : '\0';
      if (is_digit(static_cast<unsigned char>(c1))) {
        lex_number(t, start);
        return;
      }
      if (c1 == '.') {
        lex_op(t, start);
        return;
      }
      op = Op::kDot;
      pos_ = start + 1;
      break;
    }
    case kCDigit: {
      if constexpr (kFast) {
        // a plain decimal integer: digits, then neither a name byte nor '.'
        std::size_t p = start + 1;
        while (is_digit(static_cast<unsigned char>(s[p]))) ++p;
        const auto d = static_cast<unsigned char>(s[p]);
        if (!is_ident_char(d) && d != '.' && p - start <= kMaxNameBytes) {
          pos_ = p;
          t = Token{Tok::kInt, Op::kNone, Kw::kNone, line_, col_of(start), static_cast<std::uint32_t>(start),
                    static_cast<std::uint32_t>(p)};
          return;
        }
      }
      lex_number(t, start);
      return;
    }
    case kCQuote: lex_string(t, start, start); return;
    default:
      if (kFast && (c == '=' || c == ':')) {
        const bool eq = s[start + 1] == '=';
        pos_ = start + (eq ? 2 : 1);
        op = c == '=' ? (eq ? Op::kEq : Op::kAssign) : (eq ? Op::kWalrus : Op::kColon);
        break;
      }
      lex_op(t, start);
      return;
  }
  t = Token{Tok::kOp, op, Kw::kNone, line_, col_of(start), static_cast<std::uint32_t>(start),
            static_cast<std::uint32_t>(pos_)};
}

// The common case inline: not at the start of a logical line, no pending
// DEDENTs, well before the file's last line break and the stop; at most one
// blank before a token or an end of line. Everything else goes to lex_slow,
// which handles every case.
void Lexer::lex(Token& t) {
  std::size_t p = pos_;
  if (fast_ok_ && p + 1 < fast_end_) {
    // p + 1 < min(fast_lim_, stop_): after one blank, still before both
    const char* s = src_.data();
    p += s[p] == ' ' ? 1 : 0;
    const auto c = static_cast<unsigned char>(s[p]);
    const unsigned char cls = kClass.cls[c];
    if (cls < kCSpace && cls != kCBad) {
      lex_token<true>(t, p);
      return;
    }
    if (c == '\n' && depth_ == 0 && !last_newline_) {
      t = Token{Tok::kNewline, Op::kNone, Kw::kNone, line_, col_of(p), static_cast<std::uint32_t>(p),
                static_cast<std::uint32_t>(p)};
      newline_at(p + 1);
      pos_ = p + 1;
      at_line_start_ = true;
      last_newline_ = true;
      fast_ok_ = false;
      return;
    }
  }
  lex_slow(t);
}

__attribute__((noinline)) void Lexer::lex_slow(Token& t) {
  lex_general(t);
  fast_ok_ = pending_dedents_ == 0 && !done_ && !(at_line_start_ && depth_ == 0);
}

std::size_t Lexer::fill(Token* out, std::size_t cap) {
  lex(out[0]);
  if (!fast_ok_ || cap <= 1) return 1;
  // Then only what the common case covers, with the state in locals. Nothing
  // here throws or looks past the token it adds: at anything else (a string
  // prefix, a float, an error to report, a comment, the stop, the last line
  // break, ...) it stops before that token, and lex() does it when asked.
  const char* s = src_.data();
  const std::size_t end = fast_end_;
  std::size_t p = pos_;
  std::uint32_t line = line_;
  std::size_t ls = line_start_;
  std::size_t depth = depth_;
  const std::size_t block_indent = indents_.back();
  const std::size_t n = src_.size();
  Token* t = out + 1;
  Token* const t_end = out + cap;
  while (t != t_end && p < end) {
    // p < min(fast_lim_, stop_): s[p + 1] is readable, and runs of bytes
    // other than '\n' end by fast_lim_
    const std::size_t q = p;
    const auto c = static_cast<unsigned char>(s[q]);
    std::size_t e = q + 1;  // the token's end
    switch (kClass.cls[c]) {
      case kCSpace: ++p; continue;
      case kCName: {
        while (is_ident_char(static_cast<unsigned char>(s[e]))) ++e;
        const std::size_t len = e - q;
        if ((len <= 2 && (s[e] == '"' || s[e] == '\'')) || len > kMaxNameBytes) goto stop;
        put(*t, Tok::kName, Op::kNone, kw_start(c) ? keyword_at(q, len) : Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(e));
        break;
      }
      case kCOp1: {
        const int br = kClass.bracket[c];
        if (br > 0) {
          if (depth >= kMaxNesting) goto stop;
          ++depth;
        } else if (br < 0 && depth > 0) {
          --depth;
        }
        put(*t, Tok::kOp, kClass.op1[c], Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(e));
        break;
      }
      case kCDot: {
        const auto c1 = static_cast<unsigned char>(s[q + 1]);
        if (is_digit(c1) || c1 == '.') goto stop;
        put(*t, Tok::kOp, Op::kDot, Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(e));
        break;
      }
      case kCDigit: {
        while (is_digit(static_cast<unsigned char>(s[e]))) ++e;
        const auto d = static_cast<unsigned char>(s[e]);
        if (is_ident_char(d) || d == '.' || e - q > kMaxNameBytes) goto stop;
        put(*t, Tok::kInt, Op::kNone, Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(e));
        break;
      }
      case kCOp: {
        // s[q + 2] is readable: s[q + 1] is before fast_lim_ or is the '\n' there
        std::size_t len = 1;
        const Op op = resolve_op(static_cast<char>(c), s[q + 1], s[q + 1] == '\n' ? '\0' : s[q + 2], len);
        if (op == Op::kNone) goto stop;
        e = q + len;
        put(*t, Tok::kOp, op, Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(e));
        break;
      }
      case kCQuote: {
        // a one-line string without escapes
        if (s[q + 1] == static_cast<char>(c) && s[q + 2] == static_cast<char>(c)) goto stop;  // maybe '''
        while (s[e] != static_cast<char>(c) && s[e] != '\\' && s[e] != '\n' && s[e] != '\r') ++e;
        if (s[e] != static_cast<char>(c)) goto stop;
        ++e;
        if (e - q > kMaxStringBytes) goto stop;
        put(*t, Tok::kString, Op::kNone, Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(e));
        break;
      }
      case kCNewline: {
        // (a NEWLINE right after a NEWLINE only at the start: the loop does not
        // stop after one unless a token follows)
        if (c != '\n' || depth != 0 || (t == out + 1 && last_newline_)) goto stop;
        put(*t, Tok::kNewline, Op::kNone, Kw::kNone, line, static_cast<std::uint32_t>(q - ls + 1), static_cast<std::uint32_t>(q),
            static_cast<std::uint32_t>(q));
        ++t;
        ++line;
        ls = q + 1;
        p = q + 1;
        // The next line, when it is the common kind: indented with spaces as
        // much as the enclosing block (no INDENT or DEDENT), then a token; not
        // the stop line. Anything else goes to lex_general at the line start.
        std::size_t r = ls;
        if constexpr (std::endian::native == std::endian::little) {
          while (r + 8 <= n) {  // 8 bytes at a time
            std::uint64_t w = 0;
            std::memcpy(&w, s + r, 8);
            const std::uint64_t x = w ^ 0x2020202020202020ULL;
            if (x != 0) {
              r += static_cast<std::size_t>(__builtin_ctzll(x) >> 3);
              break;
            }
            r += 8;
          }
        }
        while (s[r] == ' ') ++r;  // ends by fast_lim_ (a '\n')
        if (ls != stop_ && r - ls == block_indent && kClass.cls[static_cast<unsigned char>(s[r])] < kCSpace &&
            kClass.cls[static_cast<unsigned char>(s[r])] != kCBad) {
          p = r;
          continue;
        }
        at_line_start_ = true;
        fast_ok_ = false;
        goto stop;
      }
      default: goto stop;
    }
    p = e;
    ++t;
  }
stop:
  pos_ = p;
  line_ = line;
  line_start_ = ls;
  depth_ = depth;
  if (t != out + 1) last_newline_ = t[-1].kind == Tok::kNewline;
  return static_cast<std::size_t>(t - out);
}

// The general path, in the order a token start is met: pending dedents, the end, the indentation at a line start
// (lex_indentation), blanks and comments (skip_blanks), the end of the input (lex_end_of_input), a line break, a
// token (lex_token).
void Lexer::lex_general(Token& t) {
  const std::size_t n = src_.size();
  for (;;) {
    if (pending_dedents_ > 0) {
      --pending_dedents_;
      t = make(Tok::kDedent, static_cast<std::uint32_t>(pos_), static_cast<std::uint32_t>(pos_), line_, col_of(pos_));
      return;
    }
    if (done_) {
      t = make(Tok::kEnd, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), line_, col_of(pos_));
      return;
    }
    if (at_line_start_ && depth_ == 0) {
      const LexStep step = lex_indentation(t);
      if (step == LexStep::kToken) return;
      if (step == LexStep::kAgain) continue;
    }
    skip_blanks();
    if (pos_ >= stop_) {
      // Past the stop without meeting it at a line start: end (not stopped()).
      done_ = true;
      continue;
    }
    if (pos_ >= n) {
      if (lex_end_of_input(t)) return;
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
      t = make(Tok::kNewline, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(start), line, col);
      return;
    }
    if (start < fast_lim_) {
      lex_token<true>(t, start);
    } else {
      lex_token<false>(t, start);
    }
    return;
  }
}

std::size_t Lexer::measure_indent(std::size_t p, std::uint32_t& width) {
  const std::size_t n = src_.size();
  for (;;) {
    if (p >= n) break;
    const char c = src_[p];
    if (c == ' ') {
      if (std::endian::native == std::endian::little && p + 8 <= n && width < (1u << 20) - 8) {
        // up to 8 spaces at once (the width stays within the limit)
        std::uint64_t w = 0;
        std::memcpy(&w, src_.data() + p, 8);
        const std::uint64_t x = w ^ 0x2020202020202020ULL;
        const auto k = static_cast<std::uint32_t>(x == 0 ? 8 : __builtin_ctzll(x) >> 3);
        width += k;
        p += k;
        continue;
      }
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
    } else {
      // the first token, or a continuation line at the start of a logical line (the indent of the first
      // physical line counts)
      break;
    }
    if (width > 1u << 20) fail_here(p, "expected an indentation of at most 1048576 columns, found more");
  }
  return p;
}

Lexer::LexStep Lexer::lex_indentation(Token& t) {
  std::uint32_t width = 0;
  const std::size_t p = measure_indent(pos_, width);
  pos_ = p;
  at_line_start_ = false;
  if (p >= src_.size()) return LexStep::kAgain;  // handled by the end-of-file branch
  if (line_start_ == stop_) return indent_at_stop(t, p, width);
  if (width > indents_.back()) {
    if (indents_.size() > kMaxNesting)
      fail_here(p, "expected at most " + std::to_string(kMaxNesting) + " indentation levels, found more");
    indents_.push_back(width);
    last_newline_ = false;
    t = make(Tok::kIndent, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p), line_, col_of(p));
    return LexStep::kToken;
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
    return LexStep::kAgain;
  }
  return LexStep::kOn;
}

Lexer::LexStep Lexer::indent_at_stop(Token& t, std::size_t p, std::uint32_t width) {
  // The stop line: open or close the blocks its indentation says, then
  // end. An indentation matching no enclosing block is not a clean stop.
  done_ = true;
  if (width > indents_.back()) {
    if (indents_.size() > kMaxNesting) return LexStep::kAgain;
    indents_.push_back(width);
    stopped_ = true;
    last_newline_ = false;
    t = make(Tok::kIndent, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p), line_, col_of(p));
    return LexStep::kToken;
  }
  std::uint32_t pops = 0;
  for (auto i = indents_.size(); i-- > 0 && width < indents_[i];) ++pops;
  if (indents_[indents_.size() - 1 - pops] != width) return LexStep::kAgain;
  indents_.resize(indents_.size() - pops);
  pending_dedents_ = pops;
  stopped_ = true;
  return LexStep::kAgain;
}

void Lexer::skip_blanks() {
  const std::size_t n = src_.size();
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
}

bool Lexer::lex_end_of_input(Token& t) {
  const std::size_t n = src_.size();
  if (depth_ > 0) fail_here(pos_, "expected a closing bracket, found end of file");
  if (!last_newline_) {
    last_newline_ = true;
    t = make(Tok::kNewline, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n), line_, col_of(n));
    return true;
  }
  pending_dedents_ = static_cast<std::uint32_t>(indents_.size() - 1);
  indents_.resize(1);
  done_ = true;
  return false;
}

void Lexer::lex_number(Token& t, std::size_t start) {
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
  t = make(is_float ? Tok::kFloat : Tok::kInt, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p),
              line_, col_of(start));
}

void Lexer::lex_string(Token& t, std::size_t start, std::size_t qpos) {
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
  t = make(Tok::kString, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(p), line, col);
}

void Lexer::lex_op(Token& t, std::size_t start) {
  const std::size_t n = src_.size();
  const char c = src_[start];
  const char c1 = start + 1 < n ? src_[start + 1] : '\0';
  const char c2 = start + 2 < n ? src_[start + 2] : '\0';
  std::size_t len = 1;
  const Op op = resolve_op(c, c1, c2, len);
  if (op == Op::kNone) fail_here(start, "expected a token, found " + quote(src_.substr(start, 1)));
  if (op == Op::kLPar || op == Op::kLSq || op == Op::kLBrace) {
    if (++depth_ > kMaxNesting)
      fail_here(start, "expected at most " + std::to_string(kMaxNesting) + " nested brackets, found more");
  } else if ((op == Op::kRPar || op == Op::kRSq || op == Op::kRBrace) && depth_ > 0) {
    --depth_;
  }
  pos_ = start + len;
  t = make(Tok::kOp, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(start + len), line_, col_of(start));
  t.op = op;
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
