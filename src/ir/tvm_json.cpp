// TVM JSON (tvm.ir.save_json) -> typed IR. See docs/ir-json.md.
//
// The node graph is converted recursively with
//  - a depth limit (kMaxGraphDepth) and an "in progress" mark per node, so a
//    cyclic or absurdly deep graph is an InputError, never a stack overflow;
//  - memoisation per function, so shared sub-trees are converted once, and a
//    budget on the size of the *expanded* tree (kMaxExpandedNodes), so a DAG
//    that doubles at every level cannot blow up later consumers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <unordered_map>

#include "ir/node_pool.hpp"
#include "ir/tvm_json_graph.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

namespace {

using tvm_json::Graph;
using tvm_json::json;

std::string fmt_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// Lanes encoded in a vector dtype ("int32x4" -> 4), 0 when there is none.
std::int64_t lanes_of_dtype(const std::string& dtype) {
  const auto t = parse_dtype(dtype);
  return t && dtype.find('x') != std::string::npos ? t->lanes : 0;
}

const std::unordered_map<std::string, BinOp>& binary_ops() {
  static const std::unordered_map<std::string, BinOp> m{
      {"tir.Add", BinOp::kAdd},  {"tir.Sub", BinOp::kSub},           {"tir.Mul", BinOp::kMul},
      {"tir.Div", BinOp::kDiv},  {"tir.FloorDiv", BinOp::kFloorDiv}, {"tir.FloorMod", BinOp::kFloorMod},
      {"tir.Min", BinOp::kMin},  {"tir.Max", BinOp::kMax},           {"tir.EQ", BinOp::kEq},
      {"tir.NE", BinOp::kNe},    {"tir.LT", BinOp::kLt},             {"tir.LE", BinOp::kLe},
      {"tir.GT", BinOp::kGt},    {"tir.GE", BinOp::kGe},             {"tir.And", BinOp::kAnd},
      {"tir.Or", BinOp::kOr},
  };
  return m;
}

bool is_stmt_type(const std::string& t) {
  static const std::set<std::string> s{
      "tir.SeqStmt",  "tir.For",      "tir.BlockRealize", "tir.Block",      "tir.BufferStore",
      "tir.IfThenElse", "tir.LetStmt", "tir.Evaluate",    "tir.Allocate",   "tir.DeclBuffer",
      "tir.AttrStmt", "tir.AssertStmt", "tir.While",      "tir.AllocBuffer", "tir.AllocateConst",
      "tir.Prefetch", "tir.BufferRealize", "tir.ProducerStore", "tir.ProducerRealize", "tir.Store"};
  return s.count(t) != 0;
}

bool is_expr_type(const std::string& t) {
  if (binary_ops().count(t) != 0) return true;
  static const std::set<std::string> s{
      "IntImm",       "FloatImm",     "tir.StringImm", "tir.Var",     "tir.SizeVar", "tir.BufferLoad",
      "tir.Mod",      "tir.Not",      "tir.Cast",      "tir.Select",  "tir.Ramp",    "tir.Broadcast",
      "tir.Call",     "tir.Let",      "tir.Shuffle",   "tir.Reduce",  "tir.Load",    "tir.ProducerLoad",
      "Bool",         "tir.IterVar"};
  return s.count(t) != 0;
}

class Reader {
 public:
  explicit Reader(const Graph& g) : g_(g), fname_(g.file()), state_(g.size(), 0) {}

  Module read_root() {
    Module m;
    m.source = g_.file();
    m.format = g_.ffi() ? "tvm-json-ffi" : "tvm-json-legacy";
    add_root(m, g_.root(), 0);
    return m;
  }

 private:
  // ----------------------------------------------------------- guards

  class Enter {
   public:
    Enter(Reader& r, std::size_t idx) : r_(r), idx_(idx) {
      if (r_.state_[idx_] != 0) {
        r_.g_.fail(idx_, "", "cyclic reference: the node refers back to itself");
      }
      if (++r_.depth_ > tvm_json::kMaxGraphDepth) {
        r_.g_.fail(idx_, "", "node graph nested deeper than " + std::to_string(tvm_json::kMaxGraphDepth) + " levels");
      }
      r_.state_[idx_] = 1;
      r_.bump(1, idx_);
    }
    ~Enter() {
      r_.state_[idx_] = 0;
      --r_.depth_;
    }
    Enter(const Enter&) = delete;
    Enter& operator=(const Enter&) = delete;

