// Truncated dumps (issue 13 item 7, docs/ir-formats.md "Truncated dumps"): a dump cut after
// any line is either refused with an InputError naming the line ("(truncated dump?)") or
// gives exactly the whole file's extraction result, never a silently smaller one.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
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

// The extraction result without the list of entry functions: a cut exactly between two
// functions that drops only Relax functions without a GEMM, an attention call or a prim_func
// call (fixture 02's trailing `softmax_with_temperature`) cannot be told from a whole module;
// it changes nothing but that list (docs/ir-formats.md "Truncated dumps").
std::string result_of(const std::string& text, const std::string& name) {
  ExtractResult r = extract_workloads(ir::parse_tvmscript(text, name));
  r.entries.clear();
  return report::extract_json(r);
}

// Offsets just after each '\n'.
std::vector<std::size_t> line_ends(const std::string& text) {
  std::vector<std::size_t> ends;
  for (std::size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', p + 1)) ends.push_back(p + 1);
  return ends;
}

// Every cut of a small file; in a large one every `stride`-th line plus every line next to a
// function boundary, a `return` or an `R.output` (where a cut is hardest to notice).
std::set<std::size_t> cut_lines(const std::string& text, std::size_t stride) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::set<std::size_t> cuts;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const bool boundary = l.find_first_not_of(' ') == std::string::npos ||
                          l.find("@T.prim_func") != std::string::npos || l.find("@R.function") != std::string::npos ||
                          l.find("return") != std::string::npos || l.find("R.output") != std::string::npos ||
                          l.find("T.init()") != std::string::npos;
    if (i % stride == 0 || boundary)
      for (std::size_t j = i == 0 ? 0 : i - 1; j <= i + 1 && j < lines.size(); ++j) cuts.insert(j);
  }
  return cuts;
}

struct Tally {
  std::size_t refused = 0, identical = 0;
};

Tally check_cuts(const std::string& path, std::size_t stride) {
  const std::string text = slurp(path);
  REQUIRE(!text.empty());
  const std::string whole = result_of(text, path);
  const auto ends = line_ends(text);
  Tally t;
  for (std::size_t line : cut_lines(text, stride)) {
    if (line >= ends.size() || ends[line] >= text.size()) continue;  // the whole file
    const std::string prefix = text.substr(0, ends[line]);
    INFO(path << " cut after line " << line + 1);
    try {
      const std::string got = result_of(prefix, path);
      CHECK(got == whole);
      ++t.identical;
    } catch (const InputError& e) {
      ++t.refused;
    }
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
  // a private prim_func nobody calls: the Relax function calling it was cut
  const std::string other = "    @R.function\n    def other(x: R.Tensor((4,), dtype=\"float32\")):\n        return x\n";
  CHECK_THROWS_WITH(ir::parse_tvmscript(prim + other, "c.py"),
                    Catch::StartsWith("c.py:7:5: expected a call of prim_func 'add' from a Relax function") &&
                        Catch::EndsWith("(truncated dump?)"));
}

TEST_CASE("truncation: every cut of the shipped models is refused or complete") {
  for (const char* m :
       {"llama-2-7b/q0f16.py", "llama-2-7b/q4f16_1.py", "qwen2-0.5b/q0f16.py", "qwen2-0.5b/q4f16_1.py"}) {
    const Tally t = check_cuts(std::string(TC_SOURCE_DIR) + "/workloads/" + m, 23);
    INFO(m << ": " << t.refused << " refused, " << t.identical << " identical");
    CHECK(t.refused > 100);
  }
}

TEST_CASE("truncation: every cut of the project's and the shared Relax fixtures is refused or complete") {
  for (const char* f : {"extract/mini_llm_q4f16_1.py", "extract/relax_matmul.py"}) check_cuts(tc_test::fixture(f), 1);
  for (const char* f :
       {"01_mlc_llama2_13b_q4f16_1_batched_whole_module.py", "02_mlc_llama7b_fp16_relax_before_quantize.py",
        "03_mlc_llama7b_q4_fused_decode_matmul_whole_module.py"}) {
    const std::string p = tc_test::shared_path(std::string("fixtures/real/") + f);
    if (p.empty()) continue;  // ../shared absent
    check_cuts(p, 17);
  }
}
