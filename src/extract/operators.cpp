// Non-GEMM operators of a module (docs/extract.md "Operators"): element operations from the blocks that store
// (iteration domain x arithmetic operations of the stored value) and DRAM bytes from the param buffers (each
// whole once, at its dtype), instantiated per call-site shape and counted per Relax function.
#include "extract/operators.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

#include "extract/internal.hpp"
#include "extract/sym.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/ir_visitor.hpp"

namespace tenet_cost::xops {

namespace {

using ir::ExprKind;
using ir::StmtKind;
using sym::SymKind;
using sym::SymPtr;

// ------------------------------------------------------------ polynomials (readable, canonical figures)

using Mono = std::vector<std::string>;  // sorted variable names (a product)
using Poly = std::map<Mono, std::int64_t>;

std::optional<Poly> poly_of(const sym::Sym& s) {
  switch (s.kind) {
    case SymKind::kInt: return s.value == 0 ? Poly{} : Poly{{Mono{}, s.value}};
    case SymKind::kVar: return Poly{{Mono{s.name}, 1}};
    case SymKind::kAdd:
    case SymKind::kSub: {
      auto a = poly_of(*s.a), b = poly_of(*s.b);
      if (!a || !b) return std::nullopt;
      for (const auto& [m, c] : *b) {
        auto& x = (*a)[m];
        x = s.kind == SymKind::kAdd ? checked_add(x, c, "operator figure") : checked_sub(x, c, "operator figure");
        if (x == 0) a->erase(m);
      }
      return a;
    }
    case SymKind::kMul: {
      auto a = poly_of(*s.a), b = poly_of(*s.b);
      if (!a || !b) return std::nullopt;
      Poly out;
      for (const auto& [ma, ca] : *a)
        for (const auto& [mb, cb] : *b) {
          Mono m = ma;
          m.insert(m.end(), mb.begin(), mb.end());
          std::sort(m.begin(), m.end());
          auto& x = out[m];
          x = checked_add(x, checked_mul(ca, cb, "operator figure"), "operator figure");
          if (x == 0) out.erase(m);
        }
      return out;
    }
    default: return std::nullopt;
  }
}

// The canonical form of a polynomial figure (highest degree first: "n * 28672 + 8192"); others as they are.
SymPtr canonical(const SymPtr& s) {
  const auto p = poly_of(*s);
  if (!p) return s;
  std::vector<std::pair<Mono, std::int64_t>> terms(p->begin(), p->end());
  std::stable_sort(terms.begin(), terms.end(),
                   [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  SymPtr out = sym::sym_int(0);
  for (const auto& [m, c] : terms) {
    std::vector<SymPtr> f;
    for (const auto& v : m) f.push_back(sym::sym_var(v));
    f.push_back(sym::sym_int(c < 0 ? checked_sub(0, c, "operator figure") : c));
    out = sym::sym_bin(c < 0 ? SymKind::kSub : SymKind::kAdd, out, xsym::product(f));
  }
  return out;
}

SymPtr substitute(const SymPtr& s, const std::map<std::string, SymPtr>& m) {
  switch (s->kind) {
    case SymKind::kInt: return s;
    case SymKind::kVar: {
      const auto it = m.find(s->name);
      return it == m.end() ? s : it->second;
    }
    default: return sym::sym_bin(s->kind, substitute(s->a, m), substitute(s->b, m));
  }
}

// ------------------------------------------------------------ one prim_func

// Arithmetic operations of a stored value: every operator, comparison and call counts one; casts, loads (and
// the index arithmetic inside them), variables and constants are free.
std::int64_t count_ops(const ir::Expr& e) {
  if (e.kind == ExprKind::kLoad) return 0;
  std::int64_t n = 0;
  switch (e.kind) {
    case ExprKind::kBinary:
    case ExprKind::kUnary:
    case ExprKind::kCall:
    case ExprKind::kSelect: n = 1; break;
    default: break;
  }
  for (const auto& a : e.args)
    if (a) n = checked_add(n, count_ops(*a), "operator ops");
  return n;
}

struct Template {
  SymPtr ops = sym::sym_int(0);
  std::set<std::string> loaded, stored;
  std::string unknown;  // why a figure cannot be stated ("" = known)
  /// Epilogue mode: the GEMM blocks' accumulators; only blocks that consume them (or what those blocks store,
  /// transitively: `results`) are walked, and the GEMM blocks themselves are not.
  const std::set<std::string>* gemm_out = nullptr;
  std::set<std::string> results;
};

void loads_of(const ir::ExprPtr& e, std::set<std::string>& out) {
  if (!e) return;
  std::vector<const ir::Expr*> loads;
  xtir::collect_loads(*e, loads, false);
  for (const auto* l : loads) out.insert(l->name);
}

// The buffers a statement tree loads and stores (every depth, 512 at most).
class Accesses : public ir::StmtVisitor {
 public:
  std::set<std::string> loads, stores;

 protected:
  void visit_stmt(const ir::Stmt& st) override {
    if (st.kind == StmtKind::kStore) {
      stores.insert(st.buffer.str());
      for (const auto& i : st.indices) loads_of(i, loads);
    }
    loads_of(st.value, loads);
    StmtVisitor::visit_stmt(st);
  }
};

bool meets(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return b.count(x) != 0; });
}

// Epilogue mode: whether to walk block `b` (a consumer of the GEMM's result, not the GEMM block); a consumer's
// stores become results too. A consumer with a reduce iter var finishes the GEMM's own reduction (a schedule's
// rfactor or cross-thread sum of partial accumulators): part of the GEMM, whose MACs count the whole K, so not
// walked, but what it stores is the result the epilogue reads.
bool epilogue_block(const ir::Block& b, Template& t) {
  Accesses a;
  a.visit(b.init);
  a.visit(b.body);
  const std::set<std::string>& loads = a.loads;
  const std::set<std::string>& stores = a.stores;
  if (meets(stores, *t.gemm_out) || !meets(loads, t.results)) return false;
  t.results.insert(stores.begin(), stores.end());
  return std::none_of(b.iter_vars.begin(), b.iter_vars.end(),
                      [](const ir::IterVar& v) { return v.kind == ir::IterKind::kReduce; });
}

SymPtr extent_sym(const ir::ExprPtr& e, Template& t, const std::string& what) {
  std::optional<SymPtr> s;
  if (e) s = xsym::from_ir(*e);
  if (!s) {
    if (t.unknown.empty()) t.unknown = "the extent of " + what + " is not an integer expression of shape variables";
    return sym::sym_int(1);
  }
  return *s;
}

// factors: the iteration domain around the statement (the innermost block's iter vars and the loops inside it).
void walk(const ir::StmtPtr& st, std::vector<SymPtr> factors, Template& t, int depth) {
  if (!st) return;
  if (depth > 512) {
    t.unknown = "statements nested deeper than 512";
    return;
  }
  switch (st->kind) {
    case StmtKind::kSeq:
      for (const auto& c : st->children) walk(c, factors, t, depth + 1);
      return;
    case StmtKind::kFor:
      factors.push_back(extent_sym(st->extent, t, "loop " + st->var.str()));
      walk(st->body, factors, t, depth + 1);
      return;
    case StmtKind::kBlock: {
      const ir::Block& b = *st->block;
      if (t.gemm_out && !b.iter_vars.empty() && !epilogue_block(b, t)) return;
      if (!b.iter_vars.empty()) {
        factors.clear();
        for (const auto& iv : b.iter_vars) factors.push_back(extent_sym(iv.extent, t, "block iter var " + iv.name));
      }
      walk(b.init, {}, t, depth + 1);  // T.init() stores: written buffers, no operations counted
      walk(b.body, factors, t, depth + 1);
      return;
    }
    case StmtKind::kStore: {
      t.stored.insert(st->buffer.str());
      loads_of(st->value, t.loaded);
      for (const auto& i : st->indices) loads_of(i, t.loaded);
      const std::int64_t n = st->value ? count_ops(*st->value) : 0;
      if (n > 0 && !factors.empty()) {
        std::vector<SymPtr> f = factors;
        f.push_back(sym::sym_int(n));
        t.ops = sym::sym_bin(SymKind::kAdd, t.ops, xsym::product(f));
      }
      return;
    }
    case StmtKind::kIf:
      loads_of(st->value, t.loaded);
      walk(st->body, factors, t, depth + 1);
      walk(st->else_body, factors, t, depth + 1);
      return;
    case StmtKind::kLet:
    case StmtKind::kEvaluate:
      loads_of(st->value, t.loaded);
      walk(st->body, factors, t, depth + 1);
      return;
    case StmtKind::kAlloc: walk(st->body, factors, t, depth + 1); return;
    case StmtKind::kOther: return;
  }
}

// Bytes of a buffer: elements x bits / 8, rounded up.
SymPtr buffer_bytes(const ir::Buffer& b, Template& t) {
  std::vector<SymPtr> f;
  for (const auto& d : b.shape) f.push_back(extent_sym(d, t, "buffer " + b.name));
  const OptDataType dt = parse_dtype(b.dtype);
  const int bits = dt && dt->code == DataType::Code::kBool ? 8 : scalar_bits(dt);
  if (bits <= 0) {
    if (t.unknown.empty()) t.unknown = "buffer " + b.name + " has dtype '" + b.dtype + "' of unknown width";
    return sym::sym_int(0);
  }
  if (bits % 8 == 0) {
    f.push_back(sym::sym_int(bits / 8));
    return xsym::product(f);
  }
  f.push_back(sym::sym_int(bits));
  return sym::sym_bin(SymKind::kFloorDiv, sym::sym_bin(SymKind::kAdd, xsym::product(f), sym::sym_int(7)),
                      sym::sym_int(8));
}

struct Analyzed {
  SymPtr ops, read, write;
  std::vector<std::string> reads, writes;
  std::string unknown;
};

// `gemm_out`: the function's fused epilogue only (Template::gemm_out); its writes are the GEMM's, not counted.
Analyzed analyze(const ir::PrimFunc& f, const std::set<std::string>* gemm_out = nullptr) {
  Template t;
  t.gemm_out = gemm_out;
  if (gemm_out) t.results = *gemm_out;
  walk(f.body, {}, t, 0);
  if (gemm_out) {
    for (const auto& r : t.results) t.loaded.erase(r);  // the GEMM's result and the epilogue's own stores
    t.stored.clear();
  }
  Analyzed a;
  a.ops = canonical(t.ops);
  a.read = a.write = sym::sym_int(0);
  for (const auto& p : f.params) {
    if (p.kind == ir::ParamKind::kScalar) continue;
    const std::string name = p.buffer.empty() ? p.name : p.buffer;
    const auto it = f.buffers.find(name);
    if (it == f.buffers.end()) continue;
    const bool r = t.loaded.count(name) > 0, w = t.stored.count(name) > 0;
    if (!r && !w) continue;
    const SymPtr bytes = buffer_bytes(it->second, t);
    if (r) {
      a.reads.push_back(name);
      a.read = sym::sym_bin(SymKind::kAdd, a.read, bytes);
    }
    if (w) {
      a.writes.push_back(name);
      a.write = sym::sym_bin(SymKind::kAdd, a.write, bytes);
    }
  }
  a.read = canonical(a.read);
  a.write = canonical(a.write);
  a.unknown = t.unknown;
  return a;
}

// The shape variables of `f`'s param buffers bound by one call site's argument and output shapes.
std::map<std::string, SymPtr> site_bindings(const ir::PrimFunc& f, const CallSite& s) {
  std::map<std::string, SymPtr> out;
  const auto args = xrelax::call_args(*s.call);
  std::vector<ir::StructInfoPtr> outs;
  for (const auto& si : s.call->sinfo_args) {
    if (si && si->kind == ir::SInfoKind::kTuple) outs.insert(outs.end(), si->fields.begin(), si->fields.end());
    else outs.push_back(si);
  }
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const ir::Param& p = f.params[i];
    if (p.kind == ir::ParamKind::kScalar) continue;
    const auto it = f.buffers.find(p.buffer.empty() ? p.name : p.buffer);
    if (it == f.buffers.end()) continue;
    ir::StructInfoPtr si;
    if (i < args.size()) si = s.env->sinfo_of(args[i]);
    else if (i - args.size() < outs.size()) si = outs[i - args.size()];
    if (!si || si->kind != ir::SInfoKind::kTensor || !si->shape_known) continue;
    const auto& shape = it->second.shape;
    if (si->dims.size() != shape.size()) continue;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const ir::Expr* e = shape[d] ? xtir::strip_cast(shape[d].get()) : nullptr;
      if (!e || e->kind != ExprKind::kVar || !si->dims[d]) continue;
      if (auto v = xsym::from_ir(*si->dims[d])) out.emplace(e->name.str(), *v);
    }
  }
  return out;
}

}  // namespace

