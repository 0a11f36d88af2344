// The plan of GEMMs per entry: from a config or a dump's extracted workloads (docs/model.md).
#include <filesystem>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace fs = std::filesystem;
using cost::GemmShape;

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

std::string to_string(GemmSource s) {
  switch (s) {
    case GemmSource::kTir: return "tir";
    case GemmSource::kRelax: return "relax";
    case GemmSource::kPacked: return "packed";
    case GemmSource::kSynthesized: return "synthesized";
    case GemmSource::kConfig: return "config";
  }
  return "config";
}

namespace {

// Workload::source as the extractor spells it (workload.hpp).
GemmSource source_of(const std::string& s) {
  if (s == "relax") return GemmSource::kRelax;
  if (s == "packed") return GemmSource::kPacked;
  if (s == "synthesized") return GemmSource::kSynthesized;
  return GemmSource::kTir;
}

void attention(std::vector<ModelGemm>& out, const std::string& entry, Phase phase, std::int64_t calls,
               std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t q_tokens,
               std::int64_t kv_tokens, GemmSource source) {
  const std::int64_t group = heads / kv_heads;
  const std::int64_t rows = checked_mul(group, q_tokens, "attention rows");
  out.push_back(ModelGemm{"attn_qk", entry, phase, calls,
                          GemmShape{kv_heads, rows, kv_tokens, head_dim, quant::GemmRole::kAttnQK}, {}, source});
  out.push_back(ModelGemm{"attn_pv", entry, phase, calls,
                          GemmShape{kv_heads, rows, head_dim, kv_tokens, quant::GemmRole::kAttnPV}, {}, source});
}

void layer_gemms(std::vector<ModelGemm>& out, const ModelConfig& c, Phase phase, std::int64_t tokens,
                 std::int64_t kv_tokens) {
  const std::string entry = to_string(phase);
  const std::int64_t L = c.layers;
  const std::int64_t qkv = checked_mul(c.heads + 2 * c.kv_heads, c.head_dim, "qkv width");
  const std::int64_t attn_out = checked_mul(c.heads, c.head_dim, "attention width");
  auto lin = [&](const char* name, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t calls,
                 bool lm_head = false) {
    out.push_back(ModelGemm{name, entry, phase, calls, GemmShape{1, m, n, k, quant::GemmRole::kLinear}, {},
                            GemmSource::kConfig, lm_head});
  };
  lin("qkv_proj", tokens, qkv, c.hidden, L);
  attention(out, entry, phase, L, c.heads, c.kv_heads, c.head_dim, tokens, kv_tokens, GemmSource::kConfig);
  lin("o_proj", tokens, c.hidden, attn_out, L);
  lin(c.gated_mlp ? "gate_up_proj" : "up_proj", tokens, c.gated_mlp ? 2 * c.intermediate : c.intermediate, c.hidden, L);
  lin("down_proj", tokens, c.hidden, c.intermediate, L);
  lin("lm_head", 1, c.vocab, c.hidden, 1, true);  // MLC computes logits of the last token only
}

void check_phases(const Phases& ph) {
  if (ph.seq_len <= 0 || ph.context <= 0) throw InputError("--seq-len and --context must be positive");
}

}  // namespace

std::map<std::string, std::int64_t> Phases::symbols(Phase phase, const std::optional<ModelConfig>& cfg) const {
  std::map<std::string, std::int64_t> b;
  const std::int64_t tokens = phase == Phase::kDecode ? context : seq_len;
  for (const char* v : {"n", "m", "seq_len", "total_seq_len", "kv_seq_len", "cache_len"}) b[v] = tokens;
  if (phase == Phase::kPrefill) b["total_seq_len"] = seq_len;
  for (const char* v : {"batch_size", "nseq", "b", "reserved_nseq"}) b[v] = 1;
  if (cfg) b["vocab_size"] = cfg->vocab;
  for (const auto& [k, v] : bindings) b[k] = v;
  return b;
}

