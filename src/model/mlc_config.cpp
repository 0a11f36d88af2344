// MLC-LLM mlc-chat-config.json reader (docs/model.md "MLC chat config").
#include <nlohmann/json.hpp>

#include "model/hf_config.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::model {

using nlohmann::json;

namespace {

// A top-level or model_config integer: absent, null or negative (MLC writes -1 for "not set") reads as 0.
std::int64_t setting(const json& top, const json& mc, const char* key, const JsonLocator& loc) {
  for (const json* o : {&top, &mc}) {
    if (!o->contains(key) || (*o)[key].is_null()) continue;
    if (!(*o)[key].is_number_integer())
      throw InputError(o == &top ? loc.at({key}) : loc.at({"model_config", key}),
                       std::string("expected an integer for '") + key + "', found " + (*o)[key].type_name());
    const auto v = (*o)[key].get<std::int64_t>();
    return v > 0 ? v : 0;
  }
  return 0;
}

std::string text(const json& top, const char* key, const JsonLocator& loc) {
  if (!top.contains(key) || !top[key].is_string())
    throw InputError(loc.at({key}), std::string("expected a string '") + key +
                                        "' (an mlc-chat-config.json written by mlc_llm gen_config has model_type and "
                                        "quantization)");
  return top[key].get<std::string>();
}

}  // namespace

MlcChatConfig parse_mlc_chat_config(const std::string& content, const std::string& filename) {
  const json j =
      parse_json_document(content, filename, JsonLimits{std::size_t{16} << 20, 64, "MLC mlc-chat-config.json"});
  if (!j.is_object()) throw InputError(SourceLocation{filename, 1, 1}, "expected a JSON object (mlc-chat-config.json)");
  const JsonLocator loc(content, filename);
  MlcChatConfig m;
  m.model_type = text(j, "model_type", loc);
  m.quantization = text(j, "quantization", loc);
  if (!j.contains("model_config") || !j["model_config"].is_object())
    throw InputError(loc.at({"model_config"}),
                     "expected an object 'model_config' (the model's config as MLC compiled it)");
  json mc = j["model_config"];
  // MLC's model_config is its model class's fields (hidden_size, ...) without model_type: the top level names it
  if (!mc.contains("model_type")) mc["model_type"] = m.model_type;
  m.model = detail::hf_config_from(mc, loc, {"model_config"});  // errors at the keys of model_config in the file
  m.model.name = m.model_type;
  m.context_window = setting(j, mc, "context_window_size", loc);
  m.prefill_chunk = setting(j, mc, "prefill_chunk_size", loc);
  m.sliding_window = setting(j, mc, "sliding_window_size", loc);
  m.tensor_parallel_shards = std::max<std::int64_t>(1, setting(j, mc, "tensor_parallel_shards", loc));
  m.pipeline_parallel_stages = std::max<std::int64_t>(1, setting(j, mc, "pipeline_parallel_stages", loc));
  m.max_batch = setting(j, mc, "max_batch_size", loc);
  return m;
}

MlcChatConfig load_mlc_chat_config(const std::string& path) {
  return parse_mlc_chat_config(read_file(path, 1 << 24), path);
}

std::vector<std::string> mlc_notes(const MlcChatConfig& m, const Phases& ph) {
  std::vector<std::string> notes;
  const std::string q = "mlc-chat-config: ";
  notes.push_back(q + "model_type '" + m.model_type + "', quantization '" + m.quantization +
                  "' (the scheme when --quant is not given)");
  if (m.context_window > 0 && ph.context > m.context_window)
    throw InputError("--context " + std::to_string(ph.context) + " is over the build's context_window_size " +
                     std::to_string(m.context_window) + " (mlc-chat-config.json): MLC cannot serve it");
  if (m.prefill_chunk > 0 && ph.seq_len > m.prefill_chunk)
    notes.push_back(q + "prefill_chunk_size " + std::to_string(m.prefill_chunk) + ": MLC prefills the " +
                    std::to_string(ph.seq_len) +
                    " prompt tokens in chunks of that many; this plan prefills them in "
                    "one pass (chunked prefill is not modelled here)");
  if (m.tensor_parallel_shards > 1)
    notes.push_back(q + "tensor_parallel_shards " + std::to_string(m.tensor_parallel_shards) +
                    (ph.parallel.tp == m.tensor_parallel_shards
                         ? ": costed over " + std::to_string(ph.parallel.tp) + " chips (--tp)"
                         : std::string(": not modelled here, the plan runs the whole model on one accelerator "
                                       "(compare costs the shards as --tp)")));
  if (m.pipeline_parallel_stages > 1)
    notes.push_back(q + "pipeline_parallel_stages " + std::to_string(m.pipeline_parallel_stages) +
                    (ph.parallel.pp == m.pipeline_parallel_stages
                         ? ": costed as " + std::to_string(ph.parallel.pp) + " pipeline stages (--pp)"
                         : std::string(": not modelled here, the plan runs every layer on one accelerator "
                                       "(compare costs the stages as --pp)")));
  if (m.max_batch > 0 && ph.batch > m.max_batch)
    notes.push_back(q + "--batch " + std::to_string(ph.batch) + " is over the build's max_batch_size " +
                    std::to_string(m.max_batch));
  return notes;
}

}  // namespace tenet_cost::model
