#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "ir/pyast.hpp"

namespace tenet_cost::ir::py {

namespace {
constexpr std::size_t kArenaBlock = 256u << 10;
constexpr std::size_t kMaxExprDepth = 300;      // recursive-descent nesting

// Standard-size arena blocks are kept per thread for the next parse (up to
// 4 MiB): a program that parses file after file (tests, benchmarks, a batch)
// would otherwise have malloc trim them off the heap at the end of each parse
// and page-fault them in again in the next one.
constexpr std::size_t kKeepBlocks = 16;
struct BlockCache {
  std::vector<std::unique_ptr<std::byte[]>> blocks;
};
thread_local BlockCache t_block_cache;
}  // namespace

// ------------------------------------------------------------------- arena

Arena::~Arena() {
  for (Block& b : blocks_) {
    if (b.size != kArenaBlock || t_block_cache.blocks.size() >= kKeepBlocks) continue;
    try {
      t_block_cache.blocks.push_back(std::move(b.data));
    } catch (...) {  // no memory for the cache entry: the block is simply freed
    }
  }
}

void* Arena::alloc_slow(std::size_t bytes, std::size_t align) {
  for (;;) {
    if (cur_ < blocks_.size()) {
      Block& b = blocks_[cur_];
      const auto base = reinterpret_cast<std::uintptr_t>(b.data.get());
      const std::size_t used = ptr_ - base;
      std::size_t off = ((base + used + align - 1) & ~(static_cast<std::uintptr_t>(align) - 1)) - base;
      if (off + bytes <= b.size) {
        ptr_ = base + off + bytes;
        return b.data.get() + off;
      }
      if (cur_ + 1 < blocks_.size() && blocks_[cur_ + 1].size >= bytes + align) {
        ++cur_;
        enter(0);
        continue;
      }
    }
    Block nb;
    nb.size = std::max(kArenaBlock, bytes + align);
    if (nb.size == kArenaBlock && !t_block_cache.blocks.empty()) {
      nb.data = std::move(t_block_cache.blocks.back());
      t_block_cache.blocks.pop_back();
    } else {
      nb.data = std::unique_ptr<std::byte[]>(new std::byte[nb.size]);  // not zeroed: nodes are value-initialised by make()
    }
    const std::size_t at = blocks_.empty() ? 0 : std::min(cur_ + 1, blocks_.size());
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(at), std::move(nb));
    cur_ = at;
    enter(0);
  }
}

std::string_view Arena::copy(std::string_view s) {
  if (s.empty()) return {};
  char* p = static_cast<char*>(alloc(s.size(), 1));
  std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

// ------------------------------------------------------------------ parser

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser) {
  if (++p.depth_ > kMaxExprDepth) {
    --p.depth_;
    p.error_expected("an expression nested at most " + std::to_string(kMaxExprDepth) + " levels deep");
  }
}

Parser::Parser(std::string_view src, const std::string& file, Arena& arena, const LexRange& range)
    : lex_(src, file, range), arena_(arena) {
  refill();
}

void Parser::refill() {
  tk_end_ = buf_ + lex_.fill(buf_, kTokBuf);
  tk_ = buf_;
}

void Parser::refill_keep() {
  buf_[0] = *tk_;
  tk_end_ = buf_ + 1 + lex_.fill(buf_ + 1, kTokBuf - 1);
  tk_ = buf_;
}

bool Parser::accept_op(Op op) {
  if (!at_op(op)) return false;
  advance();
  return true;
}

bool Parser::accept_kw(Kw k) {
  if (!at_kw(k)) return false;
  advance();
  return true;
}

void Parser::error_expected_at(const Token& t, const std::string& what) const {
  lex_.fail(t.line, t.col, "expected " + what + ", found " + lex_.describe(t));
}

void Parser::error_expected(const std::string& what) const { error_expected_at(*tk_, what); }

void Parser::expect_op(Op op, const char* what) {
  if (!accept_op(op)) error_expected(what);
}

void Parser::expect_kw(Kw k, const char* what) {
  if (!accept_kw(k)) error_expected(what);
}

void Parser::expect_newline() {
  if (tk_->kind == Tok::kNewline) {
    advance();
    return;
  }
  if (tk_->kind == Tok::kEnd) return;
  error_expected("end of line");
}

std::string_view Parser::expect_name(const char* what) {
  if (tk_->kind != Tok::kName || tk_->kw != Kw::kNone) error_expected(what);
  const std::string_view s = lex_.text(*tk_);
  advance();
  return s;
}

Node* Parser::new_node(NK k, const Token& at) {
  count_node(at);
  Node* n = arena_.make<Node>();
  n->kind = k;
  n->line = at.line;
  n->col = at.col;
  n->begin = at.begin;
  n->end = at.end;
  return n;
}

Node* Parser::new_node_from(NK k, const Node* first) {
  if (++def_nodes_ > kMaxNodesPerDef) [[unlikely]] {
    Token at{};
    at.line = first->line;
    at.col = first->col;
    fail_nodes(at);
  }
  Node* n = arena_.make<Node>();
  n->kind = k;
  n->line = first->line;
  n->col = first->col;
  n->begin = first->begin;
  n->end = first->end;
  return n;
}

void Parser::fail_elements(const Node* n) const {
  lex_.fail(
      n->line, n->col,
      "expected at most " + std::to_string(kMaxPendingElements) +
          " elements in open brackets (the largest real dumps have ~400: docs/reliability.md, limits), found more");
}

void Parser::fail_nodes(const Token& at) const {
  lex_.fail(at.line, at.col,
            "expected at most " + std::to_string(kMaxNodesPerDef) +
                " syntax nodes in one top-level definition (the largest real function has 23,130 nodes: "
                "docs/reliability.md, limits), found more");
}

void Parser::fail_height(const Node* n) const {
  lex_.fail(n->line, n->col,
            "expected an expression at most " + std::to_string(kMaxHeight) + " operations deep, found a deeper one");
}

Node** Parser::finish_list(std::size_t start, std::uint32_t* n) {
  Node** const first = scratch_.data() + start;
  const std::size_t count = scratch_.size() - start;
  *n = static_cast<std::uint32_t>(count);
  Node** out = arena_.array_copy(first, count);
  scratch_.erase(scratch_.begin() + static_cast<std::ptrdiff_t>(start), scratch_.end());
  return out;
}

// -------------------------------------------------------------- statements