   private:
    Reader& r_;
    std::size_t idx_;
  };

  void bump(std::int64_t n, std::size_t idx) {
    expanded_ += n;
    if (expanded_ > tvm_json::kMaxExpandedNodes) {
      g_.fail(idx, "", "the function expands to more than " + std::to_string(tvm_json::kMaxExpandedNodes) +
                           " IR nodes (shared sub-trees are counted at each use)");
    }
  }

  void reset_function_state() {
    expr_memo_.clear();
    stmt_memo_.clear();
    buffer_memo_.clear();
    expanded_ = 0;
    cur_buffers_ = nullptr;
  }

  // ----------------------------------------------------------- roots

  void add_root(Module& m, std::size_t idx, int level) {
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
    g_.fail(idx, "", "unsupported root: expected an IRModule, a tir.PrimFunc, a relax.Function, or a TIR/Relax "
                     "statement or expression");
  }

  std::string global_var_name(std::size_t idx) {
    const std::string& t = g_.type(idx);
    if (t == "String") return g_.string_node(idx);
    if (t != "GlobalVar") g_.fail(idx, "", "expected a GlobalVar as a function key");
    return g_.text(idx, "name_hint");
  }

  void add_function(Module& m, std::size_t idx, const std::string& name, const std::string& synthetic) {
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
    } else if (t == "relax.Function") {
      m.relax_funcs.push_back(relax_func(idx, name));
    }
    // Other function kinds (relax.ExternFunc, ...) carry no IR to estimate.
  }

  // ----------------------------------------------------------- PrimFunc

