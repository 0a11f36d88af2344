#include "extract/sym.hpp"

#include <cctype>
#include <charconv>

#include "tenet_cost/checked.hpp"

namespace tenet_cost::sym {

SymPtr sym_int(std::int64_t v) {
  auto s = std::make_shared<Sym>();
  s->kind = SymKind::kInt;
  s->value = v;
  return s;
}

SymPtr sym_var(std::string name) {
  auto s = std::make_shared<Sym>();
  s->kind = SymKind::kVar;
  s->name = std::move(name);
  return s;
}

static bool is_int(const SymPtr& s, std::int64_t v) { return s->kind == SymKind::kInt && s->value == v; }

SymPtr sym_bin(SymKind op, SymPtr a, SymPtr b) {
  if (a->kind == SymKind::kInt && b->kind == SymKind::kInt) {
    const std::int64_t x = a->value, y = b->value;
    switch (op) {
      case SymKind::kAdd: return sym_int(checked_add(x, y, "shape expression"));
      case SymKind::kSub: return sym_int(checked_sub(x, y, "shape expression"));
      case SymKind::kMul: return sym_int(checked_mul(x, y, "shape expression"));
      case SymKind::kFloorDiv:
      case SymKind::kFloorMod:
        if (y == 0) throw InputError("division by zero in a shape expression");
        if (x == INT64_MIN && y == -1) throw_overflow("shape expression");
        if (op == SymKind::kFloorDiv) return sym_int(floor_div(x, y));
        // x - floor(x/y)*y in 128 bits: the product can leave int64 for a negative y
        // (floor_mod in checked.hpp assumes a positive divisor); the result fits (|r| < |y|).
        return sym_int(static_cast<std::int64_t>(static_cast<i128>(x) - static_cast<i128>(floor_div(x, y)) * y));
      default: break;
    }
  }
  switch (op) {
    case SymKind::kAdd:
      if (is_int(a, 0)) return b;
      if (is_int(b, 0)) return a;
      break;
    case SymKind::kSub:
      if (is_int(b, 0)) return a;
      break;
    case SymKind::kMul:
      if (is_int(a, 0) || is_int(b, 0)) return sym_int(0);
      if (is_int(a, 1)) return b;
      if (is_int(b, 1)) return a;
      break;
    case SymKind::kFloorDiv:
      if (is_int(b, 1)) return a;
      break;
    case SymKind::kFloorMod:
      if (is_int(b, 1)) return sym_int(0);
      break;
    default: break;
  }
  auto s = std::make_shared<Sym>();
  s->kind = op;
  s->a = std::move(a);
  s->b = std::move(b);
  return s;
}

static int prec(const Sym& s) {
  switch (s.kind) {
    case SymKind::kAdd:
    case SymKind::kSub: return 1;
    case SymKind::kMul:
    case SymKind::kFloorDiv:
    case SymKind::kFloorMod: return 2;
    case SymKind::kInt: return s.value < 0 ? 0 : 3;
    default: return 3;
  }
}

static const char* op_text(SymKind k) {
  switch (k) {
    case SymKind::kAdd: return " + ";
    case SymKind::kSub: return " - ";
    case SymKind::kMul: return " * ";
    case SymKind::kFloorDiv: return " // ";
    case SymKind::kFloorMod: return " % ";
    default: return "?";
  }
}

std::string to_text(const Sym& s) {
  if (s.kind == SymKind::kInt) return std::to_string(s.value);
  if (s.kind == SymKind::kVar) return s.name;
  const int p = prec(s);
  std::string l = to_text(*s.a), r = to_text(*s.b);
  if (prec(*s.a) < p) l = "(" + l + ")";
  if (prec(*s.b) <= p) r = "(" + r + ")";  // a - (b - c), a * (b // c): always explicit
  return l + op_text(s.kind) + r;
}

SymPtr bind(const SymPtr& s, const std::map<std::string, std::int64_t>& bindings) {
  switch (s->kind) {
    case SymKind::kInt: return s;
    case SymKind::kVar: {
      auto it = bindings.find(s->name);
      return it == bindings.end() ? s : sym_int(it->second);
    }
    default: return sym_bin(s->kind, bind(s->a, bindings), bind(s->b, bindings));
  }
}

void collect_names(const Sym& s, std::set<std::string>& out) {
  if (s.kind == SymKind::kVar) out.insert(s.name);
  if (s.a) collect_names(*s.a, out);
  if (s.b) collect_names(*s.b, out);
}

bool equal(const Sym& x, const Sym& y) {
  if (&x == &y) return true;
  if (x.kind != y.kind || x.value != y.value || x.name != y.name || !x.a != !y.a || !x.b != !y.b) return false;
  return (!x.a || equal(*x.a, *y.a)) && (!x.b || equal(*x.b, *y.b));
}

}  // namespace tenet_cost::sym

