// Internal to src/model: the HF config reader on a parsed document, for a config.json and for the model_config
// object of an mlc-chat-config.json (mlc_config.cpp), so that both locate their errors in the file as written.
#pragma once

#include <nlohmann/json.hpp>

#include "tenet_cost/json_text.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model::detail {

/// The config of the JSON object `j`, which is the value at `at` of the text `loc` indexes: an error about a key is
/// at that key's value, one about a missing key at the object.
ModelConfig hf_config_from(const nlohmann::json& j, const JsonLocator& loc, const JsonPath& at);

}  // namespace tenet_cost::model::detail
