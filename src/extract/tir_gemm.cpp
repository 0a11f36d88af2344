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
#include "tenet_cost/checked.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using xsym::SymPtr;

namespace {

struct Axis {
  std::string name;
  ir::IterKind kind = ir::IterKind::kSpatial;
  ir::ExprPtr extent;
};

struct OperandFacts {
  ExprPtr expr;                      // as written in the block (casts kept)
  std::set<std::string> vars;        // iter vars referenced
  std::set<std::string> mixed;       // spatial vars sharing an index with a reduce var
  const Expr* primary = nullptr;     // the load with most iter vars
};

bool is_reduce(ir::IterKind k) { return k == ir::IterKind::kReduce; }

OperandFacts operand_facts(const ExprPtr& e, const std::map<std::string, Axis>& axes) {
  OperandFacts f;
  f.expr = e;
  std::vector<const Expr*> loads;
  collect_loads(*e, loads, false);
  std::size_t best = 0;
  std::vector<const Expr*> top;
  collect_loads(*e, top, true);
  for (const Expr* l : loads) {
    for (const auto& idx : l->args) {
      if (!idx) continue;
      std::set<std::string> vs;
      collect_vars(*idx, vs);
      bool has_r = false;
      for (const auto& v : vs) {
        auto it = axes.find(v);
        if (it == axes.end()) continue;
        f.vars.insert(v);
        has_r = has_r || is_reduce(it->second.kind);
      }
      if (has_r)
        for (const auto& v : vs) {
          auto it = axes.find(v);
          if (it != axes.end() && !is_reduce(it->second.kind)) f.mixed.insert(v);
        }
    }
  }
  for (const Expr* l : top) {
    std::set<std::string> vs;
    for (const auto& idx : l->args)
      if (idx) collect_vars(*idx, vs);
    std::size_t n = 0;
    for (const auto& v : vs) n += axes.count(v);
    if (!f.primary || n > best) {
      f.primary = l;
      best = n;
    }
  }
  return f;
}

/// Index positions of `load` referencing any of `vars`.
std::vector<int> positions(const Expr* load, const std::set<std::string>& vars) {
  std::vector<int> out;
  if (!load) return out;
  for (std::size_t d = 0; d < load->args.size(); ++d) {
    std::set<std::string> vs;
    if (load->args[d]) collect_vars(*load->args[d], vs);
    for (const auto& v : vs)
      if (vars.count(v)) {
        out.push_back(static_cast<int>(d));
        break;
      }
  }
  return out;
}

std::string expr_dtype(const Expr* e, const FuncIndex& fi) {
  if (!e) return "";
  switch (e->kind) {
    case ExprKind::kLoad: return fi.dtype_of(e->name);
    case ExprKind::kCast: return canonical_dtype(e->dtype.str());
    case ExprKind::kFloat: return e->dtype;
    case ExprKind::kCall:
      if (!e->dtype.empty()) return e->dtype;
      break;
    default: break;
  }
  for (const auto& a : e->args) {
    if (!a || a->kind == ExprKind::kFloat || a->kind == ExprKind::kInt) continue;
    std::string d = expr_dtype(a.get(), fi);
    if (!d.empty()) return d;
  }
  return e->dtype;
}

/// Operand dtype: the value's type before the outer casts.
std::string operand_dtype(const ExprPtr& e, const FuncIndex& fi) { return expr_dtype(strip_cast(e.get()), fi); }

/// Follows the accumulator through epilogue blocks to the function output.
std::string output_dtype(const FuncIndex& fi, const std::string& acc, const ir::Stmt* gemm_store) {
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

/// Extent product of the given axes (in block order) as a symbolic value.
// `(x + (d - 1)) // d * d` (an extent padded by a schedule to a multiple of d) -> x.
SymPtr unpadded(const SymPtr& s) {
  using xsym::SymKind;
  if (!s || s->kind != SymKind::kMul) return s;
  const SymPtr* div = &s->a;
  const SymPtr* mul = &s->b;
  if ((*div)->kind != SymKind::kFloorDiv) std::swap(div, mul);
  if ((*div)->kind != SymKind::kFloorDiv || (*mul)->kind != SymKind::kInt) return s;
  const std::int64_t d = (*mul)->value;
  const SymPtr& sum = (*div)->a;
  if (d < 2 || (*div)->b->kind != SymKind::kInt || (*div)->b->value != d || sum->kind != SymKind::kAdd) return s;
  const SymPtr* x = &sum->a;
  const SymPtr* c = &sum->b;
  if ((*c)->kind != SymKind::kInt) std::swap(x, c);
  if ((*c)->kind != SymKind::kInt || (*c)->value != d - 1 || (*x)->kind == SymKind::kInt) return s;
  return *x;
}

std::optional<SymPtr> extent_product(const std::vector<std::string>& order, const std::set<std::string>& which,
                                     const std::map<std::string, Axis>& axes, std::string& bad, bool unpad = false) {
  std::vector<SymPtr> fs;
  for (const auto& n : order) {
    if (!which.count(n)) continue;
    const Axis& a = axes.at(n);
    std::optional<SymPtr> s;
    if (a.extent) s = xsym::from_ir(*a.extent);
    if (!s) {
      bad = n;
      return std::nullopt;
    }
    fs.push_back(unpad ? unpadded(*s) : *s);
  }
  try {
    return xsym::product(fs);
  } catch (const OverflowError&) {
    bad = "the axes' product (it overflows 64 bits)";
    return std::nullopt;
  }
}

std::string per_tensor_scale_dtype(const FuncIndex& fi) {
  for (const auto& b : fi.param_buffer) {
    const ir::Buffer* buf = fi.buffer(b);
    if (!buf || !is_float_dtype(buf->dtype) || buf->dtype.rfind("float8", 0) == 0) continue;
    if (buf->shape.size() == 1 && int_const(buf->shape[0].get()) == 1) return buf->dtype;
    if (buf->shape.empty()) return buf->dtype;
  }
  return "";
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

/// Grouped convolution's input channel index `f // q * c + r` (topi group_conv2d: f the output
/// channel, q = F / groups output channels per group, r the reduce var over the c = C / groups
/// input channels of a group): q when `load` has such an index for spatial var `f`.
std::optional<std::int64_t> group_split(const Expr* load, const std::string& f,
                                        const std::map<std::string, Axis>& axes) {
  if (!load) return std::nullopt;
  auto bin = [](const Expr* e, ir::BinOp op) {
    return e && e->kind == ExprKind::kBinary && e->bin_op == op && e->args.size() == 2 && e->args[0] && e->args[1];
  };
  auto cint = [](const Expr* e) { return e ? int_const(e) : std::nullopt; };
  for (const auto& idx : load->args) {
    const Expr* add = strip_cast(idx.get());
    if (!bin(add, ir::BinOp::kAdd)) continue;
    for (int side = 0; side < 2; ++side) {
      const Expr* mul = strip_cast(add->args[side].get());
      const Expr* r = strip_cast(add->args[1 - side].get());
      if (!bin(mul, ir::BinOp::kMul) || !r || r->kind != ExprKind::kVar) continue;
      auto ra = axes.find(r->name);
      if (ra == axes.end() || !is_reduce(ra->second.kind) || !ra->second.extent) continue;
      const auto c_ext = int_const(ra->second.extent.get());
      for (int ms = 0; ms < 2; ++ms) {
        const Expr* div = strip_cast(mul->args[ms].get());
        const auto c = cint(strip_cast(mul->args[1 - ms].get()));
        if (!bin(div, ir::BinOp::kFloorDiv) || !c || !c_ext || *c != *c_ext) continue;
        const Expr* fv = strip_cast(div->args[0].get());
        const auto q = cint(strip_cast(div->args[1].get()));
        if (fv && fv->kind == ExprKind::kVar && fv->name.str() == f && q && *q >= 1) return q;
      }
    }
  }
  return std::nullopt;
}

/// A GEMM found in block `blk` of `f` (function, location, source set).
TirGemm block_gemm(const ir::PrimFunc& f, const ir::Block& blk, std::size_t func_index) {
  TirGemm g;
  g.func_index = func_index;
  g.w.function = f.name;
  g.w.loc = blk.loc.line ? blk.loc : f.loc;
  g.w.source = WorkloadSource::kTir;
  return g;
}

/// Layout from the operands' primary loads: A is transposed when its K index comes before its
/// last M index; B when its last N index comes before its K index (B[n, k] = NT).
std::string gemm_layout(const OperandFacts& fa, const OperandFacts& fb, const std::set<std::string>& kset,
                        const std::set<std::string>& mset, const std::set<std::string>& nset) {
  const auto a_k = positions(fa.primary, kset), a_m = positions(fa.primary, mset);
  const auto b_k = positions(fb.primary, kset), b_n = positions(fb.primary, nset);
  const bool a_t = !a_k.empty() && !a_m.empty() && a_k.front() < a_m.back();
  const bool b_t = !b_k.empty() && !b_n.empty() && b_n.back() < b_k.front();
  return std::string(a_t ? "T" : "N") + (b_t ? "T" : "N");
}

// ------------------------------------------------------------ tensorized blocks

/// A multiply-accumulate intrinsic over buffer regions (docs/extract.md "Tensorized blocks").
bool is_mma_intrinsic(const ir::Symbol& name) {
  return name == "tvm_mma_sync" || name == "tvm_bmma_sync" || name == "ptx_mma" || name == "ptx_mma_sp" ||
         name == "mma_sync" || name == "wmma_mma_sync";
}

/// `"m16n8k16"` among a ptx_mma call's string arguments: m * n * k MACs per call.
std::optional<std::int64_t> ptx_shape_macs(const Expr& call) {
  for (const auto& a : call.args) {
    if (!a || a->kind != ExprKind::kString) continue;
    const std::string& t = a->name;
    std::int64_t v[3] = {0, 0, 0};
    const char tags[3] = {'m', 'n', 'k'};
    std::size_t p = 0;
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i) {
      ok = p < t.size() && t[p] == tags[i];
      ++p;
      std::size_t digits = 0;
      while (ok && p < t.size() && t[p] >= '0' && t[p] <= '9' && digits < 6) {
        v[i] = v[i] * 10 + (t[p] - '0');
        ++p;
        ++digits;
      }
      ok = ok && digits > 0;
    }
    if (ok && p == t.size()) return v[0] * v[1] * v[2];
  }
  return std::nullopt;
}

/// x when x * x == v.
std::optional<std::int64_t> exact_sqrt(std::int64_t v) {
  if (v <= 0) return std::nullopt;
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  if (r * r != v) return std::nullopt;
  return r;
}

/// The region's min expressions as a load (to reuse the index helpers on it).
ExprPtr region_load(const ir::BufferRegion& r) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLoad;
  e->name = r.buffer;
  for (const auto& rg : r.region) e->args.push_back(rg.min ? rg.min : ir::make_int(0));
  return e;
}

/// The dtype of the function output the accumulator reaches through blocks (fragment stores).
std::string region_output_dtype(const FuncIndex& fi, const std::string& acc, const ir::Block* gemm) {
  std::set<std::string> seen{acc};
  std::vector<std::string> frontier{acc};
  for (int depth = 0; depth < 16 && !frontier.empty(); ++depth) {
    std::vector<std::string> next;
    for (const ir::Block* b : fi.blocks) {
      if (b == gemm) continue;
      const bool reads = std::any_of(b->reads.begin(), b->reads.end(), [&](const ir::BufferRegion& r) {
        return std::find(frontier.begin(), frontier.end(), r.buffer) != frontier.end();
      });
      if (!reads) continue;
      for (const auto& w : b->writes) {
        if (fi.param_buffers.count(w.buffer)) return fi.dtype_of(w.buffer);
        if (seen.insert(w.buffer).second) next.push_back(w.buffer);
      }
    }
    frontier = std::move(next);
  }
  return fi.dtype_of(acc);
}

/// GEMMs whose multiply-accumulate is an intrinsic call over buffer regions (tensorized
/// blocks): M/N/K/batch = the block's iter-var extents (the loops around the intrinsic) x
/// the fragment tile, the tile from the regions' sizes (|A| = Mt*Kt, |B| = Kt*Nt, |C| = Mt*Nt).
// NOLINTNEXTLINE(readability-function-size): one recognition, in the order the docs state it
std::vector<TirGemm> tensorized_gemms(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index) {
  std::vector<TirGemm> out;
  // The intrinsics' MACs per block, from ptx_mma's "mMnNkK" shapes (one pass over the calls).
  struct BlockMacs {
    std::int64_t sum = 0;
    bool all_shaped = true;
    bool done = false;
  };
  std::map<const ir::Block*, BlockMacs> per_block;
  for (const auto& cs : fi.calls) {
    if (!cs.block || !is_mma_intrinsic(cs.call->name)) continue;
    BlockMacs& bm = per_block[cs.block];
    const auto macs = ptx_shape_macs(*cs.call);
    if (!macs) {
      bm.all_shaped = false;
      continue;
    }
    try {
      bm.sum = checked_add(bm.sum, *macs, "the intrinsics' MACs");
    } catch (const OverflowError&) {
      bm.sum = INT64_MAX;  // more than any tile the regions can give (< 2^61): disagrees
    }
  }
  for (const auto& cs : fi.calls) {
    if (!cs.block || !is_mma_intrinsic(cs.call->name)) continue;
    BlockMacs& bm = per_block[cs.block];
    if (bm.done) continue;
    bm.done = true;
    const ir::Block& blk = *cs.block;
    if (std::none_of(blk.iter_vars.begin(), blk.iter_vars.end(),
                     [](const ir::IterVar& v) { return is_reduce(v.kind); }))
      continue;  // a fragment fill/load/store tile, never a workload
    if (blk.writes.size() != 1) continue;
    const ir::BufferRegion& rc = blk.writes[0];
    std::vector<const ir::BufferRegion*> ops;
    for (const auto& r : blk.reads)
      if (r.buffer != rc.buffer) ops.push_back(&r);
    if (ops.size() != 2) continue;
    const ir::BufferRegion& ra = *ops[0];
    const ir::BufferRegion& rb = *ops[1];

    std::map<std::string, Axis> axes;
    std::vector<std::string> order;
    for (const auto& iv : blk.iter_vars) {
      axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
      order.push_back(iv.name);
    }
    const ExprPtr la = region_load(ra), lb = region_load(rb), lc = region_load(rc);
    OperandFacts fa = operand_facts(la, axes), fb = operand_facts(lb, axes), fc = operand_facts(lc, axes);
    std::set<std::string> kset, mset, nset, bset;
    bool lone = false;
    for (const auto& name : order) {
      const bool ia = fa.vars.count(name) > 0, ib = fb.vars.count(name) > 0;
      if (is_reduce(axes[name].kind)) kset.insert(name);
      else if (ia && ib) bset.insert(name);
      else if (ia) mset.insert(name);
      else if (ib) nset.insert(name);
      else if (fc.vars.count(name)) {
        bset.insert(name);
        lone = true;
      }
    }

    TirGemm g = block_gemm(f, blk, func_index);
    Workload& w = g.w;
    std::string note = "block " + blk.name + "; tensorized (" + cs.call->name.str() + ")";
    if (lone) note += "; output-only axes counted as batch";

    // The fragment tile from the regions' element counts, checked against ptx_mma's shapes.
    const auto ea = region_elems(ra), eb = region_elems(rb), ec = region_elems(rc);
    std::optional<std::int64_t> mt, nt, kt;
    if (ea && eb && ec) {
      const std::int64_t a = *ea, b = *eb, c = *ec;
      // sqrt(x * y / z) when exact (a product too large for 64 bits is no fragment tile)
      auto ratio = [](std::int64_t x, std::int64_t y, std::int64_t z) -> std::optional<std::int64_t> {
        if (x > INT64_MAX / y || (x * y) % z != 0) return std::nullopt;
        return exact_sqrt(x * y / z);
      };
      mt = ratio(a, c, b);
      nt = ratio(b, c, a);
      kt = ratio(a, b, c);
    }
    const std::int64_t calls_macs = bm.sum;
    const bool all_shaped = bm.all_shaped;
    std::string bad;
    if (!mt || !nt || !kt) {
      bad = "fragment tile not derivable from the regions' sizes";
    } else if (all_shaped && calls_macs > 0 && calls_macs != *mt * *nt * *kt) {
      bad = fmt::format("fragment tile {}x{}x{} from the regions disagrees with the intrinsics' shapes ({} MACs)", *mt,
                        *nt, *kt, calls_macs);
    }
    std::optional<SymPtr> m, n, k, bt;
    if (bad.empty()) {
      std::string which;
      m = extent_product(order, mset, axes, which);
      n = m ? extent_product(order, nset, axes, which) : std::nullopt;
      k = n ? extent_product(order, kset, axes, which) : std::nullopt;
      bt = k ? extent_product(order, bset, axes, which) : std::nullopt;
      try {
        if (bt) {
          m = xsym::product({*m, xsym::sym_int(*mt)});
          n = xsym::product({*n, xsym::sym_int(*nt)});
          k = xsym::product({*k, xsym::sym_int(*kt)});
        }
      } catch (const OverflowError&) {
        bt.reset();
        which = "the axes' product (it overflows 64 bits)";
      }
      if (!bt) bad = "extent of " + which;
    }
    if (!bad.empty()) {
      w.shape_known = false;
      w.m = w.n = w.k = w.batch = Dim::symbolic("?");
      note += "; " + bad;
    } else {
      w.m = xsym::to_dim(*m);
      w.n = xsym::to_dim(*n);
      w.k = xsym::to_dim(*k);
      w.batch = xsym::to_dim(*bt);
      if ((*k)->kind == xsym::SymKind::kInt) g.k_extent = (*k)->value;
      note +=
          fmt::format("; M/N/K = the block's iter-var extents x the fragment tile {}x{}x{} (from the regions' sizes)",
                      *mt, *nt, *kt);
    }
    g.kvars = kset;
    w.layout = gemm_layout(fa, fb, kset, mset, nset);
    w.dtype_a = fi.dtype_of(ra.buffer);
    w.dtype_b = fi.dtype_of(rb.buffer);
    w.dtype_accum = fi.dtype_of(rc.buffer);
    w.dtype_out = region_output_dtype(fi, rc.buffer, &blk);

    // Weight: an operand copied (through fragment loads and shared copies) from parameters only,
    // sharing no batch axis with the other; both -> b, as for an untensorized GEMM.
    auto weight_ok = [&](const ir::BufferRegion& r, const OperandFacts& facts) {
      for (const auto& v : facts.vars)
        if (bset.count(v)) return false;
      std::set<std::string> roots;
      return region_roots(fi, r.buffer, &blk, 0, roots) && !roots.empty();
    };
    const bool ok_a = weight_ok(ra, fa), ok_b = weight_ok(rb, fb);
    w.weight_operand = ok_b ? WeightOperand::kB : ok_a ? WeightOperand::kA : WeightOperand::kNone;
    g.nvars = ok_b || !ok_a ? nset : mset;
    w.note = note;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-size): one walk classifying every GEMM form of a PrimFunc
std::vector<TirGemm> analyze_prim_func(const ir::PrimFunc& f, std::size_t func_index) {
  std::vector<TirGemm> out;
  FuncIndex fi(f);
  if (auto tk = triton_kernel_gemm(f, fi, func_index)) return {std::move(*tk)};  // an extern kernel's GEMM
  for (const StoreSite& site : fi.stores) {
    if (site.in_init || !site.block || !site.store->value) continue;
    const ir::Block& blk = *site.block;
    if (std::none_of(blk.iter_vars.begin(), blk.iter_vars.end(), [](const ir::IterVar& v) { return is_reduce(v.kind); }))
      continue;
    // C[i] = C[i] + rhs  (either order)
    const Expr* v = site.store->value.get();
    if (v->kind != ExprKind::kBinary || v->bin_op != ir::BinOp::kAdd || v->args.size() != 2) continue;
    ir::Expr self;
    self.kind = ExprKind::kLoad;
    self.name = site.store->buffer;
    self.args = site.store->indices;
    ExprPtr rhs;
    if (struct_eq(strip_cast(v->args[0].get()), &self)) rhs = v->args[1];
    else if (struct_eq(strip_cast(v->args[1].get()), &self)) rhs = v->args[0];
    else continue;
    const Expr* mul = strip_cast(rhs.get());
    if (!mul || mul->kind != ExprKind::kBinary || mul->bin_op != ir::BinOp::kMul || mul->args.size() != 2) continue;
    ExprPtr ea = mul->args[0], eb = mul->args[1];
    if (!ea || !eb) continue;
    if (struct_eq(strip_cast(ea.get()), strip_cast(eb.get()))) continue;  // sum of squares (norms)

    // Effective axes: the block's own iter vars plus referenced enclosing-block vars.
    std::map<std::string, Axis> axes;
    std::vector<std::string> order;
    std::set<std::string> referenced;
    collect_vars(*rhs, referenced);
    for (const auto& i : site.store->indices)
      if (i) collect_vars(*i, referenced);
    for (const ir::Block* b : site.chain) {
      if (b == site.block) continue;
      for (const auto& iv : b->iter_vars)
        if (referenced.count(iv.name) && !axes.count(iv.name)) {
          axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
          order.push_back(iv.name);
        }
    }
    for (const auto& iv : blk.iter_vars) {
      if (axes.count(iv.name)) {
        axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
        continue;
      }
      axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
      order.push_back(iv.name);
    }

    OperandFacts fa = operand_facts(ea, axes), fb = operand_facts(eb, axes);
    std::set<std::string> out_vars;
    for (const auto& i : site.store->indices)
      if (i) collect_vars(*i, out_vars);
    if (fa.vars.empty() || fb.vars.empty()) continue;  // scaling by a scalar, not a GEMM

    std::set<std::string> kset, mset, nset, bset, lone;
    std::map<std::string, std::int64_t> group_q;  // grouped conv: output-channel var -> channels per group
    bool conv = false;
    int conv_input = -1;  // 0 = a, 1 = b
    for (const auto& name : order) {
      const Axis& ax = axes[name];
      const bool ia = fa.vars.count(name) > 0, ib = fb.vars.count(name) > 0;
      if (is_reduce(ax.kind)) {
        kset.insert(name);
        continue;
      }
      const bool ma = fa.mixed.count(name) > 0, mb = fb.mixed.count(name) > 0;
      if (ma && mb) kset.insert(name);  // rfactor split of K
      else if (ma != mb && ia && ib) {
        // grouped conv: the output channel indexes the filter and, as `f // q * c + r`, the
        // input's channel: groups = F / q as batch, q output channels per group as N
        const auto q = group_split((ma ? fa : fb).primary, name, axes);
        const auto e = ax.extent ? int_const(ax.extent.get()) : std::nullopt;
        if (q && e && *e % *q == 0) {
          group_q[name] = *q;
          conv = true;
          conv_input = ma ? 0 : 1;
          (ma ? nset : mset).insert(name);
        } else {
          conv = true;
          conv_input = ma ? 0 : 1;
          (ma ? mset : nset).insert(name);
        }
      } else if (ma || mb) {
        conv = true;
        conv_input = ma ? 0 : 1;
        (ma ? mset : nset).insert(name);
      } else if (ia && ib) bset.insert(name);
      else if (ia) mset.insert(name);
      else if (ib) nset.insert(name);
      else if (out_vars.count(name)) { bset.insert(name); lone.insert(name); }
    }
    if (kset.empty()) continue;

    TirGemm g = block_gemm(f, blk, func_index);
    Workload& w = g.w;
    std::string note = "block " + blk.name;
    if (!lone.empty()) note += "; output-only axes counted as batch";

    // Conv: make operand a the input (sliding window) and b the filter.
    if (conv && conv_input == 1) {
      std::swap(ea, eb);
      std::swap(fa, fb);
      std::swap(mset, nset);
    }

    // Grouped conv: the output-channel axis counts q (its channels per group) in N and a
    // groups axis of F / q joins the batch (docs/extract.md "Convolutions").
    std::map<std::string, Axis> shape_axes = axes;
    std::vector<std::string> shape_order = order;
    std::set<std::string> shape_bset = bset;
    for (const auto& [name, q] : group_q) {
      const std::int64_t e = *int_const(axes[name].extent.get());
      shape_axes[name].extent = ir::make_int(q, "int64");
      const std::string gname = name + " groups";
      shape_axes[gname] = Axis{gname, ir::IterKind::kSpatial, ir::make_int(e / q, "int64")};
      shape_order.push_back(gname);
      shape_bset.insert(gname);
      note += "; grouped conv: " + std::to_string(e / q) + " groups of " + std::to_string(q) +
              " output channels (groups as batch)";
    }
    std::string bad;
    auto m = extent_product(shape_order, mset, shape_axes, bad);
    auto n = m ? extent_product(shape_order, nset, shape_axes, bad) : std::nullopt;
    auto k = n ? extent_product(shape_order, kset, shape_axes, bad) : std::nullopt;
    auto bt = k ? extent_product(shape_order, shape_bset, shape_axes, bad) : std::nullopt;
    if (!bt) {
      w.shape_known = false;
      w.m = w.n = w.k = w.batch = Dim::symbolic("?");
      note += bad.rfind("the axes", 0) == 0 ? "; extent of " + bad : "; extent of " + bad + " is not an integer expression";
    } else {
      w.m = xsym::to_dim(*m);
      // Padding introduced by a schedule (dlight's low-batch GEMV: M axis extent
      // `(batch_size + 3) // 4 * 4` under a `T.where` guard): m is the logical size, as for the
      // unscheduled function; the padded size the hardware runs is kept in m_padded.
      if (auto mu = extent_product(shape_order, mset, shape_axes, bad, true);
          mu && xsym::to_text(**mu) != xsym::to_text(**m)) {
        w.m_padded = w.m;
        w.m = xsym::to_dim(*mu);
        note += "; M padded by the schedule to " + w.m_padded->str();
      }
      w.n = xsym::to_dim(*n);
      w.k = xsym::to_dim(*k);
      w.batch = xsym::to_dim(*bt);
      if ((*k)->kind == xsym::SymKind::kInt) g.k_extent = (*k)->value;
    }
    g.kvars = kset;

    // Layout from the primary loads.
    w.layout = gemm_layout(fa, fb, kset, mset, nset);

    w.dtype_a = operand_dtype(ea, fi);
    w.dtype_b = operand_dtype(eb, fi);
    g.out_buffer = site.store->buffer;
    w.dtype_accum = fi.dtype_of(site.store->buffer);
    w.dtype_out = output_dtype(fi, site.store->buffer, site.store);

    // Which operand is the weight.
    ExprPtr ia = inline_producers(ea, fi, site.store), ib = inline_producers(eb, fi, site.store);
    QuantContext qc;
    qc.kvars = kset;
    qc.k_extent = g.k_extent;
    qc.dtype_of = [&fi](const std::string& b) { return fi.dtype_of(b); };
    qc.buffer = [&fi](const std::string& b) { return fi.buffer(b); };
    qc.fallback_scale_dtype = per_tensor_scale_dtype(fi);
    struct Cand {
      bool ok = false, quant = false, stat = false;
      std::size_t rank = 0;
      std::string indirect;  // a batch var reaching this operand only through an indirection array
      QuantInfo q;
      std::string qnote;
    };
    auto judge = [&](const ExprPtr& inl, const OperandFacts& facts, const std::set<std::string>& own) {
      Cand c;
      std::set<std::string> nv = own;
      QuantContext qcc = qc;
      qcc.nvars = nv;
      c.q = detect_quant(*inl, qcc, c.qnote);
      c.quant = c.q.weight_bits > 0;
      // Shares a batch axis with the other operand, unless only through an indirection array
      // (MoE experts: the expert's weight chosen per batch element, docs/extract.md).
      std::set<std::string> direct;
      direct_index_vars(*facts.expr, direct);
      bool shared = false;
      for (const auto& vname : facts.vars)
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
    };
    Cand ca = judge(ia, fa, mset), cb = judge(ib, fb, nset);
    int weight = -1;  // 0 a, 1 b
    if (conv) weight = 1;
    else if (ca.ok && cb.ok) {
      if (ca.quant != cb.quant) weight = ca.quant ? 0 : 1;
      else if (ca.stat != cb.stat) weight = ca.stat ? 0 : 1;
      else if (ca.rank != cb.rank) weight = ca.rank < cb.rank ? 0 : 1;
      else weight = 1;
    } else if (ca.ok) weight = 0;
    else if (cb.ok) weight = 1;
    w.weight_operand = weight == 0 ? WeightOperand::kA : weight == 1 ? WeightOperand::kB : WeightOperand::kNone;
    if (weight >= 0) {
      const Cand& c = weight == 0 ? ca : cb;
      w.quant = c.q;
      if (!c.qnote.empty()) note += "; " + c.qnote;
      activation_format(w.quant, weight == 1, *ia, *ib, qc, mset, nset, note);  // block-scaled W and A (quant_mx)
      if (!c.indirect.empty())
        note += "; weight indexed through an indirection array by " + c.indirect + " (experts as batch)";
      g.nvars = weight == 0 ? mset : nset;
      // A plain weight param may be dequantized by another prim_func (Relax pass).
      if (!c.quant) {
        const Expr* root = strip_cast(weight == 0 ? ia.get() : ib.get());
        if (root && root->kind == ExprKind::kLoad) {
          for (std::size_t p = 0; p < fi.param_buffer.size(); ++p)
            if (fi.param_buffer[p] == root->name) {
              g.weight_param = static_cast<int>(p);
              g.weight_load = std::make_shared<Expr>(*root);
            }
        }
      }
    }

    if (conv) {
      w.kind = WorkloadKind::kConv;
      ConvInfo& ci = w.conv;
      for (const auto& name : order) {
        const Axis& ax = axes[name];
        ci.loop_names.push_back(name);
        std::optional<SymPtr> s;
        if (ax.extent) s = xsym::from_ir(*ax.extent);
        ci.loop_extents.push_back(s ? xsym::to_dim(*s) : Dim::symbolic("?"));
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
          if (sv.empty() || rv.empty() || group_q.count(sv)) continue;  // a group's channels, not a window
          ++ci.spatial_dims;
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
      note += "; conv: m = batch x output pixels, n = output channels, k = input channels x kernel volume";
    }
    w.note = note;
    out.push_back(std::move(g));
  }
  for (auto& g : tensorized_gemms(f, fi, func_index)) out.push_back(std::move(g));
  return out;
}

}  // namespace tenet_cost::xtir
