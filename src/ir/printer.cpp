// The statement, function and module half of the printer (tenet_cost/ir_printer.hpp): TIR statements, blocks,
// buffers, PrimFunc signatures, Relax expressions, struct infos and functions, a module as one class.
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/print_internal.hpp"
#include "tenet_cost/ir_printer.hpp"

namespace tenet_cost::ir {

namespace {

constexpr int kMaxStmtDepth = 2000;  // deeper statements print as `...` (the readers stop far earlier)

// An attribute value as the readers keep it (a string's contents, or the source text of anything else): bare
// when it is a number or a Python constant, else quoted (both read back to the same text).
void print_attr_value(std::string& out, const std::string& v) {
  if (v == "True" || v == "False" || v == "None") {
    out += v;
    return;
  }
  std::size_t i = !v.empty() && v[0] == '-' ? 1 : 0;
  bool digits = i < v.size();
  for (; i < v.size(); ++i)
    if (v[i] < '0' || v[i] > '9') digits = false;
  if (digits && v.size() < 19) out += v;
  else print_quoted(out, v);
}

void print_dict(std::string& out, const std::map<std::string, std::string>& d) {
  out += '{';
  bool first = true;
  for (const auto& [k, v] : d) {
    if (!first) out += ", ";
    first = false;
    print_quoted(out, k);
    out += ": ";
    print_attr_value(out, v);
  }
  out += '}';
}

const char* for_kind_call(ForKind k) {
  switch (k) {
    case ForKind::kSerial: return "range";
    case ForKind::kParallel: return "T.parallel";
    case ForKind::kVectorized: return "T.vectorized";
    case ForKind::kUnrolled: return "T.unroll";
    case ForKind::kThreadBinding: return "T.thread_binding";
  }
  return "range";
}

const char* axis_kind(IterKind k) {
  switch (k) {
    case IterKind::kSpatial: return "spatial";
    case IterKind::kReduce: return "reduce";
    case IterKind::kOpaque: return "opaque";
    case IterKind::kOrdered: return "scan";
  }
  return "spatial";
}

// A function name as a Python identifier (TVM JSON may name a synthetic root `tir.BufferStore`): other
// characters become '_'.
std::string identifier(const std::string& name) {
  std::string id = name.empty() ? std::string("_") : name;
  for (char& c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  if (std::isdigit(static_cast<unsigned char>(id[0]))) id.insert(0, "_");
  return id;
}

class Printer {
 public:
  std::string out;

  void expr(const ExprPtr& e, std::string_view bare = "int32") {
    if (e) print_expr(out, *e, bare);
    else out += "None";
  }
  std::string text(const ExprPtr& e, std::string_view bare = "int32") {
    std::string s;
    if (e) print_expr(s, *e, bare);
    else s = "None";
    return s;
  }
  template <class V>
  void exprs(const V& v, std::string_view bare = "int32") {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      expr(v[i], bare);
    }
  }
  // A shape as a tuple: `(a, b)`, `(a,)`, `()`.
  template <class V>
  void tuple(const V& v, std::string_view bare = "int32") {
    out += '(';
    exprs(v, bare);
    if (v.size() == 1) out += ',';
    out += ')';
  }
  // `callee({"key": value, ...})` on its own line; nothing for an empty dict.
  void attr_line(const char* callee, const std::map<std::string, std::string>& d, int ind) {
    if (d.empty()) return;
    pad(ind);
    out += callee;
    out += '(';
    print_dict(out, d);
    out += ")\n";
  }
  void pad(int ind) { out.append(static_cast<std::size_t>(ind) * 4, ' '); }

  // The bounds of [min, min + extent) as the readers take them back: `hi` alone when min is 0, else `lo, hi`
  // with hi the `hi` of an extent read as `hi - min`, a folded integer, or `min + extent`.
  std::pair<std::string, std::string> bounds(const ExprPtr& min, const ExprPtr& extent, bool keep_zero_min) {
    const std::string ext = text(extent);
    if (!min || !extent) return {keep_zero_min || min ? text(min) : std::string(), ext};
    const bool zero = min->kind == ExprKind::kInt && min->int_value == 0;
    if (zero && !keep_zero_min) return {std::string(), ext};
    const std::string lo = text(min);
    if (zero) return {lo, ext};
    if (min->kind == ExprKind::kInt && extent->kind == ExprKind::kInt) {
      std::int64_t hi = 0;
      if (!__builtin_add_overflow(min->int_value, extent->int_value, &hi))
        return {lo, text(make_int(hi, extent->dtype.str()))};
    }
    if (extent->kind == ExprKind::kBinary && extent->bin_op == BinOp::kSub && extent->args.size() == 2 &&
        text(extent->args[1]) == lo)
      return {lo, text(extent->args[0])};
    return {lo, text(make_binary(BinOp::kAdd, min, extent))};
  }

  void buffer_call(const Buffer& b, const char* callee, const std::string& first_arg) {
    out += callee;
    out += '(';
    if (!first_arg.empty()) out += first_arg + ", ";
    tuple(b.shape);
    out += ", ";
    print_quoted(out, b.dtype);
    if (!b.scope.empty()) {
      out += ", scope=";
      print_quoted(out, b.scope);
    }
    out += ')';
  }

  void region(const BufferRegion& r) {
    out += r.buffer;
    out += '[';
    for (std::size_t i = 0; i < r.region.size(); ++i) {
      if (i) out += ", ";
      const Range& rg = r.region[i];
      if (rg.extent && rg.extent->kind == ExprKind::kInt && rg.extent->int_value == 1) {
        expr(rg.min);
        continue;
      }
      auto [lo, hi] = bounds(rg.min, rg.extent, true);
      out += lo + ":" + hi;
    }
    if (r.region.empty()) out += "()";
    out += ']';
  }
  void regions(const char* what, const std::vector<BufferRegion>& rs, int ind) {
    pad(ind);
    out += what;
    out += '(';
    for (std::size_t i = 0; i < rs.size(); ++i) {
      if (i) out += ", ";
      region(rs[i]);
    }
    out += ")\n";
  }

  void block(const Block& b, int ind, int depth) {
    pad(ind);
    out += "with T.block(";
    print_quoted(out, b.name);
    out += "):\n";
    for (const IterVar& iv : b.iter_vars) {
      pad(ind + 1);
      out += iv.name + " = T.axis." + axis_kind(iv.kind) + "(";
      auto [lo, hi] = bounds(iv.min, iv.extent, false);
      out += lo.empty() ? hi : "(" + lo + ", " + hi + ")";
      out += ", ";
      expr(iv.binding);
      out += ")\n";
    }
    if (b.predicate) {
      pad(ind + 1);
      out += "T.where(";
      expr(b.predicate);
      out += ")\n";
    }
    regions("T.reads", b.reads, ind + 1);
    regions("T.writes", b.writes, ind + 1);
    attr_line("T.block_attr", b.annotations, ind + 1);
    for (const Buffer& a : b.alloc_buffers) {
      pad(ind + 1);
      out += a.name + " = ";
      buffer_call(a, "T.alloc_buffer", "");
      out += '\n';
    }
    if (b.init) {
      pad(ind + 1);
      out += "with T.init():\n";
      stmt(b.init, ind + 2, depth + 1);
    }
    stmt(b.body, ind + 1, depth + 1);
  }

  void loop(const Stmt& s, int ind, int depth) {
    pad(ind);
    out += "for " + s.var + " in " + for_kind_call(s.for_kind) + "(";
    auto [lo, hi] = bounds(s.min, s.extent, false);
    out += lo.empty() ? hi : lo + ", " + hi;
    if (s.for_kind == ForKind::kThreadBinding) {
      out += ", thread=";
      print_quoted(out, s.thread_tag);
    }
    out += "):\n";
    stmt(s.body, ind + 1, depth + 1);
  }

  // NOLINTNEXTLINE(misc-no-recursion): statements nest; depth-limited by kMaxStmtDepth
  void stmt(const StmtPtr& sp, int ind, int depth) {
    if (!sp) {
      pad(ind);
      out += "pass\n";
      return;
    }
    if (depth > kMaxStmtDepth) {
      pad(ind);
      out += "...\n";
      return;
    }
    const Stmt& s = *sp;
    switch (s.kind) {
      case StmtKind::kSeq:
        if (s.children.empty()) {
          pad(ind);
          out += "pass\n";
        }
        for (const auto& c : s.children) stmt(c, ind, depth + 1);
        return;
      case StmtKind::kFor: loop(s, ind, depth); return;
      case StmtKind::kBlock:
        if (s.block) block(*s.block, ind, depth);
        return;
      case StmtKind::kStore:
        pad(ind);
        out += s.buffer + "[";
        exprs(s.indices);
        if (s.indices.empty()) out += "()";
        out += "] = ";
        expr(s.value);
        out += '\n';
        return;
      case StmtKind::kIf:
        pad(ind);
        out += "if ";
        expr(s.value);
        out += ":\n";
        stmt(s.body, ind + 1, depth + 1);
        if (s.else_body) {
          pad(ind);
          out += "else:\n";
          stmt(s.else_body, ind + 1, depth + 1);
        }
        return;
      case StmtKind::kLet:
        pad(ind);
        out += "with T.LetStmt(";
        expr(s.value);
        out += ", var=" + s.var + "):\n";
        stmt(s.body, ind + 1, depth + 1);
        return;
      case StmtKind::kAlloc:
        pad(ind);
        if (s.alloc) {
          out += s.alloc->name + " = ";
          buffer_call(*s.alloc, "T.alloc_buffer", "");
        } else {
          out += "pass";
        }
        out += '\n';
        if (s.body) stmt(s.body, ind, depth + 1);
        return;
      case StmtKind::kEvaluate:
        pad(ind);
        out += "T.evaluate(";
        expr(s.value);
        out += ")\n";
        return;
      case StmtKind::kOther: {
        // What the reader kept: the statement's first line (a header when it has a body).
        const std::string_view t = s.text.view();
        pad(ind);
        out += t.substr(0, t.find('\n'));
        out += '\n';
        if (s.body) stmt(s.body, ind + 1, depth + 1);
        return;
      }
    }
  }

  void prim_func(const PrimFunc& f, int ind) {
    pad(ind);
    out += f.is_private ? "@T.prim_func(private=True)\n" : "@T.prim_func\n";
    pad(ind);
    out += "def " + identifier(f.name) + "(";
    std::vector<std::string> scalar_syms;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const Param& p = f.params[i];
      if (i) out += ", ";
      out += p.name;
      const auto b = f.buffers.find(p.buffer);
      if (p.kind == ParamKind::kHandle) {
        out += ": T.handle";
      } else if (p.kind == ParamKind::kBuffer && b != f.buffers.end()) {
        out += ": ";
        buffer_call(b->second, "T.Buffer", "");
      } else if (!p.dtype.empty()) {
        out += ": T." + p.dtype;
        scalar_syms.push_back(p.name);
      }
    }
    out += "):\n";
    attr_line("T.func_attr", f.attrs, ind + 1);
    for (const auto& v : f.sym_vars) {
      if (std::find(scalar_syms.begin(), scalar_syms.end(), v) != scalar_syms.end()) continue;
      pad(ind + 1);
      out += v + " = T.int64()\n";
    }
    for (const Param& p : f.params) {
      const auto b = f.buffers.find(p.buffer);
      if (p.kind != ParamKind::kHandle || b == f.buffers.end()) continue;
      pad(ind + 1);
      out += b->second.name + " = ";
      buffer_call(b->second, "T.match_buffer", p.name);
      out += '\n';
    }
    stmt(f.body, ind + 1, 0);
  }

