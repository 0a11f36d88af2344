// The Python parser's expressions (ir/pyast.hpp, Parser): precedence climbing over the infix operators, unary,
// power, calls, subscripts, slices, brackets and atoms. The statements and the arena are in pyparse.cpp.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "ir/pyast.hpp"

namespace tenet_cost::ir::py {

// ------------------------------------------------------------- expressions

namespace {
// Python precedence: or 1, and 2, not 3, comparisons 4, | 5, ^ 6, & 7,
// shifts 8, + - 9, * / // % @ 10 (unary and ** are handled below them).
struct PrecTable {
  unsigned char op[256] = {};
  unsigned char kw[256] = {};
  constexpr PrecTable() {
    kw[static_cast<std::uint8_t>(Kw::kOr)] = 1;
    kw[static_cast<std::uint8_t>(Kw::kAnd)] = 2;
    for (const Kw k : {Kw::kIn, Kw::kNot, Kw::kIs}) kw[static_cast<std::uint8_t>(k)] = 4;
    for (const Op o : {Op::kLt, Op::kGt, Op::kLe, Op::kGe, Op::kEq, Op::kNe}) op[static_cast<std::uint8_t>(o)] = 4;
    op[static_cast<std::uint8_t>(Op::kPipe)] = 5;
    op[static_cast<std::uint8_t>(Op::kCaret)] = 6;
    op[static_cast<std::uint8_t>(Op::kAmp)] = 7;
    for (const Op o : {Op::kShl, Op::kShr}) op[static_cast<std::uint8_t>(o)] = 8;
    for (const Op o : {Op::kPlus, Op::kMinus}) op[static_cast<std::uint8_t>(o)] = 9;
    for (const Op o : {Op::kStar, Op::kSlash, Op::kDSlash, Op::kPercent, Op::kAt})
      op[static_cast<std::uint8_t>(o)] = 10;
  }
};
constexpr PrecTable kPrec;
// The token after an atom continues the expression (a trailer, a binary or
// comparison operator, `if`, `:=`, ...): false only where parse_test()
// would stop right after the atom.
bool continues_expression(const Token& t) {
  if (t.kind == Tok::kOp) {
    const Op op = t.op;
    return kPrec.op[static_cast<std::uint8_t>(op)] != 0 || op == Op::kLPar || op == Op::kLSq || op == Op::kDot ||
           op == Op::kDStar || op == Op::kWalrus;
  }
  if (t.kind == Tok::kName) return kPrec.kw[static_cast<std::uint8_t>(t.kw)] != 0 || t.kw == Kw::kIf;
  return false;
}

int infix_prec(const Token& t) {
  if (t.kind == Tok::kOp) return kPrec.op[static_cast<std::uint8_t>(t.op)];
  if (t.kind == Tok::kName) return kPrec.kw[static_cast<std::uint8_t>(t.kw)];
  return 0;
}
}  // namespace

Node* Parser::parse_expression() { return parse_testlist(true); }

Node* Parser::parse_testlist(bool allow_star) {
  const Token first = *tk_;
  auto one = [&]() -> Node* {
    if (allow_star && at_op(Op::kStar)) {
      const Token t = *tk_;
      advance();
      Node* s = new_node(NK::kStarred, t);
      s->a = parse_expr(5);
      s->end = last_end_;
      set_height(s, s->a->height + 1);
      return s;
    }
    return parse_test();
  };
  Node* e = one();
  if (!at_op(Op::kComma)) return e;
  const std::size_t st = scratch_.size();
  push_scratch(e);
  while (accept_op(Op::kComma)) {
    if (tk_->kind == Tok::kNewline || tk_->kind == Tok::kEnd || at_op(Op::kAssign) || at_op(Op::kColon) ||
        at_op(Op::kSemi) || at_op(Op::kRPar) || at_op(Op::kRSq) || at_op(Op::kRBrace) ||
        (tk_->kind == Tok::kOp && tk_->op >= Op::kPlusEq))
      break;
    push_scratch(one());
  }
  Node* t = new_node(NK::kTuple, first);
  std::uint32_t h = 1;
  for (std::size_t i = st; i < scratch_.size(); ++i) h = std::max(h, scratch_[i]->height + 1);
  t->kids = finish_list(st, &t->n);
  t->end = last_end_;
  set_height(t, h);
  return t;
}

Node* Parser::parse_test() {
  const DepthGuard guard(*this);
  if (tk_->kind == Tok::kName) {
    if (tk_->kw == Kw::kNone && !continues_expression(peek())) {
      // a lone name (followed by ',', ')', ':', the end of the line, ...): what the
      // full descent below would give
      Node* n = new_node(NK::kName, *tk_);
      n->text = lex_.text(*tk_);
      advance();
      return n;
    }
    if (tk_->kw == Kw::kLambda) return parse_lambda();
  } else if (tk_->kind == Tok::kInt || tk_->kind == Tok::kString) {
    // a lone literal, the same way (a string followed by a string is concatenated: not lone)
    const Token& next = peek();
    if (!continues_expression(next) && next.kind != Tok::kString) return parse_atom();
  }
  Node* e = nullptr;
  if (tk_->kind == Tok::kOp ? (tk_->op == Op::kMinus || tk_->op == Op::kPlus || tk_->op == Op::kTilde)
                            : (tk_->kind == Tok::kName && (tk_->kw == Kw::kNot || tk_->kw == Kw::kAwait))) {
    e = parse_expr(1);
  } else {
    e = parse_power();  // parse_expr(1) without its frame
    if (infix_prec(*tk_) != 0) e = parse_infix(e, 1);
  }
  if (at_kw(Kw::kIf)) {
    advance();
    Node* cond = parse_or_test();
    expect_kw(Kw::kElse, "'else'");
    Node* other = parse_test();
    Node* n = new_node_from(NK::kIfExp, e);
    n->a = e;
    n->b = cond;
    n->c = other;
    n->end = last_end_;
    set_height(n, std::max({e->height, cond->height, other->height}) + 1);
    return n;
  }
  if (at_op(Op::kWalrus)) {
    advance();
    Node* v = parse_test();
    Node* n = new_node_from(NK::kBinOp, e);
    n->op = Op::kWalrus;
    n->a = e;
    n->b = v;
    n->end = last_end_;
    set_height(n, std::max(e->height, v->height) + 1);
    return n;
  }
  return e;
}

Node* Parser::parse_test_nocond() { return parse_or_test(); }

Node* Parser::parse_lambda() {
  const Token first = *tk_;
  advance();
  Stmt tmp;
  parse_params(&tmp, Op::kColon);
  expect_op(Op::kColon, "':'");
  Node* n = new_node(NK::kLambda, first);
  n->a = parse_test();
  n->end = last_end_;
  set_height(n, n->a->height + 1);
  return n;
}

Node* Parser::parse_or_test() { return parse_expr(1); }

// Precedence climbing over every binary level (one C++ frame per level
// actually used, not one per grammar rule).
Node* Parser::parse_expr(int min_prec) {
  Node* lhs = nullptr;
  if (min_prec <= 3 && at_kw(Kw::kNot)) {
    const DepthGuard guard(*this);
    const Token t = *tk_;
    advance();
    Node* n = new_node(NK::kUnary, t);
    n->kw = Kw::kNot;
    n->a = parse_expr(3);
    n->end = n->a->end;
    set_height(n, n->a->height + 1);
    lhs = n;
  } else if (tk_->kind == Tok::kOp ? (tk_->op == Op::kMinus || tk_->op == Op::kPlus || tk_->op == Op::kTilde)
                                   : (tk_->kind == Tok::kName && tk_->kw == Kw::kAwait)) {
    lhs = parse_unary();
  } else {
    lhs = parse_power();  // what parse_unary() does here
  }
  return parse_infix(lhs, min_prec);
}

// The binary operators after `lhs` (parse_expr's loop).
Node* Parser::parse_infix(Node* lhs, int min_prec) {
  for (;;) {
    const int p = infix_prec(*tk_);
    if (p == 0 || p < min_prec) return lhs;
    if (p == 1 || p == 2) {
      // n-ary and / or
      const Kw kw = tk_->kw;
      const std::size_t st = scratch_.size();
      push_scratch(lhs);
      std::uint32_t h = lhs->height;
      while (accept_kw(kw)) {
        push_scratch(parse_expr(p + 1));
        h = std::max(h, scratch_.back()->height);
      }
      Node* n = new_node_from(NK::kBoolOp, lhs);
      n->kw = kw;
      n->kids = finish_list(st, &n->n);
      n->end = last_end_;
      set_height(n, h + 1);
      lhs = n;
      continue;
    }
    if (p == 4) {
      // comparison chain: a < b < c == (a < b) and (b < c)
      if (at_kw(Kw::kNot) && !(peek().kind == Tok::kName && peek().kw == Kw::kIn)) return lhs;
      Node* result = nullptr;
      const std::size_t st = scratch_.size();
      Node* left = lhs;
      for (;;) {
        Cmp cmp = Cmp::kOp;
        Op op = Op::kNone;
        if (tk_->kind == Tok::kOp && tk_->op >= Op::kLt && tk_->op <= Op::kNe) {
          op = tk_->op;
          advance();
        } else if (at_kw(Kw::kIn)) {
          cmp = Cmp::kIn;
          advance();
        } else if (at_kw(Kw::kNot) && peek().kind == Tok::kName && peek().kw == Kw::kIn) {
          cmp = Cmp::kNotIn;
          advance();
          advance();
        } else if (at_kw(Kw::kIs)) {
          advance();
          cmp = accept_kw(Kw::kNot) ? Cmp::kIsNot : Cmp::kIs;
        } else {
          break;
        }
        Node* rhs = parse_expr(5);
        Node* c = new_node_from(NK::kCompare, left);
        c->op = op;
        c->cmp = cmp;
        c->a = left;
        c->b = rhs;
        c->end = rhs->end;
        set_height(c, std::max(left->height, rhs->height) + 1);
        if (result == nullptr) {
          result = c;
        } else {
          if (scratch_.size() == st) push_scratch(result);
          push_scratch(c);
        }
        left = rhs;
      }
      if (scratch_.size() == st) {
        lhs = result;
        continue;
      }
      Node* n = new_node_from(NK::kBoolOp, scratch_[st]);
      n->kw = Kw::kAnd;
      std::uint32_t h = 1;
      for (std::size_t i = st; i < scratch_.size(); ++i) h = std::max(h, scratch_[i]->height + 1);
      n->kids = finish_list(st, &n->n);
      n->end = last_end_;
      set_height(n, h);
      lhs = n;
      continue;
    }
    const Op op = tk_->op;
    advance();
    Node* rhs = p < 10 ? parse_expr(p + 1) : parse_unary();
    Node* n = new_node_from(NK::kBinOp, lhs);
    n->op = op;
    n->a = lhs;
    n->b = rhs;
    n->end = rhs->end;
    set_height(n, std::max(lhs->height, rhs->height) + 1);
    lhs = n;
  }
}

Node* Parser::parse_unary() {
  if (at_op(Op::kMinus) || at_op(Op::kPlus) || at_op(Op::kTilde)) {
    const DepthGuard guard(*this);
    const Token t = *tk_;
    advance();
    Node* n = new_node(NK::kUnary, t);
    n->op = t.op;
    n->a = parse_unary();
    n->end = n->a->end;
    set_height(n, n->a->height + 1);
    return n;
  }
  if (at_kw(Kw::kAwait)) advance();
  return parse_power();
}

Node* Parser::parse_power() {
  // atom_expr: an atom (a plain name inline) and its trailers
  Node* e = nullptr;
  if (tk_->kind == Tok::kName && tk_->kw == Kw::kNone) {
    e = new_node(NK::kName, *tk_);
    e->text = lex_.text(*tk_);
    advance();
  } else {
    e = parse_atom();
  }
  for (;;) {
    if (tk_->kind != Tok::kOp) return e;
    const Op op = tk_->op;
    if (op == Op::kLPar) {
      advance();
      e = parse_call(e);
    } else if (op == Op::kLSq) {
      advance();
      e = parse_subscript(e);
    } else if (op == Op::kDot) {
      advance();
      const Token nt = *tk_;
      if (tk_->kind != Tok::kName) error_expected("an attribute name");
      advance();
      Node* n = new_node_from(NK::kAttr, e);
      n->a = e;
      n->text = lex_.text(nt);
      n->end = nt.end;
      set_height(n, e->height + 1);
      e = n;
    } else if (op == Op::kDStar) {
      advance();
      Node* x = parse_unary();
      Node* n = new_node_from(NK::kBinOp, e);
      n->op = Op::kDStar;
      n->a = e;
      n->b = x;
      n->end = x->end;
      set_height(n, std::max(e->height, x->height) + 1);
      return n;
    } else {
      return e;
    }
  }
}

void Parser::skip_comprehension_tail(Op closer) {
  // `for ... in ... [if ...]` up to the closing bracket: kept opaque, but the
  // brackets must balance.
  std::size_t depth = 0;
  for (;;) {
    if (tk_->kind == Tok::kEnd) error_expected("a closing bracket");
    if (tk_->kind == Tok::kOp) {
      if (tk_->op == Op::kLPar || tk_->op == Op::kLSq || tk_->op == Op::kLBrace) {
        ++depth;
      } else if (tk_->op == Op::kRPar || tk_->op == Op::kRSq || tk_->op == Op::kRBrace) {
        if (depth == 0) {
          if (tk_->op != closer) error_expected(closer == Op::kRPar ? "')'" : closer == Op::kRSq ? "']'" : "'}'");
          return;
        }
        --depth;
      }
    }
    advance();
  }
}

Node* Parser::parse_call(Node* callee) {
  // `(` already consumed
  Node* call = new_node_from(NK::kCall, callee);
  call->a = callee;
  std::uint32_t h = callee->height;
  const std::size_t st = scratch_.size();
  while (!at_op(Op::kRPar)) {
    Node* arg = nullptr;
    if (tk_->kind == Tok::kOp && (tk_->op == Op::kStar || tk_->op == Op::kDStar)) {
      arg = new_node(tk_->op == Op::kStar ? NK::kStarred : NK::kDoubleStarred, *tk_);
      advance();
      arg->a = parse_test();
    } else if (tk_->kind == Tok::kName && tk_->kw == Kw::kNone && peek().kind == Tok::kOp && peek().op == Op::kAssign) {
      const Token t = *tk_;
      arg = new_node(NK::kKeyword, t);
      arg->text = lex_.text(t);
      advance();
      advance();
      arg->a = parse_test();
    } else {
      arg = parse_test();
      if (at_kw(Kw::kFor) || at_kw(Kw::kAsync)) {
        Node* g = new_node_from(NK::kComprehension, arg);
        g->a = arg;
        skip_comprehension_tail(Op::kRPar);
        g->end = last_end_;
        arg = g;
      }
    }
    if (arg->kind == NK::kKeyword || arg->kind == NK::kStarred || arg->kind == NK::kDoubleStarred) {
      arg->end = last_end_;
      set_height(arg, arg->a->height + 1);
    }
    h = std::max(h, arg->height);
    push_scratch(arg);
    if (!accept_op(Op::kComma)) break;
  }
  if (!at_op(Op::kRPar)) error_expected("',' or ')'");
  advance();
  call->kids = finish_list(st, &call->n);
  call->end = last_end_;
  set_height(call, h + 1);
  return call;
}

Node* Parser::parse_slice_item() {
  const Token first = *tk_;
  Node* lo = nullptr;
  if (!at_op(Op::kColon)) {
    lo = parse_test();
    if (!at_op(Op::kColon)) return lo;
  }
  advance();  // ':'
  Node* s = new_node(NK::kSlice, first);
  s->a = lo;
  if (!at_op(Op::kColon) && !at_op(Op::kComma) && !at_op(Op::kRSq)) s->b = parse_test();
  if (accept_op(Op::kColon)) {
    if (!at_op(Op::kComma) && !at_op(Op::kRSq)) s->c = parse_test();
  }
  std::uint32_t h = 0;
  for (Node* k : {s->a, s->b, s->c})
    if (k != nullptr) h = std::max(h, k->height);
  s->end = last_end_;
  set_height(s, h + 1);
  return s;
}

Node* Parser::parse_subscript(Node* base) {
  // `[` already consumed
  Node* n = new_node_from(NK::kSubscript, base);
  n->a = base;
  const std::size_t st = scratch_.size();
  bool trailing_comma = false;
  while (!at_op(Op::kRSq)) {
    trailing_comma = false;
    if (at_op(Op::kStar)) {
      const Token t = *tk_;
      advance();
      Node* s = new_node(NK::kStarred, t);
      s->a = parse_expr(5);
      s->end = last_end_;
      set_height(s, s->a->height + 1);
      push_scratch(s);
    } else {
      push_scratch(parse_slice_item());
    }
    if (!accept_op(Op::kComma)) break;
    trailing_comma = true;
  }
  if (!at_op(Op::kRSq)) error_expected("',' or ']'");
  if (scratch_.size() == st) error_expected("an index");
  advance();
  if (scratch_.size() - st == 1 && !trailing_comma && scratch_.back()->kind == NK::kTuple) {
    Node* t = scratch_.back();
    scratch_.resize(st);
    for (std::uint32_t i = 0; i < t->n; ++i) push_scratch(t->kids[i]);
  }
  std::uint32_t h = base->height;
  for (std::size_t i = st; i < scratch_.size(); ++i) h = std::max(h, scratch_[i]->height);
  n->kids = finish_list(st, &n->n);
  n->end = last_end_;
  set_height(n, h + 1);
  return n;
}

Node* Parser::parse_bracketed(Op open) {
  const Token first = *tk_;
  advance();
  const Op close = open == Op::kLPar ? Op::kRPar : open == Op::kLSq ? Op::kRSq : Op::kRBrace;
  const char* close_text = open == Op::kLPar ? "')'" : open == Op::kLSq ? "']'" : "'}'";
  const std::size_t st = scratch_.size();
  if (open == Op::kLBrace) {
    if (accept_op(Op::kRBrace)) {
      Node* d = new_node(NK::kDict, first);
      d->end = last_end_;
      return d;
    }
    bool is_dict = false;
    bool first_item = true;
    std::uint32_t h = 1;
    for (;;) {
      if (at_op(Op::kDStar)) {
        advance();
        is_dict = true;
        push_scratch(nullptr);
        push_scratch(parse_expr(5));
      } else {
        Node* k = at_op(Op::kStar) ? parse_testlist(true) : parse_test();
        if (first_item) is_dict = at_op(Op::kColon);
        if (is_dict) {
          expect_op(Op::kColon, "':'");
          push_scratch(k);
          push_scratch(parse_test());
        } else {
          push_scratch(k);
        }
        if (first_item && (at_kw(Kw::kFor) || at_kw(Kw::kAsync))) {
          skip_comprehension_tail(Op::kRBrace);
          advance();
          scratch_.resize(st);
          Node* g = new_node(NK::kComprehension, first);
          g->end = last_end_;
          return g;
        }
      }
      for (std::size_t i = scratch_.size() - (is_dict ? 2 : 1); i < scratch_.size(); ++i)
        if (scratch_[i] != nullptr) h = std::max(h, scratch_[i]->height + 1);
      first_item = false;
      if (!accept_op(Op::kComma)) break;
      if (at_op(Op::kRBrace)) break;
    }
    if (!at_op(Op::kRBrace)) error_expected("',' or '}'");
    advance();
    Node* d = new_node(is_dict ? NK::kDict : NK::kSet, first);
    d->kids = finish_list(st, &d->n);
    d->end = last_end_;
    set_height(d, h);
    return d;
  }
  if (accept_op(close)) {
    Node* t = new_node(open == Op::kLPar ? NK::kTuple : NK::kList, first);
    t->end = last_end_;
    return t;
  }
  bool comma = false;
  std::uint32_t h = 1;
  for (;;) {
    Node* e = nullptr;
    if (at_op(Op::kStar)) {
      const Token t = *tk_;
      advance();
      e = new_node(NK::kStarred, t);
      e->a = parse_expr(5);
      e->end = last_end_;
      set_height(e, e->a->height + 1);
    } else if (open == Op::kLPar && at_kw(Kw::kYield)) {
      const Token t = *tk_;
      advance();
      e = new_node(NK::kConst, t);
      e->text = "yield";
      accept_kw(Kw::kFrom);
      if (!at_op(Op::kRPar)) parse_testlist(true);
      e->end = last_end_;
    } else {
      e = parse_test();
    }
    if (scratch_.size() == st && !comma && (at_kw(Kw::kFor) || at_kw(Kw::kAsync))) {
      skip_comprehension_tail(close);
      advance();
      Node* g = new_node(NK::kComprehension, first);
      g->a = e;
      g->end = last_end_;
      return g;
    }
    push_scratch(e);
    h = std::max(h, e->height + 1);
    if (!accept_op(Op::kComma)) break;
    comma = true;
    if (at_op(close)) break;
  }
  if (!at_op(close)) error_expected(std::string("',' or ") + close_text);
  advance();
  if (open == Op::kLPar && !comma) {
    // parenthesized expression: widen its span to include the parentheses
    Node* e = scratch_.back();
    scratch_.resize(st);
    e->begin = first.begin;
    e->end = last_end_;
    return e;
  }
  Node* t = new_node(open == Op::kLPar ? NK::kTuple : NK::kList, first);
  t->kids = finish_list(st, &t->n);
  t->end = last_end_;
  set_height(t, h);
  return t;
}

Node* Parser::parse_atom() {
  const Token t = *tk_;
  switch (t.kind) {
    case Tok::kName: {
      if (t.kw == Kw::kNone) {
        advance();
        Node* n = new_node(NK::kName, t);
        n->text = lex_.text(t);
        return n;
      }
      if (t.kw == Kw::kTrue || t.kw == Kw::kFalse || t.kw == Kw::kNoneLit) {
        advance();
        Node* n = new_node(NK::kConst, t);
        n->text = lex_.text(t);
        return n;
      }
      if (t.kw == Kw::kLambda) return parse_lambda();
      error_expected("an expression");
    }
    case Tok::kInt: {
      Node* n = new_node(NK::kInt, t);
      n->text = lex_.text(t);
      if (n->text.size() <= 19 && (n->text[0] != '0' || n->text.size() == 1)) {
        // a plain decimal literal (at most 19 digits: fits in 64 bits)
        std::uint64_t v = 0;
        bool plain = true;
        for (const char ch : n->text) {
          const auto d = static_cast<unsigned>(ch - '0');
          if (d > 9) {
            plain = false;
            break;
          }
          v = v * 10 + d;
        }
        if (plain) {
          n->ival = v;
          advance();
          return n;
        }
      }
      advance();
      // value: decimal or 0x/0o/0b, underscores allowed
      std::string_view s = n->text;
      unsigned base = 10;
      if (s.size() > 1 && s[0] == '0') {
        const char x = static_cast<char>(s[1] | 0x20);
        if (x == 'x') base = 16, s.remove_prefix(2);
        else if (x == 'o') base = 8, s.remove_prefix(2);
        else if (x == 'b') base = 2, s.remove_prefix(2);
      }
      __extension__ typedef unsigned __int128 u128;
      u128 v = 0;
      for (const char ch : s) {
        if (ch == '_') continue;
        unsigned d = 0;
        if (ch >= '0' && ch <= '9') d = static_cast<unsigned>(ch - '0');
        else d = static_cast<unsigned>((ch | 0x20) - 'a' + 10);
        if (d >= base)
          lex_.fail(t.line, t.col, "expected a base-" + std::to_string(base) + " digit, found " + lex_.describe(t));
        v = v * base + d;
        if (v > UINT64_MAX) {
          n->big = true;
          break;
        }
      }
      // Python forbids leading zeros in non-zero decimal literals.
      if (base == 10 && n->text.size() > 1 && n->text[0] == '0' &&
          n->text.find_first_not_of("0_") != std::string_view::npos)
        lex_.fail(t.line, t.col, "expected a decimal number without leading zeros, found " + lex_.describe(t));
      n->ival = static_cast<std::uint64_t>(v);
      return n;
    }
    case Tok::kFloat: {
      advance();
      Node* n = new_node(NK::kFloat, t);
      n->text = lex_.text(t);
      if (!n->text.empty() && (n->text.back() == 'j' || n->text.back() == 'J')) {
        n->kind = NK::kConst;  // imaginary literal: opaque
        return n;
      }
      std::string clean;
      std::string_view s = n->text;
      if (s.find('_') != std::string_view::npos) {
        for (const char ch : s)
          if (ch != '_') clean += ch;
        s = clean;
      }
      double v = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (r.ec == std::errc::result_out_of_range) v = HUGE_VAL;  // Python: 1e999 == inf
      n->fval = v;
      return n;
    }
    case Tok::kString: {
      advance();
      Node* n = new_node(NK::kString, t);
      std::string_view body;
      if (tk_->kind != Tok::kString && lex_.plain_string(t, body)) {
        n->text = body;
        return n;
      }
      strbuf_.clear();
      lex_.decode_string(t, strbuf_);
      while (tk_->kind == Tok::kString) {
        lex_.decode_string(*tk_, strbuf_);
        advance();
      }
      n->text = arena_.copy(strbuf_);
      n->end = last_end_;
      return n;
    }
    case Tok::kOp:
      if (t.op == Op::kLPar || t.op == Op::kLSq || t.op == Op::kLBrace) {
        const DepthGuard guard(*this);
        return parse_bracketed(t.op);
      }
      if (t.op == Op::kEllipsis) {
        advance();
        return new_node(NK::kEllipsis, t);
      }
      error_expected("an expression");
    default: error_expected("an expression");
  }
}

}  // namespace tenet_cost::ir::py