std::vector<OperatorWorkload> module_operators(const ir::Module& module, const OperatorInputs& in) {
  std::vector<OperatorWorkload> out;
  std::set<std::string> seen;
  for (std::size_t fi = 0; fi < module.prim_funcs.size(); ++fi) {
    const ir::PrimFunc& f = module.prim_funcs[fi];
    if (!seen.insert(f.name).second) continue;  // calls are attributed to the first definition
    const auto sources = in.epilogue_sources.find(fi);
    const bool epilogue = sources != in.epilogue_sources.end();
    if ((in.not_operators.count(fi) && !epilogue) || in.dequantizers.count(f.name)) continue;
    OperatorWorkload base;
    base.function = f.name;
    base.loc = f.loc;
    base.epilogue = epilogue;
    if (epilogue)
      base.note = "the fused epilogue of the GEMM " + f.name +
                  ": element ops and the extra inputs it reads (the output write is the GEMM's)";
    Analyzed a;
    try {
      a = analyze(f, epilogue ? &sources->second : nullptr);
    } catch (const InputError& e) {  // an overflowing figure
      a.unknown = e.what();
    }
    // a GEMM without an epilogue (or one that only casts its result) has no operator record
    if (epilogue && a.unknown.empty() && a.reads.empty() && sym::to_text(*a.ops) == "0") continue;
    if (!a.unknown.empty()) {
      base.shape_known = false;
      base.ops = base.read_bytes = base.write_bytes = Dim::unknown();
      base.note = a.unknown;
      out.push_back(base);
      continue;
    }
    base.reads = a.reads;
    base.writes = a.writes;
    auto instance = [&](const std::map<std::string, SymPtr>& b) {
      OperatorWorkload w = base;
      w.ops = Dim::symbolic(canonical(substitute(a.ops, b)));
      w.read_bytes = Dim::symbolic(canonical(substitute(a.read, b)));
      w.write_bytes = Dim::symbolic(canonical(substitute(a.write, b)));
      return w;
    };
    const std::vector<CallSite>* sites = in.sites ? in.sites(f.name) : nullptr;
    if (!sites || sites->empty()) {
      out.push_back(instance({}));
      continue;
    }
    // one record per distinct instantiated figure, its direct calls per Relax function
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
    std::vector<std::map<std::string, std::int64_t>> direct;
    const std::size_t first = out.size();
    for (const CallSite& s : *sites) {
      OperatorWorkload w;
      try {
        w = instance(site_bindings(f, s));
      } catch (const InputError& e) {
        w = base;
        w.shape_known = false;
        w.ops = w.read_bytes = w.write_bytes = Dim::unknown();
        w.note = e.what();
      }
      const auto key = std::make_tuple(w.ops.str(), w.read_bytes.str(), w.write_bytes.str());
      auto [it, fresh] = index.emplace(key, out.size() - first);
      if (fresh) {
        out.push_back(w);
        direct.emplace_back();
      }
      auto& n = direct[it->second][s.env->f.name];
      n = checked_add(n, 1, "call count");
    }
    for (std::size_t i = 0; i < direct.size(); ++i)
      out[first + i].calls = in.propagate ? in.propagate(direct[i]) : direct[i];
  }
  return out;
}

}  // namespace tenet_cost::xops
