// The IR visitor (tenet_cost/ir_visitor.hpp): hook order, the expression switch, the depth limit.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ir_walk.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/ir_visitor.hpp"

using namespace tenet_cost::ir;

namespace {

const char* const kFunc = R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("b"):
            v = T.axis.spatial(8, i)
            T.reads(A[v])
            T.writes(B[v])
            if v < 4:
                B[v] = A[v] + T.float32(1)
            else:
                B[v] = A[v] * A[v]
    T.evaluate(0)
)";

PrimFunc parse_func() {
  ParseOptions opt;
  opt.threads = 1;
  opt.require_whole_module = false;
  return parse_tvmscript(kFunc, "v.py", opt).prim_funcs.at(0);
}

// Records the hooks it sees, with their depth; counts loads when it visits expressions.
class Recorder : public StmtVisitor {
 public:
  using StmtVisitor::StmtVisitor;
  std::vector<std::string> seen;
  int loads = 0;
  int deep = 0;

 protected:
  void visit_seq(const Stmt& s) override {
    note("seq");
    StmtVisitor::visit_seq(s);
  }
  void visit_for(const Stmt& s) override {
    note("for " + s.var);
    StmtVisitor::visit_for(s);
  }
  void visit_block(const Stmt& s, const Block& b) override {
    note("block " + b.name);
    StmtVisitor::visit_block(s, b);
  }
  void visit_store(const Stmt& s) override {
    note("store " + s.buffer);
    StmtVisitor::visit_store(s);
  }
  void visit_if(const Stmt& s) override {
    note("if");
    StmtVisitor::visit_if(s);
  }
  void visit_evaluate(const Stmt& s) override {
    note("evaluate");
    StmtVisitor::visit_evaluate(s);
  }
  void visit_expr(const Expr& e) override {
    if (e.kind == ExprKind::kLoad) ++loads;
    StmtVisitor::visit_expr(e);
  }
  void too_deep(const Stmt& /*s*/) override { ++deep; }

 private:
  void note(const std::string& what) { seen.push_back(std::to_string(depth()) + " " + what); }
};

}  // namespace

TEST_CASE("visitor: every statement once, parents first, with its depth", "[visitor]") {
  const PrimFunc f = parse_func();
  Recorder r;
  r.visit(f);
  CHECK(r.seen ==
        std::vector<std::string>{"0 seq", "1 for i", "2 block b", "3 if", "4 store B", "4 store B", "1 evaluate"});
  CHECK(r.loads == 0);  // expressions are not visited unless asked
}

TEST_CASE("visitor: expressions on request, in every statement field", "[visitor]") {
  Recorder r(true);
  r.visit(parse_func());
  // A[v] (then branch), A[v] * A[v] (else), and the T.reads / T.writes regions hold no loads
  CHECK(r.loads == 3);
}

TEST_CASE("visitor: a statement deeper than max_depth goes to too_deep, its subtree unvisited", "[visitor]") {
  Recorder r(false, 2);
  r.visit(parse_func());
  CHECK(r.seen == std::vector<std::string>{"0 seq", "1 for i", "2 block b", "1 evaluate"});
  CHECK(r.deep == 1);
}

TEST_CASE("visitor: for_each_stmt and for_each_expr", "[visitor]") {
  const PrimFunc f = parse_func();
  int stores = 0, all = 0;
  for_each_stmt(f.body, [&](const Stmt& s) {
    ++all;
    if (s.kind == StmtKind::kStore) ++stores;
  });
  CHECK(all == 7);
  CHECK(stores == 2);
  std::vector<std::string> kinds;
  for_each_expr(*make_binary(BinOp::kAdd, make_var("x"), make_int(1)),
                [&](const Expr& e) { kinds.push_back(to_string(e)); });
  CHECK(kinds == std::vector<std::string>{"x + 1", "x", "1"});
}

TEST_CASE("Catch2 prints IR nodes as TVMScript text (tests/ir_text.hpp)", "[visitor]") {
  const ExprPtr e = make_binary(BinOp::kFloorDiv, make_var("v_k"), make_int(8));
  CHECK(Catch::Detail::stringify(e) == "v_k // 8");
  CHECK(Catch::Detail::stringify(*e) == "v_k // 8");
  CHECK(Catch::Detail::stringify(ExprPtr()) == "nullptr");
  const PrimFunc f = parse_func();
  CHECK(Catch::Detail::stringify(f.body).rfind("for i in range(8):\n    with T.block(\"b\"):\n", 0) == 0);
}
