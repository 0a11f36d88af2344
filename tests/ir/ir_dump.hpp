// A complete text dump of an ir::Module (every field of every node, with its
// location), for tests that compare two parses structurally.
#pragma once

#include <sstream>
#include <string>

#include "tenet_cost/ir.hpp"

namespace ir_test {

class Dumper {
 public:
  std::string module(const tenet_cost::ir::Module& m) {
    out_ << "module source=" << m.source << " format=" << m.format << "\n";
    for (const auto& f : m.prim_funcs) prim(f);
    for (const auto& f : m.relax_funcs) relax(f);
    return out_.str();
  }

 private:
  using Loc = tenet_cost::ir::Loc;

  void loc(const Loc& l) { out_ << " @" << l.file.str() << ":" << l.line << ":" << l.column; }
  void nl(int depth) { out_ << "\n" << std::string(static_cast<std::size_t>(depth) * 2, ' '); }

  void expr(const tenet_cost::ir::ExprPtr& e) {
    if (!e) {
      out_ << "null";
      return;
    }
    out_ << "(" << static_cast<int>(e->kind) << " '" << e->dtype << "' " << e->int_value << " " << e->float_value
         << " '" << e->name << "' " << static_cast<int>(e->bin_op) << " " << static_cast<int>(e->un_op);
    loc(e->loc);
    for (const auto& a : e->args) {
      out_ << " ";
      expr(a);
    }
    out_ << ")";
  }

  void exprs(const std::vector<tenet_cost::ir::ExprPtr>& v) {
    out_ << "[";
    for (const auto& e : v) {
      expr(e);
      out_ << " ";
    }
    out_ << "]";
  }

  void buffer(const tenet_cost::ir::Buffer& b) {
    out_ << "buffer " << b.name << " " << b.dtype << " scope=" << b.scope << " shape=";
    exprs(b.shape);
    loc(b.loc);
  }

  void regions(const char* what, const std::vector<tenet_cost::ir::BufferRegion>& rs, int depth) {
    for (const auto& r : rs) {
      nl(depth);
      out_ << what << " " << r.buffer;
      for (const auto& rg : r.region) {
        out_ << " [";
        expr(rg.min);
        out_ << ", ";
        expr(rg.extent);
        out_ << "]";
      }
    }
  }

  void stmt(const tenet_cost::ir::StmtPtr& s, int depth) {
    nl(depth);
    if (!s) {
      out_ << "null";
      return;
    }
    out_ << "stmt " << static_cast<int>(s->kind) << " var=" << s->var << " for=" << static_cast<int>(s->for_kind)
         << " tag=" << s->thread_tag << " buffer=" << s->buffer << " text=" << s->text;
    loc(s->loc);
    out_ << " min=";
    expr(s->min);
    out_ << " extent=";
    expr(s->extent);
    out_ << " indices=";
    exprs(s->indices);
    out_ << " value=";
    expr(s->value);
    if (s->alloc) {
      nl(depth + 1);
      buffer(*s->alloc);
    }
    if (s->block) block(*s->block, depth + 1);
    for (const auto& c : s->children) stmt(c, depth + 1);
    if (s->body) stmt(s->body, depth + 1);
    if (s->else_body) {
      nl(depth);
      out_ << "else";
      stmt(s->else_body, depth + 1);
    }
  }

  void block(const tenet_cost::ir::Block& b, int depth) {
    nl(depth);
    out_ << "block " << b.name;
    loc(b.loc);
    for (const auto& iv : b.iter_vars) {
      nl(depth + 1);
      out_ << "iter " << iv.name << " " << static_cast<int>(iv.kind) << " ";
      expr(iv.min);
      out_ << " ";
      expr(iv.extent);
      out_ << " ";
      expr(iv.binding);
    }
    regions("read", b.reads, depth + 1);
    regions("write", b.writes, depth + 1);
    nl(depth + 1);
    out_ << "where ";
    expr(b.predicate);
    for (const auto& a : b.alloc_buffers) {
      nl(depth + 1);
      buffer(a);
    }
    for (const auto& [k, v] : b.annotations) {
      nl(depth + 1);
      out_ << "annotation " << k << "=" << v;
    }
    if (b.init) {
      nl(depth + 1);
      out_ << "init";
      stmt(b.init, depth + 2);
    }
    stmt(b.body, depth + 1);
  }

  void prim(const tenet_cost::ir::PrimFunc& f) {
    out_ << "prim_func " << f.name << " private=" << f.is_private;
    loc(f.loc);
    for (const auto& p : f.params) out_ << "\n  param " << p.name << " " << static_cast<int>(p.kind) << " " << p.dtype << " " << p.buffer;
    for (const auto& [name, b] : f.buffers) {
      out_ << "\n  " << name << ": ";
      buffer(b);
    }
    for (const auto& v : f.sym_vars) out_ << "\n  sym " << v;
    for (const auto& [k, v] : f.attrs) out_ << "\n  attr " << k << "=" << v;
    stmt(f.body, 1);
    out_ << "\n";
  }

  void sinfo(const tenet_cost::ir::StructInfoPtr& s) {
    if (!s) {
      out_ << "null";
      return;
    }
    out_ << "{" << static_cast<int>(s->kind) << " known=" << s->shape_known << " ndim=" << s->ndim << " '" << s->dtype
         << "' dims=";
    exprs(s->dims);
    for (const auto& f : s->fields) {
      out_ << " ";
      sinfo(f);
    }
    out_ << "}";
  }

  void rexpr(const tenet_cost::ir::RExprPtr& e) {
    if (!e) {
      out_ << "null";
      return;
    }
    out_ << "<" << static_cast<int>(e->kind) << " name=" << e->name << " op=" << e->op << " index=" << e->index;
    loc(e->loc);
    out_ << " prim=";
    expr(e->prim);
    out_ << " dims=[";
    for (const auto& d : e->dims) {
      expr(d);
      out_ << " ";
    }
    out_ << "] args=[";
    for (const auto& a : e->args) {
      rexpr(a);
      out_ << " ";
    }
    out_ << "] kwargs=[";
    for (const auto& [k, v] : e->kwargs) {
      out_ << k << "=";
      rexpr(v);
      out_ << " ";
    }
    out_ << "] sinfo=[";
    for (const auto& s : e->sinfo_args) {
      sinfo(s);
      out_ << " ";
    }
    out_ << "]>";
  }

  void relax(const tenet_cost::ir::RelaxFunc& f) {
    out_ << "relax_func " << f.name;
    loc(f.loc);
    for (const auto& p : f.params) {
      out_ << "\n  param " << p.name << " ";
      sinfo(p.sinfo);
    }
    for (const auto& v : f.sym_vars) out_ << "\n  sym " << v;
    for (const auto& [k, v] : f.attrs) out_ << "\n  attr " << k << "=" << v;
    for (const auto& b : f.bindings) {
      out_ << "\n  bind " << b.var;
      loc(b.loc);
      out_ << " ";
      sinfo(b.sinfo);
      out_ << " = ";
      rexpr(b.value);
    }
    out_ << "\n  return ";
    rexpr(f.ret);
    out_ << "\n";
  }

  std::ostringstream out_;
};

/// Every field of every function of `m`, one line per node, with locations.
inline std::string dump(const tenet_cost::ir::Module& m) { return Dumper().module(m); }

}  // namespace ir_test
