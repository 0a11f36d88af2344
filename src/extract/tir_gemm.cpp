// GEMM / convolution recognition in TIR blocks (docs/extract.md "TIR GEMMs").
//
// A block with >= 1 reduce iter var whose store is `C[i] = C[i] + a * b`
// (operands possibly cast) is a GEMM. Axes are classified from the block
// iter-var domains and the index patterns of the operands, never from loop
// extents, so scheduled and unscheduled functions give the same shape:
//   K      = reduce vars, plus spatial vars that share an index expression
//            with a reduce var in BOTH operands (rfactor splits of K);
//   batch  = spatial vars indexing both operands;
//   M      = spatial vars of operand a only; N = of operand b only;
//   a spatial var sharing an index expression with a reduce var in ONE
//   operand only is a sliding window: the block is a convolution.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "extract/extern_gemm.hpp"
#include "extract/internal.hpp"
#include "extract/tir_axes.hpp"
#include "tenet_cost/checked.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using sym::SymPtr;

namespace {

OptDataType expr_dtype(const Expr* e, const FuncIndex& fi) {
  if (!e) return std::nullopt;
  switch (e->kind) {
    case ExprKind::kLoad: return fi.dtype_of(e->name);
    case ExprKind::kCast:
    case ExprKind::kFloat: return parse_dtype(e->dtype.str());
    case ExprKind::kCall:
      if (!e->dtype.empty()) return parse_dtype(e->dtype.str());
      break;
    default: break;
  }
  for (const auto& a : e->args) {
    if (!a || a->kind == ExprKind::kFloat || a->kind == ExprKind::kInt) continue;
    OptDataType d = expr_dtype(a.get(), fi);
    if (d) return d;
  }
  return parse_dtype(e->dtype.str());
}

/// Operand dtype: the value's type before the outer casts.
OptDataType operand_dtype(const ExprPtr& e, const FuncIndex& fi) { return expr_dtype(strip_cast(e.get()), fi); }

/// Follows the accumulator through epilogue blocks to the function output.
OptDataType output_dtype(const FuncIndex& fi, const std::string& acc, const ir::Stmt* gemm_store) {
  if (fi.param_buffers.count(acc)) return fi.dtype_of(acc);
  std::set<std::string> seen{acc};
  std::vector<std::string> frontier{acc};
  for (int depth = 0; depth < 16 && !frontier.empty(); ++depth) {
    std::vector<std::string> next;
    for (const auto& site : fi.stores) {
      if (site.in_init || site.store == gemm_store || !site.store->value) continue;
      if (seen.count(site.store->buffer)) continue;
      std::vector<const Expr*> ls;
      collect_loads(*site.store->value, ls, false);
      bool reads = false;
      for (const Expr* l : ls) reads = reads || std::find(frontier.begin(), frontier.end(), l->name) != frontier.end();
      if (!reads) continue;
      if (fi.param_buffers.count(site.store->buffer)) return fi.dtype_of(site.store->buffer);
      seen.insert(site.store->buffer);
      next.push_back(site.store->buffer);
    }
    frontier = std::move(next);
  }
  return fi.dtype_of(acc);
}

bool param_rooted(const ExprPtr& inlined, const FuncIndex& fi) {
  std::vector<const Expr*> ls;
  collect_loads(*inlined, ls, false);
  if (ls.empty()) return false;
  for (const Expr* l : ls)
    if (!fi.param_buffers.count(l->name)) return false;
  return true;
}

OptDataType per_tensor_scale_dtype(const FuncIndex& fi) {
  for (const auto& b : fi.param_buffer) {
    const ir::Buffer* buf = fi.buffer(b);
    OptDataType t = buf ? parse_dtype(buf->dtype) : std::nullopt;
    if (!is_float_dtype(t) || is_float8_dtype(t)) continue;
    if (buf->shape.size() == 1 && int_const(buf->shape[0].get()) == 1) return t;
    if (buf->shape.empty()) return t;
  }
  return std::nullopt;
}

void direct_index_vars_no_loads(const Expr& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::kLoad) return;
  if (e.kind == ExprKind::kVar) out.insert(e.name);
  for (const auto& a : e.args)
    if (a) direct_index_vars_no_loads(*a, out);
}

