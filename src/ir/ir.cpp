// Small IR constructors and the Python-like printer used in messages/tests.
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/node_pool.hpp"
#include "ir/text_hash.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

// File names are interned once per distinct name for the life of the process
// (a node-based set: the strings never move). A parse interns its file name
// once; nodes then copy the pointer.
FileName::FileName(std::string_view name) {
  if (name.empty()) return;
  static std::mutex mu;
  static auto* names = new std::unordered_set<std::string>();  // never destroyed: nodes may outlive statics
  const std::lock_guard<std::mutex> lock(mu);
  p_ = &*names->emplace(name).first;
}

// Symbols: one global table (mutex) of heap strings that are never freed,
// and in front of it a per-thread open-addressing cache from text to the
// interned pointer, so the hot path (a name seen before on this thread) takes
// no lock. Both tables only ever grow.
namespace {

struct GlobalSymbols {
  std::mutex mu;
  std::unordered_map<std::string_view, const std::string*> map;  // views into the pooled strings
};

GlobalSymbols& global_symbols() {
  static auto* g = new GlobalSymbols();  // never destroyed: symbols may be used during static destruction
  return *g;
}

const std::string* intern_global(std::string_view text) {
  GlobalSymbols& g = global_symbols();
  const std::lock_guard<std::mutex> lock(g.mu);
  auto it = g.map.find(text);
  if (it != g.map.end()) return it->second;
  const std::string* p = new std::string(text);  // pooled for the life of the process
  g.map.emplace(std::string_view(*p), p);
  return p;
}

class SymbolCache {
 public:
  SymbolCache() : slots_(1024) {}
  const std::string* get(std::string_view text) {
    const std::uint64_t h = text_hash(text);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.p == nullptr) return add(text, h, i);
      if (s.h == h && same_text(*s.p, text)) return s.p;
    }
  }

 private:
  struct Slot {
    std::uint64_t h = 0;
    const std::string* p = nullptr;
  };
  // A text new to this thread, to be put in the empty slot i.
  [[gnu::noinline]] const std::string* add(std::string_view text, std::uint64_t h, std::size_t i) {
    const std::string* p = intern_global(text);
    slots_[i] = Slot{h, p};
    if (++count_ * 2 > slots_.size()) grow();
    return p;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.p == nullptr) continue;
      std::size_t i = s.h & mask;
      while (slots_[i].p != nullptr) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace

const std::string* Symbol::intern(std::string_view text) {
  if (text.empty()) return nullptr;
  thread_local SymbolCache cache;
  return cache.get(text);
}

