// Integer GEMMs without a dequantize block (docs/extract.md "Integer GEMMs"): int8 x int8 -> int32 (w8a8) kernels
// multiply the stored integers; the weight's bits are its dtype's, and the scales live in a fixed-point requantize
// of the accumulator (QNN: `T.q_multiply_shift_per_axis(acc, multiplier[c], lshift[c], rshift[c], 31, ..)`,
// `T.q_multiply_shift(acc, multiplier, 31, shift)`, or the explicit `T.shift_right(T.Cast("int64", acc) * m[c] +
// round[c], shift[c])`) or a float rescale (`T.Cast("float32", acc) * scale[c]`): a multiplier indexed by the
// output channel is per-channel, one without the channel per-tensor.
#include <algorithm>

#include "extract/tir_axes.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;

namespace {

/// What scales the accumulator: per channel, per tensor, or nothing found.
struct Rescale {
  QuantGranularity granularity = QuantGranularity::kNone;
  std::string how;    // "q_multiply_shift_per_axis", ...
  OptDataType dtype;  // the multiplier's dtype
};

bool uses_any(const Expr& e, const std::set<std::string>& vars) {
  std::set<std::string> vs;
  collect_vars(e, vs);
  return std::any_of(vs.begin(), vs.end(), [&](const auto& v) { return vars.count(v) > 0; });
}

/// Does `e` load one of the tracked buffers (the accumulator or a value derived from it)?
bool reads_tracked(const Expr& e, const std::map<std::string, std::vector<std::size_t>>& tracked) {
  std::vector<const Expr*> ls;
  collect_loads(e, ls, false);
  return std::any_of(ls.begin(), ls.end(), [&](const Expr* l) { return tracked.count(l->name) > 0; });
}

/// The multiplier `m` of a rescale: per channel when it loads a buffer with a channel var in its index.
void judge_multiplier(const Expr& m, const std::set<std::string>& channel, const FuncIndex& fi, const std::string& how,
                      Rescale& r) {
  const Expr* x = strip_cast(&m);
  if (!x) return;
  Rescale found;
  found.how = how;
  if (x->kind == ExprKind::kLoad) {
    found.dtype = fi.dtype_of(x->name);
    found.granularity = uses_any(*x, channel) ? QuantGranularity::kChannel : QuantGranularity::kTensor;
  } else if (x->kind == ExprKind::kInt || x->kind == ExprKind::kFloat) {
    found.dtype = parse_dtype(x->dtype.str());
    found.granularity = QuantGranularity::kTensor;
  } else {
    return;
  }
  if (r.granularity != QuantGranularity::kChannel) r = found;  // the first per-channel rescale wins
}

/// Rescales of a tracked value inside `e`.
void find_rescales(const Expr& e, const std::map<std::string, std::vector<std::size_t>>& tracked,
                   const std::set<std::string>& channel, const FuncIndex& fi, Rescale& r, int depth) {
  if (depth > 64) return;
  if (e.kind == ExprKind::kCall && e.args.size() >= 2 && e.args[0] && e.args[1] && reads_tracked(*e.args[0], tracked)) {
    if (e.name == "q_multiply_shift_per_axis" || e.name == "q_multiply_shift" || e.name == "fixed_point_multiply")
      judge_multiplier(*e.args[1], channel, fi, e.name.str(), r);
    if (e.name == "shift_right") {  // shift_right(Cast("int64", acc) * m + round, shift)
      const Expr* v = strip_cast(e.args[0].get());
      if (v && v->kind == ExprKind::kBinary && v->bin_op == ir::BinOp::kAdd && v->args[0])
        v = strip_cast(v->args[0].get());
      if (v && v->kind == ExprKind::kBinary && v->bin_op == ir::BinOp::kMul && v->args.size() == 2)
        for (int s = 0; s < 2; ++s)
          if (v->args[s] && v->args[1 - s] && reads_tracked(*v->args[s], tracked) &&
              !reads_tracked(*v->args[1 - s], tracked))
            judge_multiplier(*v->args[1 - s], channel, fi, "int64 multiply and shift", r);
    }
  }
  if (e.kind == ExprKind::kBinary && e.bin_op == ir::BinOp::kMul && e.args.size() == 2 && e.args[0] && e.args[1])
    for (int s = 0; s < 2; ++s) {  // Cast("float32", acc) * scale
      const Expr* a = e.args[s].get();
      if (a->kind == ExprKind::kCast && is_float_dtype(a->dtype) && reads_tracked(*a, tracked) &&
          !reads_tracked(*e.args[1 - s], tracked) && is_float_dtype(expr_type(*e.args[1 - s], fi)))
        judge_multiplier(*e.args[1 - s], channel, fi, "float rescale", r);
    }
  for (const auto& a : e.args)
    if (a) find_rescales(*a, tracked, channel, fi, r, depth + 1);
}

/// The channel vars of the tracked loads in `e`: the vars of their channel dims.
std::set<std::string> channel_vars(const Expr& e, const std::map<std::string, std::vector<std::size_t>>& tracked) {
  std::set<std::string> out;
  std::vector<const Expr*> ls;
  collect_loads(e, ls, false);
  for (const Expr* l : ls)
    if (auto it = tracked.find(l->name); it != tracked.end())
      for (std::size_t d : it->second)
        if (d < l->args.size() && l->args[d]) collect_vars(*l->args[d], out);
  return out;
}

/// Dims of `indices` (a store's, or a region's mins) that use a channel var.
template <class Get>
std::vector<std::size_t> channel_dims(std::size_t n, Get get, const std::set<std::string>& channel) {
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < n; ++d)
    if (const Expr* i = get(d); i && uses_any(*i, channel)) out.push_back(d);
  return out;
}

