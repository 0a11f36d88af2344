#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "arch_support.hpp"
#include "brute_force.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/tenet.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using cost::GemmShape;
using quant::GemmRole;

namespace {

arch::Arch test_arch(std::int64_t rows = 8, std::int64_t cols = 8, std::int64_t buffer = 1 << 20) {
  return tc_test::edge_arch(rows, cols, buffer);
}

const cost::TensorCost& tensor(const cost::GemmCost& c, const std::string& role) {
  for (const auto& t : c.tensors)
    if (quant::to_string(t.role) == role) return t;
  FAIL("no tensor with role " << role);
  return c.tensors.front();
}

}  // namespace

TEST_CASE("closed forms match a brute-force enumeration of TENET's definitions") {
  struct Case {
    const char* scheme;
    GemmRole role;
  };
  const std::vector<Case> cases = {{"q0f16", GemmRole::kLinear},          {"w4a16-g4", GemmRole::kLinear},
                                   {"w4a16-g4-asym", GemmRole::kLinear},  {"w8a8-token-channel", GemmRole::kLinear},
                                   {"fp8-tensor", GemmRole::kLinear},     {"q0f16+kv8", GemmRole::kAttnQK},
                                   {"q0f16+kv8", GemmRole::kAttnPV},      {"q0f16+kv4-g3", GemmRole::kAttnQK},
                                   {"q0f16+kv4-g3", GemmRole::kAttnPV}};
  const auto& sizes = tc_test::oracle_sizes();
  for (const char* kind : {"os", "ws"})
    for (const auto& c : cases)
      for (const auto& sz : sizes) {
        const auto ops = quant::operands(quant::parse_scheme(c.scheme), c.role, quant::DequantSite::kEdge);
        const auto cf = tc_test::cf_tile(kind, sz[0], sz[1], sz[2], sz[3], sz[4], ops);
        const auto bf = tc_test::brute_force(kind, sz[0], sz[1], sz[2], sz[3], sz[4], ops);
        INFO(kind << " " << c.scheme << " role " << static_cast<int>(c.role) << " R=" << sz[0] << " C=" << sz[1]
                  << " tile " << sz[2] << "x" << sz[3] << "x" << sz[4]);
        CHECK(cf.time_stamps == bf.time_stamps);
        CHECK(cf.active_pes == bf.active_pes);
        for (const auto& op : quant::array_operands(ops)) {
          INFO("operand " << op.relation());
          CHECK(cf.unique.at(op.name) == bf.unique.at(op.name));
          CHECK(cf.total.at(op.name) == bf.total.at(op.name));
          if (!op.write) CHECK(cf.temporal_unique.at(op.name) == bf.temporal_unique.at(op.name));
        }
      }
}

TEST_CASE("closed forms reproduce TENET's published GEMM 256^3 anchors on 8x8") {
  const auto ops = quant::operands(quant::parse_scheme("q0f16"), GemmRole::kLinear, quant::DequantSite::kEdge);
  const auto os = tc_test::cf_tile("os", 8, 8, 256, 256, 256, ops);
  CHECK(os.time_stamps == 276480);     // reuse_factor experiment 11
  CHECK(os.unique.at("A") == 2097152);
  CHECK(os.unique.at("W") == 2097152);
  CHECK(os.unique.at("C") == 65536);
  CHECK(os.active_pes == 64);
  // upstream `In: 1048591; Out: 16399` = floor(UV*16/64) + 15
  CHECK((os.unique.at("A") + os.unique.at("W")) * 16 / 64 + 15 == 1048591);
  CHECK(os.unique.at("C") * 16 / 64 + 15 == 16399);
  const auto ws = tc_test::cf_tile("ws", 8, 8, 256, 256, 256, ops);  // experiment 12
  CHECK((ws.unique.at("A") + ws.unique.at("W")) * 16 / 64 + 15 == 540687);
  CHECK(ws.unique.at("C") * 16 / 64 + 15 == 524303);
  // anchors 4096^3 on 16x16: |TD| = (N/R)^2 (N + 2R - 2)
  const auto big = tc_test::cf_tile("os", 16, 16, 4096, 4096, 4096, ops);
  CHECK(big.time_stamps == 270401536);
  CHECK(big.unique.at("A") == 4294967296LL);
}

