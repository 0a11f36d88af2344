// The IR printer (tenet_cost/ir_printer.hpp): hand-written expected texts, and the round trip print -> parse ->
// print as a fixed point on every fixture of the project and on ../shared/fixtures/real.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/ir_build.hpp"
#include "tenet_cost/ir_printer.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;

namespace {

Module parse(const std::string& text) {
  ParseOptions opt;
  opt.threads = 1;
  opt.require_whole_module = false;
  return parse_tvmscript(text, "printed.py", opt);
}

// "" when equal, else the first differing line of each.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ea = !std::getline(sa, la), eb = !std::getline(sb, lb);
    if (ea && eb) return "";
    if (ea || eb || la != lb)
      return "line " + std::to_string(line) + ":\n  first:  " + (ea ? "<end>" : la) +
             "\n  second: " + (eb ? "<end>" : lb);
  }
}

// print(m), parsed and printed again, is the same text.
void check_fixed_point(const Module& m) {
  const std::string p1 = print(m);
  Module again;
  REQUIRE_NOTHROW(again = parse(p1));
  const std::string diff = first_difference(p1, print(again));
  INFO(diff);
  CHECK(diff.empty());
}

// The fixtures under `dir` with extension .py or .json that load; those that do not (inputs that are refused on
// purpose) are not this test's subject.
int round_trip_dir(const std::string& dir) {
  int n = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".py" || e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    Module m;
    ParseOptions opt;
    opt.require_whole_module = false;
    try {
      m = load_module(f.string(), opt);
    } catch (const InputError&) {
      continue;
    }
    INFO(f.string());
    check_fixed_point(m);
    ++n;
  }
  return n;
}

const char* const kSmall = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(A: T.Buffer((T.int64(4), T.int64(8)), "float16"), p_b: T.handle, n: T.int64):
        T.func_attr({"op_pattern": 4, "tir.noalias": True})
        B = T.match_buffer(p_b, (T.int64(8), n), "float16")
        C = T.alloc_buffer((T.int64(4), n), "float32", scope="shared")
        for i, j in T.grid(T.int64(4), n):
            for k in T.serial(T.int64(2), T.int64(8)):
                with T.block("C"):
                    v_i = T.axis.spatial(T.int64(4), i)
                    v_j = T.axis.spatial(n, j)
                    v_k = T.axis.reduce((T.int64(2), T.int64(8)), k)
                    T.reads(A[v_i, v_k], B[v_k, v_j])
                    T.writes(C[v_i, v_j])
                    with T.init():
                        C[v_i, v_j] = T.float32(0)
                    C[v_i, v_j] += T.Cast("float32", A[v_i, v_k] * B[v_k, v_j])

    @R.function
    def main(x: R.Tensor((4, "n"), dtype="float16"), w: R.Tensor((8, "n"), dtype="float16")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.mm, (x, w), out_sinfo=R.Tensor((4, n), dtype="float32"))
            gv: R.Tensor((4, n), dtype="float32") = lv
            R.output(gv)
        return gv
)";

const char* const kSmallPrinted = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(A: T.Buffer((T.int64(4), T.int64(8)), "float16"), p_b: T.handle, n: T.int64):
        T.func_attr({"op_pattern": 4, "tir.noalias": True})
        B = T.match_buffer(p_b, (T.int64(8), n), "float16")
        C = T.alloc_buffer((T.int64(4), n), "float32", scope="shared")
        for i in range(T.int64(4)):
            for j in range(n):
                for k in range(T.int64(2), T.int64(8)):
                    with T.block("C"):
                        v_i = T.axis.spatial(T.int64(4), i)
                        v_j = T.axis.spatial(n, j)
                        v_k = T.axis.reduce((T.int64(2), T.int64(8)), k)
                        T.reads(A[v_i, v_k], B[v_k, v_j])
                        T.writes(C[v_i, v_j])
                        with T.init():
                            C[v_i, v_j] = T.float32(0)
                        C[v_i, v_j] = C[v_i, v_j] + T.Cast("float32", A[v_i, v_k] * B[v_k, v_j])

    @R.function
    def main(x: R.Tensor((4, n), dtype="float16"), w: R.Tensor((8, n), dtype="float16")):
        n = T.int64()
        cls = Module
        lv = R.call_tir(cls.mm, (x, w), out_sinfo=R.Tensor((4, n), dtype="float32"))
        gv: R.Tensor((4, n), dtype="float32") = lv
        return gv
)";

}  // namespace

