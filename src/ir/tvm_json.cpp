// TVM JSON (tvm.ir.save_json) -> typed IR. See docs/ir-json.md.
//
// The Reader (tvm_json_reader.hpp) is defined here for roots, functions, attributes, vars,
// buffers and Relax; TIR expressions and statements are in tvm_json_tir.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>

#include "ir/node_pool.hpp"
#include "ir/tvm_json_graph.hpp"
#include "ir/tvm_json_reader.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir::tvm_json {

namespace {

std::string fmt_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool is_stmt_type(const std::string& t) {
  static const std::set<std::string> s{
      "tir.SeqStmt",    "tir.For",           "tir.BlockRealize",  "tir.Block",           "tir.BufferStore",
      "tir.IfThenElse", "tir.LetStmt",       "tir.Evaluate",      "tir.Allocate",        "tir.DeclBuffer",
      "tir.AttrStmt",   "tir.AssertStmt",    "tir.While",         "tir.AllocBuffer",     "tir.AllocateConst",
      "tir.Prefetch",   "tir.BufferRealize", "tir.ProducerStore", "tir.ProducerRealize", "tir.Store"};
  return s.count(t) != 0;
}

bool is_expr_type(const std::string& t) {
  if (binary_ops().count(t) != 0) return true;
  static const std::set<std::string> s{
      "IntImm",      "FloatImm",   "tir.StringImm", "tir.Var",          "tir.SizeVar",   "tir.BufferLoad", "tir.Mod",
      "tir.Not",     "tir.Cast",   "tir.Select",    "tir.Ramp",         "tir.Broadcast", "tir.Call",       "tir.Let",
      "tir.Shuffle", "tir.Reduce", "tir.Load",      "tir.ProducerLoad", "Bool",          "tir.IterVar"};
  return s.count(t) != 0;
}

}  // namespace

Module Reader::read_root() {
  Module m;
  m.source = g_.file();
  m.format = g_.ffi() ? "tvm-json-ffi" : "tvm-json-legacy";
  add_root(m, g_.root(), 0);
  locate(m);
  return m;
}