TEST_CASE("the TENET engine agrees with the closed forms on small tiles") {
  arch::Arch a = test_arch(4, 4);
  const auto df = mapping::parse_dataflow("os");
  const auto ops = quant::operands(quant::parse_scheme("w4a16-g4"), GemmRole::kLinear, quant::DequantSite::kEdge);
  tenet::Metrics m;
  try {
    m = tenet::analyze(mapping::tile_problem(a, df, 10, 9, 12, ops), {});
  } catch (const InputError& e) {
    if (std::string(e.what()).find("not implemented") != std::string::npos) {
      WARN("TENET engine not available yet: " << e.what());
      return;
    }
    throw;
  }
  const auto cf = tc_test::cf_tile("os", 4, 4, 10, 9, 12, ops);
  CHECK(m.time_stamps == cf.time_stamps);
  for (const auto& t : m.tensors) CHECK(t.unique_volume == cf.unique.at(t.name));
}

TEST_CASE("decode GEMV moves every weight once, at its real bit width, plus its scales") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator est(test_arch(32, 32), mapping::parse_dataflow("os"), o);
  const std::int64_t N = 4096, K = 11008;
  const auto& c = est.gemm(GemmShape{1, 1, N, K, GemmRole::kLinear}, quant::parse_scheme("q4f16_1"));
  CHECK(tensor(c, "weight").dram_bytes == N * K * 4 / 8);
  CHECK(tensor(c, "scale").dram_bytes == N * (K / 32) * 2);
  CHECK(tensor(c, "activation").dram_bytes == K * 2);
  CHECK(tensor(c, "output").dram_bytes == N * 2);
  CHECK(c.dram_bytes == N * K / 2 + N * (K / 32) * 2 + K * 2 + N * 2);
  // int3 packs 10 per uint32: 3.2 bits per weight, ceil per tensor
  const auto& c3 = est.gemm(GemmShape{1, 1, N, 4000, GemmRole::kLinear}, quant::parse_scheme("q3f16_1"));
  CHECK(tensor(c3, "weight").dram_bytes == N * 4000 * 32 / 10 / 8);
  CHECK(tensor(c3, "weight").bits == "3.2");
}

TEST_CASE("a per-tensor scale moves once; group scales scale with K/g") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator est(test_arch(32, 32, 256 * 1024), mapping::parse_dataflow("os"), o);
  const GemmShape prefill{1, 2048, 4096, 4096, GemmRole::kLinear};
  const auto& fp8 = est.gemm(prefill, quant::parse_scheme("fp8-tensor"));
  CHECK(fp8.tiles > 1);
  for (const auto& t : fp8.tensors)
    if (t.role == quant::OperandRole::kScale) {
      CHECK(t.dram_elems == 1);
      CHECK(t.dram_bytes == 4);
    }
  const GemmShape gemv{1, 1, 4096, 4096, GemmRole::kLinear};
  const auto s64 = tensor(est.gemm(gemv, quant::parse_scheme("w4a16-g64")), "scale").dram_bytes;
  const auto s128 = tensor(est.gemm(gemv, quant::parse_scheme("w4a16-g128")), "scale").dram_bytes;
  CHECK(s64 == 4096 * 64 * 2);
  CHECK(s64 == 2 * s128);
  const auto& asym = est.gemm(gemv, quant::parse_scheme("w4a16-g128-asym"));
  CHECK(tensor(asym, "zero_point").dram_bytes == 4096 * 32 * 4 / 8);
}

TEST_CASE("compute cycles follow the time stamps and the per-precision MAC rate") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  o.tile = cost::Tile{256, 256, 256, "mnk"};
  arch::Arch a = test_arch(8, 8);
  cost::Estimator est(a, mapping::parse_dataflow("os"), o);
  const auto& c = est.gemm(GemmShape{1, 512, 512, 512, GemmRole::kLinear}, quant::parse_scheme("q0f16"));
  // 8 tiles of 256^3, each (256/8)^2 * (256 + 14) stamps; fp16 at 1 MAC/PE/cycle
  CHECK(c.tiles == 8);
  CHECK(c.cycles_of(cost::Term::kCompute) == 8 * 276480);
  CHECK(c.cycles_of(cost::Term::kCompute) >= c.macs / 64);
  const auto& i8 = est.gemm(GemmShape{1, 512, 512, 512, GemmRole::kLinear}, quant::parse_scheme("w8a8-token-channel"));
  CHECK(i8.precision == tc_test::mac("int8"));
  CHECK(i8.cycles_of(cost::Term::kCompute) == 8 * 276480 / 2);  // 2 int8 MACs per PE per cycle
  CHECK(c.utilization > 0.9);
  CHECK(c.utilization <= 1.0);
  // DRAM: order mnk, tiles 256: A re-read per n tile, B per m tile, C written once
  CHECK(tensor(c, "activation").dram_elems == 512 * 512 * 2);
  CHECK(tensor(c, "weight").dram_elems == 512 * 512 * 2);
  CHECK(tensor(c, "output").dram_elems == 512 * 512);
}

