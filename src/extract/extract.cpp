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
#include "extract/relax_calls.hpp"
#include "extract/relax_scan.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"

namespace tenet_cost {

using sym::SymPtr;
using xrelax::Env;
using xrelax::Root;

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
  if (!d.expr) {
    if (require_known) throw InputError("a dimension is unknown (its shape could not be determined)");
    return d;
  }
  SymPtr s = sym::bind(d.expr, bindings);
  if (s->kind == sym::SymKind::kInt) {
    if (s->value < 0)
      throw InputError("expected a non-negative dimension, found '" + d.str() + "' = " + std::to_string(s->value) +
                       " with the bindings given (--bind)");
    return Dim::constant(s->value);
  }
  if (require_known) {
    std::set<std::string> names;
    sym::collect_names(*s, names);
    std::string un, bound;
    for (const auto& n : names) un += (un.empty() ? "" : ", ") + n;
    for (const auto& [k, v] : bindings) bound += (bound.empty() ? "" : ", ") + k;
    throw InputError("unbound symbolic dimension(s) " + un + " in '" + d.str() + "' (bind them with --bind " +
                     *names.begin() + "=N; bound: " + (bound.empty() ? "none" : bound) + ")");
  }
  return Dim::symbolic(s);
}

// ------------------------------------------------------------------ helpers

namespace {

void bind_workload(Workload& w, const std::map<std::string, std::int64_t>& b) {
  w.m = bind_dim(w.m, b);
  w.n = bind_dim(w.n, b);
  w.k = bind_dim(w.k, b);
  w.batch = bind_dim(w.batch, b);
  if (w.m_padded) w.m_padded = bind_dim(*w.m_padded, b);
  for (auto& d : w.conv.loop_extents) d = bind_dim(d, b);
}

void collect_symbols(const Dim& d, std::set<std::string>& out) {
  if (d.expr) sym::collect_names(*d.expr, out);
}

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

// ------------------------------------------------------------------ the phases of extract_workloads

// The module's Relax functions, sorted and distinct. Throws an InputError when --entry names none of them.
std::vector<std::string> entry_functions(const ir::Module& module, const ExtractOptions& options) {
  std::vector<std::string> entries;
  for (const auto& f : module.relax_funcs) entries.push_back(f.name);
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  if (options.entry && !std::binary_search(entries.begin(), entries.end(), *options.entry)) {
    std::string valid;
    for (const auto& e : entries) valid += (valid.empty() ? "" : ", ") + e;
    throw InputError("unknown entry function '" + *options.entry + "'; " +
                     (valid.empty() ? std::string("the module has no Relax functions") : "valid entries: " + valid));
  }
  return entries;
}

// Each TIR GEMM gets the call counts of its prim_func (the first definition of a name; a duplicate gets a
// note instead), and a plain weight param gets the quantization of the dequantize prim_func whose output the
// first call site passes there. Precondition: `calls` is the scan of the whole module.
void attribute_gemm_calls(const ir::Module& module, xrelax::PrimTable& prims, const xrelax::RelaxCalls& calls,
                          std::vector<xtir::TirGemm>& gemms) {
  for (auto& g : gemms) {
    const auto& f = module.prim_funcs[g.func_index];
    const bool first = prims.first.at(f.name) == g.func_index;
    if (!first) {
      g.w.note += "; duplicate prim_func name: calls are attributed to the first definition";
      continue;
    }
    auto it = calls.callees.find(f.name);
    if (it != calls.callees.end()) g.w.calls = it->second.calls;
    if (g.weight_param < 0 || g.w.quant.weight_bits > 0 || !g.weight_load || it == calls.callees.end()) continue;
    for (const xrelax::Site& s : it->second.sites) {
      const auto args = xrelax::call_args(*s.call);
      if (static_cast<std::size_t>(g.weight_param) >= args.size()) continue;
      Root r = s.env->root(args[static_cast<std::size_t>(g.weight_param)]);
      std::string producer, note;
      auto q = xrelax::external_dequant(prims, r, g.weight_load->args, g.kvars, g.nvars, g.k_extent, producer, note);
      if (q) {
        g.w.quant = *q;
        g.w.note += "; weight dequantized by " + producer + " (called from " + s.env->f.name + ")";
        if (!note.empty()) g.w.note += "; " + note;
        break;
      }
    }
  }
}

// The non-GEMM operators (docs/extract.md "Operators"), per call-site shape. Precondition: the GEMMs'
// calls were attributed (that completes `prims.dequantizers`).
std::vector<OperatorWorkload> module_operators(const ir::Module& module, const std::vector<xtir::TirGemm>& gemms,
                                               std::set<std::size_t> not_operators, const xrelax::PrimTable& prims,
                                               const xrelax::RelaxCalls& calls) {
  xops::OperatorInputs oin;
  for (const auto& g : gemms)
    if (!g.out_buffer.empty()) oin.epilogue_sources[g.func_index].insert(g.out_buffer);
  oin.not_operators = std::move(not_operators);
  oin.dequantizers = prims.dequantizers;
  std::map<std::string, std::vector<xops::CallSite>> op_sites;
  for (const auto& [name, callee] : calls.callees)
    for (const xrelax::Site& s : callee.sites) op_sites[name].push_back({s.env, s.call});
  oin.sites = [&](const std::string& name) -> const std::vector<xops::CallSite>* {
    const auto it = op_sites.find(name);
    return it == op_sites.end() ? nullptr : &it->second;
  };
  oin.propagate = [&](const std::map<std::string, std::int64_t>& direct) {
    return calls.times.empty() ? direct : xrelax::propagate_calls(direct, calls.times);
  };
  return xops::module_operators(module, oin);
}

// --entry E: only what E calls, with E's counts alone.
void keep_entry_only(ExtractResult& res, const std::string& e) {
  keep_entry(res.workloads, e);
  keep_entry(res.operators, e);
  std::vector<AttentionSite> a;
  for (auto& s : res.attention)
    if (s.entry == e) a.push_back(s);
  res.attention = std::move(a);
}

// The bindings applied to every dimension; workloads, operators and attention sites in their output order.
// Runs `fn`; an error that names no file (a shape expression, an overflow) is put at `loc`, the workload's.
template <class Fn>
void located_at(const SourceLocation& loc, Fn&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    if (!e.where().file.empty() || loc.file.empty()) throw;
    throw InputError(loc, e.detail());
  }
}

