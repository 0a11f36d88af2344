// A symbolic integer extent: integers and shape variables with + - * // % (Python's floor division and modulo),
// such as `nseq * n` or `(seq_len + 1) // 2 * 2`. The extractor builds it once from the IR (the private
// extract/sym.hpp: from_ir); a Dim carries it until bind_dim evaluates it under --bind's values, and the views
// print it with to_text. Nothing parses it back from text. Implemented in src/extract/sym.cpp (the extract
// module, whose public Dim holds it).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace tenet_cost::sym {

enum class SymKind { kInt, kVar, kAdd, kSub, kMul, kFloorDiv, kFloorMod };

struct Sym;
/// Immutable and shared: a subexpression is never copied or changed once built.
using SymPtr = std::shared_ptr<const Sym>;

struct Sym {
  SymKind kind = SymKind::kInt;
  std::int64_t value = 0;  // kInt
  std::string name;        // kVar
  SymPtr a, b;             // binary operands (the other kinds)
};

SymPtr sym_int(std::int64_t v);
SymPtr sym_var(std::string name);
/// Builds a binary node, folding constants and identities (x*1, x+0, ...).
/// Throws InputError on division by zero, OverflowError on overflow.
SymPtr sym_bin(SymKind op, SymPtr a, SymPtr b);

/// Python-like text ("nseq * n", "(seq_len + 1) // 2 * 2"): the spelling of extract's outputs.
std::string to_text(const Sym& s);
/// Substitutes bound names and folds (the errors of sym_bin).
SymPtr bind(const SymPtr& s, const std::map<std::string, std::int64_t>& bindings);
void collect_names(const Sym& s, std::set<std::string>& out);
/// Structural equality (same kinds, values, names and operands).
bool equal(const Sym& x, const Sym& y);

}  // namespace tenet_cost::sym
