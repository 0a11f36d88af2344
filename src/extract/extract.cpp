// extract_workloads: TIR GEMMs/convs of every prim_func, Relax-level GEMMs,
// call counts per entry, attention builtins, bindings of symbolic dims.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "extract/extern_gemm.hpp"
#include "extract/internal.hpp"
#include "extract/operators.hpp"
#include "extract/parallel.hpp"
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
  if (s->kind == xsym::SymKind::kInt) {
    if (s->value < 0)
      throw InputError("expected a non-negative dimension, found '" + d.expr + "' = " + std::to_string(s->value) +
                       " with the bindings given (--bind)");
    return Dim::constant(s->value);
  }
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

using xrelax::const_dim;
using xrelax::dim_sym;
using xrelax::sinfo_dtype;
using xrelax::tensor_known;

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
  std::unordered_map<std::string_view, std::size_t> first;  // name -> first prim_func index
  std::map<std::size_t, std::unique_ptr<xtir::FuncIndex>> cache;
  std::set<std::string> dequantizers;  // prim_funcs whose output is a GEMM's dequantized weight
  explicit PrimTable(const ir::Module& m) : mod(m) {
    first.reserve(m.prim_funcs.size());
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
  if (r.kind != Root::kCall || !r.call || !xrelax::is_call_tir_op(r.call->op) || r.call->args.empty()) return {};
  const std::string d = xrelax::callee_name(*r.call->args[0]);
  const xtir::FuncIndex* fi = prims.index(d);
  if (!fi) return {};
  const int out_param = static_cast<int>(xrelax::call_args(*r.call).size()) + std::max(0, r.tuple_index);
  xtir::QuantContext qc;
  qc.kvars = kvars;
  qc.nvars = nvars;
  qc.k_extent = k_extent;
  qc.dtype_of = [fi](const std::string& b) { return fi->dtype_of(b); };
  qc.buffer = [fi](const std::string& b) { return fi->buffer(b); };
  ir::ExprPtr v = xtir::producer_value(*fi, out_param, index);
  if (!v) {
    // the producer decodes with an extern call (no store to inline)
    if (out_param < 0 || static_cast<std::size_t>(out_param) >= fi->param_buffer.size()) return {};
    const std::string& out = fi->param_buffer[static_cast<std::size_t>(out_param)];
    const auto ed = xtir::extern_decode(*fi, out, *ir::make_load(out, {index.begin(), index.end()}), qc);
    if (!ed || ed->q.weight_bits == 0) return {};
    producer = d;
    note = ed->note;
    return ed->q;
  }
  QuantInfo q = xtir::detect_quant(*v, qc, note);
  if (q.weight_bits == 0) return {};
  producer = d;
  prims.dequantizers.insert(d);
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
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", static_cast<int>(w.kind),
                     w.m.str(), w.n.str(), w.k.str(), w.batch.str(), w.layout, w.dtype_a, w.dtype_b, w.dtype_out,
                     w.dtype_accum, to_string(w.weight_operand), q.scheme, q.weight_bits, q.group_size, q.storage_dtype,
                     q.scale_dtype, q.weight_layout, to_string(w.source), w.shape_known, q.block_n, q.block_k,
                     q.tensor_scale_dtype);
}

/// R.matmul(a, b): numpy semantics, shapes from struct info.
Workload relax_matmul(const Env& env, const ir::Binding& b, PrimTable& prims) {
  Workload w;
  w.source = WorkloadSource::kRelax;
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
    // One convention with the legalized TIR (docs/extract.md "Broadcast batch matmul"): a
    // leading dim that both operands have (neither broadcast from 1) is batch; a dim only the
    // first operand has (the second one absent or 1 there) is a broadcast of the second operand
    // over more rows: it joins M; one only the second operand has joins N.
    std::vector<SymPtr> batch, mfold, nfold;
    auto is_one = [](const SymPtr* s) { return !s || ((*s)->kind == xsym::SymKind::kInt && (*s)->value == 1); };
    const std::size_t nb = std::max(ba.size(), bb.size());
    for (std::size_t i = 0; i < nb; ++i) {
      const SymPtr* x = i + ba.size() >= nb ? &ba[i + ba.size() - nb] : nullptr;
      const SymPtr* y = i + bb.size() >= nb ? &bb[i + bb.size() - nb] : nullptr;
      if (is_one(x) && is_one(y)) continue;
      if (is_one(y)) mfold.push_back(*x);
      else if (is_one(x)) nfold.push_back(*y);
      else batch.push_back(*x);
    }
    mfold.push_back(m);
    nfold.push_back(n);
    w.m = xsym::to_dim(xsym::product(mfold));
    w.n = xsym::to_dim(xsym::product(nfold));
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
    w.weight_operand = WeightOperand::kB;
    w.quant = *qb;
  } else if (auto qa = weight_of(ea, false)) {
    w.weight_operand = WeightOperand::kA;
    w.quant = *qa;
  } else {
    w.weight_operand = WeightOperand::kNone;
  }
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

