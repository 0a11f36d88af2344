// The Relax half of extract_workloads (internal; docs/extract.md "Call counts"): one scan of every Relax
// function that counts the call_tir calls per callee and per Relax function, builds the Relax-level GEMMs
// (R.matmul, extern GEMM builtins) and the attention sites, and folds calls through other Relax functions
// into the callers' counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "extract/relax_scan.hpp"
#include "tenet_cost/extract.hpp"

namespace tenet_cost::xrelax {

/// The module's prim_funcs by name (the first definition of a name wins), their indexes built on first use,
/// and the prim_funcs found to dequantize a GEMM's weight.
struct PrimTable {
  const ir::Module& mod;
  std::unordered_map<std::string_view, std::size_t> first;  // name -> first prim_func index
  std::map<std::size_t, std::unique_ptr<xtir::FuncIndex>> cache;
  std::set<std::string> dequantizers;  // prim_funcs whose output is a GEMM's dequantized weight
  explicit PrimTable(const ir::Module& m);
  /// The index of prim_func `name` (null when the module has none of that name).
  const xtir::FuncIndex* index(const std::string& name);
};

/// Quantization of a weight produced by `call_tir(D, args)` in another prim_func, read at `index` (the
/// GEMM's load of the weight, over `kvars` / `nvars`). Precondition: `r` is the root of the GEMM's weight
/// argument. nullopt when `r` is no such call or D does not dequantize; else `producer` = D, and `note` the
/// decoder's note. A D with a store to inline is recorded in `prims.dequantizers`.
std::optional<QuantInfo> external_dequant(PrimTable& prims, const Root& r, std::span<const ir::ExprPtr> index,
                                          const std::set<std::string>& kvars, const std::set<std::string>& nvars,
                                          std::optional<std::int64_t> k_extent, std::string& producer,
                                          std::string& note);

/// One call_tir of a prim_func: the calling function's environment and the call.
struct Site {
  const Env* env;
  const ir::RExpr* call;
};

/// A call_tir callee: its call counts per Relax function and its call sites.
struct Callee {
  std::map<std::string, std::int64_t> calls;  // Relax function -> n
  std::vector<Site> sites;
};

/// times[F][G] = how many times Relax function G runs per run of F (F itself once).
using CallTimes = std::map<std::string, std::map<std::string, std::int64_t>>;

/// Direct counts per Relax function -> counts including the calls made through callees.
std::map<std::string, std::int64_t> propagate_calls(const std::map<std::string, std::int64_t>& direct,
                                                    const CallTimes& times);

/// What the Relax functions call. `callees`' sites point into `envs`: keep the whole value alive while they
/// are used.
struct RelaxCalls {
  std::vector<std::unique_ptr<Env>> envs;           // per Relax function, in module order
  std::unordered_map<std::string, Callee> callees;  // call_tir callee name -> counts and sites
  std::vector<Workload> workloads;                  // R.matmul and extern GEMMs, one per signature, first seen first
  std::map<std::string, AttentionSite> attention;   // attention builtin sites, keyed by their signature
  CallTimes times;  // empty when no Relax function calls another; else every count above includes those calls
};

/// The scan of every Relax function of `module` (on `threads` threads; the outcome is that of the serial
/// scan). A binding that cannot be read is skipped: "function/var: reason" appended to `skipped`, in
/// binding order, then the attention sites' and the call graph's skips.
RelaxCalls scan_relax_calls(const ir::Module& module, unsigned threads, PrimTable& prims,
                            std::vector<std::string>& skipped);

}  // namespace tenet_cost::xrelax
