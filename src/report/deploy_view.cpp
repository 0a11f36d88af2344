// The view of a comparison over several deployments (--tp / --pp / --ep lists): one row per (deployment, scheme),
// the whole deployment's figures per step beside one chip's (docs/estimate-formats.md "Deployments").
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

namespace {

// Header, right-aligned; the first is the scheme.
const std::vector<std::string>& headers() {
  // sys_*: the whole deployment (every chip and link), per step; chip_* and */chip: one chip of the busiest stage
  static const std::vector<std::string> h = {"scheme",
                                             "tp",
                                             "pp",
                                             "ep",
                                             "chips",
                                             "coll_dtype",
                                             "prefill_ms",
                                             "sys_prefill_J",
                                             "chip_prefill_ms",
                                             "prefill_coll_ms",
                                             "decode_ms/step",
                                             "tok/s",
                                             "sys_decode_MB/step",
                                             "sys_decode_mJ/step",
                                             "sys_decode_mJ/tok",
                                             "chip_decode_ms/step",
                                             "chip_decode_MB/step",
                                             "weights_GB/chip",
                                             "decode_coll_ms",
                                             "decode_coll_KB/chip",
                                             "decode_a2a_KB/chip",
                                             "decode_link_mJ",
                                             "decode_bubble_%",
                                             "speedup"};
  return h;
}

Table deployments_table(const model::CompareResult& c) {
  Table t;
  t.headers = headers();
  t.right_align.assign(t.headers.size(), true);
  t.right_align[0] = false;
  for (const model::CompareRow& r : c.rows) {
    const model::DeployRow& d = *r.deploy;
    const model::Parallel& p = c.deployments.at(d.deployment).parallel;
    t.rows.push_back({r.scheme,
                      std::to_string(p.tp),
                      std::to_string(p.pp),
                      std::to_string(p.ep),
                      std::to_string(p.chips()),
                      d.collective.dtype,
                      fixed(r.prefill.latency_s * 1e3, 1),
                      fixed(r.prefill.energy_j, 3),
                      fixed(d.prefill.chip_latency_s * 1e3, 1),
                      fixed(d.prefill.collective_s * 1e3, 3),
                      fixed(r.decode.latency_s * 1e3, 2),
                      fixed(r.decode_tokens_per_s, 2),
                      megabytes(r.decode.dram_bytes),
                      fixed(r.decode.energy_j * 1e3, 2),
                      fixed(r.decode_energy_per_token_j * 1e3, 3),
                      fixed(d.decode.chip_latency_s * 1e3, 2),
                      megabytes(d.decode.chip_dram_bytes),
                      fixed(static_cast<double>(d.weight_bytes_per_chip) / 1e9, 3),
                      fixed(d.decode.collective_s * 1e3, 3),
                      fixed(static_cast<double>(d.decode.collective_bytes) / 1e3, 1),
                      fixed(static_cast<double>(d.decode.all_to_all_bytes) / 1e3, 1),
                      fixed(d.decode.link_energy_j * 1e3, 3),
                      fixed(100.0 * d.decode.bubble_fraction, 1),
                      fixed(r.speedup_vs_first, 2)});
  }
  if (!c.searched.empty()) {  // compare --search: each row at its own best mapping
    t.headers.emplace_back("mapping");
    t.right_align.push_back(false);
    for (std::size_t i = 0; i < t.rows.size(); ++i) t.rows[i].push_back(c.mappings.at(i));
  }
  return t;
}

}  // namespace

std::string render_deployments(const model::CompareResult& c, Format fmt) {
  if (c.deployments.size() < 2 || fmt == Format::kJson || fmt == Format::kHtml)
    throw InternalError("render_deployments: the table / csv of several deployments");
  const Table t = deployments_table(c);
  if (fmt == Format::kCsv) return render_csv(t);
  const model::CompareRow& first = c.rows.front();
  const std::int64_t chips = c.deployments.at(first.deploy->deployment).parallel.chips();
  return "model " + c.info.model + " on " + c.info.arch + " (" + c.info.dataflow + " dataflow), " +
         run_info_text(c.info) + "; " + std::to_string(c.deployments.size()) +
         " deployments (chips = tp x pp), one row per deployment and scheme: prefill_ms, decode_ms/step, tok/s and "
         "sys_* are the whole deployment per step (every chip and link), chip_* and */chip one chip of the busiest "
         "stage (its own work; coll_* its collectives, a2a its all-to-alls); speedup: decode step vs " +
         first.scheme + " on " + std::to_string(chips) + (chips == 1 ? " chip" : " chips") +
         (c.searched.empty() ? "" : "; each row at its own best mapping (search: " + c.searched + ")") + "\n" +
         render_text(t) + notes_text(c.info);
}

}  // namespace tenet_cost::report
