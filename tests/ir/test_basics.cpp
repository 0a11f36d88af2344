// The public IR helpers (make_*, to_string) and small parse round trips.
#include <catch2/catch.hpp>

#include "ir_walk.hpp"
#include "tenet_cost/ir.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;
using namespace ir_test;

namespace {
// The value stored by the single store of a one-block prim_func whose body is `stmt`.
ExprPtr stored(const std::string& value, const std::string& decls = "") {
  const std::string text =
      "@T.prim_func\n"
      "def f(A: T.Buffer((8, 8), \"float16\"), B: T.Buffer((8,), \"int32\"), C: T.Buffer((8, 8), \"float32\")):\n" +
      decls +
      "    for i, j in T.grid(8, 8):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            C[vi, vj] = " + value + "\n";
  const Module m = parse_tvmscript(text, "t.py");
  const auto st = stores(m.prim_funcs.at(0).body);
  REQUIRE(st.size() == 1);
  return st[0]->value;
}
std::string round_trip(const std::string& value) { return to_string(*stored(value)); }
}  // namespace

TEST_CASE("make_* build the documented nodes") {
  const auto k = make_var("v_k", "int64");
  const auto e = make_binary(BinOp::kFloorDiv, k, make_int(8, "int64"));
  CHECK(to_string(*e) == "v_k // T.int64(8)");
  CHECK(e->dtype == "int64");
  CHECK(to_string(*make_cast("uint32", make_binary(BinOp::kFloorMod, k, make_int(8)))) ==
        "T.Cast(\"uint32\", v_k % 8)");
  CHECK(to_string(*make_call("shift_right", {make_load("W", {k}), make_int(4, "uint32")}, "uint32")) ==
        "T.shift_right(W[v_k], T.uint32(4))");
  CHECK(to_string(*make_float(7, "float16")) == "T.float16(7)");
  CHECK(to_string(*make_float(0.5)) == "T.float32(0.5)");
  CHECK(make_binary(BinOp::kLt, k, make_int(3))->dtype == "bool");
  CHECK(to_string(*make_load("B", {})) == "B[()]");
  CHECK(make_int(5)->dtype == "int32");
  CHECK(make_var("n")->kind == ExprKind::kVar);
}

TEST_CASE("to_string parenthesizes by Python precedence") {
  const auto a = make_var("a"), b = make_var("b"), c = make_var("c");
  CHECK(to_string(*make_binary(BinOp::kMul, make_binary(BinOp::kAdd, a, b), c)) == "(a + b) * c");
  CHECK(to_string(*make_binary(BinOp::kAdd, make_binary(BinOp::kMul, a, b), c)) == "a * b + c");
  CHECK(to_string(*make_binary(BinOp::kSub, a, make_binary(BinOp::kSub, b, c))) == "a - (b - c)");
  CHECK(to_string(*make_binary(BinOp::kSub, make_binary(BinOp::kSub, a, b), c)) == "a - b - c");
  CHECK(to_string(*make_binary(BinOp::kEq, make_binary(BinOp::kLt, a, b), c)) == "(a < b) == c");
  CHECK(to_string(*make_binary(BinOp::kAnd, make_binary(BinOp::kOr, a, b), c)) == "(a or b) and c");
  CHECK(to_string(*make_binary(BinOp::kMax, a, b)) == "T.max(a, b)");
}

TEST_CASE("expressions round-trip through the parser and the printer") {
  for (const char* s : {"A[vi, vj] * T.float16(2)", "T.Cast(\"float32\", A[vi, vj])", "(A[vi, vj] - T.float16(7)) * A[vj, vi]",
                        "T.Cast(\"float32\", A[B[vi], vj // 2])", "T.if_then_else(vi < 4, T.float32(1), T.float32(0))",
                        "T.Select(vi < vj, T.float32(-65504), T.float32(65504))", "T.max(T.float32(0), T.exp(T.float32(1)))",
                        "T.reinterpret(\"float32\", T.shift_left(T.Cast(\"uint32\", B[vi]), T.uint32(16)))"})
    CHECK(round_trip(s) == s);
  CHECK(round_trip("T.cast(A[vi, vj], \"float32\")") == "T.Cast(\"float32\", A[vi, vj])");
  CHECK(round_trip("T.float32(3.4028234663852886e+38)") == "T.float32(3.4028234663852886e+38)");
  CHECK(round_trip("-T.float32(1)") == "-T.float32(1)");
  CHECK(round_trip("T.float32(-1)") == "T.float32(-1)");
  CHECK(round_trip("T.float32(\"-inf\")") == "T.float32(\"-inf\")");
  CHECK(round_trip("T.float32(vi)") == "T.Cast(\"float32\", vi)");
  CHECK(round_trip("vi >> 2 & 3 | 1 ^ vj << 1") == "vi >> 2 & 3 | 1 ^ vj << 1");
  CHECK(round_trip("~vi + -vj ** 2") == "~vi + -T.pow(vj, 2)");
}

TEST_CASE("dtypes are tracked through vars, loads and operators") {
  CHECK(stored("A[vi, vj]")->dtype == "float16");
  CHECK(stored("A[vi, vj] + C[vi, vj]")->dtype == "float16");
  CHECK(stored("vi < vj")->dtype == "bool");
  CHECK(stored("T.Cast(\"float32\", vi)")->args[0]->dtype == "int32");  // iter var of an int32 loop
  CHECK(stored("T.int64(4) * n", "    n = T.int64()\n")->dtype == "int64");
  CHECK(stored("2147483648")->dtype == "int64");
  CHECK(stored("T.uint32(4294967295)")->int_value == 4294967295LL);
  CHECK(stored("T.bool(1)")->kind == ExprKind::kBool);
}

TEST_CASE("equal expressions within a function are one shared node") {
  const Module m = parse_tvmscript(
      "@T.prim_func\n"
      "def f(A: T.Buffer((8,), \"float32\")):\n"
      "    for i in range(8):\n"
      "        with T.block(\"A\"):\n"
      "            vi = T.axis.spatial(8, i)\n"
      "            T.reads(A[vi])\n"
      "            T.writes(A[vi])\n"
      "            A[vi] = A[vi] + A[vi]\n",
      "t.py");
  const Block* b = find_block(m.prim_funcs.at(0), "A");
  REQUIRE(b != nullptr);
  const auto& v = stores(b->body)[0]->value;
  CHECK(v->args[0].get() == v->args[1].get());
  CHECK(b->reads[0].region[0].min.get() == b->writes[0].region[0].min.get());
  CHECK(v->args[0]->loc.line == 8);
  CHECK(v->args[0]->loc.file == "t.py");
}

TEST_CASE("CRLF line endings, tabs, a BOM and a missing final newline are accepted") {
  const std::string text =
      "\xEF\xBB\xBF@T.prim_func\r\ndef f(A: T.Buffer((4,), \"float32\")):\r\n\tfor i in range(4):\r\n\t\tA[i] = T.float32(0)";
  const Module m = parse_tvmscript(text, "t.py");
  REQUIRE(m.prim_funcs.size() == 1);
  CHECK(stores(m.prim_funcs[0].body).size() == 1);
}
