// Helpers for the IR tests: find blocks, stores and functions (on the IR visitor), and the IR's Catch2 printing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir_text.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/ir_visitor.hpp"

namespace ir_test {

using namespace tenet_cost::ir;

inline void walk(const StmtPtr& s, const std::function<void(const Stmt&)>& f) { for_each_stmt(s, f); }

inline std::vector<const Block*> blocks(const PrimFunc& fn) {
  std::vector<const Block*> out;
  walk(fn.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kBlock) out.push_back(s.block.get());
  });
  return out;
}

inline const Block* find_block(const PrimFunc& fn, const std::string& name) {
  for (const Block* b : blocks(fn))
    if (b->name == name) return b;
  return nullptr;
}

inline const PrimFunc* find_prim(const Module& m, const std::string& name) {
  for (const auto& f : m.prim_funcs)
    if (f.name == name) return &f;
  return nullptr;
}

inline const RelaxFunc* find_relax(const Module& m, const std::string& name) {
  for (const auto& f : m.relax_funcs)
    if (f.name == name) return &f;
  return nullptr;
}

inline std::string kinds(const Block& b) {
  std::string s;
  for (const auto& iv : b.iter_vars) s += iv.kind == IterKind::kSpatial ? 'S' : iv.kind == IterKind::kReduce ? 'R' : 'O';
  return s;
}

inline std::string extents(const Block& b) {
  std::string s;
  for (const auto& iv : b.iter_vars) {
    if (!s.empty()) s += ", ";
    s += iv.extent ? to_string(*iv.extent) : "<null>";
  }
  return s;
}

inline std::string shape(const Buffer& b) {
  std::string s = "(";
  for (std::size_t i = 0; i < b.shape.size(); ++i) {
    if (i) s += ", ";
    s += to_string(*b.shape[i]);
  }
  return s + ")";
}

inline std::string dims(const StructInfo& si) {
  std::string s = "(";
  for (std::size_t i = 0; i < si.dims.size(); ++i) {
    if (i) s += ", ";
    s += to_string(*si.dims[i]);
  }
  return s + ")";
}

// every store in a function, in order
inline std::vector<const Stmt*> stores(const StmtPtr& body) {
  std::vector<const Stmt*> out;
  walk(body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kStore) out.push_back(&s);
  });
  return out;
}

// bindings whose value is a call with the given op
inline std::vector<const Binding*> calls(const RelaxFunc& f, const std::string& op) {
  std::vector<const Binding*> out;
  for (const auto& b : f.bindings)
    if (b.value && b.value->kind == RExprKind::kCall && b.value->op == op) out.push_back(&b);
  return out;
}

}  // namespace ir_test