std::vector<ModelGemm> workloads_from_config(const ModelConfig& cfg, const Phases& ph) {
  check_phases(ph);
  std::vector<ModelGemm> out;
  layer_gemms(out, cfg, Phase::kPrefill, ph.seq_len, ph.seq_len);
  layer_gemms(out, cfg, Phase::kDecode, 1, ph.context);
  return out;
}

std::vector<ModelGemm> workloads_from_extract(const ExtractResult& ex, const Phases& ph,
                                              const std::optional<ModelConfig>& cfg) {
  check_phases(ph);
  std::vector<ModelGemm> out;
  std::map<std::string, std::map<std::string, std::int64_t>> binds;  // per entry
  auto bindings_for = [&](const std::string& entry) -> const std::map<std::string, std::int64_t>& {
    const auto it = binds.find(entry);
    if (it != binds.end()) return it->second;
    return binds.emplace(entry, ph.symbols(phase_of_entry(entry), cfg)).first->second;
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
        g.dump_scheme = quant::scheme_from(w.quant);
        if (w.quant.weight_bits == 0 && !w.dtype_b.empty())
          g.dump_scheme = quant::parse_scheme(w.dtype_b == "float32" ? "q0f32" : "q0f16");
      }
      g.source = source_of(w.source);
      // the final projection: N is the vocabulary (from the config, or a symbolic vocab_size)
      g.lm_head = (cfg && g.shape.n == cfg->vocab && w.weight_operand != "none") ||
                  w.n.expr.find("vocab") != std::string::npos || w.function.find("lm_head") != std::string::npos;
      out.push_back(g);
    }
  }
  for (const auto& site : ex.attention) {
    const std::int64_t heads = site.num_heads ? *site.num_heads : cfg ? cfg->heads : 0;
    const std::int64_t kv = site.num_kv_heads ? *site.num_kv_heads : cfg ? cfg->kv_heads : 0;
    const std::int64_t hd = site.head_dim ? *site.head_dim : cfg ? cfg->head_dim : 0;
    if (heads <= 0 || kv <= 0 || hd <= 0 || heads % kv != 0)
      throw InputError("entry '" + site.entry + "' calls " + site.builtin +
                       " but the number of heads, KV heads or head_dim is unknown from the dump; pass --hf-config "
                       "config.json");
    const Phase phase = phase_of_entry(site.entry);
    const std::int64_t q = phase == Phase::kDecode ? 1 : ph.seq_len;
    const std::int64_t kvlen = phase == Phase::kDecode ? ph.context : ph.seq_len;
    attention(out, site.entry, phase, site.calls, heads, kv, hd, q, kvlen, GemmSource::kSynthesized);
  }
  return out;
}

Model plan_from_dump(const std::string& path, const Phases& phases, const std::optional<ModelConfig>& cfg) {
  auto gemms = workloads_from_extract(extract_workloads(ir::load_module(path), {}), phases, cfg);
  if (gemms.empty()) throw InputError(path + ": no GEMM workloads found");
  return Model{fs::path(path).filename().string(), std::move(gemms)};
}

Model plan_from_config(const std::string& config_path, const ModelConfig& cfg, const Phases& phases) {
  return Model{fs::path(config_path).parent_path().filename().string(), workloads_from_config(cfg, phases)};
}

namespace {
const char* const kDefaultModel = "llama-2-7b";
}

Model default_model(const std::string& workloads_dir, const Phases& phases) {
  const fs::path dir = fs::path(workloads_dir) / kDefaultModel;
  const ModelConfig cfg = load_hf_config((dir / "config.json").string());
  const ExtractResult ex = extract_workloads(ir::load_module((dir / "q0f16.py").string()), {});
  return Model{kDefaultModel, workloads_from_extract(ex, phases, cfg)};
}

const std::vector<std::string>& default_schemes() {
  static const std::vector<std::string> s = {"q0f16", "q4f16_1", "q4f16_autoawq", "w8a8-token-channel", "w4a8-g128",
                                             "fp8-tensor"};
  return s;
}

}  // namespace tenet_cost::model
