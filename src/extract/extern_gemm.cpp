// Extern GEMMs: MLC-LLM's FasterTransformer, CUTLASS and Triton kernels (extern_gemm.hpp, docs/extract.md §3).
// Their shape comes from the argument shapes (activation [.., M, K], weight [N, K] or [B | E, N, K]), the block
// size of a block-scale fp8 GEMM from the weight scale's shape (one scale per block: [ceil(N/bn), ceil(K/bk)]),
// checked against the block sizes the call passes or the kernel's name holds.
#include "extract/extern_gemm.hpp"

#include <utility>
#include <vector>

#include "tenet_cost/checked.hpp"

namespace tenet_cost {

namespace {

using sym::SymKind;
using sym::SymPtr;
using SourcedValues = std::vector<std::pair<std::string, std::int64_t>>;

/// What the weight's leading dim stacks: nothing (a 2-D weight), a batch (bmm), one matrix per expert.
enum class Stack : std::uint8_t { kNone, kBatch, kExperts };

/// The operands of a CUTLASS / Triton GEMM as a call's struct infos or a prim_func's buffers give them.
struct ExternOperands {
  std::vector<ir::ExprPtr> x, w, w_scale;  // dims: activation [.., M, K], weight [N, K] / [B | E, N, K], its scale
  bool x_known = false, w_known = false;
  OptDataType x_dtype, w_dtype, out_dtype, scale_dtype;
  Stack stack = Stack::kNone;
  bool block_scaled = false;
  SourcedValues block_n, block_k;  // the block sizes the call passes or the kernel's name holds
};

std::optional<std::int64_t> const_of(const ir::ExprPtr& e) { return e ? xtir::int_const(e.get()) : std::nullopt; }

/// A block size along `axis` of `extent` elements whose scale has `blocks` entries there: one scale per block,
/// so ceil(extent / b) = blocks, which every b in [lo, hi] satisfies. The block sizes the call passes or the
/// kernel's name holds (`facts`) that satisfy it are used first; without one, the smallest power of two in
/// [lo, hi] (else lo), said in the note when the range holds several. The sources are listed in the note.
std::int64_t block_size(const std::string& axis, std::optional<std::int64_t> extent, std::optional<std::int64_t> blocks,
                        const SourcedValues& facts, std::string& note) {
  const bool shape = extent && blocks && *extent > 0 && *blocks > 0;
  // ceil(extent / b) = blocks for b in [lo, hi]: lo = ceil(extent / blocks) (checked.hpp's ceil_div), hi =
  // floor((extent - 1) / (blocks - 1)); no extent + blocks - 1, which overflows on an extent near 2^63
  const std::int64_t lo = shape ? ceil_div(*extent, *blocks) : 0;
  const std::int64_t hi = shape && *blocks > 1 ? (*extent - 1) / (*blocks - 1) : INT64_MAX / 2;
  auto admits = [&](std::int64_t b) { return !shape || (b >= lo && b <= hi); };
  SourcedValues ok, other;
  for (const auto& f : facts) (admits(f.second) ? ok : other).push_back(f);
  if (shape && lo <= hi) {
    std::int64_t pick = 1;
    while (pick < lo && pick <= INT64_MAX / 2) pick *= 2;
    if (pick < lo || pick > hi) pick = lo;
    const std::string range =
        lo == hi ? std::to_string(lo)
                 : "[" + std::to_string(lo) + ", " + (*blocks > 1 ? std::to_string(hi) : std::string("inf")) + "]";
    if (ok.empty() && lo < hi)
      note += "; " + std::to_string(*blocks) + " scale blocks along " + axis + " of " + std::to_string(*extent) +
              " admit any block size in " + range + ": " + std::to_string(pick) + " is used";
    if (ok.empty() || ok.front().second == pick)
      ok.insert(
          ok.begin(),
          {"the scale's shape (" + std::to_string(*blocks) + " blocks of " + std::to_string(*extent) + ")", pick});
  }
  for (const auto& f : other) ok.push_back(f);
  if (ok.empty()) {
    note += "; block along " + axis + " not derivable (no static scale shape, no block size in the call)";
    return 0;
  }
  const std::int64_t b = xtir::settle("block along " + axis, ok, note);
  if (b <= 0) {
    note += " (not a block size)";
    return 0;
  }
  if (!admits(b))
    note += "; the scale has " + std::to_string(*blocks) + " blocks along " + axis + ", not ceil(" +
            std::to_string(*extent) + " / " + std::to_string(b) + ")";
  return b;
}

/// M, N, K and batch from the operands' dims; shape_known = false with the reason when they are not known.
void extern_shape(const ExternOperands& o, Workload& w) {
  const std::size_t lead = o.stack == Stack::kBatch ? 1 : 0;
  const std::size_t wrank = o.stack == Stack::kNone ? 2 : 3;
  bool ok = o.x_known && o.w_known && o.x.size() >= 2 + lead && o.w.size() == wrank;
  std::vector<SymPtr> rows;
  std::optional<SymPtr> k, n, stacked;
  if (ok) {
    for (std::size_t i = lead; i + 1 < o.x.size() && ok; ++i) {
      const auto d = xrelax::dim_sym(o.x[i]);
      if (d) rows.push_back(*d);
      else ok = false;
    }
    k = xrelax::dim_sym(o.x.back());
    n = xrelax::dim_sym(o.w[wrank - 2]);
    if (o.stack != Stack::kNone) stacked = xrelax::dim_sym(lead ? o.x[0] : o.w[0]);
    ok = ok && k && n && (o.stack == Stack::kNone || stacked);
  }
  if (!ok) {
    w.shape_known = false;
    w.m = w.n = w.k = w.batch = Dim::unknown();
    w.note += std::string("; operand shapes not known (activation [.., M, K], weight ") +
              (wrank == 2 ? "[N, K])" : "[B, N, K])");
    return;
  }
  SymPtr m = xsym::product(rows);
  if (o.stack == Stack::kExperts) {
    const SymPtr& e = *stacked;
    const std::string total = sym::to_text(*m);
    m = sym::sym_bin(SymKind::kFloorDiv,
                     sym::sym_bin(SymKind::kAdd, m, sym::sym_bin(SymKind::kSub, e, sym::sym_int(1))), e);
    w.note += "; one weight per expert: batch = " + sym::to_text(*e) + " experts, m = the " + total +
              " rows spread evenly over them, ceil(" + total + " / " + sym::to_text(*e) +
              ") (the split is runtime data, indptr; batch x m x n x k bounds the MACs)";
  }
  w.m = Dim::symbolic(m);
  w.n = Dim::symbolic(*n);
  w.k = Dim::symbolic(*k);
  w.batch = stacked ? Dim::symbolic(*stacked) : Dim::constant(1);
  if (const auto wk = xrelax::dim_sym(o.w.back()); wk && sym::to_text(**wk) != sym::to_text(**k))
    w.note += "; the weight's K " + sym::to_text(**wk) + " differs from the activation's " + sym::to_text(**k);
}

/// The weight's quantization: a low-precision float weight with a per-tensor or a 2-D block scale.
QuantInfo extern_quant(const ExternOperands& o, const Workload& w, std::string& note) {
  QuantInfo q;
  const OptDataType& wt = o.w_dtype;
  if (!wt || !wt->is_low_float()) return q;  // a float16 / bfloat16 weight
  q.storage_dtype = o.w_dtype;
  q.weight_bits = wt->bits;
  q.weight_layout = "NK";
  q.scale_dtype = o.scale_dtype;
  if (o.block_scaled) {
    q.granularity = QuantGranularity::kBlock;
    const std::size_t r = o.w_scale.size();
    q.block_n = block_size("N", w.n.value, r >= 2 ? const_of(o.w_scale[r - 2]) : std::nullopt, o.block_n, note);
    q.block_k = block_size("K", w.k.value, r >= 1 ? const_of(o.w_scale[r - 1]) : std::nullopt, o.block_k, note);
  } else if (o.scale_dtype) {
    q.granularity = QuantGranularity::kTensor;
  }
  q.scheme = xtir::scheme_name(q, xtir::GemmAxis::kK);
  return q;
}

Workload extern_workload(const ExternOperands& o, const std::string& what) {
  Workload w;
  w.note = what;
  w.layout = "NT";  // weight [N, K]
  w.weight_operand = WeightOperand::kB;
  w.dtype_a = o.x_dtype;
  w.dtype_b = o.w_dtype;
  w.dtype_out = o.out_dtype;
  w.dtype_accum = DataType::Float(32);
  extern_shape(o, w);
  w.quant = extern_quant(o, w, w.note);
  w.note += "; the kernel accumulates in float32";
  return w;
}

/// "<key><digits>" in a kernel's name (`_block_n128`): the number.
std::optional<std::int64_t> name_number(const std::string& name, const std::string& key) {
  const auto p = name.find(key);
  if (p == std::string::npos) return std::nullopt;
  std::int64_t v = 0;
  std::size_t i = p + key.size(), digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 9; ++i, ++digits) v = v * 10 + (name[i] - '0');
  if (digits == 0) return std::nullopt;
  return v;
}

}  // namespace

