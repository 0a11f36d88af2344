// The expression half of the printer (printer.hpp): TIR expressions as TVMScript text. An integer literal of the
// context's plain dtype (int32 in TIR, int64 in Relax shapes) prints bare, any other as `T.<dtype>(v)`.
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "ir/escape.hpp"
#include "ir/print_internal.hpp"

namespace tenet_cost::ir {

namespace {

// Python precedence: higher binds tighter.
int prec(BinOp op) {
  switch (op) {
    case BinOp::kOr: return 1;
    case BinOp::kAnd: return 2;
    case BinOp::kEq:
    case BinOp::kNe:
    case BinOp::kLt:
    case BinOp::kLe:
    case BinOp::kGt:
    case BinOp::kGe: return 4;
    case BinOp::kBitOr: return 5;
    case BinOp::kBitXor: return 6;
    case BinOp::kBitAnd: return 7;
    case BinOp::kShl:
    case BinOp::kShr: return 8;
    case BinOp::kAdd:
    case BinOp::kSub: return 9;
    case BinOp::kMul:
    case BinOp::kDiv:
    case BinOp::kFloorDiv:
    case BinOp::kFloorMod: return 10;
    case BinOp::kMin:
    case BinOp::kMax: return 14;  // printed as calls
  }
  return 14;
}

int prec_of(const Expr& e, std::string_view bare) {
  switch (e.kind) {
    case ExprKind::kBinary: return prec(e.bin_op);
    case ExprKind::kUnary: return e.un_op == UnOp::kNot ? 3 : 11;
    case ExprKind::kInt: return e.int_value < 0 && (e.dtype == bare || e.dtype.empty()) ? 11 : 14;
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

}  // namespace

void print_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: append_escaped(out, ch);
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

namespace {

constexpr int kMaxPrintDepth = 2000;

struct ExprWriter {
  std::string& out;
  std::string_view bare;

  void print_child(const ExprPtr& c, int depth) {
    if (!c) {
      out += "<null>";
      return;
    }
    print(*c, depth + 1);
  }

  void print_operand(const ExprPtr& c, int min_prec, int depth) {
    if (c && prec_of(*c, bare) < min_prec) {
      out += '(';
      print_child(c, depth);
      out += ')';
    } else {
      print_child(c, depth);
    }
  }

  void print_args(const Vec<ExprPtr>& args, int depth) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (i) out += ", ";
      print_child(args[i], depth);
    }
  }

  void print(const Expr& e, int depth) {
    if (depth > kMaxPrintDepth) {
      out += "...";
      return;
    }
    switch (e.kind) {
      case ExprKind::kInt:
        if (e.dtype == bare || e.dtype.empty()) {
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
      case ExprKind::kString: print_quoted(out, e.name); return;
      case ExprKind::kVar: out += e.name; return;
      case ExprKind::kLoad:
        out += e.name;
        out += '[';
        if (e.args.empty()) out += "()";
        print_args(e.args, depth);
        out += ']';
        return;
      case ExprKind::kBinary: {
        if (e.bin_op == BinOp::kMin || e.bin_op == BinOp::kMax) {
          out += e.bin_op == BinOp::kMin ? "T.min(" : "T.max(";
          print_args(e.args, depth);
          out += ')';
          return;
        }
        const int p = prec(e.bin_op);
        const ExprPtr lhs = e.args.size() > 0 ? e.args[0] : nullptr;
        const ExprPtr rhs = e.args.size() > 1 ? e.args[1] : nullptr;
        // comparisons chain in Python, so both sides need parentheses at equal precedence
        const bool cmp = p == 4;
        print_operand(lhs, cmp ? p + 1 : p, depth);
        out += ' ';
        out += op_text(e.bin_op);
        out += ' ';
        print_operand(rhs, p + 1, depth);
        return;
      }
      case ExprKind::kUnary: {
        const ExprPtr a = e.args.empty() ? nullptr : e.args[0];
        if (e.un_op == UnOp::kNot) {
          out += "not ";
          print_operand(a, 3, depth);
        } else {
          out += e.un_op == UnOp::kNeg ? "-" : "~";
          print_operand(a, 11, depth);
        }
        return;
      }
      case ExprKind::kCast:
        out += "T.Cast(";
        print_quoted(out, e.dtype);
        out += ", ";
        print_args(e.args, depth);
        out += ')';
        return;
      case ExprKind::kCall:
        out += "T." + e.name + "(";
        if (e.name == "reinterpret") {
          print_quoted(out, e.dtype);
          if (!e.args.empty()) out += ", ";
        }
        print_args(e.args, depth);
        out += ')';
        return;
      case ExprKind::kSelect:
        out += e.name == "if_then_else" ? "T.if_then_else(" : "T.Select(";
        print_args(e.args, depth);
        out += ')';
        return;
      case ExprKind::kRamp:
        out += "T.Ramp(";
        print_args(e.args, depth);
        out += ", " + std::to_string(e.int_value) + ")";
        return;
      case ExprKind::kBroadcast:
        out += "T.Broadcast(";
        print_args(e.args, depth);
        out += ", " + std::to_string(e.int_value) + ")";
        return;
      case ExprKind::kOther: out += e.name.empty() ? std::string("<unknown>") : e.name.str(); return;
    }
  }
};

}  // namespace

void print_expr(std::string& out, const Expr& e, std::string_view bare_int) { ExprWriter{out, bare_int}.print(e, 0); }

std::string to_string(const Expr& e) {
  std::string out;
  print_expr(out, e, "int32");
  return out;
}

}  // namespace tenet_cost::ir
