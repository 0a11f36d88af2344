// TVMScript lowering of TIR statements (tvmscript_lowerer.hpp): suites, loops, blocks and their axes,
// buffer regions.
#include "ir/tvmscript_lowerer.hpp"

namespace tenet_cost::ir::tvmscript {

using py::SK;

StmtPtr Lowerer::lower_suite(Stmt* const* body, std::uint32_t n) {
  std::vector<StmtPtr> out;
  lower_seq(body, 0, n, out);
  if (out.size() == 1) return out[0];
  auto seq = make_node<Stmt_>();
  seq->kind = StmtKind::kSeq;
  if (n > 0) seq->loc = loc(body[0]);
  seq->children = std::move(out);
  return seq;
}

void Lowerer::lower_seq(Stmt* const* body, std::uint32_t i, std::uint32_t n, std::vector<StmtPtr>& out) {
  for (; i < n; ++i) {
    bool consumed = false;
    StmtPtr s = lower_stmt(body[i], body, i, n, &consumed);
    if (s) out.push_back(std::move(s));
    if (consumed) return;
  }
}

// One case per TIR statement form; a form the lowering does not know is kept opaque (opaque_stmt).
StmtPtr Lowerer::lower_stmt(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n, bool* consumed_rest) {
  const NestGuard guard(*this, s);
  switch (s->kind) {
    case SK::kPass: return nullptr;
    case SK::kFor: return lower_for(s);
    case SK::kWith: return lower_with(s);
    case SK::kIf: return lower_if(s);
    case SK::kAssign: return lower_assign(s, body, i, n, consumed_rest);
    case SK::kAnnAssign: return lower_ann_assign(s, body, i, n, consumed_rest);
    case SK::kAugAssign: return lower_aug_assign(s);
    case SK::kExpr: return lower_expr_stmt(s);
    case SK::kAssert: {
      auto st = other_stmt(s);
      std::const_pointer_cast<Stmt_>(st)->value = expr(s->value);
      return st;
    }
    case SK::kWhile: return other_stmt(s, lower_suite(s->body, s->n_body));
    default: return opaque_stmt(s);
  }
}

StmtPtr Lowerer::opaque_stmt(const Stmt* s) {
  spdlog::debug("{}:{}:{}: keeping an unrecognised TIR statement as opaque: {}", file_, s->line, s->col, clip(span(s)));
  if (s->n_body > 0) return other_stmt(s, lower_suite(s->body, s->n_body));
  return other_stmt(s);
}

StmtPtr Lowerer::rest_of_scope(Stmt* const* body, std::uint32_t i, std::uint32_t n, bool* consumed_rest,
                               const Loc& seq_loc) {
  std::vector<StmtPtr> tail;
  lower_seq(body, i + 1, n, tail);
  *consumed_rest = true;
  if (tail.size() == 1) return tail[0];
  auto seq = make_node<Stmt_>();
  seq->kind = StmtKind::kSeq;
  seq->loc = seq_loc;
  seq->children = std::move(tail);
  return seq;
}

StmtPtr Lowerer::lower_with(const Stmt* s) {
  if (s->n_items != 1) return opaque_stmt(s);
  const Node* item = s->items[0];
  if (item->kind != NK::kCall) return opaque_stmt(s);
  const std::string_view m = member_of(item->a, Ns::kTir);
  if (m == "block" || m == "sblock") return lower_block(s, item);
  if (m == "LetStmt" || m == "let") {
    // with T.LetStmt(value, var=x):
    const auto pos = positional(item);
    const Node* var = kwarg(item, "var");
    if (var == nullptr && pos.size() >= 2) var = pos[1];
    if (pos.empty() || var == nullptr || var->kind != NK::kName) return opaque_stmt(s);
    auto st = make_node<Stmt_>();
    st->kind = StmtKind::kLet;
    st->loc = loc(s);
    st->var = var->text;
    st->value = expr(pos[0]);
    if (var_dtype(var->text).empty() && !st->value->dtype.empty()) var_dtypes_[var->text] = "";
    st->body = lower_suite(s->body, s->n_body);
    return st;
  }
  // T.init() outside a block's top level, and any other `with`: an opaque wrapper
  return other_stmt(s, lower_suite(s->body, s->n_body));
}

StmtPtr Lowerer::lower_if(const Stmt* s) {
  auto st = make_node<Stmt_>();
  st->kind = StmtKind::kIf;
  st->loc = loc(s);
  st->value = expr(s->value);
  st->body = lower_suite(s->body, s->n_body);
  if (s->n_orelse > 0) st->else_body = lower_suite(s->orelse, s->n_orelse);
  return st;
}

StmtPtr Lowerer::lower_assign(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n, bool* consumed_rest) {
  if (s->n_targets != 1) return opaque_stmt(s);
  const Node* t = s->target;
  const Node* v = s->value;
  if (fn_ != nullptr && sym_var_decl(s, fn_->sym_vars, true)) return nullptr;
  if (t->kind == NK::kSubscript && t->a->kind == NK::kName) {
    auto st = make_node<Stmt_>();
    st->kind = StmtKind::kStore;
    st->loc = loc(s);
    st->buffer = t->a->text;
    st->indices.reserve(t->n);
    for (std::uint32_t k = 0; k < t->n; ++k) st->indices.push_back(expr(t->kids[k]));
    st->value = expr(v);
    return st;
  }
  if (t->kind == NK::kName && v->kind == NK::kCall) {
    const std::string_view m = member_of(v->a, Ns::kTir);
    if (m == "alloc_buffer" || m == "sblock_alloc_buffer" || m == "decl_buffer" || m == "match_buffer") {
      Buffer b = buffer_from_call(t->text, v, m == "match_buffer" ? 1 : 0, t);
      auto [it, ins] = fn_->buffers.insert_or_assign(b.name, b);
      buf_dtypes_[std::string_view(it->first)] = std::string_view(it->second.dtype);
      auto st = make_node<Stmt_>();
      st->kind = StmtKind::kAlloc;
      st->loc = loc(s);
      st->alloc = std::move(b);
      st->body = rest_of_scope(body, i, n, consumed_rest, i + 1 < n ? loc(body[i + 1]) : loc(s));
      return st;
    }
  }
  if (t->kind == NK::kName) {
    // x = e  : a let binding over the rest of the scope
    auto st = make_node<Stmt_>();
    st->kind = StmtKind::kLet;
    st->loc = loc(s);
    st->var = t->text;
    st->value = expr(v);
    var_dtypes_[t->text] = "";
    st->body = rest_of_scope(body, i, n, consumed_rest, loc(s));
    return st;
  }
  return opaque_stmt(s);
}

StmtPtr Lowerer::lower_ann_assign(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n,
                                  bool* consumed_rest) {
  // x: T.int32 = e  (a let over the rest of the scope)
  if (s->target->kind != NK::kName || s->value == nullptr) return opaque_stmt(s);
  auto st = make_node<Stmt_>();
  st->kind = StmtKind::kLet;
  st->loc = loc(s);
  st->var = s->target->text;
  const std::string_view m = member_of(s->annotation, Ns::kTir);
  if (is_dtype_name(m)) var_dtypes_[s->target->text] = m;
  st->value = expr(s->value);
  st->body = rest_of_scope(body, i, n, consumed_rest, loc(s));
  return st;
}

StmtPtr Lowerer::lower_aug_assign(const Stmt* s) {
  const Node* t = s->target;
  if (t->kind != NK::kSubscript || t->a->kind != NK::kName) return opaque_stmt(s);
  const std::optional<BinOp> op = arith_op(s->op);
  if (!op) return other_stmt(s);
  auto st = make_node<Stmt_>();
  st->kind = StmtKind::kStore;
  st->loc = loc(s);
  st->buffer = t->a->text;
  for (std::uint32_t k = 0; k < t->n; ++k) st->indices.push_back(expr(t->kids[k]));
  ExprPtr lhs = load(t);
  st->value = binary(*op, lhs, expr(s->value), t);
  return st;
}

StmtPtr Lowerer::lower_expr_stmt(const Stmt* s) {
  const Node* v = s->value;
  if (v->kind == NK::kString) return nullptr;  // docstring / comment string
  auto st = make_node<Stmt_>();
  st->kind = StmtKind::kEvaluate;
  st->loc = loc(s);
  if (v->kind == NK::kCall && member_of(v->a, Ns::kTir) == "evaluate" && v->n == 1) st->value = expr(v->kids[0]);
  else st->value = expr(v);
  return st;
}

StmtPtr Lowerer::lower_for(const Stmt* s) {
  const Node* it = s->value;
  std::vector<const Node*> vars;
  if (s->target->kind == NK::kName) {
    vars.push_back(s->target);
  } else if (s->target->kind == NK::kTuple) {
    for (std::uint32_t k = 0; k < s->target->n; ++k) vars.push_back(s->target->kids[k]);
  }
  for (const Node* v : vars)
    if (v->kind != NK::kName) return other_stmt(s, lower_suite(s->body, s->n_body));
  if (it->kind != NK::kCall || vars.empty()) return other_stmt(s, lower_suite(s->body, s->n_body));

  struct Loop {
    ExprPtr min, extent;
    ForKind kind = ForKind::kSerial;
    std::string thread;
  };
  std::vector<Loop> loops;
  const std::string_view m = member_of(it->a, Ns::kTir);
  const bool is_range = it->a->kind == NK::kName && it->a->text == "range";
  const auto pos = positional(it);
  auto zero_like = [&](const ExprPtr& e, const Node* at) {
    return int_lit(0, at, e->dtype.empty() ? std::string_view("int32") : std::string_view(e->dtype));
  };
  auto lo_hi = [&](Loop& l, const Node* a, const Node* b) {
    if (b == nullptr) {
      l.extent = expr(a);
      l.min = zero_like(l.extent, a);
      return;
    }
    l.min = expr(a);
    ExprPtr hi = expr(b);
    if (l.min->kind == ExprKind::kInt && hi->kind == ExprKind::kInt) {
      std::int64_t d = 0;
      if (__builtin_sub_overflow(hi->int_value, l.min->int_value, &d))
        throw InputError(loc(b), "expected a loop range whose extent fits in 64 bits, found " + clip(span(it)));
      l.extent = int_lit(d, b, hi->dtype);
    } else if (l.min->kind == ExprKind::kInt && l.min->int_value == 0) {
      l.extent = hi;
    } else {
      l.extent = binary(BinOp::kSub, hi, l.min, b);
    }
  };
  if (m == "grid") {
    if (pos.size() != vars.size() || !only_positional(it)) return other_stmt(s, lower_suite(s->body, s->n_body));
    for (const Node* e : pos) {
      Loop l;
      l.extent = expr(e);
      l.min = zero_like(l.extent, e);
      loops.push_back(std::move(l));
    }
  } else if (is_range || m == "serial" || m == "parallel" || m == "vectorized" || m == "unroll" ||
             m == "thread_binding") {
    if (vars.size() != 1) return other_stmt(s, lower_suite(s->body, s->n_body));
    Loop l;
    std::vector<const Node*> bounds;
    std::string_view thread;
    for (const Node* e : pos) {
      std::string_view sv;
      if (m == "thread_binding" && str_value(e, sv)) thread = sv;
      else bounds.push_back(e);
    }
    const Node* start_kw = kwarg(it, "start");
    const Node* stop_kw = kwarg(it, "stop");
    if (bounds.empty() && stop_kw != nullptr) {
      if (start_kw != nullptr) bounds.push_back(start_kw);
      bounds.push_back(stop_kw);
    }
    if (bounds.empty() || bounds.size() > 2 || (is_range && pos.size() > 2))
      return other_stmt(s, lower_suite(s->body, s->n_body));
    lo_hi(l, bounds[0], bounds.size() == 2 ? bounds[1] : nullptr);
    if (m == "parallel") l.kind = ForKind::kParallel;
    else if (m == "vectorized") l.kind = ForKind::kVectorized;
    else if (m == "unroll") l.kind = ForKind::kUnrolled;
    else if (m == "thread_binding") {
      l.kind = ForKind::kThreadBinding;
      std::string_view sv;
      if (str_value(kwarg(it, "thread"), sv)) thread = sv;
      l.thread = thread;
    }
    loops.push_back(std::move(l));
  } else {
    return other_stmt(s, lower_suite(s->body, s->n_body));
  }

  for (std::size_t k = 0; k < loops.size(); ++k) nonnegative_extent(loops[k].extent, m == "grid" ? pos[k] : it);
  const std::size_t mark = loops_.size();
  for (std::size_t k = 0; k < vars.size(); ++k) {
    loops_.push_back(LoopInfo{vars[k]->text, loops[k].min, loops[k].extent});
    var_dtypes_[vars[k]->text] = loops[k].extent->dtype;
  }
  StmtPtr inner = lower_suite(s->body, s->n_body);
  loops_.resize(mark);
  for (std::size_t k = vars.size(); k-- > 0;) {
    auto st = make_node<Stmt_>();
    st->kind = StmtKind::kFor;
    st->loc = k == 0 ? loc(s) : loc(vars[k]);
    st->var = vars[k]->text;
    st->min = loops[k].min;
    st->extent = loops[k].extent;
    st->for_kind = loops[k].kind;
    st->thread_tag = loops[k].thread;
    st->body = std::move(inner);
    inner = std::move(st);
  }
  return inner;
}

BufferRegion Lowerer::region(const Node* n) {
  BufferRegion r;
  if (n->kind == NK::kName) {
    // whole buffer
    r.buffer = n->text;
    const auto it = fn_->buffers.find(r.buffer);
    if (it != fn_->buffers.end())
      for (const auto& d : it->second.shape) {
        auto zero = std::make_shared<Expr>();  // as make_int(0, d->dtype, loc(n)), without re-interning the file name
        zero->kind = ExprKind::kInt;
        zero->dtype = d->dtype;
        zero->loc = loc(n);
        r.region.push_back(Range{std::move(zero), d});
      }
    return r;
  }
  if (n->kind != NK::kSubscript || n->a->kind != NK::kName) {
    r.buffer = clip(span(n));
    return r;
  }
  r.buffer = n->a->text;
  r.region.reserve(n->n);
  for (std::uint32_t k = 0; k < n->n; ++k) {
    const Node* ix = n->kids[k];
    if (ix->kind == NK::kSlice) {
      Range rg;
      rg.min = ix->a != nullptr ? expr(ix->a) : int_lit(0, ix);
      if (ix->b != nullptr) {
        ExprPtr hi = expr(ix->b);
        if (rg.min->kind == ExprKind::kInt && hi->kind == ExprKind::kInt) {
          std::int64_t d = 0;
          if (__builtin_sub_overflow(hi->int_value, rg.min->int_value, &d))
            throw InputError(loc(ix), "expected a region extent that fits in 64 bits, found " + clip(span(ix)));
          rg.extent = int_lit(d, ix->b, hi->dtype);
        } else if (rg.min->kind == ExprKind::kInt && rg.min->int_value == 0) {
          rg.extent = hi;
        } else {
          rg.extent = binary(BinOp::kSub, hi, rg.min, ix->b);
        }
      } else {
        // open slice: up to the buffer's extent
        const auto it = fn_->buffers.find(r.buffer);
        if (it != fn_->buffers.end() && k < it->second.shape.size())
          rg.extent = binary(BinOp::kSub, it->second.shape[k], rg.min, ix);
        else rg.extent = other(ix);
      }
      r.region.push_back(std::move(rg));
    } else {
      ExprPtr e = expr(ix);
      ExprPtr one = int_lit(1, ix, e->dtype.empty() ? std::string_view("int32") : std::string_view(e->dtype));
      r.region.push_back(Range{std::move(e), std::move(one)});
    }
  }
  return r;
}

// v = T.axis.spatial(dom, binding) / reduce / S / R / opaque / scan, and
// a, b = T.axis.remap("SR", [i, j]).
bool Lowerer::axis_decl(const Stmt* s, Block& b) {
  if (s->kind != SK::kAssign || s->n_targets != 1 || s->value->kind != NK::kCall) return false;
  const Node* callee = s->value->a;
  if (callee->kind != NK::kAttr || callee->a->kind != NK::kAttr || callee->a->text != "axis" ||
      callee->a->a->kind != NK::kName || ns_of(callee->a->a->text) != Ns::kTir)
    return false;
  const std::string_view kind = callee->text;
  const Node* call = s->value;
  const auto pos = positional(call);
  if (kind == "remap") {
    std::string_view kinds;
    if (pos.size() != 2 || !str_value(pos[0], kinds)) return false;
    const Node* binds = pos[1];
    if (binds->kind != NK::kList && binds->kind != NK::kTuple) return false;
    std::vector<const Node*> targets;
    if (s->target->kind == NK::kName) targets.push_back(s->target);
    else if (s->target->kind == NK::kTuple || s->target->kind == NK::kList)
      for (std::uint32_t k = 0; k < s->target->n; ++k) targets.push_back(s->target->kids[k]);
    if (targets.size() != kinds.size() || binds->n != kinds.size()) return false;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      if (targets[k]->kind != NK::kName) return false;
      IterVar iv;
      iv.name = targets[k]->text;
      switch (kinds[k]) {
        case 'S': iv.kind = IterKind::kSpatial; break;
        case 'R': iv.kind = IterKind::kReduce; break;
        case 'O': iv.kind = IterKind::kOpaque; break;
        default: return false;
      }
      const Node* bind = binds->kids[k];
      iv.binding = expr(bind);
      // the domain is the bound loop's range
      if (bind->kind == NK::kName) {
        for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
          if (it->name == bind->text) {
            iv.min = it->min;
            iv.extent = it->extent;
            break;
          }
      }
      if (!iv.extent) {
        spdlog::debug("{}:{}:{}: T.axis.remap binds '{}', which is not an enclosing loop variable", file_, bind->line,
                      bind->col, clip(span(bind)));
        iv.min = int_lit(0, bind);
        iv.extent = other(bind);
      }
      var_dtypes_[targets[k]->text] = iv.binding->dtype;
      b.iter_vars.push_back(std::move(iv));
    }
    return true;
  }
  IterKind ik;
  if (kind == "spatial" || kind == "S") ik = IterKind::kSpatial;
  else if (kind == "reduce" || kind == "R") ik = IterKind::kReduce;
  else if (kind == "opaque" || kind == "O") ik = IterKind::kOpaque;
  else if (kind == "scan") ik = IterKind::kOrdered;
  else return false;
  if (s->target->kind != NK::kName || pos.size() != 2) return false;
  IterVar iv;
  iv.name = s->target->text;
  iv.kind = ik;
  const Node* dom = pos[0];
  if (dom->kind == NK::kTuple && dom->n == 2) {
    // T.axis.S((lo, hi), e)
    iv.min = expr(dom->kids[0]);
    ExprPtr hi = expr(dom->kids[1]);
    if (iv.min->kind == ExprKind::kInt && hi->kind == ExprKind::kInt) {
      std::int64_t d = 0;
      if (__builtin_sub_overflow(hi->int_value, iv.min->int_value, &d))
        throw InputError(loc(dom), "expected an axis range that fits in 64 bits, found " + clip(span(dom)));
      iv.extent = int_lit(d, dom->kids[1], hi->dtype);
    } else {
      iv.extent = binary(BinOp::kSub, hi, iv.min, dom);
    }
  } else {
    iv.extent = expr(dom);
    iv.min = int_lit(0, dom, iv.extent->dtype.empty() ? std::string_view("int32") : std::string_view(iv.extent->dtype));
  }
  nonnegative_extent(iv.extent, dom);
  iv.binding = expr(pos[1]);
  var_dtypes_[s->target->text] = iv.extent->dtype;
  b.iter_vars.push_back(std::move(iv));
  return true;
}

