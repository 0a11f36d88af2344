// Parallelism over chips (issue 24 item 4): tensor-parallel sharding against hand-sharded shapes, ring / fully
// connected collectives against their closed forms, the collective's precision per scheme, pipeline stages that
// partition the single-chip plan exactly, expert parallelism, and the refusals.
#include <catch2/catch.hpp>

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
model::ModelConfig small_config() {
  return model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 8,
    "num_key_value_heads": 4, "num_hidden_layers": 4, "vocab_size": 512})",
                                "small.json");
}

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                         mapping::parse_dataflow("os"), {});
}

// MACs m·n·k·batch·calls of the plan's GEMMs named `f` in `phase`.
std::int64_t macs_of(const std::vector<model::ModelGemm>& gemms, const std::string& f, model::Phase phase) {
  std::int64_t macs = 0;
  for (const auto& g : gemms)
    if (g.function == f && g.phase == phase) macs += g.calls * g.shape.batch * g.shape.m * g.shape.n * g.shape.k;
  return macs;
}

}  // namespace

TEST_CASE("tensor parallelism shards every GEMM as Megatron does", "[parallel]") {
  const model::ModelConfig c = small_config();
  model::Phases ph;
  ph.seq_len = ph.context = 64;
  ph.batch = 2;
  model::Parallel p;
  p.tp = 2;
  const model::ModelConfig chip = model::shard_config(c, p);
  CHECK(chip.heads == 4);
  CHECK(chip.kv_heads == 2);
  CHECK(chip.intermediate == 128);
  CHECK(chip.vocab == 256);
  CHECK(chip.hidden == 128);  // the residual stream is whole on every chip
  const auto full = model::workloads_from_config(c, ph);
  const auto shard = model::workloads_from_config(chip, ph);
  for (const auto phase : {model::Phase::kPrefill, model::Phase::kDecode})
    for (const char* f : {"qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head", "attn_qk", "attn_pv"}) {
      INFO(f);
      CHECK(2 * macs_of(shard, f, phase) == macs_of(full, f, phase));
    }
  // column-parallel N, row-parallel K, by hand: qkv (8 + 2·4)·16 / 2 = 128 columns; o_proj K = 8·16 / 2 = 64
  for (const auto& g : shard) {
    if (g.function == "qkv_proj") CHECK(g.shape.n == 128);
    if (g.function == "o_proj") CHECK((g.shape.k == 64 && g.shape.n == 128));
    if (g.function == "down_proj") CHECK(g.shape.k == 128);
  }
  // the per-chip weights: all but the replicated norms (2 per layer + the final one) split in two
  const std::int64_t replicated = 2 * 128 * 4 + 128;
  CHECK(2 * model::parameter_count(chip) == model::parameter_count(c) + replicated);
}

TEST_CASE("a TP degree that does not divide a field is refused naming it", "[parallel]") {
  model::Parallel p;
  p.tp = 3;
  CHECK_THROWS_WITH(model::shard_config(small_config(), p), Catch::Contains("num_attention_heads 8"));
  p.tp = 8;
  CHECK_THROWS_WITH(model::shard_config(small_config(), p), Catch::Contains("num_key_value_heads 4"));
  p.tp = 2;
  p.ep = 2;
  CHECK_THROWS_WITH(model::shard_config(small_config(), p), Catch::Contains("no experts"));
  CHECK_THROWS_WITH(model::stage_layers(4, 5), Catch::Contains("4 layers"));
}

TEST_CASE("ring and fully connected collectives match their closed forms", "[parallel]") {
  arch::ChipLink link;  // 32 GB/s, 1 us, 5 pJ/bit, ring
  model::CollectiveFormat fp16;
  // all-reduce of 8 x 4096 fp16 (S = 65,536 B) over 4 chips: chunks of 8 x 1024 x 2 = 16,384 B, 2(n-1) = 6 steps,
  // each chip sends 2(n-1)/n · S = 98,304 B
  const model::CollectiveCost r = model::all_reduce(link, 4, fp16, 8, 4096);
  CHECK(r.bytes_per_chip == 98304);
  CHECK(r.seconds == Approx(6 * (1e-6 + 16384 / 32e9)));
  CHECK(r.energy_j == Approx(4.0 * 98304 * 8 * 5e-12));
  link.topology = arch::ChipTopology::kFullyConnected;
  const model::CollectiveCost f = model::all_reduce(link, 4, fp16, 8, 4096);
  CHECK(f.bytes_per_chip == 98304);
  CHECK(f.seconds == Approx(2 * (1e-6 + 16384 / 32e9)));
  // all-gather of 3 chips' 2 x 100 float32: each sends (n-1) chunks of 800 B
  model::CollectiveFormat fp32;
  fp32.bits = 32;
  link.topology = arch::ChipTopology::kRing;
  const model::CollectiveCost g = model::all_gather(link, 3, fp32, 2, 100);
  CHECK(g.bytes_per_chip == 1600);
  CHECK(g.seconds == Approx(2 * (1e-6 + 800 / 32e9)));
  CHECK(model::all_reduce(link, 1, fp16, 8, 4096).bytes_per_chip == 0);
  const model::CollectiveCost h = model::send_recv(link, 1000);
  CHECK(h.seconds == Approx(1e-6 + 1000 / 32e9));
}

