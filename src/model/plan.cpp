// The plan of GEMMs per entry: from a config or a dump's extracted workloads (docs/model.md).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <set>

#include "conv_window.hpp"
#include "plan_internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace fs = std::filesystem;
using cost::GemmShape;
using detail::attention;
using detail::layer_gemms;

std::string to_string(Phase p) {
  switch (p) {
    case Phase::kPrefill: return "prefill";
    case Phase::kDecode: return "decode";
    case Phase::kOther: break;
  }
  return "";
}

Phase phase_of_entry(const std::string& entry) {
  if (entry.find("prefill") != std::string::npos || entry == "encoding" || entry.find("encode") != std::string::npos)
    return Phase::kPrefill;
  if (entry.find("decode") != std::string::npos || entry == "decoding") return Phase::kDecode;
  return Phase::kOther;
}

Phase Phases::phase_of(const std::string& entry) const {
  return phaseless.count(entry) ? Phase::kOther : phase_of_entry(entry);
}

Attention parse_attention(const std::string& text) {
  if (text == "fused") return Attention::kFused;
  if (text == "unfused") return Attention::kUnfused;
  throw InputError("--attention: expected fused or unfused, found '" + text + "'");
}

std::string to_string(Attention a) { return a == Attention::kFused ? "fused" : "unfused"; }

std::string to_string(GemmSource s) {
  switch (s) {
    case GemmSource::kTir: return "tir";
    case GemmSource::kRelax: return "relax";
    case GemmSource::kPacked: return "packed";
    case GemmSource::kSynthesized: return "synthesized";
    case GemmSource::kConfig: return "config";
    case GemmSource::kShape: return "shape";
  }
  return "config";
}

namespace {

// Where the extractor found a workload, as the plan reports it.
GemmSource source_of(WorkloadSource s) {
  switch (s) {
    case WorkloadSource::kRelax: return GemmSource::kRelax;
    case WorkloadSource::kPacked: return GemmSource::kPacked;
    case WorkloadSource::kTir: break;
  }
  return GemmSource::kTir;
}

// The key <= query triangle of `q` queries as rectangles (queries x keys -> count) and diagonal blocks (size ->
// count): T(q) = T(h) + R(q-h, h) + T(q-h), h = q/2, down to blocks of at most kCausalBlock queries.
void causal_pieces(std::int64_t q, std::int64_t count,
                   std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>& rects,
                   std::map<std::int64_t, std::int64_t>& diagonal) {
  if (q <= kCausalBlock) {
    diagonal[q] = checked_add(diagonal[q], count, "attention blocks");
    return;
  }
  const std::int64_t h = q / 2;
  auto& r = rects[{q - h, h}];
  r = checked_add(r, count, "attention blocks");
  causal_pieces(h, count, rects, diagonal);
  causal_pieces(q - h, count, rects, diagonal);
}

}  // namespace

namespace detail {

// QK^T and PV of `calls` attention layers for `ph.batch` sequences, each with q_tokens queries over kv_tokens keys
// (causal when the queries are the keys: prefill). GQA: the `heads / kv_heads` query heads of a KV head share its
// K and V, so they are rows of one GEMM per KV head and sequence.
// A sliding window of W keys: decode sees min(context, W) keys; causal prefill of s > W queries is a band, cut into
// blocks of W queries: the first block's triangle T(W), each later full block T(W) plus the strictly-upper triangle
// of the block before it (the shape of T(W-1)), and a last partial block of r queries T(r) + T(r-1) + an r x (W-r)
// rectangle; pairs: T(W) + W·(s-W) (docs/model.md "Sliding window").
void attention(std::vector<ModelGemm>& out, const std::string& entry, Phase phase, std::int64_t calls,
               std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t q_tokens,
               std::int64_t kv_tokens, GemmSource source, const Phases& ph, std::int64_t window) {
  const std::int64_t group = heads / kv_heads;
  const std::int64_t batch = checked_mul(ph.batch, kv_heads, "attention batch");
  const bool fused = ph.attention == Attention::kFused;
  auto add = [&](std::int64_t q, std::int64_t keys, std::int64_t n, bool diagonal) {
    const std::int64_t rows = checked_mul(group, q, "attention rows");
    const std::int64_t c = checked_mul(calls, n, "attention calls");
    ModelGemm qk{"attn_qk", entry, phase, c, GemmShape{batch, rows, keys, head_dim, quant::GemmRole::kAttnQK, fused},
                 {},        source};
    ModelGemm pv{"attn_pv", entry, phase, c, GemmShape{batch, rows, head_dim, keys, quant::GemmRole::kAttnPV, fused},
                 {},        source};
    qk.causal_diagonal = pv.causal_diagonal = diagonal;
    out.push_back(qk);
    out.push_back(pv);
  };
  if (q_tokens != kv_tokens || q_tokens == 1) {
    add(q_tokens, window > 0 ? std::min(kv_tokens, window) : kv_tokens, 1, false);
    return;
  }
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> rects;
  std::map<std::int64_t, std::int64_t> diagonal;
  if (window <= 0 || q_tokens <= window) {
    causal_pieces(q_tokens, 1, rects, diagonal);
  } else {
    const std::int64_t blocks = q_tokens / window, r = q_tokens % window;
    causal_pieces(window, blocks, rects, diagonal);
    if (window > 1 && blocks > 1) causal_pieces(window - 1, blocks - 1, rects, diagonal);
    if (r > 0) {
      causal_pieces(r, 1, rects, diagonal);
      if (r > 1) causal_pieces(r - 1, 1, rects, diagonal);
      auto& rect = rects[{r, window - r}];
      rect = checked_add(rect, 1, "attention blocks");
    }
  }
  for (auto it = rects.rbegin(); it != rects.rend(); ++it) add(it->first.first, it->first.second, it->second, false);
  for (auto it = diagonal.rbegin(); it != diagonal.rend(); ++it) add(it->first, it->first, it->second, true);
}

}  // namespace detail

