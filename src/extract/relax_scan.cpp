// Relax-level extraction: call counts of prim_funcs per entry function,
// R.matmul GEMMs, FasterTransformer packed GEMMs, KV-cache attention
// builtins, and dequantize prim_funcs feeding a GEMM's weight across calls.
#include "extract/relax_scan.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "tenet_cost/checked.hpp"

namespace tenet_cost::xrelax {

using ir::RExpr;
using ir::RExprKind;
using ir::RExprPtr;
using ir::StructInfoPtr;
using sym::SymPtr;

std::string unqualified_function(const std::string& n) {
  const auto dot = n.rfind('.');
  if (dot != std::string::npos && (n.rfind("cls.", 0) == 0 || n.find('.') == dot)) return n.substr(dot + 1);
  return n;
}

std::string callee_name(const RExpr& e) {
  if (e.kind == RExprKind::kGlobalFunc || e.kind == RExprKind::kVar) return unqualified_function(e.name);
  return e.name;
}

bool is_call_tir_op(std::string_view op) {
  return op.starts_with("R.call_tir") || op == "R.dist.call_tir" || op == "R.dist.call_tir_local_view";
}

bool is_direct_call_op(std::string_view op) { return !op.empty() && !op.starts_with("R."); }

std::string tir_callee_name(const RExpr& call) {
  if (is_direct_call_op(call.op)) return unqualified_function(call.op);
  return call.args.empty() || !call.args[0] ? std::string() : callee_name(*call.args[0]);
}

std::string relax_call_target(const RExpr& call) {
  if (is_direct_call_op(call.op)) return unqualified_function(call.op);
  // R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.f_capture, (args..), index), ..)
  if (call.args.size() < 2 || !call.args[0] || call.args[0]->kind != RExprKind::kString ||
      call.args[0]->name != "vm.builtin.cuda_graph.run_or_capture")
    return {};
  const RExpr* t = call.args[1].get();
  if (t && t->kind == RExprKind::kTuple && !t->args.empty() && t->args[0]) t = t->args[0].get();
  return t && t->kind == RExprKind::kGlobalFunc ? unqualified_function(t->name) : std::string();
}

std::vector<RExprPtr> call_args(const RExpr& call) {
  if (is_direct_call_op(call.op)) return {call.args.begin(), call.args.end()};
  std::vector<RExprPtr> out;
  if (call.args.size() < 2) return out;
  if (call.args.size() == 2 && call.args[1] && call.args[1]->kind == RExprKind::kTuple) return call.args[1]->args;
  for (std::size_t i = 1; i < call.args.size(); ++i) out.push_back(call.args[i]);
  return out;
}

namespace {

// The tensor R.builtin.alloc_tensor(shape, dtype, dev) / R.memory.alloc_tensor(storage, offset, shape, dtype)
// (also R.vm.alloc_tensor) allocates: the output buffer of a direct prim_func call after CallTIRRewrite.
StructInfoPtr alloc_tensor_sinfo(const RExpr& call) {
  const std::size_t at = call.op == "R.builtin.alloc_tensor"                                    ? 0
                         : call.op == "R.memory.alloc_tensor" || call.op == "R.vm.alloc_tensor" ? 2
                                                                                                : call.args.size();
  if (at + 1 >= call.args.size() || !call.args[at] || call.args[at]->kind != RExprKind::kShape) return nullptr;
  const RExpr* dt = call.args[at + 1].get();
  if (dt && dt->kind == RExprKind::kCall && dt->op == "R.dtype" && !dt->args.empty()) dt = dt->args[0].get();
  auto t = std::make_shared<ir::StructInfo>();
  t->kind = ir::SInfoKind::kTensor;
  t->shape_known = true;
  t->dims = call.args[at]->dims;
  t->ndim = static_cast<int>(t->dims.size());
  if (dt && dt->kind == RExprKind::kString) t->dtype = dt->name;
  return t;
}

}  // namespace

Env::Env(const ir::RelaxFunc& fn) : f(fn), bind(fn.bindings.size()) {
  for (const auto& p : fn.params) {
    const ir::Symbol name(p.name);
    params[name.id()] = 1;
    sinfo[name.id()] = p.sinfo;
  }
  for (const auto& b : fn.bindings) bind[b.var.id()] = &b;
}

const ir::Binding* Env::binding(const ir::Symbol& var) const {
  const auto* b = bind.find(var.id());
  return b == nullptr ? nullptr : *b;
}

StructInfoPtr Env::sinfo_of(const RExprPtr& e, int depth) const {
  if (!e || depth > 64) return nullptr;
  switch (e->kind) {
    case RExprKind::kVar: {
      if (const auto* s = sinfo.find(e->name.id()); s != nullptr && *s) return *s;
      const ir::Binding* b = binding(e->name);
      if (!b) return nullptr;
      if (b->sinfo) return b->sinfo;
      return sinfo_of(b->value, depth + 1);
    }
    case RExprKind::kTupleGetItem: {
      if (e->args.empty()) return nullptr;
      StructInfoPtr t = sinfo_of(e->args[0], depth + 1);
      if (!t || t->kind != ir::SInfoKind::kTuple || e->index < 0 ||
          static_cast<std::size_t>(e->index) >= t->fields.size())
        return nullptr;
      return t->fields[static_cast<std::size_t>(e->index)];
    }
    case RExprKind::kCall: {
      if (!e->sinfo_args.empty()) {
        if (e->sinfo_args.size() == 1) return e->sinfo_args[0];
        auto t = std::make_shared<ir::StructInfo>();
        t->kind = ir::SInfoKind::kTuple;
        t->fields = e->sinfo_args;
        return t;
      }
      if ((e->op == "R.builtin.stop_lift_params" || e->op == "R.astype") && !e->args.empty())
        return sinfo_of(e->args[0], depth + 1);
      if (e->op == "R.permute_dims" && !e->args.empty()) {
        StructInfoPtr x = sinfo_of(e->args[0], depth + 1);
        if (!x || x->kind != ir::SInfoKind::kTensor || !x->shape_known) return nullptr;
        auto perm = permutation(*e, x->dims.size());
        if (!perm) return nullptr;
        auto r = std::make_shared<ir::StructInfo>(*x);
        for (std::size_t i = 0; i < perm->size(); ++i) r->dims[i] = x->dims[(*perm)[i]];
        return r;
      }
      return alloc_tensor_sinfo(*e);
    }
    default: return nullptr;
  }
}

std::optional<std::vector<std::size_t>> permutation(const RExpr& call, std::size_t ndim) {
  std::vector<std::size_t> p(ndim);
  for (std::size_t i = 0; i < ndim; ++i) p[i] = ndim - 1 - i;  // axes=None reverses
  const RExpr* axes = nullptr;
  for (const auto& [k, v] : call.kwargs)
    if (k == "axes" && v) axes = v.get();
  if (!axes && call.args.size() > 1) axes = call.args[1].get();
  if (!axes || axes->kind == RExprKind::kOther || (axes->kind == RExprKind::kVar && axes->name == "None") ||
      axes->kind == RExprKind::kConstant)
    return p;
  std::vector<std::int64_t> vals;
  if (axes->kind == RExprKind::kShape) {
    for (const auto& d : axes->dims) {
      auto v = xtir::int_const(d.get());
      if (!v) return std::nullopt;
      vals.push_back(*v);
    }
  } else if (axes->kind == RExprKind::kTuple) {
    for (const auto& a : axes->args) {
      if (!a || a->kind != RExprKind::kPrimValue || !a->prim) return std::nullopt;
      auto v = xtir::int_const(a->prim.get());
      if (!v) return std::nullopt;
      vals.push_back(*v);
    }
  } else {
    return p;
  }
  if (vals.size() != ndim) return std::nullopt;
  for (std::size_t i = 0; i < ndim; ++i) {
    std::int64_t v = vals[i] < 0 ? vals[i] + static_cast<std::int64_t>(ndim) : vals[i];
    if (v < 0 || v >= static_cast<std::int64_t>(ndim)) return std::nullopt;
    p[i] = static_cast<std::size_t>(v);
  }
  return p;
}

Root Env::root(const RExprPtr& e, int depth) const {
  Root r;
  if (!e || depth > 64) return r;
  switch (e->kind) {
    case RExprKind::kConstant: r.kind = Root::kConstant; return r;
    case RExprKind::kVar: {
      if (params.find(e->name.id()) != nullptr) {
        r.kind = Root::kParam;
        r.name = e->name;
        return r;
      }
      const ir::Binding* b = binding(e->name);
      if (!b) return r;
      return root(b->value, depth + 1);
    }
    case RExprKind::kTupleGetItem: {
      if (e->args.empty()) return r;
      Root inner = root(e->args[0], depth + 1);
      if (inner.kind == Root::kParam) return inner;  // a component of a parameter tuple
      if (inner.kind == Root::kCall && inner.tuple_index < 0) {
        inner.tuple_index = static_cast<int>(e->index);
        return inner;
      }
      return r;
    }
    case RExprKind::kCall: {
      if ((e->op == "R.builtin.stop_lift_params") && !e->args.empty()) return root(e->args[0], depth + 1);
      if (e->op == "R.permute_dims" && !e->args.empty()) return root(e->args[0], depth + 1);
      r.kind = Root::kCall;
      r.call = e.get();
      return r;
    }
    default: return r;
  }
}

std::optional<SymPtr> dim_sym(const ir::ExprPtr& e) {
  if (!e) return std::nullopt;
  return xsym::from_ir(*e);
}

OptDataType sinfo_dtype(const StructInfoPtr& s) { return s ? parse_dtype(s->dtype.str()) : std::nullopt; }

bool tensor_known(const StructInfoPtr& s) {
  return s && s->kind == ir::SInfoKind::kTensor && s->shape_known && !s->dims.empty();
}

std::optional<std::int64_t> const_dim(const StructInfoPtr& s, int from_end) {
  if (!tensor_known(s) || static_cast<int>(s->dims.size()) < from_end) return std::nullopt;
  return xtir::int_const(s->dims[s->dims.size() - static_cast<std::size_t>(from_end)].get());
}

bool is_attention_builtin(const std::string& name) {
  const auto p = name.rfind("kv_cache_");
  if (p == std::string::npos) return false;
  return name.find("attention", p) != std::string::npos;
}

}  // namespace tenet_cost::xrelax
