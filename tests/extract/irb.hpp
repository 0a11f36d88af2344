// Test-only IR builder: a tiny parser for TIR expressions in TVMScript
// syntax ("A[v_i, v_k // 8]", "T.Cast(\"float16\", x) - T.float16(7)") and
// helpers for blocks, functions and Relax bindings, so the extractor can be
// tested without the TVMScript front-end.
#pragma once

#include <cctype>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ir_text.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/ir_build.hpp"

namespace irb {

using namespace tenet_cost::ir;

inline std::shared_ptr<Expr> mk(ExprKind k) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  return e;
}

class ExprParser {
 public:
  explicit ExprParser(std::string t) : t_(std::move(t)) {}
  ExprPtr parse() {
    ExprPtr e = expr();
    ws();
    if (i_ != t_.size()) throw std::runtime_error("irb: trailing text in: " + t_);
    return e;
  }

 private:
  std::string t_;
  std::size_t i_ = 0;
  void ws() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  bool eat(const std::string& s) {
    ws();
    if (t_.compare(i_, s.size(), s) == 0) {
      i_ += s.size();
      return true;
    }
    return false;
  }
  static ExprPtr bin(BinOp op, ExprPtr a, ExprPtr b) {
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::kBinary;
    e->bin_op = op;
    e->args = {std::move(a), std::move(b)};
    return e;
  }
  ExprPtr expr() {
    ExprPtr a = term();
    for (;;) {
      if (eat("+")) a = bin(BinOp::kAdd, a, term());
      else if (eat("-")) a = bin(BinOp::kSub, a, term());
      else return a;
    }
  }
  ExprPtr term() {
    ExprPtr a = unary();
    for (;;) {
      if (eat("//")) a = bin(BinOp::kFloorDiv, a, unary());
      else if (eat("*")) a = bin(BinOp::kMul, a, unary());
      else if (eat("%")) a = bin(BinOp::kFloorMod, a, unary());
      else return a;
    }
  }
  ExprPtr unary() {
    if (eat("-")) {
      auto e = mk(ExprKind::kUnary);
      e->un_op = UnOp::kNeg;
      e->args = {unary()};
      return e;
    }
    return postfix();
  }
  std::vector<ExprPtr> list(const std::string& close) {
    std::vector<ExprPtr> v;
    if (eat(close)) return v;
    for (;;) {
      v.push_back(expr());
      if (eat(close)) return v;
      if (!eat(",")) throw std::runtime_error("irb: expected ',' in: " + t_);
    }
  }
  ExprPtr postfix() {
    ws();
    if (eat("(")) {
      ExprPtr e = expr();
      if (!eat(")")) throw std::runtime_error("irb: expected ')' in: " + t_);
      return e;
    }
    if (i_ < t_.size() && t_[i_] == '"') {
      const std::size_t b = ++i_;
      while (i_ < t_.size() && t_[i_] != '"') ++i_;
      auto e = mk(ExprKind::kString);
      e->name = t_.substr(b, i_ - b);
      ++i_;
      return e;
    }
    if (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) {
      const std::size_t b = i_;
      while (i_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[i_])) || t_[i_] == '.' || t_[i_] == 'e')) ++i_;
      const std::string num = t_.substr(b, i_ - b);
      if (num.find('.') != std::string::npos) {
        auto e = mk(ExprKind::kFloat);
        e->float_value = std::stod(num);
        e->dtype = "float32";
        return e;
      }
      auto e = mk(ExprKind::kInt);
      e->int_value = std::stoll(num);
      e->dtype = "int32";
      return e;
    }
    const std::size_t b = i_;
    while (i_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '_' || t_[i_] == '.')) ++i_;
    std::string name = t_.substr(b, i_ - b);
    if (name.empty()) throw std::runtime_error("irb: unexpected text in: " + t_);
    if (eat("[")) {
      auto e = mk(ExprKind::kLoad);
      e->name = name;
      e->args = list("]");
      return e;
    }
    if (eat("(")) {
      auto args = list(")");
      if (name.rfind("T.", 0) == 0) name = name.substr(2);
      static const std::vector<std::string> int_types = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"};
      for (const auto& ty : int_types)
        if (name == ty) {
          auto e = mk(ExprKind::kInt);
          e->int_value = args.at(0)->int_value;
          e->dtype = ty;
          return e;
        }
      if (name.rfind("float", 0) == 0 || name.rfind("bfloat", 0) == 0) {
        auto e = mk(ExprKind::kFloat);
        const auto& a = args.at(0);
        e->float_value = a->kind == ExprKind::kInt ? static_cast<double>(a->int_value) : a->float_value;
        e->dtype = name;
        return e;
      }
      if (name == "Cast") {
        auto e = mk(ExprKind::kCast);
        e->dtype = args.at(0)->name;
        e->args = {args.at(1)};
        return e;
      }
      auto e = mk(ExprKind::kCall);
      e->name = name;
      if (name == "reinterpret") {
        e->dtype = args.at(0)->name;
        args.erase(args.begin());
      }
      e->args = args;
      return e;
    }
    auto e = mk(ExprKind::kVar);
    e->name = name;
    return e;
  }
};