namespace {

std::string fixed2(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

}  // namespace

namespace detail {

void layer_gemms(std::vector<ModelGemm>& out, const ModelConfig& c, Phase phase, std::int64_t seq_tokens,
                 std::int64_t kv_tokens, const Phases& ph, std::vector<std::string>* notes) {
  const std::string entry = to_string(phase);
  const std::int64_t tokens = checked_mul(ph.batch, seq_tokens, "batch tokens");  // rows of the linear GEMMs
  const std::int64_t L = c.layers;
  const std::int64_t qkv =
      checked_mul(checked_add(c.heads, checked_mul(2, c.kv_heads, "qkv width"), "qkv width"), c.head_dim, "qkv width");
  const std::int64_t attn_out = checked_mul(c.heads, c.head_dim, "attention width");
  auto lin = [&](const char* name, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t calls,
                 bool lm_head = false) {
    out.push_back(ModelGemm{name, entry, phase, calls, GemmShape{1, m, n, k, quant::GemmRole::kLinear}, {},
                            GemmSource::kConfig, lm_head});
  };
  lin("qkv_proj", tokens, qkv, c.hidden, L);
  const std::int64_t full_layers = L - c.window_layers;
  if (full_layers > 0)
    attention(out, entry, phase, full_layers, c.heads, c.kv_heads, c.head_dim, seq_tokens, kv_tokens,
              GemmSource::kConfig, ph);
  if (c.window_layers > 0)
    attention(out, entry, phase, c.window_layers, c.heads, c.kv_heads, c.head_dim, seq_tokens, kv_tokens,
              GemmSource::kConfig, ph, c.sliding_window);
  lin("o_proj", tokens, c.hidden, attn_out, L);
  const std::int64_t dense_layers = L - c.moe_layers;
  if (dense_layers > 0) {
    lin(c.gated_mlp ? "gate_up_proj" : "up_proj", tokens,
        c.gated_mlp ? checked_mul(2, c.intermediate, "gate_up width") : c.intermediate, c.hidden, dense_layers);
    lin("down_proj", tokens, c.hidden, c.intermediate, dense_layers);
  }
  if (c.moe_layers > 0) {
    // the router, the routed experts (tokens·k rows spread over the experts touched), the shared experts
    const std::int64_t M = c.moe_layers, E = c.experts, k = c.experts_per_token, I = c.expert_intermediate;
    // expert parallelism: each chip routes its 1/shards of the tokens, holds E / shards whole experts and gets its
    // share of the routed rows
    const std::int64_t es = c.expert_shards;
    lin("router", tokens / es + (tokens % es != 0 ? 1 : 0), E, c.hidden, M);
    const std::int64_t all_rows = checked_mul(tokens, k, "routed rows");
    const std::int64_t rows = all_rows / es + (all_rows % es != 0 ? 1 : 0);
    const std::int64_t all_touched = experts_touched(E, k, tokens);
    const std::int64_t touched = std::min(E / es, all_touched / es + (all_touched % es != 0 ? 1 : 0));
    const std::int64_t q = rows / touched, rem = rows % touched;
    const std::int64_t gate_up = checked_mul(2, I, "expert width");
    for (const auto& [m, n] : {std::pair{q + 1, rem}, std::pair{q, touched - rem}}) {
      if (n == 0) continue;
      lin("expert_gate_up", m, gate_up, c.hidden, checked_mul(M, n, "expert calls"));
      lin("expert_down", m, c.hidden, I, checked_mul(M, n, "expert calls"));
    }
    if (c.shared_intermediate > 0) {
      lin("shared_gate_up", tokens, checked_mul(2, c.shared_intermediate, "shared width"), c.hidden, M);
      lin("shared_down", tokens, c.hidden, c.shared_intermediate, M);
      if (c.shared_expert_gate) lin("shared_expert_gate", tokens, 1, c.hidden, M);
    }
    if (notes)
      notes->push_back("MoE " + to_string(phase) + ": uniform routing assumed (each of the " + std::to_string(tokens) +
                       " tokens picks " + std::to_string(k) + " of " + std::to_string(E) +
                       " experts, independently): expected distinct experts per layer E(1-(1-k/E)^T) = " +
                       fixed2(expected_experts(E, k, tokens)) + " (an expectation), costed as " +
                       std::to_string(touched) + " experts' weights");
  }
  if (notes && c.window_layers > 0 && kv_tokens > c.sliding_window)
    notes->push_back("sliding window " + std::to_string(c.sliding_window) + " in " + std::to_string(c.window_layers) +
                     " of " + std::to_string(L) + " layers: " + to_string(phase) + " attention there sees at most " +
                     std::to_string(c.sliding_window) + " keys per query");
  if (c.last_stage) lin("lm_head", ph.batch, c.vocab, c.hidden, 1, true);  // logits of each sequence's last token
}

}  // namespace detail

namespace {

const char* const kBatchSymbols[] = {"batch_size", "nseq", "b", "reserved_nseq"};
const char* const kLengthSymbols[] = {"n", "m", "seq_len", "total_seq_len", "kv_seq_len", "cache_len"};

template <std::size_t N>
bool any_of_symbols(const std::set<std::string>& ids, const char* const (&names)[N]) {
  return std::any_of(std::begin(names), std::end(names), [&](const char* s) { return ids.count(s) != 0; });
}

// The shape variables of a symbolic extent ("nseq * n" -> nseq, n; none when known or unknown).
std::set<std::string> identifiers(const Dim& d) {
  std::set<std::string> out;
  if (d.expr) sym::collect_names(*d.expr, out);
  return out;
}

// A symbolic extent named for the vocabulary (vocab_size, ...): a dump's final projection.
bool names_vocabulary(const Dim& d) {
  const auto ids = identifiers(d);
  return std::any_of(ids.begin(), ids.end(), [](const std::string& s) { return s.find("vocab") != std::string::npos; });
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::map<std::string, std::int64_t> Phases::symbols(Phase phase, const std::optional<ModelConfig>& cfg,
                                                    bool packed) const {
  std::map<std::string, std::int64_t> b;
  const std::int64_t prompt = packed ? checked_mul(seq_len, batch, "packed prefill tokens") : seq_len;
  const std::int64_t tokens = phase == Phase::kDecode ? context : prompt;
  for (const char* v : kLengthSymbols) b[v] = tokens;
  if (phase == Phase::kPrefill) b["total_seq_len"] = prompt;
  for (const char* v : kBatchSymbols) b[v] = batch;
  if (cfg) b["vocab_size"] = cfg->vocab;
  for (const auto& [k, v] : bindings) b[k] = v;
  return b;
}

std::int64_t attention_pairs(std::int64_t q, std::int64_t kv, std::int64_t window) {
  const std::int64_t w = window > 0 ? window : std::numeric_limits<std::int64_t>::max();
  if (q != kv || q == 1) return checked_mul(q, std::min(kv, w), "attention pairs");
  const std::int64_t s = q;
  if (s <= w) return checked_narrow(static_cast<i128>(s) * (s + 1) / 2, "attention pairs");
  return checked_narrow(static_cast<i128>(w) * (w + 1) / 2 + static_cast<i128>(w) * (s - w), "attention pairs");
}

std::vector<ModelGemm> workloads_from_config(const ModelConfig& cfg, const Phases& ph,
                                             std::vector<std::string>* notes) {
  check_phases(ph, cfg, notes);
  std::vector<ModelGemm> out;
  if (!ph.bindings.empty())
    throw InputError(
        "--bind names a dump's symbolic dims, but a config plan has none (it is sized by --batch, "
        "--seq-len and --context)");
  if (!ph.entries.empty())
    throw InputError("--entry names a dump's Relax entries, but a config plan has none (it runs prefill and decode)");
  layer_gemms(out, cfg, Phase::kPrefill, ph.seq_len, ph.seq_len, ph, notes);
  layer_gemms(out, cfg, Phase::kDecode, 1, ph.context, ph, notes);
  chunked_prefill(out, cfg, ph, notes);
  return out;
}

namespace {

struct DumpPlan {
  std::vector<ModelGemm> gemms;
  std::vector<ModelOp> ops;
};

// Every symbol of an entry's GEMMs and operators that neither the phase policy nor --bind gives a value, all at
// once: "entry 'main' leaves a, c, k unbound ... --bind a=N,c=N,k=N" (docs/model.md "Any dump").
void check_all_bound(
    const ExtractResult& ex,
    const std::function<const std::map<std::string, std::int64_t>&(const std::string&)>& bindings_for) {
  std::map<std::string, std::set<std::string>> missing;  // entry -> unbound symbols
  std::optional<SourceLocation> first;
  auto scan = [&](const std::map<std::string, std::int64_t>& calls, std::initializer_list<const Dim*> dims,
                  const SourceLocation& loc) {
    for (const auto& [entry, n] : calls) {
      if (n <= 0) continue;
      const auto& b = bindings_for(entry);
      for (const Dim* d : dims)
        for (const auto& id : identifiers(*d))
          if (!b.count(id) && std::find(ex.symbols.begin(), ex.symbols.end(), id) != ex.symbols.end() &&
              missing[entry].insert(id).second && !first)
            first = loc;
    }
  };
  for (const auto& w : ex.workloads)
    if (w.shape_known) scan(w.calls, {&w.batch, &w.m, &w.n, &w.k}, w.loc);
  for (const auto& o : ex.operators)
    if (o.shape_known) scan(o.calls, {&o.ops, &o.read_bytes, &o.write_bytes}, o.loc);
  for (const auto& [entry, ids] : missing) {
    if (ids.empty()) continue;
    std::string how;
    for (const auto& id : ids) how += (how.empty() ? "" : ",") + id + "=N";
    throw InputError(*first, "entry '" + entry + "' leaves the symbolic dimension(s) " +
                                 joined({ids.begin(), ids.end()}) +
                                 " unbound (--seq-len, --context and --batch bind only the known names): bind "
                                 "them with --bind " +
                                 how);
  }
}

// The entries a dump's plan costs and how their symbols bind (docs/model.md "Entries").
struct Entries {
  ExtractResult costed;           // the dump without the calls of the entries left out
  std::set<std::string> batched;  // entries with a batch symbol: one call serves the --batch sequences
  std::set<std::string> packed;   // prefill entries whose rows pack the sequences' prompts (MLC's batch_prefill)
};

std::string quoted(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "'" : ", '") + x + "'";
  return s;
}

// --entry's entries, else every entry, but one per phase when a dump has several (MLC's decode and batch_decode):
// at --batch 1 the one without a batch symbol, at --batch N > 1 the one with (each falls back to the other kind).
// A chosen prefill entry with a batch symbol whose GEMMs or operators have rows without one packs the sequences'
// prompts along one axis: its length symbols bind to --batch x --seq-len.
Entries choose_entries(const ExtractResult& ex, const Phases& ph, std::vector<std::string>* notes) {
  Entries out;
  std::set<std::string> all, unbatched_rows;
  auto scan = [&](const std::map<std::string, std::int64_t>& calls, std::initializer_list<const Dim*> dims) {
    std::set<std::string> ids;
    for (const Dim* d : dims) ids.merge(identifiers(*d));
    const bool batch = any_of_symbols(ids, kBatchSymbols);
    const bool rows = !batch && any_of_symbols(ids, kLengthSymbols);
    for (const auto& [entry, n] : calls) {
      if (n <= 0) continue;
      all.insert(entry);
      if (batch) out.batched.insert(entry);
      if (rows) unbatched_rows.insert(entry);
    }
  };
  for (const auto& w : ex.workloads) scan(w.calls, {&w.batch, &w.m, &w.n, &w.k});
  for (const auto& o : ex.operators) scan(o.calls, {&o.ops, &o.read_bytes, &o.write_bytes});
  for (const auto& site : ex.attention) all.insert(site.entry);
  std::set<std::string> keep;
  for (const auto& e : ph.entries) {
    if (!all.count(e))
      throw InputError(
          "--entry " + e + ": not an entry of the dump that calls a GEMM, an operator or attention" +
          (all.empty() ? std::string(" (it has none)") : "; its entries: " + joined({all.begin(), all.end()})));
    keep.insert(e);
  }
  std::vector<std::string> picked, left;  // where one phase has several entries
  if (ph.entries.empty()) {
    for (const auto& e : all)
      if (ph.phase_of(e) == Phase::kOther) keep.insert(e);
    for (const Phase phase : {Phase::kPrefill, Phase::kDecode}) {
      std::vector<std::string> one, many;  // without / with a batch symbol
      for (const auto& e : all)
        if (ph.phase_of(e) == phase) (out.batched.count(e) ? many : one).push_back(e);
      const bool batched = ph.batch > 1 ? !many.empty() : one.empty();
      const auto& chosen = batched ? many : one;
      const auto& other = batched ? one : many;
      if (chosen.size() > 1)
        throw InputError("entries " + quoted(chosen) + " all run the " + to_string(phase) + " phase" +
                         (batched ? " with a batch symbol" : "") + ": name the ones to cost with --entry NAME");
      if (chosen.empty()) continue;
      keep.insert(chosen.front());
      if (other.empty()) continue;
      picked.push_back("'" + chosen.front() + "' (" + to_string(phase) + ")");
      left.insert(left.end(), other.begin(), other.end());
    }
  }
  if (notes && !picked.empty())
    notes->push_back("entries at --batch " + std::to_string(ph.batch) + ": " + joined(picked) + " costed; " +
                     quoted(left) + " not (--entry NAME picks the entries to cost)");
  for (const auto& e : keep)
    if (ph.phase_of(e) == Phase::kPrefill && out.batched.count(e) && unbatched_rows.count(e)) {
      out.packed.insert(e);
      if (notes)
        notes->push_back("entry '" + e + "' packs the prompts of its batch along one axis: its length symbols are " +
                         std::to_string(ph.batch) + " x " + std::to_string(ph.seq_len) + " tokens");
    }
  out.costed = ex;
  auto drop = [&](std::map<std::string, std::int64_t>& calls) {
    for (auto it = calls.begin(); it != calls.end();) it = keep.count(it->first) ? std::next(it) : calls.erase(it);
  };
  for (auto& w : out.costed.workloads) drop(w.calls);
  for (auto& o : out.costed.operators) drop(o.calls);
  auto& sites = out.costed.attention;
  sites.erase(std::remove_if(sites.begin(), sites.end(), [&](const auto& site) { return !keep.count(site.entry); }),
              sites.end());
  return out;
}

// The attention role of a dump's GEMM without a weight operand, from its structure (docs/model.md "Attention in
// dumps"): QK^T reduces over head_dim and its N runs over the keys; score·V reduces over the keys (operand A is the
// probabilities) and its N is head_dim. The token axis is the symbolic one of K and N when exactly one is (a
// sequence length; head_dim is a constant of the model); else the cache operand's layout decides: K and V are both
// stored [token, head_dim] (head_dim innermost), so QK^T reads B transposed (K innermost: NT) and score·V plain (N
// innermost: NN).
quant::GemmRole attention_role(const Workload& w) {
  if (!w.k.known() && w.n.known()) return quant::GemmRole::kAttnPV;
  if (w.k.known() && !w.n.known()) return quant::GemmRole::kAttnQK;
  return w.layout.size() == 2 && w.layout[1] == 'N' ? quant::GemmRole::kAttnPV : quant::GemmRole::kAttnQK;
}

// The operators of a dump's entries at their bindings; those without a known shape go to `uncosted`.
std::vector<ModelOp> dump_ops(
    const ExtractResult& ex, const Phases& ph,
    const std::function<const std::map<std::string, std::int64_t>&(const std::string&)>& bindings_for,
    std::set<std::string>& uncosted) {
  std::vector<ModelOp> ops;
  for (const auto& o : ex.operators) {
    for (const auto& entry_calls : o.calls) {
      const std::string& entry = entry_calls.first;  // a named reference: the lambdas below capture it
      const std::int64_t calls = entry_calls.second;
      if (calls <= 0) continue;
      if (!o.shape_known) {
        uncosted.insert(o.function + " (" + o.note + ")");
        continue;
      }
      const auto& b = bindings_for(entry);
      auto value = [&](const Dim& d) {
        try {
          return *bind_dim(d, b, true).value;
        } catch (const OverflowError&) {
          throw;
        } catch (const InputError& e) {
          throw InputError(o.loc, "operator " + o.function + " called from '" + entry + "': " + e.what());
        }
      };
      ops.push_back(ModelOp{o.epilogue ? o.function + " (epilogue)" : o.function, entry, ph.phase_of(entry), calls,
                            cost::OpShape{value(o.ops), value(o.read_bytes), value(o.write_bytes)}, GemmSource::kTir});
    }
  }
  return ops;
}

// The GEMMs and operators of a dump (workloads_from_extract's rules; operators: docs/model.md "Operators").
DumpPlan dump_plan(const ExtractResult& dump, const Phases& ph, const std::optional<ModelConfig>& cfg,
                   std::vector<std::string>* notes) {
  check_phases(ph, cfg, notes);
  if (ph.chunk > 0) throw InputError("--chunk builds a config's chunked prefill: give --hf-config without a dump");
  const Entries chosen = choose_entries(dump, ph, notes);
  const ExtractResult& ex = chosen.costed;
  const std::set<std::string>& batched_entries = chosen.batched;  // entries whose GEMMs have a batch symbol
  for (const auto& [name, value] : ph.bindings)
    if (std::find(ex.symbols.begin(), ex.symbols.end(), name) == ex.symbols.end())
      throw InputError("--bind " + name + "=" + std::to_string(value) + ": '" + name + "' is not a symbol of the dump" +
                       (ex.symbols.empty() ? std::string(" (it has none)") : "; its symbols: " + joined(ex.symbols)));
  std::vector<ModelGemm> out;
  std::set<std::string> entries;
  std::map<std::string, std::map<std::string, std::int64_t>> binds;  // per entry
  auto bindings_for = [&](const std::string& entry) -> const std::map<std::string, std::int64_t>& {
    const auto it = binds.find(entry);
    if (it != binds.end()) return it->second;
    return binds.emplace(entry, ph.symbols(ph.phase_of(entry), cfg, chosen.packed.count(entry) != 0)).first->second;
  };
  check_all_bound(ex, bindings_for);
  std::set<std::string> convs, im2col;  // convolutions with their window; those costed as im2col
  for (const auto& w : ex.workloads) {
    if (!w.shape_known) continue;
    for (const auto& entry_calls : w.calls) {
      const std::string& entry = entry_calls.first;  // a named reference: the lambdas below capture it
      const std::int64_t calls = entry_calls.second;
      if (calls <= 0) continue;
      entries.insert(entry);
      const auto& b = bindings_for(entry);
      auto dim = [&](const Dim& d, const char* what) {
        Dim r;
        try {
          r = bind_dim(d, b, true);
        } catch (const OverflowError&) {
          throw;
        } catch (const InputError& e) {
          throw InputError(w.loc, w.function + " called from '" + entry + "': " + e.what());
        }
        if (!r.value || *r.value <= 0)
          throw InputError(w.loc, std::string("cannot bind ") + what + " '" + d.str() + "' of " + w.function);
        return *r.value;
      };
      ModelGemm g;
      g.function = w.function;
      g.entry = entry;
      g.phase = ph.phase_of(entry);
      g.calls = calls;
      g.shape = GemmShape{dim(w.batch, "batch"), dim(w.m, "m"), dim(w.n, "n"), dim(w.k, "k"),
                          w.weight_operand == WeightOperand::kNone ? attention_role(w) : quant::GemmRole::kLinear};
      if (w.weight_operand != WeightOperand::kNone) {
        g.dump_scheme = quant::scheme_from(w.quant);
        if (w.quant.weight_bits == 0 && w.dtype_b)
          g.dump_scheme = quant::parse_scheme(w.dtype_b == DataType::Float(32) ? "q0f32" : "q0f16");
      }
      g.source = source_of(w.source);
      if (w.kind == WorkloadKind::kConv) {
        g.shape.conv = conv_window(w, g.shape, b);
        (g.shape.conv ? convs : im2col).insert(w.function);
      }
      // the final projection: N is the vocabulary (from the config, or a symbolic vocab_size)
      g.lm_head = (cfg && g.shape.n == cfg->vocab && w.weight_operand != WeightOperand::kNone) ||
                  names_vocabulary(w.n) || w.function.find("lm_head") != std::string::npos;
      out.push_back(g);
    }
  }
  std::set<std::string> uncosted;
  std::vector<ModelOp> ops = dump_ops(ex, ph, bindings_for, uncosted);
  if (notes && !convs.empty())
    notes->push_back(
        "convolutions run as their implicit GEMM (m = batch x output pixels, n = output channels, k = "
        "input channels x kernel volume, k tiles of whole kernel windows), the input's DRAM traffic the distinct "
        "input elements of each tile (sliding-window reuse; im2col on an arch with levels): " +
        joined({convs.begin(), convs.end()}));
  if (notes && !im2col.empty())
    notes->push_back(
        "convolutions run as their implicit GEMM (m = batch x output pixels, n = output channels, k = "
        "input channels x kernel volume), the input counted as its im2col matrix (a 3-D or unresolved window): " +
        joined({im2col.begin(), im2col.end()}));
  if (notes)
    for (const auto& u : uncosted) notes->push_back("operator " + u + " is not costed");
  // --batch N > 1: an entry whose GEMMs have a batch symbol runs the N sequences in one call; any other entry runs
  // once per sequence (calls x N, one sequence each), which the plan's notes state
  const auto per_sequence = [&](const std::string& entry) { return ph.batch > 1 && !batched_entries.count(entry); };
  std::set<std::string> sequential;
  for (auto& g : out)
    if (per_sequence(g.entry)) {
      g.calls = checked_mul(g.calls, ph.batch, "calls");
      sequential.insert(g.entry);
    }
  for (auto& o : ops)
    if (per_sequence(o.entry)) {
      o.calls = checked_mul(o.calls, ph.batch, "calls");
      sequential.insert(o.entry);
    }
  bool cfg_used = false;
  for (const auto& g : out) cfg_used = cfg_used || (cfg && g.lm_head && g.shape.n == cfg->vocab);
  if (std::find(ex.symbols.begin(), ex.symbols.end(), "vocab_size") != ex.symbols.end()) cfg_used = true;
  for (const auto& site : ex.attention) {
    if (cfg && ((site.num_heads && *site.num_heads != cfg->heads) ||
                (site.num_kv_heads && *site.num_kv_heads != cfg->kv_heads) ||
                (site.head_dim && *site.head_dim != cfg->head_dim)))
      throw InputError("--hf-config disagrees with the dump: entry '" + site.entry + "' calls " + site.builtin +
                       " with other numbers of heads, KV heads or head_dim than the config's");
    cfg_used = cfg_used || !site.num_heads || !site.num_kv_heads || !site.head_dim;
    const std::int64_t heads = site.num_heads ? *site.num_heads : cfg ? cfg->heads : 0;
    const std::int64_t kv = site.num_kv_heads ? *site.num_kv_heads : cfg ? cfg->kv_heads : 0;
    const std::int64_t hd = site.head_dim ? *site.head_dim : cfg ? cfg->head_dim : 0;
    if (heads <= 0 || kv <= 0 || hd <= 0 || heads % kv != 0)
      throw InputError("entry '" + site.entry + "' calls " + site.builtin +
                       " but the number of heads, KV heads or head_dim is unknown from the dump; pass --hf-config "
                       "config.json");
    const Phase phase = ph.phase_of(site.entry);
    const std::int64_t q = phase == Phase::kDecode ? 1 : ph.seq_len;
    const std::int64_t kvlen = phase == Phase::kDecode ? ph.context : ph.seq_len;
    Phases one = ph;
    if (per_sequence(site.entry)) one.batch = 1;
    const std::int64_t calls = per_sequence(site.entry) ? checked_mul(site.calls, ph.batch, "calls") : site.calls;
    attention(out, site.entry, phase, calls, heads, kv, hd, q, kvlen, GemmSource::kSynthesized, one);
    if (per_sequence(site.entry)) sequential.insert(site.entry);
  }
  if (notes)
    for (const auto& entry : sequential)
      notes->push_back("entry '" + entry + "' has no batch symbol (" +
                       joined({std::begin(kBatchSymbols), std::end(kBatchSymbols)}) + "): it runs once per sequence, " +
                       std::to_string(ph.batch) + " calls of one sequence each");
  if (cfg && !cfg_used)
    throw InputError(
        "--hf-config is not used by this dump (no attention builtin needing heads, no vocab_size "
        "symbol, no GEMM with the config's vocabulary); drop it or estimate the config alone");
  return DumpPlan{std::move(out), std::move(ops)};
}

}  // namespace

std::vector<ModelGemm> workloads_from_extract(const ExtractResult& ex, const Phases& ph,
                                              const std::optional<ModelConfig>& cfg, std::vector<std::string>* notes) {
  return dump_plan(ex, ph, cfg, notes).gemms;
}

namespace {

// A module without a Relax entry (kernel files, dispatch modules): each GEMM, convolution and operator runs once,
// or --calls NAME=N times, under one entry named after the module (docs/model.md "Any dump").
ExtractResult run_once(const ExtractResult& ex, const std::string& entry, const Phases& ph,
                       std::vector<std::string>& notes) {
  ExtractResult out = ex;
  std::set<std::string> names;
  for (const auto& w : ex.workloads)
    if (w.source == WorkloadSource::kTir) names.insert(w.function);
  for (const auto& o : ex.operators) names.insert(o.function);
  for (const auto& [name, n] : ph.calls)
    if (!names.count(name))
      throw InputError(
          "--calls " + name + "=" + std::to_string(n) + ": '" + name +
          "' is not a GEMM, convolution or operator of the module" +
          (names.empty() ? std::string(" (it has none)") : "; its functions: " + joined({names.begin(), names.end()})));
  auto count = [&](const std::string& f) {
    const auto it = ph.calls.find(f);
    return it == ph.calls.end() ? std::int64_t{1} : it->second;
  };
  for (auto& w : out.workloads)
    if (w.source == WorkloadSource::kTir) w.calls = {{entry, count(w.function)}};
  for (auto& o : out.operators) o.calls = {{entry, count(o.function)}};
  notes.push_back("the module has no Relax entry: each GEMM, convolution and operator runs " +
                  std::string(ph.calls.empty() ? "once" : "once (but the --calls counts)") + " under the entry '" +
                  entry + "' (set counts with --calls NAME=N)");
  return out;
}

}  // namespace

Model plan_from_extract(const std::string& path, const ExtractResult& extracted, const Phases& phases,
                        const std::optional<ModelConfig>& cfg) {
  Model m;
  m.name = fs::path(path).filename().string();
  std::optional<ExtractResult> once;
  Phases ph = phases;
  if (extracted.entries.empty()) {
    const std::string stem = fs::path(path).stem().string();
    once = run_once(extracted, stem, phases, m.notes);
    ph.phaseless.insert(stem);
  } else if (!phases.calls.empty()) {
    throw InputError("--calls sets the counts of a module without a Relax entry; this one has entries (" +
                     joined(extracted.entries) + ") whose calls are counted from the dump");
  }
  DumpPlan p = dump_plan(once ? *once : extracted, ph, cfg, &m.notes);
  m.gemms = std::move(p.gemms);
  m.ops = std::move(p.ops);
  if (m.gemms.empty()) throw InputError(path + ": no GEMM workloads found");
  return m;
}

std::map<std::string, std::int64_t> parse_calls(const std::vector<std::string>& items) {
  std::map<std::string, std::int64_t> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    std::int64_t n = -1;
    bool ok = eq != std::string::npos && !name.empty();
    if (ok) {
      const char* b = item.data() + eq + 1;
      const char* e = item.data() + item.size();
      const auto [p, ec] = std::from_chars(b, e, n);
      ok = b != e && ec == std::errc() && p == e && n >= 0;
    }
    if (!ok) throw InputError("--calls: expected NAME=N (N a non-negative integer), found '" + item + "'");
    if (!out.emplace(name, n).second) throw InputError("--calls: '" + name + "' is given twice");
  }
  return out;
}

cost::GemmShape parse_gemm_shape(const std::string& text) {
  std::vector<std::int64_t> v;
  std::size_t start = 0;
  bool ok = !text.empty();
  while (ok && start <= text.size()) {
    const std::size_t x = std::min(text.find('x', start), text.size());
    std::int64_t n = 0;
    const char* b = text.data() + start;
    const char* e = text.data() + x;
    const auto [p, ec] = std::from_chars(b, e, n);
    ok = b != e && ec == std::errc() && p == e && n > 0;
    v.push_back(n);
    start = x + 1;
  }
  if (!ok || v.size() < 3 || v.size() > 4)
    throw InputError("--gemm: expected MxNxK or MxNxKxB (positive integers; B = batch), found '" + text + "'");
  return cost::GemmShape{v.size() == 4 ? v[3] : 1, v[0], v[1], v[2], quant::GemmRole::kLinear};
}

Model plan_from_shapes(const std::vector<std::string>& shapes, const Phases& phases) {
  check_phases(phases, std::nullopt);
  if (phases.chunk > 0) throw InputError("--chunk builds a config's chunked prefill; --gemm shapes have none");
  if (!phases.bindings.empty() || !phases.calls.empty() || !phases.entries.empty())
    throw InputError(
        "--bind, --calls and --entry name a dump's symbols, functions and entries; --gemm shapes have none");
  Model m;
  m.name = "gemm";
  for (const auto& s : shapes) {
    const cost::GemmShape shape = parse_gemm_shape(s);
    m.gemms.push_back(ModelGemm{"gemm_" + s, "gemm", Phase::kOther, 1, shape, {}, GemmSource::kShape});
  }
  if (m.gemms.empty()) throw InputError("--gemm: expected at least one MxNxK shape");
  m.notes.push_back(
      "plain GEMM shapes (--gemm MxNxK[xB]): each runs once under the entry 'gemm' as a linear layer (A = "
      "M x K activations, B = the K x N weight under the scheme)");
  return m;
}

Model plan_from_dump(const std::string& path, const Phases& phases, const std::optional<ModelConfig>& cfg) {
  return dump_plan_source(path, cfg).at(phases);
}

Model plan_from_config(const std::string& config_path, const ModelConfig& cfg, const Phases& phases) {
  Model m;
  m.name = cfg.name.empty() ? fs::path(config_path).stem().string() : cfg.name;
  m.notes = cfg.notes;
  m.config = cfg;
  m.gemms = workloads_from_config(cfg, phases, &m.notes);
  m.ops = operators_from_config(cfg, phases);
  return m;
}

namespace {
const char* const kDefaultModel = "llama-2-7b";
}

PlanSource dump_plan_source(const std::string& path, const std::optional<ModelConfig>& cfg) {
  auto ex = std::make_shared<const ExtractResult>(extract_workloads(ir::load_module(path), {}));
  return PlanSource{[path, ex, cfg](const Phases& ph) { return plan_from_extract(path, *ex, ph, cfg); }, cfg};
}

PlanSource default_plan_source(const std::string& workloads_dir) {
  const fs::path dir = fs::path(workloads_dir) / kDefaultModel;
  const ModelConfig cfg = load_hf_config((dir / "config.json").string());
  // --batch N > 1 costs the dump's batch_prefill / batch_decode (docs/model.md "Entries")
  auto ex = std::make_shared<const ExtractResult>(extract_workloads(ir::load_module((dir / "q0f16.py").string()), {}));
  return PlanSource{[ex, cfg](const Phases& ph) { return plan_from_extract(kDefaultModel, *ex, ph, cfg); }, cfg};
}

Model default_model(const std::string& workloads_dir, const Phases& phases) {
  return default_plan_source(workloads_dir).at(phases);
}

const std::vector<std::string>& default_schemes() {
  static const std::vector<std::string> s = {"q0f16", "q4f16_1", "q4f16_autoawq", "w8a8-token-channel", "w4a8-g128",
                                             "fp8-tensor"};
  return s;
}

}  // namespace tenet_cost::model
