// Expression helpers and the per-function index (buffers, stores, producers).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "extract/internal.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/ir_visitor.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprKind;
using ir::ExprPtr;

const Expr* strip_cast(const Expr* e) {
  while (e && e->kind == ExprKind::kCast && e->args.size() == 1) e = e->args[0].get();
  return e;
}

bool struct_eq(const Expr* a, const Expr* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->args.size() != b->args.size()) return false;
  switch (a->kind) {
    case ExprKind::kInt:
    case ExprKind::kBool:
      if (a->int_value != b->int_value) return false;
      break;
    case ExprKind::kFloat:
      if (a->float_value != b->float_value) return false;
      break;
    case ExprKind::kBinary:
      if (a->bin_op != b->bin_op) return false;
      break;
    case ExprKind::kUnary:
      if (a->un_op != b->un_op) return false;
      break;
    case ExprKind::kCast:
      if (a->dtype != b->dtype) return false;
      break;
    default: break;
  }
  if (a->name != b->name) return false;
  for (std::size_t i = 0; i < a->args.size(); ++i)
    if (!struct_eq(a->args[i].get(), b->args[i].get())) return false;
  return true;
}

void collect_vars(const Expr& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::kVar) out.insert(e.name);
  for (const auto& a : e.args)
    if (a) collect_vars(*a, out);
}

