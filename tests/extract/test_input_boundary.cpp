// Silent wrong numbers refused at the input boundary (issue 28 item 5, docs/reliability.md "Silent wrong
// numbers"): typed literals outside their type's range and packing divisors no storage word can hold.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tenet_cost/error.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"

using namespace tenet_cost;

namespace {

std::string q8_gemv() {
  std::ifstream in(std::string(TC_FIXTURE_DIR) + "/extract/q8f16_1_gemv.py", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

const Workload& the_gemm(const ExtractResult& r) {
  REQUIRE(r.workloads.size() == 1);
  return r.workloads[0];
}

}  // namespace

TEST_CASE("typed literals outside their type's range are refused with line:col") {
  const std::string text = q8_gemv();
  // The unmutated mask T.uint32(255): 8-bit weights, 4 per uint32.
  const auto base = extract_workloads(ir::parse_tvmscript(text, "q8.py"));
  CHECK(the_gemm(base).quant.weight_bits == 8);
  CHECK(the_gemm(base).quant.elems_per_storage == 4);
  for (const char* bad : {"T.uint32(9223372036854775807)", "T.uint32(4294967296)", "T.uint32(-1)"}) {
    INFO(bad);
    CHECK_THROWS_WITH(ir::parse_tvmscript(replaced(text, "T.uint32(255)", bad), "q8.py"),
                      Catch::Matches("q8\\.py:18:[0-9]+: expected a literal of type uint32 within \\[0, "
                                     "4294967295\\], found -?[0-9]+"));
  }
  // The edges of the range are valid literals.
  CHECK_NOTHROW(ir::parse_tvmscript(replaced(text, "T.uint32(255)", "T.uint32(4294967295)"), "q8.py"));
  CHECK_NOTHROW(ir::parse_tvmscript(replaced(text, "T.float16(127)", "T.int8(-128)"), "q8.py"));
  CHECK_THROWS_WITH(ir::parse_tvmscript(replaced(text, "T.float16(127)", "T.int8(128)"), "q8.py"),
                    Catch::Contains("expected a literal of type int8 within [-128, 127], found 128"));
  CHECK_THROWS_WITH(ir::parse_tvmscript(replaced(text, "T.float16(127)", "T.int32(2147483648)"), "q8.py"),
                    Catch::Contains("int32 within [-2147483648, 2147483647], found 2147483648"));
  CHECK_NOTHROW(ir::parse_tvmscript(replaced(text, "T.float16(127)", "T.int64(-9223372036854775808)"), "q8.py"));
}

TEST_CASE("a packing divisor larger than the storage word's bits never wraps elems_per_storage") {
  const std::string text = q8_gemv();
  // Both places the packed load appears (T.reads and the store) divide by 2^31.
  std::string big = replaced(text, "w[v_i0, v_i1 // T.int64(4)]", "w[v_i0, v_i1 // T.int64(2147483648)]");
  big = replaced(big, "w[v_i0, v_i1 // T.int64(4)]", "w[v_i0, v_i1 // T.int64(2147483648)]");
  const auto r = extract_workloads(ir::parse_tvmscript(big, "q8.py"));
  const Workload& w = the_gemm(r);
  CHECK(w.quant.weight_bits == 8);
  CHECK(w.quant.elems_per_storage == 4);  // from 32 / 8, not static_cast<int>(2^31)
}

TEST_CASE("a module defined twice is refused; prim_funcs alone may repeat a name") {
  const std::string text = q8_gemv();
  const auto once = extract_workloads(ir::parse_tvmscript(text, "q8.py"));
  REQUIRE(once.workloads.size() == 1);
  // `cat m.py m.py`, with or without blank lines between: every figure would double.
  for (const std::string& sep : {std::string(), std::string("\n"), std::string("\n\n  \n")}) {
    INFO("separator of " << sep.size() << " bytes");
    CHECK_THROWS_WITH(ir::parse_tvmscript(text + sep + text, "q8.py"),
                      Catch::Matches("q8\\.py:[0-9]+:1: expected one module, found the text of lines 1-[0-9]+ "
                                     "again from here \\(a dump concatenated with itself\\?\\)"));
  }
  // Two Relax functions of one name, anywhere in the file.
  const std::string relax = std::string(TC_FIXTURE_DIR) + "/extract/relax_matmul.py";
  std::ifstream in(relax, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  const std::string r = s.str();
  REQUIRE_NOTHROW(ir::parse_tvmscript(r, "r.py"));
  CHECK_THROWS_WITH(ir::parse_tvmscript(r + "\n" + r + "\n# a comment\n", "r.py"),
                    Catch::Contains("expected each Relax function once in a module, found 'main' again"));
  // Bare prim_funcs that repeat one name but not the whole text stay valid (shared fixtures 17/18).
  const auto at = text.find("    @T.prim_func");
  REQUIRE(at != std::string::npos);
  std::string funcs;  // the prim_func dedented to the top level
  std::istringstream lines(text.substr(at));
  for (std::string line; std::getline(lines, line);) funcs += (line.size() >= 4 ? line.substr(4) : line) + "\n";
  const std::string header = "# from tvm.script import tir as T\n\n";
  const auto two = ir::parse_tvmscript(header + funcs + "\n" + funcs, "p.py");
  CHECK(two.prim_funcs.size() == 2);
  CHECK_THROWS(ir::parse_tvmscript(header + funcs + header + funcs, "p.py"));
}

TEST_CASE("a negative extent in a Relax tensor's shape is refused; R.shape keeps reshape's -1") {
  std::ifstream in(std::string(TC_FIXTURE_DIR) + "/extract/relax_lowered_calls.py", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  // prefill's `x: R.Tensor(("n", 4096))` as (-1, 4096): the add it feeds had -4096 ops.
  CHECK_THROWS_WITH(ir::parse_tvmscript(replaced(text, "x: R.Tensor((\"n\", 4096)", "x: R.Tensor((-1, 4096)"), "r.py"),
                    Catch::Matches("r\\.py:[0-9]+:[0-9]+: expected a non-negative tensor dimension, found -1"));
  CHECK_THROWS_WITH(
      ir::parse_tvmscript(replaced(text, "R.Tensor((1, 4096)", "R.Tensor((1, -9223372036854775808)"), "r.py"),
      Catch::Contains("found -9223372036854775808"));
  CHECK_NOTHROW(ir::parse_tvmscript(replaced(text, "R.shape([n, 4096])", "R.shape([-1, 4096])"), "r.py"));
}