StmtPtr Lowerer::lower_block(const Stmt* s, const Node* item) {
  auto blk = make_node<Block>();
  blk->loc = loc(s);
  std::string_view name;
  const auto pos = positional(item);
  if ((!pos.empty() && str_value(pos[0], name)) || str_value(kwarg(item, "name_hint"), name)) blk->name = name;

  std::vector<Stmt*> rest;
  for (std::uint32_t k = 0; k < s->n_body; ++k) {
    Stmt* c = s->body[k];
    if (axis_decl(c, *blk)) continue;
    if (c->kind == SK::kExpr && c->value->kind == NK::kCall) {
      const std::string_view m = member_of(c->value->a, Ns::kTir);
      const Node* call = c->value;
      if (m == "reads" || m == "writes") {
        auto& dst = m == "reads" ? blk->reads : blk->writes;
        for (std::uint32_t a = 0; a < call->n; ++a) {
          const Node* r = call->kids[a];
          if (r->kind == NK::kList || r->kind == NK::kTuple) {
            for (std::uint32_t q = 0; q < r->n; ++q) dst.push_back(region(r->kids[q]));
          } else if (r->kind != NK::kKeyword) {
            dst.push_back(region(r));
          }
        }
        continue;
      }
      if (m == "where" && call->n == 1) {
        blk->predicate = expr(call->kids[0]);
        continue;
      }
      if (m == "block_attr") {
        if (call->n >= 1) read_dict(call->kids[0], blk->annotations);
        continue;
      }
    }
    if (c->kind == SK::kWith && c->n_items == 1 && c->items[0]->kind == NK::kCall &&
        member_of(c->items[0]->a, Ns::kTir) == "init") {
      blk->init = lower_suite(c->body, c->n_body);
      continue;
    }
    if (c->kind == SK::kAssign && c->n_targets == 1 && c->target->kind == NK::kName && c->value->kind == NK::kCall) {
      const std::string_view m = member_of(c->value->a, Ns::kTir);
      if (m == "alloc_buffer" || m == "sblock_alloc_buffer") {
        Buffer b = buffer_from_call(c->target->text, c->value, 0, c->target);
        auto [it, ins] = fn_->buffers.insert_or_assign(b.name, b);
        buf_dtypes_[std::string_view(it->first)] = std::string_view(it->second.dtype);
        blk->alloc_buffers.push_back(std::move(b));
        continue;
      }
      if (m == "match_buffer") {
        Buffer b = buffer_from_call(c->target->text, c->value, 1, c->target);
        auto [it, ins] = fn_->buffers.insert_or_assign(b.name, std::move(b));
        buf_dtypes_[std::string_view(it->first)] = std::string_view(it->second.dtype);
        continue;
      }
    }
    if (fn_ != nullptr && sym_var_decl(c, fn_->sym_vars, true)) continue;
    rest.push_back(c);
  }
  // TVM never prints a block without a body statement (an empty one is `T.evaluate(0)`): a block
  // that stops after its declarations or its T.init() is a cut dump.
  if (rest.empty())
    throw InputError(loc(s->n_body > 0 ? s->body[s->n_body - 1] : s),
                     "expected the body of block '" + blk->name +
                         "' after its declarations, found the end of the block (truncated dump?)");
  blk->body = lower_suite(rest.data(), static_cast<std::uint32_t>(rest.size()));
  auto st = make_node<Stmt_>();
  st->kind = StmtKind::kBlock;
  st->loc = loc(s);
  st->block = std::move(blk);
  return st;
}

// ------------------------------------------------------------ TIR expressions

}  // namespace tenet_cost::ir::tvmscript