Stmt* Parser::new_stmt(SK k, const Token& at) {
  count_node(at);
  Stmt* s = arena_.make<Stmt>();
  s->kind = k;
  s->line = at.line;
  s->col = at.col;
  s->begin = at.begin;
  s->end = at.end;
  return s;
}

void Parser::note_end(StopContext where) {
  // The first loop to see the stop's kEnd is where the chunk ended.
  if (tk_->kind == Tok::kEnd && lex_.stopped() && stopped_in_ == StopContext::kNone) stopped_in_ = where;
}

void Parser::parse_class_members(Sink& sink, const Stmt* cls) {
  const Arena::Mark m1 = arena_.mark();
  std::vector<Stmt*> stmts;
  while (tk_->kind != Tok::kDedent && tk_->kind != Tok::kEnd) {
    stmts.clear();
    if (at_compound_start()) {
      stmts.push_back(parse_compound(nullptr));
    } else {
      parse_simple_statements(stmts);
    }
    for (Stmt* s : stmts) sink.top_level(s, cls);
    arena_.release(m1);
    def_nodes_ = 0;
  }
  note_end(StopContext::kClassBody);
  if (tk_->kind == Tok::kDedent) advance();
}

void Parser::parse_file(Sink& sink, const Stmt* resume_class) {
  const Arena::Mark m0 = arena_.mark();
  if (resume_class != nullptr) {
    parse_class_members(sink, resume_class);
    arena_.release(m0);
    def_nodes_ = 0;
  }
  std::vector<Stmt*> stmts;
  while (tk_->kind != Tok::kEnd) {
    if (tk_->kind == Tok::kNewline) {
      advance();
      continue;
    }
    if (tk_->kind == Tok::kIndent) error_expected("a statement at the left margin");
    // Decorators, then maybe a class whose members we report one by one.
    std::vector<Node*> decorators;
    const Token first = *tk_;
    while (at_op(Op::kAt)) {
      advance();
      decorators.push_back(parse_test());
      expect_newline();
    }
    if (at_kw(Kw::kClass)) {
      Stmt* cls = new_stmt(SK::kClass, first);
      advance();
      cls->name = expect_name("a class name");
      if (accept_op(Op::kLPar)) {
        Node* call = parse_call(new_node(NK::kName, first));
        cls->items = call->kids;
        cls->n_items = call->n;
      }
      expect_op(Op::kColon, "':'");
      cls->n_decorators = static_cast<std::uint32_t>(decorators.size());
      cls->decorators = arena_.array<Node*>(decorators.size());
      std::copy(decorators.begin(), decorators.end(), cls->decorators);
      finish(cls);
      sink.top_level(cls, nullptr);
      if (tk_->kind == Tok::kNewline) {
        advance();
        if (tk_->kind != Tok::kIndent) error_expected("an indented class body");
        advance();
        parse_class_members(sink, cls);
      } else {
        stmts.clear();
        parse_simple_statements(stmts);
        for (Stmt* s : stmts) sink.top_level(s, cls);
      }
      arena_.release(m0);
      def_nodes_ = 0;
      continue;
    }
    if (!decorators.empty()) {
      Stmt* s = parse_compound(&decorators);
      s->line = first.line;
      s->col = first.col;
      s->begin = first.begin;
      sink.top_level(s, nullptr);
    } else if (at_compound_start()) {  // not a decorator or class here: both were handled above
      sink.top_level(parse_compound(nullptr), nullptr);
    } else {
      stmts.clear();
      parse_simple_statements(stmts);
      for (Stmt* s : stmts) sink.top_level(s, nullptr);
    }
    arena_.release(m0);
    def_nodes_ = 0;
  }
  note_end(StopContext::kTopLevel);
}

Stmt* Parser::parse_statement() {
  if (at_compound_start())
    return parse_compound(nullptr);
  const std::size_t st = stmt_scratch_.size();
  const Token first = *tk_;
  parse_simple_statements(stmt_scratch_);
  if (stmt_scratch_.size() - st == 1) {
    Stmt* s = stmt_scratch_.back();
    stmt_scratch_.resize(st);
    return s;
  }
  Stmt* s = new_stmt(SK::kOther, first);
  s->n_body = static_cast<std::uint32_t>(stmt_scratch_.size() - st);
  s->body = arena_.array<Stmt*>(s->n_body);
  for (std::uint32_t i = 0; i < s->n_body; ++i) s->body[i] = stmt_scratch_[st + i];
  stmt_scratch_.resize(st);
  finish(s);
  return s;
}

void Parser::parse_simple_statements(std::vector<Stmt*>& out) {
  for (;;) {
    out.push_back(parse_small_statement());
    if (!accept_op(Op::kSemi)) break;
    if (tk_->kind == Tok::kNewline || tk_->kind == Tok::kEnd) break;
  }
  expect_newline();
}

