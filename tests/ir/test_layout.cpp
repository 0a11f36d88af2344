// The compact field types of ir.hpp: Loc/FileName, Vec, Box.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;

TEST_CASE("FileName interns names and reads like a string") {
  const FileName a = std::string("dir/some_rather_long_file_name_for_sso.py");
  const FileName b = "dir/some_rather_long_file_name_for_sso.py";
  CHECK(&a.str() == &b.str());  // one interned copy
  CHECK(a == b);
  CHECK(a == "dir/some_rather_long_file_name_for_sso.py");
  CHECK(a == std::string("dir/some_rather_long_file_name_for_sso.py"));
  CHECK_FALSE(a == "other.py");
  const FileName empty;
  CHECK(empty.empty());
  CHECK(empty.str().empty());
  CHECK(FileName("") == empty);
  const std::string& s = a;
  CHECK(s.size() == a.size());
}

TEST_CASE("Loc converts to and from SourceLocation") {
  const SourceLocation src{"t.py", 7, 3};
  const Loc l = src;
  CHECK(l.file == "t.py");
  CHECK(l.line == 7);
  CHECK(l.column == 3);
  CHECK(l.str() == src.str());
  const SourceLocation back = l;
  CHECK(back.file == "t.py");
  CHECK(back.line == 7);
  CHECK(back.column == 3);
  try {
    throw InputError(l, "expected X, found Y");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "t.py:7:3: expected X, found Y");
  }
  CHECK(sizeof(Loc) == 16);
}

TEST_CASE("Vec behaves like the std::vector operations the IR uses") {
  Vec<std::string> v;
  CHECK(v.empty());
  CHECK(v.size() == 0);
  CHECK(v.begin() == v.end());
  for (int i = 0; i < 100; ++i) v.push_back("s" + std::to_string(i));
  REQUIRE(v.size() == 100);
  CHECK(v.capacity() >= 100);
  CHECK(v.front() == "s0");
  CHECK(v.back() == "s99");
  CHECK(v[42] == "s42");
  CHECK(v.at(7) == "s7");
  CHECK_THROWS_AS(v.at(100), std::out_of_range);
  // emplace_back of an element of the vector itself while growing
  Vec<std::string> w{"a", "b"};
  w.reserve(2);
  w.emplace_back(w[0]);
  CHECK(w == std::vector<std::string>{"a", "b", "a"});
  // erase / insert
  w.erase(w.begin() + 1);
  CHECK(w == std::vector<std::string>{"a", "a"});
  w.insert(w.begin() + 1, std::string("m"));
  CHECK(w == std::vector<std::string>{"a", "m", "a"});
  const std::vector<std::string> more{"x", "y"};
  w.insert(w.begin(), more.begin(), more.end());
  CHECK(w == std::vector<std::string>{"x", "y", "a", "m", "a"});
  w.erase(w.begin(), w.begin() + 2);
  CHECK(w == std::vector<std::string>{"a", "m", "a"});
  // copies are deep, moves steal
  Vec<std::string> c = w;
  c[0] = "z";
  CHECK(w[0] == "a");
  Vec<std::string> m = std::move(c);
  CHECK(m.size() == 3);
  CHECK(m[0] == "z");
  // conversions
  std::vector<std::string> sv = m;
  CHECK(sv == std::vector<std::string>{"z", "m", "a"});
  Vec<std::string> from(sv);
  CHECK(from == m);
  from = {"q"};
  CHECK(from.size() == 1);
  from.pop_back();
  CHECK(from.empty());
  from.resize(3);
  CHECK(from.size() == 3);
  CHECK(from[2].empty());
  from.clear();
  CHECK(from.empty());
  int sum = 0;
  Vec<int> ints{1, 2, 3};
  for (const int x : ints) sum += x;
  CHECK(sum == 6);
  CHECK(sizeof(Vec<RExprPtr>) == 8);
}

TEST_CASE("Box is an out-of-line optional") {
  Box<Buffer> b;
  CHECK_FALSE(b);
  CHECK_FALSE(b.has_value());
  CHECK_THROWS_AS(b.value(), std::bad_optional_access);
  Buffer buf;
  buf.name = "A";
  buf.scope = "shared";
  b = buf;
  REQUIRE(b);
  CHECK(b->name == "A");
  CHECK((*b).scope == "shared");
  Box<Buffer> copy = b;
  copy->name = "B";
  CHECK(b->name == "A");  // deep copy
  b = std::nullopt;
  CHECK_FALSE(b);
  b.emplace().name = "C";
  CHECK(b.value().name == "C");
  b.reset();
  CHECK_FALSE(b);
  CHECK(sizeof(Box<Buffer>) == 8);
}

TEST_CASE("IR nodes keep their compact sizes") {
  // regressions here grow the memory of large dumps (docs/ir-formats.md, memory layout)
  // (with make_shared's 16-byte control block and malloc's 8-byte header, an
  // 88-byte node takes a 112-byte heap chunk, a 96-byte one 128)
  CHECK(sizeof(RExpr) <= 88);
  CHECK(sizeof(ir::Stmt) <= 216);
  CHECK(sizeof(Expr) <= 88);
  CHECK(sizeof(Binding) <= 56);
  CHECK(sizeof(StructInfo) <= 72);
  CHECK(sizeof(Symbol) == 8);
}

TEST_CASE("parsed nodes carry the file name and position") {
  const std::string text =
      "@T.prim_func\n"
      "def f(A: T.Buffer((8,), \"float32\")):\n"
      "    for i in range(8):\n"
      "        A[i] = T.float32(0)\n";
  const Module m = parse_tvmscript(text, "a/b/c/a_path_longer_than_fifteen_bytes.py");
  REQUIRE(m.prim_funcs.size() == 1);
  const auto& f = m.prim_funcs[0];
  CHECK(f.loc.file == "a/b/c/a_path_longer_than_fifteen_bytes.py");
  CHECK(f.loc.line == 1);  // a decorated def starts at its decorator
  REQUIRE(f.body);
  CHECK(f.body->kind == StmtKind::kFor);
  CHECK(f.body->loc.str() == "a/b/c/a_path_longer_than_fifteen_bytes.py:3:5");
  CHECK(&f.body->loc.file.str() == &f.loc.file.str());  // one shared name
}

TEST_CASE("RExpr::index is int32: larger tuple/metadata indices are input errors, not wrapped") {
  auto relax = [](const std::string& idx) {
    return "from tvm.script import relax as R\n\n"
           "@R.function\n"
           "def main(x: R.Tuple(R.Tensor((2,), dtype=\"float32\"))):\n"
           "    lv = x[" + idx + "]\n"
           "    return lv\n";
  };
  const Module ok = parse_tvmscript(relax("2147483647"), "t.py");
  REQUIRE(ok.relax_funcs.size() == 1);
  REQUIRE(ok.relax_funcs[0].bindings.size() == 1);
  CHECK(ok.relax_funcs[0].bindings[0].value->kind == RExprKind::kTupleGetItem);
  CHECK(ok.relax_funcs[0].bindings[0].value->index == 2147483647);
  try {
    (void)parse_tvmscript(relax("2147483648"), "t.py");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("t.py:5:12: expected a tuple or metadata index below 2^31") == 0);
  }
}
