// Test support for IR values: Catch2 prints IR nodes as TVMScript text (ir::print) instead of `{?}`, and
// ir_test::dump gives the whole of a module for tests that compare two reads of it exactly: the printed text,
// then what the text leaves out (each node's location and each expression's dtype) in visit order.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "tenet_cost/ir.hpp"
#include "tenet_cost/ir_printer.hpp"
#include "tenet_cost/ir_visitor.hpp"

namespace ir_test {

template <class T>
std::string text_of(const std::shared_ptr<const T>& p) {
  return p ? tenet_cost::ir::print(*p) : std::string("nullptr");
}

/// The facts ir::print leaves out, one line per statement, in visit order.
class Facts : public tenet_cost::ir::StmtVisitor {
 public:
  Facts(std::string& out, bool locations) : StmtVisitor(true, 1 << 30), out_(out), locations_(locations) {}

  void loc(const tenet_cost::ir::Loc& l) {
    if (locations_) out_ += " @" + l.str();
  }
  void expr(const tenet_cost::ir::ExprPtr& e) {
    if (e) visit_expr(*e);
    else out_ += " null";
  }
  void buffer(const tenet_cost::ir::Buffer& b) {
    out_ += "\n  buffer " + b.name + " " + b.dtype;
    loc(b.loc);
    for (const auto& d : b.shape) expr(d);
  }
  void sinfo(const tenet_cost::ir::StructInfoPtr& s) {
    if (!s) return;
    for (const auto& d : s->dims) expr(d);
    for (const auto& f : s->fields) sinfo(f);
  }
  void rexpr(const tenet_cost::ir::RExprPtr& e) {
    if (!e) return;
    out_ += " <";
    loc(e->loc);
    expr(e->prim);
    for (const auto& d : e->dims) expr(d);
    for (const auto& a : e->args) rexpr(a);
    for (const auto& [k, v] : e->kwargs) rexpr(v);
    for (const auto& s : e->sinfo_args) sinfo(s);
    out_ += ">";
  }

 protected:
  void visit_stmt(const tenet_cost::ir::Stmt& s) override {
    out_ += "\n  stmt";
    loc(s.loc);
    StmtVisitor::visit_stmt(s);
  }
  void visit_block(const tenet_cost::ir::Stmt& s, const tenet_cost::ir::Block& b) override {
    out_ += " block";
    loc(b.loc);
    for (const auto& a : b.alloc_buffers) buffer(a);
    StmtVisitor::visit_block(s, b);
  }
  void visit_alloc(const tenet_cost::ir::Stmt& s) override {
    if (s.alloc) buffer(*s.alloc);
    StmtVisitor::visit_alloc(s);
  }
  void visit_expr(const tenet_cost::ir::Expr& e) override {
    out_ += " (" + e.dtype.str();
    loc(e.loc);
    StmtVisitor::visit_expr(e);
    out_ += ")";
  }

 private:
  std::string& out_;
  bool locations_;
};

/// print(m), then Facts of every function (with the locations when `locations`).
inline std::string dump(const tenet_cost::ir::Module& m, bool locations = true) {
  std::string out = tenet_cost::ir::print(m);
  Facts facts(out, locations);
  for (const auto& f : m.prim_funcs) {
    out += "\nprim_func " + f.name;
    facts.loc(f.loc);
    for (const auto& p : f.params) out += "\n  param " + p.name + " " + p.dtype + " " + p.buffer;
    for (const auto& [name, b] : f.buffers) facts.buffer(b);
    facts.visit(f);
  }
  for (const auto& f : m.relax_funcs) {
    out += "\nrelax_func " + f.name;
    facts.loc(f.loc);
    for (const auto& p : f.params) facts.sinfo(p.sinfo);
    for (const auto& b : f.bindings) {
      out += "\n  bind";
      facts.loc(b.loc);
      facts.sinfo(b.sinfo);
      facts.rexpr(b.value);
    }
    facts.rexpr(f.ret);
  }
  return out;
}

}  // namespace ir_test

namespace Catch {

#define TC_IR_STRING_MAKER(T)                                                                                     \
  template <>                                                                                                     \
  struct StringMaker<tenet_cost::ir::T> {                                                                         \
    static std::string convert(const tenet_cost::ir::T& v) { return tenet_cost::ir::print(v); }                   \
  };                                                                                                              \
  template <>                                                                                                     \
  struct StringMaker<std::shared_ptr<const tenet_cost::ir::T>> {                                                  \
    static std::string convert(const std::shared_ptr<const tenet_cost::ir::T>& p) { return ir_test::text_of(p); } \
  };
TC_IR_STRING_MAKER(Expr)
TC_IR_STRING_MAKER(Stmt)
TC_IR_STRING_MAKER(Block)
TC_IR_STRING_MAKER(RExpr)
TC_IR_STRING_MAKER(StructInfo)
#undef TC_IR_STRING_MAKER

template <>
struct StringMaker<tenet_cost::ir::Buffer> {
  static std::string convert(const tenet_cost::ir::Buffer& b) { return tenet_cost::ir::print(b); }
};
template <>
struct StringMaker<tenet_cost::ir::PrimFunc> {
  static std::string convert(const tenet_cost::ir::PrimFunc& f) { return tenet_cost::ir::print(f); }
};
template <>
struct StringMaker<tenet_cost::ir::RelaxFunc> {
  static std::string convert(const tenet_cost::ir::RelaxFunc& f) { return tenet_cost::ir::print(f); }
};
template <>
struct StringMaker<tenet_cost::ir::Module> {
  static std::string convert(const tenet_cost::ir::Module& m) { return tenet_cost::ir::print(m); }
};

}  // namespace Catch