Stmt* Parser::parse_small_statement() {
  const Token first = *tk_;
  if (tk_->kind == Tok::kIndent) error_expected("a statement");
  if (tk_->kind == Tok::kName) {
    switch (tk_->kw) {
      case Kw::kPass: {
        advance();
        Stmt* s = new_stmt(SK::kPass, first);
        finish(s);
        return s;
      }
      case Kw::kBreak:
      case Kw::kContinue: {
        advance();
        Stmt* s = new_stmt(first.kw == Kw::kBreak ? SK::kBreak : SK::kContinue, first);
        finish(s);
        return s;
      }
      case Kw::kReturn: {
        advance();
        Stmt* s = new_stmt(SK::kReturn, first);
        if (tk_->kind != Tok::kNewline && tk_->kind != Tok::kEnd && !at_op(Op::kSemi)) s->value = parse_testlist(true);
        finish(s);
        return s;
      }
      case Kw::kAssert: {
        advance();
        Stmt* s = new_stmt(SK::kAssert, first);
        s->value = parse_test();
        if (accept_op(Op::kComma)) s->annotation = parse_test();
        finish(s);
        return s;
      }
      case Kw::kImport: return parse_import();
      case Kw::kFrom: return parse_from();
      case Kw::kGlobal:
      case Kw::kNonlocal: {
        advance();
        Stmt* s = new_stmt(SK::kOther, first);
        expect_name("a name");
        while (accept_op(Op::kComma)) expect_name("a name");
        finish(s);
        return s;
      }
      case Kw::kDel: {
        advance();
        Stmt* s = new_stmt(SK::kOther, first);
        s->value = parse_testlist(false);
        finish(s);
        return s;
      }
      case Kw::kRaise: {
        advance();
        Stmt* s = new_stmt(SK::kOther, first);
        if (tk_->kind != Tok::kNewline && tk_->kind != Tok::kEnd && !at_op(Op::kSemi)) {
          s->value = parse_test();
          if (accept_kw(Kw::kFrom)) s->annotation = parse_test();
        }
        finish(s);
        return s;
      }
      case Kw::kYield: {
        advance();
        Stmt* s = new_stmt(SK::kOther, first);
        accept_kw(Kw::kFrom);
        if (tk_->kind != Tok::kNewline && tk_->kind != Tok::kEnd && !at_op(Op::kSemi)) s->value = parse_testlist(true);
        finish(s);
        return s;
      }
      default: break;
    }
  }
  Node* lhs = parse_testlist(true);
  if (accept_op(Op::kColon)) {
    Stmt* s = new_stmt(SK::kAnnAssign, first);
    s->target = lhs;
    s->annotation = parse_test();
    if (accept_op(Op::kAssign)) s->value = parse_testlist(true);
    finish(s);
    return s;
  }
  if (tk_->kind == Tok::kOp && tk_->op >= Op::kPlusEq && tk_->op <= Op::kAtEq && tk_->op != Op::kTildeUnused) {
    Stmt* s = new_stmt(SK::kAugAssign, first);
    s->op = tk_->op == Op::kAtEq ? Op::kAt
                                 : static_cast<Op>(static_cast<int>(Op::kPlus) +
                                                   (static_cast<int>(tk_->op) - static_cast<int>(Op::kPlusEq)));
    advance();
    s->target = lhs;
    s->value = parse_testlist(true);
    finish(s);
    return s;
  }
  if (at_op(Op::kAssign)) {
    Stmt* s = new_stmt(SK::kAssign, first);
    const std::size_t st = scratch_.size();
    push_scratch(lhs);
    Node* value = nullptr;
    while (accept_op(Op::kAssign)) {
      value = parse_testlist(true);
      if (at_op(Op::kAssign)) push_scratch(value);
    }
    s->targets = finish_list(st, &s->n_targets);
    s->target = s->targets[0];
    s->value = value;
    finish(s);
    return s;
  }
  Stmt* s = new_stmt(SK::kExpr, first);
  s->value = lhs;
  finish(s);
  return s;
}

Stmt* Parser::parse_import() {
  const Token first = *tk_;
  advance();
  Stmt* s = new_stmt(SK::kImport, first);
  std::vector<ImportAlias> al;
  for (;;) {
    const Token nt = *tk_;
    expect_name("a module name");
    while (accept_op(Op::kDot)) expect_name("a module name");
    ImportAlias a;
    a.name = lex_.source().substr(nt.begin, last_end_ - nt.begin);
    if (accept_kw(Kw::kAs)) a.alias = expect_name("a name after 'as'");
    al.push_back(a);
    if (!accept_op(Op::kComma)) break;
  }
  s->n_imports = static_cast<std::uint32_t>(al.size());
  s->imports = arena_.array<ImportAlias>(al.size());
  std::copy(al.begin(), al.end(), s->imports);
  finish(s);
  return s;
}

Stmt* Parser::parse_from() {
  const Token first = *tk_;
  advance();
  Stmt* s = new_stmt(SK::kFrom, first);
  const Token mt = *tk_;
  bool any = false;
  while (at_op(Op::kDot) || at_op(Op::kEllipsis)) {
    advance();
    any = true;
  }
  if (tk_->kind == Tok::kName && tk_->kw == Kw::kNone) {
    expect_name("a module name");
    while (accept_op(Op::kDot)) expect_name("a module name");
    any = true;
  }
  if (!any) error_expected("a module name");
  s->name = lex_.source().substr(mt.begin, last_end_ - mt.begin);
  expect_kw(Kw::kImport, "'import'");
  std::vector<ImportAlias> al;
  if (accept_op(Op::kStar)) {
    al.push_back(ImportAlias{"*", {}});
  } else {
    const bool paren = accept_op(Op::kLPar);
    for (;;) {
      ImportAlias a;
      a.name = expect_name("a name to import");
      if (accept_kw(Kw::kAs)) a.alias = expect_name("a name after 'as'");
      al.push_back(a);
      if (!accept_op(Op::kComma)) break;
      if (paren && at_op(Op::kRPar)) break;
    }
    if (paren) expect_op(Op::kRPar, "')'");
  }
  s->n_imports = static_cast<std::uint32_t>(al.size());
  s->imports = arena_.array<ImportAlias>(al.size());
  std::copy(al.begin(), al.end(), s->imports);
  finish(s);
  return s;
}

void Parser::parse_suite(Stmt*** body, std::uint32_t* n) {
  const std::size_t st = stmt_scratch_.size();
  if (tk_->kind == Tok::kNewline) {
    advance();
    if (tk_->kind != Tok::kIndent) error_expected("an indented block");
    advance();
    while (tk_->kind != Tok::kDedent && tk_->kind != Tok::kEnd) {
      if (at_compound_start()) {
        Stmt* s = parse_compound(nullptr);
        stmt_scratch_.push_back(s);
      } else {
        parse_simple_statements(stmt_scratch_);
      }
    }
    if (tk_->kind == Tok::kDedent) advance();
  } else {
    if (tk_->kind == Tok::kEnd) error_expected("a statement");
    parse_simple_statements(stmt_scratch_);
  }
  *n = static_cast<std::uint32_t>(stmt_scratch_.size() - st);
  *body = arena_.array<Stmt*>(*n);
  for (std::uint32_t i = 0; i < *n; ++i) (*body)[i] = stmt_scratch_[st + i];
  stmt_scratch_.resize(st);
}

void Parser::parse_params(Stmt* s, Op closer) {
  std::vector<Param> ps;
  while (!at_op(closer)) {
    Param p;
    p.line = tk_->line;
    p.col = tk_->col;
    if (accept_op(Op::kSlash)) {
      if (!accept_op(Op::kComma)) break;
      continue;
    }
    if (accept_op(Op::kStar)) {
      p.star = 1;
      if (at_op(Op::kComma) || at_op(closer)) {  // bare `*`
        if (!accept_op(Op::kComma)) break;
        continue;
      }
    } else if (accept_op(Op::kDStar)) {
      p.star = 2;
    }
    p.name = expect_name("a parameter name");
    if (closer == Op::kRPar && accept_op(Op::kColon)) p.annotation = parse_test();
    if (accept_op(Op::kAssign)) p.default_value = parse_test();
    ps.push_back(p);
    if (!accept_op(Op::kComma)) break;
  }
  s->n_params = static_cast<std::uint32_t>(ps.size());
  s->params = arena_.array<Param>(ps.size());
  std::copy(ps.begin(), ps.end(), s->params);
}

