// The TVMScript lowerer (private to src/ir): Python AST (ir/pyast.hpp) -> typed IR (tenet_cost/ir.hpp).
// One Lowerer lowers the top-level statements a py::Parser hands it (tvmscript.cpp drives the parse, serial
// or in parallel chunks). Its members are defined by concern:
//   tvmscript_module.cpp  functions: imports, classes, prim_func / Relax function signatures and bodies
//   tvmscript_stmt.cpp    TIR statements: loops, blocks, axes, regions, allocations, lets
//   tvmscript_expr.cpp    the expression reader: TIR expressions, calls, Relax expressions, struct infos
// This header holds the class with its small helpers and its hash-consing tables (NodeTable, ExprTable,
// Interner: one shared node per distinct expression of a function).
//
// Lowering is lenient: a construct this front-end does not model becomes
// StmtKind::kOther / ExprKind::kOther / RExprKind::kOther carrying its source
// text, so one odd function never blocks the rest of a dump. Only syntax
// errors (from the parser) and unrepresentable literals are fatal.
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/parallel.hpp"
#include "ir/node_pool.hpp"
#include "ir/pyast.hpp"
#include "ir/text_hash.hpp"
#include "ir/whole_module.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir::tvmscript {

using py::Kw;
using py::NK;
using py::Node;
using py::Op;
using py::Stmt;

constexpr std::size_t kMaxStmtNesting = 1024;  // nested lowered statements (loops, allocs, lets...)
constexpr std::size_t kMaxOtherText = 240;
// A function attribute's value keeps more (BitBLAS's `dequantize_info` dict is read by the
// extractor: docs/extract.md "Extern / intrinsic dequantize").
constexpr std::size_t kMaxAttrText = 16384;

// Which of TVM's script namespaces a name stands for.
enum class Ns : std::uint8_t { kNone, kTir, kRelax, kIr };

inline bool is_int_dtype(std::string_view d) {
  const auto t = parse_dtype(d);
  return t && t->is_int();
}

inline bool is_float_dtype(std::string_view d) {
  const auto t = parse_dtype(d);
  return t && t->is_float();
}

inline bool is_dtype_name(std::string_view d) { return d == "bool" || is_int_dtype(d) || is_float_dtype(d); }

/// The TIR arithmetic / bitwise operator of a Python binary operator (`a + b`, `B[i] += e`); nullopt for the others
/// (`**` is a call to pow, comparisons are their own node).
inline std::optional<BinOp> arith_op(Op o) {
  switch (o) {
    case Op::kPlus: return BinOp::kAdd;
    case Op::kMinus: return BinOp::kSub;
    case Op::kStar: return BinOp::kMul;
    case Op::kSlash: return BinOp::kDiv;
    case Op::kDSlash: return BinOp::kFloorDiv;
    case Op::kPercent: return BinOp::kFloorMod;
    case Op::kAmp: return BinOp::kBitAnd;
    case Op::kPipe: return BinOp::kBitOr;
    case Op::kCaret: return BinOp::kBitXor;
    case Op::kShl: return BinOp::kShl;
    case Op::kShr: return BinOp::kShr;
    default: return std::nullopt;
  }
}

// What the lowering of a function depends on besides the function itself:
// the namespace aliases from the imports and the enclosing class's name. A
// chunk of a parallel parse starts from the scope a serial parse would have
// there (checked when the chunk before it ends).
struct ModuleScope {
  std::vector<std::pair<std::string_view, Ns>> ns;
  std::string_view class_name;
  bool operator==(const ModuleScope&) const = default;
};

// The hash-consing table of one function's nodes: shared pointers by a
// precomputed hash, found with an equality predicate. A lookup that misses
// leaves the slot to insert at. The slots in use are listed, so clearing
// costs the entries, not the table size (most functions are small, a few
// are huge); a table grown large is dropped when cleared.
template <class P>
class NodeTable {
 public:
  template <class Eq>
  [[nodiscard]] const P* find(std::uint64_t h, const Eq& eq, std::size_t& at) {
    slots_.prepare();
    const std::size_t mask = slots_.mask();
    for (std::size_t i = spread(h) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.p) {
        at = i;
        return nullptr;
      }
      if (s.h == h && eq(*s.p)) return &s.p;
    }
  }
  /// Insert at the slot a missed find() returned (no insert in between).
  void insert_at(std::size_t at, std::uint64_t h, const P& p) {
    slots_[at].h = h;
    slots_[at].p = p;
    slots_.mark_used(at);
    if (slots_.count() * 2 > slots_.size())
      slots_.grow([](std::uint64_t sh) { return spread(sh); }, [](const Slot& e) { return !e.p; });
  }
  void clear() { slots_.clear(); }

 private:
  struct Slot {
    std::uint64_t h = 0;
    P p;
  };
  static std::uint64_t spread(std::uint64_t h) {
    h ^= h >> 32;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
  }
  UsedSlots<Slot, 256> slots_;
};

