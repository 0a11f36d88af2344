#include "extract/sym.hpp"

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

namespace tenet_cost {

std::string Dim::str() const {
  if (value) return std::to_string(*value);
  return expr ? sym::to_text(*expr) : "?";
}

}  // namespace tenet_cost

namespace tenet_cost::xsym {

std::optional<sym::SymPtr> from_ir(const ir::Expr& e) {
  switch (e.kind) {
    case ir::ExprKind::kInt: return sym::sym_int(e.int_value);
    case ir::ExprKind::kVar: return sym::sym_var(e.name);
    case ir::ExprKind::kCast:
      if (e.args.size() == 1 && e.args[0]) return from_ir(*e.args[0]);
      return std::nullopt;
    case ir::ExprKind::kBinary: {
      if (e.args.size() != 2 || !e.args[0] || !e.args[1]) return std::nullopt;
      sym::SymKind op;
      switch (e.bin_op) {
        case ir::BinOp::kAdd: op = sym::SymKind::kAdd; break;
        case ir::BinOp::kSub: op = sym::SymKind::kSub; break;
        case ir::BinOp::kMul: op = sym::SymKind::kMul; break;
        case ir::BinOp::kFloorDiv: op = sym::SymKind::kFloorDiv; break;
        case ir::BinOp::kFloorMod: op = sym::SymKind::kFloorMod; break;
        default: return std::nullopt;
      }
      auto a = from_ir(*e.args[0]);
      auto b = from_ir(*e.args[1]);
      if (!a || !b) return std::nullopt;
      try {
        return sym::sym_bin(op, *a, *b);
      } catch (const InputError&) {
        return std::nullopt;  // x // 0 in an extent: not a shape we can state
      }
    }
    default: return std::nullopt;
  }
}

sym::SymPtr product(const std::vector<sym::SymPtr>& factors) {
  std::int64_t c = 1;
  sym::SymPtr acc;
  for (const auto& f : factors) {
    if (f->kind == sym::SymKind::kInt) {
      c = checked_mul(c, f->value, "extent product");
    } else {
      acc = acc ? sym::sym_bin(sym::SymKind::kMul, acc, f) : f;
    }
  }
  if (!acc || c == 0) return sym::sym_int(c);
  return sym::sym_bin(sym::SymKind::kMul, acc, sym::sym_int(c));
}

}  // namespace tenet_cost::xsym