// NOLINTNEXTLINE(readability-function-size): one branch per compound statement kind (def/class/for/while/if/with/try)
Stmt* Parser::parse_compound(std::vector<Node*>* decorators) {
  const DepthGuard guard(*this);
  const Token first = *tk_;
  std::vector<Node*> local_decorators;
  if (decorators == nullptr && at_op(Op::kAt)) {
    while (at_op(Op::kAt)) {
      advance();
      local_decorators.push_back(parse_test());
      expect_newline();
    }
    decorators = &local_decorators;
  }
  if (decorators != nullptr && !decorators->empty() && !at_kw(Kw::kDef) && !at_kw(Kw::kClass) &&
      !at_kw(Kw::kAsync))
    error_expected("'def' or 'class' after a decorator");
  accept_kw(Kw::kAsync);
  Stmt* s = nullptr;
  if (accept_kw(Kw::kDef)) {
    s = new_stmt(SK::kDef, first);
    s->name = expect_name("a function name");
    expect_op(Op::kLPar, "'('");
    parse_params(s, Op::kRPar);
    expect_op(Op::kRPar, "')' or ','");
    if (accept_op(Op::kArrow)) s->returns = parse_test();
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
  } else if (accept_kw(Kw::kClass)) {
    s = new_stmt(SK::kClass, first);
    s->name = expect_name("a class name");
    if (accept_op(Op::kLPar)) {
      Node* call = parse_call(new_node(NK::kName, first));
      s->items = call->kids;
      s->n_items = call->n;
    }
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
  } else if (accept_kw(Kw::kIf) || accept_kw(Kw::kElif)) {
    s = new_stmt(SK::kIf, first);
    s->value = parse_test();
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
    if (at_kw(Kw::kElif)) {
      Stmt* e = parse_compound(nullptr);
      s->orelse = arena_.array<Stmt*>(1);
      s->orelse[0] = e;
      s->n_orelse = 1;
    } else if (accept_kw(Kw::kElse)) {
      expect_op(Op::kColon, "':'");
      parse_suite(&s->orelse, &s->n_orelse);
    }
  } else if (accept_kw(Kw::kFor)) {
    s = new_stmt(SK::kFor, first);
    // exprlist: targets are `or_expr`s (stop before `in`)
    const Token t0 = *tk_;
    const std::size_t st = scratch_.size();
    bool comma = false;
    for (;;) {
      if (accept_op(Op::kStar)) {
        Node* st_node = new_node(NK::kStarred, t0);
        st_node->a = parse_expr(5);
        push_scratch(st_node);
      } else {
        push_scratch(parse_expr(5));
      }
      if (!accept_op(Op::kComma)) break;
      comma = true;
      if (at_kw(Kw::kIn)) break;
    }
    if (scratch_.size() - st == 1 && !comma) {
      s->target = scratch_.back();
      scratch_.resize(st);
    } else {
      Node* tup = new_node(NK::kTuple, t0);
      tup->kids = finish_list(st, &tup->n);
      tup->end = last_end_;
      s->target = tup;
    }
    expect_kw(Kw::kIn, "'in'");
    s->value = parse_testlist(true);
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
    if (accept_kw(Kw::kElse)) {
      expect_op(Op::kColon, "':'");
      parse_suite(&s->orelse, &s->n_orelse);
    }
  } else if (accept_kw(Kw::kWhile)) {
    s = new_stmt(SK::kWhile, first);
    s->value = parse_test();
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
    if (accept_kw(Kw::kElse)) {
      expect_op(Op::kColon, "':'");
      parse_suite(&s->orelse, &s->n_orelse);
    }
  } else if (accept_kw(Kw::kWith)) {
    s = new_stmt(SK::kWith, first);
    std::vector<Node*> items, targets;
    for (;;) {
      items.push_back(parse_test());
      targets.push_back(accept_kw(Kw::kAs) ? parse_expr(5) : nullptr);
      if (!accept_op(Op::kComma)) break;
    }
    s->n_items = static_cast<std::uint32_t>(items.size());
    s->items = arena_.array<Node*>(items.size());
    s->item_targets = arena_.array<Node*>(items.size());
    std::copy(items.begin(), items.end(), s->items);
    std::copy(targets.begin(), targets.end(), s->item_targets);
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
  } else if (accept_kw(Kw::kTry)) {
    s = new_stmt(SK::kOther, first);
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
    bool handlers = false;
    while (at_kw(Kw::kExcept)) {
      handlers = true;
      advance();
      accept_op(Op::kStar);
      if (!at_op(Op::kColon)) {
        parse_test();
        if (accept_kw(Kw::kAs)) expect_name("a name after 'as'");
      }
      expect_op(Op::kColon, "':'");
      Stmt** b = nullptr;
      std::uint32_t nb = 0;
      parse_suite(&b, &nb);
    }
    if (handlers && accept_kw(Kw::kElse)) {
      expect_op(Op::kColon, "':'");
      Stmt** b = nullptr;
      std::uint32_t nb = 0;
      parse_suite(&b, &nb);
    }
    if (accept_kw(Kw::kFinally)) {
      handlers = true;
      expect_op(Op::kColon, "':'");
      Stmt** b = nullptr;
      std::uint32_t nb = 0;
      parse_suite(&b, &nb);
    }
    if (!handlers) error_expected("'except' or 'finally'");
  } else {
    error_expected("a statement");
  }
  if (decorators != nullptr && !decorators->empty()) {
    s->n_decorators = static_cast<std::uint32_t>(decorators->size());
    s->decorators = arena_.array<Node*>(decorators->size());
    std::copy(decorators->begin(), decorators->end(), s->decorators);
  }
  finish(s);
  return s;
}

// ------------------------------------------------------------- expressions

