// Quantization facts from the dequantize expression that feeds a GEMM weight.
// Rules (docs/extract.md "Quantization detection"):
//  * packed weight = integer-typed load under a bit operation (shift/and),
//    not under T.reinterpret; the largest such buffer when several;
//  * bits from the mask of bitwise_and (15 -> 4, 7 -> 3, 255 -> 8);
//  * elements per storage word from the `k // c` divisor of the packed index
//    (else storage bits / weight bits);
//  * scale = float load multiplying the decoded value (or the reinterpret of a
//    packed integer, q4f32_0); group size = divisor `k // g` of its K index;
//  * zero point: `- <float const>` symmetric; another packed load or a
//    reinterpreted min added -> tensor;
//  * fp8: a float8 load cast up, with a per-tensor scale.
#include <algorithm>
#include <optional>

#include "extract/internal.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;

namespace {

bool is_bitop(const Expr& e) {
  if (e.kind == ExprKind::kBinary)
    return e.bin_op == ir::BinOp::kShr || e.bin_op == ir::BinOp::kShl || e.bin_op == ir::BinOp::kBitAnd ||
           e.bin_op == ir::BinOp::kBitOr;
  if (e.kind == ExprKind::kCall)
    return e.name == "shift_right" || e.name == "shift_left" || e.name == "bitwise_and" || e.name == "bitwise_or";
  return false;
}
bool is_and(const Expr& e) {
  return (e.kind == ExprKind::kBinary && e.bin_op == ir::BinOp::kBitAnd) ||
         (e.kind == ExprKind::kCall && e.name == "bitwise_and");
}
bool is_reinterpret(const Expr& e) { return e.kind == ExprKind::kCall && e.name == "reinterpret"; }
std::string reinterpret_dtype(const Expr& e) {
  if (!e.dtype.empty()) return e.dtype;
  for (const auto& a : e.args)
    if (a && a->kind == ExprKind::kString) return a->name;
  return "";
}

struct LoadInfo {
  const Expr* load;
  bool under_bitop, under_reinterpret, in_index;
  std::string reinterpret_to;
};

struct Walk {
  const QuantContext& ctx;
  std::vector<LoadInfo> loads;
  std::vector<std::int64_t> masks;        // bitwise_and constants outside reinterpret
  bool sub_const = false;                 // decoded - <constant>
  double sub_value = 0;
  bool sub_tensor = false;                // decoded - <load expr>
  bool add_reinterpret = false;           // ... + reinterpret(packed)  (q4f32_0 min)

  void go(const Expr& e, bool bit, bool reint, bool index, const std::string& rdt, int depth) {
    if (depth > 256) return;
    if (e.kind == ExprKind::kLoad) {
      loads.push_back({&e, bit, reint, index, rdt});
      for (const auto& a : e.args)
        if (a) go(*a, false, false, true, "", depth + 1);
      return;
    }
    if (!index && !reint && is_and(e) && e.args.size() == 2) {
      if (auto m = int_const(e.args[1].get())) masks.push_back(*m);
      else if (auto m0 = int_const(e.args[0].get())) masks.push_back(*m0);
    }
    if (!index && e.kind == ExprKind::kBinary && e.args.size() == 2 && e.args[0] && e.args[1]) {
      const Expr* r = strip_cast(e.args[1].get());
      const Expr* l = strip_cast(e.args[0].get());
      if (e.bin_op == ir::BinOp::kSub && r) {
        if (r->kind == ExprKind::kFloat || r->kind == ExprKind::kInt) {
          sub_const = true;
          sub_value = r->kind == ExprKind::kFloat ? r->float_value : static_cast<double>(r->int_value);
        } else {
          std::vector<const Expr*> ls;
          collect_loads(*r, ls, true);
          if (!ls.empty()) sub_tensor = true;
        }
      }
      if (e.bin_op == ir::BinOp::kAdd && ((r && is_reinterpret(*r)) || (l && is_reinterpret(*l))))
        add_reinterpret = true;
    }
    const bool b2 = bit || is_bitop(e);
    const bool r2 = reint || is_reinterpret(e);
    const std::string rdt2 = is_reinterpret(e) ? reinterpret_dtype(e) : rdt;
    for (const auto& a : e.args)
      if (a) go(*a, b2, r2, index, rdt2, depth + 1);
  }
};

std::optional<std::int64_t> static_elems(const ir::Buffer* b) {
  if (!b) return std::nullopt;
  std::int64_t n = 1;
  for (const auto& d : b->shape) {
    auto v = int_const(d.get());
    if (!v || *v <= 0 || n > (INT64_MAX / *v)) return std::nullopt;
    n *= *v;
  }
  return n;
}

bool refs_any(const Expr& e, const std::set<std::string>& vars) {
  std::set<std::string> vs;
  collect_vars(e, vs);
  for (const auto& v : vs)
    if (vars.count(v)) return true;
  return false;
}

/// `x // c` at the top of an index expression with x over `vars`: c.
std::optional<std::int64_t> top_div(const Expr& idx, const std::set<std::string>& vars) {
  const Expr* x = strip_cast(&idx);
  if (x->kind == ExprKind::kBinary && x->bin_op == ir::BinOp::kFloorDiv && x->args.size() == 2 && x->args[0]) {
    auto c = int_const(x->args[1].get());
    if (c && *c > 1 && refs_any(*x->args[0], vars)) return c;
  }
  return std::nullopt;
}

bool has_load(const Expr& e) {
  std::vector<const Expr*> ls;
  collect_loads(e, ls, true);
  return !ls.empty();
}

}  // namespace

