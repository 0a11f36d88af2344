// IR -> workloads: find every GEMM / convolution, its quantization and how
// often each entry function calls it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/ir.hpp"
#include "tenet_cost/workload.hpp"

namespace tenet_cost {

struct ExtractOptions {
  std::optional<std::string> entry;                 // only this Relax entry function
  std::map<std::string, std::int64_t> bindings;     // --bind seq_len=2048,batch_size=1
  /// Threads of the per-prim_func analysis (docs/extract.md "Threads"): 0 = $TC_EXTRACT_THREADS,
  /// else the hardware threads; at most 8; 1 = serial. The result (workloads, order, messages,
  /// debug log lines, the error thrown) is always the serial one.
  unsigned threads = 0;
  /// Modules with fewer prim_funcs are analyzed serially (threads would cost more than they save).
  std::size_t min_parallel_funcs = 64;
};

/// Calls into MLC's KV-cache attention builtins, which hide the attention
/// GEMMs (the estimator synthesizes QK^T and PV from these).
struct AttentionSite {
  std::string entry;
  std::string builtin;             // e.g. "vm.builtin.paged_attention_kv_cache_attention"
  std::int64_t calls = 0;
  std::optional<std::int64_t> num_heads, num_kv_heads, head_dim;
};

/// A non-GEMM prim_func called from the Relax functions (docs/extract.md "Operators"): norms, rotary, softmax,
/// activations, residual adds, ... One record per distinct shape of its call sites (rms_norm of one decode token
/// and of n prefill tokens are two records).
struct OperatorWorkload {
  std::string function;
  /// Element operations: per block that stores, its iteration domain x the arithmetic operations of the stored
  /// value (casts, loads and index arithmetic are free; every other operator, comparison and call counts one).
  Dim ops = Dim::constant(0);
  /// DRAM bytes: the param buffers it loads / stores, each whole once, at its dtype.
  Dim read_bytes = Dim::constant(0), write_bytes = Dim::constant(0);
  std::vector<std::string> reads, writes;     // those param buffers
  std::map<std::string, std::int64_t> calls;  // entry function -> calls per invocation
  bool shape_known = true;                    // false: reported, never costed (note says why)
  /// The fused epilogue of a GEMM / convolution prim_func of the same name (the blocks consuming its result:
  /// a residual add, a bias, an activation): its element ops and the extra inputs it reads; the output write is
  /// the GEMM's (docs/extract.md "Operators").
  bool epilogue = false;
  std::string note;
  SourceLocation loc;
};

struct ExtractResult {
  std::vector<Workload> workloads;          // sorted by function name, then location
  std::vector<OperatorWorkload> operators;  // non-GEMM prim_funcs, sorted by function name, then ops
  std::vector<std::string> entries;         // Relax entry functions seen (sorted)
  std::vector<AttentionSite> attention;     // sorted by entry
  std::vector<std::string> skipped;         // functions skipped, with the reason (debug)
  std::vector<std::string> symbols;         // unbound symbolic names in the workloads (sorted)
  /// Whole-module quantization: the one scheme of the weight GEMMs, "q0f16" /
  /// "q0f32" / "q0bf16" when none is quantized, "mixed", or "" without weight GEMMs.
  std::string module_quant;
};

ExtractResult extract_workloads(const ir::Module& module, const ExtractOptions& options = {});

/// Parse "a=1,b=2" into bindings; throws InputError on a malformed list.
std::map<std::string, std::int64_t> parse_bindings(const std::string& text);

/// Evaluate a symbolic Dim under bindings; returns a known Dim, or throws
/// InputError listing the unbound names when `require_known`.
Dim bind_dim(const Dim& d, const std::map<std::string, std::int64_t>& bindings, bool require_known = false);

}  // namespace tenet_cost