/// Vars in the indices of the operand's loads, not counting loads nested in an index (an
/// indirection array: MoE's `w[indptr[0, e], i, j]` selects expert e's weight through indptr).
void direct_index_vars(const Expr& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::kLoad) {
    for (const auto& idx : e.args)
      if (idx) direct_index_vars_no_loads(*idx, out);
    return;
  }
  for (const auto& a : e.args)
    if (a) direct_index_vars(*a, out);
}

/// A grouped convolution's output-channel axis: its channels per group (an extent expression) and the groups.
struct GroupAxis {
  ExprPtr per_group;
  std::int64_t groups = 0;
  bool transposed = false;  // the filter takes the channel in a group as `f % q` (conv_transpose)
};

bool is_bin(const Expr* e, ir::BinOp op) {
  return e && e->kind == ExprKind::kBinary && e->bin_op == op && e->args.size() == 2 && e->args[0] && e->args[1];
}
bool is_var(const Expr* e, const std::string& name) { return e && e->kind == ExprKind::kVar && e->name.str() == name; }

/// Grouped convolution's input channel index `f // q * c + r` (topi group_conv2d / conv with groups: f the output
/// channel, q = F / groups output channels per group, r the reduce var over the c = C / groups input channels of a
/// group; q and c constants or, for symbolic channels, `F // groups` and `C // groups`): the group axis of `f` when
/// `load` has such an index and q divides f's extent (a constant q; else q = `E // g` with E f's extent: g groups).
std::optional<GroupAxis> group_axis(const Expr* load, const std::string& f, const std::map<std::string, Axis>& axes) {
  if (!load) return std::nullopt;
  const auto fa = axes.find(f);
  if (fa == axes.end() || !fa->second.extent) return std::nullopt;
  const Expr* extent = strip_cast(fa->second.extent.get());
  for (const auto& idx : load->args) {
    const Expr* add = strip_cast(idx.get());
    if (!is_bin(add, ir::BinOp::kAdd)) continue;
    for (int side = 0; side < 2; ++side) {
      const Expr* mul = strip_cast(add->args[side].get());
      const Expr* r = strip_cast(add->args[1 - side].get());
      if (!is_bin(mul, ir::BinOp::kMul) || !r || r->kind != ExprKind::kVar) continue;
      auto ra = axes.find(r->name);
      if (ra == axes.end() || !is_reduce(ra->second.kind) || !ra->second.extent) continue;
      for (int ms = 0; ms < 2; ++ms) {
        const Expr* div = strip_cast(mul->args[ms].get());
        const Expr* c = strip_cast(mul->args[1 - ms].get());
        if (!is_bin(div, ir::BinOp::kFloorDiv) || !is_var(strip_cast(div->args[0].get()), f) ||
            !struct_eq(c, strip_cast(ra->second.extent.get())))
          continue;
        const Expr* q = strip_cast(div->args[1].get());
        GroupAxis g;
        g.per_group = div->args[1];
        const auto qc = int_const(q), ec = int_const(extent);
        if (qc && ec && *qc >= 1 && *ec % *qc == 0) g.groups = *ec / *qc;
        else if (is_bin(q, ir::BinOp::kFloorDiv) && struct_eq(strip_cast(q->args[0].get()), extent))
          g.groups = int_const(q->args[1].get()).value_or(0);
        if (g.groups >= 1) return g;
      }
    }
  }
  return std::nullopt;
}

/// Does `load` index the channel within a group as `f % q`?
bool has_group_mod(const Expr* load, const std::string& f, const ExprPtr& q) {
  if (!load) return false;
  return std::any_of(load->args.begin(), load->args.end(), [&](const ExprPtr& i) {
    const Expr* x = strip_cast(i.get());
    return is_bin(x, ir::BinOp::kFloorMod) && is_var(strip_cast(x->args[0].get()), f) &&
           struct_eq(strip_cast(x->args[1].get()), strip_cast(q.get()));
  });
}

/// Vars that reach an operand only through an indirection array (in the index of a load nested in an index).
std::set<std::string> indirect_vars(const Expr& inlined) {
  std::set<std::string> all, direct, out;
  collect_vars(inlined, all);
  direct_index_vars(inlined, direct);
  for (const auto& v : all)
    if (!direct.count(v)) out.insert(v);
  return out;
}

