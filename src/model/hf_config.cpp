// Hugging Face config.json reader (docs/model.md "From a config", "Model families").
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "model/hf_config.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/message.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::model {

using nlohmann::json;

std::string to_string(Activation a) {
  switch (a) {
    case Activation::kSilu: return "silu";
    case Activation::kGelu: return "gelu";
    case Activation::kRelu: return "relu";
  }
  return "silu";
}

std::string to_string(ModelDtype d) {
  switch (d) {
    case ModelDtype::kFloat16: return "float16";
    case ModelDtype::kBFloat16: return "bfloat16";
    case ModelDtype::kFloat32: return "float32";
  }
  return "float16";
}

std::int64_t bytes_of(ModelDtype d) { return d == ModelDtype::kFloat32 ? 4 : 2; }

namespace {

// The families the reader knows (model_type); anything else is read as a Llama-style decoder, said in the notes.
enum class Family {
  kLlama,
  kMistral,
  kMixtral,
  kQwen2,
  kQwen2Moe,
  kDeepseek,
  kPhi3,
  kGemma,
  kGpt2,
  kNeox,
  kOpt,
  kFalcon,
  kUnknown
};

Family family_of(const std::string& t) {
  static const std::map<std::string, Family> k = {{"llama", Family::kLlama},
                                                  {"mistral", Family::kMistral},
                                                  {"mixtral", Family::kMixtral},
                                                  {"qwen2", Family::kQwen2},
                                                  {"qwen2_moe", Family::kQwen2Moe},
                                                  {"deepseek", Family::kDeepseek},
                                                  {"phi3", Family::kPhi3},
                                                  {"gemma", Family::kGemma},
                                                  {"gpt2", Family::kGpt2},
                                                  {"gpt_neox", Family::kNeox},
                                                  {"opt", Family::kOpt},
                                                  {"falcon", Family::kFalcon},
                                                  {"RefinedWeb", Family::kFalcon},
                                                  {"RefinedWebModel", Family::kFalcon}};
  const auto it = k.find(t);
  return it == k.end() ? Family::kUnknown : it->second;
}

// Fields that change the structure in a way the plan does not model: refused, naming the field.
struct Unmodelled {
  const char* key;
  const char* what;
};
constexpr Unmodelled kUnmodelled[] = {
    {"kv_lora_rank", "multi-head latent attention (DeepSeek-V2/V3 MLA)"},
    {"q_lora_rank", "multi-head latent attention (DeepSeek-V2/V3 MLA)"},
    {"ffn_config", "a nested MoE block (DBRX)"},
    {"attn_config", "a nested attention block (DBRX / MPT)"},
    {"mamba_d_state", "Mamba layers (Jamba)"},
    {"ssm_cfg", "state-space layers"},
    {"cross_attention_hidden_size", "cross-attention"},
    {"num_experts_per_token", "an MoE router of another family"},
};

constexpr std::int64_t kMaxLayerPeriod = 4096;  // decoder_sparse_step, moe_layer_freq

// The MoE fields the reader understands (any other key naming experts is refused).
const std::set<std::string> kMoeKeys = {"num_local_experts",
                                        "num_experts",
                                        "n_routed_experts",
                                        "num_experts_per_tok",
                                        "moe_intermediate_size",
                                        "shared_expert_intermediate_size",
                                        "n_shared_experts",
                                        "output_router_logits",
                                        "router_aux_loss_coef",
                                        "router_jitter_noise",
                                        "norm_topk_prob",
                                        "first_k_dense_replace",
                                        "moe_layer_freq",
                                        "decoder_sparse_step",
                                        "mlp_only_layers",
                                        "routed_scaling_factor",
                                        "topk_method",
                                        "n_group",
                                        "topk_group",
                                        "scoring_func",
                                        "aux_loss_alpha",
                                        "seq_aux"};

// The typed fields of a config.json: each getter refuses a value of the wrong type or range with the key's name.
struct Fields {
  const json& j;
  const JsonLocator& loc;
  const JsonPath& base;  // the path of `j` in the text
  // file:line:col of a key's value (of the config's object when the key is absent or not given)
  [[nodiscard]] SourceLocation at(std::string_view key = {}) const {
    JsonPath p = base;
    if (!key.empty()) p.emplace_back(std::string(key));
    return loc.at(p);
  }
  // runs `fn` (a checked computation from the key's value): an overflow is an error at the key
  template <class Fn>
  auto located(std::string_view key, Fn&& fn) const {
    try {
      return fn();
    } catch (const OverflowError& e) {
      throw InputError(at(key), e.detail());
    }
  }
  [[nodiscard]] bool has(const char* k) const { return j.contains(k) && !j[k].is_null(); }
  // the first of `keys` present: a positive integer; missing: `def`, or an error when `required`
  [[nodiscard]] std::int64_t get(std::initializer_list<const char*> keys, bool required, std::int64_t def) const {
    for (const char* k : keys)
      if (has(k)) {
        if (!j[k].is_number_integer() || j[k].get<std::int64_t>() <= 0)
          throw InputError(at(k), std::string("expected a positive integer for '") + k + "'");
        return j[k].get<std::int64_t>();
      }
    if (required) {
      std::string names;
      for (const char* k : keys) names += (names.empty() ? "" : " or ") + std::string("'") + k + "'";
      throw InputError(at(), "missing " + names +
                                 " (a Llama / Mistral / Qwen2 / GPT-NeoX style config.json needs hidden_size, "
                                 "intermediate_size, num_attention_heads, num_hidden_layers, vocab_size)");
    }
    return def;
  }
  [[nodiscard]] std::int64_t count(const char* k, std::int64_t def) const {  // a non-negative integer
    if (!has(k)) return def;
    if (!j[k].is_number_integer() || j[k].get<std::int64_t>() < 0)
      throw InputError(at(k), std::string("expected a non-negative integer for '") + k + "'");
    return j[k].get<std::int64_t>();
  }
  [[nodiscard]] bool flag(const char* k, bool def) const {
    if (!has(k)) return def;
    if (!j[k].is_boolean()) throw InputError(at(k), std::string("expected true or false for '") + k + "'");
    return j[k].get<bool>();
  }
  [[nodiscard]] std::string text_of(const char* key, const std::string& def) const {
    if (!has(key)) return def;
    if (!j[key].is_string())
      throw InputError(at(key), std::string("expected a string for '") + key + "', found " + j[key].type_name());
    return j[key].get<std::string>();
  }
};

// The sections of parse_hf_config, in its order (so the first error met is the same).

// Refuses a config whose structure is not a dense decoder (or a modelled MoE): unmodelled keys, encoder-decoders,
// MoE fields not understood.
void check_modelled(const Fields& f, const ModelConfig& c) {
  for (const auto& u : kUnmodelled)
    if (f.has(u.key))
      throw InputError(f.at(u.key), std::string("'") + u.key + "' (" + u.what +
                                        ") changes the model's structure and is not modelled; refusing to cost it as a "
                                        "dense decoder");
  if (f.flag("is_encoder_decoder", false))
    throw InputError(f.at("is_encoder_decoder"),
                     "'is_encoder_decoder' is true: encoder-decoder models are not modelled");
  for (const auto& [key, value] : f.j.items())
    if (key.find("expert") != std::string::npos && !kMoeKeys.count(key) && !value.is_null())
      throw InputError(f.at(key), "'" + key + "' (an MoE field of model_type '" + c.model_type +
                                      "') is not understood; refusing to cost it as a dense decoder");
}

// The MLP: gated (SwiGLU / GeGLU) families and the ungated ones with their activation.
void read_mlp(const Fields& f, Family fam, ModelConfig& c) {
  c.gated_mlp = !(fam == Family::kGpt2 || fam == Family::kNeox || fam == Family::kOpt || fam == Family::kFalcon);
  c.intermediate = f.get({"intermediate_size", "ffn_dim", "ffn_hidden_size", "n_inner"}, false, 0);
  if (c.intermediate == 0) {
    if (c.gated_mlp && !f.has("moe_intermediate_size"))
      throw InputError(f.at(), "missing 'intermediate_size' (the MLP width of a gated " + c.model_type + " MLP)");
    c.intermediate =
        f.located("hidden_size", [&] { return checked_mul(4, c.hidden, "the default MLP width (4 * hidden_size)"); });
  }
  const char* act_key = f.has("hidden_act")            ? "hidden_act"
                        : f.has("activation_function") ? "activation_function"
                                                       : "hidden_activation";
  const std::string act = f.text_of(act_key, fam == Family::kOpt                    ? "relu"
                                             : c.gated_mlp && fam != Family::kGemma ? "silu"
                                                                                    : "gelu");
  if (act == "silu" || act == "swish") c.activation = Activation::kSilu;
  else if (act.rfind("gelu", 0) == 0) c.activation = Activation::kGelu;
  else if (act == "relu") c.activation = Activation::kRelu;
  else
    throw InputError(f.at(act_key), "expected silu, gelu or relu for the activation (hidden_act), found '" + act + "'");
}

// Attention: GQA / MQA heads, the head dimension and sliding windows.
void read_attention(const Fields& f, Family fam, ModelConfig& c) {
  // attention: GQA (num_key_value_heads / Falcon's num_kv_heads) and MQA (multi_query)
  const bool falcon_new = fam == Family::kFalcon && f.flag("new_decoder_architecture", false);
  if (f.has("num_key_value_heads")) c.kv_heads = f.get({"num_key_value_heads"}, false, c.heads);
  else if (falcon_new) c.kv_heads = f.get({"num_kv_heads"}, false, c.heads);
  else if (f.flag("multi_query", false)) c.kv_heads = 1;
  else c.kv_heads = c.heads;
  if (!f.has("head_dim") && c.hidden % c.heads != 0)
    throw InputError(f.at(f.has("num_attention_heads") ? "num_attention_heads" : "n_head"),
                     "hidden_size (" + std::to_string(c.hidden) + ") is not a multiple of num_attention_heads (" +
                         std::to_string(c.heads) + "): the head dimension is unknown (give head_dim)");
  c.head_dim = f.get({"head_dim"}, false, c.hidden / c.heads);
  if (c.heads % c.kv_heads != 0)
    throw InputError(f.at(f.has("num_key_value_heads") ? "num_key_value_heads" : "num_kv_heads"),
                     "num_attention_heads must be a multiple of num_key_value_heads");

  // sliding-window attention (HF semantics: Mistral / Mixtral / Phi-3 window every layer when sliding_window is
  // set; Qwen2 only with use_sliding_window, and then only the layers from max_window_layers on)
  if (f.has("sliding_window")) {
    const std::int64_t w = f.get({"sliding_window"}, false, 0);
    if (fam == Family::kQwen2 || fam == Family::kQwen2Moe) {
      if (f.flag("use_sliding_window", false)) {
        c.sliding_window = w;
        c.window_layers = c.layers - std::min(c.layers, f.count("max_window_layers", 28));
      }
    } else if (fam == Family::kMistral || fam == Family::kMixtral || fam == Family::kPhi3) {
      c.sliding_window = w;
      c.window_layers = c.layers;
    } else {
      throw InputError(f.at("sliding_window"), "'sliding_window' of model_type '" + c.model_type +
                                                   "' is not understood (which layers it windows); not modelled");
    }
    if (c.window_layers == 0) c.sliding_window = 0;
  }
}

// Mixture of experts: the experts, their widths and which layers are MoE.
void read_experts(const Fields& f, ModelConfig& c) {
  // mixture of experts: Mixtral (num_local_experts), Qwen2-MoE (num_experts, shared expert, decoder_sparse_step,
  // mlp_only_layers), DeepSeek-MoE (n_routed_experts, n_shared_experts, first_k_dense_replace, moe_layer_freq)
  c.experts = f.count("num_local_experts", f.count("num_experts", f.count("n_routed_experts", 0)));
  for (const char* field : {"num_local_experts", "num_experts", "n_routed_experts"})
    if (c.experts > 0 && c.experts_field.empty() && f.has(field)) c.experts_field = field;
  if (c.experts > 0) {
    if (!f.has("num_experts_per_tok"))
      throw InputError(f.at(c.experts_field),
                       "missing 'num_experts_per_tok' (the experts each token is routed to) beside " +
                           std::to_string(c.experts) + " experts");
    c.experts_per_token = f.get({"num_experts_per_tok"}, true, 0);
    if (c.experts_per_token > c.experts)
      throw InputError(f.at("num_experts_per_tok"), "num_experts_per_tok (" + std::to_string(c.experts_per_token) +
                                                        ") exceeds the number of experts (" +
                                                        std::to_string(c.experts) + ")");
    c.expert_intermediate = f.get({"moe_intermediate_size"}, false, c.intermediate);
    if (f.has("shared_expert_intermediate_size")) {
      c.shared_intermediate = f.get({"shared_expert_intermediate_size"}, false, 0);
      c.shared_expert_gate = true;
    }
    const std::int64_t n_shared = f.count("n_shared_experts", 0);
    if (n_shared > 0)
      c.shared_intermediate = f.located(
          "n_shared_experts", [&] { return checked_mul(n_shared, c.expert_intermediate, "shared experts' width"); });
    const std::int64_t step = f.get({"decoder_sparse_step"}, false, 1), freq = f.get({"moe_layer_freq"}, false, 1);
    if (step > kMaxLayerPeriod || freq > kMaxLayerPeriod)
      throw InputError(f.at(step > kMaxLayerPeriod ? "decoder_sparse_step" : "moe_layer_freq"),
                       "expected decoder_sparse_step and moe_layer_freq in 1 .. " + std::to_string(kMaxLayerPeriod));
    const std::int64_t first_dense = f.count("first_k_dense_replace", 0);
    std::set<std::int64_t> mlp_only;
    if (f.has("mlp_only_layers")) {
      if (!f.j["mlp_only_layers"].is_array())
        throw InputError(f.at("mlp_only_layers"), "expected an array for 'mlp_only_layers'");
      for (const auto& v : f.j["mlp_only_layers"]) {
        if (!v.is_number_integer())
          throw InputError(f.at("mlp_only_layers"), "expected layer indices in 'mlp_only_layers'");
        mlp_only.insert(v.get<std::int64_t>());
      }
    }
    // layer i is MoE when (i+1) % step == 0, i % freq == 0, i >= first_dense and i is not in mlp_only: counted per
    // residue of the period lcm(step, freq) (no loop over the layers, which may number 2^63)
    const auto is_moe = [&](std::int64_t i) { return (i + 1) % step == 0 && i % freq == 0; };
    const std::int64_t period = std::lcm(step, freq);
    const std::int64_t from = std::min(first_dense, c.layers);
    for (std::int64_t r = 0; r < period; ++r) {
      if (!is_moe(r)) continue;
      // i in [from, layers) with i % period == r
      auto upto = [&](std::int64_t n) { return n <= r ? 0 : (n - r - 1) / period + 1; };  // i < n
      c.moe_layers += upto(c.layers) - upto(from);
    }
    for (const std::int64_t i : mlp_only)
      if (i >= from && i < c.layers && is_moe(i)) --c.moe_layers;
  } else if (f.has("num_experts_per_tok")) {
    throw InputError(f.at("num_experts_per_tok"),
                     "'num_experts_per_tok' without a number of experts (num_local_experts, num_experts or "
                     "n_routed_experts)");
  }
}

// Tied embeddings and the dtype, with the notes of what is assumed.
void read_embeddings_and_dtype(const Fields& f, Family fam, ModelConfig& c) {
  // tied embeddings: HF's default per family (GPT-2, OPT, Falcon, Gemma tie theirs)
  c.positions = fam == Family::kGpt2 ? Positions::kLearned : Positions::kRotary;
  c.tie_embeddings = f.flag("tie_word_embeddings", fam == Family::kGpt2 || fam == Family::kOpt ||
                                                       fam == Family::kFalcon || fam == Family::kGemma);
  const std::string dt = f.text_of("torch_dtype", "float16");
  c.dtype = dt == "float32" ? ModelDtype::kFloat32 : dt == "bfloat16" ? ModelDtype::kBFloat16 : ModelDtype::kFloat16;
  if (dt != to_string(c.dtype))
    c.notes.push_back("torch_dtype " + quote_for_message(dt) +
                      " is not float16, bfloat16 or float32: costed as float16 (16-bit weights and activations)");
  if (c.dtype == ModelDtype::kBFloat16)
    c.notes.push_back(
        "torch_dtype bfloat16: costed as 16-bit floats (q0f16 is the baseline; bf16 and fp16 MACs and "
        "bytes are taken as equal)");
  if (fam == Family::kUnknown)
    c.notes.push_back("model_type '" + c.model_type +
                      "' is not a known family: costed as a Llama-style decoder (gated MLP, rotary attention)");
}

// The first of `keys` the config gives (the last one when none is given).
const char* given(const Fields& f, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (f.has(k)) return k;
  return *(keys.end() - 1);
}

// The GEMM widths the plan derives from the config alone (plan.cpp layer_gemms, with the same names) must fit in
// 64 bits: checked here so that an overflow is an error at the field it comes from, not one without a file. The
// expert calls (MoE layers x experts touched, at most every expert) are bounded by layers x experts, at the layers.
void check_widths(const Fields& f, const ModelConfig& c) {
  f.located(f.has("head_dim") ? "head_dim" : given(f, {"num_attention_heads", "n_head"}), [&] {
    return checked_mul(checked_add(c.heads, checked_mul(2, c.kv_heads, "qkv width"), "qkv width"), c.head_dim,
                       "qkv width");
  });
  const char* mlp = given(f, {"intermediate_size", "ffn_dim", "ffn_hidden_size", "n_inner", "hidden_size"});
  if (c.gated_mlp) f.located(mlp, [&] { return checked_mul(2, c.intermediate, "gate_up width"); });
  if (c.moe_layers == 0) return;
  f.located(f.has("moe_intermediate_size") ? "moe_intermediate_size" : mlp,
            [&] { return checked_mul(2, c.expert_intermediate, "expert width"); });
  f.located(given(f, {"shared_expert_intermediate_size", "n_shared_experts"}),
            [&] { return checked_mul(2, c.shared_intermediate, "shared width"); });
  f.located(given(f, {"num_hidden_layers", "n_layer", "num_layers"}),
            [&] { return checked_mul(c.moe_layers, c.experts, "expert calls"); });
}

}  // namespace