ir::Symbol packed_name(const ir::RExpr& call) {
  if (call.args.empty() || !call.args[0]) return {};
  const ir::RExpr& a = *call.args[0];
  if (a.kind == ir::RExprKind::kString) return a.name;
  if (a.kind == ir::RExprKind::kOther || a.kind == ir::RExprKind::kGlobalFunc) return a.name;
  return {};
}

void bind_workload(Workload& w, const std::map<std::string, std::int64_t>& b) {
  w.m = bind_dim(w.m, b);
  w.n = bind_dim(w.n, b);
  w.k = bind_dim(w.k, b);
  w.batch = bind_dim(w.batch, b);
  if (w.m_padded) w.m_padded = bind_dim(*w.m_padded, b);
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

// ------------------------------------------------------------------ TIR GEMMs (threads)

namespace {

// What the serial loop does with one prim_func's outcome (its own debug lines already written).
void take_prim_result(const ir::PrimFunc& f, std::vector<xtir::TirGemm>&& g, std::vector<xtir::TirGemm>& gemms) {
  if (g.empty()) xtir::debug("{}: no GEMM or convolution block", f.name);
  for (auto& x : g) gemms.push_back(std::move(x));
}

void skip_prim(const ir::PrimFunc& f, std::size_t i, const InputError& e, ExtractResult& res,
               std::set<std::size_t>& skipped) {
  xtir::debug("{}: skipped: {}", f.name, e.what());
  res.skipped.push_back(f.name + ": " + e.what());
  skipped.insert(i);
}

// The GEMMs of every prim_func in module order. The analysis of one function does not
// depend on any other, so with threads each function is analyzed on its own, its debug
// lines and its outcome kept, then all are taken in module order as the serial loop takes
// them: the same lines in the same order, and the first error (in function order) that is
// not an InputError rethrown as is.
std::vector<xtir::TirGemm> analyze_prim_funcs(const ir::Module& module, unsigned threads, ExtractResult& res,
                                              std::set<std::size_t>& skipped) {
  const std::size_t n = module.prim_funcs.size();
  std::vector<xtir::TirGemm> gemms;
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto& f = module.prim_funcs[i];
      try {
        take_prim_result(f, xtir::analyze_prim_func(f, i), gemms);
      } catch (const InputError& e) {
        skip_prim(f, i, e, res, skipped);
      }
    }
    return gemms;
  }
  // A work's outcome: its GEMMs, or the InputError that skips the function.
  struct Outcome {
    std::vector<xtir::TirGemm> gemms;
    std::optional<InputError> skipped;
  };
  xtir::ordered_parallel<Outcome>(
      threads, n,
      [&](std::size_t i) {
        Outcome o;
        try {
          o.gemms = xtir::analyze_prim_func(module.prim_funcs[i], i);
        } catch (const InputError& e) {
          o.skipped.emplace(e);
        }
        return o;
      },
      [&](std::size_t i, Outcome&& o) {
        if (o.skipped) skip_prim(module.prim_funcs[i], i, *o.skipped, res, skipped);
        else take_prim_result(module.prim_funcs[i], std::move(o.gemms), gemms);
      });
  return gemms;
}

// ------------------------------------------------------------------ Relax scan

struct Site {
  const Env* env;
  const ir::RExpr* call;
};