/// The axis classes of a multiply-accumulate block (docs/extract.md §1 table): K, M, N, batch; a sliding window
/// makes it a convolution (its input the operand with the window); a grouped conv's output channel is per group
/// (`groups`); an axis reaching an operand only through an indirection array (MoE experts, `w[indptr[0, e], ..]`,
/// also through a block-local buffer its producer fills) is a batch axis.
struct AxisClasses {
  std::set<std::string> k, m, n, batch, experts;
  bool lone = false;
  std::map<std::string, GroupAxis> groups;
  bool conv = false;
  int conv_input = -1;  // 0 = a, 1 = b
};

AxisClasses classify_axes(const std::vector<std::string>& order, const std::map<std::string, Axis>& axes,
                          const OperandFacts& fa, const OperandFacts& fb, const std::set<std::string>& out_vars,
                          const Expr& inlined_a, const Expr& inlined_b) {
  AxisClasses c;
  const std::set<std::string> ind_a = indirect_vars(inlined_a), ind_b = indirect_vars(inlined_b);
  std::vector<std::string> transposed_groups;
  for (const auto& name : order) {
    const Axis& ax = axes.at(name);
    const bool ia = fa.vars.count(name) > 0, ib = fb.vars.count(name) > 0;
    if (is_reduce(ax.kind)) {
      c.k.insert(name);
      continue;
    }
    const bool ma = fa.mixed.count(name) > 0, mb = fb.mixed.count(name) > 0;
    if (ma && mb) {
      // a transposed grouped conv (topi conv2d_transpose with groups): the output channel splits the input
      // channel in both operands and the filter takes its channel in the group as `f % q`; else an rfactor split
      const auto ga = group_axis(fa.primary, name, axes), gb = group_axis(fb.primary, name, axes);
      if (ga && gb && struct_eq(ga->per_group.get(), gb->per_group.get()) &&
          (has_group_mod(fa.primary, name, ga->per_group) || has_group_mod(fb.primary, name, gb->per_group))) {
        c.groups[name] = *ga;
        c.groups[name].transposed = true;
        c.conv = true;
        transposed_groups.push_back(name);
      } else {
        c.k.insert(name);
      }
    } else if (ma != mb && ia && ib) {
      // grouped conv: the output channel indexes the filter and, as `f // q * c + r`, the input's channel
      c.conv = true;
      c.conv_input = ma ? 0 : 1;
      const auto g = group_axis((ma ? fa : fb).primary, name, axes);
      if (g) c.groups[name] = *g;
      (g ? (ma ? c.n : c.m) : (ma ? c.m : c.n)).insert(name);
    } else if (ma || mb) {
      c.conv = true;
      c.conv_input = ma ? 0 : 1;
      (ma ? c.m : c.n).insert(name);
    } else if (ia && ib) {
      c.batch.insert(name);
    } else if (ind_a.count(name) || ind_b.count(name)) {
      c.batch.insert(name);
      c.experts.insert(name);
    } else if (ia) {
      c.m.insert(name);
    } else if (ib) {
      c.n.insert(name);
    } else if (out_vars.count(name)) {
      c.batch.insert(name);
      c.lone = true;
    }
  }
  for (const auto& name : transposed_groups) (c.conv_input == 1 ? c.m : c.n).insert(name);  // the filter's side
  return c;
}

/// The shape axes of a grouped conv: each output-channel axis counts its channels per group, and a groups axis
/// joins the batch. Returns the note.
std::string group_shape_axes(const AxisClasses& ac, std::map<std::string, Axis>& shape_axes,
                             std::vector<std::string>& shape_order, std::set<std::string>& shape_bset) {
  std::string note;
  for (const auto& [name, g] : ac.groups) {
    shape_axes[name].extent = g.per_group;
    const std::string gname = name + " groups";
    shape_axes[gname] = Axis{gname, ir::IterKind::kSpatial, ir::make_int(g.groups, "int64")};
    shape_order.push_back(gname);
    shape_bset.insert(gname);
    const auto per = xsym::from_ir(*g.per_group);
    note += "; grouped " + std::string(g.transposed ? "transposed " : "") + "conv: " + std::to_string(g.groups) +
            " groups of " + (per ? sym::to_text(**per) : std::string("?")) + " output channels (groups as batch)";
  }
  return note;
}

