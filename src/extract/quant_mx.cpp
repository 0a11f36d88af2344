// Block-scaled low-precision operands: OCP Microscaling (MXFP4/6/8, MXINT8: one e8m0 exponent per 32 elements
// along K) and NVFP4 (e2m1 elements, an e4m3 scale per 16 along K and an fp32 scale per tensor), read from the
// dequantize expression as TVM prints it (docs/extract.md "Microscaling and NVFP4"):
//  * elements: a float4 / float6 / float8 load cast up (a buffer of that dtype; lanes are a vector access), an
//    integer word under shifts and masks reinterpreted as one (`T.reinterpret("float4_e2m1fn", ..)`), or, beside a
//    shared exponent, an int8 load (MXINT8); the largest such buffer when several (the others are scales);
//  * the shared exponent: a float8_e8m0fnu load cast up, or an integer e in an exponent position:
//    `T.ldexp(x, e - 127)`, `T.exp2(e - 127)`, `2 ** (e - 127)`, `T.reinterpret("float32", e << 23)` (bfloat16: 7);
//  * the block: the divisor b of `k // b` in the scale's index; a float scale indexed by constants only, beside the
//    block scale, is the second-level per-tensor scale (NVFP4).
#include <algorithm>

#include "extract/internal.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;

namespace {

/// A load whose value enters the operand (its indices are addresses and are not walked).
struct ValueLoad {
  const Expr* load;
  OptDataType dtype;           // the buffer's
  OptDataType reinterpret_to;  // the innermost T.reinterpret above it (nullopt: none)
  bool exponent;               // in an exponent position
};

bool is_number(const Expr* e, std::int64_t v) {
  e = strip_cast(e);
  if (!e) return false;
  if (e->kind == ExprKind::kInt) return e->int_value == v;
  return e->kind == ExprKind::kFloat && e->float_value == static_cast<double>(v);
}

/// `T.reinterpret("float32", x << 23)`: x lands in the float's exponent field (bfloat16: x << 7).
bool shifts_into_exponent(const Expr& reinterpret, const OptDataType& to) {
  const int mantissa = to == DataType::Float(32) ? 23 : to == DataType::BFloat16() ? 7 : 0;
  if (mantissa == 0 || reinterpret.args.empty() || !reinterpret.args[0]) return false;
  const Expr* x = strip_cast(reinterpret.args[0].get());
  const bool shl = (x->kind == ExprKind::kBinary && x->bin_op == ir::BinOp::kShl) ||
                   (x->kind == ExprKind::kCall && x->name == "shift_left");
  return shl && x->args.size() == 2 && is_number(x->args[1].get(), mantissa);
}

void value_loads(const Expr& e, const OptDataType& reinterpret_to, bool exponent, const QuantContext& ctx,
                 std::vector<ValueLoad>& out, int depth) {
  if (depth > 256) return;
  if (e.kind == ExprKind::kLoad) {
    out.push_back({&e, ctx.dtype_of(e.name), reinterpret_to, exponent});
    return;
  }
  auto arg = [&](std::size_t i, const OptDataType& to, bool x) {
    if (i < e.args.size() && e.args[i]) value_loads(*e.args[i], to, x, ctx, out, depth + 1);
  };
  if (e.kind == ExprKind::kCall) {
    const std::size_t n = e.args.size();
    if (e.name == "reinterpret") {
      const OptDataType to = parse_dtype(e.dtype.str());
      const bool field = shifts_into_exponent(e, to);
      for (std::size_t i = 0; i < n; ++i) arg(i, to, exponent || field);
      return;
    }
    if (e.name == "ldexp" && n == 2) {
      arg(0, reinterpret_to, exponent);
      arg(1, reinterpret_to, true);
      return;
    }
    if ((e.name == "exp2" && n == 1) || (e.name == "pow" && n == 2 && is_number(e.args[0].get(), 2))) {
      arg(n - 1, reinterpret_to, true);
      return;
    }
  }
  for (std::size_t i = 0; i < e.args.size(); ++i) arg(i, reinterpret_to, exponent);
}

BlockElement element_of(const DataType& t) {
  if (t.is_int() && t.bits == 8) return BlockElement::kInt8;
  if (t.format == "e2m1fn") return BlockElement::kFp4E2M1;
  if (t.format == "e2m3fn") return BlockElement::kFp6E2M3;
  if (t.format == "e3m2fn") return BlockElement::kFp6E3M2;
  if (t.format == "e4m3fn") return BlockElement::kFp8E4M3;
  if (t.format == "e5m2") return BlockElement::kFp8E5M2;
  return BlockElement::kOther;
}

/// The scheme of a block-scaled weight `w` with activations `a` (null: unquantized activations).
std::string block_scheme(const BlockScaled& w, const BlockScaled* a) {
  using E = BlockElement;
  using S = BlockScaling;
  if (!a) {
    if (w.element == E::kFp4E2M1 && w.scaling == S::kMx) return "w4a16-mxfp4";
    if (w.element == E::kFp4E2M1 && w.scaling == S::kNvfp4) return "w4a16-nvfp4";
    return "custom";
  }
  if (w.scaling == S::kNvfp4 && a->scaling == S::kNvfp4) return a->element == E::kFp4E2M1 ? "nvfp4" : "custom";
  if (w.scaling != S::kMx || a->scaling != S::kMx) return "custom";
  if (w.element == E::kFp4E2M1 && a->element == E::kFp8E4M3) return "w4a8-mxfp4-mxfp8";
  if (w.element != a->element) return "custom";
  switch (w.element) {
    case E::kFp4E2M1: return "mxfp4";
    case E::kFp6E2M3: return "mxfp6-e2m3";
    case E::kFp6E3M2: return "mxfp6-e3m2";
    case E::kFp8E4M3: return "mxfp8-e4m3";
    case E::kFp8E5M2: return "mxfp8-e5m2";
    case E::kInt8: return "mxint8";
    case E::kOther: break;
  }
  return "custom";
}

const ValueLoad* largest_of(const std::vector<const ValueLoad*>& v, const QuantContext& ctx) {
  const auto by_size = [&](const ValueLoad* a, const ValueLoad* b) {
    return static_elems(ctx.buffer(a->load->name)).value_or(0) < static_elems(ctx.buffer(b->load->name)).value_or(0);
  };
  const auto it = std::max_element(v.begin(), v.end(), by_size);  // the first of equals
  return it == v.end() ? nullptr : *it;
}

/// The loads of an operand sorted by role.
struct Roles {
  std::vector<const ValueLoad*> exponents, packed, low_floats, ints, floats;
};

Roles roles_of(const std::vector<ValueLoad>& loads) {
  Roles r;
  for (const auto& l : loads) {
    const OptDataType& t = l.dtype;
    if (!t) continue;
    const OptDataType& to = l.reinterpret_to;
    if (t->is_exponent_only() || (l.exponent && t->is_int())) r.exponents.push_back(&l);
    else if (t->is_int() && to && to->is_low_float() && !to->is_exponent_only()) r.packed.push_back(&l);
    else if (t->is_low_float()) r.low_floats.push_back(&l);
    else if (t->is_int() && t->bits == 8 && !to) r.ints.push_back(&l);  // MXINT8 elements
    else if (t->is_float() && !to) r.floats.push_back(&l);
  }
  return r;
}

/// The element facts of the chosen element load `el` (packed: reinterpreted from an integer word).
void element_facts(const ValueLoad& el, bool packed, const QuantContext& ctx, BlockScaled& out) {
  QuantInfo& q = out.q;
  const DataType et = *(packed ? el.reinterpret_to : el.dtype);
  const DataType st = *el.dtype;
  out.element = element_of(et);
  q.weight_bits = et.bits;
  DataType scalar = et;
  scalar.lanes = 1;
  if (packed) {
    std::string divisor_note;
    q.storage_dtype = el.dtype;
    q.elems_per_storage = st.bits >= et.bits ? st.bits / et.bits : 1;
    for (const auto& idx : el.load->args)
      if (const auto c = idx ? top_div(*idx, ctx.kvars) : std::nullopt)
        q.elems_per_storage = packing_divisor(*c, st.bits, q.elems_per_storage, divisor_note);
    out.note =
        to_string(scalar) + " elements (" + std::to_string(q.elems_per_storage) + " per " + to_string(el.dtype) + ")";
    if (!divisor_note.empty()) out.note += "; " + divisor_note;
  } else {
    q.storage_dtype = scalar;  // lanes (float4_e2m1fnx2) are a vector access of 4-bit elements
    out.note = to_string(scalar) + " elements" + (st.lanes > 1 ? " (read as " + to_string(el.dtype) + " vectors)" : "");
  }
  q.weight_layout = load_layout(*el.load, ctx).value_or("");
}

/// The scale facts: the block along K (or N), the granularity; the second-level per-tensor scale.
void scale_facts(const Roles& r, const ValueLoad* el, const QuantContext& ctx, BlockScaled& out) {
  QuantInfo& q = out.q;
  const ValueLoad* scale = r.exponents.empty() ? nullptr : r.exponents.front();
  std::vector<const ValueLoad*> others;  // scales that are no exponent: low floats besides the element, floats
  for (const auto* l : r.low_floats)
    if (l != el) others.push_back(l);
  others.insert(others.end(), r.floats.begin(), r.floats.end());
  for (const auto* l : others)
    if (!scale && std::any_of(l->load->args.begin(), l->load->args.end(),
                              [&](const ir::ExprPtr& i) { return i && top_div(*i, ctx.kvars); }))
      scale = l;
  if (!scale) {
    out.note += ", no block scale";
    return;
  }
  const DataType e8m0 = DataType::Float(8, "e8m0fnu");
  q.scale_dtype = r.exponents.empty() ? scale->dtype : e8m0;
  bool k_ref = false, n_ref = false;
  std::int64_t n_div = 0;
  for (const auto& idx : scale->load->args) {
    if (!idx) continue;
    if (const auto g = top_div(*idx, ctx.kvars)) q.group_size = *g;
    else if (const auto gn = top_div(*idx, ctx.nvars)) n_div = *gn;
    k_ref = k_ref || refs_any(*idx, ctx.kvars);
    n_ref = n_ref || refs_any(*idx, ctx.nvars);
  }
  q.granularity = q.group_size > 0 || k_ref ? QuantGranularity::kGroup
                  : n_ref                   ? QuantGranularity::kChannel
                                            : QuantGranularity::kTensor;
  if (k_ref && q.group_size == 0) q.group_size = 1;
  const std::string what = r.exponents.empty() ? "a " + to_string(scale->dtype) + " scale" : "an e8m0 exponent";
  const std::string stored = !r.exponents.empty() && scale->dtype != e8m0
                                 ? " (" + to_string(scale->dtype) + " in an exponent position: 2^(e - 127))"
                                 : "";
  if (q.group_size > 0) out.note += ", " + what + stored + " per " + std::to_string(q.group_size) + " along K";
  else out.note += ", " + what + stored + " " + to_string(q.granularity);
  if (n_div > 0) out.note += " (and per " + std::to_string(n_div) + " along N)";
  for (const auto* l : others) {
    std::set<std::string> vars;
    for (const auto& idx : l->load->args)
      if (idx) collect_vars(*idx, vars);
    if (l != scale && vars.empty() && is_float_dtype(l->dtype)) {
      q.tensor_scale_dtype = l->dtype;
      out.note += " and a " + to_string(l->dtype) + " scale per tensor";
      break;
    }
  }
}

}  // namespace

