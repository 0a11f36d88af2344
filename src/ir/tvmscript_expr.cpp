// The TVMScript expression reader (tvmscript_lowerer.hpp): TIR expressions and calls, Relax dims, struct
// infos and Relax expressions.
#include "ir/tvmscript_lowerer.hpp"

namespace tenet_cost::ir::tvmscript {

ExprPtr Lowerer::load(const Node* n) {
  X e(ExprKind::kLoad, n);
  e.name = n->a->text;
  if (const std::string_view* d = buf_dtypes_.find(n->a->text)) e.dtype = *d;
  e.args.reserve(n->n);
  for (std::uint32_t k = 0; k < n->n; ++k) {
    if (n->kids[k]->kind == NK::kSlice) return other(n);
    e.args.push_back(expr(n->kids[k]));
  }
  return fin(e);
}

ExprPtr Lowerer::expr(const Node* n) {
  switch (n->kind) {
    case NK::kName: {
      if (!meta_vars_.empty()) {
        if (const ExprPtr* m = meta_vars_.find(n->text)) return *m;
      }
      std::string_view dt = var_dtype(n->text);
      if (dt.empty() && shape_ctx_) dt = "int64";
      X e(ExprKind::kVar, n, dt);
      e.name = n->text;
      return fin(e);
    }
    case NK::kInt: return int_lit(int_value(n, false), n);
    case NK::kFloat: {
      X e(ExprKind::kFloat, n, "float32");
      e.fv = n->fval;
      return fin(e);
    }
    case NK::kString: {
      X e(ExprKind::kString, n);
      e.name = n->text;
      return fin(e);
    }
    case NK::kConst:
      if (n->text == "True" || n->text == "False") {
        X e(ExprKind::kBool, n, "bool");
        e.iv = n->text == "True" ? 1 : 0;
        return fin(e);
      }
      return other(n);
    case NK::kSubscript:
      if (n->a->kind == NK::kName) return load(n);
      return other(n);
    case NK::kCall: return tir_call(n);
    case NK::kUnary: {
      if (n->kw == Kw::kNot) {
        X e(ExprKind::kUnary, n, "bool");
        e.uo = UnOp::kNot;
        e.args.push_back(expr(n->a));
        return fin(e);
      }
      if (n->op == Op::kPlus) return expr(n->a);
      if (n->op == Op::kMinus && (n->a->kind == NK::kInt || n->a->kind == NK::kFloat)) {
        if (n->a->kind == NK::kInt) return int_lit(int_value(n->a, true), n);
        X e(ExprKind::kFloat, n, "float32");
        e.fv = -n->a->fval;
        return fin(e);
      }
      ExprPtr a = expr(n->a);
      X e(ExprKind::kUnary, n, a->dtype);
      e.uo = n->op == Op::kTilde ? UnOp::kBitNot : UnOp::kNeg;
      e.args.push_back(std::move(a));
      return fin(e);
    }
    case NK::kBinOp: {
      if (n->op == Op::kDStar) {
        ExprPtr a = expr(n->a);
        ExprPtr b = expr(n->b);
        X e(ExprKind::kCall, n, a->dtype);
        e.name = "pow";
        e.args = {std::move(a), std::move(b)};
        return fin(e);
      }
      const std::optional<BinOp> op = arith_op(n->op);
      if (!op) return other(n);
      ExprPtr a = expr(n->a);
      ExprPtr b = expr(n->b);
      return binary(*op, std::move(a), std::move(b), n);
    }
    case NK::kCompare: {
      if (n->cmp != py::Cmp::kOp) return other(n);
      BinOp op;
      switch (n->op) {
        case Op::kEq: op = BinOp::kEq; break;
        case Op::kNe: op = BinOp::kNe; break;
        case Op::kLt: op = BinOp::kLt; break;
        case Op::kLe: op = BinOp::kLe; break;
        case Op::kGt: op = BinOp::kGt; break;
        case Op::kGe: op = BinOp::kGe; break;
        default: return other(n);
      }
      ExprPtr a = expr(n->a);
      ExprPtr b = expr(n->b);
      return binary(op, std::move(a), std::move(b), n);
    }
    case NK::kBoolOp: {
      const BinOp op = n->kw == Kw::kAnd ? BinOp::kAnd : BinOp::kOr;
      ExprPtr acc = expr(n->kids[0]);
      for (std::uint32_t k = 1; k < n->n; ++k) acc = binary(op, acc, expr(n->kids[k]), n);
      return acc;
    }
    default: return other(n);
  }
}

ExprPtr Lowerer::tir_call(const Node* n) {
  std::string_view m = member_of(n->a, Ns::kTir);
  // a namespaced intrinsic, `T.metal.simdgroup_multiply_accumulate(..)`: named "metal.simdgroup_..."
  const std::string path = m.empty() ? dotted(n->a) : std::string();
  if (path.size() > 2 && path.compare(0, 2, "T.") == 0) m = std::string_view(path).substr(2);
  if (m.empty()) return other(n);
  const auto pos = positional(n);
  std::string_view kw_dtype;
  str_value(kwarg(n, "dtype"), kw_dtype);

  if (is_dtype_name(m)) {
    if (pos.empty() || pos.size() > 1) return other(n);  // T.int64() declares a var; not an expression
    const Node* a = pos[0];
    const Num num = number(a);
    if (m == "bool") {
      if (a->kind == NK::kConst && (a->text == "True" || a->text == "False")) {
        X e(ExprKind::kBool, n, "bool");
        e.iv = a->text == "True";
        return fin(e);
      }
      if (num.ok && num.is_int) {
        X e(ExprKind::kBool, n, "bool");
        e.iv = num.i != 0;
        return fin(e);
      }
    } else if (is_int_dtype(m) && num.ok && num.is_int) {
      check_int_range(num.i, m, n);
      return int_lit(num.i, n, m);
    } else if (is_float_dtype(m) && num.ok) {
      X e(ExprKind::kFloat, n, m);
      e.fv = num.f;
      return fin(e);
    }
    // T.float32(x) of an expression: a cast
    X e(ExprKind::kCast, n, m);
    e.args.push_back(expr(a));
    return fin(e);
  }
  if (m == "Cast" || m == "cast" || m == "reinterpret") {
    // T.Cast("float16", e) / T.cast(e, "float32") / dtype= keyword
    std::string_view dt = kw_dtype;
    const Node* operand = nullptr;
    for (const Node* a : pos) {
      std::string_view sv;
      if (dt.empty() && str_value(a, sv) && is_dtype_name(sv)) dt = sv;
      else if (operand == nullptr) operand = a;
    }
    if (operand == nullptr || pos.size() > 2) return other(n);
    if (m == "reinterpret") {
      X e(ExprKind::kCall, n, dt);
      e.name = "reinterpret";
      e.args.push_back(expr(operand));
      return fin(e);
    }
    X e(ExprKind::kCast, n, dt);
    e.args.push_back(expr(operand));
    return fin(e);
  }
  if ((m == "if_then_else" || m == "Select") && pos.size() == 3) {
    X e(ExprKind::kSelect, n);
    e.name = m;
    e.args.reserve(3);
    for (const Node* a : pos) e.args.push_back(expr(a));
    e.dtype = !kw_dtype.empty() ? kw_dtype : std::string_view(e.args[1]->dtype);
    return fin(e);
  }
  if ((m == "max" || m == "min" || m == "floordiv" || m == "floormod") && pos.size() == 2 && only_positional(n)) {
    const BinOp op = m == "max"        ? BinOp::kMax
                     : m == "min"      ? BinOp::kMin
                     : m == "floordiv" ? BinOp::kFloorDiv
                                       : BinOp::kFloorMod;
    return binary(op, expr(pos[0]), expr(pos[1]), n);
  }
  // Any other T.f(args): an intrinsic call (shift_right, bitwise_and, exp, ...). T.Shuffle([vectors], [indices])
  // (a lane of a float4_e2m1fnx2 reinterpret, TVM's fp4 dequantize) lists the vectors' and indices' elements.
  X e(ExprKind::kCall, n, kw_dtype);
  e.name = m;
  e.args.reserve(pos.size());
  for (const Node* a : pos) {
    if (a->kind == NK::kStarred) return other(n);
    if (m == "Shuffle" && (a->kind == NK::kList || a->kind == NK::kTuple)) {
      for (std::uint32_t k = 0; k < a->n; ++k) e.args.push_back(expr(a->kids[k]));
      continue;
    }
    e.args.push_back(expr(a));
  }
  if (e.dtype.empty() && !e.args.empty()) e.dtype = e.args[0]->dtype;
  return fin(e);
}

// ==================================================================== Relax

ExprPtr Lowerer::dim(const Node* n, RelaxFunc* f) {
  std::string_view sv;
  if (str_value(n, sv)) {
    // "n" in a signature declares a symbolic var
    if (f != nullptr) add_sym_var(sv, "int64", f->sym_vars);
    X e(ExprKind::kVar, n, "int64");
    e.name = sv;
    return fin(e);
  }
  if (n->kind == NK::kInt) return int_lit(int_value(n, false), n, "int64");
  if (n->kind == NK::kName) {
    std::string_view dt = var_dtype(n->text);
    X e(ExprKind::kVar, n, dt.empty() ? std::string_view("int64") : dt);
    e.name = n->text;
    return fin(e);
  }
  // Relax shape expressions are int64 throughout
  const bool saved = shape_ctx_;
  shape_ctx_ = true;
  ExprPtr r = expr(n);
  shape_ctx_ = saved;
  return r;
}

ExprPtr Lowerer::tensor_dim(const Node* n, RelaxFunc* f) {
  ExprPtr d = dim(n, f);
  // A tensor's struct info has no unknown-extent marker (R.reshape's -1 lives in R.shape, not here): a negative
  // extent would flow into every GEMM the tensor feeds as a negative M or batch.
  if (d && d->kind == ExprKind::kInt && d->int_value < 0)
    throw InputError(loc(n), "expected a non-negative tensor dimension, found " + std::to_string(d->int_value));
  return d;
}

StructInfoPtr Lowerer::sinfo_uncached(const Node* n) {
  StructInfo si;
  const Node* callee = n->kind == NK::kCall || n->kind == NK::kSubscript ? n->a : n;
  const std::string_view m = member_of(callee, Ns::kRelax);
  Pos pos;
  if (n->kind == NK::kCall) {
    pos = positional(n);
  } else if (n->kind == NK::kSubscript) {
    pos.d = n->kids;
    pos.n = n->n;
  }
  if (m == "Tensor" || m == "DTensor") {  // DTensor: a sharded tensor, the shape is the global one
    si.kind = SInfoKind::kTensor;
    const Node* shape = n->kind == NK::kCall ? kwarg(n, "shape") : nullptr;
    std::size_t k = 0;
    if (shape == nullptr && k < pos.size() && pos[k]->kind != NK::kString) shape = pos[k++];
    if (k < pos.size()) {
      std::string_view dt;
      if (str_value(pos[k], dt)) si.dtype = dt;
    }
    std::string_view dt;
    if (n->kind == NK::kCall && str_value(kwarg(n, "dtype"), dt)) si.dtype = dt;
    if (shape != nullptr && (shape->kind == NK::kTuple || shape->kind == NK::kList)) {
      si.shape_known = true;
      si.dims.reserve(shape->n);
      for (std::uint32_t q = 0; q < shape->n; ++q) si.dims.push_back(tensor_dim(shape->kids[q], rfn_));
      si.ndim = static_cast<int>(si.dims.size());
    }
    const Node* nd = n->kind == NK::kCall ? kwarg(n, "ndim") : nullptr;
    if (nd != nullptr) {
      const Num num = number(nd);
      if (num.ok && num.is_int && num.i >= -1 && num.i < 1 << 20) si.ndim = static_cast<int>(num.i);
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Object" || m == "Any") {  // R.Any: the 2026 spelling of R.Object
    si.kind = SInfoKind::kObject;
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Shape") {
    si.kind = SInfoKind::kShape;
    const Node* shape = !pos.empty() ? pos[0] : (n->kind == NK::kCall ? kwarg(n, "values") : nullptr);
    if (shape != nullptr && (shape->kind == NK::kTuple || shape->kind == NK::kList)) {
      si.shape_known = true;
      for (std::uint32_t q = 0; q < shape->n; ++q) si.dims.push_back(dim(shape->kids[q], rfn_));
      si.ndim = static_cast<int>(si.dims.size());
    }
    const Node* nd = n->kind == NK::kCall ? kwarg(n, "ndim") : nullptr;
    if (nd != nullptr) {
      const Num num = number(nd);
      if (num.ok && num.is_int && num.i >= -1 && num.i < 1 << 20) si.ndim = static_cast<int>(num.i);
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Tuple") {
    si.kind = SInfoKind::kTuple;
    if (pos.size() == 1 && (pos[0]->kind == NK::kList || pos[0]->kind == NK::kTuple)) {
      si.fields.reserve(pos[0]->n);
      for (std::uint32_t q = 0; q < pos[0]->n; ++q) si.fields.push_back(sinfo(pos[0]->kids[q]));
    } else {
      si.fields.reserve(pos.size());
      for (const Node* a : pos) si.fields.push_back(sinfo(a));
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Prim") {
    si.kind = SInfoKind::kPrim;
    std::string_view dt;
    if ((!pos.empty() && str_value(pos[0], dt)) || (n->kind == NK::kCall && str_value(kwarg(n, "dtype"), dt)))
      si.dtype = dt;
    if (n->kind == NK::kCall) {
      const Node* v = kwarg(n, "value");
      if (v != nullptr) {
        si.dims.push_back(dim(v, rfn_));
        if (si.dtype.empty()) si.dtype = "int64";
      }
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (n->kind == NK::kTuple || n->kind == NK::kList) {
    si.kind = SInfoKind::kTuple;
    si.fields.reserve(n->n);
    for (std::uint32_t q = 0; q < n->n; ++q) si.fields.push_back(sinfo(n->kids[q]));
    return stable_.intern(std::move(si), fname_);
  }
  si.kind = SInfoKind::kUnknown;
  return stable_.intern(std::move(si), fname_);
}

RExprPtr Lowerer::rexpr_raw(const Node* n) {
  switch (n->kind) {
    case NK::kName: {
      // Only reached from rexpr() the first time a name is met in this
      // function (rvars_ is cleared with rtable_), and no other path makes a
      // kVar: the table could never return an earlier node for it.
      auto e = make_node<RExpr>();
      e->kind = RExprKind::kVar;
      e->loc = loc(n);
      e->name = n->text;
      return e;
    }
    case NK::kAttr:
      if (is_global_ref(n)) return global_ref(n);
      return rother(n);
    case NK::kString: {
      RExpr e = rmk(RExprKind::kString, n);
      e.name = n->text;
      return rtable_.intern(std::move(e), fname_);
    }
    case NK::kInt:
    case NK::kFloat:
    case NK::kUnary: {
      const Num num = number(n);
      if (!num.ok) {
        RExpr e = rmk(RExprKind::kPrimValue, n);
        e.prim = expr(n);
        return rtable_.intern(std::move(e), fname_);
      }
      RExpr e = rmk(RExprKind::kPrimValue, n);
      if (num.is_int) e.prim = int_lit(num.i, n, "int64");
      else {
        e.prim = float_lit(num.f, n, "float64");
      }
      return rtable_.intern(std::move(e), fname_);
    }
    case NK::kConst:
      if (n->text == "True" || n->text == "False") {
        RExpr e = rmk(RExprKind::kPrimValue, n);
        e.prim = expr(n);
        return rtable_.intern(std::move(e), fname_);
      }
      return rother(n);
    case NK::kTuple:
    case NK::kList: {
      RExpr e = rmk(RExprKind::kTuple, n);
      e.args.reserve(n->n);
      for (std::uint32_t k = 0; k < n->n; ++k) e.args.push_back(rexpr(n->kids[k]));
      return rtable_.intern(std::move(e), fname_);
    }
    case NK::kSubscript: {
      if (n->n == 1 && n->kids[0]->kind == NK::kInt) {
        const std::int64_t idx = int_value(n->kids[0], false);
        if (idx > std::numeric_limits<std::int32_t>::max())
          throw InputError(loc(n->kids[0]),
                           "expected a tuple or metadata index below 2^31, found " + std::to_string(idx));
        const Node* base = n->a;
        // metadata["relax.expr.Constant"][0]
        if (base->kind == NK::kSubscript && base->a->kind == NK::kName && base->a->text == "metadata" && base->n == 1 &&
            base->kids[0]->kind == NK::kString) {
          RExpr e = rmk(RExprKind::kConstant, n);
          e.name = base->kids[0]->text;
          e.index = idx;
          return rtable_.intern(std::move(e), fname_);
        }
        RExpr e = rmk(RExprKind::kTupleGetItem, n);
        e.args.push_back(rexpr(base));
        e.index = idx;
        return rtable_.intern(std::move(e), fname_);
      }
      return rother(n);
    }
    case NK::kCall: return rcall(n);
    default: return rother(n);
  }
}

// `R.const(v, dtype)`: a constant with its value as a literal. Precondition: `pos` (the positional args) is not
// empty.
RExprPtr Lowerer::rconst(const Node* n, const Pos& pos) {
  RExpr e = rmk(RExprKind::kConstant, n);
  const Num num = number(pos[0]);
  std::string_view dt;
  if (pos.size() >= 2) str_value(pos[1], dt);
  str_value(kwarg(n, "dtype"), dt);
  if (num.ok) {
    if (!dt.empty() && is_float_dtype(dt)) {
      e.prim = float_lit(num.f, pos[0], dt);
    } else if (num.is_int) {
      if (!dt.empty()) check_int_range(num.i, dt, pos[0]);
      e.prim = int_lit(num.i, pos[0], dt.empty() ? std::string_view("int32") : dt);
    } else {
      e.prim = float_lit(num.f, pos[0], dt.empty() ? std::string_view("float32") : dt);
    }
  }
  if (!dt.empty()) {
    RExpr d = rmk(RExprKind::kString, pos[0]);
    d.name = dt;
    e.kwargs.emplace_back("dtype", rtable_.intern(std::move(d), fname_));
  }
  return rtable_.intern(std::move(e), fname_);
}

RExprPtr Lowerer::rcall(const Node* n) {
  const CalleeInfo ci = callee(n->a);
  const auto pos = positional(n);
  if (ci.kind == Callee::kPrimValue && pos.size() == 1) {
    RExpr e = rmk(RExprKind::kPrimValue, n);
    e.prim = expr(pos[0]);
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kShape && pos.size() == 1 && (pos[0]->kind == NK::kList || pos[0]->kind == NK::kTuple)) {
    RExpr e = rmk(RExprKind::kShape, n);
    for (std::uint32_t k = 0; k < pos[0]->n; ++k) e.dims.push_back(dim(pos[0]->kids[k], nullptr));
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kStr && pos.size() == 1 && pos[0]->kind == NK::kString) {
    RExpr e = rmk(RExprKind::kString, n);
    e.name = pos[0]->text;
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kTuple) {
    RExpr e = rmk(RExprKind::kTuple, n);
    e.args.reserve(pos.size());
    for (const Node* a : pos) e.args.push_back(rexpr(a));
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kConst && !pos.empty()) return rconst(n, pos);
  RExpr e = rmk(RExprKind::kCall, n);
  e.op = ci.op;
  const bool call_tir = ci.kind == Callee::kCallTir;
  const bool dps = ci.kind == Callee::kDps;
  e.args.reserve(pos.size());
  for (std::size_t k = 0; k < pos.size(); ++k) {
    const Node* a = pos[k];
    if (k == 0 && call_tir && a->kind == NK::kName) {
      RExpr g = rmk(RExprKind::kGlobalFunc, a);
      g.name = a->text;
      e.args.push_back(rtable_.intern(std::move(g), fname_));
    } else if (k == 2 && (call_tir || dps)) {
      sinfo_list(a, e.sinfo_args);  // 2023-early positional out sinfo
    } else {
      e.args.push_back(rexpr(a));
    }
  }
  for (std::uint32_t k = 0; k < n->n; ++k) {
    const Node* a = n->kids[k];
    if (a->kind != NK::kKeyword) continue;
    if (same_text(a->text, "out_sinfo") || same_text(a->text, "out_ty") || same_text(a->text, "sinfo_args") ||
        same_text(a->text, "ty_args")) {
      sinfo_list(a->a, e.sinfo_args);
      continue;
    }
    e.kwargs.emplace_back(std::string(a->text), rexpr(a->a));
  }
  return rtable_.intern(std::move(e), fname_);
}

}  // namespace tenet_cost::ir::tvmscript