namespace {
// Python precedence: or 1, and 2, not 3, comparisons 4, | 5, ^ 6, & 7,
// shifts 8, + - 9, * / // % @ 10 (unary and ** are handled below them).
struct PrecTable {
  unsigned char op[256] = {};
  unsigned char kw[256] = {};
  constexpr PrecTable() {
    kw[static_cast<std::uint8_t>(Kw::kOr)] = 1;
    kw[static_cast<std::uint8_t>(Kw::kAnd)] = 2;
    for (const Kw k : {Kw::kIn, Kw::kNot, Kw::kIs}) kw[static_cast<std::uint8_t>(k)] = 4;
    for (const Op o : {Op::kLt, Op::kGt, Op::kLe, Op::kGe, Op::kEq, Op::kNe}) op[static_cast<std::uint8_t>(o)] = 4;
    op[static_cast<std::uint8_t>(Op::kPipe)] = 5;
    op[static_cast<std::uint8_t>(Op::kCaret)] = 6;
    op[static_cast<std::uint8_t>(Op::kAmp)] = 7;
    for (const Op o : {Op::kShl, Op::kShr}) op[static_cast<std::uint8_t>(o)] = 8;
    for (const Op o : {Op::kPlus, Op::kMinus}) op[static_cast<std::uint8_t>(o)] = 9;
    for (const Op o : {Op::kStar, Op::kSlash, Op::kDSlash, Op::kPercent, Op::kAt}) op[static_cast<std::uint8_t>(o)] = 10;
  }
};
constexpr PrecTable kPrec;
// The token after an atom continues the expression (a trailer, a binary or
// comparison operator, `if`, `:=`, ...): false only where parse_test()
// would stop right after the atom.
bool continues_expression(const Token& t) {
  if (t.kind == Tok::kOp) {
    const Op op = t.op;
    return kPrec.op[static_cast<std::uint8_t>(op)] != 0 || op == Op::kLPar || op == Op::kLSq || op == Op::kDot ||
           op == Op::kDStar || op == Op::kWalrus;
  }
  if (t.kind == Tok::kName) return kPrec.kw[static_cast<std::uint8_t>(t.kw)] != 0 || t.kw == Kw::kIf;
  return false;
}

int infix_prec(const Token& t) {
  if (t.kind == Tok::kOp) return kPrec.op[static_cast<std::uint8_t>(t.op)];
  if (t.kind == Tok::kName) return kPrec.kw[static_cast<std::uint8_t>(t.kw)];
  return 0;
}
}  // namespace

Node* Parser::parse_expression() { return parse_testlist(true); }

Node* Parser::parse_testlist(bool allow_star) {
  const Token first = *tk_;
  auto one = [&]() -> Node* {
    if (allow_star && at_op(Op::kStar)) {
      const Token t = *tk_;
      advance();
      Node* s = new_node(NK::kStarred, t);
      s->a = parse_expr(5);
      s->end = last_end_;
      set_height(s, s->a->height + 1);
      return s;
    }
    return parse_test();
  };
  Node* e = one();
  if (!at_op(Op::kComma)) return e;
  const std::size_t st = scratch_.size();
  push_scratch(e);
  while (accept_op(Op::kComma)) {
    if (tk_->kind == Tok::kNewline || tk_->kind == Tok::kEnd || at_op(Op::kAssign) || at_op(Op::kColon) ||
        at_op(Op::kSemi) || at_op(Op::kRPar) || at_op(Op::kRSq) || at_op(Op::kRBrace) ||
        (tk_->kind == Tok::kOp && tk_->op >= Op::kPlusEq))
      break;
    push_scratch(one());
  }
  Node* t = new_node(NK::kTuple, first);
  std::uint32_t h = 1;
  for (std::size_t i = st; i < scratch_.size(); ++i) h = std::max(h, scratch_[i]->height + 1);
  t->kids = finish_list(st, &t->n);
  t->end = last_end_;
  set_height(t, h);
  return t;
}

Node* Parser::parse_test() {
  const DepthGuard guard(*this);
  if (tk_->kind == Tok::kName) {
    if (tk_->kw == Kw::kNone && !continues_expression(peek())) {
      // a lone name (followed by ',', ')', ':', the end of the line, ...): what the
      // full descent below would give
      Node* n = new_node(NK::kName, *tk_);
      n->text = lex_.text(*tk_);
      advance();
      return n;
    }
    if (tk_->kw == Kw::kLambda) return parse_lambda();
  } else if (tk_->kind == Tok::kInt || tk_->kind == Tok::kString) {
    // a lone literal, the same way (a string followed by a string is concatenated: not lone)
    const Token& next = peek();
    if (!continues_expression(next) && next.kind != Tok::kString) return parse_atom();
  }
  Node* e = nullptr;
  if (tk_->kind == Tok::kOp ? (tk_->op == Op::kMinus || tk_->op == Op::kPlus || tk_->op == Op::kTilde)
                            : (tk_->kind == Tok::kName && (tk_->kw == Kw::kNot || tk_->kw == Kw::kAwait))) {
    e = parse_expr(1);
  } else {
    e = parse_power();  // parse_expr(1) without its frame
    if (infix_prec(*tk_) != 0) e = parse_infix(e, 1);
  }
  if (at_kw(Kw::kIf)) {
    advance();
    Node* cond = parse_or_test();
    expect_kw(Kw::kElse, "'else'");
    Node* other = parse_test();
    Node* n = new_node_from(NK::kIfExp, e);
    n->a = e;
    n->b = cond;
    n->c = other;
    n->end = last_end_;
    set_height(n, std::max({e->height, cond->height, other->height}) + 1);
    return n;
  }
  if (at_op(Op::kWalrus)) {
    advance();
    Node* v = parse_test();
    Node* n = new_node_from(NK::kBinOp, e);
    n->op = Op::kWalrus;
    n->a = e;
    n->b = v;
    n->end = last_end_;
    set_height(n, std::max(e->height, v->height) + 1);
    return n;
  }
  return e;
}

Node* Parser::parse_test_nocond() { return parse_or_test(); }

Node* Parser::parse_lambda() {
  const Token first = *tk_;
  advance();
  Stmt tmp;
  parse_params(&tmp, Op::kColon);
  expect_op(Op::kColon, "':'");
  Node* n = new_node(NK::kLambda, first);
  n->a = parse_test();
  n->end = last_end_;
  set_height(n, n->a->height + 1);
  return n;
}

Node* Parser::parse_or_test() { return parse_expr(1); }