/// The convolution facts of a conv block: its loops, and per windowed dimension of the input's primary load the
/// stride and dilation (a group's channel index is no window). Returns the note.
std::string conv_info(const std::vector<std::string>& order, const std::map<std::string, Axis>& axes,
                      const OperandFacts& fa, const AxisClasses& ac, ConvInfo& ci) {
  std::string note;
  for (const auto& name : order) {
    const Axis& ax = axes.at(name);
    ci.loop_names.push_back(name);
    std::optional<SymPtr> s;
    if (ax.extent) s = xsym::from_ir(*ax.extent);
    ci.loop_extents.push_back(s ? Dim::symbolic(*s) : Dim::unknown());
    ci.loop_kinds.push_back(is_reduce(ax.kind) ? 'R' : 'S');
  }
  if (fa.primary) {
    for (const auto& idx : fa.primary->args) {
      if (!idx) continue;
      std::set<std::string> vs;
      collect_vars(*idx, vs);
      std::string sv, rv;
      for (const auto& vname : vs) {
        auto it = axes.find(vname);
        if (it == axes.end()) continue;
        if (is_reduce(it->second.kind)) rv = vname;
        else if (fa.mixed.count(vname)) sv = vname;
      }
      if (sv.empty() || rv.empty() || ac.groups.count(sv)) continue;  // a group's channels, not a window
      ++ci.spatial_dims;
      ci.window_out.push_back(sv);
      ci.window_kernel.push_back(rv);
      auto lf = linear_form(*idx);
      if (lf) {
        ci.strides.push_back(lf->coef[sv]);
        ci.dilations.push_back(lf->coef[rv]);
      } else {
        ci.strides.push_back(0);
        ci.dilations.push_back(0);
        note += "; window index of " + sv + " is not linear";
      }
    }
  }
  return note + "; conv: m = batch x output pixels, n = output channels, k = input channels x kernel volume";
}

// A multiply-accumulate block `C[i] = C[i] + a * b` (either order) of a prim_func: its operands, its
// effective axes (the block's own iter vars plus the enclosing blocks' vars it references) and their classes.
struct MacBlock {
  const StoreSite* site = nullptr;
  ExprPtr rhs;                       // a * b (through casts)
  ExprPtr ea, eb;                    // the operands; after orient_conv, a is a convolution's input
  std::map<std::string, Axis> axes;  // effective axes by name
  std::vector<std::string> order;    // their names, enclosing blocks' first
  OperandFacts fa, fb;               // the operands' loads over the axes
  ExprPtr ia, ib;                    // the operands with their producers inlined (dequantize, copies)
  AxisClasses ac;
};

// The operands of `site` when it is `C[i] = C[i] + a * b` in a block with a reduction axis, a != b (a sum
// of squares is a norm, not a GEMM); nullopt otherwise. Precondition: `site` is no init store.
std::optional<MacBlock> match_mac(const StoreSite& site) {
  const ir::Block& blk = *site.block;
  if (std::none_of(blk.iter_vars.begin(), blk.iter_vars.end(), [](const ir::IterVar& v) { return is_reduce(v.kind); }))
    return std::nullopt;
  const Expr* v = site.store->value.get();
  if (v->kind != ExprKind::kBinary || v->bin_op != ir::BinOp::kAdd || v->args.size() != 2) return std::nullopt;
  ir::Expr self;
  self.kind = ExprKind::kLoad;
  self.name = site.store->buffer;
  self.args = site.store->indices;
  MacBlock mb;
  mb.site = &site;
  if (struct_eq(strip_cast(v->args[0].get()), &self)) mb.rhs = v->args[1];
  else if (struct_eq(strip_cast(v->args[1].get()), &self)) mb.rhs = v->args[0];
  else return std::nullopt;
  const Expr* mul = strip_cast(mb.rhs.get());
  if (!mul || mul->kind != ExprKind::kBinary || mul->bin_op != ir::BinOp::kMul || mul->args.size() != 2)
    return std::nullopt;
  mb.ea = mul->args[0];
  mb.eb = mul->args[1];
  if (!mb.ea || !mb.eb) return std::nullopt;
  if (struct_eq(strip_cast(mb.ea.get()), strip_cast(mb.eb.get()))) return std::nullopt;  // sum of squares (norms)
  return mb;
}

// Effective axes: the block's own iter vars plus referenced enclosing-block vars. Precondition: mb matched.
void effective_axes(MacBlock& mb) {
  const StoreSite& site = *mb.site;
  std::set<std::string> referenced;
  collect_vars(*mb.rhs, referenced);
  for (const auto& i : site.store->indices)
    if (i) collect_vars(*i, referenced);
  for (const ir::Block* b : site.chain) {
    if (b == site.block) continue;
    for (const auto& iv : b->iter_vars)
      if (referenced.count(iv.name) && !mb.axes.count(iv.name)) {
        mb.axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
        mb.order.push_back(iv.name);
      }
  }
  for (const auto& iv : site.block->iter_vars) {
    if (mb.axes.count(iv.name)) {
      mb.axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
      continue;
    }
    mb.axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
    mb.order.push_back(iv.name);
  }
}

