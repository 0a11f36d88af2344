// Internals of the extractor shared between its translation units (not a
// public API). See docs/extract.md for the rules implemented here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "extract/sym.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::xtir {

// ------------------------------------------------------------ debug log
/// Is the debug level on (checked before formatting a debug line)?
bool debug_enabled();
/// A debug log line: written at once, or, while a LogCapture is active on this
/// thread (a parallel worker), kept so the caller can write the lines in the
/// serial order.
void debug_line(std::string line);
template <class... A>
void debug(fmt::format_string<A...> format, A&&... args) {
  if (debug_enabled()) debug_line(fmt::format(format, std::forward<A>(args)...));
}
/// Captures this thread's debug lines into `lines` while alive.
class LogCapture {
 public:
  explicit LogCapture(std::vector<std::string>& lines);
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

 private:
  std::vector<std::string>* previous_;
};

// ------------------------------------------------------------ expression utils
const ir::Expr* strip_cast(const ir::Expr* e);
bool struct_eq(const ir::Expr* a, const ir::Expr* b);
/// Every variable name referenced in e (loads' indices included).
void collect_vars(const ir::Expr& e, std::set<std::string>& out);
/// Loads in e. `top_only`: skip loads that sit inside another load's indices.
void collect_loads(const ir::Expr& e, std::vector<const ir::Expr*>& out, bool top_only);
/// Replaces variables by expressions (a new tree; shared subtrees kept).
ir::ExprPtr substitute(const ir::ExprPtr& e, const std::map<std::string, ir::ExprPtr>& m);
/// Integer constant value of e (through casts), if it is one.
std::optional<std::int64_t> int_const(const ir::Expr* e);
/// Linear form sum(coef[v] * v) + c of an index expression; nullopt when not linear.
struct Linear {
  std::map<std::string, std::int64_t> coef;
  std::int64_t constant = 0;
};
std::optional<Linear> linear_form(const ir::Expr& e);
std::size_t node_count(const ir::Expr& e, std::size_t limit);

/// Storage bits of a dtype ("uint32" -> 32, "float8_e4m3fn" -> 8); 0 unknown. The text overloads read an IR's
/// dtype text (parsed here, at the extractor's boundary); the rest of the extractor holds DataType values.
int dtype_bits(const std::string& dtype);
inline int dtype_bits(const OptDataType& t) { return scalar_bits(t); }
inline bool is_int_dtype(const OptDataType& t) { return t && t->is_int(); }
inline bool is_float_dtype(const OptDataType& t) { return t && t->is_float(); }
inline bool is_int_dtype(const std::string& dtype) { return is_int_dtype(parse_dtype(dtype)); }
inline bool is_float_dtype(const std::string& dtype) { return is_float_dtype(parse_dtype(dtype)); }
/// float8_e8m0fnu (OCP Microscaling's shared exponent), with or without lanes.
inline bool is_exponent_dtype(const OptDataType& t) { return t && t->is_exponent_only(); }
/// An 8-bit float (float8_*, with or without lanes).
inline bool is_float8_dtype(const OptDataType& t) { return t && t->code == DataType::Code::kFloat && t->bits == 8; }

// ------------------------------------------------------------ function index
struct StoreSite {
  const ir::Stmt* store = nullptr;
  const ir::Block* block = nullptr;          // innermost enclosing block (may be null)
  std::vector<const ir::Block*> chain;       // enclosing blocks, outermost first
  bool in_init = false;
};

struct FuncIndex {
  const ir::PrimFunc* func = nullptr;
  /// Buffers allocated in the body (T.alloc_buffer / block allocs) under a name the
  /// function's own buffer map does not have, the first allocation of a name kept.
  std::map<std::string_view, const ir::Buffer*> allocs;
  std::vector<std::string> param_buffer;     // per param: buffer name or "" (scalar)
  std::set<std::string> param_buffers;
  std::vector<StoreSite> stores;
  std::map<std::string, std::vector<std::size_t>> writers;  // buffer -> stores (not init)
  /// Every block, in body order (tensorized GEMMs and region dataflow read their regions).
  std::vector<const ir::Block*> blocks;
  /// Calls evaluated as statements (`T.tvm_mma_sync(..)`, `T.ptx_mma(..)`, `T.call_extern(..)`)
  /// with their innermost enclosing block (may be null), outside `T.init()`.
  struct CallSite {
    const ir::Expr* call = nullptr;
    const ir::Block* block = nullptr;
    std::vector<const ir::Block*> chain;  // enclosing blocks, outermost first (a blockized intrinsic's outer vars)
  };
  std::vector<CallSite> calls;
  explicit FuncIndex(const ir::PrimFunc& f);
  [[nodiscard]] const ir::Buffer* buffer(const std::string& name) const;
  /// The buffer's dtype, parsed (nullopt: no such buffer).
  [[nodiscard]] OptDataType dtype_of(const std::string& name) const;
};

/// The parameter buffers `buffer` is copied from through blocks (fragment loads, shared
/// copies, extern decodes: every block writing it, its reads followed, `exclude` skipped) into
/// `roots`; false when some source is neither a parameter nor written by a block.
bool region_roots(const FuncIndex& fi, const std::string& buffer, const ir::Block* exclude, int depth,
                  std::set<std::string>& roots);

/// Elements of a region per block instance (the product of its constant extents, < 2^40).
std::optional<std::int64_t> region_elems(const ir::BufferRegion& r);

/// Inline single-store producers of loaded buffers (dequantize, copies, pads).
ir::ExprPtr inline_producers(const ir::ExprPtr& e, const FuncIndex& fi, const ir::Stmt* exclude);