// Precedence climbing over every binary level (one C++ frame per level
// actually used, not one per grammar rule).
Node* Parser::parse_expr(int min_prec) {
  Node* lhs = nullptr;
  if (min_prec <= 3 && at_kw(Kw::kNot)) {
    const DepthGuard guard(*this);
    const Token t = *tk_;
    advance();
    Node* n = new_node(NK::kUnary, t);
    n->kw = Kw::kNot;
    n->a = parse_expr(3);
    n->end = n->a->end;
    set_height(n, n->a->height + 1);
    lhs = n;
  } else if (tk_->kind == Tok::kOp ? (tk_->op == Op::kMinus || tk_->op == Op::kPlus || tk_->op == Op::kTilde)
                                     : (tk_->kind == Tok::kName && tk_->kw == Kw::kAwait)) {
    lhs = parse_unary();
  } else {
    lhs = parse_power();  // what parse_unary() does here
  }
  return parse_infix(lhs, min_prec);
}

// The binary operators after `lhs` (parse_expr's loop).
Node* Parser::parse_infix(Node* lhs, int min_prec) {
  for (;;) {
    const int p = infix_prec(*tk_);
    if (p == 0 || p < min_prec) return lhs;
    if (p == 1 || p == 2) {
      // n-ary and / or
      const Kw kw = tk_->kw;
      const std::size_t st = scratch_.size();
      push_scratch(lhs);
      std::uint32_t h = lhs->height;
      while (accept_kw(kw)) {
        push_scratch(parse_expr(p + 1));
        h = std::max(h, scratch_.back()->height);
      }
      Node* n = new_node_from(NK::kBoolOp, lhs);
      n->kw = kw;
      n->kids = finish_list(st, &n->n);
      n->end = last_end_;
      set_height(n, h + 1);
      lhs = n;
      continue;
    }
    if (p == 4) {
      // comparison chain: a < b < c == (a < b) and (b < c)
      if (at_kw(Kw::kNot) && !(peek().kind == Tok::kName && peek().kw == Kw::kIn)) return lhs;
      Node* result = nullptr;
      const std::size_t st = scratch_.size();
      Node* left = lhs;
      for (;;) {
        Cmp cmp = Cmp::kOp;
        Op op = Op::kNone;
        if (tk_->kind == Tok::kOp && tk_->op >= Op::kLt && tk_->op <= Op::kNe) {
          op = tk_->op;
          advance();
        } else if (at_kw(Kw::kIn)) {
          cmp = Cmp::kIn;
          advance();
        } else if (at_kw(Kw::kNot) && peek().kind == Tok::kName && peek().kw == Kw::kIn) {
          cmp = Cmp::kNotIn;
          advance();
          advance();
        } else if (at_kw(Kw::kIs)) {
          advance();
          cmp = accept_kw(Kw::kNot) ? Cmp::kIsNot : Cmp::kIs;
        } else {
          break;
        }
        Node* rhs = parse_expr(5);
        Node* c = new_node_from(NK::kCompare, left);
        c->op = op;
        c->cmp = cmp;
        c->a = left;
        c->b = rhs;
        c->end = rhs->end;
        set_height(c, std::max(left->height, rhs->height) + 1);
        if (result == nullptr) {
          result = c;
        } else {
          if (scratch_.size() == st) push_scratch(result);
          push_scratch(c);
        }
        left = rhs;
      }
      if (scratch_.size() == st) {
        lhs = result;
        continue;
      }
      Node* n = new_node_from(NK::kBoolOp, scratch_[st]);
      n->kw = Kw::kAnd;
      std::uint32_t h = 1;
      for (std::size_t i = st; i < scratch_.size(); ++i) h = std::max(h, scratch_[i]->height + 1);
      n->kids = finish_list(st, &n->n);
      n->end = last_end_;
      set_height(n, h);
      lhs = n;
      continue;
    }
    const Op op = tk_->op;
    advance();
    Node* rhs = p < 10 ? parse_expr(p + 1) : parse_unary();
    Node* n = new_node_from(NK::kBinOp, lhs);
    n->op = op;
    n->a = lhs;
    n->b = rhs;
    n->end = rhs->end;
    set_height(n, std::max(lhs->height, rhs->height) + 1);
    lhs = n;
  }
}

Node* Parser::parse_unary() {
  if (at_op(Op::kMinus) || at_op(Op::kPlus) || at_op(Op::kTilde)) {
    const DepthGuard guard(*this);
    const Token t = *tk_;
    advance();
    Node* n = new_node(NK::kUnary, t);
    n->op = t.op;
    n->a = parse_unary();
    n->end = n->a->end;
    set_height(n, n->a->height + 1);
    return n;
  }
  if (at_kw(Kw::kAwait)) advance();
  return parse_power();
}

Node* Parser::parse_power() {
  // atom_expr: an atom (a plain name inline) and its trailers
  Node* e = nullptr;
  if (tk_->kind == Tok::kName && tk_->kw == Kw::kNone) {
    e = new_node(NK::kName, *tk_);
    e->text = lex_.text(*tk_);
    advance();
  } else {
    e = parse_atom();
  }
  for (;;) {
    if (tk_->kind != Tok::kOp) return e;
    const Op op = tk_->op;
    if (op == Op::kLPar) {
      advance();
      e = parse_call(e);
    } else if (op == Op::kLSq) {
      advance();
      e = parse_subscript(e);
    } else if (op == Op::kDot) {
      advance();
      const Token nt = *tk_;
      if (tk_->kind != Tok::kName) error_expected("an attribute name");
      advance();
      Node* n = new_node_from(NK::kAttr, e);
      n->a = e;
      n->text = lex_.text(nt);
      n->end = nt.end;
      set_height(n, e->height + 1);
      e = n;
    } else if (op == Op::kDStar) {
      advance();
      Node* x = parse_unary();
      Node* n = new_node_from(NK::kBinOp, e);
      n->op = Op::kDStar;
      n->a = e;
      n->b = x;
      n->end = x->end;
      set_height(n, std::max(e->height, x->height) + 1);
      return n;
    } else {
      return e;
    }
  }
}

void Parser::skip_comprehension_tail(Op closer) {
  // `for ... in ... [if ...]` up to the closing bracket: kept opaque, but the
  // brackets must balance.
  std::size_t depth = 0;
  for (;;) {
    if (tk_->kind == Tok::kEnd) error_expected("a closing bracket");
    if (tk_->kind == Tok::kOp) {
      if (tk_->op == Op::kLPar || tk_->op == Op::kLSq || tk_->op == Op::kLBrace) {
        ++depth;
      } else if (tk_->op == Op::kRPar || tk_->op == Op::kRSq || tk_->op == Op::kRBrace) {
        if (depth == 0) {
          if (tk_->op != closer) error_expected(closer == Op::kRPar ? "')'" : closer == Op::kRSq ? "']'" : "'}'");
          return;
        }
        --depth;
      }
    }
    advance();
  }
}

