// Recursive-descent reader for the isl subset described in relation.hpp.
#include <algorithm>
#include <limits>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "tenet_cost/relation.hpp"

namespace tenet_cost::relation {
namespace {

enum class Tok { kIdent, kInt, kSym, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  i64 value = 0;
  std::size_t pos = 0;
};

constexpr std::size_t kMaxText = 1 << 20;
// TENET statements have at most 7 loop dims (conv) and PE arrays 3; 16 leaves room.
constexpr std::size_t kMaxArity = 16;

class Parser {
 public:
  Parser(const std::string& text, const SourceLocation& loc) : text_(text), loc_(loc) {
    if (text.size() > kMaxText) fail(0, "relation text longer than 1 MiB");
    lex();
  }

  Relation parse_relation() {
    Relation r;
    r.text = text_;
    r.loc = loc_;
    if (is_sym("[")) {
      // Either `[n] -> { ... }` (parameters) or an anonymous tuple outside braces.
      fail(cur().pos,
           "parameters (`[...] -> {...}`) are not supported; write the sizes as numbers, e.g. "
           "{S[i] : 0 <= i < 256}");
    }
    expect_sym("{", "'{' opening the relation");
    bool first = true;
    bool kind_known = false;
    while (!is_sym("}")) {
      if (!first) expect_sym(";", "';' between pieces or '}'");
      if (is_sym("}")) break;  // trailing ';'
      first = false;
      Piece p = parse_piece();
      if (kind_known && p.is_map != r.is_map)
        fail(piece_start_, "a union cannot mix sets and maps");
      r.is_map = p.is_map;
      kind_known = true;
      r.pieces.push_back(std::move(p));
    }
    advance();  // '}'
    if (cur().kind != Tok::kEnd) fail(cur().pos, "expected end of relation after '}', found " + describe(cur()));
    return r;
  }