void Reader::locate(Module& m) const {
  std::vector<std::size_t> nodes;
  nodes.reserve(placed_.size());
  for (const Placed& p : placed_) nodes.push_back(p.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const std::vector<SourceLocation> at = g_.node_locations(nodes);
  for (const Placed& p : placed_) {
    const SourceLocation& where = at[std::lower_bound(nodes.begin(), nodes.end(), p.node) - nodes.begin()];
    if (where.line == 0) continue;
    if (!p.relax) m.prim_funcs[p.function].loc = where;
    else if (p.binding == std::string::npos) m.relax_funcs[p.function].loc = where;
    else m.relax_funcs[p.function].bindings[p.binding].loc = where;
  }
}

void Reader::add_root(Module& m, std::size_t idx, int level) {
  const std::string& t = g_.type(idx);
  if (t == "IRModule") {
    for (const auto& e : g_.map_field(idx, "functions")) {
      std::string name = e.key_text;
      if (e.key_node) name = global_var_name(*e.key_node);
      add_function(m, e.value, name, /*synthetic=*/"");
    }
    return;
  }
  if (t == "tir.PrimFunc" || t == "relax.Function") {
    add_function(m, idx, "", "");
    return;
  }
  if (t == "Array" && level == 0) {
    for (const std::size_t e : g_.array(idx)) add_root(m, e, level + 1);
    return;
  }
  if (is_stmt_type(t) || is_expr_type(t)) {
    add_function(m, idx, t, "tir");
    return;
  }
  if (t.rfind("relax.", 0) == 0) {
    add_function(m, idx, t, "relax");
    return;
  }
  g_.fail(idx, "",
          "unsupported root: expected an IRModule, a tir.PrimFunc, a relax.Function, or a TIR/Relax "
          "statement or expression");
}

std::string Reader::global_var_name(std::size_t idx) {
  const std::string& t = g_.type(idx);
  if (t == "String") return g_.string_node(idx);
  if (t != "GlobalVar") g_.fail(idx, "", "expected a GlobalVar as a function key");
  return g_.text(idx, "name_hint");
}

void Reader::add_function(Module& m, std::size_t idx, const std::string& name, const std::string& synthetic) {
  reset_function_state();
  const std::string& t = g_.type(idx);
  if (synthetic == "tir") {
    PrimFunc f;
    f.name = name;
    f.loc = Loc{fname_, 0, 0};
    f.attrs["tvm_json.synthetic"] = "root is a " + g_.raw_type(idx);
    f.is_private = true;
    cur_buffers_ = &f.buffers;
    if (is_stmt_type(t)) {
      f.body = stmt(idx);
    } else {
      auto s = make_node<Stmt>();
      s->kind = StmtKind::kEvaluate;
      s->loc = f.loc;
      s->value = expr(idx);
      f.body = s;
    }
    cur_buffers_ = nullptr;
    m.prim_funcs.push_back(std::move(f));
    return;
  }
  if (synthetic == "relax") {
    RelaxFunc f;
    f.name = name;
    f.loc = Loc{fname_, 0, 0};
    f.attrs["tvm_json.synthetic"] = "root is a " + g_.raw_type(idx);
    f.ret = rexpr(idx);
    m.relax_funcs.push_back(std::move(f));
    return;
  }
  if (t == "tir.PrimFunc") {
    m.prim_funcs.push_back(prim_func(idx, name));
    placed_.push_back({idx, false, m.prim_funcs.size() - 1, std::string::npos});
  } else if (t == "relax.Function") {
    binding_nodes_.clear();
    m.relax_funcs.push_back(relax_func(idx, name));
    const std::size_t fn = m.relax_funcs.size() - 1;
    placed_.push_back({idx, true, fn, std::string::npos});
    for (std::size_t b = 0; b < binding_nodes_.size(); ++b) placed_.push_back({binding_nodes_[b], true, fn, b});
  }
  // Other function kinds (relax.ExternFunc, ...) carry no IR to estimate.
}

PrimFunc Reader::prim_func(std::size_t idx, const std::string& given_name) {
  Enter guard(*this, idx);
  PrimFunc f;
  f.loc = Loc{fname_, 0, 0};
  cur_buffers_ = &f.buffers;
  if (auto a = g_.ref(idx, "attrs")) f.attrs = dict_attrs(*a);
  f.is_private = f.attrs.count("global_symbol") == 0;
  f.name = !given_name.empty()                   ? given_name
           : f.attrs.count("global_symbol") != 0 ? f.attrs["global_symbol"]
                                                 : std::string("main");
  std::vector<std::pair<std::size_t, std::size_t>> buffer_map;  // var node -> buffer node
  for (const auto& e : g_.map_field(idx, "buffer_map")) {
    if (!e.key_node) g_.fail(idx, "buffer_map", "expected tir.Var keys");
    buffer_map.emplace_back(*e.key_node, e.value);
  }
  std::set<std::string> seen_sym;
  for (const std::size_t p : g_.array_field(idx, "params")) {
    Param param;
    auto bm = std::find_if(buffer_map.begin(), buffer_map.end(), [&](const auto& kv) { return kv.first == p; });
    if (bm != buffer_map.end()) {
      const Buffer& b = buffer(bm->second);
      // TVMScript prints `A: T.Buffer(..)` when the handle and the buffer share a
      // name, else `var_a: T.handle` + `A = T.match_buffer(var_a, ..)`.
      const std::string vname = var_name(p);
      param.name = vname;
      param.kind = vname == b.name ? ParamKind::kBuffer : ParamKind::kHandle;
      param.dtype = b.dtype;
      param.buffer = b.name;
      for (const auto& d : b.shape) collect_vars(*d, f.sym_vars, seen_sym);
    } else {
      param.name = var_name(p);
      param.dtype = dtype_of(p);
      param.kind = param.dtype == "handle" ? ParamKind::kHandle : ParamKind::kScalar;
    }
    f.params.push_back(std::move(param));
  }
  if (auto b = g_.ref(idx, "body")) f.body = stmt(*b);
  cur_buffers_ = nullptr;
  return f;
}

void Reader::collect_vars(const Expr& e, std::vector<std::string>& out, std::set<std::string>& seen) {
  if (e.kind == ExprKind::kVar) {
    if (seen.insert(e.name).second) out.push_back(e.name);
    return;
  }
  for (const auto& a : e.args) {
    if (a) collect_vars(*a, out, seen);
  }
}

std::map<std::string, std::string> Reader::dict_attrs(std::size_t idx) {
  std::map<std::string, std::string> out;
  if (g_.type(idx) == "Map") {
    for (const auto& e : g_.map(idx)) out[key_text(e)] = value_text(e.value, 0);
    return out;
  }
  if (g_.type(idx) != "DictAttrs") g_.fail(idx, "", "expected DictAttrs");
  for (const auto& e : g_.map_field(idx, "__dict__")) out[key_text(e)] = value_text(e.value, 0);
  return out;
}

std::string Reader::key_text(const tvm_json::MapEntry& e) {
  if (!e.key_node) return e.key_text;
  if (g_.type(*e.key_node) == "String") return g_.string_node(*e.key_node);
  return value_text(*e.key_node, 0);
}

std::string Reader::value_text(std::size_t idx, int level) {
  if (level > 16) return "...";
  bump(1, idx);
  const std::string& t = g_.type(idx);
  if (t.empty()) return "None";
  if (t == "String") return g_.string_node(idx);
  if (t == "IntImm") {
    const std::string dtype = g_.text(idx, "dtype");
    const auto v = g_.integer(idx, "value");
    if (dtype == "bool") return v != 0 ? "True" : "False";
    return std::to_string(v);
  }
  if (t == "FloatImm") return fmt_double(g_.real(idx, "value"));
  if (t == "bool") return g_.boxed_int(idx).value_or(0) != 0 ? "True" : "False";
  if (auto bi = g_.boxed_int(idx)) return std::to_string(*bi);
  if (auto bf = g_.boxed_float(idx)) return fmt_double(*bf);
  if (t == "Array") {
    std::string s = "[";
    bool first = true;
    for (const std::size_t e : g_.array(idx)) {
      if (!first) s += ", ";
      first = false;
      s += value_text(e, level + 1);
    }
    return s + "]";
  }
  if (t == "Map") {
    std::string s = "{";
    bool first = true;
    for (const auto& e : g_.map(idx)) {
      if (!first) s += ", ";
      first = false;
      s += "\"" + (e.key_node ? value_text(*e.key_node, level + 1) : e.key_text) +
           "\": " + value_text(e.value, level + 1);
    }
    return s + "}";
  }
  if (t == "tir.Var" || t == "tir.SizeVar") return var_name(idx);
  if (t == "GlobalVar") return g_.text(idx, "name_hint");
  if (t == "Target") return "Target";
  return g_.raw_type(idx);
}

std::string Reader::var_name(std::size_t idx) {
  const std::string& t = g_.type(idx);
  if (t != "tir.Var" && t != "tir.SizeVar" && t != "relax.Var" && t != "relax.DataflowVar" && t != "Var") {
    g_.fail(idx, "", "expected a variable");
  }
  std::string n = g_.has(idx, "name_hint") ? g_.text(idx, "name_hint") : g_.text(idx, "name");
  if (n.empty() && g_.has(idx, "vid")) {  // legacy relax.Var: vid -> relax.Id(name_hint)
    if (auto vid = g_.ref(idx, "vid")) n = g_.text(*vid, "name_hint");
  }
  if (n.empty()) n = "v" + std::to_string(idx);
  return n;
}

std::string Reader::dtype_of(std::size_t idx) {
  std::string d = g_.text(idx, "dtype");
  if (!d.empty()) return d;
  for (const char* f : {"type_annotation", "ty"}) {
    if (auto ty = g_.ref(idx, f)) {
      const std::string& tt = g_.type(*ty);
      if (tt == "PrimType") return g_.text(*ty, "dtype");
      if (tt == "PointerType") return "handle";
    }
  }
  return "";
}

std::string Reader::var_scope(std::size_t var) {
  for (const char* f : {"type_annotation", "ty"}) {
    if (auto ty = g_.ref(var, f)) {
      if (g_.type(*ty) == "PointerType") {
        std::string s = g_.text(*ty, "storage_scope");
        return s == "global" ? std::string() : s;
      }
    }
  }
  return "";
}

const Buffer& Reader::buffer(std::size_t idx) {
  if (auto it = buffer_memo_.find(idx); it != buffer_memo_.end()) {
    bump(it->second.second, idx);
    return it->second.first;
  }
  if (g_.type(idx) != "tir.Buffer") g_.fail(idx, "", "expected a tir.Buffer");
  const std::int64_t before = expanded_;
  Buffer b;
  {
    Enter guard(*this, idx);
    b.name = g_.text(idx, "name");
    if (b.name.empty()) b.name = "buffer_" + std::to_string(idx);
    b.dtype = g_.text(idx, "dtype");
    b.loc = Loc{fname_, 0, 0};
    for (const std::size_t d : g_.array_field(idx, "shape")) b.shape.push_back(expr(d));
    if (auto data = g_.ref(idx, "data")) {
      const std::string& dt = g_.type(*data);
      if (dt == "tir.Var" || dt == "tir.SizeVar") b.scope = var_scope(*data);
    }
  }
  if (cur_buffers_ != nullptr) cur_buffers_->emplace(b.name, b);
  auto& slot = buffer_memo_[idx];
  slot = {std::move(b), expanded_ - before};
  return slot.first;
}

RelaxFunc Reader::relax_func(std::size_t idx, const std::string& given_name) {
  Enter guard(*this, idx);
  RelaxFunc f;
  f.loc = Loc{fname_, 0, 0};
  if (auto a = g_.ref(idx, "attrs")) f.attrs = dict_attrs(*a);
  f.name = !given_name.empty()                   ? given_name
           : f.attrs.count("global_symbol") != 0 ? f.attrs["global_symbol"]
                                                 : std::string("main");
  std::set<std::string> seen_sym;
  for (const std::size_t p : g_.array_field(idx, "params")) {
    RelaxParam rp;
    rp.name = var_name(p);
    rp.sinfo = var_sinfo(p);
    if (rp.sinfo) {
      for (const auto& d : rp.sinfo->dims) collect_vars(*d, f.sym_vars, seen_sym);
    }
    f.params.push_back(std::move(rp));
  }
  if (auto body = g_.ref(idx, "body")) {
    if (g_.type(*body) == "relax.SeqExpr") {
      Enter body_guard(*this, *body);
      for (const std::size_t blk : g_.array_field(*body, "blocks")) {
        Enter blk_guard(*this, blk);
        for (const std::size_t bd : g_.array_field(blk, "bindings")) {
          const std::string& bt = g_.type(bd);
          if (bt != "relax.VarBinding" && bt != "relax.MatchCast") {
            g_.fail(bd, "", "expected a relax.VarBinding or relax.MatchCast");
          }
          Binding b;
          b.loc = f.loc;
          const std::size_t var = g_.ref_required(bd, "var");
          b.var = var_name(var);
          b.sinfo = var_sinfo(var);
          b.value = rexpr(g_.ref_required(bd, "value"));
          f.bindings.push_back(std::move(b));
          binding_nodes_.push_back(bd);
        }
      }
      if (auto r = g_.ref(*body, "body")) f.ret = rexpr(*r);
    } else {
      f.ret = rexpr(*body);
    }
  }
  return f;
}

StructInfoPtr Reader::var_sinfo(std::size_t var) {
  auto s = g_.has(var, "struct_info_") ? g_.ref(var, "struct_info_") : g_.ref(var, "ty");  // `ty`: 2026
  return s ? sinfo(*s) : nullptr;
}

StructInfoPtr Reader::sinfo(std::size_t idx) {
  Enter guard(*this, idx);
  auto si = make_node<StructInfo>();
  const std::string& t = g_.type(idx);
  if (t == "relax.TensorStructInfo") {
    si->kind = SInfoKind::kTensor;
    si->dtype = g_.text(idx, "dtype");
    const auto nd = g_.integer_opt(idx, "ndim").value_or(-1);
    si->ndim = nd < -1 || nd > 1'000'000 ? -1 : static_cast<int>(nd);
    if (auto sh = g_.ref(idx, "shape"); sh && g_.type(*sh) == "relax.ShapeExpr") {
      si->shape_known = true;
      const std::vector<std::size_t> values = g_.array_field(*sh, "values");
      si->dims = exprs(values);
      si->ndim = static_cast<int>(si->dims.size());
      // as the TVMScript reader's tensor_dim: a tensor's struct info has no unknown-extent marker (R.reshape's -1 is
      // in a ShapeExpr argument, not here), so a negative extent is refused at its node, not later at a workload
      for (std::size_t i = 0; i < values.size() && i < si->dims.size(); ++i)
        if (const Expr* d = si->dims[i].get(); d && d->kind == ExprKind::kInt && d->int_value < 0)
          g_.fail(values[i], "value",
                  "expected a non-negative tensor dimension, found " + std::to_string(d->int_value));
    }
  } else if (t == "relax.ShapeStructInfo") {
    si->kind = SInfoKind::kShape;
    if (g_.ref(idx, "values")) {
      si->shape_known = true;
      si->dims = exprs(g_.array_field(idx, "values"));
    }
    const auto nd = g_.integer_opt(idx, "ndim").value_or(-1);
    si->ndim =
        si->shape_known ? static_cast<int>(si->dims.size()) : (nd < -1 || nd > 1'000'000 ? -1 : static_cast<int>(nd));
  } else if (t == "relax.TupleStructInfo" || t == "TupleType") {
    si->kind = SInfoKind::kTuple;
    for (const std::size_t f : g_.array_field(idx, "fields")) si->fields.push_back(sinfo(f));
  } else if (t == "relax.PrimStructInfo") {
    si->kind = SInfoKind::kPrim;
    si->dtype = g_.text(idx, "dtype");
  } else if (t == "relax.ObjectStructInfo") {
    si->kind = SInfoKind::kObject;
  } else {
    si->kind = SInfoKind::kUnknown;
  }
  return si;
}

RExprPtr Reader::rexpr(std::size_t idx) {
  Enter guard(*this, idx);
  auto r = make_node<RExpr>();
  r->loc = Loc{fname_, 0, 0};
  const std::string& t = g_.type(idx);
  if (t == "relax.Var" || t == "relax.DataflowVar" || t == "Var") {
    r->kind = RExprKind::kVar;
    r->name = var_name(idx);
  } else if (t == "GlobalVar") {
    r->kind = RExprKind::kGlobalFunc;
    r->name = g_.text(idx, "name_hint");
  } else if (t == "relax.Call" || t == "Call") {
    r->kind = RExprKind::kCall;
    if (auto op = g_.ref(idx, "op")) {
      std::string name = op_name(*op);
      if (g_.type(*op) == "Op" && name.rfind("relax.", 0) == 0) name = "R." + name.substr(6);
      if (g_.type(*op) == "relax.ExternFunc") name = g_.text(*op, "global_symbol");
      r->op = name;
    }
    for (const std::size_t a : g_.array_field(idx, "args")) r->args.push_back(rexpr(a));
    for (const std::size_t s : g_.array_field(idx, g_.has(idx, "ty_args") ? "ty_args" : "sinfo_args"))
      r->sinfo_args.push_back(sinfo(s));
  } else if (t == "relax.Tuple") {
    r->kind = RExprKind::kTuple;
    for (const std::size_t a : g_.array_field(idx, "fields")) r->args.push_back(rexpr(a));
  } else if (t == "relax.TupleGetItem") {
    r->kind = RExprKind::kTupleGetItem;
    r->args.push_back(rexpr(g_.ref_required(idx, "tuple_value")));
    const std::int64_t index = g_.integer(idx, "index");
    if (index < 0 || index > std::numeric_limits<std::int32_t>::max())
      g_.fail(idx, "index", "expected a tuple index in [0, 2^31), found " + std::to_string(index));
    r->index = static_cast<std::int32_t>(index);
  } else if (t == "relax.PrimValue") {
    r->kind = RExprKind::kPrimValue;
    r->prim = expr_field(idx, "value");
  } else if (t == "IntImm" || t == "FloatImm") {  // a bare PrimExpr argument (PrimValue phased out, #19891)
    r->kind = RExprKind::kPrimValue;
    r->prim = expr(idx);
  } else if (t == "relax.ShapeExpr") {
    r->kind = RExprKind::kShape;
    r->dims = exprs(g_.array_field(idx, "values"));
  } else if (t == "relax.StringImm") {
    r->kind = RExprKind::kString;
    r->name = g_.text(idx, "value");
  } else if (t == "relax.ExternFunc") {
    r->kind = RExprKind::kString;
    r->name = g_.text(idx, "global_symbol");
  } else if (t == "relax.Constant") {
    r->kind = RExprKind::kConstant;
  } else {
    r->kind = RExprKind::kOther;
    r->name = g_.raw_type(idx);
  }
  return r;
}

}  // namespace tenet_cost::ir::tvm_json