inline ExprPtr E(const std::string& text) { return ExprParser(text).parse(); }

inline StmtPtr store(const std::string& lhs, const std::string& rhs) {
  ExprPtr l = E(lhs);
  return make_store(l->name, l->args, E(rhs));
}

inline StmtPtr seq(std::vector<StmtPtr> c) { return make_seq(std::move(c)); }

/// Block with iter vars "name:extent" and kinds string ("SSSR").
inline StmtPtr block(const std::string& name, const std::string& kinds, const std::vector<std::string>& vars,
                     StmtPtr body, StmtPtr init = nullptr) {
  Block b;
  b.name = name;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const auto c = vars[i].find(':');
    b.iter_vars.push_back(make_iter_var(
        vars[i].substr(0, c), kinds.at(i) == 'R' ? IterKind::kReduce : IterKind::kSpatial, E(vars[i].substr(c + 1))));
  }
  b.body = std::move(body);
  b.init = std::move(init);
  return make_block(std::move(b));
}

/// A buffer "name:dtype:(d0, d1)".
inline Buffer buffer(const std::string& name, const std::string& dtype, const std::vector<std::string>& shape) {
  Buffer b;
  b.name = name;
  b.dtype = dtype;
  for (const auto& d : shape) b.shape.push_back(E(d));
  return b;
}

inline PrimFunc func(const std::string& name, const std::vector<Buffer>& params, const std::vector<Buffer>& allocs,
                     std::vector<StmtPtr> body) {
  PrimFunc f;
  f.name = name;
  f.loc.file = "test.py";
  for (const auto& p : params) {
    f.params.push_back(Param{p.name, ParamKind::kBuffer, p.dtype, p.name});
    f.buffers[p.name] = p;
  }
  for (const auto& a : allocs) f.buffers[a.name] = a;
  f.body = seq(std::move(body));
  return f;
}

// ------------------------------------------------------------------ Relax

inline StructInfoPtr tensor(const std::vector<std::string>& dims, const std::string& dtype) {
  auto s = std::make_shared<StructInfo>();
  s->kind = SInfoKind::kTensor;
  s->shape_known = true;
  for (const auto& d : dims) s->dims.push_back(E(d));
  s->ndim = static_cast<int>(dims.size());
  s->dtype = dtype;
  return s;
}
inline StructInfoPtr object() {
  auto s = std::make_shared<StructInfo>();
  s->kind = SInfoKind::kObject;
  return s;
}

inline RExprPtr rvar(const std::string& n) {
  auto e = std::make_shared<RExpr>();
  e->kind = RExprKind::kVar;
  e->name = n;
  return e;
}
inline RExprPtr rgf(const std::string& n) {
  auto e = std::make_shared<RExpr>();
  e->kind = RExprKind::kGlobalFunc;
  e->name = n;
  return e;
}
inline RExprPtr rstr(const std::string& n) {
  auto e = std::make_shared<RExpr>();
  e->kind = RExprKind::kString;
  e->name = n;
  return e;
}
inline RExprPtr rprim(const std::string& v) {
  auto e = std::make_shared<RExpr>();
  e->kind = RExprKind::kPrimValue;
  e->prim = E(v);
  return e;
}
inline RExprPtr rtuple(std::vector<RExprPtr> a) {
  auto e = std::make_shared<RExpr>();
  e->kind = RExprKind::kTuple;
  e->args = std::move(a);
  return e;
}
inline RExprPtr rcall(const std::string& op, std::vector<RExprPtr> args, std::vector<StructInfoPtr> sinfo = {},
                      std::vector<std::pair<std::string, RExprPtr>> kwargs = {}) {
  auto e = std::make_shared<RExpr>();
  e->kind = RExprKind::kCall;
  e->op = op;
  e->args = std::move(args);
  e->sinfo_args = std::move(sinfo);
  e->kwargs = std::move(kwargs);
  return e;
}
inline RExprPtr call_tir(const std::string& f, std::vector<RExprPtr> args, StructInfoPtr out) {
  return rcall("R.call_tir", {rgf("cls." + f), rtuple(std::move(args))}, {std::move(out)});
}

struct RFunc {
  RelaxFunc f;
  explicit RFunc(const std::string& name) { f.name = name; }
  RFunc& param(const std::string& n, StructInfoPtr s) {
    f.params.push_back(RelaxParam{n, std::move(s)});
    return *this;
  }
  RFunc& let(const std::string& v, RExprPtr value, StructInfoPtr s = nullptr) {
    Binding b;
    b.var = v;
    b.value = std::move(value);
    b.sinfo = std::move(s);
    b.loc.file = "test.py";
    b.loc.line = static_cast<std::uint32_t>(f.bindings.size() + 1);
    f.bindings.push_back(std::move(b));
    return *this;
  }
};

}  // namespace irb
