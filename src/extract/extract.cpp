// extract_workloads: TIR GEMMs/convs of every prim_func, Relax-level GEMMs,
// call counts per entry, attention builtins, bindings of symbolic dims.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <set>
#include <span>
#include <tuple>

#include "extract/internal.hpp"
#include "extract/relax_scan.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"

namespace tenet_cost {

using xrelax::Env;
using xrelax::Root;
using xsym::SymPtr;

// ------------------------------------------------------------------ Relax -> Relax calls

namespace {

using RelaxCallGraph = std::map<std::string, std::map<std::string, std::int64_t>>;

// `cls.f`, `Module.f` or `f` as the op of a Relax call -> "f"; "" for R.* operators.
std::string relax_callee(const std::string& op) {
  return op.empty() || op.rfind("R.", 0) == 0 ? std::string() : xrelax::unqualified_function(op);
}

// times[F][G] = how many times G runs per run of F (F itself once), through any chain of
// calls. A recursive chain has no finite count: its edges are dropped with a note, as are
// chains deeper than kMaxCallDepth.
std::map<std::string, std::map<std::string, std::int64_t>> executions_per_call(const RelaxCallGraph& graph,
                                                                            std::vector<std::string>& skipped) {
  std::map<std::string, std::map<std::string, std::int64_t>> times;
  std::set<std::string> active;
  constexpr std::size_t kMaxCallDepth = 64;  // real dumps nest 2 levels; bounds the recursion below
  std::function<const std::map<std::string, std::int64_t>&(const std::string&)> visit =
      [&](const std::string& f) -> const std::map<std::string, std::int64_t>& {
    if (auto it = times.find(f); it != times.end()) return it->second;
    active.insert(f);
    std::map<std::string, std::int64_t> t{{f, 1}};
    if (auto g = graph.find(f); g != graph.end())
      for (const auto& [callee, n] : g->second) {
        if (active.count(callee)) {
          spdlog::debug("{}: recursive call of Relax function {} not followed", f, callee);
          skipped.push_back(f + ": recursive call of Relax function " + callee + " not followed");
          continue;
        }
        if (active.size() >= kMaxCallDepth) {
          skipped.push_back(f + ": call of Relax function " + callee + " not followed (chain deeper than " +
                            std::to_string(kMaxCallDepth) + ")");
          continue;
        }
        for (const auto& [h, k] : visit(callee)) {
          auto& x = t[h];
          x = checked_add(x, checked_mul(n, k, "call count"), "call count");
        }
      }
    active.erase(f);
    return times[f] = std::move(t);
  };
  for (const auto& [f, callees] : graph) visit(f);
  return times;
}

// Direct counts per Relax function -> counts including the calls made through callees.
std::map<std::string, std::int64_t> propagate_calls(const std::map<std::string, std::int64_t>& direct,
                                                    const std::map<std::string, std::map<std::string, std::int64_t>>& times) {
  std::map<std::string, std::int64_t> out = direct;
  for (const auto& [f, t] : times) {
    std::int64_t total = 0;
    for (const auto& [g, k] : t)
      if (auto d = direct.find(g); d != direct.end()) total = checked_add(total, checked_mul(k, d->second, "call count"), "call count");
    if (total > 0) out[f] = total;
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------------ bindings

std::map<std::string, std::int64_t> parse_bindings(const std::string& text) {
  std::map<std::string, std::int64_t> out;
  auto trim = [](std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
  };
  if (trim(text).empty()) return out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = trim(text.substr(start, comma - start));
    const auto eq = item.find('=');
    if (item.empty() || eq == std::string::npos)
      throw InputError("--bind: expected name=integer, found '" + item + "' in '" + text + "'");
    const std::string name = trim(item.substr(0, eq)), val = trim(item.substr(eq + 1));
    bool ident = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ident) throw InputError("--bind: expected a name before '=', found '" + name + "'");
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (val.empty() || ec != std::errc() || p != val.data() + val.size())
      throw InputError("--bind: expected an integer for '" + name + "', found '" + val + "'");
    if (v < 0) throw InputError("--bind: '" + name + "' must not be negative, found " + val);
    if (!out.emplace(name, v).second) throw InputError("--bind: '" + name + "' is bound twice");
    if (comma >= text.size()) break;
    start = comma + 1;
  }
  return out;
}

Dim bind_dim(const Dim& d, const std::map<std::string, std::int64_t>& bindings, bool require_known) {
  if (d.known()) return d;
  if (d.expr.empty() || d.expr == "?") {
    if (require_known) throw InputError("a dimension is unknown (its shape could not be determined)");
    return d;
  }
  SymPtr s = xsym::bind(xsym::parse(d.expr), bindings);
  if (s->kind == xsym::SymKind::kInt) return Dim::constant(s->value);
  if (require_known) {
    std::set<std::string> names;
    xsym::collect_names(*s, names);
    std::string un, bound;
    for (const auto& n : names) un += (un.empty() ? "" : ", ") + n;
    for (const auto& [k, v] : bindings) bound += (bound.empty() ? "" : ", ") + k;
    throw InputError("unbound symbolic dimension(s) " + un + " in '" + d.expr + "' (bind them with --bind " +
                     *names.begin() + "=N; bound: " + (bound.empty() ? "none" : bound) + ")");
  }
  return xsym::to_dim(s);
}

// ------------------------------------------------------------------ helpers

namespace {

std::optional<SymPtr> dim_sym(const ir::ExprPtr& e) {
  if (!e) return std::nullopt;
  return xsym::from_ir(*e);
}

std::string sinfo_dtype(const ir::StructInfoPtr& s) { return s ? s->dtype.str() : std::string(); }

bool tensor_known(const ir::StructInfoPtr& s) {
  return s && s->kind == ir::SInfoKind::kTensor && s->shape_known && !s->dims.empty();
}

std::optional<std::int64_t> const_dim(const ir::StructInfoPtr& s, int from_end) {
  if (!tensor_known(s) || static_cast<int>(s->dims.size()) < from_end) return std::nullopt;
  return xtir::int_const(s->dims[s->dims.size() - static_cast<std::size_t>(from_end)].get());
}

/// Does this permute_dims swap the last two axes (a transposed operand)?
bool swaps_last_two(const Env& env, const ir::RExprPtr& v) {
  if (!v || v->kind != ir::RExprKind::kVar) return false;
  const ir::Binding* b = env.binding(v->name);
  if (!b || !b->value || b->value->kind != ir::RExprKind::kCall || b->value->op != "R.permute_dims") return false;
  ir::StructInfoPtr x = env.sinfo_of(b->value->args.empty() ? nullptr : b->value->args[0]);
  std::size_t nd = 2;
  if (x && x->ndim > 0) nd = static_cast<std::size_t>(x->ndim);
  else if (x && !x->dims.empty()) nd = x->dims.size();
  auto p = xrelax::permutation(*b->value, nd);
  return p && nd >= 2 && (*p)[nd - 1] == nd - 2 && (*p)[nd - 2] == nd - 1;
}

struct PrimTable {
  const ir::Module& mod;
  std::map<std::string, std::size_t> first;  // name -> first prim_func index
  std::map<std::size_t, std::unique_ptr<xtir::FuncIndex>> cache;
  explicit PrimTable(const ir::Module& m) : mod(m) {
    for (std::size_t i = 0; i < m.prim_funcs.size(); ++i) first.emplace(m.prim_funcs[i].name, i);
  }
  const xtir::FuncIndex* index(const std::string& name) {
    auto it = first.find(name);
    if (it == first.end()) return nullptr;
    auto& slot = cache[it->second];
    if (!slot) slot = std::make_unique<xtir::FuncIndex>(mod.prim_funcs[it->second]);
    return slot.get();
  }
};

/// Quantization of a weight produced by `call_tir(D, args)` in another prim_func.
std::optional<QuantInfo> external_dequant(PrimTable& prims, const Root& r, std::span<const ir::ExprPtr> index,
                                          const std::set<std::string>& kvars, const std::set<std::string>& nvars,
                                          std::optional<std::int64_t> k_extent, std::string& producer,
                                          std::string& note) {
  if (r.kind != Root::kCall || !r.call || r.call->op.rfind("R.call_tir", 0) != 0 || r.call->args.empty()) return {};
  const std::string d = xrelax::callee_name(*r.call->args[0]);
  const xtir::FuncIndex* fi = prims.index(d);
  if (!fi) return {};
  const int out_param = static_cast<int>(xrelax::call_args(*r.call).size()) + std::max(0, r.tuple_index);
  ir::ExprPtr v = xtir::producer_value(*fi, out_param, index);
  if (!v) return {};
  xtir::QuantContext qc;
  qc.kvars = kvars;
  qc.nvars = nvars;
  qc.k_extent = k_extent;
  qc.dtype_of = [fi](const std::string& b) { return fi->dtype_of(b); };
  qc.buffer = [fi](const std::string& b) { return fi->buffer(b); };
  QuantInfo q = xtir::detect_quant(*v, qc, note);
  if (q.weight_bits == 0) return {};
  producer = d;
  return q;
}

ir::ExprPtr mk_var(const std::string& n) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = ir::ExprKind::kVar;
  e->name = n;
  e->dtype = "int64";
  return e;
}

struct RelaxWork {
  Workload w;
  std::string key;
};

std::string signature(const Workload& w) {
  const QuantInfo& q = w.quant;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", static_cast<int>(w.kind), w.m.str(),
                     w.n.str(), w.k.str(), w.batch.str(), w.layout, w.dtype_a, w.dtype_b, w.dtype_out, w.dtype_accum,
                     w.weight_operand, q.scheme, q.weight_bits, q.group_size, q.storage_dtype, q.scale_dtype,
                     q.weight_layout, w.source, w.shape_known);
}

/// R.matmul(a, b): numpy semantics, shapes from struct info.
Workload relax_matmul(const Env& env, const ir::Binding& b, PrimTable& prims) {
  Workload w;
  w.source = "relax";
  w.function = env.f.name + "/" + b.var;
  w.loc = b.loc;
  const ir::RExpr& call = *b.value;
  w.note = "R.matmul";
  if (call.args.size() < 2) {
    w.shape_known = false;
    w.m = w.n = w.k = w.batch = Dim::symbolic("?");
    w.note += "; fewer than two operands";
    return w;
  }
  const auto& ea = call.args[0];
  const auto& eb = call.args[1];
  ir::StructInfoPtr sa = env.sinfo_of(ea), sb = env.sinfo_of(eb);
  w.dtype_a = sinfo_dtype(sa);
  w.dtype_b = sinfo_dtype(sb);
  std::string out_dtype;
  for (const auto& [k, v] : call.kwargs)
    if (k == "out_dtype" && v && v->kind == ir::RExprKind::kString) out_dtype = v->name;
  if (out_dtype.empty() || out_dtype == "void") out_dtype = b.sinfo ? b.sinfo->dtype.str() : std::string();
  if (out_dtype.empty() || out_dtype == "void") out_dtype = w.dtype_a;
  w.dtype_out = w.dtype_accum = out_dtype;
  w.layout = std::string(swaps_last_two(env, ea) ? "T" : "N") + (swaps_last_two(env, eb) ? "T" : "N");

  const bool ok = tensor_known(sa) && tensor_known(sb);
  std::vector<SymPtr> da, db;
  bool conv_ok = ok;
  if (ok) {
    for (const auto& d : sa->dims) {
      auto s = dim_sym(d);
      if (!s) conv_ok = false;
      else da.push_back(*s);
    }
    for (const auto& d : sb->dims) {
      auto s = dim_sym(d);
      if (!s) conv_ok = false;
      else db.push_back(*s);
    }
  }
  if (!conv_ok) {
    w.shape_known = false;
    w.m = w.n = w.k = w.batch = Dim::symbolic("?");
    w.note += "; operand shapes not in the struct info";
  } else {
    SymPtr m = xsym::sym_int(1), n = xsym::sym_int(1), k;
    std::vector<SymPtr> ba, bb;
    if (da.size() == 1) k = da[0];
    else {
      m = da[da.size() - 2];
      k = da.back();
      ba.assign(da.begin(), da.end() - 2);
    }
    if (db.size() >= 2) {
      n = db.back();
      bb.assign(db.begin(), db.end() - 2);
    }
    std::vector<SymPtr> batch;
    const std::size_t nb = std::max(ba.size(), bb.size());
    for (std::size_t i = 0; i < nb; ++i) {
      const SymPtr* x = i + ba.size() >= nb ? &ba[i + ba.size() - nb] : nullptr;
      const SymPtr* y = i + bb.size() >= nb ? &bb[i + bb.size() - nb] : nullptr;
      if (!x) batch.push_back(*y);
      else if (!y) batch.push_back(*x);
      else if ((*x)->kind == xsym::SymKind::kInt && (*x)->value == 1) batch.push_back(*y);
      else batch.push_back(*x);
    }
    w.m = xsym::to_dim(m);
    w.n = xsym::to_dim(n);
    w.k = xsym::to_dim(k);
    w.batch = xsym::to_dim(xsym::product(batch));
  }

  // Weight: a 2-D parameter (possibly transposed) or a dequantized prim_func output.
  auto weight_of = [&](const ir::RExprPtr& e, bool second) -> std::optional<QuantInfo> {
    Root r = env.root(e);
    ir::StructInfoPtr s = env.sinfo_of(e);
    const bool two_d = s && ((s->shape_known && s->dims.size() == 2) || s->ndim == 2);
    if (!two_d) return std::nullopt;
    if (r.kind == Root::kParam || r.kind == Root::kConstant) return QuantInfo{};
    if (r.kind == Root::kCall) {
      // Output O of the producer: [N, K] when transposed by permute_dims, else [K, N] (b);
      // operand a: [M, K] / [K, M].
      const bool t = swaps_last_two(env, e);
      std::vector<ir::ExprPtr> idx = t ? std::vector<ir::ExprPtr>{mk_var("__n"), mk_var("__k")}
                                       : std::vector<ir::ExprPtr>{mk_var("__k"), mk_var("__n")};
      if (!second) std::swap(idx[0], idx[1]);
      std::string producer, note;
      std::optional<std::int64_t> kx;
      if (w.k.known()) kx = *w.k.value;
      auto q = external_dequant(prims, r, idx, {"__k"}, {"__n"}, kx, producer, note);
      if (q) {
        w.note += "; weight dequantized by " + producer + (note.empty() ? "" : "; " + note);
        return q;
      }
    }
    return std::nullopt;
  };
  if (auto qb = weight_of(eb, true)) {
    w.weight_operand = "b";
    w.quant = *qb;
  } else if (auto qa = weight_of(ea, false)) {
    w.weight_operand = "a";
    w.quant = *qa;
  } else {
    w.weight_operand = "none";
  }
  return w;
}

/// R.call_dps_packed("fastertransformer.gemm_fp16_int[_bias]", (x, w, scale, [bias,] act, m, n, k, group)).
Workload ft_gemm(const Env& env, const ir::Binding& b, const std::string& name) {
  Workload w;
  w.source = "packed";
  w.function = env.f.name + "/" + b.var;
  w.loc = b.loc;
  w.note = name;
  w.layout = "NN";
  w.weight_operand = "b";
  const auto args = xrelax::call_args(*b.value);
  std::vector<ir::ExprPtr> prims;
  std::vector<ir::RExprPtr> tensors;
  for (const auto& a : args) {
    if (!a) continue;
    if (a->kind == ir::RExprKind::kPrimValue && a->prim) prims.push_back(a->prim);
    else if (a->kind == ir::RExprKind::kVar || a->kind == ir::RExprKind::kConstant) tensors.push_back(a);
  }
  std::optional<SymPtr> m, n, k;
  if (prims.size() >= 3) {
    m = dim_sym(prims[0]);
    n = dim_sym(prims[1]);
    k = dim_sym(prims[2]);
  }
  if (!m || !n || !k) {
    w.shape_known = false;
    w.m = w.n = w.k = Dim::symbolic("?");
    w.note += "; M, N, K prim_values not found";
  } else {
    w.m = xsym::to_dim(*m);
    w.n = xsym::to_dim(*n);
    w.k = xsym::to_dim(*k);
  }
  ir::StructInfoPtr sx = tensors.size() > 0 ? env.sinfo_of(tensors[0]) : nullptr;
  ir::StructInfoPtr sw = tensors.size() > 1 ? env.sinfo_of(tensors[1]) : nullptr;
  ir::StructInfoPtr ss = tensors.size() > 2 ? env.sinfo_of(tensors[2]) : nullptr;
  ir::StructInfoPtr so = b.value->sinfo_args.empty() ? b.sinfo : b.value->sinfo_args[0];
  w.dtype_a = sinfo_dtype(sx);
  w.dtype_b = w.dtype_a;  // the int weight is dequantized to the activation type inside the kernel
  w.dtype_out = sinfo_dtype(so);
  w.dtype_accum = "float32";
  w.note += "; FasterTransformer fpA_intB kernels accumulate in float32";
  QuantInfo& q = w.quant;
  q.storage_dtype = sinfo_dtype(sw);
  q.scale_dtype = sinfo_dtype(ss);
  q.zero_point = "symmetric";
  q.weight_layout = "KN";
  auto wn = const_dim(sw, 1);
  if (wn && w.n.known() && *wn * 2 == *w.n.value) {
    q.weight_bits = 4;
    q.elems_per_storage = 2;
  } else if (wn && w.n.known() && *wn == *w.n.value) {
    q.weight_bits = 8;
    q.elems_per_storage = 1;
  } else {
    q.weight_bits = name.find("int4") != std::string::npos ? 4 : 0;
    w.note += "; weight bits not derivable from the weight shape";
  }
  auto groups = tensor_known(ss) && ss->dims.size() >= 2 ? xtir::int_const(ss->dims[ss->dims.size() - 2].get())
                                                          : std::nullopt;
  if (groups && *groups == 1) q.granularity = "per-channel";
  else if (groups && *groups > 1 && w.k.known() && *w.k.value % *groups == 0) {
    q.granularity = "per-group";
    q.group_size = *w.k.value / *groups;
  }
  const std::string b4 = q.weight_bits == 8 ? "q8f16_ft" : "q4f16_ft";
  if (q.weight_bits == 0) q.scheme = "custom";
  else q.scheme = q.granularity == "per-group" ? b4 + "_group" : b4;
  return w;
}

struct KvCreate {
  std::optional<std::int64_t> kv_heads, head_dim;
};

void attention_site(const Env& env, const ir::Binding& b, const std::string& name,
                    std::optional<std::int64_t> last_append_kv, const KvCreate& created,
                    std::map<std::string, AttentionSite>& sites) {
  AttentionSite s;
  s.entry = env.f.name;
  s.builtin = name;
  ir::StructInfoPtr out = b.value->sinfo_args.empty() ? b.sinfo : b.value->sinfo_args[0];
  if (out && out->kind == ir::SInfoKind::kTensor && out->shape_known && out->dims.size() >= 2) {
    s.num_heads = const_dim(out, 2);
    s.head_dim = const_dim(out, 1);
  }
  if (name.find("fused_qkv") != std::string::npos && s.num_heads && s.head_dim && *s.head_dim > 0) {
    for (const auto& a : xrelax::call_args(*b.value)) {
      // qkv is (.., (H + 2 KV) * D) or (.., H + 2 KV, D).
      const ir::StructInfoPtr si = env.sinfo_of(a);
      auto d = const_dim(si, 1);
      if (!d) continue;
      std::int64_t total = 0;
      if (*d == *s.head_dim && const_dim(si, 2)) total = *const_dim(si, 2);
      else if (*d % *s.head_dim == 0) total = *d / *s.head_dim;
      if (total > *s.num_heads && (total - *s.num_heads) % 2 == 0) s.num_kv_heads = (total - *s.num_heads) / 2;
    }
  } else if (last_append_kv) {
    s.num_kv_heads = last_append_kv;
  } else if (created.kv_heads && created.head_dim && s.head_dim == created.head_dim) {
    s.num_kv_heads = created.kv_heads;  // paged_attention_kv_cache_create(cfg, layers, kv_heads, head_dim, ..)
  }
  auto opt = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
  const std::string key = s.entry + "|" + s.builtin + "|" + opt(s.num_heads) + "|" + opt(s.num_kv_heads) + "|" +
                          opt(s.head_dim);
  auto [it, fresh] = sites.emplace(key, s);
  it->second.calls = checked_add(it->second.calls, 1, "attention call count");
  (void)fresh;
}

std::string packed_name(const ir::RExpr& call) {
  if (call.args.empty() || !call.args[0]) return "";
  const ir::RExpr& a = *call.args[0];
  if (a.kind == ir::RExprKind::kString) return a.name;
  if (a.kind == ir::RExprKind::kOther || a.kind == ir::RExprKind::kGlobalFunc) return a.name;
  return "";
}

void bind_workload(Workload& w, const std::map<std::string, std::int64_t>& b) {
  w.m = bind_dim(w.m, b);
  w.n = bind_dim(w.n, b);
  w.k = bind_dim(w.k, b);
  w.batch = bind_dim(w.batch, b);
  for (auto& d : w.conv.loop_extents) d = bind_dim(d, b);
}

void collect_symbols(const Dim& d, std::set<std::string>& out) {
  if (d.known() || d.expr.empty() || d.expr == "?") return;
  try {
    xsym::collect_names(*xsym::parse(d.expr), out);
  } catch (const InputError&) {
  }
}

}  // namespace