// A call_tir callee: its call counts per Relax function and its call sites.
struct Callee {
  std::map<std::string, std::int64_t> calls;  // Relax function -> n
  std::vector<Site> sites;
};

// Facts about a Relax call op, computed once per distinct op.
struct OpInfo {
  bool call_tir = false;    // R.call_tir*, R.dist.call_tir*
  bool packed = false;      // R.call_dps_packed / call_pure_packed / call_packed / call_builtin_with_ctx
  bool relax_call = false;  // a call of a Relax function of the module
  bool prim_call = false;   // a direct call of a prim_func of the module (after LowerCallTIR)
  bool matmul = false;      // R.matmul
};

// Facts about a packed function name, computed once per distinct name.
struct PackedInfo {
  bool attention = false, append = false, create = false;
  xrelax::ExternGemm gemm = xrelax::ExternGemm::kNone;  // a CUTLASS / Triton / FasterTransformer GEMM
  bool graph_run = false;  // vm.builtin.cuda_graph.run_or_capture: runs a Relax function of the module
};

// The names of the module's functions.
struct ModuleNames {
  std::set<std::string> relax, prim;
  explicit ModuleNames(const ir::Module& m) {
    for (const auto& f : m.relax_funcs) relax.insert(f.name);
    for (const auto& f : m.prim_funcs) prim.insert(f.name);
  }
};

// A hint to load the cache line at p (never faults; null is fine). An asm statement:
// GCC drops __builtin_prefetch in the scan loop below.
inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p);
#endif
}

// The scan reads, per binding, its value, the value's argument array and the first
// argument: three dependent loads from nodes spread over the heap, each a likely cache
// miss on a large module. Requesting them a few bindings ahead overlaps those misses.
inline void prefetch_binding(const std::vector<ir::Binding>& bs, std::size_t i) {
  constexpr std::size_t kValue = 12, kArgs = 6, kFirst = 3;
  const std::size_t n = bs.size();
  if (i + kValue < n) prefetch(bs[i + kValue].value.get());
  if (i + kArgs < n)
    if (const ir::RExpr* v = bs[i + kArgs].value.get()) prefetch(v->args.data());
  if (i + kFirst < n)
    if (const ir::RExpr* v = bs[i + kFirst].value.get(); v != nullptr && !v->args.empty())
      prefetch(v->args[0].get());
}

OpInfo classify_op(const ir::Symbol& op, const ModuleNames& names) {
  OpInfo i;
  i.call_tir = xrelax::is_call_tir_op(op);
  i.packed = op == "R.call_dps_packed" || op == "R.call_pure_packed" || op == "R.call_packed" ||
             op == "R.call_builtin_with_ctx";
  const std::string callee = relax_callee(op);
  i.relax_call = names.relax.count(callee) > 0;
  i.prim_call = !i.relax_call && names.prim.count(callee) > 0;
  i.matmul = op == "R.matmul";
  return i;
}

PackedInfo classify_packed(const ir::Symbol& name) {
  PackedInfo i;
  i.attention = xrelax::is_attention_builtin(name);
  i.append = name.find("kv_cache_append") != std::string::npos;
  i.gemm = xrelax::extern_gemm_kind(name);
  i.create = name.find("kv_cache_create") != std::string::npos;
  i.graph_run = name == "vm.builtin.cuda_graph.run_or_capture";
  return i;
}

// A binding of a Relax function that the scan acts on.
struct ScanEvent {
  enum Kind : std::uint8_t { kNone, kCallTir, kPacked, kRelaxCall, kMatmul };
  std::size_t binding = 0;           // index in RelaxFunc::bindings
  Kind kind = kNone;
  bool create = false;               // its packed name is a kv_cache_create
  bool callee_fn = false;            // kCallTir: the callee is a function (`cls.f` / `f`)
  const void* callee_id = nullptr;   // kCallTir: the callee's name (Symbol id)
};

// One Relax function's environment and the bindings the scan acts on, in order.
// Reads only the function (and `names`); never throws but bad_alloc, so it
// runs on any thread. What is done with the events (counts, GEMMs, errors) is done
// in function order on the calling thread.
struct FunctionScan {
  std::unique_ptr<Env> env;
  std::vector<ScanEvent> events;
};

