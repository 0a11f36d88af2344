// Hugging Face config.json reader (docs/model.md "From a config").
#include <nlohmann/json.hpp>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::model {

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
  c.intermediate = get({"intermediate_size", "n_inner"}, false, 0);
  if (c.intermediate == 0) c.intermediate = checked_mul(4, c.hidden, "the default intermediate_size (4 * hidden_size)");
  c.kv_heads = get({"num_key_value_heads"}, false, c.heads);
  if ((!j.contains("head_dim") || j["head_dim"].is_null()) && c.hidden % c.heads != 0)
    throw InputError(SourceLocation{filename, 0, 0},
                     "hidden_size (" + std::to_string(c.hidden) + ") is not a multiple of num_attention_heads (" +
                         std::to_string(c.heads) + "): the head dimension is unknown (give head_dim)");
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

ModelConfig load_hf_config(const std::string& path) { return parse_hf_config(read_file(path, 1 << 24), path); }

}  // namespace tenet_cost::model