TEST_CASE("k-outer tile orders spill partial sums at accumulator precision") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  o.tile = cost::Tile{64, 64, 64, "kmn"};
  cost::Estimator est(test_arch(8, 8), mapping::parse_dataflow("ws"), o);
  const auto& c = est.gemm(GemmShape{1, 128, 128, 256, GemmRole::kLinear}, quant::parse_scheme("q0f16"));
  const auto& out = tensor(c, "output");
  // 4 k tiles: final writes 128*128 at 16 bits + 3 extra writes and 3 re-reads at 32 bits
  CHECK(out.dram_bytes == 128 * 128 * 2 + 128 * 128 * 3 * 2 * 4);
}

TEST_CASE("identical GEMMs are evaluated once") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator est(test_arch(32, 32), mapping::parse_dataflow("os"), o);
  const auto s = quant::parse_scheme("q4f16_1");
  est.gemm(GemmShape{1, 1, 4096, 4096, GemmRole::kLinear}, s);
  const auto n = est.array_evaluations();
  est.gemm(GemmShape{1, 1, 4096, 4096, GemmRole::kLinear}, s);
  CHECK(est.array_evaluations() == n);
}

TEST_CASE("bad tiles are errors that say by how much") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  o.tile = cost::Tile{1024, 1024, 1024, ""};
  cost::Estimator est(test_arch(8, 8, 1 << 20), mapping::parse_dataflow("os"), o);
  try {
    est.gemm(GemmShape{1, 2048, 2048, 2048, GemmRole::kLinear}, quant::parse_scheme("q0f16"));
    FAIL("expected an error");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("over by") != std::string::npos);
    CHECK(msg.find("1048576") != std::string::npos);
  }
  cost::Options g;
  g.method = cost::ArrayMethod::kClosedForm;
  g.tile = cost::Tile{0, 0, 100, ""};
  cost::Estimator est2(test_arch(8, 8), mapping::parse_dataflow("os"), g);
  CHECK_THROWS_WITH(est2.gemm(GemmShape{1, 1, 256, 4096, GemmRole::kLinear}, quant::parse_scheme("q4f16_1")),
                    Catch::Contains("multiple of the group size 32"));
  CHECK_THROWS_WITH(cost::parse_tile("m=0"), Catch::Contains("positive"));
  CHECK_THROWS_WITH(cost::parse_tile("x=4"), Catch::Contains("valid: m, n, k, order"));
  CHECK_THROWS_WITH(cost::parse_tile("order=mmk"), Catch::Contains("permutation"));
  CHECK(cost::parse_tile("m=4,order=nkm") == cost::Tile{4, 0, 0, "nkm"});
}

TEST_CASE("counts that overflow 64 bits are errors") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator est(test_arch(32, 32), mapping::parse_dataflow("os"), o);
  CHECK_THROWS_AS(est.gemm(GemmShape{1, 1LL << 30, 1LL << 30, 1LL << 30, GemmRole::kLinear}, quant::parse_scheme("q0f16")),
                  OverflowError);
}