namespace tenet_cost::xsym {

std::optional<SymPtr> from_ir(const ir::Expr& e) {
  switch (e.kind) {
    case ir::ExprKind::kInt: return sym_int(e.int_value);
    case ir::ExprKind::kVar: return sym_var(e.name);
    case ir::ExprKind::kCast:
      if (e.args.size() == 1 && e.args[0]) return from_ir(*e.args[0]);
      return std::nullopt;
    case ir::ExprKind::kBinary: {
      if (e.args.size() != 2 || !e.args[0] || !e.args[1]) return std::nullopt;
      SymKind op;
      switch (e.bin_op) {
        case ir::BinOp::kAdd: op = SymKind::kAdd; break;
        case ir::BinOp::kSub: op = SymKind::kSub; break;
        case ir::BinOp::kMul: op = SymKind::kMul; break;
        case ir::BinOp::kFloorDiv: op = SymKind::kFloorDiv; break;
        case ir::BinOp::kFloorMod: op = SymKind::kFloorMod; break;
        default: return std::nullopt;
      }
      auto a = from_ir(*e.args[0]);
      auto b = from_ir(*e.args[1]);
      if (!a || !b) return std::nullopt;
      try {
        return sym_bin(op, *a, *b);
      } catch (const InputError&) {
        return std::nullopt;  // x // 0 in an extent: not a shape we can state
      }
    }
    default: return std::nullopt;
  }
}

namespace {
struct Parser {
  const std::string& t;
  std::size_t i = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("bad shape expression '" + t + "' at offset " + std::to_string(i) + ": " + what);
  }
  void ws() {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  }
  SymPtr expr(int depth) {
    if (depth > 200) fail("nested too deeply");
    SymPtr a = term(depth);
    for (;;) {
      ws();
      if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
        const SymKind k = t[i] == '+' ? SymKind::kAdd : SymKind::kSub;
        ++i;
        a = sym_bin(k, a, term(depth));
      } else {
        return a;
      }
    }
  }
  SymPtr term(int depth) {
    SymPtr a = unary(depth);
    for (;;) {
      ws();
      if (i < t.size() && t[i] == '*') {
        ++i;
        a = sym_bin(SymKind::kMul, a, unary(depth));
      } else if (i + 1 < t.size() && t[i] == '/' && t[i + 1] == '/') {
        i += 2;
        a = sym_bin(SymKind::kFloorDiv, a, unary(depth));
      } else if (i < t.size() && t[i] == '/') {
        fail("expected '//' (floor division), found '/'");
      } else if (i < t.size() && t[i] == '%') {
        ++i;
        a = sym_bin(SymKind::kFloorMod, a, unary(depth));
      } else {
        return a;
      }
    }
  }
  SymPtr unary(int depth) {
    ws();
    if (i < t.size() && t[i] == '-') {
      ++i;
      return sym_bin(SymKind::kSub, sym_int(0), unary(depth + 1));
    }
    return primary(depth);
  }
  SymPtr primary(int depth) {
    ws();
    if (i >= t.size()) fail("expected a name, an integer or '(', found the end");
    const char c = t[i];
    if (c == '(') {
      ++i;
      SymPtr e = expr(depth + 1);
      ws();
      if (i >= t.size() || t[i] != ')') fail("expected ')'");
      ++i;
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(t.data() + i, t.data() + t.size(), v);
      if (ec != std::errc()) fail("integer out of range");
      i = static_cast<std::size_t>(p - t.data());
      return sym_int(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_' || t[i] == '.')) ++i;
      return sym_var(t.substr(b, i - b));
    }
    fail(std::string("unexpected character '") + c + "'");
  }
};
}  // namespace

SymPtr parse(const std::string& text) {
  Parser p{text};
  SymPtr e = p.expr(0);
  p.ws();
  if (p.i != text.size()) p.fail("unexpected trailing text");
  return e;
}

Dim to_dim(const SymPtr& s) {
  if (s->kind == SymKind::kInt) return Dim::constant(s->value);
  Dim d = Dim::symbolic(to_text(*s));
  d.sym = s;
  return d;
}

SymPtr product(const std::vector<SymPtr>& factors) {
  std::int64_t c = 1;
  SymPtr acc;
  for (const auto& f : factors) {
    if (f->kind == SymKind::kInt) {
      c = checked_mul(c, f->value, "extent product");
    } else {
      acc = acc ? sym_bin(SymKind::kMul, acc, f) : f;
    }
  }
  if (!acc || c == 0) return sym_int(c);
  return sym_bin(SymKind::kMul, acc, sym_int(c));
}

}  // namespace tenet_cost::xsym