TEST_CASE("the all-reduce runs at the scheme's activation precision, its dynamic scales with it", "[parallel]") {
  const auto fmt = [](const char* s, const char* dtype = "") {
    return model::collective_format(quant::parse_scheme(s), dtype);
  };
  // 16 rows x 1024 columns per chunk
  CHECK(model::chunk_bytes(fmt("q0f16"), 16, 1024) == 16 * 1024 * 2);
  CHECK(model::chunk_bytes(fmt("q4f16_1"), 16, 1024) == 16 * 1024 * 2);  // weight-only: fp16 activations
  CHECK(model::chunk_bytes(fmt("fp8-tensor"), 16, 1024) == 16 * 1024);   // static per-tensor scale: none travels
  // int8 with a dynamic 16-bit scale per token
  CHECK(model::chunk_bytes(fmt("w8a8-token-channel"), 16, 1024) == 16 * 1024 + 16 * 2);
  // fp8 with dynamic float32 scales per token and per 128 along the row: 16 x 8 scales
  CHECK(model::chunk_bytes(fmt("fp8-block128x128"), 16, 1024) == 16 * 1024 + 16 * 8 * 4);
  // overridden: fp8 of a 16-bit scheme carries a float32 scale per token; fp32 none
  const model::CollectiveFormat o = fmt("q0f16", "fp8");
  CHECK_FALSE(o.from_scheme);
  CHECK(model::chunk_bytes(o, 16, 1024) == 16 * 1024 + 16 * 4);
  CHECK(model::chunk_bytes(fmt("q0f16", "fp32"), 16, 1024) == 16 * 1024 * 4);
  CHECK_THROWS_WITH(fmt("q0f16", "fp9"), Catch::Contains("--collective-dtype"));
}

TEST_CASE("pipeline stages partition the single-chip plan exactly", "[parallel]") {
  const model::ModelConfig c = small_config();
  CHECK(model::stage_layers(4, 3) == std::vector<std::int64_t>{2, 1, 1});
  // the stages' parameters sum to the model's
  std::int64_t params = 0, first = 0;
  const auto layers = model::stage_layers(4, 3);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    params += model::parameter_count(model::stage_config(c, first, layers[i], i + 1 == layers.size()));
    first += layers[i];
  }
  CHECK(params == model::parameter_count(c));
  // pp = 2, one micro-batch, tp = 1: the deployment's DRAM bytes are the single chip's, its latency the single
  // chip's + one hop of the residual stream
  cost::Estimator est = estimator();
  model::Phases ph;
  ph.seq_len = ph.context = 64;
  ph.batch = 2;
  const model::Model whole = model::plan_from_config("small.json", c, ph);
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q4f16_1")};
  const model::CompareResult one = model::compare(est, whole, ph, schemes);
  model::Phases pp = ph;
  pp.parallel.pp = 2;
  pp.parallel.micro_batches = 1;
  const model::CompareResult two = model::compare_deployed(est, whole, c, pp, schemes);
  const model::CollectiveCost hop = model::send_recv(est.arch().chip_link, 2 * 128 * 2);  // 2 rows x 128 x fp16
  CHECK(two.rows[0].decode.dram_bytes == one.rows[0].decode.dram_bytes);
  CHECK(two.rows[0].decode.latency_s == Approx(one.rows[0].decode.latency_s + hop.seconds));
  CHECK(two.rows[0].decode.energy_j == Approx(one.rows[0].decode.energy_j + hop.energy_j));
  CHECK(two.rows[0].deploy->decode.bubble_fraction > 0);
  // with two micro-batches the step is the stages of the first + one more period of the slowest stage
  pp.parallel.micro_batches = 2;
  const model::CompareResult m2 = model::compare_deployed(est, whole, c, pp, schemes);
  CHECK(m2.deployment->micro_batches == 2);
  CHECK(m2.rows[0].decode.latency_s < 2 * two.rows[0].decode.latency_s);
  pp.parallel.micro_batches = 3;
  CHECK_THROWS_WITH(model::compare_deployed(est, whole, c, pp, schemes), Catch::Contains("does not divide --batch"));
}

