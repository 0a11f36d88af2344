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

/// Converts a TIR index/extent expression; nullopt when it uses anything but
/// integer literals, variables, casts and + - * // %.
std::optional<sym::SymPtr> from_ir(const ir::Expr& e);

/// Product of factors, constants folded into one trailing coefficient.
sym::SymPtr product(const std::vector<sym::SymPtr>& factors);

}  // namespace tenet_cost::xsym