// Axes and their classes. nullopt when an operand is a scalar (a scaling, not a GEMM) or no axis is a K axis.
// Precondition: mb matched.
std::optional<MacBlock> classify(MacBlock mb, const FuncIndex& fi) {
  effective_axes(mb);
  mb.fa = operand_facts(mb.ea, mb.axes);
  mb.fb = operand_facts(mb.eb, mb.axes);
  std::set<std::string> out_vars;
  for (const auto& i : mb.site->store->indices)
    if (i) collect_vars(*i, out_vars);
  if (mb.fa.vars.empty() || mb.fb.vars.empty()) return std::nullopt;  // scaling by a scalar, not a GEMM

  // Producers inlined (dequantize, copies): an axis that reaches an operand only through an indirection array
  // (MoE's expert index) is seen there; the weight candidates are judged on them too.
  mb.ia = inline_producers(mb.ea, fi, mb.site->store);
  mb.ib = inline_producers(mb.eb, fi, mb.site->store);
  mb.ac = classify_axes(mb.order, mb.axes, mb.fa, mb.fb, out_vars, *mb.ia, *mb.ib);
  if (mb.ac.k.empty()) return std::nullopt;
  return mb;
}

// Conv: make operand a the input (sliding window) and b the filter.
void orient_conv(MacBlock& mb) {
  if (mb.ac.conv && mb.ac.conv_input == 1) {
    std::swap(mb.ea, mb.eb);
    std::swap(mb.fa, mb.fb);
    std::swap(mb.ia, mb.ib);
    std::swap(mb.ac.m, mb.ac.n);
  }
}

// M, N, K, batch of the GEMM (k_extent when K is a constant); returns the note's additions. Precondition: mb
// classified and oriented.
std::string gemm_shape(const MacBlock& mb, TirGemm& g) {
  Workload& w = g.w;
  const AxisClasses& ac = mb.ac;
  std::string note;
  // Grouped conv: the output-channel axis counts its channels per group in N and a groups axis joins the batch
  // (docs/extract.md "Convolutions").
  std::map<std::string, Axis> shape_axes = mb.axes;
  std::vector<std::string> shape_order = mb.order;
  std::set<std::string> shape_bset = ac.batch;
  note += group_shape_axes(ac, shape_axes, shape_order, shape_bset);
  std::string bad;
  auto m = extent_product(shape_order, ac.m, shape_axes, bad);
  auto n = m ? extent_product(shape_order, ac.n, shape_axes, bad) : std::nullopt;
  auto k = n ? extent_product(shape_order, ac.k, shape_axes, bad) : std::nullopt;
  auto bt = k ? extent_product(shape_order, shape_bset, shape_axes, bad) : std::nullopt;
  if (!bt) {
    w.shape_known = false;
    w.m = w.n = w.k = w.batch = Dim::unknown();
    note +=
        bad.rfind("the axes", 0) == 0 ? "; extent of " + bad : "; extent of " + bad + " is not an integer expression";
    return note;
  }
  w.m = Dim::symbolic(*m);
  // Padding introduced by a schedule (dlight's low-batch GEMV: M axis extent
  // `(batch_size + 3) // 4 * 4` under a `T.where` guard): m is the logical size, as for the
  // unscheduled function; the padded size the hardware runs is kept in m_padded.
  if (auto mu = extent_product(shape_order, ac.m, shape_axes, bad, true);
      mu && sym::to_text(**mu) != sym::to_text(**m)) {
    w.m_padded = w.m;
    w.m = Dim::symbolic(*mu);
    note += "; M padded by the schedule to " + w.m_padded->str();
  }
  w.n = Dim::symbolic(*n);
  w.k = Dim::symbolic(*k);
  w.batch = Dim::symbolic(*bt);
  if ((*k)->kind == sym::SymKind::kInt) g.k_extent = (*k)->value;
  return note;
}