  // ------------------------------------------------------------------ Relax

  void sinfo(const StructInfoPtr& s) {
    if (!s) {
      out += "R.Object";
      return;
    }
    switch (s->kind) {
      case SInfoKind::kTensor:
      case SInfoKind::kShape: {
        const bool tensor = s->kind == SInfoKind::kTensor;
        out += tensor ? "R.Tensor(" : "R.Shape(";
        bool first = true;
        auto sep = [&] {
          if (!first) out += ", ";
          first = false;
        };
        if (s->shape_known) {
          sep();
          if (tensor) tuple(s->dims, "int64");
          else out += '[', exprs(s->dims, "int64"), out += ']';
        }
        if (tensor && !s->dtype.empty()) {
          sep();
          out += "dtype=";
          print_quoted(out, s->dtype);
        }
        if (s->ndim >= 0 && (!s->shape_known || static_cast<std::size_t>(s->ndim) != s->dims.size())) {
          sep();
          out += "ndim=" + std::to_string(s->ndim);
        }
        out += ')';
        return;
      }
      case SInfoKind::kObject: out += "R.Object"; return;
      case SInfoKind::kTuple:
        out += "R.Tuple(";
        for (std::size_t i = 0; i < s->fields.size(); ++i) {
          if (i) out += ", ";
          sinfo(s->fields[i]);
        }
        out += ')';
        return;
      case SInfoKind::kPrim:
        out += "R.Prim(";
        if (!s->dims.empty()) {
          if (s->dtype != "int64") print_quoted(out, s->dtype), out += ", ";
          out += "value=";
          expr(s->dims[0], "int64");
        } else if (!s->dtype.empty()) {
          print_quoted(out, s->dtype);
        }
        out += ')';
        return;
      case SInfoKind::kUnknown: out += "R.Unknown"; return;
    }
  }