FunctionScan scan_function(const ir::RelaxFunc& f, const ModuleNames& names) {
  FunctionScan out;
  out.env = std::make_unique<Env>(f);
  xtir::IdMap<OpInfo> ops;
  xtir::IdMap<PackedInfo> packed;
  const std::size_t nb = f.bindings.size();
  for (std::size_t bi = 0; bi < nb; ++bi) {
    prefetch_binding(f.bindings, bi);
    const ir::Binding& b = f.bindings[bi];
    if (!b.value || b.value->kind != ir::RExprKind::kCall) continue;
    const ir::RExpr& c = *b.value;
    ScanEvent e;
    e.binding = bi;
    const ir::Symbol name = packed_name(c);
    const PackedInfo* pk = packed.find(name.id());
    if (pk == nullptr) pk = &(packed[name.id()] = classify_packed(name));
    e.create = pk->create;
    const OpInfo* op = ops.find(c.op.id());
    if (op == nullptr) op = &(ops[c.op.id()] = classify_op(c.op, names));
    if (op->call_tir && !c.args.empty() && c.args[0]) {
      e.kind = ScanEvent::kCallTir;
      e.callee_fn = c.args[0]->kind == ir::RExprKind::kGlobalFunc || c.args[0]->kind == ir::RExprKind::kVar;
      e.callee_id = c.args[0]->name.id();
    } else if (op->prim_call) {  // `cls.f(args.., out)`: counted as a call_tir of f
      e.kind = ScanEvent::kCallTir;
      e.callee_fn = true;
      e.callee_id = c.op.id();
    } else if (op->packed) {
      if (pk->attention || pk->append || pk->gemm != xrelax::ExternGemm::kNone) e.kind = ScanEvent::kPacked;
      else if (pk->graph_run) e.kind = ScanEvent::kRelaxCall;
    } else if (op->relax_call) {
      e.kind = ScanEvent::kRelaxCall;
    } else if (op->matmul) {
      e.kind = ScanEvent::kMatmul;
    }
    if (e.kind != ScanEvent::kNone || e.create) out.events.push_back(e);
  }
  return out;
}

// --entry E: the items E calls, each with E's count alone (workloads and operators alike).
template <typename T>
void keep_entry(std::vector<T>& items, const std::string& e) {
  std::vector<T> kept;
  for (auto& x : items) {
    const auto it = x.calls.find(e);
    if (it == x.calls.end() || it->second == 0) continue;
    const std::int64_t n = it->second;
    x.calls = {{e, n}};
    kept.push_back(std::move(x));
  }
  items = std::move(kept);
}

}  // namespace

// ------------------------------------------------------------------ driver