void bind_and_order(ExtractResult& res, const std::map<std::string, std::int64_t>& bindings) {
  for (auto& w : res.workloads) located_at(w.loc, [&] { bind_workload(w, bindings); });
  for (auto& o : res.operators)
    located_at(o.loc, [&] {
      for (Dim* d : {&o.ops, &o.read_bytes, &o.write_bytes}) *d = bind_dim(*d, bindings);
    });
  // by function, then element ops: known ones by value first, the others by their text ("?" when unknown)
  const auto text = [](const Dim& d) { return d.known() ? std::string() : d.str(); };
  std::stable_sort(res.operators.begin(), res.operators.end(),
                   [&](const OperatorWorkload& a, const OperatorWorkload& b) {
                     return std::forward_as_tuple(a.function, a.ops.value, text(a.ops)) <
                            std::forward_as_tuple(b.function, b.ops.value, text(b.ops));
                   });

  std::stable_sort(res.workloads.begin(), res.workloads.end(), [](const Workload& a, const Workload& b) {
    return std::tie(a.function, a.loc.line, a.loc.column) < std::tie(b.function, b.loc.line, b.loc.column);
  });
  std::stable_sort(res.attention.begin(), res.attention.end(), [](const AttentionSite& a, const AttentionSite& b) {
    return std::tie(a.entry, a.builtin) < std::tie(b.entry, b.builtin);
  });
}

// The symbols left unbound and the module's quantization (one scheme, "mixed", q0f16 / q0f32 / q0bf16 for an
// unquantized module of one weight dtype, "" without weights). Precondition: bindings applied.
void summarize(ExtractResult& res) {
  std::set<std::string> syms;
  std::set<std::string> schemes;
  bool all_f16 = true, all_f32 = true, all_bf16 = true, any_weight = false;
  for (const auto& w : res.workloads) {
    for (const Dim* d : {&w.m, &w.n, &w.k, &w.batch}) collect_symbols(*d, syms);
    if (w.weight_operand == WeightOperand::kNone) continue;
    any_weight = true;
    schemes.insert(w.quant.scheme);
    const OptDataType& wd = w.weight_operand == WeightOperand::kA ? w.dtype_a : w.dtype_b;
    all_f16 = all_f16 && wd == DataType::Float(16);
    all_f32 = all_f32 && wd == DataType::Float(32);
    all_bf16 = all_bf16 && wd == DataType::BFloat16();
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
}

}  // namespace