namespace tenet_cost::ir {

namespace {

using tvm_json::Graph;
using tvm_json::json;
using tvm_json::Reader;

Module read_graph_text(const std::string& text, const std::string& filename, int b64_level);

/// MetaSchedule database_workload.json: one `[shash, "<base64 of save_json>"]` per line.
Module read_workload_lines(const std::string& text, const std::string& filename, int b64_level) {
  Module out;
  out.source = filename;
  std::size_t pos = 0;
  std::uint32_t line_no = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    const std::size_t line_start = pos;
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json row;
    try {
      row = tvm_json::parse_json_text(line, filename);
    } catch (const InputError& e) {
      SourceLocation loc = e.where();
      loc.line = line_no;
      throw InputError(loc, e.detail());
    }
    (void)line_start;
    if (!row.is_array() || row.size() < 2 || !row[1].is_string()) {
      throw InputError(
          SourceLocation{filename, line_no, 1},
          "expected a MetaSchedule workload line [shash, \"<base64 JSON>\"], found " + tvm_json::excerpt(row));
    }
    const std::string what = filename + ":" + std::to_string(line_no) + " (base64 workload)";
    const std::string decoded = tvm_json::base64_decode(row[1].get_ref<const std::string&>(), what);
    Module m = read_graph_text(decoded, what, b64_level + 1);
    if (out.format.empty()) out.format = m.format;
    for (auto& f : m.prim_funcs) out.prim_funcs.push_back(std::move(f));
    for (auto& f : m.relax_funcs) out.relax_funcs.push_back(std::move(f));
  }
  if (out.format.empty()) throw InputError(SourceLocation{filename, 0, 0}, "no workload lines found");
  return out;
}

Module read_graph_text(const std::string& text, const std::string& filename, int b64_level) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError(SourceLocation{filename, 0, 0}, "empty input, expected TVM JSON");
  if (text[first] == '[') {
    if (b64_level >= tvm_json::kMaxBase64Nesting) {
      throw InputError(SourceLocation{filename, 0, 0}, "base64 workloads nested too deeply");
    }
    return read_workload_lines(text, filename, b64_level);
  }
  const json doc = tvm_json::parse_json_text(text, filename);
  const Graph g(doc, filename, b64_level == 0 ? &text : nullptr);
  Reader r(g);
  return r.read_root();
}

}  // namespace

Module read_tvm_json(const std::string& text, const std::string& filename) {
  return read_graph_text(text, filename, 0);
}

}  // namespace tenet_cost::ir
