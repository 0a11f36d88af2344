// compare over a deployment of chips (docs/model.md "Parallelism over chips"): each pipeline stage's per-chip plan
// (the config sharded by tensor / expert parallelism, its layers), run per micro-batch with its collectives, then the
// pipeline's step: the stages in sequence for the first micro-batch, then one per busiest-stage period.
#include <algorithm>
#include <numeric>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace {

// One stage's figures per micro-batch on one chip: its own work and its collectives, per phase.
struct StagePhase {
  PhaseSum chip;
  CollectiveCost collectives, all_to_all;  // all_to_all: the part of collectives in expert parallelism's all-to-alls
};
struct StageRun {
  StagePhase prefill, decode, chunked;  // chunked: every step of the chunked prefill (--chunk), summed
  std::int64_t weight_bytes = 0;
};

// The collectives of one stage and phase on one chip (`a2a`: the all-to-alls' part): two row-parallel all-reduces
// per dense layer (after o_proj and after down_proj; without expert parallelism also per MoE layer, after the MoE
// block), the vocab-parallel embedding's all-reduce (first stage, model dtype) and the logits' all-gather (last stage,
// float32). With expert parallelism (ep = tp) an MoE layer has one all-reduce (the attention's output, as a
// reduce-scatter that leaves each chip 1/ep of the tokens and the all-gather before the next attention) and the
// all-to-all dispatch and combine of the routed rows: ⌈T·k / ep²⌉ rows of the hidden size between each pair of
// chips (balanced routing), at the scheme's collective format.
CollectiveCost stage_collectives(const ModelConfig& st, const arch::ChipLink& link, std::int64_t tp,
                                 const CollectiveFormat& f, std::int64_t rows, std::int64_t sequences,
                                 CollectiveCost& a2a) {
  CollectiveCost c;
  a2a = CollectiveCost{};
  if (tp <= 1) return c;
  const std::int64_t ep = st.expert_shards, moe = ep > 1 ? st.moe_layers : 0;
  const std::int64_t all_reduces = checked_add(checked_mul(2, st.layers - moe, "all-reduces"), moe, "all-reduces");
  c.add(all_reduce(link, tp, f, rows, st.hidden), all_reduces);
  if (moe > 0) {
    const std::int64_t routed = checked_mul(rows, st.experts_per_token, "routed rows");
    const std::int64_t pairs = checked_mul(ep, ep, "chip pairs");
    const std::int64_t per_pair = routed / pairs + (routed % pairs != 0 ? 1 : 0);
    a2a.add(all_to_all(link, ep, f, per_pair, st.hidden), checked_mul(2, moe, "all-to-alls"));
    c.add(a2a);
  }
  CollectiveFormat model_dtype;
  model_dtype.dtype = to_string(st.dtype);
  model_dtype.bits = 8 * bytes_of(st.dtype);
  if (st.first_stage) c.add(all_reduce(link, tp, model_dtype, rows, st.hidden));
  CollectiveFormat logits;
  logits.dtype = "float32";
  logits.bits = 32;
  if (st.last_stage) c.add(all_gather(link, tp, logits, sequences, st.vocab));
  return c;
}

// The chunked prefill's figures on one chip (--chunk; one stage, one micro-batch): its entry's work (the chip's sharded
// GEMMs of every step) and, per step of n prompt tokens, the collectives at the step's rows n + the decode rows (the
// all-reduces per layer, the all-to-alls of expert parallelism, the embedding's all-reduce) and the logits of the
// decoding sequences (+1 after the prompt's last chunk).
void chunked_stage(StagePhase& out, const CompareRow& row, const ModelConfig& st, const Phases& mb,
                   const CollectiveFormat& f, const arch::ChipLink& link, std::int64_t tp) {
  const auto it = std::find_if(row.other.begin(), row.other.end(),
                               [](const EntrySum& e) { return e.entry == kChunkedPrefillEntry; });
  if (it == row.other.end()) throw InternalError("deployment: --chunk without a chunked_prefill entry");
  out.chip = it->sum;
  for (std::int64_t offset = 0; offset < mb.seq_len; offset += mb.chunk) {
    const std::int64_t n = std::min(mb.chunk, mb.seq_len - offset);
    const bool last = offset + n >= mb.seq_len;
    CollectiveCost a2a;
    out.collectives.add(stage_collectives(st, link, tp, f, checked_add(n, mb.batch, "chunk step rows"),
                                          mb.batch + (last ? 1 : 0), a2a));
    out.all_to_all.add(a2a);
  }
}

