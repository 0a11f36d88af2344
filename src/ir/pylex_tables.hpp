// The lexer's tables (private to pylex.cpp): character classes, the first-byte dispatch, the perfect hash of
// the Python keywords, the operator resolution and the token writer. All constexpr / inline: the lexer's
// hot loop inlines them as before.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ir/pylex.hpp"

namespace tenet_cost::ir::py::lex_tables {

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
constexpr bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// What a byte starts (after the blanks before a token). The classes below
// kCSpace start a token; kCBad bytes go to lex_op, which reports them.
// clang-format off
enum : unsigned char {
  kCBad, kCName, kCDigit, kCDot, kCQuote, kCOp1, kCOp,  // token starts
  kCSpace, kCBlank, kCHash, kCBackslash, kCNewline,      // blanks, comments, line breaks
};
// clang-format on
struct ClassTable {
  unsigned char cls[256] = {};
  Op op1[256] = {};               // kCOp1: the operator the byte is on its own
  signed char bracket[256] = {};  // +1 opening, -1 closing bracket
  constexpr ClassTable() {
    for (int c = 0; c < 256; ++c) {
      const auto u = static_cast<unsigned char>(c);
      if (is_ident_start(u)) cls[c] = kCName;
      else if (is_digit(u)) cls[c] = kCDigit;
    }
    cls[static_cast<unsigned char>('.')] = kCDot;
    cls[static_cast<unsigned char>('"')] = kCQuote;
    cls[static_cast<unsigned char>('\'')] = kCQuote;
    const char* ops = ":=@!+-*/%&|^<>";
    for (const char* o = ops; *o != '\0'; ++o) cls[static_cast<unsigned char>(*o)] = kCOp;
    const struct {
      char c;
      Op op;
      signed char br;
    } one[] = {{'(', Op::kLPar, 1},  {')', Op::kRPar, -1},  {'[', Op::kLSq, 1},
               {']', Op::kRSq, -1},  {'{', Op::kLBrace, 1}, {'}', Op::kRBrace, -1},
               {',', Op::kComma, 0}, {';', Op::kSemi, 0},   {'~', Op::kTilde, 0}};
    for (const auto& o : one) {
      cls[static_cast<unsigned char>(o.c)] = kCOp1;
      op1[static_cast<unsigned char>(o.c)] = o.op;
      bracket[static_cast<unsigned char>(o.c)] = o.br;
    }
    cls[static_cast<unsigned char>(' ')] = kCSpace;
    cls[static_cast<unsigned char>('\t')] = kCBlank;
    cls[static_cast<unsigned char>('\f')] = kCBlank;
    cls[static_cast<unsigned char>('#')] = kCHash;
    cls[static_cast<unsigned char>('\\')] = kCBackslash;
    cls[static_cast<unsigned char>('\n')] = kCNewline;
    cls[static_cast<unsigned char>('\r')] = kCNewline;
  }
};
constexpr ClassTable kClass;

// Keywords: a name of 2..8 bytes read as a little-endian word (zero-padded)
// indexes a 64-slot perfect hash table ((word * kKwMul) >> 58).
constexpr std::uint64_t kKwMul = 0xb16392193b265bdULL;
struct KwTable {
  std::uint64_t word[64] = {};
  Kw kw[64] = {};
  bool perfect = true;
  static constexpr std::uint64_t word_of(std::string_view s) {
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      w |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
    return w;
  }
  constexpr KwTable() {
    const struct {
      std::string_view s;
      Kw k;
    } all[] = {{"False", Kw::kFalse},
               {"None", Kw::kNoneLit},
               {"True", Kw::kTrue},
               {"and", Kw::kAnd},
               {"as", Kw::kAs},
               {"assert", Kw::kAssert},
               {"async", Kw::kAsync},
               {"await", Kw::kAwait},
               {"break", Kw::kBreak},
               {"class", Kw::kClass},
               {"continue", Kw::kContinue},
               {"def", Kw::kDef},
               {"del", Kw::kDel},
               {"elif", Kw::kElif},
               {"else", Kw::kElse},
               {"except", Kw::kExcept},
               {"finally", Kw::kFinally},
               {"for", Kw::kFor},
               {"from", Kw::kFrom},
               {"global", Kw::kGlobal},
               {"if", Kw::kIf},
               {"import", Kw::kImport},
               {"in", Kw::kIn},
               {"is", Kw::kIs},
               {"lambda", Kw::kLambda},
               {"nonlocal", Kw::kNonlocal},
               {"not", Kw::kNot},
               {"or", Kw::kOr},
               {"pass", Kw::kPass},
               {"raise", Kw::kRaise},
               {"return", Kw::kReturn},
               {"try", Kw::kTry},
               {"while", Kw::kWhile},
               {"with", Kw::kWith},
               {"yield", Kw::kYield}};
    for (const auto& e : all) {
      const std::uint64_t w = word_of(e.s);
      const auto h = static_cast<std::size_t>((w * kKwMul) >> 58);
      if (kw[h] != Kw::kNone) perfect = false;
      word[h] = w;
      kw[h] = e.k;
    }
  }
};
constexpr KwTable kKeywords;
// The first bytes of keywords (a name starting with another byte is none).
struct KwFirst {
  bool t[256] = {};
  constexpr KwFirst() {
    for (const char c : std::string_view("FNTabcdefgilnoprtwy")) t[static_cast<unsigned char>(c)] = true;
  }
};
constexpr KwFirst kKwFirst;
constexpr bool kw_start(unsigned char c) { return kKwFirst.t[c]; }
static_assert(kKeywords.perfect, "keyword hash has a collision");

// The operator or delimiter starting with c, c1, c2 (later bytes '\0' past
// the end) and its length; kNone for a byte that starts none.
inline Op resolve_op(char c, char c1, char c2, std::size_t& len) {
  Op op = Op::kNone;
  len = 1;
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
  return op;
}

// Writes a token field by field (the three one-byte fields as one word).
inline void put(Token& t, Tok kind, Op op, Kw kw, std::uint32_t line, std::uint32_t col, std::uint32_t begin,
                std::uint32_t end) {
  static_assert(offsetof(Token, kind) == 0 && offsetof(Token, op) == 1 && offsetof(Token, kw) == 2 &&
                offsetof(Token, line) == 4);
  const std::uint32_t head =
      static_cast<std::uint32_t>(kind) | static_cast<std::uint32_t>(op) << 8 | static_cast<std::uint32_t>(kw) << 16;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(static_cast<void*>(&t), &head, 4);
  } else {
    t.kind = kind;
    t.op = op;
    t.kw = kw;
  }
  t.line = line;
  t.col = col;
  t.begin = begin;
  t.end = end;
}

}  // namespace tenet_cost::ir::py::lex_tables
