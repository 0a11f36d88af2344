// Chunked prefill and whole requests over chips (issue 24 items 2-4 combined): a chunked step on TP shards against
// its hand-sharded shapes and closed form (the chip's GEMMs of M = chunk + decode rows, the all-reduces at the step's
// rows), and a request on a deployment against the integrated closed form (TTFT = the deployment's prefill, every
// decode step at its own context = one chip's step + its collectives).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

// 4 layers, 8 heads over 4 KV heads of 16, MLP 256, vocab 512
model::ModelConfig small() {
  return model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 8,
    "num_key_value_heads": 4, "num_hidden_layers": 4, "vocab_size": 512, "max_position_embeddings": 4096})",
                                "small.json");
}

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                         mapping::parse_dataflow("os"), {});
}

const model::EntrySum& chunked_of(const model::CompareRow& r) {
  for (const auto& e : r.other)
    if (e.entry == model::kChunkedPrefillEntry) return e;
  FAIL("no chunked_prefill entry");
  return r.other.front();
}

// The collectives of one TP=2 step of `rows` rows that computes `seqs` sequences' logits: 2 all-reduces per layer at
// the scheme's format, the embedding's all-reduce (fp16), the logits' all-gather (fp32, 256 columns per chip).
model::CollectiveCost step_collectives(const arch::ChipLink& link, const model::CollectiveFormat& f, std::int64_t rows,
                                       std::int64_t seqs) {
  model::CollectiveCost c;
  c.add(model::all_reduce(link, 2, f, rows, 128), 8);
  c.add(model::all_reduce(link, 2, model::CollectiveFormat{}, rows, 128));
  model::CollectiveFormat fp32;
  fp32.bits = 32;
  c.add(model::all_gather(link, 2, fp32, seqs, 256));
  return c;
}

// A request of a 32-token prompt for 4 sequences of the small model (each test sets its output tokens, req.gen_len).
struct RequestCase {
  model::ModelConfig c = small();
  cost::Estimator est = estimator();
  model::Phases ph;
  model::Request req;
  model::Model whole;
  RequestCase() {
    ph.seq_len = req.prompt_len = 32;
    ph.context = 33;
    ph.batch = 4;
    whole = model::plan_from_config("small.json", c, ph);
  }
};

}  // namespace

TEST_CASE("a chunked step on TP shards: M = chunk + decode rows, sharded columns and rows", "[parallel][chunk]") {
  const model::ModelConfig c = small();
  model::Parallel p;
  p.tp = 2;
  const model::ModelConfig chip = model::shard_config(c, p);
  model::Phases ph;
  ph.seq_len = 64;
  ph.context = 64;
  ph.batch = 4;
  const auto step = model::chunk_step(chip, ph, 16, 16, false);
  std::map<std::string, cost::GemmShape> lin;
  for (const auto& g : step)
    if (g.shape.role != quant::GemmRole::kAttnQK && g.shape.role != quant::GemmRole::kAttnPV) lin[g.function] = g.shape;
  // by hand: 20 rows; QKV (8 + 2·4)·16 / 2 = 128 columns, O K = 8·16 / 2 = 64, gate/up 2·256 / 2, down K = 256 / 2
  CHECK((lin.at("qkv_proj").m == 20 && lin.at("qkv_proj").n == 128 && lin.at("qkv_proj").k == 128));
  CHECK((lin.at("o_proj").m == 20 && lin.at("o_proj").n == 128 && lin.at("o_proj").k == 64));
  CHECK((lin.at("gate_up_proj").m == 20 && lin.at("gate_up_proj").n == 256 && lin.at("gate_up_proj").k == 128));
  CHECK((lin.at("down_proj").m == 20 && lin.at("down_proj").n == 128 && lin.at("down_proj").k == 128));
  CHECK((lin.at("lm_head").m == 4 && lin.at("lm_head").n == 256));  // vocab-parallel: 512 / 2 columns
}

TEST_CASE("chunked prefill over TP: the chip's steps plus the all-reduces at each step's rows", "[parallel][chunk]") {
  const model::ModelConfig c = small();
  cost::Estimator est = estimator();
  model::Phases ph;
  ph.seq_len = 40;  // steps of 16, 16, 8 tokens
  ph.context = 64;
  ph.batch = 4;
  ph.chunk = 16;
  const model::Model whole = model::plan_from_config("small.json", c, ph);
  model::Phases tp = ph;
  tp.parallel.tp = 2;
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"),
                                                             quant::parse_scheme("w8a8-token-channel")};
  const model::CompareResult r = model::compare_deployed(est, whole, c, tp, schemes);
  model::Parallel p;
  p.tp = 2;
  const model::Model one_chip = model::plan_from_config("small.json", model::shard_config(c, p), ph);
  const arch::ChipLink& link = est.arch().chip_link;
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    INFO(schemes[i]->name);
    const model::CompareRow chip_row = model::compare_row("", model::run_model(est, one_chip, schemes[i]));
    const model::PhaseSum& chip = chunked_of(chip_row).sum;
    const model::CollectiveFormat f = model::collective_format(*schemes[i], "");
    model::CollectiveCost coll = step_collectives(link, f, 20, 4);
    coll.add(step_collectives(link, f, 20, 4));
    coll.add(step_collectives(link, f, 12, 5));  // the last chunk: 8 + 4 rows, and the prompt's first token
    const model::PhaseSum& got = chunked_of(r.rows[i]).sum;
    CHECK(got.latency_s == Approx(chip.latency_s + coll.seconds).epsilon(1e-12));
    CHECK(got.energy_j == Approx(2 * chip.energy_j + coll.energy_j).epsilon(1e-12));
    CHECK(got.dram_bytes == 2 * chip.dram_bytes);
  }
  // --pp with --chunk: refused, naming why
  tp.parallel.pp = 2;
  CHECK_THROWS_WITH(model::compare_deployed(est, whole, c, tp, schemes), Catch::Contains("--chunk with --pp"));
}