// One operand judged as the weight candidate.
struct WeightCandidate {
  bool ok = false, quant = false, stat = false;
  std::size_t rank = 0;
  std::string indirect;  // a batch var reaching this operand only through an indirection array
  QuantInfo q;
  std::string qnote;
};

// Operand `inl` (inlined; `facts` its loads, `own` the M or N axes only it has) as the weight: its
// quantization, whether it shares a batch axis with the other operand, whether it is a 2-D weight rooted in a
// param. `axes` are the block's effective axes (every var of `facts` among them).
WeightCandidate judge_weight(const ExprPtr& inl, const OperandFacts& facts, const std::set<std::string>& own,
                             const QuantContext& qc, const std::set<std::string>& bset,
                             std::map<std::string, Axis>& axes, const FuncIndex& fi) {
  WeightCandidate c;
  QuantContext qcc = qc;
  qcc.nvars = own;
  c.q = detect_quant(*inl, qcc, c.qnote);
  c.quant = c.q.weight_bits > 0;
  // Shares a batch axis with the other operand, unless only through an indirection array
  // (MoE experts: the expert's weight chosen per batch element, docs/extract.md).
  std::set<std::string> direct, all;
  direct_index_vars(*inl, direct);
  collect_vars(*inl, all);
  bool shared = false;
  for (const auto& vname : all)
    if (bset.count(vname)) {
      if (direct.count(vname)) shared = true;
      else c.indirect = vname;
    }
  // A 2-D weight: at most one index dimension over its own non-unit axes
  // (split axes such as v0_o * 16 + v0_i count once).
  std::set<std::string> own_non_unit;
  c.stat = true;
  for (const auto& vname : facts.vars) {
    const Axis& ax = axes[vname];
    auto e = ax.extent ? int_const(ax.extent.get()) : std::nullopt;
    if (!e) c.stat = false;
    if (own.count(vname) && (!e || *e != 1)) own_non_unit.insert(vname);
  }
  const std::size_t non_unit = positions(facts.primary, own_non_unit).size();
  OperandFacts root = operand_facts(inl, axes);
  c.rank = root.primary ? root.primary->args.size() : 0;
  bool rooted = param_rooted(inl, fi);
  if (!rooted && !c.quant) {
    // A weight decoded by an extern call (BitBLAS's `T.call_extern(.., "decode_i4s_to_f16", ..)`):
    // traced back through the decode's regions to the packed parameter.
    const Expr* base = strip_cast(inl.get());
    if (base && base->kind == ExprKind::kLoad && !fi.param_buffers.count(base->name))
      if (auto ed = extern_decode(fi, base->name, *base, qcc)) {
        c.q = ed->q;
        c.quant = c.q.weight_bits > 0;
        c.qnote = ed->note;
        rooted = true;
      }
  }
  c.ok = !shared && non_unit <= 1 && rooted;
  return c;
}

// Which operand is the weight (0 a, 1 b, -1 none): a convolution's filter; else the one candidate that
// qualifies, or of two the quantized one, the one not indexed through an indirection array, the one of
// static shape, the one of lower rank, else b.
int pick_weight(bool conv, const WeightCandidate& ca, const WeightCandidate& cb) {
  if (conv) return 1;
  if (ca.ok && cb.ok) {
    if (ca.quant != cb.quant) return ca.quant ? 0 : 1;
    if (ca.indirect.empty() != cb.indirect.empty()) return ca.indirect.empty() ? 1 : 0;  // an expert's
    if (ca.stat != cb.stat) return ca.stat ? 0 : 1;
    if (ca.rank != cb.rank) return ca.rank < cb.rank ? 0 : 1;
    return 1;
  }
  if (ca.ok) return 0;
  if (cb.ok) return 1;
  return -1;
}

