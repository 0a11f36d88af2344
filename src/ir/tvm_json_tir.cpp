// TVM JSON -> typed IR: the Reader's TIR expressions and statements (tvm_json_reader.hpp).
#include <string>

#include "ir/node_pool.hpp"
#include "ir/tvm_json_graph.hpp"
#include "ir/tvm_json_reader.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir::tvm_json {

namespace {

/// Lanes encoded in a vector dtype ("int32x4" -> 4), 0 when there is none.
std::int64_t lanes_of_dtype(const std::string& dtype) {
  const auto t = parse_dtype(dtype);
  return t && dtype.find('x') != std::string::npos ? t->lanes : 0;
}

}  // namespace

const std::unordered_map<std::string, BinOp>& binary_ops() {
  static const std::unordered_map<std::string, BinOp> m{
      {"tir.Add", BinOp::kAdd},
      {"tir.Sub", BinOp::kSub},
      {"tir.Mul", BinOp::kMul},
      {"tir.Div", BinOp::kDiv},
      {"tir.FloorDiv", BinOp::kFloorDiv},
      {"tir.FloorMod", BinOp::kFloorMod},
      {"tir.Min", BinOp::kMin},
      {"tir.Max", BinOp::kMax},
      {"tir.EQ", BinOp::kEq},
      {"tir.NE", BinOp::kNe},
      {"tir.LT", BinOp::kLt},
      {"tir.LE", BinOp::kLe},
      {"tir.GT", BinOp::kGt},
      {"tir.GE", BinOp::kGe},
      {"tir.And", BinOp::kAnd},
      {"tir.Or", BinOp::kOr},
  };
  return m;
}

std::vector<ExprPtr> Reader::exprs(const std::vector<std::size_t>& idxs) {
  std::vector<ExprPtr> out;
  out.reserve(idxs.size());
  for (const std::size_t i : idxs) out.push_back(expr(i));
  return out;
}

ExprPtr Reader::expr_opt(std::size_t idx, const char* field) {
  auto r = g_.ref(idx, field);
  return r ? expr(*r) : nullptr;
}

std::int64_t Reader::lanes(std::size_t idx, const std::string& dtype) {
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

ExprPtr Reader::expr(std::size_t idx) {
  return memoized(expr_memo_, idx, [&] { return build_expr(idx); });
}

ExprPtr Reader::build_expr(std::size_t idx) {
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

std::string Reader::op_name(std::size_t idx) {
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

std::shared_ptr<Stmt> Reader::make_stmt(StmtKind k) {
  auto s = make_node<Stmt>();
  s->kind = k;
  s->loc = Loc{fname_, 0, 0};
  return s;
}

StmtPtr Reader::stmt_opt(std::size_t idx, const char* field) {
  auto r = g_.ref(idx, field);
  return r ? stmt(*r) : nullptr;
}

StmtPtr Reader::stmt(std::size_t idx) {
  return memoized(stmt_memo_, idx, [&] { return build_stmt(idx); });
}

void Reader::nonnegative_extent(std::size_t idx, const ExprPtr& extent) {
  if (extent && extent->kind == ExprKind::kInt && extent->int_value < 0)
    g_.fail(idx, "extent", "expected a non-negative extent, found " + std::to_string(extent->int_value));
}

Range Reader::range(std::size_t idx) {
  if (g_.type(idx) != "Range") g_.fail(idx, "", "expected a Range");
  Range r{expr_field(idx, "min"), expr_field(idx, "extent")};
  nonnegative_extent(idx, r.extent);
  return r;
}

BufferRegion Reader::buffer_region(std::size_t idx) {
  if (g_.type(idx) != "tir.BufferRegion") g_.fail(idx, "", "expected a tir.BufferRegion");
  BufferRegion r;
  r.buffer = buffer(g_.ref_required(idx, "buffer")).name;
  for (const std::size_t d : g_.array_field(idx, "region")) r.region.push_back(range(d));
  return r;
}

std::shared_ptr<Block> Reader::block(std::size_t idx, const std::vector<ExprPtr>& bindings, ExprPtr predicate) {
  if (g_.type(idx) != "tir.Block") g_.fail(idx, "", "expected a tir.Block");
  auto b = make_node<Block>();
  b->loc = Loc{fname_, 0, 0};
  b->name = g_.text(idx, "name_hint");
  const auto ivs = g_.array_field(idx, "iter_vars");
  if (!bindings.empty() && bindings.size() != ivs.size()) {
    g_.fail(idx, "iter_vars",
            std::to_string(ivs.size()) + " iter_vars but the BlockRealize binds " + std::to_string(bindings.size()) +
                " values");
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

StmtPtr Reader::build_stmt(std::size_t idx) {
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
      g_.fail(
          idx, "iter_values",
          std::to_string(values.size()) + " iter_values for a block with " + std::to_string(ivs.size()) + " iter_vars");
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

}  // namespace tenet_cost::ir::tvm_json