namespace {
QuantInfo detect_impl(const Expr& weight, const QuantContext& ctx, std::string& note, std::string& pack_axis,
                      std::string& group_axis);
}

namespace {

/// "NK" or "KN": which of the weight load's indices comes first, the one over N or the one over K.
std::optional<std::string> weight_layout(const LoadInfo& w, const QuantContext& ctx) {
  int pos_k = -1, pos_n = -1;
  for (std::size_t d = 0; d < w.load->args.size(); ++d) {
    if (pos_k < 0 && refs_any(*w.load->args[d], ctx.kvars)) pos_k = static_cast<int>(d);
    if (pos_n < 0 && refs_any(*w.load->args[d], ctx.nvars)) pos_n = static_cast<int>(d);
  }
  if (pos_k < 0 || pos_n < 0) return std::nullopt;
  return std::string(pos_n < pos_k ? "NK" : "KN");
}

/// The load of the buffer with most (static) elements: the weight among its scales / zero points.
const LoadInfo* largest(const std::vector<const LoadInfo*>& loads, const QuantContext& ctx) {
  const LoadInfo* out = nullptr;
  std::int64_t best = -1;
  for (const auto* li : loads) {
    const std::int64_t n = static_elems(ctx.buffer(li->load->name)).value_or(0);
    if (n > best) {
      best = n;
      out = li;
    }
  }
  return out;
}

}  // namespace

QuantInfo detect_quant(const Expr& weight, const QuantContext& ctx, std::string& note) {
  std::string pack_axis, group_axis;
  QuantInfo q = detect_impl(weight, ctx, note, pack_axis, group_axis);
  if (pack_axis == "N" && group_axis == "N") {
    // Packing and groups both run along the GEMM's N: the dequantized buffer
    // is read transposed. Describe the scheme in the dequantizer's own frame.
    QuantContext sw = ctx;
    std::swap(sw.kvars, sw.nvars);
    sw.k_extent.reset();
    std::string n2;
    q = detect_impl(weight, sw, n2, pack_axis, group_axis);
    note = "the dequantized weight is read transposed (packing and groups run along the GEMM's N axis)";
    if (!n2.empty()) note += "; " + n2;
  }
  return q;
}

