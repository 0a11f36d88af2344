// Symbols, file names and the small IR constructors (the printer is printer.cpp).
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/node_pool.hpp"
#include "ir/text_hash.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

// File names are interned once per distinct name for the life of the process
// (a node-based set: the strings never move). A parse interns its file name
// once; nodes then copy the pointer.
FileName::FileName(std::string_view name) {
  if (name.empty()) return;
  static std::mutex mu;
  static auto* names = new std::unordered_set<std::string>();  // never destroyed: nodes may outlive statics
  const std::lock_guard<std::mutex> lock(mu);
  p_ = &*names->emplace(name).first;
}

// Symbols: one global table (mutex) of heap strings that are never freed,
// and in front of it a per-thread open-addressing cache from text to the
// interned pointer, so the hot path (a name seen before on this thread) takes
// no lock. Both tables only ever grow.
namespace {

struct GlobalSymbols {
  std::mutex mu;
  std::unordered_map<std::string_view, const std::string*> map;  // views into the pooled strings
};

GlobalSymbols& global_symbols() {
  static auto* g = new GlobalSymbols();  // never destroyed: symbols may be used during static destruction
  return *g;
}

const std::string* intern_global(std::string_view text) {
  GlobalSymbols& g = global_symbols();
  const std::lock_guard<std::mutex> lock(g.mu);
  auto it = g.map.find(text);
  if (it != g.map.end()) return it->second;
  const std::string* p = new std::string(text);  // pooled for the life of the process
  g.map.emplace(std::string_view(*p), p);
  return p;
}

class SymbolCache {
 public:
  SymbolCache() : slots_(1024) {}
  const std::string* get(std::string_view text) {
    const std::uint64_t h = text_hash(text);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.p == nullptr) return add(text, h, i);
      if (s.h == h && same_text(*s.p, text)) return s.p;
    }
  }

 private:
  struct Slot {
    std::uint64_t h = 0;
    const std::string* p = nullptr;
  };
  // A text new to this thread, to be put in the empty slot i.
  [[gnu::noinline]] const std::string* add(std::string_view text, std::uint64_t h, std::size_t i) {
    const std::string* p = intern_global(text);
    slots_[i] = Slot{h, p};
    if (++count_ * 2 > slots_.size()) grow();
    return p;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.p == nullptr) continue;
      std::size_t i = s.h & mask;
      while (slots_[i].p != nullptr) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

}  // namespace

const std::string* Symbol::intern(std::string_view text) {
  if (text.empty()) return nullptr;
  thread_local SymbolCache cache;
  return cache.get(text);
}

const std::string& Symbol::empty_text() noexcept {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

const std::string& FileName::empty_name() {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

namespace {

std::shared_ptr<Expr> node(ExprKind k, std::string dtype, SourceLocation loc) {
  auto e = make_node<Expr>();
  e->kind = k;
  e->dtype = std::move(dtype);
  e->loc = std::move(loc);
  return e;
}

bool is_bool_op(BinOp op) {
  switch (op) {
    case BinOp::kEq: case BinOp::kNe: case BinOp::kLt: case BinOp::kLe: case BinOp::kGt: case BinOp::kGe:
    case BinOp::kAnd: case BinOp::kOr: return true;
    default: return false;
  }
}

}  // namespace

ExprPtr make_int(std::int64_t v, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kInt, std::move(dtype), std::move(loc));
  e->int_value = v;
  return e;
}

ExprPtr make_float(double v, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kFloat, std::move(dtype), std::move(loc));
  e->float_value = v;
  return e;
}

ExprPtr make_var(std::string name, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kVar, std::move(dtype), std::move(loc));
  e->name = std::move(name);
  return e;
}

ExprPtr make_load(std::string buffer, std::vector<ExprPtr> indices, SourceLocation loc) {
  auto e = node(ExprKind::kLoad, "", std::move(loc));
  e->name = std::move(buffer);
  e->args = std::move(indices);
  return e;
}

ExprPtr make_binary(BinOp op, ExprPtr a, ExprPtr b, SourceLocation loc) {
  std::string dtype;
  if (is_bool_op(op)) dtype = "bool";
  else if (a && !a->dtype.empty()) dtype = a->dtype;
  else if (b) dtype = b->dtype;
  auto e = node(ExprKind::kBinary, std::move(dtype), std::move(loc));
  e->bin_op = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

ExprPtr make_cast(std::string dtype, ExprPtr operand, SourceLocation loc) {
  auto e = node(ExprKind::kCast, std::move(dtype), std::move(loc));
  e->args = {std::move(operand)};
  return e;
}

ExprPtr make_call(std::string callee, std::vector<ExprPtr> args, std::string dtype, SourceLocation loc) {
  auto e = node(ExprKind::kCall, std::move(dtype), std::move(loc));
  e->name = std::move(callee);
  e->args = std::move(args);
  return e;
}

}  // namespace tenet_cost::ir
