// Pieces the views share (private to src/report).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tenet_cost/model.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::report {

/// The keys every estimate / compare JSON document starts with (docs/estimate-formats.md).
inline nlohmann::json run_info_json(const model::RunInfo& info) {
  nlohmann::json j;
  j["model"] = info.model;
  j["arch"] = info.arch;
  j["dataflow"] = info.dataflow;
  j["seq_len"] = info.seq_len;
  j["context"] = info.context;
  j["batch"] = info.batch;
  j["attention"] = model::to_string(info.attention);
  j["notes"] = info.notes;
  return j;
}

/// "batch 4: prefill 4 x 2048 prompt tokens, decode step 4 tokens (one per sequence) at context 2048, fused
/// attention" (the text views' run line: the batch's tokens, never one sequence's).
inline std::string run_info_text(const model::RunInfo& info) {
  const std::string n = std::to_string(info.batch);
  return "batch " + n + ": prefill " + n + " x " + std::to_string(info.seq_len) + " prompt tokens, decode step " + n +
         (info.batch == 1 ? " token" : " tokens (one per sequence)") + " at context " + std::to_string(info.context) +
         ", " + model::to_string(info.attention) + " attention";
}

/// One "note: ..." line per note of the plan (the text views' assumptions), empty without notes.
inline std::string notes_text(const model::RunInfo& info) {
  std::string out;
  for (const auto& n : info.notes) out += "note: " + n + "\n";
  return out;
}

/// The energy_by_term_j object: one key per cost::EnergyTerm (its to_string), joules.
inline nlohmann::json energy_json(const cost::EnergyByTerm& e) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto t : cost::kEnergyTerms) j[cost::to_string(t)] = e[t];
  return j;
}

/// CSV column names of the energy terms: prefix + term + suffix ("energy_mac_mJ").
inline std::vector<std::string> energy_columns(const std::string& prefix, const std::string& suffix) {
  std::vector<std::string> out;
  out.reserve(cost::kEnergyTerms.size());
  for (const auto t : cost::kEnergyTerms) out.push_back(prefix + cost::to_string(t) + suffix);
  return out;
}

/// compare over several deployments (--tp / --pp / --ep lists) as table or CSV: one row per (deployment, scheme),
/// the deployment's and one chip's figures labelled (deploy_view.cpp).
std::string render_deployments(const model::CompareResult& c, Format fmt);

/// Two-space indented JSON with a trailing newline; invalid UTF-8 replaced.
inline std::string dump_json(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tenet_cost::report
