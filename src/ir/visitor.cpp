// The default hooks of StmtVisitor (tenet_cost/ir_visitor.hpp).
#include "tenet_cost/ir_visitor.hpp"

namespace tenet_cost::ir {

void StmtVisitor::visit(const StmtPtr& s) {
  if (!s) return;
  struct Level {
    int& d;
    explicit Level(int& depth) : d(++depth) {}
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    ~Level() { --d; }
  } const level(depth_);
  if (depth_ > max_depth_) {
    too_deep(*s);
    return;
  }
  visit_stmt(*s);
}

void StmtVisitor::visit_stmt(const Stmt& st) {
  const Stmt* s = &st;
  switch (s->kind) {
    case StmtKind::kSeq: visit_seq(*s); return;
    case StmtKind::kFor: visit_for(*s); return;
    case StmtKind::kBlock:
      if (s->block) visit_block(*s, *s->block);
      return;
    case StmtKind::kStore: visit_store(*s); return;
    case StmtKind::kIf: visit_if(*s); return;
    case StmtKind::kLet: visit_let(*s); return;
    case StmtKind::kAlloc: visit_alloc(*s); return;
    case StmtKind::kEvaluate: visit_evaluate(*s); return;
    case StmtKind::kOther: visit_other(*s); return;
  }
}

void StmtVisitor::exprs(const Vec<ExprPtr>& v) {
  for (const auto& e : v) visit(e);
}

void StmtVisitor::visit_seq(const Stmt& s) {
  for (const auto& c : s.children) visit(c);
}

void StmtVisitor::visit_for(const Stmt& s) {
  if (visit_exprs_) {
    visit(s.min);
    visit(s.extent);
  }
  visit(s.body);
}

void StmtVisitor::visit_block(const Stmt& /*s*/, const Block& b) {
  if (visit_exprs_) {
    for (const auto& iv : b.iter_vars) {
      visit(iv.min);
      visit(iv.extent);
      visit(iv.binding);
    }
    visit(b.predicate);
    for (const auto* rs : {&b.reads, &b.writes})
      for (const auto& r : *rs)
        for (const auto& rg : r.region) {
          visit(rg.min);
          visit(rg.extent);
        }
    for (const auto& a : b.alloc_buffers)
      for (const auto& d : a.shape) visit(d);
  }
  visit(b.init);
  visit(b.body);
}

void StmtVisitor::visit_store(const Stmt& s) {
  if (!visit_exprs_) return;
  exprs(s.indices);
  visit(s.value);
}

void StmtVisitor::visit_if(const Stmt& s) {
  if (visit_exprs_) visit(s.value);
  visit(s.body);
  visit(s.else_body);
}

void StmtVisitor::visit_let(const Stmt& s) {
  if (visit_exprs_) visit(s.value);
  visit(s.body);
}

void StmtVisitor::visit_alloc(const Stmt& s) {
  if (visit_exprs_ && s.alloc)
    for (const auto& d : s.alloc->shape) visit(d);
  visit(s.body);
}

void StmtVisitor::visit_evaluate(const Stmt& s) {
  if (visit_exprs_) visit(s.value);
}

void StmtVisitor::visit_other(const Stmt& s) {
  if (visit_exprs_) visit(s.value);
  visit(s.body);
}

// NOLINTNEXTLINE(misc-no-recursion): expressions nest
void StmtVisitor::visit_expr(const Expr& e) { exprs(e.args); }

namespace {

class EachStmt : public StmtVisitor {
 public:
  explicit EachStmt(const std::function<void(const Stmt&)>& f) : StmtVisitor(false, 1 << 30), f_(f) {}
  void visit_stmt(const Stmt& s) override {
    f_(s);
    StmtVisitor::visit_stmt(s);
  }

 private:
  const std::function<void(const Stmt&)>& f_;
};

// NOLINTNEXTLINE(misc-no-recursion): expressions nest
void each_expr(const Expr& e, const std::function<void(const Expr&)>& f) {
  f(e);
  for (const auto& a : e.args)
    if (a) each_expr(*a, f);
}

}  // namespace

void for_each_stmt(const StmtPtr& s, const std::function<void(const Stmt&)>& f) {
  EachStmt v(f);
  v.visit(s);
}

void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f) { each_expr(e, f); }

}  // namespace tenet_cost::ir
