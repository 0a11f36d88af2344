// The JSON spelling of a request's and a deployment's figures (docs/estimate-formats.md): one definition shared by
// `compare --format json` (report) and the sweep's result records (sweep), which cannot include the report module.
#pragma once

#include <nlohmann/json.hpp>

#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

/// A request's figures: prompt_len, gen_len, batch, decode_steps, ttft_s, tpot_s, e2e_s, tokens_per_s,
/// requests_per_s, energy_j, energy_per_request_j, energy_per_token_j, dram_bytes.
nlohmann::json request_json(const RequestFigures& f);
/// A phase of a deployment, per step: the system's latency / energy / DRAM bytes, `per_chip`, collective_bytes and
/// collective_s (one chip of the busiest stage), link energy, send/recv, bubble; the all-to-alls' part with --ep > 1.
nlohmann::json deploy_phase_json(const DeployPhase& d, bool expert_parallel);
/// A row's deployment figures: the collectives' format, the weights per chip, prefill and decode.
nlohmann::json deploy_row_json(const DeployRow& r, bool expert_parallel);
/// A deployment: tp, pp, ep, chips, micro_batches, layers_per_stage and the chip link.
nlohmann::json deployment_json(const Deployment& d);

}  // namespace tenet_cost::model
