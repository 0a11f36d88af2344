// Symbolic shape arithmetic for the extractor: a tiny expression type over
// integers and shape variables with + - * // %, used to carry extents such as
// `nseq * n` until they are bound with --bind.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tenet_cost/ir.hpp"
#include "tenet_cost/workload.hpp"

namespace tenet_cost::xsym {

enum class SymKind { kInt, kVar, kAdd, kSub, kMul, kFloorDiv, kFloorMod };

struct Sym;
using SymPtr = std::shared_ptr<const Sym>;

struct Sym {
  SymKind kind = SymKind::kInt;
  std::int64_t value = 0;  // kInt
  std::string name;        // kVar
  SymPtr a, b;             // binary operands
};

SymPtr sym_int(std::int64_t v);
SymPtr sym_var(std::string name);
/// Builds a binary node, folding constants and identities (x*1, x+0, ...).
/// Throws InputError on division by zero, OverflowError on overflow.
SymPtr sym_bin(SymKind op, SymPtr a, SymPtr b);

/// Converts a TIR index/extent expression; nullopt when it uses anything but
/// integer literals, variables, casts and + - * // %.
std::optional<SymPtr> from_ir(const ir::Expr& e);

/// Python-like text ("nseq * n", "(seq_len + 1) // 2 * 2").
std::string to_text(const Sym& s);
/// Parses the text produced by to_text (and user input); throws InputError.
SymPtr parse(const std::string& text);
/// Substitutes bound names and folds.
SymPtr bind(const SymPtr& s, const std::map<std::string, std::int64_t>& bindings);
void collect_names(const Sym& s, std::set<std::string>& out);

/// Dim::constant when the expression is an integer, else Dim::symbolic(text).
Dim to_dim(const SymPtr& s);
/// Product of factors, constants folded into one trailing coefficient.
SymPtr product(const std::vector<SymPtr>& factors);

}  // namespace tenet_cost::xsym
