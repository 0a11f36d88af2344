// The JSON spelling of a request's and a deployment's figures (model_json.hpp).
#include "tenet_cost/model_json.hpp"

namespace tenet_cost::model {

using nlohmann::json;

json request_json(const RequestFigures& f) {
  return {{"prompt_len", f.prompt_len},
          {"gen_len", f.gen_len},
          {"batch", f.batch},
          {"decode_steps", f.decode_steps},
          {"ttft_s", f.ttft_s},
          {"tpot_s", f.tpot_s},
          {"e2e_s", f.e2e_s},
          {"tokens_per_s", f.tokens_per_s},
          {"requests_per_s", f.requests_per_s},
          {"energy_j", f.energy_j},
          {"energy_per_request_j", f.energy_per_request_j},
          {"energy_per_token_j", f.energy_per_token_j},
          {"dram_bytes", f.dram_bytes}};
}

json deploy_phase_json(const DeployPhase& d, bool expert_parallel) {
  json j = {
      {"latency_s", d.latency_s},
      {"energy_j", d.energy_j},
      {"dram_bytes", d.dram_bytes},
      {"per_chip", {{"latency_s", d.chip_latency_s}, {"energy_j", d.chip_energy_j}, {"dram_bytes", d.chip_dram_bytes}}},
      {"collective_bytes", d.collective_bytes},
      {"collective_s", d.collective_s},
      {"link_energy_j", d.link_energy_j},
      {"send_recv_bytes", d.send_recv_bytes},
      {"send_recv_s", d.send_recv_s},
      {"bubble_fraction", d.bubble_fraction}};
  if (expert_parallel) {  // --ep > 1: the all-to-alls' part of the collectives
    j["all_to_all_bytes"] = d.all_to_all_bytes;
    j["all_to_all_s"] = d.all_to_all_s;
  }
  return j;
}

json deploy_row_json(const DeployRow& r, bool expert_parallel) {
  return {{"collective_dtype", r.collective.dtype},
          {"collective_bits", r.collective.bits},
          {"collective_scales", quant::to_string(r.collective.scale)},
          {"collective_dtype_from", r.collective.from_scheme ? "scheme" : "--collective-dtype"},
          {"weight_bytes_per_chip", r.weight_bytes_per_chip},
          {"prefill", deploy_phase_json(r.prefill, expert_parallel)},
          {"decode", deploy_phase_json(r.decode, expert_parallel)}};
}

json deployment_json(const Deployment& d) {
  return {{"tp", d.parallel.tp},
          {"pp", d.parallel.pp},
          {"ep", d.parallel.ep},
          {"chips", d.parallel.chips()},
          {"micro_batches", d.micro_batches},
          {"layers_per_stage", d.stages},
          {"chip_link",
           {{"topology", arch::to_string(d.link.topology)},
            {"gb_per_s", d.link.gb_per_s},
            {"latency_us", d.link.latency_us},
            {"pj_per_bit", d.link.pj_per_bit},
            {"from", d.link.given ? "arch" : "default"}}}};
}

}  // namespace tenet_cost::model
