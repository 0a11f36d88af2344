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
OptDataType reinterpret_dtype(const Expr& e) {
  if (!e.dtype.empty()) return parse_dtype(e.dtype.str());
  for (const auto& a : e.args)
    if (a && a->kind == ExprKind::kString) return parse_dtype(a->name.str());
  return std::nullopt;
}

struct LoadInfo {
  const Expr* load;
  bool under_bitop, under_reinterpret, in_index;
  OptDataType reinterpret_to;
};

struct Walk {
  const QuantContext& ctx;
  std::vector<LoadInfo> loads;
  std::vector<std::int64_t> masks;        // bitwise_and constants outside reinterpret
  bool sub_const = false;                 // decoded - <constant>
  double sub_value = 0;
  bool sub_tensor = false;                // decoded - <load expr>
  bool add_reinterpret = false;           // ... + reinterpret(packed)  (q4f32_0 min)

  void go(const Expr& e, bool bit, bool reint, bool index, const OptDataType& rdt, int depth) {
    if (depth > 256) return;
    if (e.kind == ExprKind::kLoad) {
      loads.push_back({&e, bit, reint, index, rdt});
      for (const auto& a : e.args)
        if (a) go(*a, false, false, true, std::nullopt, depth + 1);
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
    const OptDataType rdt2 = is_reinterpret(e) ? reinterpret_dtype(e) : rdt;
    for (const auto& a : e.args)
      if (a) go(*a, b2, r2, index, rdt2, depth + 1);
  }
};

}  // namespace

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

std::optional<std::int64_t> top_div(const Expr& idx, const std::set<std::string>& vars) {
  const Expr* x = strip_cast(&idx);
  if (x->kind == ExprKind::kBinary && x->bin_op == ir::BinOp::kFloorDiv && x->args.size() == 2 && x->args[0]) {
    auto c = int_const(x->args[1].get());
    if (c && *c > 1 && refs_any(*x->args[0], vars)) return c;
  }
  return std::nullopt;
}

int packing_divisor(std::int64_t c, int storage_bits, int fallback, std::string& note) {
  if (c <= storage_bits) return static_cast<int>(c);
  note = "packed load index divided by " + std::to_string(c) + ", more than the " + std::to_string(storage_bits) +
         " bits of its storage word: elements per word taken from the bit widths (" + std::to_string(fallback) + ")";
  return fallback;
}

std::optional<std::string> load_layout(const Expr& load, const QuantContext& ctx) {
  int pos_k = -1, pos_n = -1;
  for (std::size_t d = 0; d < load.args.size(); ++d) {
    if (!load.args[d]) continue;
    if (pos_k < 0 && refs_any(*load.args[d], ctx.kvars)) pos_k = static_cast<int>(d);
    if (pos_n < 0 && refs_any(*load.args[d], ctx.nvars)) pos_n = static_cast<int>(d);
  }
  if (pos_k < 0 || pos_n < 0) return std::nullopt;
  return std::string(pos_n < pos_k ? "NK" : "KN");
}

namespace {

bool has_load(const Expr& e) {
  std::vector<const Expr*> ls;
  collect_loads(e, ls, true);
  return !ls.empty();
}

}  // namespace

namespace {
QuantInfo detect_impl(const Expr& weight, const QuantContext& ctx, std::string& note, GemmAxis& pack_axis,
                      GemmAxis& group_axis);
}