/// Follows the accumulator through its consumers (stores reading it, blocks copying its regions), the output
/// channel's dims carried along, and reports the first rescale found.
Rescale accumulator_rescale(const FuncIndex& fi, const std::string& acc, std::vector<std::size_t> acc_channel_dims,
                            const ir::Block* gemm_block) {
  std::map<std::string, std::vector<std::size_t>> tracked{{acc, std::move(acc_channel_dims)}};
  Rescale r;
  for (int round = 0; round < 16; ++round) {
    const std::size_t before = tracked.size();
    for (const auto& site : fi.stores) {
      if (site.in_init || site.block == gemm_block || !site.store->value || tracked.count(site.store->buffer)) continue;
      if (!reads_tracked(*site.store->value, tracked)) continue;
      const std::set<std::string> ch = channel_vars(*site.store->value, tracked);
      find_rescales(*site.store->value, tracked, ch, fi, r, 0);
      if (r.granularity == QuantGranularity::kChannel) return r;
      const auto& idx = site.store->indices;
      tracked[site.store->buffer] = channel_dims(
          idx.size(), [&](std::size_t d) { return idx[d].get(); }, ch);
    }
    for (const ir::Block* b : fi.blocks) {  // region copies (a fragment store to shared memory)
      if (b == gemm_block || b->writes.size() != 1 || tracked.count(b->writes[0].buffer) ||
          fi.writers.count(b->writes[0].buffer))  // a buffer a store writes: the store loop follows it
        continue;
      for (const auto& rd : b->reads) {
        auto it = tracked.find(rd.buffer);
        if (it == tracked.end()) continue;
        std::set<std::string> ch;
        for (std::size_t d : it->second)
          if (d < rd.region.size() && rd.region[d].min) collect_vars(*rd.region[d].min, ch);
        const auto& wr = b->writes[0].region;
        tracked[b->writes[0].buffer] = channel_dims(
            wr.size(), [&](std::size_t d) { return wr[d].min.get(); }, ch);
        break;
      }
    }
    if (tracked.size() == before) break;
  }
  return r;
}

}  // namespace

OptDataType expr_type(const Expr& e, const FuncIndex& fi) {
  const Expr* x = strip_cast(&e);
  if (e.kind == ExprKind::kCast) return parse_dtype(e.dtype.str());
  if (x && x->kind == ExprKind::kLoad) return fi.dtype_of(x->name);
  return x ? parse_dtype(x->dtype.str()) : std::nullopt;
}

void integer_weight_quant(const FuncIndex& fi, const std::string& acc,
                          const std::vector<std::size_t>& channel_dims_of_acc, const ir::Block* gemm_block,
                          Workload& w) {
  if (w.weight_operand == WeightOperand::kNone || w.quant.weight_bits > 0) return;
  const OptDataType& wd = w.weight_operand == WeightOperand::kA ? w.dtype_a : w.dtype_b;
  const OptDataType& ad = w.weight_operand == WeightOperand::kA ? w.dtype_b : w.dtype_a;
  if (!is_int_dtype(wd) || !is_int_dtype(ad) || !is_int_dtype(w.dtype_accum)) return;
  QuantInfo& q = w.quant;
  q.weight_bits = dtype_bits(wd);
  q.storage_dtype = wd;
  q.elems_per_storage = 1;
  const char t = w.weight_operand == WeightOperand::kA ? w.layout[0] : w.layout[1];
  q.weight_layout = (w.weight_operand == WeightOperand::kB) == (t == 'T') ? "NK" : "KN";
  const Rescale r = accumulator_rescale(fi, acc, channel_dims_of_acc, gemm_block);
  q.granularity = r.granularity;
  q.scale_dtype = r.dtype;
  const bool w8a8 = q.weight_bits == 8 && dtype_bits(ad) == 8;
  q.scheme = !w8a8 ? "custom" : r.granularity == QuantGranularity::kChannel ? "w8a8-token-channel" : "w8a8-tensor";
  std::string note = "integer GEMM (" + to_string(ad) + " x " + to_string(wd) + " -> " + to_string(w.dtype_accum) +
                     "): weight bits from its dtype";
  if (r.granularity == QuantGranularity::kChannel)
    note += "; per-channel requantize of the accumulator (" + r.how + ", multiplier per output channel)";
  else if (r.granularity == QuantGranularity::kTensor)
    note += "; per-tensor requantize of the accumulator (" + r.how + ")";
  else note += "; no requantize in the kernel (the int32 result is rescaled outside it)";
  if (w8a8) note += ": costed as " + q.scheme;
  w.note += "; " + note;
}

}  // namespace tenet_cost::xtir