namespace {
QuantInfo detect_impl(const Expr& weight, const QuantContext& ctx, std::string& note, std::string& packing_axis,
                      std::string& group_axis) {
  QuantInfo q;
  Walk w{ctx, {}, {}, false, 0.0, false, false};
  w.go(weight, false, false, false, "", 0);

  std::vector<const LoadInfo*> packed, packed_scale, float_loads, fp8_loads, int_loads;
  bool index_load = false;
  for (const auto& li : w.loads) {
    const std::string dt = ctx.dtype_of(li.load->name);
    if (li.in_index) {
      // act-order g_idx (`scale[g_idx[k], n]`) runs along K; an indirection by a batch var
      // (MoE's `w[indptr[0, e], ..]`) selects a whole matrix and is no g_idx
      if (is_int_dtype(dt) && refs_any(*li.load, ctx.kvars)) index_load = true;
      continue;
    }
    if (is_int_dtype(dt) && li.under_bitop && li.under_reinterpret) packed_scale.push_back(&li);
    else if (is_int_dtype(dt) && li.under_bitop) packed.push_back(&li);
    else if (dt.rfind("float8", 0) == 0) fp8_loads.push_back(&li);
    else if (is_float_dtype(dt)) float_loads.push_back(&li);
    else if (is_int_dtype(dt) && !li.under_reinterpret) int_loads.push_back(&li);
  }
  const LoadInfo* wq = nullptr;
  packing_axis.clear();  // "K" | "N" | ""
  group_axis.clear();
  if (!packed.empty()) {
    wq = largest(packed, ctx);
    q.storage_dtype = ctx.dtype_of(wq->load->name);
    int bits = 0;
    for (auto m : w.masks) {
      if (m > 0 && (m & (m + 1)) == 0) {
        int b = 0;
        while ((std::int64_t{1} << b) - 1 != m) ++b;
        bits = b;
        break;
      }
    }
    std::optional<std::int64_t> divisor;  // `k // c` (or `n // c`) in the packed load's index
    for (const auto& idx : wq->load->args)
      if (!divisor && idx) divisor = top_div(*idx, ctx.kvars) ? top_div(*idx, ctx.kvars) : top_div(*idx, ctx.nvars);
    if (bits == 0 && divisor && dtype_bits(q.storage_dtype) % *divisor == 0) {
      // sign-extending shifts without a mask (CUTLASS int4 in int8: `(w << 4) >> 4`): the
      // storage word holds `c` values
      bits = static_cast<int>(dtype_bits(q.storage_dtype) / *divisor);
      note = "weight bits from the packing (storage bits / elements per word; no bit mask)";
    }
    if (bits == 0) {
      note = "packed integer weight without a recognisable bit mask";
      bits = dtype_bits(q.storage_dtype);
    }
    q.weight_bits = bits;
    const int sbits = dtype_bits(q.storage_dtype);
    q.elems_per_storage = (bits > 0 && sbits >= bits) ? sbits / bits : 1;
    // Packing divisor and layout from the packed load's indices.
    int pos_k = -1, pos_n = -1;
    for (std::size_t d = 0; d < wq->load->args.size(); ++d) {
      const Expr& idx = *wq->load->args[d];
      if (pos_k < 0 && refs_any(idx, ctx.kvars)) pos_k = static_cast<int>(d);
      if (pos_n < 0 && refs_any(idx, ctx.nvars)) pos_n = static_cast<int>(d);
      if (auto c = top_div(idx, ctx.kvars)) {
        q.elems_per_storage = static_cast<int>(*c);
        packing_axis = "K";
      } else if (auto c2 = top_div(idx, ctx.nvars)) {
        q.elems_per_storage = static_cast<int>(*c2);
        packing_axis = "N";
      }
    }
    if (pos_k >= 0 && pos_n >= 0) q.weight_layout = pos_n < pos_k ? "NK" : "KN";
    if (packing_axis.empty()) packing_axis = "K";
    // Zero point.
    if (packed.size() > 1 || w.sub_tensor || (w.add_reinterpret && !packed_scale.empty())) q.zero_point = "tensor";
    else if (w.sub_const) q.zero_point = "symmetric";
  } else if (!fp8_loads.empty()) {
    wq = fp8_loads.front();
    q.storage_dtype = ctx.dtype_of(wq->load->name);
    q.weight_bits = 8;
    q.elems_per_storage = 1;
    if (const auto layout = weight_layout(*wq, ctx)) q.weight_layout = *layout;
    packing_axis = "K";
  } else if (!int_loads.empty() && !float_loads.empty()) {
    // Weight-only int8 (or any integer storage) without bit operations: `T.Cast("float16",
    // w[i, j]) * scale[..]`; the largest integer buffer is the weight, others are zero points.
    wq = largest(int_loads, ctx);
    q.storage_dtype = ctx.dtype_of(wq->load->name);
    q.weight_bits = dtype_bits(q.storage_dtype);
    q.elems_per_storage = 1;
    if (const auto layout = weight_layout(*wq, ctx)) q.weight_layout = *layout;
    packing_axis = "K";
    if (int_loads.size() > 1 || w.sub_tensor) q.zero_point = "tensor";
    else if (w.sub_const) q.zero_point = "symmetric";
    note = "integer weight cast to float and scaled (no bit operations)";
  } else {
    return q;  // plain float weight
  }
  q.has_g_idx = index_load;

  // Scale.
  const Expr* scale = nullptr;
  if (!packed_scale.empty()) {
    scale = packed_scale.front()->load;
    q.scale_dtype = packed_scale.front()->reinterpret_to;
  } else if (!float_loads.empty()) {
    scale = float_loads.front()->load;
    q.scale_dtype = ctx.dtype_of(scale->name);
  }
  if (scale) {
    bool k_ref = false, n_ref = false, any_var = false;
    std::int64_t k_div = 0, n_div = 0;  // `k // bk` and `n // bn` in different scale dims: 2-D blocks
    for (std::size_t d = 0; d < scale->args.size(); ++d) {
      const Expr& idx = *scale->args[d];
      std::set<std::string> vs;
      collect_vars(idx, vs);
      any_var = any_var || !vs.empty();
      if (auto g = top_div(idx, ctx.kvars)) {
        q.group_size = *g;
        group_axis = "K";
        k_div = *g;
      } else if (auto gn = top_div(idx, ctx.nvars)) {
        group_axis = "N";
        q.group_size = *gn;
        n_div = *gn;
      } else if (has_load(idx) && refs_any(idx, ctx.kvars)) {
        q.has_g_idx = true;
        // g_idx: group size = K / (scale extent along this dim).
        const ir::Buffer* sb = ctx.buffer(scale->name);
        if (sb && d < sb->shape.size() && ctx.k_extent) {
          auto groups = int_const(sb->shape[d].get());
          if (groups && *groups > 0 && *ctx.k_extent % *groups == 0) q.group_size = *ctx.k_extent / *groups;
        }
        if (q.group_size == 0) q.group_size = -1;
      }
      k_ref = k_ref || refs_any(idx, ctx.kvars);
      n_ref = n_ref || refs_any(idx, ctx.nvars);
    }
    if (k_div > 0 && n_div > 0 && !q.has_g_idx) {
      // one scale per block_n x block_k weights (MLC block-scale fp8, DeepSeek-V3): group_size stays 0
      q.granularity = "per-block";
      q.block_n = n_div;
      q.block_k = k_div;
      q.group_size = 0;
      group_axis = "K";
    } else if (q.group_size > 0 || q.group_size == -1) q.granularity = "per-group";
    else if (k_ref) {
      q.granularity = "per-group";
      q.group_size = 1;
    } else if (n_ref) q.granularity = "per-channel";
    else if (!any_var || !k_ref) q.granularity = "per-tensor";
    if (q.group_size == -1) {
      q.group_size = 0;
      note = "g_idx group size not derivable (scale shape not static)";
    }
  } else if (!ctx.fallback_scale_dtype.empty() && q.storage_dtype.rfind("float8", 0) == 0) {
    q.scale_dtype = ctx.fallback_scale_dtype;
    q.granularity = "per-tensor";
  }
  q.scheme = scheme_name(q, packing_axis);
  return q;
}
}  // namespace