ModelConfig parse_hf_config(const std::string& text, const std::string& filename) {
  // config.json files are a few KB (id2label maps of classifiers reach ~1 MB) and 2-3 levels deep.
  const json j = parse_json_document(text, filename, JsonLimits{std::size_t{16} << 20, 32, "Hugging Face config"});
  if (!j.is_object())
    throw InputError(SourceLocation{filename, 1, 1}, "expected a JSON object (a Hugging Face config.json)");
  return detail::hf_config_from(j, JsonLocator(text, filename), {});
}

ModelConfig detail::hf_config_from(const json& j, const JsonLocator& loc, const JsonPath& at) {
  const Fields f{j, loc, at};
  ModelConfig c;
  // the model's name: _name_or_path, else model_type, else "" (plan_from_config then names it by the file stem)
  c.name = f.text_of("_name_or_path", "");
  if (c.name.empty()) c.name = f.text_of("model_type", "");
  c.model_type = f.text_of("model_type", "llama");
  const Family fam = family_of(c.model_type);

  check_modelled(f, c);
  c.hidden = f.get({"hidden_size", "n_embd", "d_model"}, true, 0);
  c.heads = f.get({"num_attention_heads", "n_head"}, true, 0);
  c.layers = f.get({"num_hidden_layers", "n_layer", "num_layers"}, true, 0);
  c.vocab = f.get({"vocab_size"}, true, 0);
  c.max_positions = f.get({"max_position_embeddings", "n_positions"}, false, 0);
  if (fam == Family::kOpt && f.has("word_embed_proj_dim") && f.get({"word_embed_proj_dim"}, false, 0) != c.hidden)
    throw InputError(f.at("word_embed_proj_dim"),
                     "'word_embed_proj_dim' differs from hidden_size (OPT's projected embeddings) and is not "
                     "modelled");

  read_mlp(f, fam, c);
  read_attention(f, fam, c);
  read_experts(f, c);
  read_embeddings_and_dtype(f, fam, c);
  check_widths(f, c);
  return c;
}