Node* Parser::parse_call(Node* callee) {
  // `(` already consumed
  Node* call = new_node_from(NK::kCall, callee);
  call->a = callee;
  std::uint32_t h = callee->height;
  const std::size_t st = scratch_.size();
  while (!at_op(Op::kRPar)) {
    Node* arg = nullptr;
    if (tk_->kind == Tok::kOp && (tk_->op == Op::kStar || tk_->op == Op::kDStar)) {
      arg = new_node(tk_->op == Op::kStar ? NK::kStarred : NK::kDoubleStarred, *tk_);
      advance();
      arg->a = parse_test();
    } else if (tk_->kind == Tok::kName && tk_->kw == Kw::kNone && peek().kind == Tok::kOp &&
               peek().op == Op::kAssign) {
      const Token t = *tk_;
      arg = new_node(NK::kKeyword, t);
      arg->text = lex_.text(t);
      advance();
      advance();
      arg->a = parse_test();
    } else {
      arg = parse_test();
      if (at_kw(Kw::kFor) || at_kw(Kw::kAsync)) {
        Node* g = new_node_from(NK::kComprehension, arg);
        g->a = arg;
        skip_comprehension_tail(Op::kRPar);
        g->end = last_end_;
        arg = g;
      }
    }
    if (arg->kind == NK::kKeyword || arg->kind == NK::kStarred || arg->kind == NK::kDoubleStarred) {
      arg->end = last_end_;
      set_height(arg, arg->a->height + 1);
    }
    h = std::max(h, arg->height);
    push_scratch(arg);
    if (!accept_op(Op::kComma)) break;
  }
  if (!at_op(Op::kRPar)) error_expected("',' or ')'");
  advance();
  call->kids = finish_list(st, &call->n);
  call->end = last_end_;
  set_height(call, h + 1);
  return call;
}

Node* Parser::parse_slice_item() {
  const Token first = *tk_;
  Node* lo = nullptr;
  if (!at_op(Op::kColon)) {
    lo = parse_test();
    if (!at_op(Op::kColon)) return lo;
  }
  advance();  // ':'
  Node* s = new_node(NK::kSlice, first);
  s->a = lo;
  if (!at_op(Op::kColon) && !at_op(Op::kComma) && !at_op(Op::kRSq)) s->b = parse_test();
  if (accept_op(Op::kColon)) {
    if (!at_op(Op::kComma) && !at_op(Op::kRSq)) s->c = parse_test();
  }
  std::uint32_t h = 0;
  for (Node* k : {s->a, s->b, s->c})
    if (k != nullptr) h = std::max(h, k->height);
  s->end = last_end_;
  set_height(s, h + 1);
  return s;
}

Node* Parser::parse_subscript(Node* base) {
  // `[` already consumed
  Node* n = new_node_from(NK::kSubscript, base);
  n->a = base;
  const std::size_t st = scratch_.size();
  bool trailing_comma = false;
  while (!at_op(Op::kRSq)) {
    trailing_comma = false;
    if (at_op(Op::kStar)) {
      const Token t = *tk_;
      advance();
      Node* s = new_node(NK::kStarred, t);
      s->a = parse_expr(5);
      s->end = last_end_;
      set_height(s, s->a->height + 1);
      push_scratch(s);
    } else {
      push_scratch(parse_slice_item());
    }
    if (!accept_op(Op::kComma)) break;
    trailing_comma = true;
  }
  if (!at_op(Op::kRSq)) error_expected("',' or ']'");
  if (scratch_.size() == st) error_expected("an index");
  advance();
  if (scratch_.size() - st == 1 && !trailing_comma && scratch_.back()->kind == NK::kTuple) {
    Node* t = scratch_.back();
    scratch_.resize(st);
    for (std::uint32_t i = 0; i < t->n; ++i) push_scratch(t->kids[i]);
  }
  std::uint32_t h = base->height;
  for (std::size_t i = st; i < scratch_.size(); ++i) h = std::max(h, scratch_[i]->height);
  n->kids = finish_list(st, &n->n);
  n->end = last_end_;
  set_height(n, h + 1);
  return n;
}