// ------------------------------------------------------------------ Relax: R.call_dps_packed

namespace xrelax {

namespace {

struct CallArgs {
  std::vector<ir::RExprPtr> tensors;
  std::vector<ir::ExprPtr> prims;
};

CallArgs split_args(const ir::RExpr& call) {
  CallArgs out;
  for (const auto& a : call_args(call)) {
    if (!a) continue;
    if (a->kind == ir::RExprKind::kPrimValue && a->prim) out.prims.push_back(a->prim);
    else if (a->kind == ir::RExprKind::kVar || a->kind == ir::RExprKind::kConstant) out.tensors.push_back(a);
  }
  return out;
}

/// R.call_dps_packed("fastertransformer.gemm_fp16_int[_bias]", (x, w, scale, [bias,] act, m, n, k, group)).
Workload ft_gemm(const Env& env, const ir::Binding& b, const std::string& name) {
  Workload w;
  w.note = name;
  w.layout = "NN";
  w.weight_operand = WeightOperand::kB;
  const CallArgs a = split_args(*b.value);
  std::optional<SymPtr> m, n, k;
  if (a.prims.size() >= 3) {
    m = dim_sym(a.prims[0]);
    n = dim_sym(a.prims[1]);
    k = dim_sym(a.prims[2]);
  }
  if (!m || !n || !k) {
    w.shape_known = false;
    w.m = w.n = w.k = Dim::unknown();
    w.note += "; M, N, K prim_values not found";
  } else {
    w.m = Dim::symbolic(*m);
    w.n = Dim::symbolic(*n);
    w.k = Dim::symbolic(*k);
  }
  const auto& ts = a.tensors;
  ir::StructInfoPtr sx = ts.size() > 0 ? env.sinfo_of(ts[0]) : nullptr;
  ir::StructInfoPtr sw = ts.size() > 1 ? env.sinfo_of(ts[1]) : nullptr;
  ir::StructInfoPtr ss = ts.size() > 2 ? env.sinfo_of(ts[2]) : nullptr;
  ir::StructInfoPtr so = b.value->sinfo_args.empty() ? b.sinfo : b.value->sinfo_args[0];
  w.dtype_a = sinfo_dtype(sx);
  w.dtype_b = w.dtype_a;  // the int weight is dequantized to the activation type inside the kernel
  w.dtype_out = sinfo_dtype(so);
  w.dtype_accum = DataType::Float(32);
  w.note += "; FasterTransformer fpA_intB kernels accumulate in float32";
  QuantInfo& q = w.quant;
  q.storage_dtype = sinfo_dtype(sw);
  q.scale_dtype = sinfo_dtype(ss);
  q.zero_point = ZeroPointKind::kSymmetric;
  q.weight_layout = "KN";
  auto wn = const_dim(sw, 1);
  if (wn && w.n.known() && *w.n.value % 2 == 0 && *wn == *w.n.value / 2) {  // no *wn * 2: it may overflow
    q.weight_bits = 4;
    q.elems_per_storage = 2;
  } else if (wn && w.n.known() && *wn == *w.n.value) {
    q.weight_bits = 8;
    q.elems_per_storage = 1;
  } else {
    q.weight_bits = name.find("int4") != std::string::npos ? 4 : 0;
    w.note += "; weight bits not derivable from the weight shape";
  }
  auto groups =
      tensor_known(ss) && ss->dims.size() >= 2 ? xtir::int_const(ss->dims[ss->dims.size() - 2].get()) : std::nullopt;
  if (groups && *groups == 1) q.granularity = QuantGranularity::kChannel;
  else if (groups && *groups > 1 && w.k.known() && *w.k.value % *groups == 0) {
    q.granularity = QuantGranularity::kGroup;
    q.group_size = *w.k.value / *groups;
  }
  const std::string b4 = q.weight_bits == 8 ? "q8f16_ft" : "q4f16_ft";
  if (q.weight_bits == 0) q.scheme = "custom";
  else q.scheme = q.granularity == QuantGranularity::kGroup ? b4 + "_group" : b4;
  return w;
}

/// Where a family's operands are: indices among the call's tensor arguments (-1: absent) and, for the block
/// sizes, among its prim_values.
struct ArgLayout {
  int x, w, scale;
  bool block_scaled;
  Stack stack;
  int block_n, block_k;
};

ArgLayout layout_of(ExternGemm kind) {
  switch (kind) {
    case ExternGemm::kCutlassFp8: return {0, 1, 3, false, Stack::kNone, -1, -1};
    case ExternGemm::kCutlassGroup: return {0, 1, 4, false, Stack::kExperts, -1, -1};
    case ExternGemm::kCutlassBlock: return {0, 1, 3, true, Stack::kNone, 0, 1};
    case ExternGemm::kCutlassBlockBmm: return {0, 1, 3, true, Stack::kBatch, 0, 1};
    case ExternGemm::kCutlassBlockGroup: return {0, 1, 3, true, Stack::kExperts, 0, 1};
    case ExternGemm::kTritonBlock: return {0, 1, 3, true, Stack::kNone, 2, 3};
    case ExternGemm::kTritonBlockGroup: return {0, 1, 3, true, Stack::kExperts, 3, 4};
    case ExternGemm::kFasterTransformer:
    case ExternGemm::kNone: break;
  }
  return {-1, -1, -1, false, Stack::kNone, -1, -1};
}

/// The dims of a tensor argument (`known` false when its shape is not in the struct info).
std::vector<ir::ExprPtr> dims_of(const Env& env, const CallArgs& a, int i, bool& known, OptDataType& dtype) {
  known = false;
  if (i < 0 || static_cast<std::size_t>(i) >= a.tensors.size()) return {};
  const ir::StructInfoPtr s = env.sinfo_of(a.tensors[static_cast<std::size_t>(i)]);
  dtype = sinfo_dtype(s);
  known = tensor_known(s);
  return known ? std::vector<ir::ExprPtr>(s->dims.begin(), s->dims.end()) : std::vector<ir::ExprPtr>{};
}

}  // namespace

ExternGemm extern_gemm_kind(std::string_view n) {
  auto starts = [&](std::string_view p) { return n.substr(0, p.size()) == p; };
  if (starts("fastertransformer.gemm_fp16_int")) return ExternGemm::kFasterTransformer;
  if (starts("cutlass.groupwise_scaled_group_gemm_")) return ExternGemm::kCutlassBlockGroup;
  if (starts("cutlass.groupwise_scaled_bmm_")) return ExternGemm::kCutlassBlockBmm;
  if (starts("cutlass.groupwise_scaled_gemm_")) return ExternGemm::kCutlassBlock;
  if (n == "cutlass.group_gemm" || starts("cutlass.group_gemm_")) return ExternGemm::kCutlassGroup;
  if (starts("cutlass.gemm_e")) return ExternGemm::kCutlassFp8;  // cutlass.gemm_e4m3_e4m3_fp16, gemm_e5m2_..
  if (n == "mlc.triton.w8a8_block_fp8_matmul") return ExternGemm::kTritonBlock;
  if (n == "mlc.triton.w8a8_block_fp8_group_matmul") return ExternGemm::kTritonBlockGroup;
  return ExternGemm::kNone;
}

Workload extern_gemm(const Env& env, const ir::Binding& b, const std::string& name, ExternGemm kind) {
  Workload w;
  if (kind == ExternGemm::kFasterTransformer) {
    w = ft_gemm(env, b, name);
  } else {
    const ArgLayout l = layout_of(kind);
    const CallArgs a = split_args(*b.value);
    ExternOperands o;
    o.x = dims_of(env, a, l.x, o.x_known, o.x_dtype);
    o.w = dims_of(env, a, l.w, o.w_known, o.w_dtype);
    bool scale_known = false;
    o.w_scale = dims_of(env, a, l.scale, scale_known, o.scale_dtype);
    const ir::StructInfoPtr so = b.value->sinfo_args.empty() ? b.sinfo : b.value->sinfo_args[0];
    o.out_dtype = sinfo_dtype(so);
    o.stack = l.stack;
    o.block_scaled = l.block_scaled;
    auto prim = [&](int i, SourcedValues& to) {
      if (i < 0 || static_cast<std::size_t>(i) >= a.prims.size()) return;
      if (const auto v = const_of(a.prims[static_cast<std::size_t>(i)])) to.emplace_back("the call's argument", *v);
    };
    prim(l.block_n, o.block_n);
    prim(l.block_k, o.block_k);
    w = extern_workload(o, name);
  }
  w.source = WorkloadSource::kPacked;
  w.function = env.f.name + "/" + b.var;
  w.loc = b.loc;
  return w;
}

}  // namespace xrelax