void collect_loads(const Expr& e, std::vector<const Expr*>& out, bool top_only) {
  if (e.kind == ExprKind::kLoad) {
    out.push_back(&e);
    if (top_only) return;
  }
  for (const auto& a : e.args)
    if (a) collect_loads(*a, out, top_only);
}

ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& m) {
  if (!e) return e;
  if (e->kind == ExprKind::kVar) {
    auto it = m.find(e->name);
    return it == m.end() ? e : it->second;
  }
  if (e->args.empty()) return e;
  bool changed = false;
  std::vector<ExprPtr> args;
  args.reserve(e->args.size());
  for (const auto& a : e->args) {
    args.push_back(substitute(a, m));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto n = std::make_shared<Expr>(*e);
  n->args = std::move(args);
  return n;
}

std::optional<std::int64_t> int_const(const Expr* e) {
  e = strip_cast(e);
  if (e && e->kind == ExprKind::kInt) return e->int_value;
  return std::nullopt;
}

namespace {

// The linear form of a binary expression whose operands are both present (linear_form's kBinary case).
std::optional<Linear> linear_binary(const Expr& x) {
  auto a = linear_form(*x.args[0]);
  auto b = linear_form(*x.args[1]);
  if (!a || !b) return std::nullopt;
  Linear r;
  if (x.bin_op == ir::BinOp::kAdd || x.bin_op == ir::BinOp::kSub) {
    const std::int64_t s = x.bin_op == ir::BinOp::kAdd ? 1 : -1;
    r = *a;
    for (const auto& [v, c] : b->coef) r.coef[v] = checked_add(r.coef[v], checked_mul(s, c));
    r.constant = checked_add(r.constant, checked_mul(s, b->constant));
    return r;
  }
  if (x.bin_op == ir::BinOp::kMul) {
    const Linear* k = nullptr;
    const Linear* v = nullptr;
    if (a->coef.empty()) {
      k = &*a;
      v = &*b;
    } else if (b->coef.empty()) {
      k = &*b;
      v = &*a;
    } else return std::nullopt;
    for (const auto& [n, c] : v->coef) r.coef[n] = checked_mul(c, k->constant);
    r.constant = checked_mul(v->constant, k->constant);
    return r;
  }
  return std::nullopt;
}

// The integer literal of largest magnitude under `e` that has a line (the likely cause of an overflow), or null.
const Expr* largest_literal(const Expr& e) {
  if (e.kind == ExprKind::kInt) return e.loc.line != 0 ? &e : nullptr;
  const Expr* best = nullptr;
  const auto magnitude = [](const Expr* x) {
    const auto v = static_cast<std::uint64_t>(x->int_value);
    return x->int_value < 0 ? ~v + 1 : v;
  };
  for (const auto& a : e.args)
    if (const Expr* l = a ? largest_literal(*a) : nullptr; l && (!best || magnitude(l) > magnitude(best))) best = l;
  return best;
}

}  // namespace

std::optional<Linear> linear_form(const Expr& e) {
  const Expr* x = strip_cast(&e);
  if (!x) return std::nullopt;
  Linear r;
  switch (x->kind) {
    case ExprKind::kInt: r.constant = x->int_value; return r;
    case ExprKind::kVar: r.coef[x->name] = 1; return r;
    case ExprKind::kBinary:
      if (x->args.size() != 2 || !x->args[0] || !x->args[1]) return std::nullopt;
      try {
        return linear_binary(*x);
      } catch (const OverflowError& err) {  // placed at the overflowing expression's largest literal, else at it
        const Expr* literal = largest_literal(*x);
        if (!literal && x->loc.line == 0) throw;
        throw InputError(literal ? literal->loc : x->loc, err.detail());
      }
    default: return std::nullopt;
  }
}

std::size_t node_count(const Expr& e, std::size_t limit) {
  std::size_t n = 1;
  for (const auto& a : e.args) {
    if (n > limit) break;
    if (a) n += node_count(*a, limit - std::min(limit, n));
  }
  return n;
}

int dtype_bits(const std::string& dtype) {
  return scalar_bits(parse_dtype(dtype));  // vector lanes are not expected here: not understood
}

// ------------------------------------------------------------------ debug log

namespace {
thread_local std::vector<std::string>* t_capture = nullptr;
}  // namespace

bool debug_enabled() { return spdlog::default_logger_raw()->should_log(spdlog::level::debug); }

void debug_line(std::string line) {
  if (t_capture != nullptr) t_capture->push_back(std::move(line));
  else spdlog::debug("{}", line);
}

LogCapture::LogCapture(std::vector<std::string>& lines) : previous_(t_capture) { t_capture = &lines; }
LogCapture::~LogCapture() { t_capture = previous_; }

// ------------------------------------------------------------------ index

namespace {
// Fills a FuncIndex: every block (with the chain of blocks around it), store, evaluated call and allocation;
// opaque statements are not entered, nor anything nested deeper than 512.
class Indexer : public ir::StmtVisitor {
 public:
  explicit Indexer(FuncIndex& fi) : fi_(fi) {}

 protected:
  void visit_alloc(const ir::Stmt& s) override {
    if (s.alloc && !fi_.func->buffers.count(s.alloc->name)) fi_.allocs.emplace(s.alloc->name, &*s.alloc);
    StmtVisitor::visit_alloc(s);
  }
  void visit_block(const ir::Stmt& /*s*/, const ir::Block& b) override {
    for (const auto& a : b.alloc_buffers)
      if (!fi_.func->buffers.count(a.name)) fi_.allocs.emplace(a.name, &a);
    fi_.blocks.push_back(&b);
    chain_.push_back(&b);
    const bool outer_init = in_init_;
    in_init_ = true;
    visit(b.init);
    in_init_ = outer_init;
    visit(b.body);
    chain_.pop_back();
  }
  void visit_store(const ir::Stmt& s) override {
    StoreSite site;
    site.store = &s;
    site.block = chain_.empty() ? nullptr : chain_.back();
    site.chain = chain_;
    site.in_init = in_init_;
    if (!in_init_) fi_.writers[s.buffer].push_back(fi_.stores.size());
    fi_.stores.push_back(std::move(site));
  }
  void visit_evaluate(const ir::Stmt& s) override {
    if (!in_init_ && s.value && s.value->kind == ExprKind::kCall)
      fi_.calls.push_back({s.value.get(), chain_.empty() ? nullptr : chain_.back(), chain_});
  }
  void visit_other(const ir::Stmt& /*s*/) override {}
  void too_deep(const ir::Stmt& /*s*/) override {
    debug("{}: statement nesting deeper than 512, rest skipped", fi_.func->name);
  }

 private:
  FuncIndex& fi_;
  std::vector<const ir::Block*> chain_;
  bool in_init_ = false;
};
}  // namespace

FuncIndex::FuncIndex(const ir::PrimFunc& f) : func(&f) {
  for (const auto& p : f.params) {
    const std::string b = p.kind == ir::ParamKind::kScalar ? std::string() : (p.buffer.empty() ? p.name : p.buffer);
    param_buffer.push_back(b);
    if (!b.empty()) param_buffers.insert(b);
  }
  Indexer(*this).visit(f.body);
}

const ir::Buffer* FuncIndex::buffer(const std::string& name) const {
  if (auto it = func->buffers.find(name); it != func->buffers.end()) return &it->second;
  auto it = allocs.find(name);
  return it == allocs.end() ? nullptr : it->second;
}

OptDataType FuncIndex::dtype_of(const std::string& name) const {
  const ir::Buffer* b = buffer(name);
  return b ? parse_dtype(b->dtype) : std::nullopt;
}

namespace {
constexpr std::size_t kInlineBudget = 200000;

/// The single plain store that defines `buffer` (P[v0, v1, ..] = f(v..)), or null.
const StoreSite* plain_producer(const FuncIndex& fi, const std::string& buffer, const ir::Stmt* exclude) {
  auto it = fi.writers.find(buffer);
  if (it == fi.writers.end() || it->second.size() != 1) return nullptr;
  const StoreSite& site = fi.stores[it->second[0]];
  if (site.store == exclude || !site.store->value) return nullptr;
  std::set<std::string> idx;
  for (const auto& i : site.store->indices) {
    if (!i || i->kind != ExprKind::kVar || !idx.insert(i->name).second) return nullptr;
  }
  // The value may only use the index vars among the block's own iter vars
  // (a reduction over other iter vars is not a pointwise producer).
  if (site.block) {
    std::set<std::string> used;
    collect_vars(*site.store->value, used);
    for (const auto& iv : site.block->iter_vars)
      if (used.count(iv.name) && !idx.count(iv.name)) return nullptr;
  }
  return &site;
}

ExprPtr inline_rec(const ExprPtr& e, const FuncIndex& fi, const ir::Stmt* exclude, int depth, std::size_t& budget) {
  if (!e || e->args.empty()) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(inline_rec(a, fi, exclude, depth, budget));
    changed = changed || args.back() != a;
  }
  ExprPtr cur = e;
  if (changed) {
    auto n = std::make_shared<Expr>(*e);
    n->args = args;
    cur = n;
  }
  if (cur->kind != ExprKind::kLoad || depth > 16) return cur;
  const StoreSite* p = plain_producer(fi, cur->name, exclude);
  if (!p || p->store->indices.size() != cur->args.size()) return cur;
  std::map<std::string, ExprPtr> m;
  for (std::size_t i = 0; i < cur->args.size(); ++i) m[p->store->indices[i]->name] = cur->args[i];
  ExprPtr v = substitute(p->store->value, m);
  const std::size_t n = node_count(*v, budget);
  if (n >= budget) return cur;
  budget -= n;
  return inline_rec(v, fi, p->store, depth + 1, budget);
}
}  // namespace