ModelConfig load_hf_config(const std::string& path) { return parse_hf_config(read_file(path, 1 << 24), path); }

std::int64_t parameter_count(const ModelConfig& c) {
  auto mul = [](std::int64_t a, std::int64_t b) { return checked_mul(a, b, "parameter count"); };
  auto add = [](std::int64_t a, std::int64_t b) { return checked_add(a, b, "parameter count"); };
  const std::int64_t H = c.hidden;
  const std::int64_t attn =
      add(mul(H, mul(add(c.heads, mul(2, c.kv_heads)), c.head_dim)), mul(mul(c.heads, c.head_dim), H));
  const std::int64_t mlp_factor = c.gated_mlp ? 3 : 2;
  const std::int64_t dense_mlp = mul(mlp_factor, mul(H, c.intermediate));
  // this chip's experts (expert parallelism: experts / expert_shards) and the router
  std::int64_t moe_mlp =
      add(mul(c.experts / c.expert_shards, mul(3, mul(H, c.expert_intermediate))), mul(c.experts, H));
  moe_mlp = add(moe_mlp, mul(3, mul(H, c.shared_intermediate)));
  if (c.shared_expert_gate) moe_mlp = add(moe_mlp, H);
  const std::int64_t norms = mul(2, H);
  std::int64_t p = add(mul(c.layers - c.moe_layers, add(add(attn, dense_mlp), norms)),
                       mul(c.moe_layers, add(add(attn, moe_mlp), norms)));
  // the embedding (first pipeline stage) and lm_head (last; the same matrix when tied), the final norm (last)
  const std::int64_t tables =
      c.tie_embeddings ? (c.first_stage || c.last_stage ? 1 : 0) : (c.first_stage ? 1 : 0) + (c.last_stage ? 1 : 0);
  p = add(p, mul(tables, mul(c.vocab, H)));
  return c.last_stage ? add(p, H) : p;
}

double expected_experts(std::int64_t experts, std::int64_t k, std::int64_t tokens) {
  if (experts <= 0 || k <= 0 || tokens <= 0) return 0;
  const double miss = 1.0 - static_cast<double>(k) / static_cast<double>(experts);
  return static_cast<double>(experts) * (1.0 - std::pow(miss, static_cast<double>(tokens)));
}

std::int64_t experts_touched(std::int64_t experts, std::int64_t k, std::int64_t tokens) {
  const double e = expected_experts(experts, k, tokens);
  const std::int64_t hi = std::min(experts, checked_mul(k, tokens, "routed tokens"));
  return std::clamp(static_cast<std::int64_t>(std::llround(e)), std::min(k, hi), hi);
}

}  // namespace tenet_cost::model