struct LoopInfo {
  std::string_view name;
  ExprPtr min;
  ExprPtr extent;
};

class Lowerer : public py::Parser::Sink {
 public:
  Lowerer(const py::Parser& parser, const std::string& file, Module& mod)
      : src_(parser.lexer().source()), file_(file), fname_(file), mod_(mod) {
    ns_["T"] = Ns::kTir;
    ns_["tir"] = Ns::kTir;
    ns_["tirx"] = Ns::kTir;
    ns_["R"] = Ns::kRelax;
    ns_["relax"] = Ns::kRelax;
    ns_["I"] = Ns::kIr;
    ns_["ir"] = Ns::kIr;
  }

  void top_level(Stmt* s, const Stmt* cls) override;

  [[nodiscard]] ModuleScope scope() const { return ModuleScope{ns_.v, class_name_}; }
  void set_scope(const ModuleScope& sc) {
    ns_.v = sc.ns;
    class_name_ = sc.class_name;
    callees_.clear();
  }
  /// The header of the last top-level class met (nullptr: none).
  [[nodiscard]] const Stmt* class_header() const { return class_header_; }

 private:
  // ------------------------------------------------------------ utilities
  Loc loc(std::uint32_t line, std::uint32_t col) const { return Loc{fname_, line, col}; }
  Loc loc(const Node* n) const { return loc(n->line, n->col); }
  Loc loc(const Stmt* s) const { return loc(s->line, s->col); }
  std::string_view span(const Node* n) const { return src_.substr(n->begin, n->end - n->begin); }
  std::string_view span(const Stmt* s) const { return src_.substr(s->begin, s->end - s->begin); }
  /// A negative constant loop or axis extent is refused (docs/ir-formats.md): TVM would run such
  /// a loop zero times, but in a block's domain it is not valid IR, and it must never become a
  /// negative GEMM dimension.
  void nonnegative_extent(const ExprPtr& extent, const Node* at) const {
    if (extent && extent->kind == ExprKind::kInt && extent->int_value < 0)
      throw InputError(loc(at), "expected a non-negative extent, found " + clip(span(at)) + " = " +
                                    std::to_string(extent->int_value));
  }
  /// The first line of a statement's text, at most 80 characters (for one-line messages).
  static std::string first_line(std::string_view s) {
    s = s.substr(0, s.find_first_of("\r\n"));
    return s.size() <= 80 ? std::string(s) : std::string(s.substr(0, 80)) + "...";
  }
  static std::string clip(std::string_view s) {
    if (s.size() <= kMaxOtherText) return std::string(s);
    return std::string(s.substr(0, kMaxOtherText)) + "...";
  }
  Ns ns_of(std::string_view name) const { return ns_.find(name); }
  // `T.x` -> "x" when the base names the TIR namespace (also R./I. via ns).
  std::string_view member_of(const Node* n, Ns ns) const {
    if (n == nullptr || n->kind != NK::kAttr || n->a->kind != NK::kName) return {};
    return ns_of(n->a->text) == ns ? n->text : std::string_view{};
  }
  // Dotted path of a name/attribute chain with the namespace canonicalized:
  // `T.axis.remap` -> "T.axis.remap", `relax.nn.conv2d` -> "R.nn.conv2d".
  // Empty when `n` is not a pure dotted name.
  std::string dotted(const Node* n) const {
    std::string_view parts[16];
    std::size_t np = 0;
    const Node* c = n;
    while (c != nullptr && c->kind == NK::kAttr) {
      if (np == 16) return {};
      parts[np++] = c->text;
      c = c->a;
    }
    if (c == nullptr || c->kind != NK::kName) return {};
    std::string out;
    switch (ns_of(c->text)) {
      case Ns::kTir: out = "T"; break;
      case Ns::kRelax: out = "R"; break;
      case Ns::kIr: out = "I"; break;
      case Ns::kNone: out = c->text; break;
    }
    while (np > 0) {
      out += '.';
      out += parts[--np];
    }
    return out;
  }
  static const Node* kwarg(const Node* call, std::string_view name) {
    for (std::uint32_t i = 0; i < call->n; ++i)
      if (call->kids[i]->kind == NK::kKeyword && call->kids[i]->text == name) return call->kids[i]->a;
    return nullptr;
  }
  // The positional arguments of a call: a view of the call's kids when they
  // come first (always, in printed TVMScript), else a copy.
  struct Pos {
    const Node* const* d = nullptr;
    std::size_t n = 0;
    std::vector<const Node*> store;
    [[nodiscard]] std::size_t size() const { return n; }
    [[nodiscard]] bool empty() const { return n == 0; }
    const Node* operator[](std::size_t i) const { return d[i]; }
    [[nodiscard]] const Node* const* begin() const { return d; }
    [[nodiscard]] const Node* const* end() const { return d + n; }
  };
  static Pos positional(const Node* call) {
    Pos p;
    std::uint32_t k = 0;
    while (k < call->n && call->kids[k]->kind != NK::kKeyword && call->kids[k]->kind != NK::kDoubleStarred) ++k;
    std::uint32_t more = k;
    while (more < call->n && (call->kids[more]->kind == NK::kKeyword || call->kids[more]->kind == NK::kDoubleStarred))
      ++more;
    if (more == call->n) {
      p.d = call->kids;
      p.n = k;
      return p;
    }
    for (std::uint32_t i = 0; i < call->n; ++i)
      if (call->kids[i]->kind != NK::kKeyword && call->kids[i]->kind != NK::kDoubleStarred)
        p.store.push_back(call->kids[i]);
    p.d = p.store.data();
    p.n = p.store.size();
    return p;
  }
  static bool only_positional(const Node* call) {
    for (std::uint32_t i = 0; i < call->n; ++i)
      if (call->kids[i]->kind == NK::kKeyword || call->kids[i]->kind == NK::kStarred ||
          call->kids[i]->kind == NK::kDoubleStarred)
        return false;
    return true;
  }
  // The string value of a string literal node, or empty.
  static bool str_value(const Node* n, std::string_view& out) {
    if (n == nullptr || n->kind != NK::kString) return false;
    out = n->text;
    return true;
  }
  std::string attr_text(const Node* v) const {
    std::string_view s;
    if (str_value(v, s)) return std::string(s);
    const std::string_view t = span(v);
    return t.size() <= kMaxAttrText ? std::string(t) : std::string(t.substr(0, kMaxAttrText)) + "...";
  }
  void read_dict(const Node* d, std::map<std::string, std::string>& out) const {
    if (d == nullptr || d->kind != NK::kDict) return;
    for (std::uint32_t i = 0; i + 1 < d->n; i += 2) {
      if (d->kids[i] == nullptr) continue;
      std::string key = attr_text(d->kids[i]);
      out[key] = attr_text(d->kids[i + 1]);
    }
  }

