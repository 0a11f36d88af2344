// A small Python AST (the subset TVMScript and its surrounding files use) and
// the recursive-descent parser that builds it. Nodes live in an Arena that the
// TVMScript driver releases after lowering each function, so memory stays
// proportional to one function, not the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include "ir/pylex.hpp"

namespace tenet_cost::ir::py {

// ------------------------------------------------------------------- arena

class Arena {
 public:
  struct Mark {
    std::size_t block = 0;
    std::size_t used = 0;
  };
  Arena() = default;
  ~Arena();  // standard-size blocks go to a per-thread cache for the next parse
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// `bytes` > 0.
  void* alloc(std::size_t bytes, std::size_t align = alignof(std::max_align_t)) {
    // fast path inline: room in the current block
    const std::uintptr_t p = (ptr_ + align - 1) & ~(static_cast<std::uintptr_t>(align) - 1);
    if (p + bytes <= limit_) {
      ptr_ = p + bytes;
      return reinterpret_cast<void*>(p);
    }
    return alloc_slow(bytes, align);
  }
  template <class T>
  T* make() {
    static_assert(std::is_trivially_destructible_v<T>);
    return new (alloc(sizeof(T), alignof(T))) T{};
  }
  template <class T>
  T* array(std::size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) return nullptr;
    T* p = static_cast<T*>(alloc(sizeof(T) * n, alignof(T)));
    for (std::size_t i = 0; i < n; ++i) new (p + i) T{};
    return p;
  }
  /// An array holding a copy of [first, first + n) (nullptr when n == 0).
  template <class T>
  T* array_copy(const T* first, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    if (n == 0) return nullptr;
    T* p = static_cast<T*>(alloc(sizeof(T) * n, alignof(T)));
    switch (n) {  // short lists (most) without a call to memcpy
      case 3: p[2] = first[2]; [[fallthrough]];
      case 2: p[1] = first[1]; [[fallthrough]];
      case 1: p[0] = first[0]; break;
      default: std::memcpy(static_cast<void*>(p), first, sizeof(T) * n);
    }
    return p;
  }
  std::string_view copy(std::string_view s);

  [[nodiscard]] Mark mark() const {
    return Mark{cur_, cur_ < blocks_.size() ? ptr_ - reinterpret_cast<std::uintptr_t>(blocks_[cur_].data.get()) : 0};
  }
  void release(Mark m) {
    cur_ = m.block;
    enter(m.used);
  }

 private:
  struct Block {
    std::unique_ptr<std::byte[]> data;
    std::size_t size = 0;
  };
  void* alloc_slow(std::size_t bytes, std::size_t align);
  std::vector<Block> blocks_;
  void enter(std::size_t used) {  // make blocks_[cur_] the block in use, `used` bytes of it taken
    if (cur_ < blocks_.size()) {
      const auto base = reinterpret_cast<std::uintptr_t>(blocks_[cur_].data.get());
      ptr_ = base + used;
      limit_ = base + blocks_[cur_].size;
    } else {
      ptr_ = limit_ = 0;
    }
  }
  std::size_t cur_ = 0;       // index of the block in use
  std::uintptr_t ptr_ = 0;    // its first free byte (0: no block yet)
  std::uintptr_t limit_ = 0;  // its end
};

// -------------------------------------------------------------- expressions

enum class NK : std::uint8_t {
  kName,        // text
  kInt,         // text = literal as written; ival = value when !big
  kFloat,       // text = literal; fval
  kString,      // text = decoded value
  kConst,       // None / True / False / ... : text
  kAttr,        // a.text
  kCall,        // a(kids...) ; keyword args are kKeyword kids, *x kStarred, **x kDoubleStarred
  kSubscript,   // a[kids...]  (a tuple index is flattened into kids; `A[()]` has no kids)
  kSlice,       // a:b:c (any may be null)
  kTuple,       // kids
  kList,        // kids
  kDict,        // kids = key0, value0, key1, value1, ...   (a null key is **mapping)
  kSet,         // kids
  kBinOp,       // a op b (op: py::Op of the operator)
  kUnary,       // op a  (op: kMinus, kPlus, kTilde; kNot for `not`)
  kBoolOp,      // kids joined by op (kAnd: and, kOr: or) -- op holds Kw
  kCompare,     // a op b, op = py::Op (kLt..kNe) or kIn/kNotIn/kIs/kIsNot via cmp field
  kIfExp,       // a if b else c
  kKeyword,     // text = value (in calls)
  kStarred,     // *a
  kDoubleStarred,  // **a
  kLambda,      // (body in a)
  kComprehension,  // generic [..for..] / (..for..) / {..for..}: kept opaque
  kEllipsis,
};

enum class Cmp : std::uint8_t { kOp, kIn, kNotIn, kIs, kIsNot };

