// Whole-model workloads (HF config or extracted dump) and totals per entry.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/estimate.hpp"
#include "tenet_cost/json_text.hpp"

namespace tenet_cost::estimate {

using nlohmann::json;

ModelConfig parse_hf_config(const std::string& text, const std::string& filename) {
  // config.json files are a few KB (id2label maps of classifiers reach ~1 MB) and 2-3 levels deep.
  const json j = parse_json_document(text, filename, JsonLimits{std::size_t{16} << 20, 32, "Hugging Face config"});
  if (!j.is_object()) throw InputError(SourceLocation{filename, 1, 1}, "expected a JSON object (a Hugging Face config.json)");
  auto get = [&](std::initializer_list<const char*> keys, bool required, std::int64_t def) -> std::int64_t {
    for (const char* k : keys)
      if (j.contains(k) && !j[k].is_null()) {
        if (!j[k].is_number_integer() || j[k].get<std::int64_t>() <= 0)
          throw InputError(SourceLocation{filename, 0, 0}, std::string("expected a positive integer for '") + k + "'");
        return j[k].get<std::int64_t>();
      }
    if (required) {
      std::string names;
      for (const char* k : keys) names += (names.empty() ? "" : " or ") + std::string("'") + k + "'";
      throw InputError(SourceLocation{filename, 0, 0},
                       "missing " + names +
                           " (a Llama / Mistral / Qwen2 / GPT-NeoX style config.json needs hidden_size, "
                           "intermediate_size, num_attention_heads, num_hidden_layers, vocab_size)");
    }
    return def;
  };
  auto text_of = [&](const char* key, const std::string& def) -> std::string {
    if (!j.contains(key) || j[key].is_null()) return def;
    if (!j[key].is_string())
      throw InputError(SourceLocation{filename, 0, 0}, std::string("expected a string for '") + key + "', found " + j[key].type_name());
    return j[key].get<std::string>();
  };
  ModelConfig c;
  c.model_type = text_of("model_type", "llama");
  c.name = text_of("_name_or_path", c.model_type);
  c.hidden = get({"hidden_size", "n_embd"}, true, 0);
  c.heads = get({"num_attention_heads", "n_head"}, true, 0);
  c.layers = get({"num_hidden_layers", "n_layer"}, true, 0);
  c.vocab = get({"vocab_size"}, true, 0);
  c.intermediate = get({"intermediate_size", "n_inner"}, false, 4 * c.hidden);
  c.kv_heads = get({"num_key_value_heads"}, false, c.heads);
  c.head_dim = get({"head_dim"}, false, c.hidden / c.heads);
  if (c.heads % c.kv_heads != 0)
    throw InputError(SourceLocation{filename, 0, 0}, "num_attention_heads must be a multiple of num_key_value_heads");
  if (j.contains("tie_word_embeddings") && !j["tie_word_embeddings"].is_null()) {
    if (!j["tie_word_embeddings"].is_boolean())
      throw InputError(SourceLocation{filename, 0, 0}, "expected true or false for 'tie_word_embeddings'");
    c.tie_embeddings = j["tie_word_embeddings"].get<bool>();
  }
  c.gated_mlp = c.model_type != "gpt_neox" && c.model_type != "gpt2";
  const std::string dt = text_of("torch_dtype", "float16");
  c.dtype = dt == "float32" ? "float32" : dt == "bfloat16" ? "bfloat16" : "float16";
  return c;
}

std::string phase_of_entry(const std::string& entry) {
  if (entry.find("prefill") != std::string::npos || entry == "encoding" || entry.find("encode") != std::string::npos)
    return "prefill";
  if (entry.find("decode") != std::string::npos || entry == "decoding") return "decode";
  return "";
}

namespace {

void attention(std::vector<ModelGemm>& out, const std::string& entry, const std::string& phase, std::int64_t calls,
               std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t q_tokens,
               std::int64_t kv_tokens) {
  const std::int64_t group = heads / kv_heads;
  const std::int64_t rows = checked_mul(group, q_tokens, "attention rows");
  ModelGemm qk{"attn_qk", entry, phase, calls, {kv_heads, rows, kv_tokens, head_dim, quant::GemmRole::kAttnQK}, {}, "synthesized"};
  ModelGemm pv{"attn_pv", entry, phase, calls, {kv_heads, rows, head_dim, kv_tokens, quant::GemmRole::kAttnPV}, {}, "synthesized"};
  out.push_back(qk);
  out.push_back(pv);
}

void layer_gemms(std::vector<ModelGemm>& out, const ModelConfig& c, const std::string& entry, std::int64_t tokens,
                 std::int64_t kv_tokens) {
  const std::int64_t L = c.layers;
  const std::int64_t qkv = checked_mul(c.heads + 2 * c.kv_heads, c.head_dim, "qkv width");
  const std::int64_t attn_out = checked_mul(c.heads, c.head_dim, "attention width");
  auto lin = [&](const char* name, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t calls,
                 quant::GemmRole role = quant::GemmRole::kLinear) {
    out.push_back(ModelGemm{name, entry, entry, calls, {1, m, n, k, role}, {}, "config", std::string(name) == "lm_head"});
  };
  lin("qkv_proj", tokens, qkv, c.hidden, L);
  attention(out, entry, entry, L, c.heads, c.kv_heads, c.head_dim, tokens, kv_tokens);
  for (auto& g : out)
    if (g.source == "synthesized" && g.entry == entry) g.source = "config";
  lin("o_proj", tokens, c.hidden, attn_out, L);
  lin(c.gated_mlp ? "gate_up_proj" : "up_proj", tokens, c.gated_mlp ? 2 * c.intermediate : c.intermediate, c.hidden, L);
  lin("down_proj", tokens, c.hidden, c.intermediate, L);
  lin("lm_head", 1, c.vocab, c.hidden, 1);  // MLC computes logits of the last token only
}

}  // namespace

std::vector<ModelGemm> workloads_from_config(const ModelConfig& cfg, const Phases& ph) {
  if (ph.seq_len <= 0 || ph.context <= 0) throw InputError("--seq-len and --context must be positive");
  std::vector<ModelGemm> out;
  layer_gemms(out, cfg, "prefill", ph.seq_len, ph.seq_len);
  layer_gemms(out, cfg, "decode", 1, ph.context);
  return out;
}

std::vector<ModelGemm> workloads_from_extract(const ExtractResult& ex, const Phases& ph,
                                              const std::optional<ModelConfig>& cfg) {
  if (ph.seq_len <= 0 || ph.context <= 0) throw InputError("--seq-len and --context must be positive");
  std::vector<ModelGemm> out;
  std::map<std::string, std::map<std::string, std::int64_t>> binds;  // per entry
  auto bindings_for = [&](const std::string& entry) -> const std::map<std::string, std::int64_t>& {
    auto it = binds.find(entry);
    if (it != binds.end()) return it->second;
    std::map<std::string, std::int64_t> b;
    const std::string phase = phase_of_entry(entry);
    const std::int64_t tokens = phase == "decode" ? ph.context : ph.seq_len;
    for (const char* v : {"n", "m", "seq_len", "total_seq_len", "kv_seq_len", "cache_len"}) b[v] = tokens;
    if (phase == "prefill") b["total_seq_len"] = ph.seq_len;
    for (const char* v : {"batch_size", "nseq", "b", "reserved_nseq"}) b[v] = 1;
    if (cfg) b["vocab_size"] = cfg->vocab;
    for (const auto& [k, v] : ph.bindings) b[k] = v;
    return binds.emplace(entry, b).first->second;
  };
  for (const auto& w : ex.workloads) {
    if (w.kind != WorkloadKind::kGemm) continue;
    if (!w.shape_known) continue;
    for (const auto& [entry, calls] : w.calls) {
      if (calls <= 0) continue;
      const auto& b = bindings_for(entry);
      auto dim = [&](const Dim& d, const char* what) {
        const Dim r = bind_dim(d, b, true);
        if (!r.value || *r.value <= 0)
          throw InputError(w.loc, std::string("cannot bind ") + what + " '" + d.str() + "' of " + w.function);
        return *r.value;
      };
      ModelGemm g;
      g.function = w.function;
      g.entry = entry;
      g.phase = phase_of_entry(entry);
      g.calls = calls;
      g.shape = GemmShape{dim(w.batch, "batch"), dim(w.m, "m"), dim(w.n, "n"), dim(w.k, "k"),
                          w.weight_operand == "none" ? quant::GemmRole::kAttnQK : quant::GemmRole::kLinear};
      if (w.weight_operand != "none") {
        g.dump_scheme = quant::scheme_from_quant_info(
            w.quant.scheme, w.quant.weight_bits, w.quant.group_size, w.quant.scale_dtype,
            w.quant.zero_point == "tensor", w.quant.elems_per_storage, w.quant.storage_dtype, w.quant.block_n,
            w.quant.block_k);
        if (w.quant.weight_bits == 0 && !w.dtype_b.empty()) {
          const std::string md = w.dtype_b == "float32" ? "q0f32" : "q0f16";
          g.dump_scheme = quant::parse_scheme(md);
        }
      }
      g.source = w.source;
      // the final projection: N is the vocabulary (from the config, or a symbolic vocab_size)
      g.lm_head = (cfg && g.shape.n == cfg->vocab && w.weight_operand != "none") ||
                  w.n.expr.find("vocab") != std::string::npos;
      out.push_back(g);
    }
  }
  for (const auto& site : ex.attention) {
    const std::int64_t heads = site.num_heads ? *site.num_heads : cfg ? cfg->heads : 0;
    const std::int64_t kv = site.num_kv_heads ? *site.num_kv_heads : cfg ? cfg->kv_heads : 0;
    const std::int64_t hd = site.head_dim ? *site.head_dim : cfg ? cfg->head_dim : 0;
    if (heads <= 0 || kv <= 0 || hd <= 0 || heads % kv != 0)
      throw InputError("entry '" + site.entry + "' calls " + site.builtin +
                       " but the number of heads, KV heads or head_dim is unknown from the dump; pass --hf-config config.json");
    const std::string phase = phase_of_entry(site.entry);
    const std::int64_t q = phase == "decode" ? 1 : ph.seq_len;
    const std::int64_t kvlen = phase == "decode" ? ph.context : ph.seq_len;
    attention(out, site.entry, phase, site.calls, heads, kv, hd, q, kvlen);
  }
  return out;
}

ModelResult run_model(Estimator& est, const std::vector<ModelGemm>& gemms, const std::optional<quant::Scheme>& scheme) {
  ModelResult r;
  static const quant::Scheme fp16 = quant::parse_scheme("q0f16");
  for (const auto& g : gemms) {
    const quant::Scheme& s = scheme ? *scheme : g.dump_scheme ? *g.dump_scheme : fp16;
    GemmShape shape = g.shape;
    if (shape.role == quant::GemmRole::kLinear && (g.lm_head || g.function.find("lm_head") != std::string::npos) &&
        !s.quantize_lm_head)
      shape.role = quant::GemmRole::kLinearUnquantized;
    const GemmCost& c = est.gemm(shape, s);
    r.rows.emplace_back(g, c);
    EntryTotals& t = r.totals[g.entry];
    r.entry_phase[g.entry] = g.phase;
    const std::int64_t n = g.calls;
    t.macs = checked_add(t.macs, checked_mul(c.macs, n, "total MACs"), "total MACs");
    t.cycles = checked_add(t.cycles, checked_mul(c.cycles, n, "total cycles"), "total cycles");
    t.dram_bytes = checked_add(t.dram_bytes, checked_mul(c.dram_bytes, n, "total DRAM bytes"), "total DRAM bytes");
    t.buffer_bytes = checked_add(t.buffer_bytes, checked_mul(c.buffer_bytes, n, "buffer bytes"), "buffer bytes");
    for (const auto& tc : c.tensors)
      if (tc.role == "scale" || tc.role == "zero_point")
        t.scale_dram_bytes = checked_add(t.scale_dram_bytes, checked_mul(tc.dram_bytes, n, "scale bytes"), "scale bytes");
    t.latency_s += c.latency_s * static_cast<double>(n);
    t.energy_j += c.energy_j * static_cast<double>(n);
  }
  return r;
}

}  // namespace tenet_cost::estimate
