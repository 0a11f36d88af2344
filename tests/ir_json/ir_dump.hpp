// A canonical text dump of an ir::Module for tests: every field the IR holds,
// so two front-ends (or two JSON dialects) can be compared exactly.
#pragma once

#include <sstream>
#include <string>

#include "tenet_cost/ir.hpp"

namespace tc_test {

namespace detail {
using namespace tenet_cost::ir;

inline void dump_expr(std::ostream& o, const ExprPtr& e) {
  if (!e) {
    o << "null";
    return;
  }
  o << "(" << static_cast<int>(e->kind);
  if (!e->dtype.empty()) o << ":" << e->dtype;
  if (!e->name.empty()) o << " " << e->name;
  if (e->kind == ExprKind::kInt || e->kind == ExprKind::kBool || e->kind == ExprKind::kRamp ||
      e->kind == ExprKind::kBroadcast)
    o << " " << e->int_value;
  if (e->kind == ExprKind::kFloat) o << " " << e->float_value;
  if (e->kind == ExprKind::kBinary) o << " b" << static_cast<int>(e->bin_op);
  if (e->kind == ExprKind::kUnary) o << " u" << static_cast<int>(e->un_op);
  for (const auto& a : e->args) {
    o << " ";
    dump_expr(o, a);
  }
  o << ")";
}

inline void dump_buffer(std::ostream& o, const Buffer& b) {
  o << b.name << ":" << b.dtype << "[";
  for (const auto& d : b.shape) dump_expr(o, d), o << ",";
  o << "]" << b.scope;
}

inline void dump_stmt(std::ostream& o, const StmtPtr& s, int ind) {
  const std::string pad(static_cast<std::size_t>(ind) * 2, ' ');
  if (!s) {
    o << pad << "null\n";
    return;
  }
  o << pad << "stmt " << static_cast<int>(s->kind);
  switch (s->kind) {
    case StmtKind::kSeq:
      o << "\n";
      for (const auto& c : s->children) dump_stmt(o, c, ind + 1);
      return;
    case StmtKind::kFor:
      o << " for " << s->var << " ";
      dump_expr(o, s->min);
      o << " ";
      dump_expr(o, s->extent);
      o << " kind " << static_cast<int>(s->for_kind) << " " << s->thread_tag << "\n";
      dump_stmt(o, s->body, ind + 1);
      return;
    case StmtKind::kBlock: {
      const Block& b = *s->block;
      o << " block " << b.name << "\n";
      for (const auto& iv : b.iter_vars) {
        o << pad << " iv " << iv.name << " " << static_cast<int>(iv.kind) << " ";
        dump_expr(o, iv.min);
        o << " ";
        dump_expr(o, iv.extent);
        o << " = ";
        dump_expr(o, iv.binding);
        o << "\n";
      }
      for (const auto* rs : {&b.reads, &b.writes}) {
        for (const auto& r : *rs) {
          o << pad << (rs == &b.reads ? " read " : " write ") << r.buffer;
          for (const auto& rg : r.region) {
            o << " [";
            dump_expr(o, rg.min);
            o << " +";
            dump_expr(o, rg.extent);
            o << "]";
          }
          o << "\n";
        }
      }
      for (const auto& ab : b.alloc_buffers) o << pad << " alloc ", dump_buffer(o, ab), o << "\n";
      for (const auto& [k, v] : b.annotations) o << pad << " ann " << k << "=" << v << "\n";
      o << pad << " pred ";
      dump_expr(o, b.predicate);
      o << "\n" << pad << " init\n";
      dump_stmt(o, b.init, ind + 1);
      o << pad << " body\n";
      dump_stmt(o, b.body, ind + 1);
      return;
    }
    case StmtKind::kStore:
      o << " store " << s->buffer;
      for (const auto& i : s->indices) o << " ", dump_expr(o, i);
      o << " = ";
      dump_expr(o, s->value);
      o << "\n";
      return;
    case StmtKind::kIf:
      o << " if ";
      dump_expr(o, s->value);
      o << "\n";
      dump_stmt(o, s->body, ind + 1);
      dump_stmt(o, s->else_body, ind + 1);
      return;
    case StmtKind::kLet:
      o << " let " << s->var << " = ";
      dump_expr(o, s->value);
      o << "\n";
      dump_stmt(o, s->body, ind + 1);
      return;
    case StmtKind::kAlloc:
      o << " alloc ";
      if (s->alloc) dump_buffer(o, *s->alloc);
      o << "\n";
      dump_stmt(o, s->body, ind + 1);
      return;
    case StmtKind::kEvaluate:
      o << " eval ";
      dump_expr(o, s->value);
      o << "\n";
      return;
    case StmtKind::kOther:
      o << " other " << s->text << "\n";
      return;
  }
}

inline void dump_sinfo(std::ostream& o, const StructInfoPtr& s) {
  if (!s) {
    o << "none";
    return;
  }
  o << "{" << static_cast<int>(s->kind) << " " << s->dtype << " ndim " << s->ndim << (s->shape_known ? " [" : " ?[");
  for (const auto& d : s->dims) dump_expr(o, d), o << ",";
  o << "]";
  for (const auto& f : s->fields) dump_sinfo(o, f);
  o << "}";
}

inline void dump_rexpr(std::ostream& o, const RExprPtr& r) {
  if (!r) {
    o << "null";
    return;
  }
  o << "<" << static_cast<int>(r->kind) << " " << r->name << " " << r->op << " #" << r->index;
  for (const auto& a : r->args) o << " ", dump_rexpr(o, a);
  for (const auto& [k, v] : r->kwargs) o << " " << k << "=", dump_rexpr(o, v);
  for (const auto& s : r->sinfo_args) o << " ", dump_sinfo(o, s);
  if (r->prim) o << " ", dump_expr(o, r->prim);
  for (const auto& d : r->dims) o << " ", dump_expr(o, d);
  o << ">";
}
}  // namespace detail

inline std::string dump_module(const tenet_cost::ir::Module& m) {
  using namespace detail;
  std::ostringstream o;
  for (const auto& f : m.prim_funcs) {
    o << "prim_func " << f.name << (f.is_private ? " private" : "") << "\n";
    for (const auto& p : f.params) o << " param " << p.name << " " << static_cast<int>(p.kind) << " " << p.dtype << " " << p.buffer << "\n";
    for (const auto& [n, b] : f.buffers) o << " buffer " << n << " = ", dump_buffer(o, b), o << "\n";
    for (const auto& v : f.sym_vars) o << " sym " << v << "\n";
    for (const auto& [k, v] : f.attrs) o << " attr " << k << "=" << v << "\n";
    dump_stmt(o, f.body, 1);
  }
  for (const auto& f : m.relax_funcs) {
    o << "relax_func " << f.name << "\n";
    for (const auto& p : f.params) o << " param " << p.name << " ", dump_sinfo(o, p.sinfo), o << "\n";
    for (const auto& v : f.sym_vars) o << " sym " << v << "\n";
    for (const auto& [k, v] : f.attrs) o << " attr " << k << "=" << v << "\n";
    for (const auto& b : f.bindings) o << " bind " << b.var << " ", dump_sinfo(o, b.sinfo), o << " = ", dump_rexpr(o, b.value), o << "\n";
    o << " ret ";
    dump_rexpr(o, f.ret);
    o << "\n";
  }
  return o.str();
}

}  // namespace tc_test