TEST_CASE("a tp deployment's step is one chip's work plus its all-reduces", "[parallel]") {
  const model::ModelConfig c = small_config();
  cost::Estimator est = estimator();
  model::Phases ph;
  ph.seq_len = ph.context = 64;
  ph.batch = 4;
  const model::Model whole = model::plan_from_config("small.json", c, ph);
  model::Phases tp = ph;
  tp.parallel.tp = 2;
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"),
                                                             quant::parse_scheme("fp8-tensor")};
  const model::CompareResult r = model::compare_deployed(est, whole, c, tp, schemes);
  model::Parallel p;
  p.tp = 2;
  const model::ModelConfig chip = model::shard_config(c, p);
  const model::Model one_chip = model::plan_from_config("small.json", chip, ph);
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    const model::CompareRow chip_row = model::compare_row("", model::run_model(est, one_chip, schemes[i]));
    const model::CollectiveFormat f = model::collective_format(*schemes[i], "");
    const arch::ChipLink& link = est.arch().chip_link;
    // decode: 2 all-reduces per layer of 4 x 128, the embedding's all-reduce (fp16), the logits' all-gather (fp32)
    model::CollectiveCost coll;
    coll.add(model::all_reduce(link, 2, f, 4, 128), 8);
    coll.add(model::all_reduce(link, 2, model::CollectiveFormat{}, 4, 128));
    model::CollectiveFormat fp32;
    fp32.bits = 32;
    coll.add(model::all_gather(link, 2, fp32, 4, 256));
    const model::DeployPhase& d = r.rows[i].deploy->decode;
    CHECK(d.collective_bytes == coll.bytes_per_chip);
    CHECK(d.latency_s == Approx(chip_row.decode.latency_s + coll.seconds));
    CHECK(d.energy_j == Approx(2 * chip_row.decode.energy_j + coll.energy_j));
    CHECK(d.dram_bytes == 2 * chip_row.decode.dram_bytes);
  }
  // fp8 all-reduces move half the bytes of fp16 ones (per-tensor static scales: none travel)
  const std::int64_t fp16_bytes = r.rows[0].deploy->decode.collective_bytes;
  const std::int64_t fp8_bytes = r.rows[1].deploy->decode.collective_bytes;
  CHECK(fp16_bytes - fp8_bytes == 8 * 2 * (4 * 64 * 2 - 4 * 64));
}

TEST_CASE("expert parallelism places whole experts per chip", "[parallel]") {
  const model::ModelConfig mix =
      model::load_hf_config(std::string(TC_SOURCE_DIR) + "/tests/fixtures/configs/mixtral-8x7b.json");
  model::Parallel p;
  p.tp = 8;
  p.ep = 8;
  const model::ModelConfig chip = model::shard_config(mix, p);
  CHECK(chip.expert_shards == 8);
  CHECK(chip.expert_intermediate == mix.expert_intermediate);  // whole experts
  model::Phases ph;
  ph.batch = 1;
  ph.seq_len = ph.context = 512;
  // prefill of 512 tokens x top-2 = 1024 routed rows: 128 rows per chip over its one expert
  for (const auto& g : model::workloads_from_config(chip, ph))
    if (g.function == "expert_gate_up" && g.phase == model::Phase::kPrefill) CHECK((g.shape.m == 128 && g.calls == 32));
  p.ep = 4;
  CHECK_THROWS_WITH(model::shard_config(mix, p), Catch::Contains("--tp 4"));
}