namespace {

std::optional<std::string> weight_layout(const LoadInfo& w, const QuantContext& ctx) {
  return load_layout(*w.load, ctx);
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
  if (auto bs = block_scaled_operand(weight, ctx)) {  // OCP Microscaling, NVFP4 (quant_mx.cpp)
    note = bs->note;
    return bs->q;
  }
  GemmAxis pack_axis = GemmAxis::kNone, group_axis = GemmAxis::kNone;
  QuantInfo q = detect_impl(weight, ctx, note, pack_axis, group_axis);
  if (pack_axis == GemmAxis::kN && group_axis == GemmAxis::kN) {
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

// The loads of a dequantize expression by role.
struct WeightLoads {
  std::vector<const LoadInfo*> packed;        // integer, under bit operations: a packed weight
  std::vector<const LoadInfo*> packed_scale;  // integer, under bit operations and a reinterpret: a packed scale
  std::vector<const LoadInfo*> float_loads;   // float: scales (or a plain float weight)
  std::vector<const LoadInfo*> fp8_loads;     // float8 (not an exponent dtype): an fp8 weight
  std::vector<const LoadInfo*> int_loads;     // integer without bit operations: an int weight, zero points
  bool index_load = false;                    // an integer load in an index over K: act-order g_idx
};

WeightLoads sort_loads(const Walk& w, const QuantContext& ctx) {
  WeightLoads l;
  for (const auto& li : w.loads) {
    const OptDataType dt = ctx.dtype_of(li.load->name);
    if (li.in_index) {
      // act-order g_idx (`scale[g_idx[k], n]`) runs along K; an indirection by a batch var
      // (MoE's `w[indptr[0, e], ..]`) selects a whole matrix and is no g_idx
      if (is_int_dtype(dt) && refs_any(*li.load, ctx.kvars)) l.index_load = true;
      continue;
    }
    if (is_int_dtype(dt) && li.under_bitop && li.under_reinterpret) l.packed_scale.push_back(&li);
    else if (is_int_dtype(dt) && li.under_bitop) l.packed.push_back(&li);
    else if (is_float8_dtype(dt) && !is_exponent_dtype(dt)) l.fp8_loads.push_back(&li);
    else if (is_float_dtype(dt)) l.float_loads.push_back(&li);
    else if (is_int_dtype(dt) && !li.under_reinterpret) l.int_loads.push_back(&li);
  }
  return l;
}

// A packed integer weight: its bits (from the mask, else from the packing), elements per storage word, layout,
// packing axis and zero point. Precondition: `l.packed` is not empty.
void packed_weight(const Walk& w, const WeightLoads& l, const QuantContext& ctx, QuantInfo& q, std::string& note,
                   GemmAxis& packing_axis) {
  const LoadInfo* wq = largest(l.packed, ctx);
  q.storage_dtype = ctx.dtype_of(wq->load->name);
  int bits = 0;
  for (auto m : w.masks) {
    if (m > 0 && m < std::numeric_limits<std::int64_t>::max() && (m & (m + 1)) == 0) {
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
      q.elems_per_storage = packing_divisor(*c, sbits, q.elems_per_storage, note);
      packing_axis = GemmAxis::kK;
    } else if (auto c2 = top_div(idx, ctx.nvars)) {
      q.elems_per_storage = packing_divisor(*c2, sbits, q.elems_per_storage, note);
      packing_axis = GemmAxis::kN;
    }
  }
  if (pos_k >= 0 && pos_n >= 0) q.weight_layout = pos_n < pos_k ? "NK" : "KN";
  if (packing_axis == GemmAxis::kNone) packing_axis = GemmAxis::kK;
  // Zero point.
  if (l.packed.size() > 1 || w.sub_tensor || (w.add_reinterpret && !l.packed_scale.empty()))
    q.zero_point = ZeroPointKind::kTensor;
  else if (w.sub_const) q.zero_point = ZeroPointKind::kSymmetric;
}

// The weight's storage: packed integer, fp8, or integer cast to float. false for a plain float weight.
bool weight_storage(const Walk& w, const WeightLoads& l, const QuantContext& ctx, QuantInfo& q, std::string& note,
                    GemmAxis& packing_axis) {
  if (!l.packed.empty()) {
    packed_weight(w, l, ctx, q, note, packing_axis);
  } else if (!l.fp8_loads.empty()) {
    const LoadInfo* wq = l.fp8_loads.front();
    q.storage_dtype = ctx.dtype_of(wq->load->name);
    q.weight_bits = 8;
    q.elems_per_storage = 1;
    if (const auto layout = weight_layout(*wq, ctx)) q.weight_layout = *layout;
    packing_axis = GemmAxis::kK;
  } else if (!l.int_loads.empty() && !l.float_loads.empty()) {
    // Weight-only int8 (or any integer storage) without bit operations: `T.Cast("float16",
    // w[i, j]) * scale[..]`; the largest integer buffer is the weight, others are zero points.
    const LoadInfo* wq = largest(l.int_loads, ctx);
    q.storage_dtype = ctx.dtype_of(wq->load->name);
    q.weight_bits = dtype_bits(q.storage_dtype);
    q.elems_per_storage = 1;
    if (const auto layout = weight_layout(*wq, ctx)) q.weight_layout = *layout;
    packing_axis = GemmAxis::kK;
    if (l.int_loads.size() > 1 || w.sub_tensor) q.zero_point = ZeroPointKind::kTensor;
    else if (w.sub_const) q.zero_point = ZeroPointKind::kSymmetric;
    note = "integer weight cast to float and scaled (no bit operations)";
  } else {
    return false;  // plain float weight
  }
  return true;
}

// The granularity of the scale load `scale` (per tensor, channel, group, 2-D block, act-order g_idx) and the
// axis its groups run along. Precondition: the weight's storage is set.
void scale_granularity(const Expr& scale, const QuantContext& ctx, QuantInfo& q, std::string& note,
                       GemmAxis& group_axis) {
  bool k_ref = false, n_ref = false, any_var = false;
  std::int64_t k_div = 0, n_div = 0;  // `k // bk` and `n // bn` in different scale dims: 2-D blocks
  for (std::size_t d = 0; d < scale.args.size(); ++d) {
    const Expr& idx = *scale.args[d];
    std::set<std::string> vs;
    collect_vars(idx, vs);
    any_var = any_var || !vs.empty();
    if (auto g = top_div(idx, ctx.kvars)) {
      q.group_size = *g;
      group_axis = GemmAxis::kK;
      k_div = *g;
    } else if (auto gn = top_div(idx, ctx.nvars)) {
      group_axis = GemmAxis::kN;
      q.group_size = *gn;
      n_div = *gn;
    } else if (has_load(idx) && refs_any(idx, ctx.kvars)) {
      q.has_g_idx = true;
      // g_idx: group size = K / (scale extent along this dim).
      const ir::Buffer* sb = ctx.buffer(scale.name);
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
    q.granularity = QuantGranularity::kBlock;
    q.block_n = n_div;
    q.block_k = k_div;
    q.group_size = 0;
    group_axis = GemmAxis::kK;
  } else if (q.group_size > 0 || q.group_size == -1) q.granularity = QuantGranularity::kGroup;
  else if (k_ref) {
    q.granularity = QuantGranularity::kGroup;
    q.group_size = 1;
  } else if (n_ref) q.granularity = QuantGranularity::kChannel;
  else if (!any_var || !k_ref) q.granularity = QuantGranularity::kTensor;
  if (q.group_size == -1) {
    q.group_size = 0;
    note = "g_idx group size not derivable (scale shape not static)";
  }
}

// walk the expression -> sort its loads -> the weight's storage -> the scale's granularity -> the scheme name.
QuantInfo detect_impl(const Expr& weight, const QuantContext& ctx, std::string& note, GemmAxis& packing_axis,
                      GemmAxis& group_axis) {
  QuantInfo q;
  Walk w{ctx, {}, {}, false, 0.0, false, false};
  w.go(weight, false, false, false, std::nullopt, 0);
  const WeightLoads l = sort_loads(w, ctx);
  packing_axis = GemmAxis::kNone;
  group_axis = GemmAxis::kNone;
  if (!weight_storage(w, l, ctx, q, note, packing_axis)) return q;  // plain float weight
  q.has_g_idx = l.index_load;

  // Scale.
  const Expr* scale = nullptr;
  if (!l.packed_scale.empty()) {
    scale = l.packed_scale.front()->load;
    q.scale_dtype = l.packed_scale.front()->reinterpret_to;
  } else if (!l.float_loads.empty()) {
    scale = l.float_loads.front()->load;
    q.scale_dtype = ctx.dtype_of(scale->name);
  }
  if (scale) {
    scale_granularity(*scale, ctx, q, note, group_axis);
  } else if (ctx.fallback_scale_dtype && is_float8_dtype(q.storage_dtype)) {
    q.scale_dtype = ctx.fallback_scale_dtype;
    q.granularity = QuantGranularity::kTensor;
  }
  q.scheme = scheme_name(q, packing_axis);
  return q;
}
}  // namespace

// ------------------------------------------------------------ extern / intrinsic decodes

namespace {

bool is_extern_call(const Expr& c) {
  return c.kind == ExprKind::kCall && (c.name == "call_extern" || c.name == "call_pure_extern" ||
                                       c.name == "call_llvm_intrin" || c.name == "call_llvm_pure_intrin");
}

/// The callee of `T.call_extern("handle", "decode_i4s_to_f16", ..)`: its first string argument
/// that is no dtype.
std::string extern_callee(const Expr& c) {
  for (const auto& a : c.args)
    if (a && a->kind == ExprKind::kString && a->name != "handle" && dtype_bits(a->name) == 0) return a->name;
  return "";
}

/// BitBLAS decode names: `decode_i4s_to_f16[_scale[_zeros_..]]`, `decode_i2u_to_i8`: the source
/// bits and whether the source is signed (`s`) or unsigned (`u`).
struct NameFacts {
  int bits = 0;
  char sign = 0;  // 's', 'u' or 0
};
NameFacts decode_name_facts(const std::string& name) {
  NameFacts f;
  const auto p = name.find("decode_");
  if (p == std::string::npos) return f;
  std::size_t i = p + 7;
  if (i < name.size() && (name[i] == 'i' || name[i] == 'u')) ++i;
  else return f;
  int bits = 0, digits = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 2) {
    bits = bits * 10 + (name[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || bits == 0 || bits > 32) return f;
  f.bits = bits;
  if (i < name.size() && (name[i] == 's' || name[i] == 'u')) f.sign = name[i];
  return f;
}

/// The value after `"key":` in an attribute's text (a quoted string without its quotes, a
/// `{..}` group, or the token up to `,`/`}`), searched from `from`; "" when absent.
std::string attr_value(const std::string& text, const std::string& key, std::size_t from = 0,
                       std::size_t to = std::string::npos) {
  const std::string pat = "\"" + key + "\"";
  std::size_t p = text.find(pat, from);
  if (p == std::string::npos || (to != std::string::npos && p >= to)) return "";
  p += pat.size();
  while (p < text.size() && (text[p] == ' ' || text[p] == ':')) ++p;
  if (p >= text.size()) return "";
  if (text[p] == '"') {
    const auto q = text.find('"', p + 1);
    return q == std::string::npos ? "" : text.substr(p + 1, q - p - 1);
  }
  if (text[p] == '{') {
    int depth = 0;
    for (std::size_t q = p; q < text.size(); ++q) {
      if (text[q] == '{') ++depth;
      if (text[q] == '}' && --depth == 0) return text.substr(p, q - p + 1);
    }
    return "";
  }
  std::size_t q = p;
  while (q < text.size() && text[q] != ',' && text[q] != '}') ++q;
  std::string v = text.substr(p, q - p);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

std::optional<std::int64_t> attr_int(const std::string& v) {
  if (v.empty() || v.size() > 12) return std::nullopt;
  std::size_t i = v[0] == '-' ? 1 : 0;
  if (i == v.size()) return std::nullopt;
  std::int64_t x = 0;
  for (; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return std::nullopt;
    x = x * 10 + (v[i] - '0');
  }
  return v[0] == '-' ? -x : x;
}

bool attr_true(const std::string& v) { return v == "True" || v == "true" || v == "T.bool(True)" || v == "1"; }

/// The entry of `dequantize_info` for this decode: the only one, or the one whose
/// `decode_block` names the writing block (a scheduled block keeps it as a prefix:
/// `B_decode` -> `B_decode_local_o`) or the decoded buffer.
std::string dequantize_entry(const std::string& info, const std::string& block, const std::string& buffer) {
  std::vector<std::string> entries;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < info.size(); ++i) {
    if (info[i] == '{') {
      if (++depth == 2) start = i;
    } else if (info[i] == '}') {
      if (depth-- == 2) entries.push_back(info.substr(start, i - start + 1));
    }
  }
  if (entries.size() == 1) return entries[0];
  for (const auto& e : entries) {
    const std::string db = attr_value(e, "decode_block");
    if (!db.empty() && (block.rfind(db, 0) == 0 || buffer.rfind(db, 0) == 0)) return e;
  }
  return "";
}

/// Dims of `region` whose min references any of `vars`.
std::vector<std::size_t> region_dims_over(const ir::BufferRegion& region, const std::set<std::string>& vars) {
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < region.region.size(); ++d)
    if (region.region[d].min && refs_any(*region.region[d].min, vars)) out.push_back(d);
  return out;
}

std::string fact_list(const std::vector<std::pair<std::string, std::int64_t>>& facts) {
  std::string s;
  for (const auto& [src, v] : facts) s += (s.empty() ? "" : ", ") + src + " " + std::to_string(v);
  return s;
}

}  // namespace

/// The first source's value; a note part naming every source, and whether they disagree.
std::int64_t settle(const std::string& what, const std::vector<std::pair<std::string, std::int64_t>>& facts,
                    std::string& note) {
  if (facts.empty()) return 0;
  bool agree = true;
  for (const auto& f : facts) agree = agree && f.second == facts.front().second;
  note += "; " + what + " " + std::to_string(facts.front().second) + " from " + facts.front().first;
  if (facts.size() > 1)
    note += agree ? " (agrees: " + fact_list(facts) + ")" : " (DISAGREE: " + fact_list(facts) + "; the first is used)";
  return facts.front().second;
}

std::optional<ExternDecode> extern_decode(const FuncIndex& fi, const std::string& decoded, const Expr& gemm_load,
                                          const QuantContext& ctx) {
  const ir::Block* w = nullptr;
  const Expr* call = nullptr;
  for (const auto& cs : fi.calls) {
    if (!cs.block || !is_extern_call(*cs.call)) continue;
    if (std::any_of(cs.block->writes.begin(), cs.block->writes.end(),
                    [&](const ir::BufferRegion& r) { return r.buffer == decoded; })) {
      w = cs.block;
      call = cs.call;
      break;
    }
  }
  if (!w) return std::nullopt;
  const ir::BufferRegion* out_region = nullptr;
  for (const auto& r : w->writes)
    if (r.buffer == decoded) out_region = &r;

  // The packed weight and the scale / zero-point parameters the decode reads (through copies).
  std::set<std::string> roots;
  for (const auto& r : w->reads)
    if (r.buffer != decoded && !region_roots(fi, r.buffer, w, 0, roots)) return std::nullopt;
  std::string packed, scale;
  std::int64_t best = -1;
  int others = 0;
  for (const auto& b : roots) {
    if (!is_int_dtype(ctx.dtype_of(b))) continue;
    const std::int64_t n = static_elems(ctx.buffer(b)).value_or(0);
    if (n > best) {
      best = n;
      packed = b;
    }
  }
  if (packed.empty()) return std::nullopt;
  for (const auto& b : roots) {
    if (b == packed) continue;
    if (scale.empty() && is_float_dtype(ctx.dtype_of(b))) scale = b;
    else ++others;
  }

  ExternDecode out;
  out.packed = packed;
  QuantInfo& q = out.q;
  const std::string callee = extern_callee(*call);
  std::string& note = out.note;
  note = "weight decoded by extern " + (callee.empty() ? call->name.str() : callee) + " in block " + w->name +
         " from " + packed + " (" + to_string(ctx.dtype_of(packed)) + ")";
  q.storage_dtype = ctx.dtype_of(packed);
  const int sbits = dtype_bits(q.storage_dtype);

  std::string entry;
  if (auto it = fi.func->attrs.find("dequantize_info"); it != fi.func->attrs.end())
    entry = dequantize_entry(it->second, w->name, decoded);
  const std::string src_fmt = entry.empty() ? "" : attr_value(entry, "source_format");
  const NameFacts nf = decode_name_facts(callee);

  // Bits: the attribute, the extern's name, the regions' sizes (decoded / packed elements).
  std::vector<std::pair<std::string, std::int64_t>> bits, group;
  if (auto b = attr_int(attr_value(src_fmt, "bits"))) bits.emplace_back("dequantize_info", *b);
  if (nf.bits > 0) bits.emplace_back("the extern's name", nf.bits);
  std::optional<std::int64_t> ratio;
  if (out_region) {
    std::int64_t packed_elems = 0;
    for (const auto& r : w->reads)
      if (r.buffer != decoded && is_int_dtype(ctx.dtype_of(r.buffer)))
        if (auto e = region_elems(r); e && *e > packed_elems) packed_elems = *e;
    const auto de = region_elems(*out_region);
    if (packed_elems > 0 && de && *de % packed_elems == 0) ratio = *de / packed_elems;
  }
  if (ratio && *ratio > 0 && sbits % *ratio == 0)
    bits.emplace_back("the regions' sizes (" + std::to_string(*ratio) + " per " + to_string(q.storage_dtype) + ")",
                      sbits / *ratio);
  const std::int64_t nbits = settle("bits", bits, note);
  q.weight_bits = sbits;
  if (bits.empty())
    note += "; bits not recoverable (no dequantize_info, decode name or region sizes): the storage width is used";
  else if (nbits <= 0 || nbits > sbits)
    note += "; bits " + std::to_string(nbits) + " do not fit the " + to_string(q.storage_dtype) +
            " storage: its width is used";
  else q.weight_bits = static_cast<int>(nbits);
  q.elems_per_storage = sbits / q.weight_bits;

  // Layout from the GEMM's read of the decoded buffer.
  int pos_k = -1, pos_n = -1;
  for (std::size_t d = 0; d < gemm_load.args.size(); ++d) {
    if (!gemm_load.args[d]) continue;
    if (pos_k < 0 && refs_any(*gemm_load.args[d], ctx.kvars)) pos_k = static_cast<int>(d);
    if (pos_n < 0 && refs_any(*gemm_load.args[d], ctx.nvars)) pos_n = static_cast<int>(d);
  }
  if (pos_k >= 0 && pos_n >= 0) q.weight_layout = pos_n < pos_k ? "NK" : "KN";

  // Scale and group: the attribute, the scale's shape along the decode's K dim.
  if (auto g = attr_int(attr_value(entry, "group_size")); g && *g > 0) group.emplace_back("dequantize_info", *g);
  bool k_scale = false, n_scale = false;
  if (!scale.empty()) {
    q.scale_dtype = ctx.dtype_of(scale);
    const ir::BufferRegion* sr = nullptr;
    for (const auto& r : w->reads)
      if (r.buffer == scale) sr = &r;
    const ir::Buffer* sb = ctx.buffer(scale);
    if (sr && out_region && pos_k >= 0 && static_cast<std::size_t>(pos_k) < out_region->region.size()) {
      std::set<std::string> kv, nv;
      if (out_region->region[pos_k].min) collect_vars(*out_region->region[pos_k].min, kv);
      if (pos_n >= 0 && static_cast<std::size_t>(pos_n) < out_region->region.size() && out_region->region[pos_n].min)
        collect_vars(*out_region->region[pos_n].min, nv);
      const auto kd = region_dims_over(*sr, kv);
      k_scale = !kd.empty();
      n_scale = !region_dims_over(*sr, nv).empty();
      if (kd.size() == 1 && sb && kd[0] < sb->shape.size() && ctx.k_extent) {
        const auto groups = int_const(sb->shape[kd[0]].get());
        if (groups && *groups > 0 && *ctx.k_extent % *groups == 0)
          group.emplace_back("the scale's shape along K (" + std::to_string(*groups) + " groups of K " +
                                 std::to_string(*ctx.k_extent) + ")",
                             *ctx.k_extent / *groups);
      }
    }
  }
  const std::int64_t g = settle("group size", group, note);
  if (scale.empty()) {
    q.granularity = QuantGranularity::kNone;
    note += "; no scale parameter read by the decode";
  } else if (g > 0 && (!ctx.k_extent || g < *ctx.k_extent)) {
    q.granularity = QuantGranularity::kGroup;
    q.group_size = g;
  } else if (g > 0 || n_scale || (!k_scale && !group.empty())) {
    q.granularity = QuantGranularity::kChannel;
  } else if (!k_scale) {
    q.granularity = QuantGranularity::kTensor;
  } else {
    q.granularity = QuantGranularity::kGroup;
    note += "; group size not recoverable (scale indexed along K, no static shape or dequantize_info)";
  }

  // Zero point: a zeros tensor (attribute or another parameter), else signed = symmetric.
  const std::string fmt = attr_value(src_fmt, "format");
  if (attr_true(attr_value(entry, "with_zeros")) || others > 0) {
    q.zero_point = ZeroPointKind::kTensor;
  } else if (fmt == "int" || nf.sign == 's') {
    q.zero_point = ZeroPointKind::kSymmetric;
    note +=
        std::string("; signed source (") + (fmt == "int" ? "dequantize_info format int" : "the extern's name") + ")";
  } else if (fmt == "uint" || nf.sign == 'u') {
    note += std::string("; unsigned source without zero point (") +
            (fmt == "uint" ? "dequantize_info format uint" : "the extern's name") + ")";
  }
  q.scheme = scheme_name(q, GemmAxis::kK);
  return out;
}

std::string scheme_name(const QuantInfo& q, GemmAxis packing_axis) {
  const DataType u32 = DataType::UInt(32), e4m3 = DataType::Float(8, "e4m3fn");
  const bool f16 = q.scale_dtype == DataType::Float(16), bf16 = q.scale_dtype == DataType::BFloat16(),
             f32 = q.scale_dtype == DataType::Float(32);
  if (q.weight_bits == 4 && q.storage_dtype == u32 && q.elems_per_storage == 8 && !q.has_g_idx) {
    if (q.zero_point == ZeroPointKind::kSymmetric && q.group_size == 32 && q.granularity == QuantGranularity::kGroup) {
      if (f16 && q.weight_layout == "NK") return "q4f16_1";
      if (f16 && q.weight_layout == "KN") return "q4f16_0";
      if (bf16 && q.weight_layout == "NK") return "q4bf16_1";
      if (bf16 && q.weight_layout == "KN") return "q4bf16_0";
      if (f32 && q.weight_layout == "NK") return "q4f32_1";
    }
    if (q.zero_point == ZeroPointKind::kTensor && q.group_size == 32 && f32 && q.weight_layout == "KN")
      return "q4f32_0";
  }
  if (q.weight_bits == 8 && q.storage_dtype == u32 && q.elems_per_storage == 4 && !q.has_g_idx &&
      q.zero_point == ZeroPointKind::kSymmetric && q.group_size == 32 && q.granularity == QuantGranularity::kGroup &&
      f16 && q.weight_layout == "NK")
    return "q8f16_1";
  if (q.weight_bits == 3 && q.zero_point == ZeroPointKind::kSymmetric && q.group_size == 40 && f16 &&
      (q.storage_dtype == u32 || q.storage_dtype == DataType::UInt(16))) {
    if (q.weight_layout == "NK") return "q3f16_1";
    if (q.weight_layout == "KN") return "q3f16_0";
  }
  if (q.weight_bits == 4 && q.zero_point == ZeroPointKind::kTensor && f16 && q.storage_dtype == u32) {
    if (q.has_g_idx || packing_axis == GemmAxis::kK) return "autogptq";
    if (packing_axis == GemmAxis::kN && q.group_size == 128) return "q4f16_autoawq";
  }
  if (q.storage_dtype == e4m3 && q.granularity == QuantGranularity::kTensor) return "e4m3_e4m3_f16";
  if (q.storage_dtype == e4m3 && q.granularity == QuantGranularity::kBlock && q.zero_point == ZeroPointKind::kNone &&
      (f32 || bf16))
    return "fp8_e4m3fn_bf16_block_scale";
  if (q.storage_dtype == DataType::Float(8, "e5m2") &&
      (q.granularity == QuantGranularity::kTensor || q.granularity == QuantGranularity::kNone))
    return "e5m2_e5m2_f16";
  return "custom";
}

}  // namespace tenet_cost::xtir