struct Node {
  NK kind = NK::kName;
  Op op = Op::kNone;
  Kw kw = Kw::kNone;
  Cmp cmp = Cmp::kOp;
  bool big = false;           // kInt: does not fit in uint64
  std::uint32_t line = 0, col = 0;
  std::uint32_t begin = 0, end = 0;  // source span [begin, end)
  std::uint32_t height = 1;
  std::uint32_t n = 0;        // number of kids
  std::string_view text;
  std::uint64_t ival = 0;
  double fval = 0.0;
  Node* a = nullptr;
  Node* b = nullptr;
  Node* c = nullptr;
  Node** kids = nullptr;
};

// --------------------------------------------------------------- statements

enum class SK : std::uint8_t {
  kExpr,       // value
  kAssign,     // targets (n_targets, chained a = b = v) = value
  kAnnAssign,  // target: annotation [= value]
  kAugAssign,  // target op= value (op = the binary operator)
  kFor,        // for target in value: body [else: orelse]
  kWhile,      // while value: body [else: orelse]
  kIf,         // if value: body else: orelse (elif = nested kIf in orelse)
  kWith,       // with items[i] [as targets[i]]...: body
  kDef,        // decorators, name, params, returns, body
  kClass,      // decorators, name, bases (items), body
  kReturn,     // [value]
  kPass, kBreak, kContinue,
  kAssert,     // value [, annotation = message]
  kImport,     // import ...  (text = whole statement)
  kFrom,       // from X import a as b, ... : name = module; aliases in imports
  kOther,      // global / nonlocal / del / raise / try / yield ... (kept opaque, body may be set)
};

struct Param {
  std::string_view name;
  Node* annotation = nullptr;
  Node* default_value = nullptr;
  std::uint32_t line = 0, col = 0;
  std::uint8_t star = 0;  // 1: *args, 2: **kwargs
};

struct ImportAlias {
  std::string_view name;   // imported name (dotted for `import a.b`)
  std::string_view alias;  // "as" name or empty
};

struct Stmt {
  SK kind = SK::kPass;
  Op op = Op::kNone;
  std::uint32_t line = 0, col = 0;
  std::uint32_t begin = 0, end = 0;
  std::string_view name;
  Node* target = nullptr;
  Node** targets = nullptr;
  std::uint32_t n_targets = 0;
  Node* value = nullptr;
  Node* annotation = nullptr;
  Node** items = nullptr;       // with-items / class bases
  Node** item_targets = nullptr;
  std::uint32_t n_items = 0;
  Stmt** body = nullptr;
  std::uint32_t n_body = 0;
  Stmt** orelse = nullptr;
  std::uint32_t n_orelse = 0;
  Node** decorators = nullptr;
  std::uint32_t n_decorators = 0;
  Param* params = nullptr;
  std::uint32_t n_params = 0;
  Node* returns = nullptr;
  ImportAlias* imports = nullptr;
  std::uint32_t n_imports = 0;
};

// ------------------------------------------------------------------ parser

class Parser {
 public:
  /// `range`: the chunk of `src` to parse (default: all of it), see LexRange.
  Parser(std::string_view src, const std::string& file, Arena& arena, const LexRange& range = {});

  /// Called for each top-level statement; for a top-level `class`, the class
  /// header is reported with kClass and no body, then each member statement is
  /// reported with `in_class` set (so the arena can be released in between).
  struct Sink {
    virtual ~Sink() = default;
    virtual void top_level(Stmt* s, const Stmt* enclosing_class) = 0;
  };
  /// Parse the file (or the chunk). `resume_class`: the chunk starts inside
  /// the body of this top-level class (the range's indent is its members').
  void parse_file(Sink& sink, const Stmt* resume_class = nullptr);

  /// Where a chunk's parse met its stop line (LexRange::stop): kNone when it
  /// did not reach it cleanly, else at a statement boundary of the top level or
  /// of a top-level class body.
  enum class StopContext : std::uint8_t { kNone, kTopLevel, kClassBody };
  [[nodiscard]] StopContext stopped_in() const { return stopped_in_; }

  Stmt* parse_statement();  // one full statement (compound ones include their suite)
  Node* parse_expression(); // a full test-list (for tests)

  [[nodiscard]] const Lexer& lexer() const { return lex_; }
  [[nodiscard]] std::string_view span(const Node* n) const { return lex_.source().substr(n->begin, n->end - n->begin); }
  [[nodiscard]] std::string_view span(const Stmt* s) const { return lex_.source().substr(s->begin, s->end - s->begin); }