TEST_CASE("printer: a small module prints as the TVMScript TVM prints, in the IR's normal form", "[printer]") {
  const Module m = parse(kSmall);
  const std::string text = print(m);
  INFO(first_difference(text, kSmallPrinted));
  CHECK(text == kSmallPrinted);
  check_fixed_point(m);
}

TEST_CASE("printer: single nodes", "[printer]") {
  const Module m = parse(kSmall);
  const PrimFunc& f = m.prim_funcs.at(0);
  CHECK(print(*make_binary(BinOp::kFloorDiv, make_var("v_k"), make_int(8, "int64"))) == "v_k // T.int64(8)");
  CHECK(print(f.buffers.at("C")) == "C = T.alloc_buffer((T.int64(4), n), \"float32\", scope=\"shared\")");
  const RelaxFunc& r = m.relax_funcs.at(0);
  CHECK(print(*r.bindings.at(0).value) == "R.call_tir(cls.mm, (x, w), out_sinfo=R.Tensor((4, n), dtype=\"float32\"))");
  CHECK(print(*r.params.at(0).sinfo) == "R.Tensor((4, n), dtype=\"float16\")");
  // the alloc statement's scope is the rest of the function: the loops below it
  REQUIRE(f.body->kind == StmtKind::kAlloc);
  CHECK(print(*f.body->body).rfind("for i in range(T.int64(4)):\n    for j in range(n):\n", 0) == 0);
}

TEST_CASE("printer: print -> parse -> print is a fixed point on the project's fixtures", "[printer]") {
  int n = 0;
  for (const char* dir : {"ir", "ir_json", "extract"}) n += round_trip_dir(tc_test::fixture(dir));
  CHECK(n >= 40);
}

TEST_CASE("printer: print -> parse -> print is a fixed point on ../shared/fixtures/real", "[printer]") {
  const std::string dir = tc_test::shared_path("fixtures/real");
  if (dir.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "1") FAIL("../shared/fixtures/real is missing (CI=1)");
    WARN("../shared absent: skipping");
    return;
  }
  CHECK(round_trip_dir(dir) == 29);
}

TEST_CASE("statement builders make the readers' normal form (tenet_cost/ir_build.hpp)", "[printer]") {
  const ExprPtr i = make_var("i", "int64");
  const StmtPtr loop =
      make_for("i", make_int(4, "int64"),
               make_seq({make_store("B", {i}, make_binary(BinOp::kMul, make_load("A", {i}), make_float(2.0))),
                         make_if(make_binary(BinOp::kLt, i, make_int(2, "int64")), make_evaluate(make_int(0)))}));
  CHECK(loop->min->kind == ExprKind::kInt);  // a loop without a min starts at 0 of the extent's dtype
  CHECK(loop->min->dtype == "int64");
  CHECK(print(*loop) ==
        "for i in range(T.int64(4)):\n"
        "    B[i] = A[i] * T.float32(2)\n"
        "    if i < T.int64(2):\n"
        "        T.evaluate(0)\n");
  Block b;
  b.name = "b";
  b.iter_vars = {make_iter_var("v", IterKind::kReduce, make_int(8), i)};
  b.body = make_let("x", make_int(1), make_evaluate(make_var("x")));
  Buffer buf;
  buf.name = "S";
  buf.dtype = "float16";
  buf.shape = {make_int(8)};
  const StmtPtr alloc = make_alloc(buf, make_block(std::move(b)));
  CHECK(print(*alloc) ==
        "S = T.alloc_buffer((8,), \"float16\")\n"
        "with T.block(\"b\"):\n"
        "    v = T.axis.reduce(8, i)\n"
        "    T.reads()\n"
        "    T.writes()\n"
        "    with T.LetStmt(1, var=x):\n"
        "        T.evaluate(x)\n");
}