StageRun run_stage(cost::Estimator& est, const ModelConfig& st, const Phases& mb, const std::optional<quant::Scheme>& s,
                   const CollectiveFormat& f, std::int64_t tp) {
  Model m;
  m.name = st.name;
  m.config = st;
  m.gemms = workloads_from_config(st, mb);
  m.ops = operators_from_config(st, mb);
  const CompareRow row = compare_row("", run_model(est, m, s));
  StageRun r;
  const arch::ChipLink& link = est.arch().chip_link;
  r.prefill.chip = row.prefill;
  r.prefill.collectives =
      stage_collectives(st, link, tp, f, checked_mul(mb.batch, mb.seq_len, "rows"), mb.batch, r.prefill.all_to_all);
  r.decode.chip = row.decode;
  r.decode.collectives = stage_collectives(st, link, tp, f, mb.batch, mb.batch, r.decode.all_to_all);
  r.weight_bytes = footprint(m, s).weight_bytes;
  if (mb.chunk > 0) chunked_stage(r.chunked, row, st, mb, f, link, tp);
  return r;
}

// The deployment's step of one phase from its stages' runs (per micro-batch), m micro-batches, tp chips per stage
// and the send/recv of one micro-batch's activations across a boundary.
DeployPhase pipeline(const std::vector<const StagePhase*>& stages, std::int64_t m, std::int64_t tp,
                     const CollectiveCost& hop, PhaseSum& sum) {
  DeployPhase d;
  const auto p = static_cast<std::int64_t>(stages.size());
  const double md = static_cast<double>(m), tpd = static_cast<double>(tp);
  double total = 0, slowest = 0, busy = 0;
  sum = PhaseSum{};
  for (const StagePhase* s : stages) {
    const double t = s->chip.latency_s + s->collectives.seconds;
    total += t;
    slowest = std::max(slowest, t);
    busy += md * t;
    sum.energy_by_term.add(s->chip.energy_by_term, md * tpd);
    sum.energy_j += md * (tpd * s->chip.energy_j + s->collectives.energy_j);
    d.link_energy_j += md * s->collectives.energy_j;
    const std::int64_t chips = checked_mul(m, tp, "chips x micro-batches");
    sum.dram_bytes = checked_add(sum.dram_bytes, checked_mul(chips, s->chip.dram_bytes, "DRAM bytes"), "DRAM bytes");
    sum.scale_dram_bytes =
        checked_add(sum.scale_dram_bytes, checked_mul(chips, s->chip.scale_dram_bytes, "bytes"), "scale DRAM bytes");
    sum.non_gemm_dram_bytes = checked_add(sum.non_gemm_dram_bytes,
                                          checked_mul(chips, s->chip.non_gemm_dram_bytes, "DRAM bytes"), "DRAM bytes");
    sum.non_gemm_energy_j += md * tpd * s->chip.non_gemm_energy_j;
    sum.non_gemm_latency_s += md * s->chip.non_gemm_latency_s;
    if (md * s->chip.latency_s > d.chip_latency_s) {
      d.chip_latency_s = md * s->chip.latency_s;
      d.chip_energy_j = md * s->chip.energy_j;
      d.chip_dram_bytes = checked_mul(m, s->chip.dram_bytes, "DRAM bytes");
    }
    if (checked_mul(m, s->collectives.bytes_per_chip, "collective bytes") > d.collective_bytes) {
      d.collective_bytes = checked_mul(m, s->collectives.bytes_per_chip, "collective bytes");
      d.collective_s = md * s->collectives.seconds;
      d.all_to_all_bytes = checked_mul(m, s->all_to_all.bytes_per_chip, "all-to-all bytes");
      d.all_to_all_s = md * s->all_to_all.seconds;
    }
  }
  // the first micro-batch through every stage and boundary, then one more per period of the slowest stage (or hop)
  const std::int64_t hops = checked_mul(p - 1, m, "send/recv hops");
  total += static_cast<double>(p - 1) * hop.seconds + (md - 1) * std::max(slowest, p > 1 ? hop.seconds : 0.0);
  d.send_recv_bytes = checked_mul(hops, hop.bytes_per_chip, "send/recv bytes");
  d.send_recv_s = static_cast<double>(hops) * hop.seconds;
  const double hop_j = static_cast<double>(hops) * tpd * hop.energy_j;  // each TP rank sends its copy
  d.link_energy_j += hop_j;
  sum.energy_j += hop_j;
  sum.latency_s = total;
  d.latency_s = total;
  d.energy_j = sum.energy_j;
  d.dram_bytes = sum.dram_bytes;
  d.bubble_fraction = total > 0 && p > 1 ? 1.0 - busy / (static_cast<double>(p) * total) : 0.0;
  return d;
}