 private:
  // ---------------------------------------------------------------- lexing
  void lex() {
    std::size_t i = 0;
    const std::size_t n = text_.size();
    while (i < n) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.pos = i;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < n && (std::isalnum(static_cast<unsigned char>(text_[j])) || text_[j] == '_' || text_[j] == '\''))
          ++j;
        t.kind = Tok::kIdent;
        t.text = text_.substr(i, j - i);
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t j = i;
        i64 v = 0;
        while (j < n && std::isdigit(static_cast<unsigned char>(text_[j]))) {
          if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[j] - '0', &v))
            fail(i, "integer constant does not fit in 64 bits");
          ++j;
        }
        t.kind = Tok::kInt;
        t.text = text_.substr(i, j - i);
        t.value = v;
        i = j;
      } else {
        static const char* two[] = {"->", "<=", ">=", "==", "&&", "||", "!="};
        t.kind = Tok::kSym;
        bool matched = false;
        for (const char* s : two) {
          if (i + 1 < n && text_[i] == s[0] && text_[i + 1] == s[1]) {
            t.text = s;
            i += 2;
            matched = true;
            break;
          }
        }
        if (!matched) {
          if (std::string("{}[](),;:+-*/%<>=").find(c) == std::string::npos) {
            fail(i, "unexpected character '" + std::string(1, c) + "'");  // InputError escapes control bytes
          }
          t.text = std::string(1, c);
          ++i;
        }
      }
      toks_.push_back(std::move(t));
    }
    Token end;
    end.pos = n;
    toks_.push_back(end);
  }

  [[noreturn]] void fail(std::size_t pos, const std::string& msg) const {
    SourceLocation l = loc_;
    std::uint32_t line = l.line, col = l.column == 0 ? 1 : l.column;
    for (std::size_t i = 0; i < pos && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    if (l.line > 0) {
      l.line = line;
      l.column = col;
    }
    throw InputError(l, msg);
  }

  static std::string describe(const Token& t) {
    if (t.kind == Tok::kEnd) return "end of text";
    return "'" + t.text + "'";
  }

  const Token& cur() const { return toks_[idx_]; }
  void advance() {
    if (idx_ + 1 < toks_.size()) ++idx_;
  }
  bool is_sym(const char* s) const { return cur().kind == Tok::kSym && cur().text == s; }
  bool is_kw(const char* s) const { return cur().kind == Tok::kIdent && cur().text == s; }
  void expect_sym(const char* s, const std::string& what) {
    if (!is_sym(s)) fail(cur().pos, "expected " + what + ", found " + describe(cur()));
    advance();
  }

  // ------------------------------------------------------------- structure
  Piece parse_piece() {
    piece_start_ = cur().pos;
    Piece p;
    p.loc = loc_;
    p_ = &p;
    vars_.clear();
    // Input tuple: Name[v1, v2, ...] with fresh variable names.
    if (cur().kind == Tok::kIdent) {
      p.in_name = cur().text;
      advance();
    }
    expect_sym("[", "'[' opening a tuple");
    while (!is_sym("]")) {
      if (!p.vars.empty()) expect_sym(",", "',' or ']' in a tuple");
      if (cur().kind != Tok::kIdent || is_reserved(cur().text))
        fail(cur().pos, "expected a variable name in the input tuple, found " + describe(cur()));
      if (vars_.count(cur().text)) fail(cur().pos, "variable '" + cur().text + "' appears twice in the tuple");
      if (p.vars.size() >= kMaxArity)
        fail(cur().pos, "tuple has more than " + std::to_string(kMaxArity) + " dimensions");
      vars_[cur().text] = p.vars.size();
      p.vars.push_back(cur().text);
      advance();
    }
    advance();
    if (is_sym("->")) {
      advance();
      p.is_map = true;
      if (cur().kind == Tok::kIdent && !is_reserved(cur().text)) {
        p.out_name = cur().text;
        advance();
      }
      expect_sym("[", "'[' opening the output tuple");
      while (!is_sym("]")) {
        if (!p.out.empty()) expect_sym(",", "',' or ']' in the output tuple");
        if (p.out.size() >= kMaxArity)
          fail(cur().pos, "output tuple has more than " + std::to_string(kMaxArity) + " dimensions");
        p.out.push_back(parse_expr());
      }
      advance();
    }
    if (is_sym(":")) {
      advance();
      p.disjuncts = parse_formula();
    } else {
      p.disjuncts = {{}};
    }
    if (!is_sym(";") && !is_sym("}"))
      fail(cur().pos, "expected ';', ':' or '}' after the tuple, found " + describe(cur()));
    p_ = nullptr;
    return p;
  }

  static bool is_reserved(const std::string& s) {
    return s == "and" || s == "or" || s == "floor" || s == "ceil" || s == "mod" || s == "exists" || s == "not";
  }

  // ----------------------------------------------------------- expressions
  struct Val {
    Affine a;
    std::size_t pos = 0;
    [[nodiscard]] bool is_const() const {
      return std::all_of(a.coeff.begin(), a.coeff.end(), [](i64 c) { return c == 0; });
    }
  };

  // Every coefficient and constant stays in [-(2^63-1), 2^63-1], so that -x never
  // overflows downstream (INT64_MIN is rejected like any other overflow).
  i64 cadd(i64 x, i64 y, std::size_t pos) const {
    i64 r;
    if (__builtin_add_overflow(x, y, &r) || r == std::numeric_limits<i64>::min())
      fail(pos, "integer overflow in constant arithmetic");
    return r;
  }
  i64 cmul(i64 x, i64 y, std::size_t pos) const {
    i64 r;
    if (__builtin_mul_overflow(x, y, &r) || r == std::numeric_limits<i64>::min())
      fail(pos, "integer overflow in constant arithmetic");
    return r;
  }

  Affine add(const Affine& x, const Affine& y, i64 ys, std::size_t pos) const {
    Affine r;
    r.constant = cadd(x.constant, cmul(y.constant, ys, pos), pos);
    r.coeff.assign(std::max(x.coeff.size(), y.coeff.size()), 0);
    for (std::size_t i = 0; i < x.coeff.size(); ++i) r.coeff[i] = x.coeff[i];
    for (std::size_t i = 0; i < y.coeff.size(); ++i) r.coeff[i] = cadd(r.coeff[i], cmul(y.coeff[i], ys, pos), pos);
    trim(r);
    return r;
  }
  Affine scale(const Affine& x, i64 k, std::size_t pos) const {
    Affine r;
    r.constant = cmul(x.constant, k, pos);
    r.coeff.resize(x.coeff.size());
    for (std::size_t i = 0; i < x.coeff.size(); ++i) r.coeff[i] = cmul(x.coeff[i], k, pos);
    trim(r);
    return r;
  }
  static void trim(Affine& a) {
    while (!a.coeff.empty() && a.coeff.back() == 0) a.coeff.pop_back();
  }

  Affine make_term(Term::Kind kind, const Affine& num, i64 den, std::size_t pos) {
    if (den <= 0) fail(pos, "divisor must be a positive integer constant, found " + std::to_string(den));
    Val v{num, pos};
    if (v.is_const()) {
      Affine c;
      c.constant = kind == Term::Kind::kFloor ? floor_div(num.constant, den) : floor_mod(num.constant, den);
      return c;
    }
    if (den == 1) {
      if (kind == Term::Kind::kFloor) return num;
      return Affine{};
    }
    auto& terms = p_->terms;
    std::size_t idx = terms.size();
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].kind == kind && terms[i].den == den && terms[i].num.constant == num.constant &&
          terms[i].num.coeff == num.coeff) {
        idx = i;
        break;
      }
    }
    if (idx == terms.size()) {
      if (terms.size() >= 256) fail(pos, "too many floor/mod terms in one piece (limit 256)");
      terms.push_back(Term{kind, num, den});
    }
    Affine r;
    r.coeff.assign(p_->vars.size() + idx + 1, 0);
    r.coeff[p_->vars.size() + idx] = 1;
    return r;
  }

  Affine parse_expr() {
    const std::size_t start = cur().pos;
    Affine acc;
    bool neg = false;
    if (is_sym("-")) {
      neg = true;
      advance();
    } else if (is_sym("+")) {
      advance();
    }
    Val t = parse_mterm();
    acc = neg ? scale(t.a, -1, start) : t.a;
    while (is_sym("+") || is_sym("-")) {
      const bool minus = is_sym("-");
      const std::size_t pos = cur().pos;
      advance();
      Val u = parse_mterm();
      acc = add(acc, u.a, minus ? -1 : 1, pos);
    }
    return acc;
  }

  Val parse_mterm() {
    Val v = parse_factor();
    for (;;) {
      if (is_sym("*")) {
        const std::size_t pos = cur().pos;
        advance();
        Val w = parse_factor();
        if (v.is_const()) {
          v.a = scale(w.a, v.a.constant, pos);
        } else if (w.is_const()) {
          v.a = scale(v.a, w.a.constant, pos);
        } else {
          fail(pos, "product of two non-constant expressions is not quasi-affine");
        }
      } else if (is_sym("%") || is_kw("mod")) {
        const std::size_t pos = cur().pos;
        advance();
        Val w = parse_factor();
        if (!w.is_const()) fail(w.pos, "the modulus must be an integer constant");
        v.a = make_term(Term::Kind::kMod, v.a, w.a.constant, pos);
      } else if (is_sym("/")) {
        if (floor_depth_ > 0) return v;  // handled by floor()/ceil()
        fail(cur().pos, "division is only allowed as floor(expr/constant) or ceil(expr/constant)");
      } else {
        return v;
      }
    }
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& q) : p(q) {
      if (++p.depth_ > 200) p.fail(p.cur().pos, "expression nested too deeply (more than 200 levels)");
    }
    ~DepthGuard() { --p.depth_; }
  };

  Val parse_factor() {
    DepthGuard guard(*this);
    const Token t = cur();
    if (t.kind == Tok::kInt) {
      advance();
      Val v;
      v.pos = t.pos;
      v.a.constant = t.value;
      // isl accepts juxtaposition: 2i, 2(i+1)
      if ((cur().kind == Tok::kIdent && !is_reserved(cur().text)) || is_sym("(") || is_kw("floor") ||
          is_kw("ceil")) {
        Val w = parse_factor();
        v.a = scale(w.a, t.value, t.pos);
      }
      return v;
    }
    if (t.kind == Tok::kSym && t.text == "-") {
      advance();
      Val w = parse_factor();
      w.a = scale(w.a, -1, t.pos);
      w.pos = t.pos;
      return w;
    }
    if (t.kind == Tok::kSym && t.text == "(") {
      advance();
      const int saved = floor_depth_;
      floor_depth_ = 0;
      Affine a = parse_expr();
      floor_depth_ = saved;
      expect_sym(")", "')'");
      return Val{a, t.pos};
    }
    if (t.kind == Tok::kIdent && (t.text == "floor" || t.text == "ceil")) {
      advance();
      expect_sym("(", "'(' after " + t.text);
      ++floor_depth_;
      Affine num = parse_expr();
      --floor_depth_;
      if (!is_sym("/")) fail(cur().pos, "expected '/' and a constant divisor in " + t.text + "(...), found " + describe(cur()));
      const std::size_t dpos = cur().pos;
      advance();
      if (cur().kind != Tok::kInt) fail(cur().pos, "expected an integer divisor, found " + describe(cur()));
      const i64 den = cur().value;
      advance();
      expect_sym(")", "')' closing " + t.text + "(...)");
      if (t.text == "floor") return Val{make_term(Term::Kind::kFloor, num, den, dpos), t.pos};
      // ceil(e/c) = -floor(-e/c)
      Affine neg = scale(num, -1, dpos);
      return Val{scale(make_term(Term::Kind::kFloor, neg, den, dpos), -1, dpos), t.pos};
    }
    if (t.kind == Tok::kIdent && !is_reserved(t.text)) {
      auto it = vars_.find(t.text);
      if (it == vars_.end())
        fail(t.pos, "unknown identifier '" + t.text + "' (only the input tuple's variables may be used)");
      advance();
      Val v;
      v.pos = t.pos;
      v.a.coeff.assign(it->second + 1, 0);
      v.a.coeff[it->second] = 1;
      return v;
    }
    if (t.kind == Tok::kIdent && t.text == "exists")
      fail(t.pos, "existential quantifiers are not supported");
    fail(t.pos, "expected an expression, found " + describe(t));
  }

  // --------------------------------------------------------------- formulas
  using Dnf = std::vector<std::vector<Constraint>>;

  Dnf parse_formula() {
    Dnf acc = parse_conj();
    while (is_kw("or") || is_sym("||")) {
      advance();
      Dnf more = parse_conj();
      acc.insert(acc.end(), more.begin(), more.end());
    }
    return acc;
  }

  Dnf parse_conj() {
    Dnf acc = parse_atom();
    while (is_kw("and") || is_sym("&&")) {
      advance();
      Dnf rhs = parse_atom();
      Dnf prod;
      for (const auto& a : acc)
        for (const auto& b : rhs) {
          auto c = a;
          c.insert(c.end(), b.begin(), b.end());
          prod.push_back(std::move(c));
        }
      if (prod.size() > 4096) fail(cur().pos, "formula too complex (more than 4096 disjuncts)");
      acc = std::move(prod);
    }
    return acc;
  }

  static bool is_cmp(const Token& t) {
    return t.kind == Tok::kSym &&
           (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=" || t.text == "=" || t.text == "==" ||
            t.text == "!=");
  }

  Dnf parse_atom() {
    DepthGuard guard(*this);
    if (is_kw("not")) fail(cur().pos, "'not' is not supported");
    const std::size_t save = idx_;
    const std::size_t nterms = p_->terms.size();
    if (is_sym("(")) {
      // Try a comparison chain starting with a parenthesised expression first.
      try {
        return parse_chain();
      } catch (const InputError&) {
        idx_ = save;
        p_->terms.resize(nterms);
      }
      advance();
      Dnf f = parse_formula();
      expect_sym(")", "')' closing a condition");
      return f;
    }
    return parse_chain();
  }

  Dnf parse_chain() {
    Affine lhs = parse_expr();
    if (!is_cmp(cur())) fail(cur().pos, "expected a comparison (<, <=, >, >=, =), found " + describe(cur()));
    std::vector<Constraint> cs;
    while (is_cmp(cur())) {
      const std::string op = cur().text;
      const std::size_t pos = cur().pos;
      if (op == "!=") fail(pos, "'!=' is not supported");
      advance();
      Affine rhs = parse_expr();
      Constraint c;
      if (op == "<") {
        c.expr = add(rhs, lhs, -1, pos);
        c.expr.constant = cadd(c.expr.constant, -1, pos);
      } else if (op == "<=") {
        c.expr = add(rhs, lhs, -1, pos);
      } else if (op == ">") {
        c.expr = add(lhs, rhs, -1, pos);
        c.expr.constant = cadd(c.expr.constant, -1, pos);
      } else if (op == ">=") {
        c.expr = add(lhs, rhs, -1, pos);
      } else {
        c.expr = add(lhs, rhs, -1, pos);
        c.equality = true;
      }
      cs.push_back(std::move(c));
      lhs = std::move(rhs);
    }
    return {cs};
  }

  const std::string& text_;
  SourceLocation loc_;
  std::vector<Token> toks_;
  std::size_t idx_ = 0;
  std::size_t piece_start_ = 0;
  Piece* p_ = nullptr;
  std::map<std::string, std::size_t> vars_;
  int floor_depth_ = 0;
  int depth_ = 0;
};

}  // namespace

Relation parse(const std::string& text, const SourceLocation& loc) {
  Parser p(text, loc);
  Relation r = p.parse_relation();
  // Piece locations: the relation's location (pieces share one line in practice).
  for (auto& piece : r.pieces) piece.loc = loc;
  return r;
}

}  // namespace tenet_cost::relation