  // ------------------------------------------------------------ literals
  std::int64_t int_value(const Node* n, bool negate) const {
    const std::uint64_t lim = negate ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
    if (n->big || n->ival > lim)
      throw InputError(loc(n), "expected an integer literal within the 64-bit signed range, found '" +
                                   std::string(n->text.substr(0, 60)) + (negate ? "' negated" : "'"));
    if (negate)
      return n->ival == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                                 : -static_cast<std::int64_t>(n->ival);
    return static_cast<std::int64_t>(n->ival);
  }
  // A (possibly negated) numeric literal.
  struct Num {
    bool ok = false;
    bool is_int = false;
    std::int64_t i = 0;
    double f = 0;
  };
  Num number(const Node* n) const {
    Num r;
    bool neg = false;
    while (n->kind == NK::kUnary && (n->op == Op::kMinus || n->op == Op::kPlus) && n->kw == Kw::kNone) {
      if (n->op == Op::kMinus) neg = !neg;
      n = n->a;
    }
    if (n->kind == NK::kInt) {
      r.ok = r.is_int = true;
      r.i = int_value(n, neg);
      r.f = static_cast<double>(r.i);
    } else if (n->kind == NK::kFloat) {
      r.ok = true;
      r.f = neg ? -n->fval : n->fval;
    } else if (n->kind == NK::kString || n->kind == NK::kName) {
      // T.float32("inf"), T.float32(inf) / nan
      std::string_view s = n->text;
      bool sneg = false;
      if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        sneg = s[0] == '-';
        s.remove_prefix(1);
      }
      if (s == "inf" || s == "infinity" || s == "Infinity") {
        r.ok = true;
        r.f = (neg != sneg) ? -HUGE_VAL : HUGE_VAL;
      } else if (s == "nan" || s == "NaN") {
        r.ok = true;
        r.f = std::numeric_limits<double>::quiet_NaN();
      }
    } else if (n->kind == NK::kCall && n->a->kind == NK::kName && n->a->text == "float" && n->n == 1) {
      Num inner = number(n->kids[0]);
      if (inner.ok) {
        inner.is_int = false;
        if (neg) inner.f = -inner.f;
        return inner;
      }
    } else if (n->kind == NK::kAttr && (n->text == "inf" || n->text == "nan")) {
      r.ok = true;
      r.f = n->text == "nan" ? std::numeric_limits<double>::quiet_NaN() : (neg ? -HUGE_VAL : HUGE_VAL);
    }
    return r;
  }

  // -------------------------------------------------------- TIR expressions
  // An expression about to be interned (see ExprTable): views, no allocation.
  struct X {
    ExprKind kind = ExprKind::kOther;
    const Node* at = nullptr;
    std::string_view dtype;
    std::string_view name;
    std::string name_store;  // backing storage when `name` is computed
    std::int64_t iv = 0;
    double fv = 0.0;
    BinOp bo = BinOp::kAdd;
    UnOp uo = UnOp::kNeg;
    Vec<ExprPtr> args;  // as Expr::args: moved into a new node as is
    X(ExprKind k, const Node* n, std::string_view dt = {}) : kind(k), at(n), dtype(dt) {}
  };
  ExprPtr fin(X& x) { return table_.intern(x, *this); }
  ExprPtr other(const Node* n) {
    X e(ExprKind::kOther, n);
    e.name_store = clip(span(n));
    e.name = e.name_store;
    return fin(e);
  }
  // T.int8(300), T.uint32(2**63 - 1), T.uint8(-1): TVM's IntImm refuses a value outside its type's range, so
  // such a literal is no printed module; taken as is it would wrap in every later use (a 63-bit "mask").
  void check_int_range(std::int64_t v, std::string_view dtype, const Node* n) const {
    const auto t = parse_dtype(dtype);
    if (!t || t->bits >= 64) return;
    const bool uns = t->code == DataType::Code::kUInt;
    const std::int64_t lo = uns ? 0 : -(std::int64_t{1} << (t->bits - 1));
    const std::int64_t hi = uns ? (std::int64_t{1} << t->bits) - 1 : (std::int64_t{1} << (t->bits - 1)) - 1;
    if (v < lo || v > hi)
      throw InputError(loc(n), "expected a literal of type " + std::string(dtype) + " within [" + std::to_string(lo) +
                                   ", " + std::to_string(hi) + "], found " + std::to_string(v));
  }
  ExprPtr int_lit(std::int64_t v, const Node* n, std::string_view dtype = {}) {
    X e(ExprKind::kInt, n, dtype);
    e.iv = v;
    if (dtype.empty() && shape_ctx_) e.dtype = "int64";
    else if (dtype.empty())
      e.dtype = (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max())
                    ? "int32"
                    : "int64";
    return fin(e);
  }
  ExprPtr float_lit(double v, const Node* n, std::string_view dtype) {
    X e(ExprKind::kFloat, n, dtype);
    e.fv = v;
    return fin(e);
  }
  std::string_view var_dtype(std::string_view name) const {
    const std::string_view* d = var_dtypes_.find(name);
    return d == nullptr ? std::string_view{} : *d;
  }
  ExprPtr binary(BinOp op, ExprPtr a, ExprPtr b, const Node* at) {
    X e(ExprKind::kBinary, at);
    switch (op) {
      case BinOp::kEq:
      case BinOp::kNe:
      case BinOp::kLt:
      case BinOp::kLe:
      case BinOp::kGt:
      case BinOp::kGe:
      case BinOp::kAnd:
      case BinOp::kOr: e.dtype = "bool"; break;
      default: e.dtype = !a->dtype.empty() ? std::string_view(a->dtype) : std::string_view(b->dtype);
    }
    e.bo = op;
    e.args.reserve(2);
    e.args.push_back(std::move(a));
    e.args.push_back(std::move(b));
    return fin(e);
  }

  // Hash-consing of expressions within one function: structurally equal
  // expressions are one shared node (its loc is the first occurrence). This
  // keeps memory proportional to the distinct expressions of a function.
  class ExprTable {
   public:
    void clear() { table_.clear(); }
    ExprPtr intern(X& x, const Lowerer& l) {
      const std::uint64_t h = hash(x);
      std::size_t at = 0;
      if (const ExprPtr* hit = table_.find(
              h, [&](const Expr& e) { return equal(x, e); }, at))
        return *hit;
      auto e = make_node<Expr>();
      e->kind = x.kind;
      e->dtype = x.dtype;
      e->loc = l.loc(x.at);
      e->int_value = x.iv;
      e->float_value = x.fv;
      e->name = x.name;
      e->bin_op = x.bo;
      e->un_op = x.uo;
      e->args = std::move(x.args);
      ExprPtr p = std::move(e);
      table_.insert_at(at, h, p);
      return p;
    }

   private:
    static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      return h;
    }
    static std::uint64_t hash(const X& x) {
      std::uint64_t h = static_cast<std::uint64_t>(x.kind) * 0x100000001b3ULL;
      h = mix(h, text_hash(x.name));
      h = mix(h, text_hash(x.dtype));
      h = mix(h, static_cast<std::uint64_t>(x.iv));
      std::uint64_t fb = 0;
      std::memcpy(&fb, &x.fv, sizeof fb);
      h = mix(h, fb);
      h = mix(h, static_cast<std::uint64_t>(x.bo) << 8 | static_cast<std::uint64_t>(x.uo));
      for (const auto& a : x.args) h = mix(h, reinterpret_cast<std::uintptr_t>(a.get()));
      return h;
    }
    // The float compares by its bits on purpose: NaN literals are one node, -0.0 and 0.0 two.
    static bool equal(const X& x, const Expr& e) {
      // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison): the float's bits, on purpose (above)
      const bool same_float = std::memcmp(&e.float_value, &x.fv, sizeof x.fv) == 0;
      if (e.kind != x.kind || e.int_value != x.iv || e.bin_op != x.bo || e.un_op != x.uo ||
          e.args.size() != x.args.size() || !same_float || !same_text(e.name.view(), x.name) ||
          !same_text(e.dtype.view(), x.dtype))
        return false;
      for (std::size_t k = 0; k < x.args.size(); ++k)
        if (e.args[k].get() != x.args[k].get()) return false;
      return true;
    }
    NodeTable<ExprPtr> table_;
  };

  ExprPtr expr(const Node* n);
  ExprPtr tir_call(const Node* n);
  ExprPtr load(const Node* n);

  // --------------------------------------------------------------- TIR
  /// Clears the per-function state both kinds of function start from (tables, caches, dtypes, nesting).
  void begin_function();
  void lower_prim_func(const Stmt* def, bool is_private);
  std::optional<Buffer> buffer_from_annotation(std::string_view name, const Node* ann);
  Buffer buffer_from_call(std::string_view name, const Node* call, std::size_t shape_arg, const Node* at);
  std::vector<ExprPtr> shape_of(const Node* n);
  bool sym_var_decl(const Stmt* s, std::vector<std::string>& sym_vars, bool tir);
  void add_sym_var(std::string_view name, std::string_view dtype, std::vector<std::string>& sym_vars);
  StmtPtr lower_suite(Stmt* const* body, std::uint32_t n);
  void lower_seq(Stmt* const* body, std::uint32_t i, std::uint32_t n, std::vector<StmtPtr>& out);
  // Recursion runs lower_stmt -> (a statement form's lowering) -> lower_seq -> lower_stmt once per nested
  // statement (up to kMaxStmtNesting). ASan gives each inlined local its own red-zoned stack slot (~9 KB per
  // level when lower_stmt held every form, more than the 8 MB stack holds for 1024 levels), so lower_stmt and
  // the forms on that recursion are not instrumented; the expression reader and the other callees are.
  // `body[i]` is `s`; a form that binds over the rest of the scope (an allocation, a let) lowers body[i+1..n)
  // into its body and sets *consumed_rest.
  [[gnu::no_sanitize_address]] StmtPtr lower_stmt(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n,
                                                  bool* consumed_rest);
  /// The rest of the scope after body[i] as one statement (a Seq at `seq_loc` unless it is one statement).
  [[gnu::no_sanitize_address]] StmtPtr rest_of_scope(Stmt* const* body, std::uint32_t i, std::uint32_t n,
                                                     bool* consumed_rest, const Loc& seq_loc);
  /// A statement the lowering does not know: kept as kOther (with its lowered body, if any), logged at debug.
  [[gnu::no_sanitize_address]] StmtPtr opaque_stmt(const Stmt* s);
  [[gnu::no_sanitize_address]] StmtPtr lower_with(const Stmt* s);  // T.block / T.sblock, T.LetStmt, other `with`
  [[gnu::no_sanitize_address]] StmtPtr lower_if(const Stmt* s);
  /// `B[i] = e` (a store), `x = T.alloc_buffer(...)` and `x = e` (over the rest of the scope), symbolic vars.
  [[gnu::no_sanitize_address]] StmtPtr lower_assign(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n,
                                                    bool* consumed_rest);
  /// `x: T.int32 = e`: a let over the rest of the scope.
  [[gnu::no_sanitize_address]] StmtPtr lower_ann_assign(const Stmt* s, Stmt* const* body, std::uint32_t i,
                                                        std::uint32_t n, bool* consumed_rest);
  StmtPtr lower_aug_assign(const Stmt* s);  // B[i] += e: a store of B[i] + e
  StmtPtr lower_expr_stmt(const Stmt* s);   // T.evaluate(e) and bare expressions; docstrings are dropped
  StmtPtr lower_for(const Stmt* s);
  StmtPtr lower_block(const Stmt* s, const Node* item);
  StmtPtr other_stmt(const Stmt* s, StmtPtr body = nullptr) const {
    auto st = make_node<Stmt_>();
    st->kind = StmtKind::kOther;
    st->loc = loc(s);
    st->text = clip(span(s));
    st->body = std::move(body);
    return st;
  }
  BufferRegion region(const Node* n);
  bool axis_decl(const Stmt* s, Block& b);
  using Stmt_ = ir::Stmt;
  struct NestGuard {
    Lowerer& l;
    explicit NestGuard(Lowerer& lw, const Stmt* s) : l(lw) {
      if (++l.nest_ > kMaxStmtNesting)
        throw InputError(l.loc(s), "expected statements nested at most " + std::to_string(kMaxStmtNesting) +
                                       " levels deep, found deeper nesting");
    }
    ~NestGuard() { --l.nest_; }
  };

  // ------------------------------------------------------------- Relax
  void lower_relax_func(const Stmt* def);
  void lower_relax_body(Stmt* const* body, std::uint32_t n, RelaxFunc& f);
  static std::size_t count_stmts(Stmt* const* body, std::uint32_t n);
  // Struct infos repeat verbatim (every `R.Tensor((5120,), dtype="float16")`
  // annotation): cache them by source text within a function.
  StructInfoPtr sinfo(const Node* n) {
    const std::string_view key = span(n);
    const std::uint64_t h = text_hash(key);
    if (const StructInfoPtr* hit = scache_.find(key, h)) return *hit;
    StructInfoPtr si = sinfo_uncached(n);  // may add to scache_ (nested struct infos)
    bool inserted = false;
    scache_.get(key, h, inserted) = si;
    return si;
  }
  StructInfoPtr sinfo_uncached(const Node* n);
  NameMap<StructInfoPtr> scache_;
  ExprPtr dim(const Node* n, RelaxFunc* f);
  ExprPtr tensor_dim(const Node* n, RelaxFunc* f);
  RExprPtr rexpr(const Node* n) {
    if (n->kind == NK::kName) {  // the commonest case: a variable reference
      bool inserted = false;
      RExprPtr& v = rvars_.get(n->text, inserted);
      if (inserted) v = rexpr_raw(n);  // a kName: does not touch rvars_
      return v;
    }
    if (n->kind == NK::kAttr && is_global_ref(n)) return global_ref(n);  // the next commonest: `cls.f`
    return rexpr_raw(n);
  }
  // `cls.f` (the class, or an alias of it, then a function name)
  bool is_global_ref(const Node* n) const {
    return n->a->kind == NK::kName &&
           (same_text(n->a->text, class_name_) || (!cls_aliases_.empty() && cls_aliases_.contains(n->a->text)));
  }
  // `cls.f` repeats for every call of f: cached by name (no probe per call)
  RExprPtr global_ref(const Node* n) {
    bool inserted = false;
    RExprPtr& g = rglobals_.get(n->text, inserted);
    if (inserted) {
      RExpr e = rmk(RExprKind::kGlobalFunc, n);
      e.name = n->text;
      g = rtable_.intern(std::move(e), fname_);  // does not touch rglobals_
    }
    return g;
  }
  RExprPtr rexpr_raw(const Node* n);
  RExprPtr rcall(const Node* n);                   // a Relax call (rexpr_raw of a kCall)
  RExprPtr rconst(const Node* n, const Pos& pos);  // R.const(..)
  // The callee of a Relax call, resolved once per distinct callee text (the
  // text determines its parse, so its dotted path given the namespace
  // aliases; cleared when those change).
  enum class Callee : std::uint8_t { kOther, kPrimValue, kShape, kStr, kTuple, kConst, kCallTir, kDps };
  struct CalleeInfo {
    Symbol op;  // the dotted path, or the clipped text when not a dotted name
    Callee kind = Callee::kOther;
    bool dotted = false;  // op is the dotted path
  };
  CalleeInfo callee(const Node* c) {
    const std::string_view key = span(c);
    bool inserted = false;
    CalleeInfo& ci = callees_.get(key, text_hash(key), inserted);
    if (inserted) {
      const std::string path = dotted(c);
      ci.dotted = !path.empty();
      ci.op = ci.dotted ? Symbol(path) : Symbol(clip(key));
      if (path == "R.prim_value") ci.kind = Callee::kPrimValue;
      else if (path == "R.shape") ci.kind = Callee::kShape;
      else if (path == "R.str") ci.kind = Callee::kStr;
      else if (path == "R.tuple") ci.kind = Callee::kTuple;
      else if (path == "R.const") ci.kind = Callee::kConst;
      else if (path == "R.call_tir" || path == "R.call_tir_inplace" || path == "R.call_tir_with_grad" ||
               path == "R.dist.call_tir" || path == "R.dist.call_tir_local_view")
        ci.kind = Callee::kCallTir;
      else if (path == "R.call_dps_packed") ci.kind = Callee::kDps;
    }
    return ci;
  }
  NameMap<CalleeInfo> callees_;
  NameMap<RExprPtr> rvars_;
  NameMap<RExprPtr> rglobals_;  // `cls.f` by f

  // Hash-consing of Relax expressions and struct infos within one function
  // (like ExprTable; children are already interned, so equality is shallow).
  // Probes are built by value and only copied to the heap when new.
  static std::uint64_t hmix(std::uint64_t h, std::uint64_t v) {
    return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
  static std::uint64_t hptr(std::uint64_t h, const void* p) { return hmix(h, reinterpret_cast<std::uintptr_t>(p)); }
  template <class V>
  static bool same_ptrs(const V& a, const V& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].get() != b[i].get()) return false;
    return true;
  }
  struct RTraits {
    static std::uint64_t hash(const RExpr& e) {
      std::uint64_t h = static_cast<std::uint64_t>(e.kind);
      h = hptr(h, e.name.id());
      h = hptr(h, e.op.id());
      h = hmix(h, static_cast<std::uint64_t>(e.index));
      h = hptr(h, e.prim.get());
      for (const auto& a : e.args) h = hptr(h, a.get());
      for (const auto& [k, v] : e.kwargs) h = hptr(hmix(h, std::hash<std::string>{}(k)), v.get());
      for (const auto& a : e.sinfo_args) h = hptr(h, a.get());
      for (const auto& a : e.dims) h = hptr(h, a.get());
      return h;
    }
    static bool equal(const RExpr& a, const RExpr& b) {
      if (a.kind != b.kind || a.index != b.index || a.prim.get() != b.prim.get() || a.name != b.name || a.op != b.op ||
          !same_ptrs(a.args, b.args) || !same_ptrs(a.sinfo_args, b.sinfo_args) || !same_ptrs(a.dims, b.dims) ||
          a.kwargs.size() != b.kwargs.size())
        return false;
      for (std::size_t i = 0; i < a.kwargs.size(); ++i)
        if (a.kwargs[i].first != b.kwargs[i].first || a.kwargs[i].second.get() != b.kwargs[i].second.get())
          return false;
      return true;
    }
    static void finish(RExpr& e, const FileName& file) { e.loc.file = file; }
  };
  struct STraits {
    static std::uint64_t hash(const StructInfo& s) {
      std::uint64_t h = static_cast<std::uint64_t>(s.kind) * 31 + static_cast<std::uint64_t>(s.ndim + 1);
      h = hptr(h, s.dtype.id());
      h = hmix(h, s.shape_known ? 1 : 0);
      for (const auto& a : s.dims) h = hptr(h, a.get());
      for (const auto& a : s.fields) h = hptr(h, a.get());
      return h;
    }
    static bool equal(const StructInfo& a, const StructInfo& b) {
      return a.kind == b.kind && a.ndim == b.ndim && a.shape_known == b.shape_known && a.dtype == b.dtype &&
             same_ptrs(a.dims, b.dims) && same_ptrs(a.fields, b.fields);
    }
    static void finish(StructInfo&, const FileName&) {}
  };
  template <class T, class Traits>
  class Interner {
   public:
    std::shared_ptr<const T> intern(T&& probe, const FileName& file) {
      const std::uint64_t h = Traits::hash(probe);
      std::size_t at = 0;
      if (const auto* hit = table_.find(
              h, [&](const T& e) { return Traits::equal(e, probe); }, at))
        return *hit;
      Traits::finish(probe, file);
      std::shared_ptr<const T> p = make_node<const T>(std::move(probe));
      table_.insert_at(at, h, p);
      return p;
    }
    void clear() { table_.clear(); }

   private:
    NodeTable<std::shared_ptr<const T>> table_;
  };
  Interner<RExpr, RTraits> rtable_;
  Interner<StructInfo, STraits> stable_;
  // A probe: loc without the file (filled in when the node is created).
  static RExpr rmk(RExprKind k, const Node* n) {
    RExpr e;
    e.kind = k;
    e.loc.line = n->line;
    e.loc.column = n->col;
    return e;
  }
  RExprPtr rother(const Node* n) {
    RExpr e = rmk(RExprKind::kOther, n);
    e.name = clip(span(n));
    return rtable_.intern(std::move(e), fname_);
  }
  void sinfo_list(const Node* n, Vec<StructInfoPtr>& out) {
    if (n->kind == NK::kList || n->kind == NK::kTuple) {
      out.reserve(out.size() + n->n);
      for (std::uint32_t i = 0; i < n->n; ++i) out.push_back(sinfo(n->kids[i]));
    } else {
      out.push_back(sinfo(n));
    }
  }

  std::string_view src_;
  const std::string& file_;
  FileName fname_;  // file_, interned once
  Module& mod_;
  // namespace aliases: a handful of entries, scanned linearly (faster than hashing)
  struct NsMap {
    std::vector<std::pair<std::string_view, Ns>> v;
    Ns& operator[](std::string_view k) {
      for (auto& [name, ns] : v)
        if (name == k) return ns;
      v.emplace_back(k, Ns::kNone);
      return v.back().second;
    }
    [[nodiscard]] Ns find(std::string_view k) const {
      for (const auto& [name, ns] : v)
        if (same_text(name, k)) return ns;
      return Ns::kNone;
    }
  };
  NsMap ns_;
  std::string_view class_name_;
  const Stmt* class_header_ = nullptr;

  // per function
  PrimFunc* fn_ = nullptr;
  RelaxFunc* rfn_ = nullptr;
  NameMap<std::string_view> var_dtypes_;
  NameMap<std::string_view> buf_dtypes_;
  NameMap<ExprPtr> meta_vars_;
  std::vector<LoopInfo> loops_;
  NameMap<char> cls_aliases_;
  NameMap<char> sym_seen_;  // names already in the function's sym_vars
  std::size_t nest_ = 0;
  ExprTable table_;
  bool shape_ctx_ = false;  // lowering a Relax shape: literals and unknown vars are int64
};

}  // namespace tenet_cost::ir::tvmscript