// The micro-batches of a step: --micro-batches, else the largest divisor of the batch <= pp.
std::int64_t micro_batches(const Phases& ph) {
  const Parallel& p = ph.parallel;
  if (p.micro_batches > 0) {
    if (p.pp == 1 && p.micro_batches > 1)
      throw InputError("--micro-batches " + std::to_string(p.micro_batches) + " needs pipeline stages (--pp N > 1)");
    if (ph.batch % p.micro_batches != 0)
      throw InputError("--micro-batches " + std::to_string(p.micro_batches) + " does not divide --batch " +
                       std::to_string(ph.batch) + " (each micro-batch carries batch / micro-batches sequences)");
    return p.micro_batches;
  }
  std::int64_t m = 1;
  for (std::int64_t d = 1; d <= std::min(p.pp, ph.batch); ++d)
    if (ph.batch % d == 0) m = d;
  return m;
}

std::string link_text(const arch::ChipLink& l) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s, %g GB/s per link and direction, %g us per hop, %g pJ/bit",
                arch::to_string(l.topology).c_str(), l.gb_per_s, l.latency_us, l.pj_per_bit);
  return buf;
}

}  // namespace

CompareResult compare_deployed(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                               const std::vector<std::optional<quant::Scheme>>& schemes,
                               const std::function<void(std::size_t, const std::string&)>& progress) {
  const Parallel& par = ph.parallel;
  if (ph.chunk > 0 && par.pp > 1)
    throw InputError(
        "--chunk with --pp: a chunk step's prompt rows belong to one sequence and are not split into micro-batches, "
        "so the pipeline schedule of mixed steps is not modelled; chunked prefill runs over --tp / --ep");
  CompareResult out;
  out.info = run_info(whole, est, ph);
  const ModelConfig chip = shard_config(cfg, par, &out.info.notes);
  Deployment dep;
  dep.parallel = par;
  dep.stages = stage_layers(cfg.layers, par.pp);
  dep.micro_batches = micro_batches(ph);
  dep.link = est.arch().chip_link;
  Phases mb = ph;
  mb.batch = ph.batch / dep.micro_batches;
  mb.parallel = Parallel{};
  const std::int64_t m = dep.micro_batches;
  // one micro-batch's activations (the residual stream at the model dtype) across a stage boundary
  const std::int64_t e = bytes_of(cfg.dtype);
  const CollectiveCost hop_prefill =
      send_recv(dep.link, checked_mul(checked_mul(mb.batch, mb.seq_len, "rows"), checked_mul(cfg.hidden, e, "b"), "b"));
  const CollectiveCost hop_decode = send_recv(dep.link, checked_mul(mb.batch, checked_mul(cfg.hidden, e, "b"), "b"));
  for (const auto& s : schemes) {
    const quant::Scheme& scheme = s ? *s : scheme_of(whole.gemms.front(), s);
    const CollectiveFormat f = collective_format(scheme, par.collective_dtype);
    std::vector<StageRun> runs;
    std::int64_t first = 0;
    for (std::size_t i = 0; i < dep.stages.size(); ++i) {
      const ModelConfig st = stage_config(chip, first, dep.stages[i], i + 1 == dep.stages.size());
      runs.push_back(run_stage(est, st, mb, s, f, par.tp));
      first += dep.stages[i];
    }
    std::vector<const StagePhase*> pre, dec;
    DeployRow row;
    row.collective = f;
    for (const StageRun& r : runs) {
      pre.push_back(&r.prefill);
      dec.push_back(&r.decode);
      row.weight_bytes_per_chip = std::max(row.weight_bytes_per_chip, r.weight_bytes);
    }
    CompareRow c;
    c.scheme = scheme_label(whole, s);
    row.prefill = pipeline(pre, m, par.tp, hop_prefill, c.prefill);
    row.decode = pipeline(dec, m, par.tp, hop_decode, c.decode);
    if (ph.chunk > 0) {  // one stage (--pp 1), one micro-batch
      EntrySum chunked{std::string(kChunkedPrefillEntry), {}, 0, 0};
      pipeline({&runs.front().chunked}, 1, par.tp, hop_decode, chunked.sum);
      c.other.push_back(std::move(chunked));
    }
    c.deploy = row;
    out.rows.push_back(std::move(c));
    if (progress) progress(out.rows.size(), out.rows.back().scheme);
  }
  set_ratios(out, ph);
  out.deployment = dep;
  out.deployments = {dep};
  std::string layers;
  for (const std::int64_t l : dep.stages) layers += (layers.empty() ? "" : "+") + std::to_string(l);
  out.info.notes.push_back(
      "deployment: tp " + std::to_string(par.tp) + " x pp " + std::to_string(par.pp) +
      (par.ep > 1 ? " (ep " + std::to_string(par.ep) +
                        " over the TP group: whole experts per chip, all-to-all dispatch and combine)"
                  : "") +
      " = " + std::to_string(par.chips()) + (par.chips() == 1 ? " chip" : " chips") + "; layers per stage " + layers +
      "; " + std::to_string(m) + " micro-batch(es) of " + std::to_string(mb.batch) + " sequences; chip link " +
      link_text(dep.link) + (dep.link.given ? "" : " (default: the arch has no chip_link)"));
  if (ph.chunk > 0)
    out.info.notes.push_back(
        "chunked_prefill over chips (--chunk " + std::to_string(ph.chunk) +
        "): each step's sharded GEMMs of M = chunk + " + std::to_string(ph.batch) +
        " rows on every chip, its all-reduces (and all-to-alls) at those rows, the logits' all-gather of the decoding "
        "sequences; the mixed steps' non-GEMM operators are not costed");
  out.info.notes.push_back(
      "deployment figures: latency = the stages of the first micro-batch + (micro-batches - 1) x the slowest stage; "
      "each stage its chip's work + its collectives (not overlapped); energy and DRAM bytes summed over every chip, "
      "energy_j includes the links (energy_by_term_j the chips only); send/recv of the residual stream at the model "
      "dtype, one copy per TP rank; the reductions' adds are not costed");
  return out;
}