  void sinfo_list(const Vec<StructInfoPtr>& v) {
    if (v.size() == 1) {
      sinfo(v[0]);
      return;
    }
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      sinfo(v[i]);
    }
    out += ']';
  }

  void rargs(const Vec<RExprPtr>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      rexpr(v[i]);
    }
  }

  void literal(const ExprPtr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kInt) out += std::to_string(e->int_value);
    else if (e->kind == ExprKind::kFloat) print_double(out, e->float_value);
    else expr(e);
  }

  void rcall(const RExpr& e) {
    out += e.op.str() + "(";
    rargs(e.args);
    bool any = !e.args.empty();
    for (const auto& [k, v] : e.kwargs) {
      out += any ? ", " : "";
      any = true;
      out += k + "=";
      rexpr(v);
    }
    if (!e.sinfo_args.empty()) {
      out += any ? ", " : "";
      const bool dps = e.op.view().starts_with("R.call_tir") || e.op == "R.call_dps_packed";
      out += dps ? "out_sinfo=" : "sinfo_args=";
      sinfo_list(e.sinfo_args);
    }
    out += ')';
  }

  // NOLINTNEXTLINE(misc-no-recursion): Relax expressions nest
  void rexpr(const RExprPtr& p) {
    if (!p) {
      out += "None";
      return;
    }
    const RExpr& e = *p;
    switch (e.kind) {
      case RExprKind::kGlobalFunc:
        if (e.name.find('.') == std::string::npos) out += "cls.";
        out += e.name;
        return;
      case RExprKind::kVar:
      case RExprKind::kOther: out += e.name; return;
      case RExprKind::kCall: rcall(e); return;
      case RExprKind::kTuple:
        out += '(';
        rargs(e.args);
        if (e.args.size() == 1) out += ',';
        out += ')';
        return;
      case RExprKind::kTupleGetItem:
        if (!e.args.empty()) rexpr(e.args[0]);
        out += "[" + std::to_string(e.index) + "]";
        return;
      case RExprKind::kPrimValue:
        out += "R.prim_value(";
        expr(e.prim);
        out += ')';
        return;
      case RExprKind::kShape:
        out += "R.shape([";
        exprs(e.dims, "int64");
        out += "])";
        return;
      case RExprKind::kString:
        out += "R.str(";
        print_quoted(out, e.name);
        out += ')';
        return;
      case RExprKind::kConstant:
        if (!e.prim && !e.name.empty()) {
          out += "metadata[";
          print_quoted(out, e.name);
          out += "][" + std::to_string(e.index) + "]";
          return;
        }
        out += "R.const(";
        literal(e.prim);
        for (const auto& [k, v] : e.kwargs)
          if (k == "dtype" && v && v->kind == RExprKind::kString) out += ", ", print_quoted(out, v->name);
        out += ')';
        return;
    }
  }

  void relax_func(const RelaxFunc& f, int ind) {
    pad(ind);
    out += "@R.function\n";
    pad(ind);
    out += "def " + identifier(f.name) + "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i) out += ", ";
      out += f.params[i].name;
      if (f.params[i].sinfo) out += ": ", sinfo(f.params[i].sinfo);
    }
    out += "):\n";
    for (const auto& v : f.sym_vars) {
      pad(ind + 1);
      out += v + " = T.int64()\n";
    }
    attr_line("R.func_attr", f.attrs, ind + 1);
    pad(ind + 1);
    out += "cls = Module\n";
    for (const Binding& b : f.bindings) {
      pad(ind + 1);
      if (!b.var.empty()) {
        out += b.var;
        if (b.sinfo) out += ": ", sinfo(b.sinfo);
        out += " = ";
      }
      rexpr(b.value);
      out += '\n';
    }
    pad(ind + 1);
    out += "return";
    if (f.ret) out += ' ', rexpr(f.ret);
    out += '\n';
  }
};

}  // namespace

