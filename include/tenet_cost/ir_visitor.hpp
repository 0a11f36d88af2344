// A const walk over TIR statements and expressions with one overridable hook per statement kind (Halide's
// IRVisitor pattern). Each default hook visits the statement's children in a fixed order (its expressions first
// when the visitor visits expressions, then its statements); an override does its work and calls the base hook,
// or `visit` on the children it wants, to go on. A new StmtKind is one hook here and one case in `visit_stmt`.
#pragma once

#include <functional>

#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

class StmtVisitor {
 public:
  /// `visit_exprs`: whether the default hooks visit the statements' expressions (visit_expr); `max_depth`: a
  /// statement nested deeper than this (the root has depth 0) goes to too_deep instead of its hook.
  explicit StmtVisitor(bool visit_exprs = false, int max_depth = 512)
      : visit_exprs_(visit_exprs), max_depth_(max_depth) {}
  StmtVisitor(const StmtVisitor&) = default;
  StmtVisitor& operator=(const StmtVisitor&) = default;
  virtual ~StmtVisitor() = default;

  /// Calls visit_stmt (nothing for null; too_deep past max_depth), one level deeper than the caller's statement.
  void visit(const StmtPtr& s);
  /// The function's body.
  void visit(const PrimFunc& f) { visit(f.body); }
  /// Calls visit_expr (nothing for null).
  void visit(const ExprPtr& e) {
    if (e) visit_expr(*e);
  }

 protected:
  /// The depth of the statement whose hook runs (0: the root visit was called with).
  [[nodiscard]] int depth() const { return depth_; }

  /// Every statement first comes here; the default calls the hook of its kind (a hook for all kinds: override
  /// this one and call the base).
  virtual void visit_stmt(const Stmt& s);
  virtual void visit_seq(const Stmt& s);                    // children
  virtual void visit_for(const Stmt& s);                    // min, extent; body
  virtual void visit_block(const Stmt& s, const Block& b);  // iter vars, predicate, regions; init, body
  virtual void visit_store(const Stmt& s);                  // indices, value
  virtual void visit_if(const Stmt& s);                     // cond; then, else
  virtual void visit_let(const Stmt& s);                    // value; body
  virtual void visit_alloc(const Stmt& s);                  // buffer shape; body
  virtual void visit_evaluate(const Stmt& s);               // value
  virtual void visit_other(const Stmt& s);                  // value; body
  virtual void too_deep(const Stmt& /*s*/) {}               // a statement deeper than max_depth
  /// An expression: the default visits its operands (expressions are as deep as the readers allow).
  virtual void visit_expr(const Expr& e);

 private:
  void exprs(const Vec<ExprPtr>& v);
  bool visit_exprs_;
  int max_depth_;
  int depth_ = -1;
};

/// Calls `f` on every statement under `s` (itself included), parents before children.
void for_each_stmt(const StmtPtr& s, const std::function<void(const Stmt&)>& f);
/// Calls `f` on every expression under `e` (itself included), parents before operands.
void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f);

}  // namespace tenet_cost::ir
