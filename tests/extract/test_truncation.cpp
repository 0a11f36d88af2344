// Truncated dumps (issue 13 item 7, docs/ir-formats.md "Truncated dumps"): a dump cut after
// any line is either refused with an InputError naming the line ("(truncated dump?)") or
// gives exactly the whole file's extraction result, never a silently smaller one.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/report.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// An extraction result as JSON, without the list of entry functions.
std::string json_of(ExtractResult r) {
  r.entries.clear();
  return report::extract_json(r);
}

// What a module gives: the whole result and each entry's (`--entry E`).
struct Results {
  std::string all;
  std::map<std::string, std::string> per_entry;
};

Results results_of(const ir::Module& m) {
  Results out;
  const ExtractResult r = extract_workloads(m);
  out.all = json_of(r);
  for (const auto& e : r.entries) {
    ExtractOptions o;
    o.entry = e;
    out.per_entry[e] = json_of(extract_workloads(m, o));
  }
  return out;
}

// Offsets just after each '\n'.
std::vector<std::size_t> line_ends(const std::string& text) {
  std::vector<std::size_t> ends;
  for (std::size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', p + 1)) ends.push_back(p + 1);
  return ends;
}

struct Tally {
  std::size_t refused = 0, identical = 0;
};

// Every cut after a line of `path` (every `stride`-th line when stride > 1) is refused with an
// InputError or gives the whole file's result: without Relax functions, the same result; with
// them, the same result for every entry function the cut keeps (a cut exactly between two whole
// Relax functions leaves a valid module with fewer entries; docs/ir-formats.md "Truncated dumps").
Tally check_cuts(const std::string& path, std::size_t stride = 1) {
  const std::string text = slurp(path);
  REQUIRE(!text.empty());
  const Results whole = results_of(ir::parse_tvmscript(text, path));
  const auto ends = line_ends(text);
  Tally t;
  for (std::size_t line = 0; line < ends.size(); line += stride) {
    if (ends[line] >= text.size()) continue;  // the whole file
    INFO(path << " cut after line " << line + 1);
    std::optional<ir::Module> m;
    try {
      m = ir::parse_tvmscript(text.substr(0, ends[line]), path);
    } catch (const InputError&) {
      ++t.refused;
      continue;
    }
    const Results got = results_of(*m);
    if (got.per_entry.empty()) {
      CHECK(got.all == whole.all);
    } else {
      for (const auto& [e, r] : got.per_entry) {
        INFO("entry " << e);
        REQUIRE(whole.per_entry.count(e) == 1);
        CHECK(r == whole.per_entry.at(e));
      }
    }
    ++t.identical;
  }
  return t;
}

}  // namespace

TEST_CASE("truncation: every Relax function needs its return, every dataflow block its R.output") {
  const std::string head =
      "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
      "    @R.function\n    def main(x: R.Tensor((2, 3), dtype=\"float16\"), w: R.Tensor((3, 4), dtype=\"float16\")):\n"
      "        with R.dataflow():\n            lv = R.matmul(x, w)\n";
  CHECK_NOTHROW(ir::parse_tvmscript(head + "            R.output(lv)\n        return lv\n", "m.py"));
  try {
    (void)ir::parse_tvmscript(head + "            R.output(lv)\n", "m.py");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "m.py:8:9: expected 'return' at the end of Relax function 'main', found "
          "'with R.dataflow():' (truncated dump?)");
  }
  try {
    (void)ir::parse_tvmscript(head, "m.py");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "m.py:9:13: expected R.output(...) at the end of the dataflow block of Relax "
          "function 'main', found 'lv = R.matmul(x, w)' (truncated dump?)");
  }
}

