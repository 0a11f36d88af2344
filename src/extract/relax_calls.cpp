// The Relax half of extract_workloads (relax_calls.hpp): the call scan of every Relax function, the
// Relax-level GEMMs (R.matmul, extern GEMM builtins), the attention sites and the Relax -> Relax call graph.
#include "extract/relax_calls.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <tuple>

#include "extract/extern_gemm.hpp"
#include "extract/parallel.hpp"
#include "tenet_cost/checked.hpp"

namespace tenet_cost::xrelax {

using sym::SymPtr;

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
CallTimes executions_per_call(const RelaxCallGraph& graph, std::vector<std::string>& skipped) {
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

}  // namespace

// Direct counts per Relax function -> counts including the calls made through callees.
std::map<std::string, std::int64_t> propagate_calls(const std::map<std::string, std::int64_t>& direct,
                                                    const CallTimes& times) {
  std::map<std::string, std::int64_t> out = direct;
  for (const auto& [f, t] : times) {
    std::int64_t total = 0;
    for (const auto& [g, k] : t)
      if (auto d = direct.find(g); d != direct.end())
        total = checked_add(total, checked_mul(k, d->second, "call count"), "call count");
    if (total > 0) out[f] = total;
  }
  return out;
}

// ------------------------------------------------------------------ prim_funcs by name

PrimTable::PrimTable(const ir::Module& m) : mod(m) {
  first.reserve(m.prim_funcs.size());
  for (std::size_t i = 0; i < m.prim_funcs.size(); ++i) first.emplace(m.prim_funcs[i].name, i);
}

const xtir::FuncIndex* PrimTable::index(const std::string& name) {
  auto it = first.find(name);
  if (it == first.end()) return nullptr;
  auto& slot = cache[it->second];
  if (!slot) slot = std::make_unique<xtir::FuncIndex>(mod.prim_funcs[it->second]);
  return slot.get();
}

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

// ------------------------------------------------------------------ R.matmul, attention

namespace {

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

ir::ExprPtr mk_var(const std::string& n) {
  auto e = std::make_shared<ir::Expr>();
  e->kind = ir::ExprKind::kVar;
  e->name = n;
  e->dtype = "int64";
  return e;
}

std::string signature(const Workload& w) {
  const QuantInfo& q = w.quant;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", static_cast<int>(w.kind),
                     w.m.str(), w.n.str(), w.k.str(), w.batch.str(), w.layout, to_string(w.dtype_a),
                     to_string(w.dtype_b), to_string(w.dtype_out), to_string(w.dtype_accum),
                     to_string(w.weight_operand), q.scheme, q.weight_bits, q.group_size, to_string(q.storage_dtype),
                     to_string(q.scale_dtype), q.weight_layout, to_string(w.source), w.shape_known, q.block_n,
                     q.block_k, to_string(q.tensor_scale_dtype));
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
    w.m = w.n = w.k = w.batch = Dim::unknown();
    w.note += "; fewer than two operands";
    return w;
  }
  const auto& ea = call.args[0];
  const auto& eb = call.args[1];
  ir::StructInfoPtr sa = env.sinfo_of(ea), sb = env.sinfo_of(eb);
  w.dtype_a = sinfo_dtype(sa);
  w.dtype_b = sinfo_dtype(sb);
  // out_dtype="void" (or none): the result's struct info, else the operands' type
  OptDataType out_dtype;
  for (const auto& [k, v] : call.kwargs)
    if (k == "out_dtype" && v && v->kind == ir::RExprKind::kString) out_dtype = parse_dtype(v->name.str());
  if (!out_dtype || out_dtype->is_void()) out_dtype = sinfo_dtype(b.sinfo);
  if (!out_dtype || out_dtype->is_void()) out_dtype = w.dtype_a;
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
    w.m = w.n = w.k = w.batch = Dim::unknown();
    w.note += "; operand shapes not in the struct info";
  } else {
    SymPtr m = sym::sym_int(1), n = sym::sym_int(1), k;
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
    auto is_one = [](const SymPtr* s) { return !s || ((*s)->kind == sym::SymKind::kInt && (*s)->value == 1); };
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
    w.m = Dim::symbolic(xsym::product(mfold));
    w.n = Dim::symbolic(xsym::product(nfold));
    w.k = Dim::symbolic(k);
    w.batch = Dim::symbolic(xsym::product(batch));
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
  const std::string key =
      s.entry + "|" + s.builtin + "|" + opt(s.num_heads) + "|" + opt(s.num_kv_heads) + "|" + opt(s.head_dim);
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

// ------------------------------------------------------------------ the scan of one function

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
    if (const ir::RExpr* v = bs[i + kFirst].value.get(); v != nullptr && !v->args.empty()) prefetch(v->args[0].get());
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
  std::size_t binding = 0;  // index in RelaxFunc::bindings
  Kind kind = kNone;
  bool create = false;              // its packed name is a kv_cache_create
  bool callee_fn = false;           // kCallTir: the callee is a function (`cls.f` / `f`)
  const void* callee_id = nullptr;  // kCallTir: the callee's name (Symbol id)
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

// ------------------------------------------------------------------ the scan of the module

// What is done with each function's scan events, in module order: call_tir counts per callee, Relax-level
// GEMMs, attention calls, calls of other Relax functions. The attention builtins' KV-head counts may come
// from the last paged_attention_kv_cache_create of the whole module: their calls are collected in binding
// order and made into sites by finish(), after the last function.
class RelaxScanner {
 public:
  RelaxScanner(const ir::Module& module, PrimTable& prims, std::vector<std::string>& skipped)
      : module_(module), prims_(prims), skipped_(skipped) {
    out_.envs.resize(module.relax_funcs.size());
  }

  /// Takes the scan of Relax function `fi`. Precondition: the functions before it were taken.
  void take(std::size_t fi, FunctionScan&& scan) {
    const ir::RelaxFunc& f = module_.relax_funcs[fi];
    out_.envs[fi] = std::move(scan.env);
    const Env& env = *out_.envs[fi];
    std::optional<std::int64_t> last_append_kv;
    local_calls_ = xtir::IdMap<std::int64_t>();
    local_order_.clear();
    for (const ScanEvent& e : scan.events) {
      const ir::Binding& b = f.bindings[e.binding];
      if (e.create) take_create(*b.value);
      try {
        take_event(f, env, e, last_append_kv);
      } catch (const InputError& ex) {
        spdlog::debug("{}: binding {} skipped: {}", f.name, b.var, ex.what());
        skipped_.push_back(f.name + "/" + b.var + ": " + ex.what());
      }
    }
    for (Callee* callee : local_order_) {
      auto& n = callee->calls[f.name];
      n = checked_add(n, *local_calls_.find(callee), "call count");
    }
  }

  /// The attention sites and the calls through other Relax functions. Precondition: every function taken.
  RelaxCalls finish() && {
    for (const AttentionCall& a : attention_calls_) {
      try {
        attention_site(*a.env, *a.b, a.name, a.last_append_kv, created_, out_.attention);
      } catch (const InputError& e) {  // (only an overflow of its call count, 2^63 calls)
        spdlog::debug("{}: binding {} skipped: {}", a.env->f.name, a.b->var, e.what());
        skipped_.push_back(a.env->f.name + "/" + a.b->var + ": " + e.what());
      }
    }
    // Calls through other Relax functions (cls.fused_xxx(...) in phase-1 dumps): each
    // function's counts include its callees' counts times how often it calls them.
    if (!graph_.empty()) {
      out_.times = executions_per_call(graph_, skipped_);
      for (auto& [name, callee] : out_.callees) callee.calls = propagate_calls(callee.calls, out_.times);
      for (auto& w : out_.workloads) w.calls = propagate_calls(w.calls, out_.times);
    }
    return std::move(out_);
  }

 private:
  struct AttentionCall {
    const Env* env;
    const ir::Binding* b;
    ir::Symbol name;
    std::optional<std::int64_t> last_append_kv;
  };

  // paged_attention_kv_cache_create(cfg, layers, kv_heads, head_dim, ..): the last one wins.
  void take_create(const ir::RExpr& c) {
    std::vector<std::int64_t> pv;
    for (const auto& a : call_args(c))
      if (a && a->kind == ir::RExprKind::kPrimValue && a->prim)
        if (auto v = xtir::int_const(a->prim.get())) pv.push_back(*v);
    if (pv.size() >= 3) {
      created_.kv_heads = pv[1];
      created_.head_dim = pv[2];
    }
  }

  void take_event(const ir::RelaxFunc& f, const Env& env, const ScanEvent& e,
                  std::optional<std::int64_t>& last_append_kv) {
    const ir::Binding& b = f.bindings[e.binding];
    const ir::RExpr& c = *b.value;
    if (e.kind == ScanEvent::kCallTir) {
      Callee& callee = callee_of(e, c);
      auto& n = local_calls_[&callee];
      if (n == 0) local_order_.push_back(&callee);
      n = checked_add(n, 1, "call count");
      callee.sites.push_back({&env, &c});
    } else if (e.kind == ScanEvent::kPacked) {
      const ir::Symbol name = packed_name(c);
      const PackedInfo& pk = info_of_packed(name);
      if (pk.attention) {
        attention_calls_.push_back({&env, &b, name, last_append_kv});
      } else if (pk.append) {
        for (const auto& a : call_args(c)) {
          auto si = env.sinfo_of(a);
          if (tensor_known(si) && si->dims.size() >= 3) last_append_kv = const_dim(si, 2);
        }
      } else if (pk.gemm != ExternGemm::kNone) {
        add_workload(extern_gemm(env, b, name, pk.gemm), f.name);
      }
    } else if (e.kind == ScanEvent::kRelaxCall) {
      auto& n = graph_[f.name][relax_call_target(c)];
      n = checked_add(n, 1, "call count");
    } else if (e.kind == ScanEvent::kMatmul) {
      add_workload(relax_matmul(env, b, prims_), f.name);
    }
  }

  // One call of a Relax-level GEMM from `fn`, merged with the GEMMs of the same signature.
  void add_workload(Workload w, const std::string& fn) {
    const std::string key = signature(w);
    auto [it, fresh] = index_.emplace(key, out_.workloads.size());
    if (fresh) out_.workloads.push_back(std::move(w));
    auto& n = out_.workloads[it->second].calls[fn];
    n = checked_add(n, 1, "call count");
  }

  const PackedInfo& info_of_packed(const ir::Symbol& name) {
    if (const PackedInfo* i = packed_info_.find(name.id())) return *i;
    return packed_info_[name.id()] = classify_packed(name);
  }

  // call_tir callee (`cls.f` / `f` / a packed name) -> its record, once per distinct callee expression.
  Callee& callee_of(const ScanEvent& e, const ir::RExpr& call) {
    Callee*& c = (e.callee_fn ? callee_by_fn_ : callee_by_other_)[e.callee_id];
    if (c == nullptr) c = &out_.callees[tir_callee_name(call)];
    return *c;
  }

  const ir::Module& module_;
  PrimTable& prims_;
  std::vector<std::string>& skipped_;
  RelaxCalls out_;
  std::map<std::string, std::size_t> index_;  // signature -> position in out_.workloads
  xtir::IdMap<PackedInfo> packed_info_;
  xtir::IdMap<Callee*> callee_by_fn_, callee_by_other_;
  KvCreate created_;
  std::vector<AttentionCall> attention_calls_;
  RelaxCallGraph graph_;                   // caller -> callee -> calls per caller execution
  xtir::IdMap<std::int64_t> local_calls_;  // Callee* -> call_tir calls in the current function
  std::vector<Callee*> local_order_;
};

}  // namespace

RelaxCalls scan_relax_calls(const ir::Module& module, unsigned threads, PrimTable& prims,
                            std::vector<std::string>& skipped) {
  const ModuleNames names(module);
  RelaxScanner scanner(module, prims, skipped);
  // Each function's scan (its environment, the bindings to act on) on the threads;
  // what is done with them, in function order here.
  const std::size_t nr = module.relax_funcs.size();
  auto scan = [&](std::size_t i) { return scan_function(module.relax_funcs[i], names); };
  auto take = [&](std::size_t i, FunctionScan&& s) { scanner.take(i, std::move(s)); };
  if (threads <= 1 || nr < 2) {
    for (std::size_t i = 0; i < nr; ++i) take(i, scan(i));
  } else {
    xtir::ordered_parallel<FunctionScan>(threads, nr, scan, take);
  }
  return std::move(scanner).finish();
}

}  // namespace tenet_cost::xrelax
