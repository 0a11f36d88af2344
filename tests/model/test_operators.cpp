// Non-GEMM operators (docs/model.md "Operators"): the vector-unit / DRAM cost of one operator and the
// family's standard operators of a config, against hand-computed figures.
#include <catch2/catch.hpp>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"

using namespace tenet_cost;

namespace {

std::string presets_dir() { return std::string(TC_SOURCE_DIR) + "/configs/arch"; }

model::ModelConfig small_config() {
  return model::parse_hf_config(R"({"hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 8,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 512})",
                                "small.json");
}

}  // namespace

TEST_CASE("one operator: the slower of the vector unit and DRAM") {
  arch::Arch a = arch::load_arch("edge-npu-32x32", presets_dir());
  a.vector_ops_per_cycle = 8;
  a.clock_mhz = 1000;
  a.dram_mb_per_s = 4000;  // 4 bytes per cycle
  a.vector_op_pj = 0.5;
  a.dram_pj_per_bit = 10;
  a.buffer_pj_per_bit = 1;
  for (const std::int64_t ops : {0, 1, 7, 8, 9, 1000, 100001})
    for (const std::int64_t bytes : {0, 1, 3, 4, 5, 4001, 80000}) {
      const auto c = cost::vector_op(a, cost::OpShape{ops, bytes, 2 * bytes});
      const std::int64_t vec = (ops + 7) / 8, dram = (3 * bytes + 3) / 4;
      INFO("ops=" << ops << " bytes=" << bytes);
      CHECK(c.cycles_of(cost::Term::kVector) == vec);
      CHECK(c.cycles_of(cost::Term::kDram) == dram);
      CHECK(c.cycles == std::max(vec, dram));
      CHECK(c.bound == (dram > vec ? cost::Term::kDram : cost::Term::kVector));
      CHECK(c.dram_bytes == 3 * bytes);
      CHECK(c.energy_j == Approx((0.5 * ops + 11.0 * 8 * 3 * bytes) * 1e-12));
      CHECK(c.latency_s == Approx(static_cast<double>(c.cycles) * 1e-9));
    }
  CHECK_THROWS(cost::vector_op(a, cost::OpShape{-1, 0, 0}));
}

TEST_CASE("a config's decode operators: hand-computed element ops and DRAM bytes") {
  // H=128, I=256, 8 heads / 2 KV heads of 16, 3 layers, vocab 512, fp16, one token at context 16:
  //   embedding  1 x (0 ops, 256 + 256 B)        norm      6 x (512 ops, 512 + 256 B)
  //   rotary     3 x (480 ops, 384 + 320 B)      kv_append 3 x (0 ops, 128 + 128 B)
  //   softmax    3 x (640 ops, on chip)          silu_mul  3 x (1280 ops, 1024 + 512 B)
  //   residual   6 x (128 ops, 512 + 256 B)      final_norm  (512 ops, 512 + 256 B)
  //   sampling     (2560 ops, 2048 + 4 B)
  // ops 14112, DRAM 20036 B; unfused softmax adds 3 x (256 + 256 B) = 1536 B.
  arch::Arch a = arch::load_arch("edge-npu-32x32", presets_dir());
  cost::Estimator est(a, mapping::parse_dataflow("os"));
  model::Phases ph;
  ph.seq_len = 4;
  ph.context = 16;
  const auto cfg = small_config();
  model::Model m{"small", model::workloads_from_config(cfg, ph), model::operators_from_config(cfg, ph), {}};
  auto r = model::run_model(est, m, std::nullopt);
  CHECK(r.totals.at("decode").non_gemm_ops == 14112);
  CHECK(r.totals.at("decode").non_gemm_dram_bytes == 20036);
  const auto gemm_only = model::run_model(est, m.gemms, std::nullopt);
  CHECK(r.totals.at("decode").dram_bytes == gemm_only.totals.at("decode").dram_bytes + 20036);
  CHECK(r.totals.at("decode").latency_s ==
        Approx(gemm_only.totals.at("decode").latency_s + r.totals.at("decode").non_gemm_latency_s));
  ph.attention = model::Attention::kUnfused;
  m.ops = model::operators_from_config(cfg, ph);
  r = model::run_model(est, m, std::nullopt);
  CHECK(r.totals.at("decode").non_gemm_dram_bytes == 20036 + 1536);
  // batch 4: every per-token figure x4 except the norm weights (read once per call)
  ph.attention = model::Attention::kFused;
  ph.batch = 4;
  std::int64_t ops = 0;
  for (const auto& op : model::operators_from_config(cfg, ph))
    if (op.phase == model::Phase::kDecode) ops += op.shape.ops * op.calls;
  CHECK(ops == 4 * 14112);
}