std::string scheme_name(const QuantInfo& q, const std::string& packing_axis) {
  const bool f16 = q.scale_dtype == "float16", bf16 = q.scale_dtype == "bfloat16", f32 = q.scale_dtype == "float32";
  if (q.weight_bits == 4 && q.storage_dtype == "uint32" && q.elems_per_storage == 8 && !q.has_g_idx) {
    if (q.zero_point == "symmetric" && q.group_size == 32 && q.granularity == "per-group") {
      if (f16 && q.weight_layout == "NK") return "q4f16_1";
      if (f16 && q.weight_layout == "KN") return "q4f16_0";
      if (bf16 && q.weight_layout == "NK") return "q4bf16_1";
      if (bf16 && q.weight_layout == "KN") return "q4bf16_0";
      if (f32 && q.weight_layout == "NK") return "q4f32_1";
    }
    if (q.zero_point == "tensor" && q.group_size == 32 && f32 && q.weight_layout == "KN") return "q4f32_0";
  }
  if (q.weight_bits == 8 && q.storage_dtype == "uint32" && q.elems_per_storage == 4 && !q.has_g_idx &&
      q.zero_point == "symmetric" && q.group_size == 32 && q.granularity == "per-group" && f16 &&
      q.weight_layout == "NK")
    return "q8f16_1";
  if (q.weight_bits == 3 && q.zero_point == "symmetric" && q.group_size == 40 && f16 &&
      (q.storage_dtype == "uint32" || q.storage_dtype == "uint16")) {
    if (q.weight_layout == "NK") return "q3f16_1";
    if (q.weight_layout == "KN") return "q3f16_0";
  }
  if (q.weight_bits == 4 && q.zero_point == "tensor" && f16 && q.storage_dtype == "uint32") {
    if (q.has_g_idx || packing_axis == "K") return "autogptq";
    if (packing_axis == "N" && q.group_size == 128) return "q4f16_autoawq";
  }
  if (q.storage_dtype == "float8_e4m3fn" && q.granularity == "per-tensor") return "e4m3_e4m3_f16";
  if (q.storage_dtype == "float8_e4m3fn" && q.granularity == "per-block" && q.zero_point == "none" &&
      (q.scale_dtype == "float32" || q.scale_dtype == "bfloat16"))
    return "fp8_e4m3fn_bf16_block_scale";
  if (q.storage_dtype == "float8_e5m2" && (q.granularity == "per-tensor" || q.granularity == "none"))
    return "e5m2_e5m2_f16";
  return "custom";
}

}  // namespace tenet_cost::xtir
