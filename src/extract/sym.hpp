// Symbolic shape arithmetic for the extractor: the IR's index and extent expressions as
// tenet_cost/sym.hpp's expression type (from_ir), which a Dim carries until it is bound
// with --bind (Dim::symbolic).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tenet_cost/ir.hpp"
#include "tenet_cost/sym.hpp"
#include "tenet_cost/workload.hpp"

namespace tenet_cost::xsym {

// The public expression type and its core (tenet_cost/sym.hpp), under the names the extractor uses.
using sym::bind;
using sym::collect_names;
using sym::Sym;
using sym::sym_bin;
using sym::sym_int;
using sym::sym_var;
using sym::SymKind;
using sym::SymPtr;
using sym::to_text;

/// Converts a TIR index/extent expression; nullopt when it uses anything but
/// integer literals, variables, casts and + - * // %.
std::optional<SymPtr> from_ir(const ir::Expr& e);

/// Product of factors, constants folded into one trailing coefficient.
SymPtr product(const std::vector<SymPtr>& factors);

}  // namespace tenet_cost::xsym
