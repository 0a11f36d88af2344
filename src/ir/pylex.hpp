// Tokenizer for the Python subset that TVMScript uses (see docs/ir-formats.md).
//
// Pull-based: the parser asks for one token at a time, so memory does not grow
// with the file. Tokens are views into the source text (no per-token
// allocation). Produces Python's NEWLINE / INDENT / DEDENT structure from
// leading spaces, joins lines inside (), [] and {} and after a backslash, and
// skips comments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tenet_cost/error.hpp"

namespace tenet_cost::ir::py {

/// Resource limits (hostile input must not exhaust the stack or memory).
inline constexpr std::size_t kMaxNesting = 256;          // brackets, indentation levels, expression nesting
inline constexpr std::size_t kMaxNameBytes = 4096;       // one identifier or number
inline constexpr std::size_t kMaxStringBytes = 64u << 20;  // one string literal

enum class Tok : std::uint8_t { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };

enum class Op : std::uint8_t {
  kNone,
  kLPar, kRPar, kLSq, kRSq, kLBrace, kRBrace,
  kComma, kColon, kSemi, kDot, kAt, kAssign, kArrow, kEllipsis, kWalrus,
  kPlus, kMinus, kStar, kSlash, kDSlash, kPercent, kDStar, kTilde,
  kAmp, kPipe, kCaret, kShl, kShr,
  kLt, kGt, kLe, kGe, kEq, kNe,
  // augmented assignment: kPlusEq + k maps to the binary operator kPlus + k
  kPlusEq, kMinusEq, kStarEq, kSlashEq, kDSlashEq, kPercentEq, kDStarEq, kTildeUnused,
  kAmpEq, kPipeEq, kCaretEq, kShlEq, kShrEq, kAtEq,
};

/// Python keywords the parser cares about (kw field of a kName token).
enum class Kw : std::uint8_t {
  kNone, kFalse, kNoneLit, kTrue, kAnd, kAs, kAssert, kAsync, kAwait, kBreak, kClass, kContinue, kDef, kDel,
  kElif, kElse, kExcept, kFinally, kFor, kFrom, kGlobal, kIf, kImport, kIn, kIs, kLambda, kNonlocal, kNot,
  kOr, kPass, kRaise, kReturn, kTry, kWhile, kWith, kYield,
};

struct Token {
  Tok kind = Tok::kEnd;
  Op op = Op::kNone;
  Kw kw = Kw::kNone;
  std::uint32_t line = 0;   // 1-based
  std::uint32_t col = 0;    // 1-based, in bytes
  std::uint32_t begin = 0;  // byte offsets into the source
  std::uint32_t end = 0;
};

/// The part of a file one lexer reads (the parallel parse gives each worker
/// one chunk of the file): it starts at a line start with a known line number
/// and enclosing indentation, and ends before the line starting at `stop`.
/// Offsets and positions stay those of the whole file.
struct LexRange {
  static constexpr std::size_t kNoStop = static_cast<std::size_t>(-1);
  std::size_t begin = 0;       // a line start (0: the file start, where a BOM is skipped)
  std::uint32_t line = 1;      // the line number at `begin`
  std::uint32_t indent = 0;    // > 0: `begin` is inside a block indented this much (indent stack {0, indent})
  std::size_t stop = kNoStop;  // a line start: lexing ends there, or kNoStop (the end of the file)
};

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& file, const LexRange& range = {});

  Token next() {
    Token t;
    lex(t);
    return t;
  }
  /// The next token, written into `t` (what next() returns).
  void lex(Token& t);
  /// The next 1..cap tokens (what as many next() calls return), written to
  /// out[0..k); returns k. Only the first can throw: the others are only
  /// tokens of the common kinds that lex without an error (it stops before
  /// anything else), so errors are still reported in token order, when the
  /// caller asks for the token that has one.
  std::size_t fill(Token* out, std::size_t cap);

  [[nodiscard]] std::string_view text(const Token& t) const { return src_.substr(t.begin, t.end - t.begin); }
  [[nodiscard]] std::string_view source() const { return src_; }
  [[nodiscard]] const std::string& file() const { return file_; }

  /// How a token is shown in "found X" messages.
  [[nodiscard]] std::string describe(const Token& t) const;

  /// Decode a string literal token (prefixes, quotes, escapes). Appends the
  /// value to `out`.
  void decode_string(const Token& t, std::string& out) const;
  /// True when the literal's value is exactly its body (no escapes, not
  /// raw-with-backslashes); then `body` is set to a view of it.
  bool plain_string(const Token& t, std::string_view& body) const;

  [[noreturn]] void fail(std::uint32_t line, std::uint32_t col, const std::string& msg) const;

  /// With a stop: true once the lexer met the stop line at the start of a
  /// logical line (outside brackets and strings) and, after the INDENT or
  /// DEDENTs that line's indentation gives, returned kEnd there. False when it
  /// never got there cleanly (the stop fell inside a token, bracket or
  /// continued line, or its indentation matches no enclosing block): then it
  /// returned kEnd at the stop line or at the first token past it.
  [[nodiscard]] bool stopped() const { return stopped_; }
  /// The current line number and indentation stack (at the stop, those of the stop line).
  [[nodiscard]] std::uint32_t line() const { return line_; }
  [[nodiscard]] const std::vector<std::uint32_t>& indents() const { return indents_; }

 private:
  Token make(Tok k, std::uint32_t b, std::uint32_t e, std::uint32_t line, std::uint32_t col) const;
  void lex_slow(Token& t);
  void lex_general(Token& t);
  // What a step of lex_general decided: a token is in `t`, start over, or go on to the blanks and the token.
  enum class LexStep : std::uint8_t { kToken, kAgain, kOn };
  /// The width of the indentation from `p` (tabs to multiples of 8, blank and comment lines skipped); returns
  /// the position after it.
  std::size_t measure_indent(std::size_t p, std::uint32_t& width);
  /// At a logical line's start (depth 0): an Indent, Dedents pending, or nothing when the width is unchanged.
  LexStep lex_indentation(Token& t);
  /// The indentation of the stop line: open or close its blocks, then end.
  LexStep indent_at_stop(Token& t, std::size_t p, std::uint32_t width);
  void skip_blanks();  // blanks, comments, continuations and (in brackets) line breaks
  /// The end of the input: a last Newline (true), else the closing Dedents and the end (false: start over).
  bool lex_end_of_input(Token& t);
  template <bool kFast>
  void lex_token(Token& t, std::size_t start);
  [[noreturn, gnu::cold]] void fail_name_length(std::size_t start, std::size_t len) const;
  [[noreturn, gnu::cold]] void fail_nesting(std::size_t start) const;
  [[nodiscard]] Kw keyword_at(std::size_t start, std::size_t len) const;
  [[noreturn]] void fail_here(std::size_t pos, const std::string& msg) const;
  std::uint32_t col_of(std::size_t pos) const { return static_cast<std::uint32_t>(pos - line_start_ + 1); }
  void newline_at(std::size_t next_pos) { ++line_; line_start_ = next_pos; }
  void lex_string(Token& t, std::size_t start, std::size_t quote_pos);
  void lex_number(Token& t, std::size_t start);
  void lex_op(Token& t, std::size_t start);
  static std::string quote(std::string_view s);

  std::string_view src_;
  std::string file_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  bool at_line_start_ = true;
  bool last_newline_ = true;   // last emitted token was NEWLINE (or nothing yet)
  std::size_t depth_ = 0;      // bracket nesting
  std::vector<std::uint32_t> indents_{0};
  std::uint32_t pending_dedents_ = 0;
  bool done_ = false;
  std::size_t stop_ = LexRange::kNoStop;
  // The offset of the file's last '\n' (0 if none). Every run of name, digit
  // or blank bytes starting before it ends at or before it, so scans from
  // there need no end-of-input check.
  std::size_t fast_lim_ = 0;
  std::size_t fast_end_ = 0;  // min(fast_lim_, stop_)
  bool fast_ok_ = false;      // no pending DEDENT, not done, not at a logical line start
  bool stopped_ = false;
};

}  // namespace tenet_cost::ir::py