ExprPtr inline_producers(const ExprPtr& e, const FuncIndex& fi, const ir::Stmt* exclude) {
  std::size_t budget = kInlineBudget;
  return inline_rec(e, fi, exclude, 0, budget);
}

ExprPtr producer_value(const FuncIndex& fi, int out_param, std::span<const ExprPtr> index) {
  if (out_param < 0 || static_cast<std::size_t>(out_param) >= fi.param_buffer.size()) return nullptr;
  const std::string& buf = fi.param_buffer[static_cast<std::size_t>(out_param)];
  if (buf.empty()) return nullptr;
  const StoreSite* p = plain_producer(fi, buf, nullptr);
  if (!p || p->store->indices.size() != index.size()) return nullptr;
  ExprPtr v = inline_producers(p->store->value, fi, p->store);
  std::map<std::string, ExprPtr> m;
  for (std::size_t i = 0; i < index.size(); ++i) m[p->store->indices[i]->name] = index[i];
  return substitute(v, m);
}

/// Buffers that `buffer` is copied from through blocks (fragment loads, shared copies): the
/// function's parameter buffers reached; false when some source is neither a parameter nor
/// written by a block.
namespace {
bool region_roots_rec(const FuncIndex& fi, const std::string& buffer, const ir::Block* exclude, int depth,
                      std::set<std::string>& roots, std::set<std::string>& seen) {
  if (fi.param_buffers.count(buffer)) {
    roots.insert(buffer);
    return true;
  }
  if (!seen.insert(buffer).second) return true;  // reached before: its sources are followed once
  if (depth > 12) return false;
  bool written = false;
  for (const ir::Block* b : fi.blocks) {
    if (b == exclude) continue;
    if (std::none_of(b->writes.begin(), b->writes.end(), [&](const ir::BufferRegion& w) { return w.buffer == buffer; }))
      continue;
    written = true;
    for (const auto& r : b->reads)
      if (r.buffer != buffer && !region_roots_rec(fi, r.buffer, b, depth + 1, roots, seen)) return false;
  }
  return written;
}
}  // namespace

bool region_roots(const FuncIndex& fi, const std::string& buffer, const ir::Block* exclude, int depth,
                  std::set<std::string>& roots) {
  std::set<std::string> seen;
  return region_roots_rec(fi, buffer, exclude, depth, roots, seen);
}

namespace {
/// A region extent's value: a constant, or `(x + c) - x` (a slice `x:x + c` as printed) -> c.
std::optional<std::int64_t> extent_value(const ir::ExprPtr& e) {
  if (!e) return 1;
  if (auto c = int_const(e.get())) return c;
  const Expr* x = strip_cast(e.get());
  if (x && x->kind == ExprKind::kBinary && x->bin_op == ir::BinOp::kSub && x->args.size() == 2 && x->args[0] &&
      x->args[1]) {
    const Expr* hi = strip_cast(x->args[0].get());
    if (hi && hi->kind == ExprKind::kBinary && hi->bin_op == ir::BinOp::kAdd && hi->args.size() == 2 && hi->args[0] &&
        hi->args[1]) {
      if (struct_eq(hi->args[0].get(), x->args[1].get())) return int_const(hi->args[1].get());
      if (struct_eq(hi->args[1].get(), x->args[1].get())) return int_const(hi->args[0].get());
    }
    if (auto lf = linear_form(*x);
        lf && std::all_of(lf->coef.begin(), lf->coef.end(), [](const auto& kv) { return kv.second == 0; }))
      return lf->constant;
  }
  return std::nullopt;
}
}  // namespace

std::optional<std::int64_t> region_elems(const ir::BufferRegion& r) {
  std::int64_t n = 1;
  for (const auto& rg : r.region) {
    const auto e = extent_value(rg.extent);
    if (!e || *e <= 0 || n > (std::int64_t{1} << 40) / *e) return std::nullopt;
    n *= *e;
  }
  return n;
}

}  // namespace tenet_cost::xtir