// ------------------------------------------------------------------ driver

ExtractResult extract_workloads(const ir::Module& module, const ExtractOptions& options) {
  ExtractResult res;
  for (const auto& f : module.relax_funcs) res.entries.push_back(f.name);
  std::sort(res.entries.begin(), res.entries.end());
  res.entries.erase(std::unique(res.entries.begin(), res.entries.end()), res.entries.end());
  if (options.entry && !std::binary_search(res.entries.begin(), res.entries.end(), *options.entry)) {
    std::string valid;
    for (const auto& e : res.entries) valid += (valid.empty() ? "" : ", ") + e;
    throw InputError("unknown entry function '" + *options.entry + "'; " +
                     (valid.empty() ? std::string("the module has no Relax functions") : "valid entries: " + valid));
  }

  // TIR GEMMs.
  std::vector<xtir::TirGemm> gemms;
  for (std::size_t i = 0; i < module.prim_funcs.size(); ++i) {
    const auto& f = module.prim_funcs[i];
    try {
      auto g = xtir::analyze_prim_func(f, i);
      if (g.empty()) spdlog::debug("{}: no GEMM or convolution block", f.name);
      for (auto& x : g) gemms.push_back(std::move(x));
    } catch (const InputError& e) {
      spdlog::debug("{}: skipped: {}", f.name, e.what());
      res.skipped.push_back(f.name + ": " + e.what());
    }
  }

  // Relax functions.
  PrimTable prims(module);
  std::map<std::string, std::map<std::string, std::int64_t>> calls;  // prim_func -> entry -> n
  struct Site {
    const Env* env;
    const ir::RExpr* call;
  };
  std::map<std::string, std::vector<Site>> sites;  // prim_func -> call sites
  std::vector<std::unique_ptr<Env>> envs;
  std::map<std::string, std::size_t> relax_index;  // signature -> position in relax_work
  std::vector<Workload> relax_work;
  std::map<std::string, AttentionSite> att;
  KvCreate created;
  for (const auto& f : module.relax_funcs)
    for (const auto& b : f.bindings) {
      if (!b.value || b.value->kind != ir::RExprKind::kCall || packed_name(*b.value).find("kv_cache_create") ==
                                                                    std::string::npos)
        continue;
      std::vector<std::int64_t> pv;
      for (const auto& a : xrelax::call_args(*b.value))
        if (a && a->kind == ir::RExprKind::kPrimValue && a->prim)
          if (auto v = xtir::int_const(a->prim.get())) pv.push_back(*v);
      if (pv.size() >= 3) {
        created.kv_heads = pv[1];
        created.head_dim = pv[2];
      }
    }
  std::set<std::string> relax_names;
  for (const auto& f : module.relax_funcs) relax_names.insert(f.name);
  RelaxCallGraph graph;  // caller -> callee -> calls per caller execution
  for (const auto& f : module.relax_funcs) {
    envs.push_back(std::make_unique<Env>(f));
    const Env& env = *envs.back();
    std::optional<std::int64_t> last_append_kv;
    for (const auto& b : f.bindings) {
      if (!b.value || b.value->kind != ir::RExprKind::kCall) continue;
      const ir::RExpr& c = *b.value;
      try {
        if (c.op.rfind("R.call_tir", 0) == 0 && !c.args.empty() && c.args[0]) {
          const std::string callee = xrelax::callee_name(*c.args[0]);
          auto& n = calls[callee][f.name];
          n = checked_add(n, 1, "call count");
          sites[callee].push_back({&env, &c});
        } else if (c.op == "R.call_dps_packed" || c.op == "R.call_pure_packed" || c.op == "R.call_packed" ||
                   c.op == "R.call_builtin_with_ctx") {
          const std::string name = packed_name(c);
          if (xrelax::is_attention_builtin(name)) {
            attention_site(env, b, name, last_append_kv, created, att);
          } else if (name.find("kv_cache_append") != std::string::npos) {
            for (const auto& a : xrelax::call_args(c)) {
              auto s = env.sinfo_of(a);
              if (tensor_known(s) && s->dims.size() >= 3) last_append_kv = const_dim(s, 2);
            }
          } else if (name.rfind("fastertransformer.gemm_fp16_int", 0) == 0) {
            Workload w = ft_gemm(env, b, name);
            const std::string key = signature(w);
            auto [it, fresh] = relax_index.emplace(key, relax_work.size());
            if (fresh) relax_work.push_back(w);
            auto& n = relax_work[it->second].calls[f.name];
            n = checked_add(n, 1, "call count");
          }
        } else if (const std::string callee = relax_callee(c.op); relax_names.count(callee)) {
          auto& n = graph[f.name][callee];
          n = checked_add(n, 1, "call count");
        } else if (c.op == "R.matmul") {
          Workload w = relax_matmul(env, b, prims);
          const std::string key = signature(w);
          auto [it, fresh] = relax_index.emplace(key, relax_work.size());
          if (fresh) relax_work.push_back(w);
          auto& n = relax_work[it->second].calls[f.name];
          n = checked_add(n, 1, "call count");
        }
      } catch (const InputError& e) {
        spdlog::debug("{}: binding {} skipped: {}", f.name, b.var, e.what());
        res.skipped.push_back(f.name + "/" + b.var + ": " + e.what());
      }
    }
  }

  // Calls through other Relax functions (cls.fused_xxx(...) in phase-1 dumps): each
  // function's counts include its callees' counts times how often it calls them.
  if (!graph.empty()) {
    const auto times = executions_per_call(graph, res.skipped);
    for (auto& [callee, per_entry] : calls) per_entry = propagate_calls(per_entry, times);
    for (auto& w : relax_work) w.calls = propagate_calls(w.calls, times);
  }

  // Call counts and dequantize prim_funcs feeding a plain weight param.
  for (auto& g : gemms) {
    const auto& f = module.prim_funcs[g.func_index];
    const bool first = prims.first.at(f.name) == g.func_index;
    if (!first) {
      g.w.note += "; duplicate prim_func name: calls are attributed to the first definition";
      continue;
    }
    auto it = calls.find(f.name);
    if (it != calls.end()) g.w.calls = it->second;
    if (g.weight_param < 0 || g.w.quant.weight_bits > 0 || !g.weight_load) continue;
    for (const Site& s : sites[f.name]) {
      const auto args = xrelax::call_args(*s.call);
      if (static_cast<std::size_t>(g.weight_param) >= args.size()) continue;
      Root r = s.env->root(args[static_cast<std::size_t>(g.weight_param)]);
      std::string producer, note;
      auto q = external_dequant(prims, r, g.weight_load->args, g.kvars, g.nvars, g.k_extent, producer, note);
      if (q) {
        g.w.quant = *q;
        g.w.note += "; weight dequantized by " + producer + " (called from " + s.env->f.name + ")";
        if (!note.empty()) g.w.note += "; " + note;
        break;
      }
    }
  }

  for (auto& g : gemms) res.workloads.push_back(std::move(g.w));
  for (auto& w : relax_work) res.workloads.push_back(std::move(w));
  for (auto& [k, s] : att) res.attention.push_back(s);

  if (options.entry) {
    const std::string& e = *options.entry;
    std::vector<Workload> kept;
    for (auto& w : res.workloads) {
      auto it = w.calls.find(e);
      if (it == w.calls.end() || it->second == 0) continue;
      const std::int64_t n = it->second;
      w.calls = {{e, n}};
      kept.push_back(std::move(w));
    }
    res.workloads = std::move(kept);
    std::vector<AttentionSite> a;
    for (auto& s : res.attention)
      if (s.entry == e) a.push_back(s);
    res.attention = std::move(a);
  }
  for (auto& w : res.workloads) bind_workload(w, options.bindings);

  std::stable_sort(res.workloads.begin(), res.workloads.end(), [](const Workload& a, const Workload& b) {
    return std::tie(a.function, a.loc.line, a.loc.column) < std::tie(b.function, b.loc.line, b.loc.column);
  });
  std::stable_sort(res.attention.begin(), res.attention.end(), [](const AttentionSite& a, const AttentionSite& b) {
    return std::tie(a.entry, a.builtin) < std::tie(b.entry, b.builtin);
  });

  std::set<std::string> syms;
  std::set<std::string> schemes;
  bool all_f16 = true, all_f32 = true, all_bf16 = true, any_weight = false;
  for (const auto& w : res.workloads) {
    for (const Dim* d : {&w.m, &w.n, &w.k, &w.batch}) collect_symbols(*d, syms);
    if (w.weight_operand == "none") continue;
    any_weight = true;
    schemes.insert(w.quant.scheme);
    const std::string& wd = w.weight_operand == "a" ? w.dtype_a : w.dtype_b;
    all_f16 = all_f16 && wd == "float16";
    all_f32 = all_f32 && wd == "float32";
    all_bf16 = all_bf16 && wd == "bfloat16";
  }
  res.symbols.assign(syms.begin(), syms.end());
  if (!any_weight) res.module_quant = "";
  else if (schemes.size() == 1 && *schemes.begin() == "none")
    res.module_quant = all_f16 ? "q0f16" : all_f32 ? "q0f32" : all_bf16 ? "q0bf16" : "none";
  else {
    schemes.erase("none");
    res.module_quant = schemes.size() == 1 ? *schemes.begin() : "mixed";
  }
  return res;
}

}  // namespace tenet_cost
