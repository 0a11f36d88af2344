// Relax helpers of the extractor (internal).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "extract/id_map.hpp"
#include "extract/internal.hpp"

namespace tenet_cost::xrelax {

/// `cls.f`, `Module.f` -> "f" (a bare name is returned as is).
std::string unqualified_function(const std::string& name);
/// `cls.f` / `f` -> "f"; packed names are returned unchanged.
std::string callee_name(const ir::RExpr& e);
/// R.call_tir, R.call_tir_inplace, R.call_tir_with_grad, R.dist.call_tir, R.dist.call_tir_local_view.
bool is_call_tir_op(std::string_view op);
/// A direct call of a module function, `cls.f(a, b, out)` (ops that are not `R.*`; prim_funcs are
/// called this way after LowerCallTIR / CallTIRRewrite, the output passed as the last arguments).
bool is_direct_call_op(std::string_view op);
/// The prim_func a call_tir-like or direct call runs: "f".
std::string tir_callee_name(const ir::RExpr& call);
/// The Relax function a call runs: `cls.f(..)` -> "f"; the captured function of
/// `vm.builtin.cuda_graph.run_or_capture` (once per run of the caller); "" otherwise.
std::string relax_call_target(const ir::RExpr& call);
/// The arguments of a call: after the callee of call_tir / call_dps_packed / call_packed
/// (the tuple's elements when the args are given as one tuple); all of them for a direct call.
std::vector<ir::RExprPtr> call_args(const ir::RExpr& call);
/// Axis permutation of an R.permute_dims call (axes=None reverses).
std::optional<std::vector<std::size_t>> permutation(const ir::RExpr& call, std::size_t ndim);
/// vm.builtin.*kv_cache_*attention* (compute, not append/view/create).
bool is_attention_builtin(const std::string& name);

/// A TIR extent as a symbolic dim (nullopt when it is no integer expression over + - * // %).
std::optional<sym::SymPtr> dim_sym(const ir::ExprPtr& e);
/// A struct info's dtype, parsed (nullopt when unknown).
OptDataType sinfo_dtype(const ir::StructInfoPtr& s);
/// A tensor struct info with a known shape of rank >= 1.
bool tensor_known(const ir::StructInfoPtr& s);
/// The dim `from_end` places from the end (1 = last) when it is an integer constant.
std::optional<std::int64_t> const_dim(const ir::StructInfoPtr& s, int from_end);

/// Where a Relax value comes from.
struct Root {
  enum Kind { kUnknown, kParam, kCall, kConstant } kind = kUnknown;
  std::string name;                 // param name
  const ir::RExpr* call = nullptr;  // the producing call
  int tuple_index = -1;             // output index of a multi-output call
};

struct Env {
  const ir::RelaxFunc& f;
  // Keyed by the names' Symbol ids (var names are interned by the front-ends).
  xtir::IdMap<const ir::Binding*> bind;       // var -> its (last) binding
  xtir::IdMap<ir::StructInfoPtr> sinfo;       // param -> its struct info
  xtir::IdMap<char> params;                   // param names (1)
  explicit Env(const ir::RelaxFunc& fn);
  [[nodiscard]] const ir::Binding* binding(const ir::Symbol& var) const;
  [[nodiscard]] ir::StructInfoPtr sinfo_of(const ir::RExprPtr& e, int depth = 0) const;
  /// Follows aliases, tuple items, stop_lift_params and permute_dims.
  [[nodiscard]] Root root(const ir::RExprPtr& e, int depth = 0) const;
};

}  // namespace tenet_cost::xrelax