TEST_CASE("the all-to-all matches its closed form on a ring and fully connected", "[parallel][ep]") {
  arch::ChipLink ring;  // the defaults: ring, 32 GB/s, 1 us, 5 pJ/bit
  REQUIRE(ring.topology == arch::ChipTopology::kRing);
  const model::CollectiveFormat fp16;
  // 4 chips, 3 rows of 128 fp16 per pair: a 768-byte chunk; ring: 3 steps forwarding 3, 2, 1 chunks
  const model::CollectiveCost r = model::all_to_all(ring, 4, fp16, 3, 128);
  CHECK(r.bytes_per_chip == 6 * 768);
  CHECK(r.seconds == Approx(3 * 1e-6 + 6 * 768 / 32e9));
  CHECK(r.energy_j == Approx(4.0 * 6 * 768 * 8 * 5e-12));
  arch::ChipLink full = ring;
  full.topology = arch::ChipTopology::kFullyConnected;
  const model::CollectiveCost f = model::all_to_all(full, 4, fp16, 3, 128);
  CHECK(f.bytes_per_chip == 3 * 768);
  CHECK(f.seconds == Approx(1e-6 + 768 / 32e9));
  CHECK(model::all_to_all(ring, 1, fp16, 3, 128).bytes_per_chip == 0);
  // at the scheme's activation format: int8 with a 16-bit scale per token, fp8 with its static scale (none travels)
  const auto w8a8 = model::collective_format(quant::parse_scheme("w8a8-token-channel"), "");
  CHECK(model::all_to_all(full, 4, w8a8, 3, 128).bytes_per_chip == 3 * (3 * 128 + 3 * 2));
  const auto fp8 = model::collective_format(quant::parse_scheme("fp8-tensor"), "");
  CHECK(model::all_to_all(full, 4, fp8, 3, 128).bytes_per_chip == 3 * 3 * 128);
}

TEST_CASE("expert parallelism: one all-reduce and two all-to-alls per MoE layer", "[parallel][ep]") {
  // 4 MoE layers, 4 experts of width 256, top-2, hidden 128, vocab 512
  const model::ModelConfig c = model::parse_hf_config(R"({"model_type": "mixtral", "hidden_size": 128,
    "intermediate_size": 256, "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 4,
    "vocab_size": 512, "num_local_experts": 4, "num_experts_per_tok": 2})",
                                                      "moe.json");
  cost::Estimator est = estimator();
  model::Phases ph;
  ph.seq_len = ph.context = 64;
  ph.batch = 4;
  const model::Model whole = model::plan_from_config("moe.json", c, ph);
  model::Phases ep = ph;
  ep.parallel.tp = ep.parallel.ep = 4;
  const std::vector<std::optional<quant::Scheme>> schemes = {quant::parse_scheme("q0f16"),
                                                             quant::parse_scheme("w8a8-token-channel")};
  const model::CompareResult r = model::compare_deployed(est, whole, c, ep, schemes);
  // decode, q0f16, by hand: T = 4 tokens, 8 routed rows, ⌈8 / 16⌉ = 1 row of 128 fp16 (256 B) per chip pair
  //   all-reduce of 4 x 128 fp16 over 4 chips: chunks of 4 x 32 x 2 = 256 B, 2·3 of them = 1536 B; one per MoE layer
  //   and the embedding's: 5 x 1536
  //   all-to-all (ring): 4·3/2 = 6 chunks of 256 B = 1536 B; dispatch + combine per layer: 8 x 1536
  //   logits all-gather: 4 x 128 float32 = 2048 B, 3 of them
  const model::DeployPhase& d = r.rows[0].deploy->decode;
  CHECK(d.all_to_all_bytes == 8 * 1536);
  CHECK(d.collective_bytes == 5 * 1536 + 8 * 1536 + 3 * 2048);
  const arch::ChipLink& link = est.arch().chip_link;
  CHECK(d.all_to_all_s == Approx(8 * (3 * link.latency_us * 1e-6 + 1536 / (link.gb_per_s * 1e9))));
  // w8a8: int8 rows with their 16-bit per-token scales: all-reduce chunks 4 x 32 + 4 x 2 = 136 B, all-to-all 130 B
  const model::DeployPhase& w = r.rows[1].deploy->decode;
  CHECK(w.all_to_all_bytes == 8 * 6 * 130);
  CHECK(w.collective_bytes == 4 * 6 * 136 + 1536 + 8 * 6 * 130 + 3 * 2048);
  // each chip routes its quarter of the tokens
  model::Parallel p;
  p.tp = p.ep = 4;
  for (const auto& g : model::workloads_from_config(model::shard_config(c, p), ph))
    if (g.function == "router") CHECK(g.shape.m == (g.phase == model::Phase::kPrefill ? 64 : 1));
  // an EP degree that does not divide the experts is refused naming the field
  const model::ModelConfig six = model::parse_hf_config(R"({"model_type": "mixtral", "hidden_size": 128,
    "intermediate_size": 256, "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 4,
    "vocab_size": 512, "num_local_experts": 6, "num_experts_per_tok": 2})",
                                                        "six.json");
  CHECK_THROWS_WITH(model::shard_config(six, p), Catch::Contains("num_local_experts 6 is not divisible by 4"));
}
