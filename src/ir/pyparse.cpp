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

// Decorators, then one branch per compound statement kind (def/class/if/for/while/with/try).
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
    } else {
      parse_else(s);
    }
  } else if (accept_kw(Kw::kFor)) {
    s = parse_for(first);
  } else if (accept_kw(Kw::kWhile)) {
    s = new_stmt(SK::kWhile, first);
    s->value = parse_test();
    expect_op(Op::kColon, "':'");
    parse_suite(&s->body, &s->n_body);
    parse_else(s);
  } else if (accept_kw(Kw::kWith)) {
    s = parse_with(first);
  } else if (accept_kw(Kw::kTry)) {
    s = parse_try(first);
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

void Parser::parse_else(Stmt* s) {
  if (accept_kw(Kw::kElse)) {
    expect_op(Op::kColon, "':'");
    parse_suite(&s->orelse, &s->n_orelse);
  }
}

Stmt* Parser::parse_for(const Token& first) {
  Stmt* s = new_stmt(SK::kFor, first);
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
  parse_else(s);
  return s;
}

Stmt* Parser::parse_with(const Token& first) {
  Stmt* s = new_stmt(SK::kWith, first);
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
  return s;
}

Stmt* Parser::parse_try(const Token& first) {
  Stmt* s = new_stmt(SK::kOther, first);
  expect_op(Op::kColon, "':'");
  parse_suite(&s->body, &s->n_body);
  // the handlers are parsed and dropped
  const auto skip_suite = [this] {
    expect_op(Op::kColon, "':'");
    Stmt** b = nullptr;
    std::uint32_t nb = 0;
    parse_suite(&b, &nb);
  };
  bool handlers = false;
  while (at_kw(Kw::kExcept)) {
    handlers = true;
    advance();
    accept_op(Op::kStar);
    if (!at_op(Op::kColon)) {
      parse_test();
      if (accept_kw(Kw::kAs)) expect_name("a name after 'as'");
    }
    skip_suite();
  }
  if (handlers && accept_kw(Kw::kElse)) skip_suite();
  if (accept_kw(Kw::kFinally)) {
    handlers = true;
    skip_suite();
  }
  if (!handlers) error_expected("'except' or 'finally'");
  return s;
}

}  // namespace tenet_cost::ir::py