  PrimFunc prim_func(std::size_t idx, const std::string& given_name) {
    Enter guard(*this, idx);
    PrimFunc f;
    f.loc = Loc{fname_, 0, 0};
    cur_buffers_ = &f.buffers;
    if (auto a = g_.ref(idx, "attrs")) f.attrs = dict_attrs(*a);
    f.is_private = f.attrs.count("global_symbol") == 0;
    f.name = !given_name.empty() ? given_name
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

  static void collect_vars(const Expr& e, std::vector<std::string>& out, std::set<std::string>& seen) {
    if (e.kind == ExprKind::kVar) {
      if (seen.insert(e.name).second) out.push_back(e.name);
      return;
    }
    for (const auto& a : e.args) {
      if (a) collect_vars(*a, out, seen);
    }
  }

  std::map<std::string, std::string> dict_attrs(std::size_t idx) {
    std::map<std::string, std::string> out;
    if (g_.type(idx) == "Map") {
      for (const auto& e : g_.map(idx)) out[key_text(e)] = value_text(e.value, 0);
      return out;
    }
    if (g_.type(idx) != "DictAttrs") g_.fail(idx, "", "expected DictAttrs");
    for (const auto& e : g_.map_field(idx, "__dict__")) out[key_text(e)] = value_text(e.value, 0);
    return out;
  }

  std::string key_text(const tvm_json::MapEntry& e) {
    if (!e.key_node) return e.key_text;
    if (g_.type(*e.key_node) == "String") return g_.string_node(*e.key_node);
    return value_text(*e.key_node, 0);
  }

  /// Attribute values as text: strings verbatim, integers in decimal, bools as
  /// True/False, floats with 17 significant digits, arrays/maps in Python form.
  std::string value_text(std::size_t idx, int level) {
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
        s += "\"" + (e.key_node ? value_text(*e.key_node, level + 1) : e.key_text) + "\": " + value_text(e.value, level + 1);
      }
      return s + "}";
    }
    if (t == "tir.Var" || t == "tir.SizeVar") return var_name(idx);
    if (t == "GlobalVar") return g_.text(idx, "name_hint");
    if (t == "Target") return "Target";
    return g_.raw_type(idx);
  }

  // ----------------------------------------------------------- vars / buffers

  std::string var_name(std::size_t idx) {
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

  // A TIR expression's dtype: the `dtype` field, or (TVM >= mid-2026, #19875) the PrimType in
  // `ty` ("handle" for a PointerType).
  std::string dtype_of(std::size_t idx) {
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

  /// Storage scope from a buffer's data var (PointerType.storage_scope).
  std::string var_scope(std::size_t var) {
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

  const Buffer& buffer(std::size_t idx) {
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

  // ----------------------------------------------------------- expressions

  std::vector<ExprPtr> exprs(const std::vector<std::size_t>& idxs) {
    std::vector<ExprPtr> out;
    out.reserve(idxs.size());
    for (const std::size_t i : idxs) out.push_back(expr(i));
    return out;
  }

  ExprPtr expr_field(std::size_t idx, const char* field) { return expr(g_.ref_required(idx, field)); }
  ExprPtr expr_opt(std::size_t idx, const char* field) {
    auto r = g_.ref(idx, field);
    return r ? expr(*r) : nullptr;
  }

  std::int64_t lanes(std::size_t idx, const std::string& dtype) {
    if (const auto l = lanes_of_dtype(dtype); l > 0) return l;
    if (!g_.has(idx, "lanes")) return 0;
    // lanes became a PrimExpr (a node reference) in TVM 0.16; before it was an int.
    const auto ver = g_.version();
    const bool as_ref = g_.ffi() || (ver && *ver >= std::make_pair(0, 16));
    if (!as_ref) return g_.integer(idx, "lanes");
    auto r = g_.ref(idx, "lanes");
    if (r && g_.type(*r) == "IntImm") return g_.integer(*r, "value");
    return 0;
  }

  // A node shared by several parents is built once; its expanded size is charged to
  // every parent (bump), so shared sub-trees still count against kMaxExpandedNodes.
  template <class Memo, class Build>
  auto memoized(Memo& memo, std::size_t idx, Build build) {
    if (auto it = memo.find(idx); it != memo.end()) {
      bump(it->second.second, idx);
      return it->second.first;
    }
    const std::int64_t before = expanded_;
    decltype(build()) node;
    {
      Enter guard(*this, idx);
      node = build();
    }
    memo[idx] = {node, expanded_ - before};
    return node;
  }

  ExprPtr expr(std::size_t idx) {
    return memoized(expr_memo_, idx, [&] { return build_expr(idx); });
  }

  ExprPtr build_expr(std::size_t idx) {
    const std::string& t = g_.type(idx);
    auto e = make_node<Expr>();
    e->loc = Loc{fname_, 0, 0};
    if (t.empty()) g_.fail(idx, "", "expected an expression, found null");
    if (auto b = binary_ops().find(t); b != binary_ops().end()) {
      e->kind = ExprKind::kBinary;
      e->bin_op = b->second;
      e->dtype = dtype_of(idx);
      e->args = {expr_field(idx, "a"), expr_field(idx, "b")};
      if (e->dtype.empty()) e->dtype = e->args[0]->dtype;
      return e;
    }
    if (t == "IntImm") {
      e->dtype = dtype_of(idx);
      e->int_value = g_.integer(idx, "value");
      e->kind = e->dtype == "bool" ? ExprKind::kBool : ExprKind::kInt;
      if (e->kind == ExprKind::kBool) e->int_value = e->int_value != 0 ? 1 : 0;
      return e;
    }
    if (t == "FloatImm") {
      e->kind = ExprKind::kFloat;
      e->dtype = dtype_of(idx);
      e->float_value = g_.real(idx, "value");
      return e;
    }
    if (t == "Bool" || t == "bool" || t == "int") {
      const auto v = g_.boxed_int(idx);
      e->kind = t == "int" ? ExprKind::kInt : ExprKind::kBool;
      e->dtype = t == "int" ? "int64" : "bool";
      e->int_value = v.value_or(0);
      return e;
    }
    if (t == "tir.StringImm") {
      e->kind = ExprKind::kString;
      e->name = g_.text(idx, "value");
      return e;
    }
    if (t == "tir.Var" || t == "tir.SizeVar" || t == "Var") {
      e->kind = ExprKind::kVar;
      e->name = var_name(idx);
      e->dtype = dtype_of(idx);
      return e;
    }
    if (t == "tir.BufferLoad") {
      e->kind = ExprKind::kLoad;
      const Buffer& b = buffer(g_.ref_required(idx, "buffer"));
      e->name = b.name;
      e->dtype = dtype_of(idx);
      if (e->dtype.empty()) e->dtype = b.dtype;
      e->args = exprs(g_.array_field(idx, "indices"));
      // `predicate` (masked vector loads, TVM >= 0.17) is read for validity and dropped:
      // the IR has no slot for it and it does not change the access pattern's extent.
      if (auto p = g_.ref(idx, "predicate")) (void)expr(*p);
      return e;
    }
    if (t == "tir.Mod") {
      e->kind = ExprKind::kCall;
      e->name = "truncmod";
      e->dtype = dtype_of(idx);
      e->args = {expr_field(idx, "a"), expr_field(idx, "b")};
      return e;
    }
    if (t == "tir.Not") {
      e->kind = ExprKind::kUnary;
      e->un_op = UnOp::kNot;
      e->dtype = "bool";
      e->args = {expr_field(idx, "a")};
      return e;
    }
    if (t == "tir.Cast") {
      e->kind = ExprKind::kCast;
      e->dtype = dtype_of(idx);
      e->args = {expr_field(idx, "value")};
      return e;
    }
    if (t == "tir.Select") {
      e->kind = ExprKind::kSelect;
      e->dtype = dtype_of(idx);
      e->args = {expr_field(idx, "condition"), expr_field(idx, "true_value"), expr_field(idx, "false_value")};
      return e;
    }
    if (t == "tir.Ramp") {
      e->kind = ExprKind::kRamp;
      e->dtype = dtype_of(idx);
      e->args = {expr_field(idx, "base"), expr_field(idx, "stride")};
      e->int_value = lanes(idx, e->dtype);
      return e;
    }
    if (t == "tir.Broadcast") {
      e->kind = ExprKind::kBroadcast;
      e->dtype = dtype_of(idx);
      e->args = {expr_field(idx, "value")};
      e->int_value = lanes(idx, e->dtype);
      return e;
    }
    if (t == "tir.Call" || t == "Call") {
      e->dtype = dtype_of(idx);
      e->args = exprs(g_.array_field(idx, "args"));
      std::string op;
      if (auto o = g_.ref(idx, "op")) op = op_name(*o);
      if (op.rfind("tir.", 0) == 0) op = op.substr(4);
      if (op.rfind("tirx.", 0) == 0) op = op.substr(5);
      if (op == "if_then_else" && e->args.size() == 3) {
        e->kind = ExprKind::kSelect;
        return e;
      }
      e->kind = ExprKind::kCall;
      e->name = op;
      return e;
    }
    // Anything else (tir.Let, tir.Shuffle, tir.Reduce, or a non-expression in an
    // expression slot) is kept as kOther, named after its type.
    e->kind = ExprKind::kOther;
    e->name = g_.raw_type(idx);
    e->dtype = dtype_of(idx);
    return e;
  }

  std::string op_name(std::size_t idx) {
    const std::string& t = g_.type(idx);
    if (t == "Op") {
      std::string n = g_.ffi() ? std::string() : g_.string_node(idx);  // legacy: repr_str holds the name
      if (n.empty()) n = g_.text(idx, "name");
      return n;
    }
    if (t == "GlobalVar") return g_.text(idx, "name_hint");
    if (t == "String") return g_.string_node(idx);
    return g_.raw_type(idx);
  }

  // ----------------------------------------------------------- statements

  std::shared_ptr<Stmt> make_stmt(StmtKind k) {
    auto s = make_node<Stmt>();
    s->kind = k;
    s->loc = Loc{fname_, 0, 0};
    return s;
  }

  StmtPtr stmt_opt(std::size_t idx, const char* field) {
    auto r = g_.ref(idx, field);
    return r ? stmt(*r) : nullptr;
  }

  StmtPtr stmt(std::size_t idx) {
    return memoized(stmt_memo_, idx, [&] { return build_stmt(idx); });
  }

  // A negative constant loop / axis extent (docs/ir-json.md): refused, never a negative shape.
  void nonnegative_extent(std::size_t idx, const ExprPtr& extent) {
    if (extent && extent->kind == ExprKind::kInt && extent->int_value < 0)
      g_.fail(idx, "extent", "expected a non-negative extent, found " + std::to_string(extent->int_value));
  }

  Range range(std::size_t idx) {
    if (g_.type(idx) != "Range") g_.fail(idx, "", "expected a Range");
    Range r{expr_field(idx, "min"), expr_field(idx, "extent")};
    nonnegative_extent(idx, r.extent);
    return r;
  }

  BufferRegion buffer_region(std::size_t idx) {
    if (g_.type(idx) != "tir.BufferRegion") g_.fail(idx, "", "expected a tir.BufferRegion");
    BufferRegion r;
    r.buffer = buffer(g_.ref_required(idx, "buffer")).name;
    for (const std::size_t d : g_.array_field(idx, "region")) r.region.push_back(range(d));
    return r;
  }

  std::shared_ptr<Block> block(std::size_t idx, const std::vector<ExprPtr>& bindings, ExprPtr predicate) {
    if (g_.type(idx) != "tir.Block") g_.fail(idx, "", "expected a tir.Block");
    auto b = make_node<Block>();
    b->loc = Loc{fname_, 0, 0};
    b->name = g_.text(idx, "name_hint");
    const auto ivs = g_.array_field(idx, "iter_vars");
    if (!bindings.empty() && bindings.size() != ivs.size()) {
      g_.fail(idx, "iter_vars", std::to_string(ivs.size()) + " iter_vars but the BlockRealize binds " +
                                    std::to_string(bindings.size()) + " values");
    }
    for (std::size_t k = 0; k < ivs.size(); ++k) {
      const std::size_t iv = ivs[k];
      if (g_.type(iv) != "tir.IterVar") g_.fail(iv, "", "expected a tir.IterVar in a block's iter_vars");
      IterVar v;
      v.name = var_name(g_.ref_required(iv, "var"));
      switch (g_.integer_opt(iv, "iter_type").value_or(0)) {
        case 0: v.kind = IterKind::kSpatial; break;
        case 2: v.kind = IterKind::kReduce; break;
        case 3: v.kind = IterKind::kOrdered; break;
        default: v.kind = IterKind::kOpaque; break;
      }
      if (auto dom = g_.ref(iv, "dom")) {
        const Range r = range(*dom);
        v.min = r.min;
        v.extent = r.extent;
      }
      if (k < bindings.size()) v.binding = bindings[k];
      b->iter_vars.push_back(std::move(v));
    }
    for (const std::size_t r : g_.array_field(idx, "reads")) b->reads.push_back(buffer_region(r));
    for (const std::size_t w : g_.array_field(idx, "writes")) b->writes.push_back(buffer_region(w));
    for (const std::size_t a : g_.array_field(idx, "alloc_buffers")) b->alloc_buffers.push_back(buffer(a));
    for (const std::size_t mb : g_.array_field(idx, "match_buffers")) {
      if (auto mbuf = g_.ref(mb, "buffer"); mbuf && g_.type(*mbuf) == "tir.Buffer") (void)buffer(*mbuf);
    }
    for (const auto& e : g_.map_field(idx, "annotations")) b->annotations[key_text(e)] = value_text(e.value, 0);
    b->predicate = std::move(predicate);
    b->init = stmt_opt(idx, "init");
    b->body = stmt_opt(idx, "body");
    return b;
  }

  StmtPtr build_stmt(std::size_t idx) {
    const std::string& t = g_.type(idx);
    if (t == "tir.SeqStmt") {
      auto s = make_stmt(StmtKind::kSeq);
      for (const std::size_t c : g_.array_field(idx, "seq")) s->children.push_back(stmt(c));
      return s;
    }
    if (t == "tir.For") {
      auto s = make_stmt(StmtKind::kFor);
      s->var = var_name(g_.ref_required(idx, "loop_var"));
      s->min = expr_field(idx, "min");
      s->extent = expr_field(idx, "extent");
      nonnegative_extent(idx, s->extent);
      const auto kind = g_.integer_opt(idx, "kind").value_or(0);
      switch (kind) {
        case 0: s->for_kind = ForKind::kSerial; break;
        case 1: s->for_kind = ForKind::kParallel; break;
        case 2: s->for_kind = ForKind::kVectorized; break;
        case 3: s->for_kind = ForKind::kUnrolled; break;
        case 4: s->for_kind = ForKind::kThreadBinding; break;
        default: g_.fail(idx, "kind", "unknown loop kind " + std::to_string(kind) + " (expected 0..4)");
      }
      if (auto tb = g_.ref(idx, "thread_binding"); tb && g_.type(*tb) == "tir.IterVar") {
        s->thread_tag = g_.text(*tb, "thread_tag");
      }
      s->body = stmt(g_.ref_required(idx, "body"));
      return s;
    }
    if (t == "tir.BlockRealize") {
      auto s = make_stmt(StmtKind::kBlock);
      const auto values = exprs(g_.array_field(idx, "iter_values"));
      ExprPtr pred = expr_opt(idx, "predicate");
      if (pred && (pred->kind == ExprKind::kBool || pred->kind == ExprKind::kInt) && pred->int_value == 1) pred = nullptr;
      const std::size_t bidx = g_.ref_required(idx, "block");
      const auto ivs = g_.type(bidx) == "tir.Block" ? g_.array_field(bidx, "iter_vars") : std::vector<std::size_t>{};
      if (values.size() != ivs.size()) {
        g_.fail(idx, "iter_values", std::to_string(values.size()) + " iter_values for a block with " +
                                        std::to_string(ivs.size()) + " iter_vars");
      }
      Enter guard(*this, bidx);
      s->block = block(bidx, values, std::move(pred));
      return s;
    }
    if (t == "tir.Block") {  // a bare block (no realize): iter vars without bindings
      auto s = make_stmt(StmtKind::kBlock);
      s->block = block(idx, {}, nullptr);
      return s;
    }
    if (t == "tir.BufferStore") {
      auto s = make_stmt(StmtKind::kStore);
      s->buffer = buffer(g_.ref_required(idx, "buffer")).name;
      s->indices = exprs(g_.array_field(idx, "indices"));
      s->value = expr_field(idx, "value");
      if (auto p = g_.ref(idx, "predicate")) (void)expr(*p);  // validated, dropped (see BufferLoad)
      return s;
    }
    if (t == "tir.IfThenElse") {
      auto s = make_stmt(StmtKind::kIf);
      s->value = expr_field(idx, "condition");
      s->body = stmt(g_.ref_required(idx, "then_case"));
      s->else_body = stmt_opt(idx, "else_case");
      return s;
    }
    if (t == "tir.LetStmt") {
      auto s = make_stmt(StmtKind::kLet);
      s->var = var_name(g_.ref_required(idx, "var"));
      s->value = expr_field(idx, "value");
      s->body = stmt(g_.ref_required(idx, "body"));
      return s;
    }
    if (t == "tir.Evaluate") {
      auto s = make_stmt(StmtKind::kEvaluate);
      s->value = expr_field(idx, "value");
      return s;
    }
    if (t == "tir.Allocate") {
      auto s = make_stmt(StmtKind::kAlloc);
      const std::size_t var = g_.ref_required(idx, "buffer_var");
      Buffer b;
      b.name = var_name(var);
      b.dtype = g_.text(idx, "dtype");
      b.scope = var_scope(var);
      b.loc = s->loc;
      for (const std::size_t d : g_.array_field(idx, "extents")) b.shape.push_back(expr(d));
      std::size_t body = g_.ref_required(idx, "body");
      // Allocate + DeclBuffer over the same data var is what T.alloc_buffer prints as.
      if (g_.type(body) == "tir.DeclBuffer") {
        if (auto db = g_.ref(body, "buffer"); db && g_.type(*db) == "tir.Buffer" && g_.ref(*db, "data") == var) {
          b = buffer(*db);
          body = g_.ref_required(body, "body");
        }
      }
      if (cur_buffers_ != nullptr) cur_buffers_->emplace(b.name, b);
      s->alloc = b;
      s->body = stmt(body);
      return s;
    }
    if (t == "tir.AllocBuffer") {
      auto s = make_stmt(StmtKind::kAlloc);
      s->alloc = buffer(g_.ref_required(idx, "buffer"));
      s->body = stmt_opt(idx, "body");
      return s;
    }
    if (t == "tir.DeclBuffer") {  // registers the buffer; the scope continues
      (void)buffer(g_.ref_required(idx, "buffer"));
      if (auto body = g_.ref(idx, "body")) return stmt(*body);
      return make_stmt(StmtKind::kSeq);
    }
    if (t == "tir.AttrStmt" || t == "tir.AssertStmt") {  // transparent wrappers
      if (auto body = g_.ref(idx, "body")) return stmt(*body);
    }
    auto s = make_stmt(StmtKind::kOther);
    std::string text = g_.raw_type(idx);
    if (t == "tir.AttrStmt") text += " " + g_.text(idx, "attr_key");
    s->text = text;
    return s;
  }

  // ----------------------------------------------------------- Relax

  RelaxFunc relax_func(std::size_t idx, const std::string& given_name) {
    Enter guard(*this, idx);
    RelaxFunc f;
    f.loc = Loc{fname_, 0, 0};
    if (auto a = g_.ref(idx, "attrs")) f.attrs = dict_attrs(*a);
    f.name = !given_name.empty() ? given_name
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
          }
        }
        if (auto r = g_.ref(*body, "body")) f.ret = rexpr(*r);
      } else {
        f.ret = rexpr(*body);
      }
    }
    return f;
  }

  StructInfoPtr var_sinfo(std::size_t var) {
    auto s = g_.has(var, "struct_info_") ? g_.ref(var, "struct_info_") : g_.ref(var, "ty");  // `ty`: 2026
    return s ? sinfo(*s) : nullptr;
  }

  StructInfoPtr sinfo(std::size_t idx) {
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
        si->dims = exprs(g_.array_field(*sh, "values"));
        si->ndim = static_cast<int>(si->dims.size());
      }
    } else if (t == "relax.ShapeStructInfo") {
      si->kind = SInfoKind::kShape;
      if (g_.ref(idx, "values")) {
        si->shape_known = true;
        si->dims = exprs(g_.array_field(idx, "values"));
      }
      const auto nd = g_.integer_opt(idx, "ndim").value_or(-1);
      si->ndim = si->shape_known ? static_cast<int>(si->dims.size()) : (nd < -1 || nd > 1'000'000 ? -1 : static_cast<int>(nd));
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

  RExprPtr rexpr(std::size_t idx) {
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

  const Graph& g_;
  FileName fname_;  // g_.file(), interned once
  std::vector<char> state_;
  int depth_ = 0;
  std::int64_t expanded_ = 0;
  std::unordered_map<std::size_t, std::pair<ExprPtr, std::int64_t>> expr_memo_;
  std::unordered_map<std::size_t, std::pair<StmtPtr, std::int64_t>> stmt_memo_;
  std::unordered_map<std::size_t, std::pair<Buffer, std::int64_t>> buffer_memo_;
  std::map<std::string, Buffer>* cur_buffers_ = nullptr;
};

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
      throw InputError(SourceLocation{filename, line_no, 1},
                       "expected a MetaSchedule workload line [shash, \"<base64 JSON>\"], found " +
                           tvm_json::excerpt(row));
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
  const Graph g(doc, filename);
  Reader r(g);
  return r.read_root();
}

}  // namespace

Module read_tvm_json(const std::string& text, const std::string& filename) {
  return read_graph_text(text, filename, 0);
}

}  // namespace tenet_cost::ir
