// Tensorized GEMMs (docs/extract.md "Tensorized blocks"): after `tensorize` the multiply-accumulate exists only as
// an intrinsic over small tiles (wmma / PTX mma fragments, Metal simdgroup matrices, a dot-product extern or LLVM
// intrinsic). The GEMM is the loop nest around the intrinsic: M/N/K/batch = the extents of the block iter vars its
// regions use (those of enclosing blocks included: a blockized intrinsic sits in an inner block of unit extents) x
// the intrinsic's tile, from the regions' sizes (|A| = Mt*Kt, |B| = Kt*Nt, |C| = Mt*Nt). The operands' quantization
// comes from the store that fills a fragment from parameters, found back through the region copies.
#include <algorithm>
#include <array>
#include <cmath>

#include "extract/tir_axes.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/dtype.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;
using sym::SymPtr;

namespace {

/// A named multiply-accumulate intrinsic over buffer regions.
bool is_mma_intrinsic(const ir::Symbol& name) {
  return name == "tvm_mma_sync" || name == "tvm_bmma_sync" || name == "ptx_mma" || name == "ptx_mma_sp" ||
         name == "mma_sync" || name == "wmma_mma_sync" || name == "metal.simdgroup_multiply_accumulate" ||
         name == "simdgroup_multiply_accumulate";
}

/// An opaque call whose semantics the IR does not state: an extern or an LLVM intrinsic (a dot-product
/// instruction: `T.call_llvm_pure_intrin(T.uint32(id), ..)` of VNNI / sdot4 / vrmpy, `T.call_pure_extern("int32",
/// "__dp4a", ..)`).
bool is_opaque_call(const ir::Symbol& name) {
  return name == "call_extern" || name == "call_pure_extern" || name == "call_llvm_intrin" ||
         name == "call_llvm_pure_intrin";
}

/// A string argument that names no dtype: an extern's symbol, not the result type in front of it ("void" counts
/// as a symbol here, as it always has).
bool is_symbol_text(const std::string& text) {
  const auto t = parse_dtype(text);
  return !t || t->is_void();
}

/// The intrinsic's name for the note: the extern's symbol when it has one.
std::string intrinsic_label(const Expr& call) {
  if (is_opaque_call(call.name))
    for (const auto& a : call.args)
      if (a && a->kind == ExprKind::kString && is_symbol_text(a->name.str()))
        return call.name.str() + " " + a->name.str();  // the symbol, not the result type in front of it
  return call.name.str();
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
OptDataType region_output_dtype(const FuncIndex& fi, const std::string& acc, const ir::Block* gemm) {
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

/// Where a tensorized multiply-accumulate happens: the intrinsic call, its innermost block and the blocks around.
struct MacSite {
  const Expr* call = nullptr;
  const ir::Block* block = nullptr;
  const std::vector<const ir::Block*>* chain = nullptr;
};

/// The call a store computes when its value is one (`C[..] = call(..)` or `C[..] = C[..] + call(..)`).
const Expr* stored_call(const ir::Stmt& store) {
  const Expr* v = strip_cast(store.value.get());
  if (v && v->kind == ExprKind::kBinary && v->bin_op == ir::BinOp::kAdd && v->args.size() == 2) {
    for (const auto& a : v->args) {
      const Expr* c = strip_cast(a.get());
      if (c && c->kind == ExprKind::kCall && (is_opaque_call(c->name) || is_mma_intrinsic(c->name))) return c;
    }
    return nullptr;
  }
  return v && v->kind == ExprKind::kCall && (is_opaque_call(v->name) || is_mma_intrinsic(v->name)) ? v : nullptr;
}

/// Every multiply-accumulate intrinsic of the function in a block: evaluated (`T.tvm_mma_sync(..)`) or stored
/// (`C[0:16] = T.call_llvm_pure_intrin(..)`), first call per innermost block.
std::vector<MacSite> mac_sites(const FuncIndex& fi) {
  std::vector<MacSite> out;
  std::set<const ir::Block*> seen;
  for (const auto& cs : fi.calls)
    if (cs.block && (is_mma_intrinsic(cs.call->name) || is_opaque_call(cs.call->name)) && seen.insert(cs.block).second)
      out.push_back({cs.call, cs.block, &cs.chain});
  for (const auto& site : fi.stores) {
    if (site.in_init || !site.block || !site.store->value) continue;
    if (const Expr* c = stored_call(*site.store); c && seen.insert(site.block).second)
      out.push_back({c, site.block, &site.chain});
  }
  return out;
}

/// ptx_mma's MACs per block: the sum of its calls' "mMnNkK" shapes, or nullopt when a call has none.
std::optional<std::int64_t> block_ptx_macs(const FuncIndex& fi, const ir::Block* blk) {
  std::int64_t sum = 0;
  bool any = false;
  for (const auto& cs : fi.calls) {
    if (cs.block != blk || !is_mma_intrinsic(cs.call->name)) continue;
    const auto macs = ptx_shape_macs(*cs.call);
    if (!macs) return std::nullopt;
    any = true;
    sum = *macs > INT64_MAX - sum ? INT64_MAX : sum + *macs;  // INT64_MAX: more than any tile (< 2^61), disagrees
  }
  if (!any) return std::nullopt;
  return sum;
}

/// s * t with the constant factors folded (`2 * ((b + 15) // 16)` x 8 -> `(b + 15) // 16 * 16`, so a padded
/// extent is recognised by `unpadded`).
SymPtr scaled(const SymPtr& s, std::int64_t t) {
  using sym::SymKind;
  if (s->kind == SymKind::kInt) return sym::sym_int(checked_mul(s->value, t, "extent product"));
  if (s->kind == SymKind::kMul && s->b->kind == SymKind::kInt)
    return xsym::product({s->a, sym::sym_int(checked_mul(s->b->value, t, "extent product"))});
  if (s->kind == SymKind::kMul && s->a->kind == SymKind::kInt)
    return xsym::product({s->b, sym::sym_int(checked_mul(s->a->value, t, "extent product"))});
  return xsym::product({s, sym::sym_int(t)});
}

/// The fragment tile Mt x Nt x Kt from the regions' element counts; `bad` says why not.
std::optional<std::array<std::int64_t, 3>> fragment_tile(const ir::BufferRegion& ra, const ir::BufferRegion& rb,
                                                         const ir::BufferRegion& rc, std::optional<std::int64_t> macs,
                                                         std::string& bad) {
  const auto ea = region_elems(ra), eb = region_elems(rb), ec = region_elems(rc);
  // sqrt(x * y / z) when exact (a product too large for 64 bits is no fragment tile)
  auto ratio = [](std::int64_t x, std::int64_t y, std::int64_t z) -> std::optional<std::int64_t> {
    if (x > INT64_MAX / y || (x * y) % z != 0) return std::nullopt;
    return exact_sqrt(x * y / z);
  };
  std::optional<std::int64_t> mt, nt, kt;
  if (ea && eb && ec) {
    mt = ratio(*ea, *ec, *eb);
    nt = ratio(*eb, *ec, *ea);
    kt = ratio(*ea, *eb, *ec);
  }
  if (!mt || !nt || !kt) {
    bad = "fragment tile not derivable from the regions' sizes";
    return std::nullopt;
  }
  if (macs && *macs > 0 && *macs != *mt * *nt * *kt) {
    bad = fmt::format("fragment tile {}x{}x{} from the regions disagrees with the intrinsics' shapes ({} MACs)", *mt,
                      *nt, *kt, *macs);
    return std::nullopt;
  }
  return std::array<std::int64_t, 3>{*mt, *nt, *kt};
}

/// The store that fills an operand's fragment from parameters, found back through the blocks that copy regions
/// (fragment loads, simdgroup loads, ldmatrix), with its index vars split into K and the operand's own axis: the
/// dims of each copied region are matched through the copy block's iter vars (a transposing simdgroup load swaps
/// them).
struct RootStore {
  const StoreSite* site = nullptr;
  std::set<std::string> kvars, own;
};

std::optional<RootStore> root_store(const FuncIndex& fi, const ir::BufferRegion& r, const std::set<std::string>& kset,
                                    const std::set<std::string>& own, const ir::Block* gemm) {
  auto dim_vars = [](const ir::BufferRegion& reg, std::size_t d) {
    std::set<std::string> vs;
    if (d < reg.region.size() && reg.region[d].min) collect_vars(*reg.region[d].min, vs);
    return vs;
  };
  std::vector<char> cls;  // per dim of the current buffer: 'K', 'O' (own axis) or 0
  for (std::size_t d = 0; d < r.region.size(); ++d) {
    char c = 0;
    for (const auto& v : dim_vars(r, d)) c = kset.count(v) ? 'K' : own.count(v) ? 'O' : c;
    cls.push_back(c);
  }
  std::string buffer = r.buffer;
  for (int depth = 0; depth < 8; ++depth) {
    if (fi.param_buffers.count(buffer)) return std::nullopt;
    if (auto it = fi.writers.find(buffer); it != fi.writers.end() && it->second.size() == 1) {
      const StoreSite& s = fi.stores[it->second[0]];
      if (s.store->indices.size() != cls.size()) return std::nullopt;
      RootStore out;
      out.site = &s;
      for (std::size_t d = 0; d < cls.size(); ++d) {
        std::set<std::string> vs;
        if (s.store->indices[d]) collect_vars(*s.store->indices[d], vs);
        if (cls[d] == 'K') out.kvars.insert(vs.begin(), vs.end());
        if (cls[d] == 'O') out.own.insert(vs.begin(), vs.end());
      }
      return out;
    }
    const ir::Block* copy = nullptr;
    for (const ir::Block* b : fi.blocks)
      if (b != gemm &&
          std::any_of(b->writes.begin(), b->writes.end(), [&](const auto& w) { return w.buffer == buffer; }))
        copy = copy ? nullptr : b;  // exactly one writer
    if (!copy || copy->writes.size() != 1 || copy->reads.size() != 1) return std::nullopt;
    const ir::BufferRegion& w = copy->writes[0];
    const ir::BufferRegion& src = copy->reads[0];
    std::vector<char> next(src.region.size(), 0);
    for (std::size_t e = 0; e < src.region.size(); ++e) {
      const auto ve = dim_vars(src, e);
      for (std::size_t d = 0; d < w.region.size() && d < cls.size(); ++d) {
        const auto vd = dim_vars(w, d);
        if (std::any_of(vd.begin(), vd.end(), [&](const auto& v) { return ve.count(v) > 0; })) next[e] = cls[d];
      }
    }
    buffer = src.buffer;
    cls = std::move(next);
  }
  return std::nullopt;
}

/// Is the operand stored transposed at its root (A: K before M; B: N before K), from the root store's param load?
std::optional<bool> root_transposed(const FuncIndex& fi, const RootStore& rs, bool is_a) {
  const ExprPtr v = inline_producers(rs.site->store->value, fi, rs.site->store);
  std::vector<const Expr*> loads;
  collect_loads(*v, loads, true);
  const Expr* best = nullptr;
  std::size_t most = 0;
  for (const Expr* l : loads) {
    std::set<std::string> vs;
    for (const auto& i : l->args)
      if (i) collect_vars(*i, vs);
    std::size_t n = 0;
    for (const auto& x : vs) n += rs.kvars.count(x) + rs.own.count(x);
    if (fi.param_buffers.count(l->name) && n > most) {
      best = l;
      most = n;
    }
  }
  const auto k = positions(best, rs.kvars), o = positions(best, rs.own);
  if (k.empty() || o.empty()) return std::nullopt;
  return is_a ? k.front() < o.back() : o.back() < k.front();
}

/// The tensorized GEMM of one intrinsic site, or nullopt when the site is no GEMM (a fill / load / store tile).
std::optional<TirGemm> site_gemm(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index,
                                 const MacSite& site) {
  const ir::Block& blk = *site.block;
  if (blk.writes.size() != 1) return std::nullopt;
  const ir::BufferRegion& rc = blk.writes[0];
  std::vector<const ir::BufferRegion*> ops;
  for (const auto& r : blk.reads)
    if (r.buffer != rc.buffer) ops.push_back(&r);
  if (ops.size() != 2) return std::nullopt;
  const ir::BufferRegion& ra = *ops[0];
  const ir::BufferRegion& rb = *ops[1];

  // Axes: the block's iter vars and those of the enclosing blocks that the regions use (outer first).
  const ExprPtr la = region_load(ra), lb = region_load(rb), lc = region_load(rc);
  std::set<std::string> referenced;
  for (const ExprPtr& l : {la, lb, lc}) collect_vars(*l, referenced);
  std::map<std::string, Axis> axes;
  std::vector<std::string> order;
  for (const ir::Block* b : *site.chain)
    for (const auto& iv : b->iter_vars)
      if ((b == site.block || referenced.count(iv.name)) && !axes.count(iv.name)) {
        axes[iv.name] = Axis{iv.name, iv.kind, iv.extent};
        order.push_back(iv.name);
      }
  OperandFacts fa = operand_facts(la, axes), fb = operand_facts(lb, axes), fc = operand_facts(lc, axes);
  std::set<std::string> kset, mset, nset, bset;
  bool lone = false;
  for (const auto& name : order) {
    const bool ia = fa.vars.count(name) > 0, ib = fb.vars.count(name) > 0;
    if (is_reduce(axes[name].kind)) {
      if (ia || ib || !referenced.count(name)) kset.insert(name);
    } else if (ia && ib) {
      bset.insert(name);
    } else if (ia) {
      mset.insert(name);
    } else if (ib) {
      nset.insert(name);
    } else if (fc.vars.count(name)) {
      bset.insert(name);
      lone = true;
    }
  }
  // a fragment fill / load / store tile (no reduction) is never a workload; an opaque call (an extern decode) only
  // in a block that reduces itself
  const bool own_reduce =
      std::any_of(blk.iter_vars.begin(), blk.iter_vars.end(), [](const auto& v) { return is_reduce(v.kind); });
  const bool outer_reduce =
      std::any_of(kset.begin(), kset.end(), [&](const auto& v) { return referenced.count(v) > 0; });
  if (!own_reduce && (!outer_reduce || is_opaque_call(site.call->name))) return std::nullopt;

  TirGemm g = block_gemm(f, blk, func_index);
  Workload& w = g.w;
  std::string note = "block " + blk.name + "; tensorized (" + intrinsic_label(*site.call) + ")";
  if (lone) note += "; output-only axes counted as batch";

  std::string bad;
  const auto tile = fragment_tile(ra, rb, rc, block_ptx_macs(fi, &blk), bad);
  std::optional<SymPtr> m, n, k, bt;
  if (tile) {
    std::string which;
    m = extent_product(order, mset, axes, which);
    n = m ? extent_product(order, nset, axes, which) : std::nullopt;
    k = n ? extent_product(order, kset, axes, which) : std::nullopt;
    bt = k ? extent_product(order, bset, axes, which) : std::nullopt;
    try {
      if (bt) {
        m = scaled(*m, (*tile)[0]);
        n = scaled(*n, (*tile)[1]);
        k = scaled(*k, (*tile)[2]);
      }
    } catch (const OverflowError&) {
      bt.reset();
      which = "the axes' product (it overflows 64 bits)";
    }
    if (!bt) bad = "extent of " + which;
  }
  if (!bad.empty()) {
    w.shape_known = false;
    w.m = w.n = w.k = w.batch = Dim::unknown();
    note += "; " + bad;
  } else {
    w.m = Dim::symbolic(*m);
    if (const SymPtr mu = unpadded(*m); sym::to_text(*mu) != sym::to_text(**m)) {
      w.m_padded = w.m;  // the schedule padded M (docs/extract.md "Scheduled padding")
      w.m = Dim::symbolic(mu);
      note += "; M padded by the schedule to " + w.m_padded->str();
    }
    w.n = Dim::symbolic(*n);
    w.k = Dim::symbolic(*k);
    w.batch = Dim::symbolic(*bt);
    if ((*k)->kind == sym::SymKind::kInt) g.k_extent = (*k)->value;
    note += fmt::format("; M/N/K = the block's iter-var extents x the fragment tile {}x{}x{} (from the regions' sizes)",
                        (*tile)[0], (*tile)[1], (*tile)[2]);
  }
  g.kvars = kset;
  w.dtype_a = fi.dtype_of(ra.buffer);
  w.dtype_b = fi.dtype_of(rb.buffer);
  w.dtype_accum = fi.dtype_of(rc.buffer);
  w.dtype_out = region_output_dtype(fi, rc.buffer, &blk);
  g.out_buffer = rc.buffer;

  // Weight: an operand copied (through fragment loads and shared copies) from parameters only, sharing no batch
  // axis with the other; both -> b, as for an untensorized GEMM.
  auto weight_ok = [&](const ir::BufferRegion& r, const OperandFacts& facts) {
    for (const auto& v : facts.vars)
      if (bset.count(v)) return false;
    std::set<std::string> roots;
    return region_roots(fi, r.buffer, &blk, 0, roots) && !roots.empty();
  };
  const bool ok_a = weight_ok(ra, fa), ok_b = weight_ok(rb, fb);
  w.weight_operand = ok_b ? WeightOperand::kB : ok_a ? WeightOperand::kA : WeightOperand::kNone;
  g.nvars = ok_b || !ok_a ? nset : mset;

  // Layout: from the roots (the parameters as stored) when found, else from the fragments' regions.
  const auto root_a = root_store(fi, ra, kset, mset, &blk), root_b = root_store(fi, rb, kset, nset, &blk);
  w.layout = gemm_layout(fa, fb, kset, mset, nset);
  if (root_a)
    if (auto t = root_transposed(fi, *root_a, true)) w.layout[0] = *t ? 'T' : 'N';
  if (root_b)
    if (auto t = root_transposed(fi, *root_b, false)) w.layout[1] = *t ? 'T' : 'N';

  // The weight's quantization: the store that fills its fragment (a dequantize in the shared copy).
  const auto& root = w.weight_operand == WeightOperand::kA ? root_a : root_b;
  if (w.weight_operand != WeightOperand::kNone && root) {
    QuantContext qc;
    qc.kvars = root->kvars;
    qc.nvars = root->own;
    qc.k_extent = g.k_extent;
    qc.dtype_of = [&fi](const std::string& b) { return fi.dtype_of(b); };
    qc.buffer = [&fi](const std::string& b) { return fi.buffer(b); };
    std::string qnote;
    const ExprPtr value = inline_producers(root->site->store->value, fi, root->site->store);
    w.quant = detect_quant(*value, qc, qnote);
    if (w.quant.weight_bits > 0)
      note += "; weight quantization from the store filling its fragment (block " + root->site->block->name + ")";
    if (!qnote.empty()) note += "; " + qnote;
  }
  w.note = note;
  std::vector<std::size_t> channel;  // the accumulator's dims over the weight's own (output-channel) axes
  for (std::size_t d = 0; d < rc.region.size(); ++d)
    if (rc.region[d].min) {
      std::set<std::string> vs;
      collect_vars(*rc.region[d].min, vs);
      if (std::any_of(vs.begin(), vs.end(), [&](const auto& v) { return g.nvars.count(v) > 0; })) channel.push_back(d);
    }
  integer_weight_quant(fi, rc.buffer, channel, &blk, w);
  return g;
}

}  // namespace

std::vector<TirGemm> tensorized_gemms(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index) {
  std::vector<TirGemm> out;
  for (const MacSite& site : mac_sites(fi))
    if (auto g = site_gemm(f, fi, func_index, site)) out.push_back(std::move(*g));
  return out;
}

}  // namespace tenet_cost::xtir