TEST_CASE("HF config workloads have the model's GEMM shapes") {
  const std::string path = std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json";
  const auto cfg = model::parse_hf_config(read_file(path), path);
  CHECK(cfg.head_dim == 128);
  model::Phases ph;
  ph.seq_len = 128;
  ph.context = 1000;
  ph.attention = model::Attention::kUnfused;  // scores through DRAM: GemmShape::scores_on_chip false
  const auto g = model::workloads_from_config(cfg, ph);
  auto find = [&](const std::string& f, const std::string& entry) {
    for (const auto& w : g)
      if (w.function == f && w.entry == entry) return w;
    FAIL("missing " << f);
    return g.front();
  };
  CHECK(find("qkv_proj", "prefill").shape == GemmShape{1, 128, 12288, 4096, GemmRole::kLinear});
  CHECK(find("gate_up_proj", "decode").shape == GemmShape{1, 1, 22016, 4096, GemmRole::kLinear});
  CHECK(find("down_proj", "decode").shape == GemmShape{1, 1, 4096, 11008, GemmRole::kLinear});
  CHECK(find("lm_head", "prefill").shape == GemmShape{1, 1, 32000, 4096, GemmRole::kLinear});
  CHECK(find("attn_qk", "decode").shape == GemmShape{32, 1, 1000, 128, GemmRole::kAttnQK});
  // causal prefill: the first piece is the 64 x 64 below-diagonal rectangle (tests/model: the MAC closed form)
  CHECK(find("attn_pv", "prefill").shape == GemmShape{32, 64, 128, 64, GemmRole::kAttnPV});
  CHECK(find("qkv_proj", "decode").calls == 32);
  CHECK(find("lm_head", "decode").calls == 1);
  const std::string qpath = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
  const auto q = model::parse_hf_config(read_file(qpath), qpath);
  const auto gq = model::workloads_from_config(q, ph);
  for (const auto& w : gq) {
    if (w.function == "qkv_proj") CHECK(w.shape.n == (14 + 2 * 2) * 64);
    if (w.function == "attn_qk" && w.entry == "decode") CHECK(w.shape == GemmShape{2, 7, 1000, 64, GemmRole::kAttnQK});
  }
  CHECK_THROWS_WITH(model::parse_hf_config("{\"hidden_size\": 8}", "c.json"), Catch::Contains("num_attention_heads"));
}

TEST_CASE("whole-model totals are per-call costs times calls") {
  cost::Options o;
  o.method = cost::ArrayMethod::kClosedForm;
  cost::Estimator est(test_arch(32, 32), mapping::parse_dataflow("os"), o);
  model::ModelConfig cfg;
  cfg.hidden = 256;
  cfg.intermediate = 512;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 64;
  cfg.vocab = 1000;
  cfg.layers = 3;
  model::Phases ph;
  ph.seq_len = 64;
  ph.context = 128;
  const auto r = model::run_model(est, model::workloads_from_config(cfg, ph), quant::parse_scheme("q4f16_2"));
  std::int64_t macs = 0;
  for (const auto& [g, c] : r.rows)
    if (g.entry == "decode") macs += c.macs * g.calls;
  CHECK(r.totals.at("decode").macs == macs);
  // decode MACs: 3 layers x (qkv 256x(4+4)*64 + o 256*256 + gate_up 2*512*256 + down 512*256 + attention 2 * 4 * 64 * 128) + lm_head
  CHECK(macs == 3 * (256 * 512 + 256 * 256 + 1024 * 256 + 512 * 256 + 2 * 4 * 64 * 128) + 1000 * 256);
  // q4f16_2 leaves lm_head unquantized
  for (const auto& [g, c] : r.rows)
    if (g.function == "lm_head") CHECK(c.shape.role == GemmRole::kLinearUnquantized);
}

TEST_CASE("every dataflow preset on the TENET engine matches the brute-force oracle") {
  arch::Arch a = test_arch(4, 3);
  const std::vector<std::pair<const char*, GemmRole>> cases = {
      {"w4a16-g4-asym", GemmRole::kLinear}, {"w8a8-token-channel", GemmRole::kLinear}, {"q0f16+kv4-g2", GemmRole::kAttnPV}};
  for (const char* kind : {"os", "ws", "is", "ncf"})
    for (const auto& [scheme, role] : cases) {
      const auto ops = quant::operands(quant::parse_scheme(scheme), role, quant::DequantSite::kEdge);
      const int tm = 7, tn = 6, tk = 9;
      tenet::Metrics m;
      try {
        m = tenet::analyze(mapping::tile_problem(a, mapping::parse_dataflow(kind), tm, tn, tk, ops), {});
      } catch (const InputError& e) {
        if (std::string(e.what()).find("not implemented") != std::string::npos) return;
        throw;
      }
      const auto bf = tc_test::brute_force(kind, 4, 3, tm, tn, tk, ops);
      INFO(kind << " " << scheme);
      CHECK(m.time_stamps == bf.time_stamps);
      CHECK(m.active_pes == bf.active_pes);
      CHECK(m.macs == tm * tn * tk);
      for (const auto& t : m.tensors) {
        INFO(t.name);
        CHECK(t.unique_volume == bf.unique.at(t.name));
        CHECK(t.total_volume == bf.total.at(t.name));
        CHECK(t.temporal_unique_volume == bf.temporal_unique.at(t.name));
      }
    }
}
