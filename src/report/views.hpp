// Pieces the views share (private to src/report).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tenet_cost/model.hpp"

namespace tenet_cost::report {

/// The keys every estimate / compare JSON document starts with (docs/estimate-formats.md).
inline nlohmann::json run_info_json(const model::RunInfo& info) {
  nlohmann::json j;
  j["model"] = info.model;
  j["arch"] = info.arch;
  j["dataflow"] = info.dataflow;
  j["seq_len"] = info.seq_len;
  j["context"] = info.context;
  return j;
}

/// Two-space indented JSON with a trailing newline; invalid UTF-8 replaced.
inline std::string dump_json(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tenet_cost::report