// NOLINTNEXTLINE(readability-function-size): scan, per-function analysis, merge and ordering in one place
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
  const unsigned threads = module.prim_funcs.size() >= std::max<std::size_t>(options.min_parallel_funcs, 2)
                               ? xtir::extract_threads(options.threads)
                               : 1;
  std::set<std::size_t> not_operators;  // GEMM / conv prim_funcs and those the analysis skipped
  std::vector<xtir::TirGemm> gemms = analyze_prim_funcs(module, threads, res, not_operators);
  for (const auto& g : gemms) not_operators.insert(g.func_index);

  // Relax functions.
  PrimTable prims(module);
  std::unordered_map<std::string, Callee> callees;  // call_tir callee name -> counts and sites
  std::vector<std::unique_ptr<Env>> envs;
  std::map<std::string, std::size_t> relax_index;  // signature -> position in relax_work
  std::vector<Workload> relax_work;
  std::map<std::string, AttentionSite> att;
  const ModuleNames names(module);
  xtir::IdMap<PackedInfo> packed_info;
  auto info_of_packed = [&](const ir::Symbol& name) -> const PackedInfo& {
    if (const PackedInfo* i = packed_info.find(name.id())) return *i;
    return packed_info[name.id()] = classify_packed(name);
  };
  // call_tir callee (`cls.f` / `f` / a packed name) -> its record, once per distinct callee expression.
  xtir::IdMap<Callee*> callee_by_fn, callee_by_other;
  auto callee_of = [&](const ScanEvent& e, const ir::RExpr& call) -> Callee& {
    Callee*& c = (e.callee_fn ? callee_by_fn : callee_by_other)[e.callee_id];
    if (c == nullptr) c = &callees[xrelax::tir_callee_name(call)];
    return *c;
  };

  // The attention builtins' KV-head counts may come from the last
  // paged_attention_kv_cache_create of the whole module: the sites are
  // collected in binding order and filled in after the scan.
  KvCreate created;
  struct AttentionCall {
    const Env* env;
    const ir::Binding* b;
    ir::Symbol name;
    std::optional<std::int64_t> last_append_kv;
  };
  std::vector<AttentionCall> attention_calls;
  RelaxCallGraph graph;  // caller -> callee -> calls per caller execution
  xtir::IdMap<std::int64_t> local_calls;  // Callee* -> call_tir calls in the current function
  std::vector<Callee*> local_order;
  envs.resize(module.relax_funcs.size());
  auto take_scan = [&](std::size_t fi, FunctionScan&& scan) {
    const ir::RelaxFunc& f = module.relax_funcs[fi];
    envs[fi] = std::move(scan.env);
    const Env& env = *envs[fi];
    std::optional<std::int64_t> last_append_kv;
    local_calls = xtir::IdMap<std::int64_t>();
    local_order.clear();
    for (const ScanEvent& e : scan.events) {
      const ir::Binding& b = f.bindings[e.binding];
      const ir::RExpr& c = *b.value;
      if (e.create) {
        std::vector<std::int64_t> pv;
        for (const auto& a : xrelax::call_args(c))
          if (a && a->kind == ir::RExprKind::kPrimValue && a->prim)
            if (auto v = xtir::int_const(a->prim.get())) pv.push_back(*v);
        if (pv.size() >= 3) {
          created.kv_heads = pv[1];
          created.head_dim = pv[2];
        }
      }
      try {
        if (e.kind == ScanEvent::kCallTir) {
          Callee& callee = callee_of(e, c);
          auto& n = local_calls[&callee];
          if (n == 0) local_order.push_back(&callee);
          n = checked_add(n, 1, "call count");
          callee.sites.push_back({&env, &c});
        } else if (e.kind == ScanEvent::kPacked) {
          const ir::Symbol name = packed_name(c);
          const PackedInfo& pk = info_of_packed(name);
          if (pk.attention) {
            attention_calls.push_back({&env, &b, name, last_append_kv});
          } else if (pk.append) {
            for (const auto& a : xrelax::call_args(c)) {
              auto si = env.sinfo_of(a);
              if (tensor_known(si) && si->dims.size() >= 3) last_append_kv = const_dim(si, 2);
            }
          } else if (pk.gemm != xrelax::ExternGemm::kNone) {
            Workload w = xrelax::extern_gemm(env, b, name, pk.gemm);
            const std::string key = signature(w);
            auto [it, fresh] = relax_index.emplace(key, relax_work.size());
            if (fresh) relax_work.push_back(w);
            auto& n = relax_work[it->second].calls[f.name];
            n = checked_add(n, 1, "call count");
          }
        } else if (e.kind == ScanEvent::kRelaxCall) {
          auto& n = graph[f.name][xrelax::relax_call_target(c)];
          n = checked_add(n, 1, "call count");
        } else if (e.kind == ScanEvent::kMatmul) {
          Workload w = relax_matmul(env, b, prims);
          const std::string key = signature(w);
          auto [it, fresh] = relax_index.emplace(key, relax_work.size());
          if (fresh) relax_work.push_back(w);
          auto& n = relax_work[it->second].calls[f.name];
          n = checked_add(n, 1, "call count");
        }
      } catch (const InputError& ex) {
        spdlog::debug("{}: binding {} skipped: {}", f.name, b.var, ex.what());
        res.skipped.push_back(f.name + "/" + b.var + ": " + ex.what());
      }
    }
    for (Callee* callee : local_order) {
      auto& n = callee->calls[f.name];
      n = checked_add(n, *local_calls.find(callee), "call count");
    }
  };
  // Each function's scan (its environment, the bindings to act on) on the threads;
  // what is done with them, in function order here.
  const std::size_t nr = module.relax_funcs.size();
  auto scan = [&](std::size_t i) { return scan_function(module.relax_funcs[i], names); };
  if (threads <= 1 || nr < 2) {
    for (std::size_t i = 0; i < nr; ++i) take_scan(i, scan(i));
  } else {
    xtir::ordered_parallel<FunctionScan>(threads, nr, scan, take_scan);
  }

  for (const AttentionCall& a : attention_calls) {
    try {
      attention_site(*a.env, *a.b, a.name, a.last_append_kv, created, att);
    } catch (const InputError& e) {  // (only an overflow of its call count, 2^63 calls)
      spdlog::debug("{}: binding {} skipped: {}", a.env->f.name, a.b->var, e.what());
      res.skipped.push_back(a.env->f.name + "/" + a.b->var + ": " + e.what());
    }
  }
  // Calls through other Relax functions (cls.fused_xxx(...) in phase-1 dumps): each
  // function's counts include its callees' counts times how often it calls them.
  std::map<std::string, std::map<std::string, std::int64_t>> times;
  if (!graph.empty()) {
    times = executions_per_call(graph, res.skipped);
    for (auto& [name, callee] : callees) callee.calls = propagate_calls(callee.calls, times);
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
    auto it = callees.find(f.name);
    if (it != callees.end()) g.w.calls = it->second.calls;
    if (g.weight_param < 0 || g.w.quant.weight_bits > 0 || !g.weight_load || it == callees.end()) continue;
    for (const Site& s : it->second.sites) {
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

  // Non-GEMM operators (docs/extract.md "Operators"), per call-site shape.
  xops::OperatorInputs oin;
  for (const auto& g : gemms)
    if (!g.out_buffer.empty()) oin.epilogue_sources[g.func_index].insert(g.out_buffer);
  oin.not_operators = std::move(not_operators);
  oin.dequantizers = prims.dequantizers;
  std::map<std::string, std::vector<xops::CallSite>> op_sites;
  for (const auto& [name, callee] : callees)
    for (const Site& s : callee.sites) op_sites[name].push_back({s.env, s.call});
  oin.sites = [&](const std::string& name) -> const std::vector<xops::CallSite>* {
    const auto it = op_sites.find(name);
    return it == op_sites.end() ? nullptr : &it->second;
  };
  oin.propagate = [&](const std::map<std::string, std::int64_t>& direct) {
    return times.empty() ? direct : propagate_calls(direct, times);
  };
  res.operators = xops::module_operators(module, oin);

  for (auto& g : gemms) res.workloads.push_back(std::move(g.w));
  for (auto& w : relax_work) res.workloads.push_back(std::move(w));
  for (auto& [k, s] : att) res.attention.push_back(s);

  if (options.entry) {
    const std::string& e = *options.entry;
    keep_entry(res.workloads, e);
    keep_entry(res.operators, e);
    std::vector<AttentionSite> a;
    for (auto& s : res.attention)
      if (s.entry == e) a.push_back(s);
    res.attention = std::move(a);
  }
  for (auto& w : res.workloads) bind_workload(w, options.bindings);
  for (auto& o : res.operators)
    for (Dim* d : {&o.ops, &o.read_bytes, &o.write_bytes}) *d = bind_dim(*d, options.bindings);
  std::stable_sort(
      res.operators.begin(), res.operators.end(), [](const OperatorWorkload& a, const OperatorWorkload& b) {
        return std::tie(a.function, a.ops.value, a.ops.expr) < std::tie(b.function, b.ops.value, b.ops.expr);
      });

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
    if (w.weight_operand == WeightOperand::kNone) continue;
    any_weight = true;
    schemes.insert(w.quant.scheme);
    const std::string& wd = w.weight_operand == WeightOperand::kA ? w.dtype_a : w.dtype_b;
    all_f16 = all_f16 && wd == "float16";
    all_f32 = all_f32 && wd == "float32";
    all_bf16 = all_bf16 && wd == "bfloat16";
  }
  // an operator no entry calls (a kernel passed to a packed builtin) binds nothing, unless the module has no entry
  for (const auto& o : res.operators)
    if (!o.calls.empty() || res.entries.empty())
      for (const Dim* d : {&o.ops, &o.read_bytes, &o.write_bytes}) collect_symbols(*d, syms);
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