TEST_CASE_METHOD(RequestCase, "a request on TP=2 equals the integrated closed form", "[parallel][request]") {
  req.gen_len = 5;
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"),
                                                             quant::parse_scheme("fp8-tensor")};
  model::Parallel p;
  p.tp = 2;
  const model::CompareResult r =
      model::compare_deployments(est, whole, c, ph, schemes, {p}, req, model::RankBy::kListed);
  REQUIRE(r.request);
  const model::ModelConfig chip = model::shard_config(c, p);
  const arch::ChipLink& link = est.arch().chip_link;
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    INFO(schemes[i]->name);
    const model::CollectiveFormat f = model::collective_format(*schemes[i], "");
    // TTFT: one chip's prefill + its collectives (4 x 32 rows, 4 sequences' logits)
    const model::CompareRow pre =
        model::compare_row("", model::run_model(est, model::plan_from_config("s", chip, ph), schemes[i]));
    const model::CollectiveCost pre_coll = step_collectives(link, f, 128, 4);
    double e2e = pre.prefill.latency_s + pre_coll.seconds;
    double energy = 2 * pre.prefill.energy_j + pre_coll.energy_j;
    // each decode step at its own context 33 .. 36: one chip's step + its collectives (4 rows)
    const model::CollectiveCost dec_coll = step_collectives(link, f, 4, 4);
    for (std::int64_t ctx = 33; ctx <= 36; ++ctx) {
      model::Phases at = ph;
      at.context = ctx;
      const model::CompareRow d =
          model::compare_row("", model::run_model(est, model::plan_from_config("s", chip, at), schemes[i]));
      e2e += d.decode.latency_s + dec_coll.seconds;
      energy += 2 * d.decode.energy_j + dec_coll.energy_j;
    }
    const model::RequestFigures& got = *r.rows[i].request;
    CHECK(got.decode_steps == 4);
    CHECK(got.ttft_s == Approx(pre.prefill.latency_s + pre_coll.seconds).epsilon(1e-12));
    CHECK(got.e2e_s == Approx(e2e).epsilon(1e-12));
    CHECK(got.tpot_s == Approx((e2e - got.ttft_s) / 4).epsilon(1e-12));
    CHECK(got.energy_j == Approx(energy).epsilon(1e-12));
    CHECK(got.energy_per_request_j == Approx(energy / 4).epsilon(1e-12));
  }
  // one chip: the deployed request is the plain request exactly
  model::CompareResult plain = model::compare(est, whole, ph, schemes);
  const model::PlanAt at = [&](const model::Phases& x) { return model::plan_from_config("small.json", c, x); };
  model::add_requests(plain, est, at, ph, req, schemes, model::RankBy::kListed, c);
  const model::CompareResult one =
      model::compare_deployments(est, whole, c, ph, schemes, {model::Parallel{}}, req, model::RankBy::kListed);
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    CHECK(one.rows[i].request->e2e_s == Approx(plain.rows[i].request->e2e_s).epsilon(1e-12));
    CHECK(one.rows[i].request->energy_j == Approx(plain.rows[i].request->energy_j).epsilon(1e-12));
    CHECK(one.rows[i].request->dram_bytes == plain.rows[i].request->dram_bytes);
  }
}

TEST_CASE_METHOD(RequestCase, "a request through pipeline stages: each step the pipeline's step, bubble included",
                 "[parallel][request]") {
  req.gen_len = 3;
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q4f16_1")};
  model::Parallel p;
  p.tp = 2;
  p.pp = 2;
  const model::CompareResult r =
      model::compare_deployments(est, whole, c, ph, schemes, {p}, req, model::RankBy::kListed);
  model::Phases at = ph;
  at.parallel = p;
  double e2e = model::compare_deployed(est, whole, c, at, schemes).rows[0].prefill.latency_s;
  CHECK(r.rows[0].request->ttft_s == Approx(e2e).epsilon(1e-12));
  for (std::int64_t ctx = 33; ctx <= 34; ++ctx) {
    at.context = ctx;
    const model::CompareResult step = model::compare_deployed(est, whole, c, at, schemes);
    CHECK(step.rows[0].deploy->decode.bubble_fraction > 0);
    e2e += step.rows[0].decode.latency_s;
  }
  CHECK(r.rows[0].request->e2e_s == Approx(e2e).epsilon(1e-12));
  req.gen_len = 5000;  // beyond max_position_embeddings
  CHECK_THROWS_WITH(model::compare_deployments(est, whole, c, ph, schemes, {p}, req, model::RankBy::kListed),
                    Catch::Contains("max_position_embeddings"));
}