const std::string& Symbol::empty_text() noexcept {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

const std::string& FileName::empty_name() {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

namespace {

std::shared_ptr<Expr> node(ExprKind k, std::string dtype, SourceLocation loc) {
  auto e = make_node<Expr>();
  e->kind = k;
  e->dtype = std::move(dtype);
  e->loc = std::move(loc);
  return e;
}

bool is_bool_op(BinOp op) {
  switch (op) {
    case BinOp::kEq: case BinOp::kNe: case BinOp::kLt: case BinOp::kLe: case BinOp::kGt: case BinOp::kGe:
    case BinOp::kAnd: case BinOp::kOr: return true;
    default: return false;
  }
}

// Python precedence: higher binds tighter.
int prec(BinOp op) {
  switch (op) {
    case BinOp::kOr: return 1;
    case BinOp::kAnd: return 2;
    case BinOp::kEq: case BinOp::kNe: case BinOp::kLt: case BinOp::kLe: case BinOp::kGt: case BinOp::kGe: return 4;
    case BinOp::kBitOr: return 5;
    case BinOp::kBitXor: return 6;
    case BinOp::kBitAnd: return 7;
    case BinOp::kShl: case BinOp::kShr: return 8;
    case BinOp::kAdd: case BinOp::kSub: return 9;
    case BinOp::kMul: case BinOp::kDiv: case BinOp::kFloorDiv: case BinOp::kFloorMod: return 10;
    case BinOp::kMin: case BinOp::kMax: return 14;  // printed as calls
  }
  return 14;
}

int prec_of(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kBinary: return prec(e.bin_op);
    case ExprKind::kUnary: return e.un_op == UnOp::kNot ? 3 : 11;
    case ExprKind::kInt: return e.int_value < 0 && e.dtype == "int32" ? 11 : 14;
    default: return 14;
  }
}

const char* op_text(BinOp op) {
  switch (op) {
    case BinOp::kAdd: return "+";
    case BinOp::kSub: return "-";
    case BinOp::kMul: return "*";
    case BinOp::kDiv: return "/";
    case BinOp::kFloorDiv: return "//";
    case BinOp::kFloorMod: return "%";
    case BinOp::kMin: return "min";
    case BinOp::kMax: return "max";
    case BinOp::kEq: return "==";
    case BinOp::kNe: return "!=";
    case BinOp::kLt: return "<";
    case BinOp::kLe: return "<=";
    case BinOp::kGt: return ">";
    case BinOp::kGe: return ">=";
    case BinOp::kAnd: return "and";
    case BinOp::kOr: return "or";
    case BinOp::kBitAnd: return "&";
    case BinOp::kBitOr: return "|";
    case BinOp::kBitXor: return "^";
    case BinOp::kShl: return "<<";
    case BinOp::kShr: return ">>";
  }
  return "?";
}

void quote(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          static const char* hex = "0123456789abcdef";
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void print_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "\"nan\"";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "\"inf\"" : "\"-inf\"";
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

constexpr int kMaxPrintDepth = 2000;

void print(std::string& out, const Expr& e, int depth);

void print_child(std::string& out, const ExprPtr& c, int depth) {
  if (!c) {
    out += "<null>";
    return;
  }
  print(out, *c, depth + 1);
}

void print_operand(std::string& out, const ExprPtr& c, int min_prec, int depth) {
  if (c && prec_of(*c) < min_prec) {
    out += '(';
    print_child(out, c, depth);
    out += ')';
  } else {
    print_child(out, c, depth);
  }
}

void print_args(std::string& out, const Vec<ExprPtr>& args, int depth) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    print_child(out, args[i], depth);
  }
}

void print(std::string& out, const Expr& e, int depth) {
  if (depth > kMaxPrintDepth) {
    out += "...";
    return;
  }
  switch (e.kind) {
    case ExprKind::kInt:
      if (e.dtype == "int32" || e.dtype.empty()) {
        out += std::to_string(e.int_value);
      } else {
        out += "T." + e.dtype + "(" + std::to_string(e.int_value) + ")";
      }
      return;
    case ExprKind::kFloat:
      out += "T." + (e.dtype.empty() ? std::string("float32") : e.dtype.str()) + "(";
      print_double(out, e.float_value);
      out += ")";
      return;
    case ExprKind::kBool: out += e.int_value ? "True" : "False"; return;
    case ExprKind::kString: quote(out, e.name); return;
    case ExprKind::kVar: out += e.name; return;
    case ExprKind::kLoad:
      out += e.name;
      out += '[';
      if (e.args.empty()) out += "()";
      print_args(out, e.args, depth);
      out += ']';
      return;
    case ExprKind::kBinary: {
      if (e.bin_op == BinOp::kMin || e.bin_op == BinOp::kMax) {
        out += e.bin_op == BinOp::kMin ? "T.min(" : "T.max(";
        print_args(out, e.args, depth);
        out += ')';
        return;
      }
      const int p = prec(e.bin_op);
      const ExprPtr lhs = e.args.size() > 0 ? e.args[0] : nullptr;
      const ExprPtr rhs = e.args.size() > 1 ? e.args[1] : nullptr;
      // comparisons chain in Python, so both sides need parentheses at equal precedence
      const bool cmp = p == 4;
      print_operand(out, lhs, cmp ? p + 1 : p, depth);
      out += ' ';
      out += op_text(e.bin_op);
      out += ' ';
      print_operand(out, rhs, p + 1, depth);
      return;
    }
    case ExprKind::kUnary: {
      const ExprPtr a = e.args.empty() ? nullptr : e.args[0];
      if (e.un_op == UnOp::kNot) {
        out += "not ";
        print_operand(out, a, 3, depth);
      } else {
        out += e.un_op == UnOp::kNeg ? "-" : "~";
        print_operand(out, a, 11, depth);
      }
      return;
    }
    case ExprKind::kCast:
      out += "T.Cast(";
      quote(out, e.dtype);
      out += ", ";
      print_args(out, e.args, depth);
      out += ')';
      return;
    case ExprKind::kCall:
      out += "T." + e.name + "(";
      if (e.name == "reinterpret") {
        quote(out, e.dtype);
        if (!e.args.empty()) out += ", ";
      }
      print_args(out, e.args, depth);
      out += ')';
      return;
    case ExprKind::kSelect:
      out += e.name == "if_then_else" ? "T.if_then_else(" : "T.Select(";
      print_args(out, e.args, depth);
      out += ')';
      return;
    case ExprKind::kRamp:
      out += "T.Ramp(";
      print_args(out, e.args, depth);
      out += ", " + std::to_string(e.int_value) + ")";
      return;
    case ExprKind::kBroadcast:
      out += "T.Broadcast(";
      print_args(out, e.args, depth);
      out += ", " + std::to_string(e.int_value) + ")";
      return;
    case ExprKind::kOther: out += e.name.empty() ? std::string("<unknown>") : e.name.str(); return;
  }
}

}  // namespace

ExprPtr make_int(std::int64_t v, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kInt, std::move(dtype), std::move(loc));
  e->int_value = v;
  return e;
}

ExprPtr make_float(double v, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kFloat, std::move(dtype), std::move(loc));
  e->float_value = v;
  return e;
}

ExprPtr make_var(std::string name, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kVar, std::move(dtype), std::move(loc));
  e->name = std::move(name);
  return e;
}

ExprPtr make_load(std::string buffer, std::vector<ExprPtr> indices, SourceLocation loc) {
  auto e = node(ExprKind::kLoad, "", std::move(loc));
  e->name = std::move(buffer);
  e->args = std::move(indices);
  return e;
}

ExprPtr make_binary(BinOp op, ExprPtr a, ExprPtr b, SourceLocation loc) {
  std::string dtype;
  if (is_bool_op(op)) dtype = "bool";
  else if (a && !a->dtype.empty()) dtype = a->dtype;
  else if (b) dtype = b->dtype;
  auto e = node(ExprKind::kBinary, std::move(dtype), std::move(loc));
  e->bin_op = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

ExprPtr make_cast(std::string dtype, ExprPtr operand, SourceLocation loc) {
  auto e = node(ExprKind::kCast, std::move(dtype), std::move(loc));
  e->args = {std::move(operand)};
  return e;
}

ExprPtr make_call(std::string callee, std::vector<ExprPtr> args, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kCall, std::move(dtype), std::move(loc));
  e->name = std::move(callee);
  e->args = std::move(args);
  return e;
}

std::string to_string(const Expr& e) {
  std::string out;
  print(out, e, 0);
  return out;
}

}  // namespace tenet_cost::ir