std::string print(const Module& m) {
  Printer p;
  p.out += "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script import relax as R\n";
  p.out += "\n@I.ir_module\nclass Module:\n";
  for (const auto& g : m.other_globals) p.out += "    " + g + " = R.ExternFunc(\"" + g + "\")\n";
  bool first = m.other_globals.empty();
  for (const auto& f : m.prim_funcs) {
    if (!first) p.out += '\n';
    first = false;
    p.prim_func(f, 1);
  }
  for (const auto& f : m.relax_funcs) {
    if (!first) p.out += '\n';
    first = false;
    p.relax_func(f, 1);
  }
  if (first) p.out += "    pass\n";
  return std::move(p.out);
}

std::string print(const PrimFunc& f) {
  Printer p;
  p.prim_func(f, 0);
  return std::move(p.out);
}

std::string print(const RelaxFunc& f) {
  Printer p;
  p.relax_func(f, 0);
  return std::move(p.out);
}

std::string print(const Stmt& s) {
  Printer p;
  p.stmt(std::shared_ptr<const Stmt>(std::shared_ptr<const Stmt>{}, &s), 0, 0);
  return std::move(p.out);
}

std::string print(const Block& b) {
  Printer p;
  p.block(b, 0, 0);
  return std::move(p.out);
}

std::string print(const Buffer& b) {
  Printer p;
  p.out += b.name + " = ";
  p.buffer_call(b, "T.alloc_buffer", "");
  return std::move(p.out);
}

std::string print(const Expr& e) { return to_string(e); }

std::string print(const RExpr& e) {
  Printer p;
  p.rexpr(std::shared_ptr<const RExpr>(std::shared_ptr<const RExpr>{}, &e));
  return std::move(p.out);
}

std::string print(const StructInfo& s) {
  Printer p;
  p.sinfo(std::shared_ptr<const StructInfo>(std::shared_ptr<const StructInfo>{}, &s));
  return std::move(p.out);
}

}  // namespace tenet_cost::ir
