// Non-GEMM operators of a module (not a public API; docs/extract.md "Operators"): each prim_func that is neither a
// GEMM / convolution nor a dequantize folded into one, with its element operations and the DRAM bytes of its
// param buffers, instantiated per distinct call-site shape.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "extract/relax_scan.hpp"
#include "tenet_cost/extract.hpp"

namespace tenet_cost::xops {

/// One call_tir of a prim_func: the Relax function's environment and the call.
struct CallSite {
  const xrelax::Env* env = nullptr;
  const ir::RExpr* call = nullptr;
};

struct OperatorInputs {
  /// prim_func indices that are not operators: GEMM / convolution functions and functions the GEMM analysis
  /// skipped; prim_func names that only dequantize a GEMM's weight (costed with the GEMM's scheme).
  std::set<std::size_t> not_operators;
  std::set<std::string> dequantizers;
  /// GEMM / convolution prim_funcs (index) -> the buffers their GEMM blocks accumulate into: the blocks that
  /// consume them (transitively) are the function's fused epilogue, an operator record with `epilogue` set.
  std::map<std::size_t, std::set<std::string>> epilogue_sources;
  /// The call_tir sites of a prim_func name (null when it is not called).
  std::function<const std::vector<CallSite>*(const std::string&)> sites;
  /// Direct call counts per Relax function -> counts including the calls made through other Relax functions.
  std::function<std::map<std::string, std::int64_t>(const std::map<std::string, std::int64_t>&)> propagate;
};

/// The operators of `module` (first definition of each name), in module order; functions whose operators
/// cannot be stated are records with shape_known = false and a note.
std::vector<OperatorWorkload> module_operators(const ir::Module& module, const OperatorInputs& in);

}  // namespace tenet_cost::xops
