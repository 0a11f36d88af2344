// TVMScript front-end: Python AST (ir/pyast.hpp) -> typed IR (tenet_cost/ir.hpp).
//
// Lowering is lenient: a construct this front-end does not model becomes
// StmtKind::kOther / ExprKind::kOther / RExprKind::kOther carrying its source
// text, so one odd function never blocks the rest of a dump. Only syntax
// errors (from the parser) and unrepresentable literals are fatal.
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

namespace tenet_cost::ir {

namespace {

using py::Kw;
using py::NK;
using py::Node;
using py::Op;
using py::SK;
using py::Stmt;

constexpr std::size_t kMaxStmtNesting = 1024;  // nested lowered statements (loops, allocs, lets...)
constexpr std::size_t kMaxOtherText = 240;
// A function attribute's value keeps more (BitBLAS's `dequantize_info` dict is read by the
// extractor: docs/extract.md "Extern / intrinsic dequantize").
constexpr std::size_t kMaxAttrText = 16384;

// Which of TVM's script namespaces a name stands for.
enum class Ns : std::uint8_t { kNone, kTir, kRelax, kIr };

bool is_int_dtype(std::string_view d) {
  const auto t = parse_dtype(d);
  return t && t->is_int();
}

bool is_float_dtype(std::string_view d) {
  const auto t = parse_dtype(d);
  return t && t->is_float();
}

bool is_dtype_name(std::string_view d) { return d == "bool" || is_int_dtype(d) || is_float_dtype(d); }

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
    if (negate) return n->ival == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
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
    if (dtype.empty() && shape_ctx_)
      e.dtype = "int64";
    else if (dtype.empty())
      e.dtype = (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max())
                    ? "int32" : "int64";
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
      case BinOp::kEq: case BinOp::kNe: case BinOp::kLt: case BinOp::kLe: case BinOp::kGt: case BinOp::kGe:
      case BinOp::kAnd: case BinOp::kOr: e.dtype = "bool"; break;
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
      if (const ExprPtr* hit = table_.find(h, [&](const Expr& e) { return equal(x, e); }, at)) return *hit;
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
    static bool equal(const X& x, const Expr& e) {
      if (e.kind != x.kind || e.int_value != x.iv || e.bin_op != x.bo || e.un_op != x.uo ||
          e.args.size() != x.args.size() || std::memcmp(&e.float_value, &x.fv, sizeof x.fv) != 0 ||
          !same_text(e.name.view(), x.name) || !same_text(e.dtype.view(), x.dtype))
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
  void lower_prim_func(const Stmt* def, bool is_private);
  std::optional<Buffer> buffer_from_annotation(std::string_view name, const Node* ann);
  Buffer buffer_from_call(std::string_view name, const Node* call, std::size_t shape_arg, const Node* at);
  std::vector<ExprPtr> shape_of(const Node* n);
  bool sym_var_decl(const Stmt* s, std::vector<std::string>& sym_vars, bool tir);
  void add_sym_var(std::string_view name, std::string_view dtype, std::vector<std::string>& sym_vars);
  StmtPtr lower_suite(Stmt* const* body, std::uint32_t n);
  void lower_seq(Stmt* const* body, std::uint32_t i, std::uint32_t n, std::vector<StmtPtr>& out);
  // Recursion runs lower_stmt -> lower_seq -> lower_stmt once per nested
  // statement (up to kMaxStmtNesting). ASan gives each of lower_stmt's many
  // inlined locals its own red-zoned stack slot (~9 KB per level, more than
  // the 8 MB stack holds for 1024 levels), so lower_stmt itself is not
  // instrumented; its callees are.
  [[gnu::no_sanitize_address]] StmtPtr lower_stmt(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n,
                                                  bool* consumed_rest);
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
      if (a.kind != b.kind || a.index != b.index || a.prim.get() != b.prim.get() || a.name != b.name ||
          a.op != b.op || !same_ptrs(a.args, b.args) || !same_ptrs(a.sinfo_args, b.sinfo_args) ||
          !same_ptrs(a.dims, b.dims) || a.kwargs.size() != b.kwargs.size())
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
      if (const auto* hit = table_.find(h, [&](const T& e) { return Traits::equal(e, probe); }, at)) return *hit;
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

// =================================================================== module

void Lowerer::top_level(Stmt* s, const Stmt* cls) {
  switch (s->kind) {
    case SK::kFrom: {
      // from tvm.script import tir as T / tirx as T / relax as R / ir as I
      if (s->name.substr(0, 3) != "tvm") break;
      for (std::uint32_t i = 0; i < s->n_imports; ++i) {
        const auto& a = s->imports[i];
        const std::string_view bound = a.alias.empty() ? a.name : a.alias;
        if (a.name == "tir" || a.name == "tirx") ns_[bound] = Ns::kTir;
        else if (a.name == "relax") ns_[bound] = Ns::kRelax;
        else if (a.name == "ir") ns_[bound] = Ns::kIr;
      }
      callees_.clear();  // resolved with the old aliases
      return;
    }
    case SK::kImport: {
      for (std::uint32_t i = 0; i < s->n_imports; ++i) {
        const auto& a = s->imports[i];
        if (a.alias.empty()) continue;
        const std::string_view last = a.name.substr(a.name.rfind('.') + 1);
        if (last == "tir" || last == "tirx") ns_[a.alias] = Ns::kTir;
        else if (last == "relax") ns_[a.alias] = Ns::kRelax;
      }
      callees_.clear();
      return;
    }
    case SK::kClass:
      if (cls == nullptr && s->n_body == 0) {
        class_name_ = s->name;
        class_header_ = s;
        bool is_module = false;
        for (std::uint32_t i = 0; i < s->n_decorators; ++i) {
          const Node* d = s->decorators[i];
          const std::string path = dotted(d->kind == NK::kCall ? d->a : d);
          if (path.size() >= 9 && path.substr(path.size() - 9) == "ir_module") is_module = true;
        }
        if (!is_module)
          spdlog::debug("{}:{}: class '{}' is not decorated with @I.ir_module; reading its functions anyway", file_,
                        s->line, s->name);
        return;
      }
      break;
    case SK::kDef: {
      bool prim = false, relax = false, priv = false;
      for (std::uint32_t i = 0; i < s->n_decorators; ++i) {
        const Node* d = s->decorators[i];
        const Node* callee = d->kind == NK::kCall ? d->a : d;
        const std::string path = dotted(callee);
        const std::string_view last = std::string_view(path).substr(path.rfind('.') + 1);
        if (last == "prim_func") {
          prim = true;
          if (d->kind == NK::kCall) {
            const Node* pv = kwarg(d, "private");
            if (pv != nullptr && pv->kind == NK::kConst && pv->text == "True") priv = true;
          }
        } else if (path == "R.function" || path == "R.function_" ) {
          relax = true;
        }
      }
      if (prim) {
        lower_prim_func(s, priv);
        return;
      }
      if (relax) {
        lower_relax_func(s);
        return;
      }
      spdlog::debug("{}:{}: skipping function '{}' (neither @T.prim_func nor @R.function)", file_, s->line, s->name);
      return;
    }
    case SK::kAssign:  // a class member `attention = R.ExternFunc(..)`: a global `cls.attention` may name
      if (cls != nullptr)
        for (std::uint32_t i = 0; i < s->n_targets; ++i)
          if (s->targets[i]->kind == NK::kName) mod_.other_globals.emplace_back(s->targets[i]->text);
      break;
    default: break;
  }
  spdlog::debug("{}:{}: skipping top-level Python statement: {}", file_, s->line, clip(span(s)));
}

// ====================================================================== TIR

std::vector<ExprPtr> Lowerer::shape_of(const Node* n) {
  std::vector<ExprPtr> out;
  if (n == nullptr) return out;
  if (n->kind == NK::kTuple || n->kind == NK::kList) {
    out.reserve(n->n);
    for (std::uint32_t i = 0; i < n->n; ++i) out.push_back(expr(n->kids[i]));
  } else {
    out.push_back(expr(n));
  }
  return out;
}

Buffer Lowerer::buffer_from_call(std::string_view name, const Node* call, std::size_t shape_arg, const Node* at) {
  Buffer b;
  b.name = name;
  b.loc = loc(at);
  const auto pos = positional(call);
  const Node* shape = shape_arg < pos.size() ? pos[shape_arg] : kwarg(call, "shape");
  b.shape = shape_of(shape);
  std::string_view dt;
  const Node* dtn = shape_arg + 1 < pos.size() ? pos[shape_arg + 1] : kwarg(call, "dtype");
  if (str_value(dtn, dt)) b.dtype = dt;
  std::string_view sc;
  if (str_value(kwarg(call, "scope"), sc)) b.scope = sc;
  else if (shape_arg + 6 < pos.size() && str_value(pos[shape_arg + 6], sc)) b.scope = sc;
  if (b.scope == "global") b.scope.clear();
  return b;
}

std::optional<Buffer> Lowerer::buffer_from_annotation(std::string_view name, const Node* ann) {
  if (ann == nullptr) return std::nullopt;
  // T.Buffer((..), "dtype") (2023+) or T.Buffer[(..), "dtype"] (2022)
  if (ann->kind == NK::kCall && member_of(ann->a, Ns::kTir) == "Buffer") return buffer_from_call(name, ann, 0, ann);
  if (ann->kind == NK::kSubscript && member_of(ann->a, Ns::kTir) == "Buffer") {
    Buffer b;
    b.name = name;
    b.loc = loc(ann);
    if (ann->n >= 1) {
      const Node* shape = ann->kids[0];
      b.shape = shape_of(shape);
    }
    std::string_view dt;
    if (ann->n >= 2 && str_value(ann->kids[1], dt)) b.dtype = dt;
    return b;
  }
  return std::nullopt;
}

void Lowerer::add_sym_var(std::string_view name, std::string_view dtype, std::vector<std::string>& sym_vars) {
  var_dtypes_[name] = dtype;
  if (sym_seen_.insert(name)) sym_vars.emplace_back(name);
}

// `n = T.int64()`, `a, b = T.int64(), T.int64()`, `n = T.var("int64")`,
// `n = T.meta_var(T.int64(128))` (a Python-level constant: substituted).
bool Lowerer::sym_var_decl(const Stmt* s, std::vector<std::string>& sym_vars, bool tir) {
  if (s->kind != SK::kAssign || s->n_targets != 1) return false;
  // Every declaration below is a T.f(..) call or a tuple of them: most
  // assignments (`lv = R.call_tir(..)`) are ruled out here.
  if (s->value == nullptr) return false;
  if (s->value->kind == NK::kCall) {
    if (member_of(s->value->a, Ns::kTir).empty()) return false;
  } else if (s->value->kind != NK::kTuple) {
    return false;
  }
  auto decl_dtype = [&](const Node* v, std::string_view& dtype) -> bool {
    if (v->kind != NK::kCall) return false;
    const std::string_view m = member_of(v->a, Ns::kTir);
    if (m.empty()) return false;
    if (v->n == 0 && is_dtype_name(m)) {
      dtype = m;
      return true;
    }
    if ((m == "var" || m == "dynamic" || m == "SizeVar" || m == "Var") && v->n >= 1) {
      // T.var("int64"), T.dynamic("n"), T.SizeVar("n", "int64")
      std::string_view a0, a1;
      if (str_value(v->kids[0], a0) && is_dtype_name(a0)) {
        dtype = a0;
        return true;
      }
      if (v->n >= 2 && str_value(v->kids[1], a1) && is_dtype_name(a1)) {
        dtype = a1;
        return true;
      }
      dtype = "int32";
      return true;
    }
    return false;
  };
  const Node* t = s->target;
  const Node* v = s->value;
  if (t->kind == NK::kName) {
    std::string_view dt;
    if (decl_dtype(v, dt)) {
      add_sym_var(t->text, dt, sym_vars);
      return true;
    }
    if (tir && v->kind == NK::kCall && member_of(v->a, Ns::kTir) == "meta_var" && v->n == 1) {
      meta_vars_[t->text] = expr(v->kids[0]);
      return true;
    }
    return false;
  }
  if (t->kind == NK::kTuple && v->kind == NK::kTuple && t->n == v->n && t->n > 0) {
    for (std::uint32_t i = 0; i < t->n; ++i) {
      std::string_view dt;
      if (t->kids[i]->kind != NK::kName || !decl_dtype(v->kids[i], dt)) return false;
    }
    for (std::uint32_t i = 0; i < t->n; ++i) {
      std::string_view dt;
      decl_dtype(v->kids[i], dt);
      add_sym_var(t->kids[i]->text, dt, sym_vars);
    }
    return true;
  }
  return false;
}

void Lowerer::lower_prim_func(const Stmt* def, bool is_private) {
  mod_.prim_funcs.emplace_back();
  PrimFunc& f = mod_.prim_funcs.back();
  fn_ = &f;
  var_dtypes_.clear();
  sym_seen_.clear();
  table_.clear();
  rtable_.clear();
  stable_.clear();
  rvars_.clear();
  rglobals_.clear();
  scache_.clear();
  buf_dtypes_.clear();
  meta_vars_.clear();
  loops_.clear();
  nest_ = 0;
  f.name = def->name;
  f.loc = loc(def);
  f.is_private = is_private;

  std::unordered_map<std::string_view, std::size_t> handle_params;
  for (std::uint32_t i = 0; i < def->n_params; ++i) {
    const py::Param& pp = def->params[i];
    Param prm;
    prm.name = pp.name;
    if (auto b = buffer_from_annotation(pp.name, pp.annotation)) {
      prm.kind = ParamKind::kBuffer;
      prm.dtype = b->dtype;
      prm.buffer = b->name;
      f.buffers[b->name] = std::move(*b);
    } else {
      const std::string_view m = member_of(pp.annotation, Ns::kTir);
      if (m == "handle" || m == "Ptr" || m == "ptr") {
        prm.kind = ParamKind::kHandle;
        prm.dtype = "handle";
        handle_params[pp.name] = f.params.size();
      } else {
        prm.kind = ParamKind::kScalar;
        if (is_dtype_name(m)) {
          prm.dtype = m;
          var_dtypes_[pp.name] = m;
          if (is_int_dtype(m)) add_sym_var(pp.name, m, f.sym_vars);
        } else if (pp.annotation != nullptr) {
          spdlog::debug("{}:{}:{}: parameter '{}' of '{}' has an unrecognised annotation '{}'", file_, pp.line, pp.col,
                        pp.name, def->name, clip(span(pp.annotation)));
        }
      }
    }
    f.params.push_back(std::move(prm));
  }
  // views into the map's own strings (map nodes are stable)
  for (const auto& [name, b] : f.buffers) buf_dtypes_[std::string_view(name)] = std::string_view(b.dtype);

  // Function-level statements: attributes, symbolic vars, match_buffer; the
  // rest is the body.
  std::vector<Stmt*> rest;
  rest.reserve(def->n_body);
  for (std::uint32_t i = 0; i < def->n_body; ++i) {
    Stmt* s = def->body[i];
    if (s->kind == SK::kExpr && s->value->kind == NK::kCall && member_of(s->value->a, Ns::kTir) == "func_attr") {
      if (s->value->n >= 1) read_dict(s->value->kids[0], f.attrs);
      continue;
    }
    if (sym_var_decl(s, f.sym_vars, true)) continue;
    if (s->kind == SK::kAssign && s->n_targets == 1 && s->target->kind == NK::kName && s->value->kind == NK::kCall &&
        member_of(s->value->a, Ns::kTir) == "match_buffer") {
      const Node* call = s->value;
      Buffer b = buffer_from_call(s->target->text, call, 1, s->target);
      const auto pos = positional(call);
      if (!pos.empty() && pos[0]->kind == NK::kName) {
        const auto it = handle_params.find(pos[0]->text);
        if (it != handle_params.end()) {
          f.params[it->second].buffer = b.name;
          f.params[it->second].dtype = b.dtype;
        } else {
          // match_buffer on a T.Buffer param (older dumps) -- keep the buffer
          for (auto& prm : f.params)
            if (prm.name == pos[0]->text && prm.buffer.empty()) prm.buffer = b.name;
        }
      }
      auto [it, inserted] = f.buffers.insert_or_assign(b.name, std::move(b));
      buf_dtypes_[std::string_view(it->first)] = std::string_view(it->second.dtype);
      continue;
    }
    if (s->kind == SK::kPass) continue;
    if (s->kind == SK::kExpr && s->value->kind == NK::kString) continue;  // docstring
    rest.push_back(s);
  }
  if (rest.empty())
    throw InputError(loc(def->n_body > 0 ? def->body[def->n_body - 1] : def),
                     "expected the body of prim_func '" + f.name +
                         "' after its declarations, found the end of the function (truncated dump?)");
  f.body = lower_suite(rest.data(), static_cast<std::uint32_t>(rest.size()));
  require_output_used(f, rest.data(), rest.size());
  fn_ = nullptr;
}

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

// NOLINTNEXTLINE(readability-function-size): one case per TIR statement form
StmtPtr Lowerer::lower_stmt(const Stmt* s, Stmt* const* body, std::uint32_t i, std::uint32_t n, bool* consumed_rest) {
  const NestGuard guard(*this, s);
  switch (s->kind) {
    case SK::kPass: return nullptr;
    case SK::kFor: return lower_for(s);
    case SK::kWith: {
      if (s->n_items != 1) break;
      const Node* item = s->items[0];
      if (item->kind != NK::kCall) break;
      const std::string_view m = member_of(item->a, Ns::kTir);
      if (m == "block" || m == "sblock") return lower_block(s, item);
      if (m == "LetStmt" || m == "let") {
        // with T.LetStmt(value, var=x):
        const auto pos = positional(item);
        const Node* var = kwarg(item, "var");
        if (var == nullptr && pos.size() >= 2) var = pos[1];
        if (pos.empty() || var == nullptr || var->kind != NK::kName) break;
        auto st = make_node<Stmt_>();
        st->kind = StmtKind::kLet;
        st->loc = loc(s);
        st->var = var->text;
        st->value = expr(pos[0]);
        if (var_dtype(var->text).empty() && !st->value->dtype.empty()) var_dtypes_[var->text] = "";
        st->body = lower_suite(s->body, s->n_body);
        return st;
      }
      if (m == "init") {
        // T.init() outside a block's top level: keep as an opaque wrapper
        return other_stmt(s, lower_suite(s->body, s->n_body));
      }
      return other_stmt(s, lower_suite(s->body, s->n_body));
    }
    case SK::kIf: {
      auto st = make_node<Stmt_>();
      st->kind = StmtKind::kIf;
      st->loc = loc(s);
      st->value = expr(s->value);
      st->body = lower_suite(s->body, s->n_body);
      if (s->n_orelse > 0) st->else_body = lower_suite(s->orelse, s->n_orelse);
      return st;
    }
    case SK::kAssign: {
      if (s->n_targets != 1) break;
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
          std::vector<StmtPtr> tail;
          lower_seq(body, i + 1, n, tail);
          *consumed_rest = true;
          if (tail.size() == 1) {
            st->body = tail[0];
          } else {
            auto seq = make_node<Stmt_>();
            seq->kind = StmtKind::kSeq;
            seq->loc = i + 1 < n ? loc(body[i + 1]) : loc(s);
            seq->children = std::move(tail);
            st->body = seq;
          }
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
        std::vector<StmtPtr> tail;
        lower_seq(body, i + 1, n, tail);
        *consumed_rest = true;
        if (tail.size() == 1) {
          st->body = tail[0];
        } else {
          auto seq = make_node<Stmt_>();
          seq->kind = StmtKind::kSeq;
          seq->loc = loc(s);
          seq->children = std::move(tail);
          st->body = seq;
        }
        return st;
      }
      break;
    }
    case SK::kAnnAssign: {
      // x: T.int32 = e  (a let over the rest of the scope)
      if (s->target->kind != NK::kName || s->value == nullptr) break;
      auto st = make_node<Stmt_>();
      st->kind = StmtKind::kLet;
      st->loc = loc(s);
      st->var = s->target->text;
      const std::string_view m = member_of(s->annotation, Ns::kTir);
      if (is_dtype_name(m)) var_dtypes_[s->target->text] = m;
      st->value = expr(s->value);
      std::vector<StmtPtr> tail;
      lower_seq(body, i + 1, n, tail);
      *consumed_rest = true;
      if (tail.size() == 1) {
        st->body = tail[0];
      } else {
        auto seq = make_node<Stmt_>();
        seq->kind = StmtKind::kSeq;
        seq->loc = loc(s);
        seq->children = std::move(tail);
        st->body = seq;
      }
      return st;
    }
    case SK::kAugAssign: {
      const Node* t = s->target;
      if (t->kind != NK::kSubscript || t->a->kind != NK::kName) break;
      BinOp op;
      switch (s->op) {
        case Op::kPlus: op = BinOp::kAdd; break;
        case Op::kMinus: op = BinOp::kSub; break;
        case Op::kStar: op = BinOp::kMul; break;
        case Op::kSlash: op = BinOp::kDiv; break;
        case Op::kDSlash: op = BinOp::kFloorDiv; break;
        case Op::kPercent: op = BinOp::kFloorMod; break;
        case Op::kAmp: op = BinOp::kBitAnd; break;
        case Op::kPipe: op = BinOp::kBitOr; break;
        case Op::kCaret: op = BinOp::kBitXor; break;
        case Op::kShl: op = BinOp::kShl; break;
        case Op::kShr: op = BinOp::kShr; break;
        default: return other_stmt(s);
      }
      auto st = make_node<Stmt_>();
      st->kind = StmtKind::kStore;
      st->loc = loc(s);
      st->buffer = t->a->text;
      for (std::uint32_t k = 0; k < t->n; ++k) st->indices.push_back(expr(t->kids[k]));
      ExprPtr lhs = load(t);
      st->value = binary(op, lhs, expr(s->value), t);
      return st;
    }
    case SK::kExpr: {
      const Node* v = s->value;
      if (v->kind == NK::kString) return nullptr;  // docstring / comment string
      auto st = make_node<Stmt_>();
      st->kind = StmtKind::kEvaluate;
      st->loc = loc(s);
      if (v->kind == NK::kCall && member_of(v->a, Ns::kTir) == "evaluate" && v->n == 1)
        st->value = expr(v->kids[0]);
      else
        st->value = expr(v);
      return st;
    }
    case SK::kAssert: {
      auto st = other_stmt(s);
      std::const_pointer_cast<Stmt_>(st)->value = expr(s->value);
      return st;
    }
    case SK::kWhile: return other_stmt(s, lower_suite(s->body, s->n_body));
    default: break;
  }
  spdlog::debug("{}:{}:{}: keeping an unrecognised TIR statement as opaque: {}", file_, s->line, s->col,
                clip(span(s)));
  if (s->n_body > 0) return other_stmt(s, lower_suite(s->body, s->n_body));
  return other_stmt(s);
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
        else
          rg.extent = other(ix);
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
        spdlog::debug("{}:{}:{}: T.axis.remap binds '{}', which is not an enclosing loop variable", file_,
                      bind->line, bind->col, clip(span(bind)));
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
  if (!pos.empty() && str_value(pos[0], name)) blk->name = name;
  else if (str_value(kwarg(item, "name_hint"), name)) blk->name = name;

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
    if (c->kind == SK::kAssign && c->n_targets == 1 && c->target->kind == NK::kName &&
        c->value->kind == NK::kCall) {
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

ExprPtr Lowerer::load(const Node* n) {
  X e(ExprKind::kLoad, n);
  e.name = n->a->text;
  if (const std::string_view* d = buf_dtypes_.find(n->a->text)) e.dtype = *d;
  e.args.reserve(n->n);
  for (std::uint32_t k = 0; k < n->n; ++k) {
    if (n->kids[k]->kind == NK::kSlice) return other(n);
    e.args.push_back(expr(n->kids[k]));
  }
  return fin(e);
}

ExprPtr Lowerer::expr(const Node* n) {
  switch (n->kind) {
    case NK::kName: {
      if (!meta_vars_.empty()) {
        if (const ExprPtr* m = meta_vars_.find(n->text)) return *m;
      }
      std::string_view dt = var_dtype(n->text);
      if (dt.empty() && shape_ctx_) dt = "int64";
      X e(ExprKind::kVar, n, dt);
      e.name = n->text;
      return fin(e);
    }
    case NK::kInt: return int_lit(int_value(n, false), n);
    case NK::kFloat: {
      X e(ExprKind::kFloat, n, "float32");
      e.fv = n->fval;
      return fin(e);
    }
    case NK::kString: {
      X e(ExprKind::kString, n);
      e.name = n->text;
      return fin(e);
    }
    case NK::kConst:
      if (n->text == "True" || n->text == "False") {
        X e(ExprKind::kBool, n, "bool");
        e.iv = n->text == "True" ? 1 : 0;
        return fin(e);
      }
      return other(n);
    case NK::kSubscript:
      if (n->a->kind == NK::kName) return load(n);
      return other(n);
    case NK::kCall: return tir_call(n);
    case NK::kUnary: {
      if (n->kw == Kw::kNot) {
        X e(ExprKind::kUnary, n, "bool");
        e.uo = UnOp::kNot;
        e.args.push_back(expr(n->a));
        return fin(e);
      }
      if (n->op == Op::kPlus) return expr(n->a);
      if (n->op == Op::kMinus && (n->a->kind == NK::kInt || n->a->kind == NK::kFloat)) {
        if (n->a->kind == NK::kInt) return int_lit(int_value(n->a, true), n);
        X e(ExprKind::kFloat, n, "float32");
        e.fv = -n->a->fval;
        return fin(e);
      }
      ExprPtr a = expr(n->a);
      X e(ExprKind::kUnary, n, a->dtype);
      e.uo = n->op == Op::kTilde ? UnOp::kBitNot : UnOp::kNeg;
      e.args.push_back(std::move(a));
      return fin(e);
    }
    case NK::kBinOp: {
      BinOp op;
      switch (n->op) {
        case Op::kPlus: op = BinOp::kAdd; break;
        case Op::kMinus: op = BinOp::kSub; break;
        case Op::kStar: op = BinOp::kMul; break;
        case Op::kSlash: op = BinOp::kDiv; break;
        case Op::kDSlash: op = BinOp::kFloorDiv; break;
        case Op::kPercent: op = BinOp::kFloorMod; break;
        case Op::kAmp: op = BinOp::kBitAnd; break;
        case Op::kPipe: op = BinOp::kBitOr; break;
        case Op::kCaret: op = BinOp::kBitXor; break;
        case Op::kShl: op = BinOp::kShl; break;
        case Op::kShr: op = BinOp::kShr; break;
        case Op::kDStar: {
          ExprPtr a = expr(n->a);
          ExprPtr b = expr(n->b);
          X e(ExprKind::kCall, n, a->dtype);
          e.name = "pow";
          e.args = {std::move(a), std::move(b)};
          return fin(e);
        }
        default: return other(n);
      }
      ExprPtr a = expr(n->a);
      ExprPtr b = expr(n->b);
      return binary(op, std::move(a), std::move(b), n);
    }
    case NK::kCompare: {
      if (n->cmp != py::Cmp::kOp) return other(n);
      BinOp op;
      switch (n->op) {
        case Op::kEq: op = BinOp::kEq; break;
        case Op::kNe: op = BinOp::kNe; break;
        case Op::kLt: op = BinOp::kLt; break;
        case Op::kLe: op = BinOp::kLe; break;
        case Op::kGt: op = BinOp::kGt; break;
        case Op::kGe: op = BinOp::kGe; break;
        default: return other(n);
      }
      ExprPtr a = expr(n->a);
      ExprPtr b = expr(n->b);
      return binary(op, std::move(a), std::move(b), n);
    }
    case NK::kBoolOp: {
      const BinOp op = n->kw == Kw::kAnd ? BinOp::kAnd : BinOp::kOr;
      ExprPtr acc = expr(n->kids[0]);
      for (std::uint32_t k = 1; k < n->n; ++k) acc = binary(op, acc, expr(n->kids[k]), n);
      return acc;
    }
    default: return other(n);
  }
}

ExprPtr Lowerer::tir_call(const Node* n) {
  std::string_view m = member_of(n->a, Ns::kTir);
  // a namespaced intrinsic, `T.metal.simdgroup_multiply_accumulate(..)`: named "metal.simdgroup_..."
  const std::string path = m.empty() ? dotted(n->a) : std::string();
  if (path.size() > 2 && path.compare(0, 2, "T.") == 0) m = std::string_view(path).substr(2);
  if (m.empty()) return other(n);
  const auto pos = positional(n);
  std::string_view kw_dtype;
  str_value(kwarg(n, "dtype"), kw_dtype);

  if (is_dtype_name(m)) {
    if (pos.empty() || pos.size() > 1) return other(n);  // T.int64() declares a var; not an expression
    const Node* a = pos[0];
    const Num num = number(a);
    if (m == "bool") {
      if (a->kind == NK::kConst && (a->text == "True" || a->text == "False")) {
        X e(ExprKind::kBool, n, "bool");
        e.iv = a->text == "True";
        return fin(e);
      }
      if (num.ok && num.is_int) {
        X e(ExprKind::kBool, n, "bool");
        e.iv = num.i != 0;
        return fin(e);
      }
    } else if (is_int_dtype(m) && num.ok && num.is_int) {
      check_int_range(num.i, m, n);
      return int_lit(num.i, n, m);
    } else if (is_float_dtype(m) && num.ok) {
      X e(ExprKind::kFloat, n, m);
      e.fv = num.f;
      return fin(e);
    }
    // T.float32(x) of an expression: a cast
    X e(ExprKind::kCast, n, m);
    e.args.push_back(expr(a));
    return fin(e);
  }
  if (m == "Cast" || m == "cast" || m == "reinterpret") {
    // T.Cast("float16", e) / T.cast(e, "float32") / dtype= keyword
    std::string_view dt = kw_dtype;
    const Node* operand = nullptr;
    for (const Node* a : pos) {
      std::string_view sv;
      if (dt.empty() && str_value(a, sv) && is_dtype_name(sv)) dt = sv;
      else if (operand == nullptr) operand = a;
    }
    if (operand == nullptr || pos.size() > 2) return other(n);
    if (m == "reinterpret") {
      X e(ExprKind::kCall, n, dt);
      e.name = "reinterpret";
      e.args.push_back(expr(operand));
      return fin(e);
    }
    X e(ExprKind::kCast, n, dt);
    e.args.push_back(expr(operand));
    return fin(e);
  }
  if ((m == "if_then_else" || m == "Select") && pos.size() == 3) {
    X e(ExprKind::kSelect, n);
    e.name = m;
    e.args.reserve(3);
    for (const Node* a : pos) e.args.push_back(expr(a));
    e.dtype = !kw_dtype.empty() ? kw_dtype : std::string_view(e.args[1]->dtype);
    return fin(e);
  }
  if ((m == "max" || m == "min" || m == "floordiv" || m == "floormod") && pos.size() == 2 && only_positional(n)) {
    const BinOp op = m == "max" ? BinOp::kMax : m == "min" ? BinOp::kMin : m == "floordiv" ? BinOp::kFloorDiv
                                                                                          : BinOp::kFloorMod;
    return binary(op, expr(pos[0]), expr(pos[1]), n);
  }
  // Any other T.f(args): an intrinsic call (shift_right, bitwise_and, exp, ...). T.Shuffle([vectors], [indices])
  // (a lane of a float4_e2m1fnx2 reinterpret, TVM's fp4 dequantize) lists the vectors' and indices' elements.
  X e(ExprKind::kCall, n, kw_dtype);
  e.name = m;
  e.args.reserve(pos.size());
  for (const Node* a : pos) {
    if (a->kind == NK::kStarred) return other(n);
    if (m == "Shuffle" && (a->kind == NK::kList || a->kind == NK::kTuple)) {
      for (std::uint32_t k = 0; k < a->n; ++k) e.args.push_back(expr(a->kids[k]));
      continue;
    }
    e.args.push_back(expr(a));
  }
  if (e.dtype.empty() && !e.args.empty()) e.dtype = e.args[0]->dtype;
  return fin(e);
}

// ==================================================================== Relax

ExprPtr Lowerer::dim(const Node* n, RelaxFunc* f) {
  std::string_view sv;
  if (str_value(n, sv)) {
    // "n" in a signature declares a symbolic var
    if (f != nullptr) add_sym_var(sv, "int64", f->sym_vars);
    X e(ExprKind::kVar, n, "int64");
    e.name = sv;
    return fin(e);
  }
  if (n->kind == NK::kInt) return int_lit(int_value(n, false), n, "int64");
  if (n->kind == NK::kName) {
    std::string_view dt = var_dtype(n->text);
    X e(ExprKind::kVar, n, dt.empty() ? std::string_view("int64") : dt);
    e.name = n->text;
    return fin(e);
  }
  // Relax shape expressions are int64 throughout
  const bool saved = shape_ctx_;
  shape_ctx_ = true;
  ExprPtr r = expr(n);
  shape_ctx_ = saved;
  return r;
}

ExprPtr Lowerer::tensor_dim(const Node* n, RelaxFunc* f) {
  ExprPtr d = dim(n, f);
  // A tensor's struct info has no unknown-extent marker (R.reshape's -1 lives in R.shape, not here): a negative
  // extent would flow into every GEMM the tensor feeds as a negative M or batch.
  if (d && d->kind == ExprKind::kInt && d->int_value < 0)
    throw InputError(loc(n), "expected a non-negative tensor dimension, found " + std::to_string(d->int_value));
  return d;
}

StructInfoPtr Lowerer::sinfo_uncached(const Node* n) {
  StructInfo si;
  const Node* callee = n->kind == NK::kCall || n->kind == NK::kSubscript ? n->a : n;
  const std::string_view m = member_of(callee, Ns::kRelax);
  Pos pos;
  if (n->kind == NK::kCall) {
    pos = positional(n);
  } else if (n->kind == NK::kSubscript) {
    pos.d = n->kids;
    pos.n = n->n;
  }
  if (m == "Tensor" || m == "DTensor") {  // DTensor: a sharded tensor, the shape is the global one
    si.kind = SInfoKind::kTensor;
    const Node* shape = n->kind == NK::kCall ? kwarg(n, "shape") : nullptr;
    std::size_t k = 0;
    if (shape == nullptr && k < pos.size() && pos[k]->kind != NK::kString) shape = pos[k++];
    if (k < pos.size()) {
      std::string_view dt;
      if (str_value(pos[k], dt)) si.dtype = dt;
    }
    std::string_view dt;
    if (n->kind == NK::kCall && str_value(kwarg(n, "dtype"), dt)) si.dtype = dt;
    if (shape != nullptr && (shape->kind == NK::kTuple || shape->kind == NK::kList)) {
      si.shape_known = true;
      si.dims.reserve(shape->n);
      for (std::uint32_t q = 0; q < shape->n; ++q) si.dims.push_back(tensor_dim(shape->kids[q], rfn_));
      si.ndim = static_cast<int>(si.dims.size());
    }
    const Node* nd = n->kind == NK::kCall ? kwarg(n, "ndim") : nullptr;
    if (nd != nullptr) {
      const Num num = number(nd);
      if (num.ok && num.is_int && num.i >= -1 && num.i < 1 << 20) si.ndim = static_cast<int>(num.i);
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Object" || m == "Any") {  // R.Any: the 2026 spelling of R.Object
    si.kind = SInfoKind::kObject;
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Shape") {
    si.kind = SInfoKind::kShape;
    const Node* shape = !pos.empty() ? pos[0] : (n->kind == NK::kCall ? kwarg(n, "values") : nullptr);
    if (shape != nullptr && (shape->kind == NK::kTuple || shape->kind == NK::kList)) {
      si.shape_known = true;
      for (std::uint32_t q = 0; q < shape->n; ++q) si.dims.push_back(dim(shape->kids[q], rfn_));
      si.ndim = static_cast<int>(si.dims.size());
    }
    const Node* nd = n->kind == NK::kCall ? kwarg(n, "ndim") : nullptr;
    if (nd != nullptr) {
      const Num num = number(nd);
      if (num.ok && num.is_int && num.i >= -1 && num.i < 1 << 20) si.ndim = static_cast<int>(num.i);
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Tuple") {
    si.kind = SInfoKind::kTuple;
    if (pos.size() == 1 && (pos[0]->kind == NK::kList || pos[0]->kind == NK::kTuple)) {
      si.fields.reserve(pos[0]->n);
      for (std::uint32_t q = 0; q < pos[0]->n; ++q) si.fields.push_back(sinfo(pos[0]->kids[q]));
    } else {
      si.fields.reserve(pos.size());
      for (const Node* a : pos) si.fields.push_back(sinfo(a));
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (m == "Prim") {
    si.kind = SInfoKind::kPrim;
    std::string_view dt;
    if (!pos.empty() && str_value(pos[0], dt)) si.dtype = dt;
    else if (n->kind == NK::kCall && str_value(kwarg(n, "dtype"), dt)) si.dtype = dt;
    if (n->kind == NK::kCall) {
      const Node* v = kwarg(n, "value");
      if (v != nullptr) {
        si.dims.push_back(dim(v, rfn_));
        if (si.dtype.empty()) si.dtype = "int64";
      }
    }
    return stable_.intern(std::move(si), fname_);
  }
  if (n->kind == NK::kTuple || n->kind == NK::kList) {
    si.kind = SInfoKind::kTuple;
    si.fields.reserve(n->n);
    for (std::uint32_t q = 0; q < n->n; ++q) si.fields.push_back(sinfo(n->kids[q]));
    return stable_.intern(std::move(si), fname_);
  }
  si.kind = SInfoKind::kUnknown;
  return stable_.intern(std::move(si), fname_);
}

RExprPtr Lowerer::rexpr_raw(const Node* n) {
  switch (n->kind) {
    case NK::kName: {
      // Only reached from rexpr() the first time a name is met in this
      // function (rvars_ is cleared with rtable_), and no other path makes a
      // kVar: the table could never return an earlier node for it.
      auto e = make_node<RExpr>();
      e->kind = RExprKind::kVar;
      e->loc = loc(n);
      e->name = n->text;
      return e;
    }
    case NK::kAttr:
      if (is_global_ref(n)) return global_ref(n);
      return rother(n);
    case NK::kString: {
      RExpr e = rmk(RExprKind::kString, n);
      e.name = n->text;
      return rtable_.intern(std::move(e), fname_);
    }
    case NK::kInt:
    case NK::kFloat:
    case NK::kUnary: {
      const Num num = number(n);
      if (!num.ok) {
        RExpr e = rmk(RExprKind::kPrimValue, n);
        e.prim = expr(n);
        return rtable_.intern(std::move(e), fname_);
      }
      RExpr e = rmk(RExprKind::kPrimValue, n);
      if (num.is_int) e.prim = int_lit(num.i, n, "int64");
      else {
        e.prim = float_lit(num.f, n, "float64");
      }
      return rtable_.intern(std::move(e), fname_);
    }
    case NK::kConst:
      if (n->text == "True" || n->text == "False") {
        RExpr e = rmk(RExprKind::kPrimValue, n);
        e.prim = expr(n);
        return rtable_.intern(std::move(e), fname_);
      }
      return rother(n);
    case NK::kTuple:
    case NK::kList: {
      RExpr e = rmk(RExprKind::kTuple, n);
      e.args.reserve(n->n);
      for (std::uint32_t k = 0; k < n->n; ++k) e.args.push_back(rexpr(n->kids[k]));
      return rtable_.intern(std::move(e), fname_);
    }
    case NK::kSubscript: {
      if (n->n == 1 && n->kids[0]->kind == NK::kInt) {
        const std::int64_t idx = int_value(n->kids[0], false);
        if (idx > std::numeric_limits<std::int32_t>::max())
          throw InputError(loc(n->kids[0]), "expected a tuple or metadata index below 2^31, found " +
                                                std::to_string(idx));
        const Node* base = n->a;
        // metadata["relax.expr.Constant"][0]
        if (base->kind == NK::kSubscript && base->a->kind == NK::kName && base->a->text == "metadata" &&
            base->n == 1 && base->kids[0]->kind == NK::kString) {
          RExpr e = rmk(RExprKind::kConstant, n);
          e.name = base->kids[0]->text;
          e.index = idx;
          return rtable_.intern(std::move(e), fname_);
        }
        RExpr e = rmk(RExprKind::kTupleGetItem, n);
        e.args.push_back(rexpr(base));
        e.index = idx;
        return rtable_.intern(std::move(e), fname_);
      }
      return rother(n);
    }
    case NK::kCall: break;
    default: return rother(n);
  }

  // calls
  const CalleeInfo ci = callee(n->a);
  const auto pos = positional(n);
  if (ci.kind == Callee::kPrimValue && pos.size() == 1) {
    RExpr e = rmk(RExprKind::kPrimValue, n);
    e.prim = expr(pos[0]);
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kShape && pos.size() == 1 && (pos[0]->kind == NK::kList || pos[0]->kind == NK::kTuple)) {
    RExpr e = rmk(RExprKind::kShape, n);
    for (std::uint32_t k = 0; k < pos[0]->n; ++k) e.dims.push_back(dim(pos[0]->kids[k], nullptr));
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kStr && pos.size() == 1 && pos[0]->kind == NK::kString) {
    RExpr e = rmk(RExprKind::kString, n);
    e.name = pos[0]->text;
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kTuple) {
    RExpr e = rmk(RExprKind::kTuple, n);
    e.args.reserve(pos.size());
    for (const Node* a : pos) e.args.push_back(rexpr(a));
    return rtable_.intern(std::move(e), fname_);
  }
  if (ci.kind == Callee::kConst && !pos.empty()) {
    RExpr e = rmk(RExprKind::kConstant, n);
    const Num num = number(pos[0]);
    std::string_view dt;
    if (pos.size() >= 2) str_value(pos[1], dt);
    str_value(kwarg(n, "dtype"), dt);
    if (num.ok) {
      if (!dt.empty() && is_float_dtype(dt)) {
        e.prim = float_lit(num.f, pos[0], dt);
      } else if (num.is_int) {
        if (!dt.empty()) check_int_range(num.i, dt, pos[0]);
        e.prim = int_lit(num.i, pos[0], dt.empty() ? std::string_view("int32") : dt);
      } else {
        e.prim = float_lit(num.f, pos[0], dt.empty() ? std::string_view("float32") : dt);
      }
    }
    if (!dt.empty()) {
      RExpr d = rmk(RExprKind::kString, pos[0]);
      d.name = dt;
      e.kwargs.emplace_back("dtype", rtable_.intern(std::move(d), fname_));
    }
    return rtable_.intern(std::move(e), fname_);
  }
  RExpr e = rmk(RExprKind::kCall, n);
  e.op = ci.op;
  const bool call_tir = ci.kind == Callee::kCallTir;
  const bool dps = ci.kind == Callee::kDps;
  e.args.reserve(pos.size());
  for (std::size_t k = 0; k < pos.size(); ++k) {
    const Node* a = pos[k];
    if (k == 0 && call_tir && a->kind == NK::kName) {
      RExpr g = rmk(RExprKind::kGlobalFunc, a);
      g.name = a->text;
      e.args.push_back(rtable_.intern(std::move(g), fname_));
    } else if (k == 2 && (call_tir || dps)) {
      sinfo_list(a, e.sinfo_args);  // 2023-early positional out sinfo
    } else {
      e.args.push_back(rexpr(a));
    }
  }
  for (std::uint32_t k = 0; k < n->n; ++k) {
    const Node* a = n->kids[k];
    if (a->kind != NK::kKeyword) continue;
    if (same_text(a->text, "out_sinfo") || same_text(a->text, "out_ty") || same_text(a->text, "sinfo_args") ||
        same_text(a->text, "ty_args")) {
      sinfo_list(a->a, e.sinfo_args);
      continue;
    }
    e.kwargs.emplace_back(std::string(a->text), rexpr(a->a));
  }
  return rtable_.intern(std::move(e), fname_);
}

std::size_t Lowerer::count_stmts(Stmt* const* body, std::uint32_t n) {
  std::size_t c = n;
  for (std::uint32_t i = 0; i < n; ++i) {
    const Stmt* s = body[i];
    if (s->kind == SK::kWith || s->kind == SK::kIf) c += count_stmts(s->body, s->n_body) + count_stmts(s->orelse, s->n_orelse);
  }
  return c;
}

void Lowerer::lower_relax_body(Stmt* const* body, std::uint32_t n, RelaxFunc& f) {
  for (std::uint32_t i = 0; i < n; ++i) {
    const Stmt* s = body[i];
    const NestGuard guard(*this, s);
    switch (s->kind) {
      case SK::kAssign: {
        if (sym_var_decl(s, f.sym_vars, false)) continue;
        if (s->n_targets == 1 && s->target->kind == NK::kName && s->value->kind == NK::kName &&
            (s->value->text == class_name_ || s->value->text == "Module")) {
          cls_aliases_.insert(s->target->text);  // cls = Module
          continue;
        }
        Binding b;
        b.loc = loc(s);
        b.var = s->target->kind == NK::kName ? Symbol(s->target->text) : Symbol(clip(span(s->target)));
        b.value = rexpr(s->value);
        f.bindings.push_back(std::move(b));
        continue;
      }
      case SK::kAnnAssign: {
        if (s->value == nullptr) continue;
        Binding b;
        b.loc = loc(s);
        b.var = s->target->kind == NK::kName ? Symbol(s->target->text) : Symbol(clip(span(s->target)));
        b.sinfo = sinfo(s->annotation);
        b.value = rexpr(s->value);
        f.bindings.push_back(std::move(b));
        continue;
      }
      case SK::kExpr: {
        const Node* v = s->value;
        if (v->kind == NK::kString) continue;
        if (v->kind == NK::kCall) {
          const std::string_view m = member_of(v->a, Ns::kRelax);
          if (m == "func_attr") {
            if (v->n >= 1) read_dict(v->kids[0], f.attrs);
            continue;
          }
          if (m == "output") continue;
        }
        Binding b;
        b.loc = loc(s);
        b.value = rexpr(v);
        f.bindings.push_back(std::move(b));
        continue;
      }
      case SK::kWith:
        if (s->n_items == 1 && s->items[0]->kind == NK::kCall && member_of(s->items[0]->a, Ns::kRelax) == "dataflow") {
          // TVM prints every dataflow block with R.output(...) as its last statement.
          const Stmt* last = s->n_body > 0 ? s->body[s->n_body - 1] : s;
          if (!(last->kind == SK::kExpr && last->value->kind == NK::kCall &&
                member_of(last->value->a, Ns::kRelax) == "output"))
            throw InputError(loc(last), "expected R.output(...) at the end of the dataflow block of Relax function '" +
                                            f.name + "', found '" + first_line(span(last)) + "' (truncated dump?)");
        } else {
          spdlog::debug("{}:{}:{}: flattening an unrecognised 'with' block in Relax function '{}'", file_, s->line,
                        s->col, f.name);
        }
        lower_relax_body(s->body, s->n_body, f);
        continue;
      case SK::kIf:
        spdlog::debug("{}:{}:{}: flattening both branches of an 'if' in Relax function '{}'", file_, s->line, s->col,
                      f.name);
        lower_relax_body(s->body, s->n_body, f);
        lower_relax_body(s->orelse, s->n_orelse, f);
        continue;
      case SK::kReturn:
        if (s->value != nullptr) f.ret = rexpr(s->value);
        continue;
      case SK::kPass: continue;
      default:
        spdlog::debug("{}:{}:{}: skipping a statement in Relax function '{}': {}", file_, s->line, s->col, f.name,
                      clip(span(s)));
    }
  }
}

void Lowerer::lower_relax_func(const Stmt* def) {
  mod_.relax_funcs.emplace_back();
  RelaxFunc& f = mod_.relax_funcs.back();
  rfn_ = &f;
  var_dtypes_.clear();
  sym_seen_.clear();
  table_.clear();
  rtable_.clear();
  stable_.clear();
  rvars_.clear();
  rglobals_.clear();
  scache_.clear();
  buf_dtypes_.clear();
  meta_vars_.clear();
  cls_aliases_.clear();
  nest_ = 0;
  f.name = def->name;
  f.loc = loc(def);
  // every binding is one statement: reserve for all of them (no doubling slack)
  f.bindings.reserve(count_stmts(def->body, def->n_body));
  // symbolic vars declared in the body are known before the params' shapes are read
  for (std::uint32_t i = 0; i < def->n_body; ++i) sym_var_decl(def->body[i], f.sym_vars, false);
  for (std::uint32_t i = 0; i < def->n_params; ++i) {
    const py::Param& pp = def->params[i];
    RelaxParam prm;
    prm.name = pp.name;
    if (pp.annotation != nullptr) prm.sinfo = sinfo(pp.annotation);
    f.params.push_back(std::move(prm));
  }
  lower_relax_body(def->body, def->n_body, f);
  // TVM prints every Relax function with a `return` as its last statement.
  const Stmt* last = def->n_body > 0 ? def->body[def->n_body - 1] : def;
  if (last->kind != SK::kReturn)
    throw InputError(loc(last), "expected 'return' at the end of Relax function '" + f.name + "', found '" +
                                    first_line(span(last)) + "' (truncated dump?)");
  rfn_ = nullptr;
}

// ============================================================ parallel parse
//
// A large dump is parsed in K chunks at once, split before top-level
// functions (class members at the class's member indentation, or defs at the
// left margin). Each chunk gets its own lexer, parser, arena and lowerer and
// starts from the state a serial parse would have at its first line (line
// number, indentation, enclosing class, imports seen), which is guessed and
// then verified: the chunk before it must end exactly there, at a statement
// boundary of the same class body (or of the top level), with the same
// indentation stack, line number and scope. Any mismatch or error and the
// whole text is parsed serially, so the result (or the error) is always the
// serial one.

Module parse_serial(const std::string& text, const std::string& filename) {
  Module mod;
  mod.source = filename;
  mod.format = "tvmscript";
  py::Arena arena;
  py::Parser parser(text, filename, arena);
  Lowerer lowerer(parser, filename, mod);
  parser.parse_file(lowerer);
  return mod;
}

// Chunks per thread: at least kMinChunksPerThread, more for a large text (one
// per kChunkBytes, up to kMaxChunksPerThread) so that the last chunk leaves
// the other threads idle for a short time only.
constexpr unsigned kMinChunksPerThread = 4;
constexpr unsigned kMaxChunksPerThread = 16;
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

unsigned thread_count(const ParseOptions& opt) { return parallel::thread_count(opt.threads, "TC_PARSE_THREADS"); }

// Line breaks in [b, e) as the lexer counts them: "\n", "\r\n" and a lone "\r".
std::uint32_t count_lines(std::string_view text, std::size_t b, std::size_t e) {
  const char* p = text.data() + b;
  const char* const end = text.data() + e;
  std::size_t n = 0;
  bool any_cr = false;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  __m128i crs = _mm_setzero_si128();
  while (end - p >= 16) {
    __m128i acc = _mm_setzero_si128();  // per-byte counts, summed before they can wrap
    for (int i = 0; i < 255 && end - p >= 16; ++i, p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
      crs = _mm_or_si128(crs, _mm_cmpeq_epi8(v, cr));
    }
    const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    n += static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) +
         static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
  any_cr = _mm_movemask_epi8(crs) != 0;
#endif
  for (; p < end; ++p) {
    n += *p == '\n' ? 1 : 0;
    any_cr = any_cr || *p == '\r';
  }
  if (any_cr) {
    for (std::size_t i = b; i < e; ++i)
      if (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) ++n;
  }
  return static_cast<std::uint32_t>(n);
}

// The character after exactly `indent` spaces at the line start `p`, or '\0'
// when the line is indented otherwise.
char after_indent(std::string_view text, std::size_t p, std::uint32_t indent) {
  if (p + indent >= text.size()) return '\0';
  for (std::size_t i = p; i < p + indent; ++i)
    if (text[i] != ' ') return '\0';
  return text[p + indent] == ' ' ? '\0' : text[p + indent];
}

bool starts_def(std::string_view text, std::size_t p, std::uint32_t indent) {
  return after_indent(text, p, indent) == 'd' && text.substr(p + indent, 4) == "def ";
}

// The start of the line before the one starting at `p` (p >= 2).
std::size_t previous_line(std::string_view text, std::size_t p) {
  const std::size_t nl = text.rfind('\n', p - 2);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Does a function definition (its first decorator, or its `def` when it has
// none) start at the line start `p`, indented by `indent`?
bool starts_function(std::string_view text, std::size_t p, std::uint32_t indent) {
  const char c = after_indent(text, p, indent);
  if (c != '@' && !(c == 'd' && starts_def(text, p, indent))) return false;
  if (p < 2) return true;
  return after_indent(text, previous_line(text, p), indent) != '@';  // not a second decorator of the one above
}

std::size_t next_line(std::string_view text, std::size_t p) {
  const std::size_t nl = text.find('\n', p);
  return nl == std::string_view::npos ? text.size() : nl + 1;
}

using parallel::run_parallel;

// Where the chunks split, and the state a serial parse has at each split line.
struct SplitPlan {
  std::uint32_t indent = 0;           // the functions' indentation (0: top level)
  py::Parser::StopContext context = py::Parser::StopContext::kTopLevel;
  const Stmt* cls = nullptr;          // the enclosing class header (class members)
  ModuleScope scope;
  std::vector<std::size_t> starts;    // chunk starts: 0, then split lines
  std::vector<std::uint32_t> lines;   // the line number at each start
};

struct ChunkResult {
  Module part;
  bool ok = false;  // parsed; unless last, ended at the next split in the planned state
};

void parse_chunk(const std::string& text, const std::string& filename, const SplitPlan& plan, std::size_t k,
                 ChunkResult& out) noexcept {
  try {
    const bool last = k + 1 == plan.starts.size();
    py::LexRange range;
    range.begin = plan.starts[k];
    range.line = plan.lines[k];
    range.indent = k > 0 ? plan.indent : 0;
    range.stop = last ? py::LexRange::kNoStop : plan.starts[k + 1];
    py::Arena arena;
    py::Parser parser(text, filename, arena, range);
    Lowerer lowerer(parser, filename, out.part);
    if (k > 0) lowerer.set_scope(plan.scope);
    parser.parse_file(lowerer, k > 0 ? plan.cls : nullptr);
    if (last) {
      out.ok = true;
      return;
    }
    const auto& lex = parser.lexer();
    const std::vector<std::uint32_t> indents =
        plan.indent > 0 ? std::vector<std::uint32_t>{0, plan.indent} : std::vector<std::uint32_t>{0};
    out.ok = parser.stopped_in() == plan.context && lex.line() == plan.lines[k + 1] && lex.indents() == indents &&
             lowerer.scope() == plan.scope;
  } catch (...) {
    out.ok = false;  // the serial parse reports it
  }
}

std::optional<Module> parse_parallel(const std::string& text, const std::string& filename, unsigned threads,
                                     ParseStats& stats) {
  const std::string_view t(text);
  // The first function: its indentation says where the split lines are.
  std::size_t first = t.size();
  std::uint32_t indent = 0;
  for (std::size_t p = 0; p < t.size(); p = next_line(t, p)) {
    std::uint32_t sp = 0;
    while (p + sp < t.size() && t[p + sp] == ' ') ++sp;
    if (!starts_def(t, p, sp)) continue;
    first = p;  // back to its first decorator
    while (first >= 2 && after_indent(t, previous_line(t, first), sp) == '@') first = previous_line(t, first);
    indent = sp;
    break;
  }
  if (first >= t.size()) return std::nullopt;

  SplitPlan plan;
  plan.indent = indent;
  plan.context = indent > 0 ? py::Parser::StopContext::kClassBody : py::Parser::StopContext::kTopLevel;
  plan.starts.push_back(0);
  const std::size_t span = t.size() - first;
  // A few chunks per thread, taken in turn, keep the threads busy to the end
  // even when chunks parse at different speeds.
  const auto chunks = static_cast<unsigned>(
      std::clamp<std::size_t>(span / kChunkBytes, threads * kMinChunksPerThread, threads * kMaxChunksPerThread));
  for (unsigned k = 1; k < chunks; ++k) {
    std::size_t p = std::max(first + span / chunks * k, plan.starts.back() + 1);
    if (p > 0 && t[p - 1] != '\n') p = next_line(t, p);
    while (p < t.size() && !starts_function(t, p, indent)) p = next_line(t, p);
    if (p >= t.size()) break;
    plan.starts.push_back(p);
  }
  if (plan.starts.size() < 2) return std::nullopt;

  // The state at the first function, from a parse of the text before it (the
  // header: imports, the class line). Its arena keeps the class header alive.
  py::Arena header_arena;
  Module header_mod;
  py::LexRange header_range;
  header_range.stop = first;
  py::Parser header(text, filename, header_arena, header_range);
  Lowerer header_lowerer(header, filename, header_mod);
  try {
    header.parse_file(header_lowerer);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (header.stopped_in() != plan.context || !header_mod.prim_funcs.empty() || !header_mod.relax_funcs.empty())
    return std::nullopt;
  plan.scope = header_lowerer.scope();
  plan.cls = plan.context == py::Parser::StopContext::kClassBody ? header_lowerer.class_header() : nullptr;

  const std::size_t n = plan.starts.size();
  std::vector<std::uint32_t> breaks(n, 0);
  run_parallel(threads, n - 1, [&](std::size_t k) { breaks[k] = count_lines(t, plan.starts[k], plan.starts[k + 1]); });
  plan.lines.push_back(1);
  for (std::size_t k = 0; k + 1 < n; ++k) plan.lines.push_back(plan.lines.back() + breaks[k]);

  std::vector<ChunkResult> results(n);
  run_parallel(threads, n, [&](std::size_t k) { parse_chunk(text, filename, plan, k, results[k]); });
  stats.chunks = static_cast<unsigned>(n);
  stats.threads = std::min(threads, stats.chunks);
  for (const auto& r : results)
    if (!r.ok) return std::nullopt;

  Module mod;
  mod.source = filename;
  mod.format = "tvmscript";
  std::size_t n_prim = 0, n_relax = 0;
  for (const auto& r : results) {
    n_prim += r.part.prim_funcs.size();
    n_relax += r.part.relax_funcs.size();
  }
  mod.prim_funcs.reserve(n_prim);
  mod.relax_funcs.reserve(n_relax);
  for (auto& r : results) {
    std::move(r.part.prim_funcs.begin(), r.part.prim_funcs.end(), std::back_inserter(mod.prim_funcs));
    std::move(r.part.relax_funcs.begin(), r.part.relax_funcs.end(), std::back_inserter(mod.relax_funcs));
    std::move(r.part.other_globals.begin(), r.part.other_globals.end(), std::back_inserter(mod.other_globals));
    r.part = Module();
  }
  return mod;
}

}  // namespace

Module parse_tvmscript(const std::string& text, const std::string& filename, const ParseOptions& options) {
  ParseStats local;
  ParseStats& stats = options.stats != nullptr ? *options.stats : local;
  stats = ParseStats{};
  const unsigned threads = thread_count(options);
  std::optional<Module> mod;
  if (threads > 1 && text.size() >= options.min_parallel_bytes && !options.ordered_debug_log) {
    mod = parse_parallel(text, filename, threads, stats);
    if (!mod) {
      stats.threads = 1;
      stats.chunks = 1;
      stats.fell_back = true;
    }
  }
  if (!mod) mod = parse_serial(text, filename);
  check_defined_once(*mod, text, filename);
  if (options.require_whole_module) check_whole_module(*mod, text, filename);
  return std::move(*mod);
}

Module parse_tvmscript(const std::string& text, const std::string& filename) {
  return parse_tvmscript(text, filename, ParseOptions{});
}

}  // namespace tenet_cost::ir