Node* Parser::parse_bracketed(Op open) {
  const Token first = *tk_;
  advance();
  const Op close = open == Op::kLPar ? Op::kRPar : open == Op::kLSq ? Op::kRSq : Op::kRBrace;
  const char* close_text = open == Op::kLPar ? "')'" : open == Op::kLSq ? "']'" : "'}'";
  const std::size_t st = scratch_.size();
  if (open == Op::kLBrace) {
    if (accept_op(Op::kRBrace)) {
      Node* d = new_node(NK::kDict, first);
      d->end = last_end_;
      return d;
    }
    bool is_dict = false;
    bool first_item = true;
    std::uint32_t h = 1;
    for (;;) {
      if (at_op(Op::kDStar)) {
        advance();
        is_dict = true;
        push_scratch(nullptr);
        push_scratch(parse_expr(5));
      } else {
        Node* k = at_op(Op::kStar) ? parse_testlist(true) : parse_test();
        if (first_item) is_dict = at_op(Op::kColon);
        if (is_dict) {
          expect_op(Op::kColon, "':'");
          push_scratch(k);
          push_scratch(parse_test());
        } else {
          push_scratch(k);
        }
        if (first_item && (at_kw(Kw::kFor) || at_kw(Kw::kAsync))) {
          skip_comprehension_tail(Op::kRBrace);
          advance();
          scratch_.resize(st);
          Node* g = new_node(NK::kComprehension, first);
          g->end = last_end_;
          return g;
        }
      }
      for (std::size_t i = scratch_.size() - (is_dict ? 2 : 1); i < scratch_.size(); ++i)
        if (scratch_[i] != nullptr) h = std::max(h, scratch_[i]->height + 1);
      first_item = false;
      if (!accept_op(Op::kComma)) break;
      if (at_op(Op::kRBrace)) break;
    }
    if (!at_op(Op::kRBrace)) error_expected(is_dict ? "',' or '}'" : "',' or '}'");
    advance();
    Node* d = new_node(is_dict ? NK::kDict : NK::kSet, first);
    d->kids = finish_list(st, &d->n);
    d->end = last_end_;
    set_height(d, h);
    return d;
  }
  if (accept_op(close)) {
    Node* t = new_node(open == Op::kLPar ? NK::kTuple : NK::kList, first);
    t->end = last_end_;
    return t;
  }
  bool comma = false;
  std::uint32_t h = 1;
  for (;;) {
    Node* e = nullptr;
    if (at_op(Op::kStar)) {
      const Token t = *tk_;
      advance();
      e = new_node(NK::kStarred, t);
      e->a = parse_expr(5);
      e->end = last_end_;
      set_height(e, e->a->height + 1);
    } else if (open == Op::kLPar && at_kw(Kw::kYield)) {
      const Token t = *tk_;
      advance();
      e = new_node(NK::kConst, t);
      e->text = "yield";
      accept_kw(Kw::kFrom);
      if (!at_op(Op::kRPar)) parse_testlist(true);
      e->end = last_end_;
    } else {
      e = parse_test();
    }
    if (scratch_.size() == st && !comma && (at_kw(Kw::kFor) || at_kw(Kw::kAsync))) {
      skip_comprehension_tail(close);
      advance();
      Node* g = new_node(NK::kComprehension, first);
      g->a = e;
      g->end = last_end_;
      return g;
    }
    push_scratch(e);
    h = std::max(h, e->height + 1);
    if (!accept_op(Op::kComma)) break;
    comma = true;
    if (at_op(close)) break;
  }
  if (!at_op(close)) error_expected(std::string("',' or ") + close_text);
  advance();
  if (open == Op::kLPar && !comma) {
    // parenthesized expression: widen its span to include the parentheses
    Node* e = scratch_.back();
    scratch_.resize(st);
    e->begin = first.begin;
    e->end = last_end_;
    return e;
  }
  Node* t = new_node(open == Op::kLPar ? NK::kTuple : NK::kList, first);
  t->kids = finish_list(st, &t->n);
  t->end = last_end_;
  set_height(t, h);
  return t;
}

Node* Parser::parse_atom() {
  const Token t = *tk_;
  switch (t.kind) {
    case Tok::kName: {
      if (t.kw == Kw::kNone) {
        advance();
        Node* n = new_node(NK::kName, t);
        n->text = lex_.text(t);
        return n;
      }
      if (t.kw == Kw::kTrue || t.kw == Kw::kFalse || t.kw == Kw::kNoneLit) {
        advance();
        Node* n = new_node(NK::kConst, t);
        n->text = lex_.text(t);
        return n;
      }
      if (t.kw == Kw::kLambda) return parse_lambda();
      error_expected("an expression");
    }
    case Tok::kInt: {
      Node* n = new_node(NK::kInt, t);
      n->text = lex_.text(t);
      if (n->text.size() <= 19 && (n->text[0] != '0' || n->text.size() == 1)) {
        // a plain decimal literal (at most 19 digits: fits in 64 bits)
        std::uint64_t v = 0;
        bool plain = true;
        for (const char ch : n->text) {
          const auto d = static_cast<unsigned>(ch - '0');
          if (d > 9) {
            plain = false;
            break;
          }
          v = v * 10 + d;
        }
        if (plain) {
          n->ival = v;
          advance();
          return n;
        }
      }
      advance();
      // value: decimal or 0x/0o/0b, underscores allowed
      std::string_view s = n->text;
      unsigned base = 10;
      if (s.size() > 1 && s[0] == '0') {
        const char x = static_cast<char>(s[1] | 0x20);
        if (x == 'x') base = 16, s.remove_prefix(2);
        else if (x == 'o') base = 8, s.remove_prefix(2);
        else if (x == 'b') base = 2, s.remove_prefix(2);
      }
      __extension__ typedef unsigned __int128 u128;
      u128 v = 0;
      for (const char ch : s) {
        if (ch == '_') continue;
        unsigned d = 0;
        if (ch >= '0' && ch <= '9') d = static_cast<unsigned>(ch - '0');
        else d = static_cast<unsigned>((ch | 0x20) - 'a' + 10);
        if (d >= base) lex_.fail(t.line, t.col, "expected a base-" + std::to_string(base) + " digit, found " + lex_.describe(t));
        v = v * base + d;
        if (v > UINT64_MAX) {
          n->big = true;
          break;
        }
      }
      // Python forbids leading zeros in non-zero decimal literals.
      if (base == 10 && n->text.size() > 1 && n->text[0] == '0' && n->text.find_first_not_of("0_") != std::string_view::npos)
        lex_.fail(t.line, t.col, "expected a decimal number without leading zeros, found " + lex_.describe(t));
      n->ival = static_cast<std::uint64_t>(v);
      return n;
    }
    case Tok::kFloat: {
      advance();
      Node* n = new_node(NK::kFloat, t);
      n->text = lex_.text(t);
      if (!n->text.empty() && (n->text.back() == 'j' || n->text.back() == 'J')) {
        n->kind = NK::kConst;  // imaginary literal: opaque
        return n;
      }
      std::string clean;
      std::string_view s = n->text;
      if (s.find('_') != std::string_view::npos) {
        for (const char ch : s)
          if (ch != '_') clean += ch;
        s = clean;
      }
      double v = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (r.ec == std::errc::result_out_of_range) v = HUGE_VAL;  // Python: 1e999 == inf
      n->fval = v;
      return n;
    }
    case Tok::kString: {
      advance();
      Node* n = new_node(NK::kString, t);
      std::string_view body;
      if (tk_->kind != Tok::kString && lex_.plain_string(t, body)) {
        n->text = body;
        return n;
      }
      strbuf_.clear();
      lex_.decode_string(t, strbuf_);
      while (tk_->kind == Tok::kString) {
        lex_.decode_string(*tk_, strbuf_);
        advance();
      }
      n->text = arena_.copy(strbuf_);
      n->end = last_end_;
      return n;
    }
    case Tok::kOp:
      if (t.op == Op::kLPar || t.op == Op::kLSq || t.op == Op::kLBrace) {
        const DepthGuard guard(*this);
        return parse_bracketed(t.op);
      }
      if (t.op == Op::kEllipsis) {
        advance();
        return new_node(NK::kEllipsis, t);
      }
      error_expected("an expression");
    default: error_expected("an expression");
  }
}

}  // namespace tenet_cost::ir::py
