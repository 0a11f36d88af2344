// A dump's plan (docs/model.md "Operators", "Any dump"): its non-GEMM prim_funcs costed per entry, modules without a
// Relax entry, --calls, --gemm shapes, compare on entries that are neither prefill nor decode.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::string presets_dir() { return std::string(TC_SOURCE_DIR) + "/configs/arch"; }

cost::Estimator estimator() {
  return cost::Estimator(arch::load_arch("edge-npu-32x32", presets_dir()), mapping::parse_dataflow("os"));
}

std::int64_t op_sum(const model::Model& m, const std::string& entry, std::int64_t cost::OpShape::*field) {
  std::int64_t s = 0;
  for (const auto& o : m.ops)
    if (o.entry == entry) s += o.shape.*field * o.calls;
  return s;
}

}  // namespace

TEST_CASE("a dump's operators: per entry, the call sites' shapes, bound like the GEMMs") {
  model::Phases ph;
  ph.seq_len = 5;
  ph.context = 9;
  const model::Model m = model::plan_from_dump(tc_test::fixture("extract/nongemm_ops.py"), ph, std::nullopt);
  // per token (fixture header): 2 norms 2*448 + softmax 320 + 2 adds 2*64 + silu_mul 192 + rotary 384 = 1920 ops;
  // bytes read 2*(128+128/token... ): norms 2*(128 n + 128), softmax 128 n, adds 2*256 n, silu 256 n, rotary 192 n
  const std::int64_t ops_per_token = 2 * 448 + 320 + 2 * 64 + 192 + 384;
  const std::int64_t read_per_token = 2 * 128 + 128 + 2 * 256 + 256 + 192, read_fixed = 2 * 128;
  const std::int64_t write_per_token = 7 * 128;
  CHECK(op_sum(m, "prefill", &cost::OpShape::ops) == 5 * ops_per_token);
  CHECK(op_sum(m, "prefill", &cost::OpShape::dram_read_bytes) == 5 * read_per_token + read_fixed);
  CHECK(op_sum(m, "prefill", &cost::OpShape::dram_write_bytes) == 5 * write_per_token);
  // decode: the dump's call sites pass one token (not --context tokens)
  CHECK(op_sum(m, "decode", &cost::OpShape::ops) == ops_per_token);
  CHECK(op_sum(m, "decode", &cost::OpShape::dram_read_bytes) == read_per_token + read_fixed);
  for (const auto& n : m.notes) CHECK(n.find("not modelled") == std::string::npos);
  // the totals split into GEMM and non-GEMM parts
  cost::Estimator est = estimator();
  const auto r = model::run_model(est, m, std::nullopt);
  const auto gemm_only = model::run_model(est, m.gemms, std::nullopt);
  for (const char* e : {"prefill", "decode"}) {
    const auto& t = r.totals.at(e);
    CHECK(t.non_gemm_ops == op_sum(m, e, &cost::OpShape::ops));
    CHECK(t.non_gemm_dram_bytes ==
          op_sum(m, e, &cost::OpShape::dram_read_bytes) + op_sum(m, e, &cost::OpShape::dram_write_bytes));
    CHECK(t.dram_bytes == gemm_only.totals.at(e).dram_bytes + t.non_gemm_dram_bytes);
    CHECK(t.latency_s == Approx(gemm_only.totals.at(e).latency_s + t.non_gemm_latency_s));
  }
}