void add_deployed_requests(CompareResult& c, cost::Estimator& est, const Model& whole, const ModelConfig& cfg,
                           const Phases& ph, const Request& req,
                           const std::vector<std::optional<quant::Scheme>>& schemes) {
  if (c.rows.size() != schemes.size()) throw InternalError("add_deployed_requests: one row per scheme expected");
  const std::int64_t last = check_request(ph, req, cfg, &c.info.notes);
  std::vector<PhaseSum> decode(c.rows.size());
  Phases at = ph;
  at.seq_len = 1;  // each step's decode only: the decode step does not depend on the prompt's length
  at.chunk = 0;
  for (std::int64_t context = req.prompt_len + 1; context <= last; ++context) {
    at.context = context;
    const CompareResult step = compare_deployed(est, whole, cfg, at, schemes);
    for (std::size_t i = 0; i < decode.size(); ++i) {
      decode[i].latency_s += step.rows[i].decode.latency_s;
      decode[i].energy_j += step.rows[i].decode.energy_j;
      decode[i].dram_bytes = checked_add(decode[i].dram_bytes, step.rows[i].decode.dram_bytes, "request DRAM bytes");
    }
  }
  for (std::size_t i = 0; i < decode.size(); ++i)
    c.rows[i].request = request_totals(c.rows[i].prefill, decode[i], last - req.prompt_len, ph, req);
  c.request = req;
}

}  // namespace tenet_cost::model