 private:
  // token stream
  const Token& tok() const { return *tk_; }
  /// The token after the current one.
  const Token& peek() {
    if (tk_ + 1 == tk_end_) refill_keep();
    return tk_[1];
  }
  void advance() {
    if (tk_->kind < Tok::kNewline) last_end_ = tk_->end;  // not NEWLINE, INDENT, DEDENT or the end
    if (++tk_ == tk_end_) refill();
  }
  void refill();       // the buffer is used up: lex the next tokens into it
  void refill_keep();  // the same, keeping the current token (to peek past it)
  bool at_op(Op op) const { return tk_->kind == Tok::kOp && tk_->op == op; }
  bool at_kw(Kw k) const { return tk_->kind == Tok::kName && tk_->kw == k; }
  /// The current token starts a compound statement (decorator, def, class, if, for, ...).
  bool at_compound_start() const {
    return at_op(Op::kAt) || at_kw(Kw::kDef) || at_kw(Kw::kClass) || at_kw(Kw::kIf) || at_kw(Kw::kFor) ||
           at_kw(Kw::kWhile) || at_kw(Kw::kWith) || at_kw(Kw::kTry) || at_kw(Kw::kAsync);
  }
  bool accept_op(Op op);
  bool accept_kw(Kw k);
  void expect_op(Op op, const char* what);
  void expect_kw(Kw k, const char* what);
  void expect_newline();
  std::string_view expect_name(const char* what);
  [[noreturn]] void error_expected(const std::string& what) const;
  [[noreturn]] void error_expected_at(const Token& t, const std::string& what) const;

  // statements
  Stmt* new_stmt(SK k, const Token& at);
  void finish(Stmt* s) { s->end = last_end_; }
  void parse_simple_statements(std::vector<Stmt*>& out);
  Stmt* parse_small_statement();
  Stmt* parse_compound(std::vector<Node*>* decorators);
  Stmt* parse_for(const Token& first);   // after `for`: targets `in` iterable `:` suite, `else`
  Stmt* parse_with(const Token& first);  // after `with`: items (`as` targets) `:` suite
  Stmt* parse_try(const Token& first);   // after `try`: an opaque statement; the handlers are checked and dropped
  void parse_else(Stmt* s);              // an optional `else:` suite into s->orelse
  void parse_class_members(Sink& sink, const Stmt* cls);
  void note_end(StopContext where);
  void parse_suite(Stmt*** body, std::uint32_t* n);
  void parse_params(Stmt* s, Op closer);
  Stmt* parse_import();
  Stmt* parse_from();

  // expressions
  Node* new_node(NK k, const Token& at);
  Node* new_node_from(NK k, const Node* first);
  static constexpr std::uint32_t kMaxHeight = 1000;  // height of one expression tree (e.g. a+b+c+... chains)
  void set_height(Node* n, std::uint32_t h) {
    if (h > n->height) n->height = h;
    if (n->height > kMaxHeight) fail_height(n);
  }
  [[noreturn, gnu::cold]] void fail_height(const Node* n) const;
  /// Elements of the brackets (tuple, list, call arguments, subscript) open at once: real dumps
  /// need ~400 (a model's parameter tuple); the limit bounds the memory of a dump that is one
  /// huge tuple (each element is a ~100-byte node; docs/reliability.md, limits).
  static constexpr std::size_t kMaxPendingElements = std::size_t{1} << 16;
  void push_scratch(Node* n) {
    if (scratch_.size() >= kMaxPendingElements && n != nullptr) [[unlikely]]
      fail_elements(n);
    scratch_.push_back(n);
  }
  [[noreturn, gnu::cold]] void fail_elements(const Node* n) const;
  /// Syntax nodes of one top-level statement (a whole prim_func or Relax function, or one class
  /// member), the memory the parser holds at once (~125 bytes a node): the largest real function
  /// (fixture 01's Relax function) has 23,130 nodes; the limit is ~90x that, ~260 MB
  /// (docs/reliability.md, limits).
  static constexpr std::size_t kMaxNodesPerDef = std::size_t{1} << 21;
  std::size_t def_nodes_ = 0;  // nodes since the arena was last released
  void count_node(const Token& at) {
    if (++def_nodes_ > kMaxNodesPerDef) [[unlikely]]
      fail_nodes(at);
  }
  [[noreturn, gnu::cold]] void fail_nodes(const Token& at) const;
  Node* parse_testlist(bool allow_star);     // a, b, c  -> tuple when comma
  Node* parse_test();
  Node* parse_test_nocond();
  Node* parse_or_test();
  Node* parse_expr(int min_prec);
  Node* parse_infix(Node* lhs, int min_prec);
  Node* parse_unary();
  Node* parse_power();
  Node* parse_atom();
  Node* parse_bracketed(Op open);
  Node* parse_call(Node* callee);
  Node* parse_subscript(Node* base);
  Node* parse_slice_item();
  Node* parse_lambda();
  Node** finish_list(std::size_t scratch_start, std::uint32_t* n);
  void skip_comprehension_tail(Op closer);

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser);
    ~DepthGuard() { --p.depth_; }
  };

  Lexer lex_;
  Arena& arena_;
  // Tokens are lexed in batches (Lexer::fill) into buf_; tk_ is the current
  // one, [tk_, tk_end_) those lexed and not yet consumed.
  static constexpr std::size_t kTokBuf = 128;
  Token* tk_ = nullptr;
  Token* tk_end_ = nullptr;
  std::uint32_t last_end_ = 0;
  std::size_t depth_ = 0;
  std::vector<Node*> scratch_;
  std::vector<Stmt*> stmt_scratch_;
  std::string strbuf_;
  StopContext stopped_in_ = StopContext::kNone;
  Token buf_[kTokBuf];
};

}  // namespace tenet_cost::ir::py