// ------------------------------------------------------------ quantization
struct QuantContext {
  std::set<std::string> kvars, nvars;
  std::optional<std::int64_t> k_extent;  // total K when static (GPTQ group size)
  std::function<OptDataType(const std::string&)> dtype_of;
  std::function<const ir::Buffer*(const std::string&)> buffer;
  OptDataType fallback_scale_dtype;  // fp8: a per-tensor scale param of the function
};
/// Quantization facts of a (dequantized, inlined) weight expression.
/// weight_bits == 0 when the expression is a plain float weight.
QuantInfo detect_quant(const ir::Expr& weight, const QuantContext& ctx, std::string& note);
/// A weight written by an extern or intrinsic decode call (`T.call_extern("handle",
/// "decode_i4s_to_f16_scale", Compressed.data, Decompressed.data, ..)`, BitBLAS) into buffer
/// `decoded`, which the GEMM reads as `gemm_load`: the facts from the function attribute
/// `dequantize_info`, the extern's name and the buffer shapes/regions, `note` saying which
/// fact came from where; `packed` = the packed weight parameter the decode reads. Nullopt when
/// `decoded` is not written by a block that evaluates such a call.
struct ExternDecode {
  QuantInfo q;
  std::string packed;
  std::string note;
};
std::optional<ExternDecode> extern_decode(const FuncIndex& fi, const std::string& decoded, const ir::Expr& gemm_load,
                                          const QuantContext& ctx);

/// One fact from several sources (`{"dequantize_info", 4}, {"the extern's name", 4}`): the first source's value;
/// `note` gains "; <what> <value> from <source>" and, with several sources, whether they agree (all listed).
std::int64_t settle(const std::string& what, const std::vector<std::pair<std::string, std::int64_t>>& facts,
                    std::string& note);

/// Elements of a buffer with a static shape.
std::optional<std::int64_t> static_elems(const ir::Buffer* b);
/// Does e reference any of `vars`?
bool refs_any(const ir::Expr& e, const std::set<std::string>& vars);
/// `x // c` at the top of an index expression with x over `vars`: c (> 1).
std::optional<std::int64_t> top_div(const ir::Expr& idx, const std::set<std::string>& vars);
/// The elements per storage word a packed load's `k // c` states: `c` when a word of `storage_bits` can hold
/// that many elements, else `fallback` (from the bit widths) with `note` saying why (`k // 2**31` never wraps).
int packing_divisor(std::int64_t c, int storage_bits, int fallback, std::string& note);
/// "NK" or "KN": which of a weight load's indices comes first, the one over N or the one over K.
std::optional<std::string> load_layout(const ir::Expr& load, const QuantContext& ctx);

/// A block-scaled low-precision operand (quant_mx.cpp, docs/extract.md "Microscaling and NVFP4"): elements of
/// 4/6/8 bits with one scale per small block along K, OCP MX (an e8m0 exponent per 32) or NVFP4 (an e4m3
/// scale per 16 and an fp32 scale per tensor).
enum class BlockElement : std::uint8_t { kFp4E2M1, kFp6E2M3, kFp6E3M2, kFp8E4M3, kFp8E5M2, kInt8, kOther };
enum class BlockScaling : std::uint8_t { kMx, kNvfp4, kOther };
struct BlockScaled {
  QuantInfo q;  // its facts (scheme: the weight-only name)
  BlockElement element = BlockElement::kOther;
  BlockScaling scaling = BlockScaling::kOther;
  std::string note;
};
/// The block-scaled facts of an operand expression; nullopt when it holds no shared exponent (e8m0 load, an
/// integer in ldexp's / exp2's exponent or shifted into a float's exponent field) and no element narrower than
/// 8 bits (float4/float6 loads or reinterprets).
std::optional<BlockScaled> block_scaled_operand(const ir::Expr& operand, const QuantContext& ctx);
/// When the weight `q` (operand b when `weight_is_b`, else a) is block-scaled and the other operand is too
/// (activations quantized in the same kernel), q.scheme becomes the W-and-A scheme (mxfp4, nvfp4, mxfp8-e4m3,
/// w4a8-mxfp4-mxfp8, ..) and `note` describes the activations; `a_vars` / `b_vars` are each operand's own iter vars.
void activation_format(QuantInfo& q, bool weight_is_b, const ir::Expr& a, const ir::Expr& b, QuantContext ctx,
                       const std::set<std::string>& a_vars, const std::set<std::string>& b_vars, std::string& note);

/// The GEMM axis a packed weight is packed, or its scale groups run, along (kNone: not determined).
enum class GemmAxis : std::uint8_t { kNone, kK, kN };
/// MLC scheme name for the facts ("custom" when none matches).
std::string scheme_name(const QuantInfo& q, GemmAxis packing_axis);

// ------------------------------------------------------------ TIR GEMMs
struct TirGemm {
  Workload w;
  std::size_t func_index = 0;     // index in Module::prim_funcs
  int weight_param = -1;          // param index of a plain (maybe externally dequantized) weight
  ir::ExprPtr weight_load;        // the GEMM-side load of that param
  std::set<std::string> kvars, nvars;
  std::optional<std::int64_t> k_extent;
  std::string out_buffer;  // the buffer the GEMM block accumulates into (its consumers are the fused epilogue)
};

/// All GEMM / conv blocks of one prim_func.
std::vector<TirGemm> analyze_prim_func(const ir::PrimFunc& f, std::size_t func_index);

/// When `f` is a dequantize-like function: the value stored into its output
/// param `out_param`, inlined, with the store's index vars replaced by `index`.
/// Null when the output is not written by exactly one plain store.
ir::ExprPtr producer_value(const FuncIndex& fi, int out_param, std::span<const ir::ExprPtr> index);

}  // namespace tenet_cost::xtir