TEST_CASE("truncation: a block or prim_func that stops after its declarations") {
  const std::string head =
      "# from tvm.script import tir as T\n@T.prim_func\ndef mm(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4, 4), "
      "\"float32\"), C: T.Buffer((4, 4), \"float32\")):\n    for i, j, k in T.grid(4, 4, 4):\n        with "
      "T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n            T.reads(A[vi, vk], B[vk, vj])\n"
      "            T.writes(C[vi, vj])\n            with T.init():\n                C[vi, vj] = T.float32(0)\n";
  CHECK_NOTHROW(ir::parse_tvmscript(head + "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n", "k.py"));
  try {
    (void)ir::parse_tvmscript(head, "k.py");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "k.py:9:13: expected the body of block 'C' after its declarations, found the end "
          "of the block (truncated dump?)");
  }
  CHECK_THROWS_WITH(
      ir::parse_tvmscript("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    T.func_attr({})\n", "f.py"),
      Catch::Contains("f.py:3:5: expected the body of prim_func 'f'") && Catch::Contains("truncated dump?"));
}

TEST_CASE("truncation: a module cut between functions") {
  const std::string prim =
      "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script import relax as R\n\n"
      "@I.ir_module\nclass Module:\n    @T.prim_func(private=True)\n    def add(A: T.Buffer((4,), \"float32\"), B: "
      "T.Buffer((4,), \"float32\")):\n        for i in range(4):\n            with T.block(\"b\"):\n"
      "                vi = T.axis.spatial(4, i)\n                B[vi] = A[vi] + T.float32(1)\n\n";
  // the header imports relax, but no Relax function follows
  CHECK_THROWS_WITH(ir::parse_tvmscript(prim, "c.py"),
                    Catch::StartsWith("c.py:13:1: expected a Relax function (the header imports 'relax as R')") &&
                        Catch::EndsWith("(truncated dump?)"));
  const std::string caller =
      "    @R.function\n    def main(x: R.Tensor((4,), dtype=\"float32\")):\n        cls = Module\n"
      "        y = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
      "        return y\n";
  CHECK_NOTHROW(ir::parse_tvmscript(prim + caller, "c.py"));
  // a prim_func nobody calls is legal (DeadCodeElimination keeps public ones): listed with calls {}
  const std::string other = "    @R.function\n    def other(x: R.Tensor((4,), dtype=\"float32\")):\n        return x\n";
  const ExtractResult r = extract_workloads(ir::parse_tvmscript(prim + other, "c.py"));
  REQUIRE(r.operators.size() == 1);
  CHECK(r.operators[0].function == "add");
  CHECK(r.operators[0].calls.empty());
  // a call of a function the file does not define: the module was cut (or edited)
  const std::string dangling =
      "    @R.function\n    def main(x: R.Tensor((4,), dtype=\"float32\")):\n        cls = Module\n"
      "        y = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
      "        z = cls.helper(y)\n        return z\n";
  CHECK_THROWS_WITH(ir::parse_tvmscript(prim + dangling, "c.py"),
                    Catch::Equals("c.py:18:9: expected a function 'helper' in the module (Relax function 'main' "
                                  "calls it), found none (truncated dump?)"));
}

TEST_CASE("truncation: a prim_func cut at a block boundary (its output never written) is refused") {
  const std::string head =
      "# from tvm.script import tir as T\n@T.prim_func\ndef mm_add(A: T.Buffer((4, 4), \"float32\"), B: "
      "T.Buffer((4, 4), \"float32\"), D: T.Buffer((4, 4), \"float32\")):\n"
      "    C = T.alloc_buffer((4, 4))\n    for i, j, k in T.grid(4, 4, 4):\n        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n            with T.init():\n"
      "                C[vi, vj] = T.float32(0)\n            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  const std::string tail =
      "    for i, j in T.grid(4, 4):\n        with T.block(\"D\"):\n            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            D[vi, vj] = C[vi, vj] + T.float32(1)\n";
  const ExtractResult whole = extract_workloads(ir::parse_tvmscript(head + tail, "k.py"));
  REQUIRE(whole.workloads.size() == 1);
  CHECK_THROWS_WITH(ir::parse_tvmscript(head, "k.py"),
                    Catch::Equals("k.py:10:13: expected prim_func 'mm_add' to write its output 'D' (its last buffer "
                                  "parameter), found a body that never uses it (truncated dump?)"));
  // a stub that computes nothing (`T.evaluate(0)`, as in TVM's pass tests) is whole
  CHECK_NOTHROW(ir::parse_tvmscript(
      "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n    T.evaluate(0)\n",
      "s.py"));
}