// The weight operand, its quantization and (for a plain param) the load another prim_func's dequantize may
// feed; returns the note's additions. Precondition: the shape is set (k_extent).
std::string gemm_weight(MacBlock& mb, const FuncIndex& fi, TirGemm& g) {
  Workload& w = g.w;
  const AxisClasses& ac = mb.ac;
  std::string note;
  QuantContext qc;
  qc.kvars = ac.k;
  qc.k_extent = g.k_extent;
  qc.dtype_of = [&fi](const std::string& b) { return fi.dtype_of(b); };
  qc.buffer = [&fi](const std::string& b) { return fi.buffer(b); };
  qc.fallback_scale_dtype = per_tensor_scale_dtype(fi);
  const WeightCandidate ca = judge_weight(mb.ia, mb.fa, ac.m, qc, ac.batch, mb.axes, fi);
  const WeightCandidate cb = judge_weight(mb.ib, mb.fb, ac.n, qc, ac.batch, mb.axes, fi);
  const int weight = pick_weight(ac.conv, ca, cb);
  w.weight_operand = weight == 0 ? WeightOperand::kA : weight == 1 ? WeightOperand::kB : WeightOperand::kNone;
  if (weight < 0) return note;
  const WeightCandidate& c = weight == 0 ? ca : cb;
  w.quant = c.q;
  if (!c.qnote.empty()) note += "; " + c.qnote;
  activation_format(w.quant, weight == 1, *mb.ia, *mb.ib, qc, ac.m, ac.n, note);  // block-scaled W and A (quant_mx)
  if (!c.indirect.empty())
    note += "; weight indexed through an indirection array by " + c.indirect + " (experts as batch)";
  g.nvars = weight == 0 ? ac.m : ac.n;
  // A plain weight param may be dequantized by another prim_func (Relax pass).
  if (!c.quant) {
    const Expr* root = strip_cast(weight == 0 ? mb.ia.get() : mb.ib.get());
    if (root && root->kind == ExprKind::kLoad) {
      for (std::size_t p = 0; p < fi.param_buffer.size(); ++p)
        if (fi.param_buffer[p] == root->name) {
          g.weight_param = static_cast<int>(p);
          g.weight_load = std::make_shared<Expr>(*root);
        }
    }
  }
  return note;
}

// The GEMM (or convolution) of a classified block: shape -> layout and dtypes -> weight and quantization ->
// convolution facts -> integer weight quantization of the output.
TirGemm block_workload(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index, MacBlock& mb) {
  const StoreSite& site = *mb.site;
  const ir::Block& blk = *site.block;
  TirGemm g = block_gemm(f, blk, func_index);
  Workload& w = g.w;
  std::string note = "block " + blk.name;
  if (mb.ac.lone) note += "; output-only axes counted as batch";
  orient_conv(mb);
  note += gemm_shape(mb, g);
  g.kvars = mb.ac.k;

  // Layout from the primary loads.
  w.layout = gemm_layout(mb.fa, mb.fb, mb.ac.k, mb.ac.m, mb.ac.n);

  w.dtype_a = operand_dtype(mb.ea, fi);
  w.dtype_b = operand_dtype(mb.eb, fi);
  g.out_buffer = site.store->buffer;
  w.dtype_accum = fi.dtype_of(site.store->buffer);
  w.dtype_out = output_dtype(fi, site.store->buffer, site.store);

  note += gemm_weight(mb, fi, g);
  if (mb.ac.conv) {
    w.kind = WorkloadKind::kConv;
    note += conv_info(mb.order, mb.axes, mb.fa, mb.ac, w.conv);
  }
  w.note = note;
  std::vector<std::size_t> channel;  // the output's dims over the weight's own (output-channel) axes
  for (std::size_t d = 0; d < site.store->indices.size(); ++d) {
    std::set<std::string> vs;
    if (site.store->indices[d]) collect_vars(*site.store->indices[d], vs);
    if (std::any_of(vs.begin(), vs.end(), [&](const auto& x) { return g.nvars.count(x) > 0; })) channel.push_back(d);
  }
  integer_weight_quant(fi, site.store->buffer, channel, &blk, w);
  return g;
}

}  // namespace

// An extern kernel's GEMM, else: find the multiply-accumulate blocks -> classify their axes -> one workload
// each (shape, weight, quantization) -> the tensorized GEMMs.
std::vector<TirGemm> analyze_prim_func(const ir::PrimFunc& f, std::size_t func_index) {
  std::vector<TirGemm> out;
  FuncIndex fi(f);
  if (auto tk = triton_kernel_gemm(f, fi, func_index)) return {std::move(*tk)};  // an extern kernel's GEMM
  for (const StoreSite& site : fi.stores) {
    if (site.in_init || !site.block || !site.store->value) continue;
    std::optional<MacBlock> mac = match_mac(site);
    if (mac) mac = classify(std::move(*mac), fi);
    if (!mac) continue;
    out.push_back(block_workload(f, fi, func_index, *mac));
  }
  for (auto& g : tensorized_gemms(f, fi, func_index)) out.push_back(std::move(g));
  return out;
}

}  // namespace tenet_cost::xtir