std::optional<BlockScaled> block_scaled_operand(const Expr& operand, const QuantContext& ctx) {
  std::vector<ValueLoad> loads;
  value_loads(operand, std::nullopt, false, ctx, loads, 0);
  const Roles r = roles_of(loads);
  const bool narrow = !r.packed.empty() || std::any_of(r.low_floats.begin(), r.low_floats.end(),
                                                       [](const auto* l) { return l->dtype->bits < 8; });
  if (r.exponents.empty() && !narrow) return std::nullopt;
  const bool packed = !r.packed.empty();
  const ValueLoad* el = largest_of(packed ? r.packed : !r.low_floats.empty() ? r.low_floats : r.ints, ctx);
  if (!el) return std::nullopt;
  BlockScaled out;
  element_facts(*el, packed, ctx, out);
  scale_facts(r, el, ctx, out);
  const QuantInfo& q = out.q;
  if (!r.exponents.empty() && q.group_size == 32 && q.granularity == QuantGranularity::kGroup)
    out.scaling = BlockScaling::kMx;
  else if (r.exponents.empty() && out.element == BlockElement::kFp4E2M1 &&
           q.scale_dtype == DataType::Float(8, "e4m3fn") && q.group_size == 16 &&
           q.granularity == QuantGranularity::kGroup)
    out.scaling = BlockScaling::kNvfp4;
  out.note = "block-scaled: " + out.note +
             (out.scaling == BlockScaling::kMx      ? " (OCP MX)"
              : out.scaling == BlockScaling::kNvfp4 ? " (NVFP4)"
                                                    : " (neither OCP MX: e8m0 per 32, nor NVFP4: e4m3 per 16)");
  if (out.scaling == BlockScaling::kNvfp4 && !q.tensor_scale_dtype)
    out.note += "; no per-tensor scale found (NVFP4 has one)";
  out.q.scheme = block_scheme(out, nullptr);
  if (out.q.scheme == "custom") out.note += "; no named scheme for these elements and scales alone";
  return out;
}

void activation_format(QuantInfo& q, bool weight_is_b, const Expr& a, const Expr& b, QuantContext ctx,
                       const std::set<std::string>& a_vars, const std::set<std::string>& b_vars, std::string& note) {
  const OptDataType& st = q.scale_dtype;
  if (q.weight_bits == 0 || !st || !st->is_low_float()) return;  // a block-scaled weight has a low-float scale
  ctx.nvars = weight_is_b ? b_vars : a_vars;
  const auto w = block_scaled_operand(weight_is_b ? b : a, ctx);
  if (!w) return;
  ctx.nvars = weight_is_b ? a_vars : b_vars;
  const auto act = block_scaled_operand(weight_is_b ? a : b, ctx);
  if (!act) return;
  q.scheme = block_scheme(*w, &*act);
  note += "; activations " + act->note;
}

}  // namespace tenet_cost::xtir