TEST_CASE("truncation: every cut of the shipped models is refused or complete") {
  // the two qwen2-0.5b dumps at every line, the llama-2-7b ones at every 7th (the test's time)
  for (const auto& [m, stride] : std::vector<std::pair<const char*, std::size_t>>{{"qwen2-0.5b/q0f16.py", 1},
                                                                                  {"qwen2-0.5b/q4f16_1.py", 1},
                                                                                  {"llama-2-7b/q0f16.py", 7},
                                                                                  {"llama-2-7b/q4f16_1.py", 7}}) {
    const Tally t = check_cuts(std::string(TC_SOURCE_DIR) + "/workloads/" + m, stride);
    INFO(m << ": " << t.refused << " refused, " << t.identical << " identical");
    CHECK(t.refused > 300);
  }
}

TEST_CASE("truncation: every cut of the project's and the shared fixtures is refused or complete") {
  for (const char* f : {"extract/mini_llm_q4f16_1.py", "extract/relax_matmul.py", "extract/relax_nested_calls.py",
                        "extract/conv2d_dilated.py", "extract/q8f16_1_gemv.py", "extract/relax_lowered_calls.py",
                        "extract/relax_dist_inplace_grad.py", "extract/unused_prim_func.py"})
    check_cuts(tc_test::fixture(f));
  for (const char* f :
       {"01_mlc_llama2_13b_q4f16_1_batched_whole_module.py", "02_mlc_llama7b_fp16_relax_before_quantize.py",
        "03_mlc_llama7b_q4_fused_decode_matmul_whole_module.py", "06_tvm_dlight_attention_qk_gemv_symbolic_n.py",
        "07_tvm_dlight_q4f16_1_decode_gemv_int32dims.py", "08_tvm_dlight_q4f16_1_decode_gemv3_down_proj.py",
        "09_tvm_dlight_autogptq_decode_gemv.py", "10_tvm_dlight_q4_low_batch_gemv_batch_size.py",
        "11_tvm_dlight_fp32_matmul_symbolic_m.py", "12_tvm_dlight_q4f16_1_dequant_matmul_fp32_accum.py",
        "13_tvm_dlight_q4_KN_fused_dequant_matmul_bias.py", "14_tvm_dlight_fp16_NT_matmul_inline_consumer.py",
        "15_tvm_dlight_conv3d.py", "16_mlc_ft_quant_fastertransformer_gemm_relax.py",
        "20_tvm2023_old_relax_matmul_symbolic_before.py", "21_tvm2023_old_relax_matmul_symbolic_legalized.py",
        "22_tvm2022_old_tbuffer_brackets_matmul_relu_tensorcore.py",
        "23_tvm2026_tirx_sblock_q4f16_1_lm_head_gemv_before.py", "25_tvm_dlight_q4f16_1_lm_head_gemv_scheduled.py"}) {
    const std::string p = tc_test::shared_path(std::string("fixtures/real/") + f);
    if (p.empty()) continue;  // ../shared absent
    check_cuts(p);
  }
}

TEST_CASE("truncation (held back): a module after DeadCodeElimination keeps an unused public prim_func") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/unused_prim_func.py")));
  REQUIRE(r.workloads.size() == 2);
  const Workload& kept = r.workloads[0];
  const Workload& mm = r.workloads[1];
  CHECK(kept.function == "gemm_kept");
  CHECK(kept.m == Dim::constant(16));
  CHECK(kept.n == Dim::constant(8));
  CHECK(kept.k == Dim::constant(32));
  CHECK(kept.calls.empty());
  CHECK(mm.function == "matmul");
  CHECK(mm.m == Dim::constant(4));
  CHECK(mm.n == Dim::constant(8));
  CHECK(mm.k == Dim::constant(16));
  CHECK(mm.calls == std::map<std::string, std::int64_t>{{"main", 1}});
}