TEST_CASE("the shipped Llama-2-7B dump: rms_norm and silu_mul against hand counts") {
  model::Phases ph;
  ph.seq_len = 16;
  const model::Model m =
      model::plan_from_dump(std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/q0f16.py", ph, std::nullopt);
  // rms_norm of H = 4096 per token: 2 ops (square, accumulate) + 5 (scale, divide, sqrt, multiply, add eps) per
  // element; reads the fp16 activations and the weight, writes the activations. 65 calls (2 per layer + final).
  // silu_mul: 3 ops per element of I = 11008 (x * sigmoid(x) * up); reads 2*I, writes I fp16 values. 32 calls.
  bool norm = false, silu = false;
  for (const auto& o : m.ops) {
    if (o.function == "rms_norm" && o.entry == "prefill") {
      norm = true;
      CHECK(o.calls == 65);
      CHECK(o.shape.ops == 16 * 4096 * 7);
      CHECK(o.shape.dram_read_bytes == 2 * (16 * 4096 + 4096));
      CHECK(o.shape.dram_write_bytes == 2 * 16 * 4096);
    }
    if (o.function == "rms_norm" && o.entry == "decode") CHECK(o.shape.ops == 4096 * 7);
    if (o.function == "fused_split_silu_multiply" && o.entry == "decode") {
      silu = true;
      CHECK(o.calls == 32);
      CHECK(o.shape.ops == 3 * 11008);
      CHECK(o.shape.dram_read_bytes == 2 * 22016);
      CHECK(o.shape.dram_write_bytes == 2 * 11008);
    }
  }
  CHECK(norm);
  CHECK(silu);
  // the residual add fused into the o_proj and down_proj GEMMs: one add per output element and the residual read
  // (fp16); the output write is the GEMM's. 32 calls each; the lm_head's cast epilogue is no work.
  int epilogues = 0;
  for (const auto& o : m.ops) {
    if (o.function.find("(epilogue)") == std::string::npos) continue;
    CHECK(o.function.find("lm_head") == std::string::npos);
    if (o.entry != "prefill") continue;
    ++epilogues;
    CHECK(o.calls == 32);
    CHECK(o.shape.ops == 16 * 4096);
    CHECK(o.shape.dram_read_bytes == 2 * 16 * 4096);
    CHECK(o.shape.dram_write_bytes == 0);
  }
  CHECK(epilogues == 2);
}

TEST_CASE("a module without a Relax entry runs each function once under its name; --calls sets counts") {
  const std::string text = R"(# from tvm.script import tir as T
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(A: T.Buffer((T.int64(8), T.int64(16)), "float16"), B: T.Buffer((T.int64(32), T.int64(16)), "float16"), C: T.Buffer((T.int64(8), T.int64(32)), "float16")):
        for i, j, k in T.grid(T.int64(8), T.int64(32), T.int64(16)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = T.float16(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]
    @T.prim_func(private=True)
    def relu(A: T.Buffer((T.int64(8), T.int64(32)), "float16"), B: T.Buffer((T.int64(8), T.int64(32)), "float16")):
        for i, j in T.grid(T.int64(8), T.int64(32)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[v_i, v_j] = T.max(A[v_i, v_j], T.float16(0))
)";
  const ExtractResult ex = extract_workloads(ir::parse_tvmscript(text, "kernels.py"));
  REQUIRE(ex.entries.empty());
  model::Phases ph;
  model::Model m = model::plan_from_extract("dir/kernels.py", ex, ph, std::nullopt);
  REQUIRE(m.gemms.size() == 1);
  REQUIRE(m.ops.size() == 1);
  CHECK(m.gemms[0].entry == "kernels");
  CHECK(m.gemms[0].calls == 1);
  CHECK(m.gemms[0].shape == cost::GemmShape{1, 8, 32, 16, quant::GemmRole::kLinear});
  CHECK(m.ops[0].entry == "kernels");
  CHECK(m.ops[0].shape == cost::OpShape{256, 512, 512});
  bool said = false;
  for (const auto& n : m.notes) said = said || n.find("no Relax entry") != std::string::npos;
  CHECK(said);
  ph.calls = {{"mm", 3}, {"relu", 0}};
  m = model::plan_from_extract("dir/kernels.py", ex, ph, std::nullopt);
  CHECK(m.gemms[0].calls == 3);
  CHECK(m.ops.empty());
  ph.calls = {{"nope", 2}};
  CHECK_THROWS_WITH(model::plan_from_extract("dir/kernels.py", ex, ph, std::nullopt),
                    Catch::Contains("'nope' is not a GEMM") && Catch::Contains("mm, relu"));
  // a dump with entries counts its calls from the dump
  ph.calls = {{"rms_norm", 2}};
  CHECK_THROWS_WITH(model::plan_from_dump(tc_test::fixture("extract/nongemm_ops.py"), ph, std::nullopt),
                    Catch::Contains("without a Relax entry"));
  CHECK(model::parse_calls({"a=1", "b=0"}) == std::map<std::string, std::int64_t>{{"a", 1}, {"b", 0}});
  for (const char* bad : {"a", "a=", "=1", "a=-1", "a=1x", "a=99999999999999999999"})
    CHECK_THROWS_AS(model::parse_calls({bad}), InputError);
  CHECK_THROWS_AS(model::parse_calls({"a=1", "a=2"}), InputError);
  // the file's name is no phase (issue 27): a kernel saved as *decode* / *prefill* runs under its stem, phase ""
  ph.calls.clear();
  for (const char* file : {"dir/my_decode_kernel.py", "dir/07_q4f16_1_prefill_gemv.py", "decode.py"}) {
    CAPTURE(file);
    m = model::plan_from_extract(file, ex, ph, std::nullopt);
    REQUIRE(m.gemms.size() == 1);
    REQUIRE(m.ops.size() == 1);
    CHECK(m.gemms[0].entry == std::filesystem::path(file).stem().string());
    CHECK(m.gemms[0].phase == model::Phase::kOther);
    CHECK(m.ops[0].phase == model::Phase::kOther);
    // bound like prefill's symbols, costed once: the same shape as kernels.py
    CHECK(m.gemms[0].shape == cost::GemmShape{1, 8, 32, 16, quant::GemmRole::kLinear});
  }
  // entries of a real Relax module keep their phase by name
  model::Phases named;
  CHECK(named.phase_of("batch_decode") == model::Phase::kDecode);
  named.phaseless.insert("batch_decode");
  CHECK(named.phase_of("batch_decode") == model::Phase::kOther);
  CHECK(named.phase_of("prefill") == model::Phase::kPrefill);
}

TEST_CASE("a dump with symbols no policy binds names them all and says how") {
  const std::string text = R"(# from tvm.script import tir as T
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(var_A: T.handle, B: T.Buffer((T.int64(32), T.int64(16)), "float16"), var_C: T.handle):
        p = T.int64()
        q = T.int64()
        A = T.match_buffer(var_A, (p * q, T.int64(16)), "float16")
        C = T.match_buffer(var_C, (p * q, T.int64(32)), "float16")
        for i, j, k in T.grid(p * q, T.int64(32), T.int64(16)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = T.float16(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]
    @T.prim_func(private=True)
    def relu(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        r = T.int64()
        A = T.match_buffer(var_A, (n, r), "float16")
        B = T.match_buffer(var_B, (n, r), "float16")
        for i, j in T.grid(n, r):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[v_i, v_j] = T.max(A[v_i, v_j], T.float16(0))
)";
  const ExtractResult ex = extract_workloads(ir::parse_tvmscript(text, "sym.py"));
  model::Phases ph;
  CHECK_THROWS_WITH(model::plan_from_extract("sym.py", ex, ph, std::nullopt),
                    Catch::Contains("p, q, r") && Catch::Contains("--bind p=N,q=N,r=N") && Catch::Contains("'sym'"));
  ph.bindings = {{"p", 2}, {"q", 3}, {"r", 5}};
  ph.seq_len = 7;  // n: a token count, bound like prefill's
  const model::Model m = model::plan_from_extract("sym.py", ex, ph, std::nullopt);
  REQUIRE(m.gemms.size() == 1);
  CHECK(m.gemms[0].shape.m == 6);
  REQUIRE(m.ops.size() == 1);
  CHECK(m.ops[0].shape == cost::OpShape{35, 70, 70});
}

TEST_CASE("--gemm shapes: parsed, costed once under 'gemm', compared per scheme without a zero table") {
  CHECK(model::parse_gemm_shape("4x8x16") == cost::GemmShape{1, 4, 8, 16, quant::GemmRole::kLinear});
  CHECK(model::parse_gemm_shape("4x8x16x3") == cost::GemmShape{3, 4, 8, 16, quant::GemmRole::kLinear});
  for (const char* bad :
       {"", "4x8", "4x8x16x2x1", "4x0x16", "ax8x16", "4x8x", "4xx8x16", "-4x8x16", "4x8x99999999999999999999"})
    CHECK_THROWS_AS(model::parse_gemm_shape(bad), InputError);
  model::Phases ph;
  const model::Model m = model::plan_from_shapes({"1x4096x4096", "32x4096x4096"}, ph);
  REQUIRE(m.gemms.size() == 2);
  cost::Estimator est = estimator();
  const auto r = model::run_model(est, m, quant::parse_scheme("q4f16_1"));
  CHECK(r.totals.at("gemm").macs == 33LL * 4096 * 4096);
  const auto schemes = model::compare_schemes("q0f16,q4f16_1", false);
  const auto c = model::compare(est, m, ph, schemes);
  REQUIRE(c.rows.size() == 2);
  for (const auto& row : c.rows) {
    REQUIRE(row.other.size() == 1);
    CHECK(row.other[0].entry == "gemm");
    CHECK(row.other[0].sum.latency_s > 0);
    CHECK(row.other[0].sum.dram_bytes > 0);
  }
  // 4-bit weights move fewer bytes than fp16 ones
  CHECK(c.rows[1].other[0].traffic_ratio_vs_first < 0.5);
  CHECK(c.rows[0].other[0].speedup_vs_first == Approx(1.0));
  ph.bindings = {{"n", 1}};
  CHECK_THROWS_AS(model::plan_from_shapes({"1x2x3"}, ph), InputError);
}

TEST_CASE("every real TVMScript fixture with a GEMM is estimable (issue 12 item 5)") {
  const std::string dir = tc_test::shared_path("fixtures/real");
  if (dir.empty()) return;  // ../shared is absent
  // symbols no phase policy can know (the error names them and says --bind): the vocabulary of fixture 01's
  // symbolic lm_head, the free dims a, c and k of the old Relax matmul tests
  const std::map<std::string, std::map<std::string, std::int64_t>> binds = {
      {"01_mlc_llama2_13b_q4f16_1_batched_whole_module.py", {{"vocab_size", 32000}}},
      {"20_tvm2023_old_relax_matmul_symbolic_before.py", {{"a", 2}, {"c", 3}, {"k", 16}}},
      {"21_tvm2023_old_relax_matmul_symbolic_legalized.py", {{"a", 2}, {"c", 3}, {"k", 16}}}};
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".py") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  // the fp32 fixtures (04, 11) need an array with fp32 MACs: the edge NPU's with one every 4 cycles
  cost::Estimator est(arch::load_arch("edge-npu-32x32", presets_dir(),
                                      {arch::parse_override("macs_per_pe_per_cycle.fp32=0.25"),
                                       arch::parse_override("energy_pj.mac.fp32=4.0")}),
                      mapping::parse_dataflow("os"));
  int with_gemm = 0, estimable = 0;
  for (const auto& f : files) {
    const std::string name = std::filesystem::path(f).filename().string();
    INFO(name);
    const ExtractResult ex = extract_workloads(ir::load_module(f));
    bool gemm = false;
    for (const auto& w : ex.workloads) gemm = gemm || w.shape_known;
    if (!gemm) continue;
    ++with_gemm;
    model::Phases ph;
    ph.seq_len = 64;
    ph.context = 64;
    if (const auto it = binds.find(name); it != binds.end()) ph.bindings = it->second;
    try {
      const model::Model m = model::plan_from_extract(f, ex, ph, std::nullopt);
      const auto r = model::run_model(est, m, std::nullopt);
      bool positive = !r.totals.empty();
      for (const auto& [entry, t] : r.totals) positive = positive && t.latency_s > 0;
      CHECK(positive);
      estimable += positive ? 1 : 0;
    } catch (const InputError& e) {
      FAIL_CHECK(e.what());
    }
  }
  WARN(estimable << " of " << with_gemm << " real TVMScript fixtures with a GEMM are estimable");
  CHECK(with_gemm >= 25);
  CHECK(estimable == with_gemm);
}

TEST_CASE("a dump's attention GEMMs: score.V is attention-pv, as the synthesized attention (issue 22)") {
  // tests/fixtures/extract/attention_kinds.py: decode QK^T / score.V with n keys, static prefill pair (256 tokens)
  model::Phases ph;
  ph.bindings = {{"n", 2048}};
  const model::Model m = model::plan_from_dump(tc_test::fixture("extract/attention_kinds.py"), ph, std::nullopt);
  auto gemm = [&](const std::string& f) -> const model::ModelGemm& {
    const auto it = std::find_if(m.gemms.begin(), m.gemms.end(), [&](const auto& g) { return g.function == f; });
    REQUIRE(it != m.gemms.end());
    return *it;
  };
  // symbolic: the token axis is K (score.V) or N (QK^T); static: the cache is read NT (QK^T) or NN (score.V)
  CHECK(gemm("NT_matmul_decode_qk").shape.role == quant::GemmRole::kAttnQK);
  CHECK(gemm("matmul_decode_pv").shape.role == quant::GemmRole::kAttnPV);
  CHECK(gemm("NT_matmul_prefill_qk").shape.role == quant::GemmRole::kAttnQK);
  CHECK(gemm("matmul_prefill_pv").shape.role == quant::GemmRole::kAttnPV);

  // +kv8: one fp16 scale per cached token and head, for K and for V alike: 32 heads x 2048 keys x 2 bytes
  // (as the QK role, V's scale would run along head_dim: 32 x 128 x 2 bytes)
  cost::Estimator est = estimator();
  const auto kv8 = quant::parse_scheme("w4a16-g128+kv8");
  const auto pv = model::gemm_cost(est, gemm("matmul_decode_pv"), kv8);
  const auto qk = model::gemm_cost(est, gemm("NT_matmul_decode_qk"), kv8);
  CHECK(pv.scale_dram_bytes == 32 * 2048 * 2);
  CHECK(qk.scale_dram_bytes == 32 * 2048 * 2);

  // the synthesized decode attention of a 32-head, head_dim-128 config at 2048 keys costs the same
  model::Phases hp;
  hp.context = 2048;
  const auto cfg = model::load_hf_config(std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json");
  const auto synth = model::workloads_from_config(cfg, hp);
  const auto spv = std::find_if(synth.begin(), synth.end(), [](const auto& g) {
    return g.phase == model::Phase::kDecode && g.shape.role == quant::GemmRole::kAttnPV;
  });
  REQUIRE(spv != synth.end());
  CHECK(spv->shape.batch == gemm("matmul_decode_pv").shape.batch);
  CHECK(spv->shape.m == gemm("matmul_decode_pv").shape.m);
  CHECK(spv->shape.n == gemm("matmul_decode_pv").shape.n);
  CHECK(spv->shape.k == gemm("matmul_decode_pv").shape.k);
  CHECK(model::gemm_cost(est, *spv, kv8).scale_dram_bytes == pv.scale_dram_bytes);
}

TEST_CASE("shipped fixture 03: its batched score.V GEMMs matmul2 / matmul8 are attention-pv (issue 22)") {
  const std::string path = tc_test::shared_path("fixtures/real/03_mlc_llama7b_q4_fused_decode_matmul_whole_module.py");
  if (path.empty()) return;  // ../shared is not there
  const model::Model m = model::plan_from_dump(path, model::Phases{}, std::nullopt);
  int pv = 0;
  for (const auto& g : m.gemms) {
    if (g.function == "matmul2" || g.function == "matmul8") {
      CHECK(g.shape.role == quant::GemmRole::kAttnPV);
      ++pv;
    }
    if (g.function.find("NT_matmul2_divide") != std::string::npos) CHECK(g.shape.role == quant::GemmRole::kAttnQK);
  }
  CHECK(pv >= 2);
}

TEST_CASE("held-back GQA attention pair (static): QK^T and score.V told apart by the cache operand's layout") {
  const model::Model m =
      model::plan_from_dump(tc_test::fixture("extract/issue22_holdback.py"), model::Phases{}, std::nullopt);
  for (const auto& g : m.gemms) {
    if (g.function == "NT_matmul_gqa_qk") CHECK(g.shape.role == quant::GemmRole::kAttnQK);
    if (g.function == "matmul_gqa_pv") CHECK(g.shape.role == quant::GemmRole::kAttnPV);
    if (g.function == "int8_wmma_requant") CHECK(g.dump_scheme->name == "w8a8-token-channel");
  }
}