// ------------------------------------------------------------------ TIR: a prim_func launching a Triton kernel

namespace xtir {

namespace {

/// The buffers passed as `X.data` handles, in call order (only buffers of the function).
std::vector<std::string> handle_buffers(const ir::Expr& call, const FuncIndex& fi) {
  std::vector<std::string> out;
  for (const auto& a : call.args) {
    if (!a || a->kind != ir::ExprKind::kOther) continue;
    const std::string& text = a->name.str();
    constexpr std::string_view kData = ".data";
    if (text.size() <= kData.size() || text.compare(text.size() - kData.size(), kData.size(), kData) != 0) continue;
    std::string buffer = text.substr(0, text.size() - kData.size());
    if (fi.buffer(buffer)) out.push_back(std::move(buffer));
  }
  return out;
}

}  // namespace

std::optional<TirGemm> triton_kernel_gemm(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index) {
  for (const auto& cs : fi.calls) {
    const ir::Expr& c = *cs.call;
    if (c.kind != ir::ExprKind::kCall || (c.name != "call_packed" && c.name != "call_kernel")) continue;
    // call_packed names the kernel; a call_kernel's kernel is a Python object, the prim_func's name tells it
    std::string kernel;
    if (c.name == "call_packed" && !c.args.empty() && c.args[0] && c.args[0]->kind == ir::ExprKind::kString)
      kernel = c.args[0]->name.str();
    const std::string& id = c.name == "call_packed" ? kernel : f.name;
    if (id.find("w8a8_block_fp8_") == std::string::npos) continue;
    const bool group = id.find("w8a8_block_fp8_group_") != std::string::npos;
    const std::vector<std::string> h = handle_buffers(c, fi);  // A, B, C, As, Bs[, expert_ids, indptr]
    if (h.size() < (group ? 7U : 5U)) continue;
    const ir::Buffer* a = fi.buffer(h[0]);
    const ir::Buffer* b = fi.buffer(h[1]);
    const ir::Buffer* bs = fi.buffer(h[4]);
    ExternOperands o;
    o.x.assign(a->shape.begin(), a->shape.end());
    o.w.assign(b->shape.begin(), b->shape.end());
    o.w_scale.assign(bs->shape.begin(), bs->shape.end());
    o.x_known = !o.x.empty();
    o.w_known = !o.w.empty();
    o.x_dtype = fi.dtype_of(h[0]);
    o.w_dtype = fi.dtype_of(h[1]);
    o.out_dtype = fi.dtype_of(h[2]);
    o.scale_dtype = fi.dtype_of(h[4]);
    o.stack = group ? Stack::kExperts : Stack::kNone;
    o.block_scaled = true;
    const std::string source = kernel.empty() ? "the prim_func's name" : "the kernel's name";
    if (const auto v = name_number(id, "_block_n")) o.block_n.emplace_back(source, *v);
    if (const auto v = name_number(id, "_block_k")) o.block_k.emplace_back(source, *v);
    TirGemm g;
    g.func_index = func_index;
    g.w = extern_workload(o, "Triton kernel " + (kernel.empty() ? "launched by T.call_kernel" : kernel) +
                                 " (activation " + h[0] + ", weight " + h[1] + ", output " + h[2] + ", scales " + h[3] +
                                 ", " + h[4] + ")");
    g.w.function = f.name;
    g.w.loc = c.loc.line ? c.loc : f.loc;
    g.w.source = WorkloadSource::kTir;
    return g;
  }
  return std::nullopt;
}

}  // namespace xtir

}  // namespace tenet_cost