// ------------------------------------------------------------------ driver

// find the TIR GEMMs -> scan the Relax calls -> attribute calls and external dequantization to the GEMMs ->
// operators -> --entry -> bind and order -> summarize.
namespace {

// The output boundary of extraction (issue 28 item 6): every known extent is non-negative, a convolution's strides
// and dilations are at least 1, and every GEMM's MACs fit in 64 bits, else an InputError at the workload's location
// (before: a literal mutated to -1 in a shape or index gave K = -1 and negative MACs with exit 0, and an overflowing
// product failed later in the report without naming the file).
void check_extents(const ExtractResult& res) {
  auto expect = [](bool ok, const SourceLocation& loc, const std::string& what, std::int64_t v) {
    if (!ok) throw InputError(loc, "expected " + what + ", found " + std::to_string(v));
  };
  for (const Workload& w : res.workloads) {
    std::int64_t macs = 1;
    for (const auto& [d, name] : {std::pair{&w.m, "M"}, {&w.n, "N"}, {&w.k, "K"}, {&w.batch, "batch"}}) {
      if (!d->value) continue;
      expect(*d->value >= 0, w.loc, std::string("a non-negative ") + name + " in " + w.function, *d->value);
      try {
        macs = checked_mul(macs, *d->value, "MACs");
      } catch (const OverflowError&) {
        throw InputError(w.loc, "arithmetic overflow: the MACs of " + w.function +
                                    " (M x N x K x batch) do not fit "
                                    "in 64 bits");
      }
    }
    for (std::size_t i = 0; i < w.conv.loop_extents.size(); ++i)
      if (const auto& v = w.conv.loop_extents[i].value)
        expect(*v >= 0, w.loc,
               "a non-negative extent of loop " +
                   (i < w.conv.loop_names.size() ? w.conv.loop_names[i] : std::to_string(i + 1)) + " in " + w.function,
               *v);
    for (const std::int64_t st : w.conv.strides) expect(st >= 1, w.loc, "a stride >= 1 in " + w.function, st);
    for (const std::int64_t dl : w.conv.dilations) expect(dl >= 1, w.loc, "a dilation >= 1 in " + w.function, dl);
  }
  for (const OperatorWorkload& o : res.operators)
    for (const auto& [d, name] :
         {std::pair{&o.ops, "element operations"}, {&o.read_bytes, "bytes read"}, {&o.write_bytes, "bytes written"}})
      if (d->value) expect(*d->value >= 0, o.loc, std::string("non-negative ") + name + " in " + o.function, *d->value);
}

}  // namespace

namespace {

ExtractResult extract_impl(const ir::Module& module, const ExtractOptions& options) {
  ExtractResult res;
  res.entries = entry_functions(module, options);

  const unsigned threads = module.prim_funcs.size() >= std::max<std::size_t>(options.min_parallel_funcs, 2)
                               ? xtir::extract_threads(options.threads)
                               : 1;
  std::set<std::size_t> not_operators;  // GEMM / conv prim_funcs and those the analysis skipped
  std::vector<xtir::TirGemm> gemms = analyze_prim_funcs(module, threads, res, not_operators);
  for (const auto& g : gemms) not_operators.insert(g.func_index);

  xrelax::PrimTable prims(module);
  const xrelax::RelaxCalls calls = xrelax::scan_relax_calls(module, threads, prims, res.skipped);
  attribute_gemm_calls(module, prims, calls, gemms);
  res.operators = module_operators(module, gemms, std::move(not_operators), prims, calls);

  for (auto& g : gemms) res.workloads.push_back(std::move(g.w));
  for (const auto& w : calls.workloads) res.workloads.push_back(w);
  for (const auto& [k, s] : calls.attention) res.attention.push_back(s);

  if (options.entry) keep_entry_only(res, *options.entry);
  bind_and_order(res, options.bindings);
  check_extents(res);
  summarize(res);
  return res;
}

}  // namespace

ExtractResult extract_workloads(const ir::Module& module, const ExtractOptions& options) {
  try {
    return extract_impl(module, options);
  } catch (const InputError& e) {
    // an error deep in the analysis (a Relax shape expression, an overflow) names the dump at least
    if (!e.where().file.empty() || module.source.empty()) throw;
    throw InputError(SourceLocation{module.source, 0, 0}, e.detail());
  }
}

}  // namespace tenet_cost
