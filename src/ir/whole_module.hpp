// Is a parsed TVMScript dump a whole printed module? (internal; docs/ir-formats.md "Truncated dumps")
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ir/pyast.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

/// A prim_func whose body computes (it has a statement other than a bare expression such as
/// `T.evaluate(0)`) must use its output, the last buffer (or handle) parameter: one that never
/// appears in the body is the mark of a function cut at a block boundary. Throws InputError at the
/// body's innermost last statement.
void require_output_used(const PrimFunc& f, py::Stmt* const* body, std::size_t n);

/// The checks on the whole module: at least one function; a Relax function when the header
/// imports `relax as R`; every function a Relax function calls (call_tir callee, `cls.f(..)`,
/// cuda-graph capture) is a function (or other global) of the module. Never on a function being unused: a module may
/// keep a prim_func nobody calls.
void check_whole_module(const Module& mod, std::string_view text, const std::string& filename);

/// A module is defined once (docs/ir-formats.md "Defined twice"): a Relax function name may not repeat (a real
/// IRModule cannot hold two, and each would count its calls again), and the text may not be one module printed twice
/// (`cat m.py m.py`: every figure doubled). Prim_funcs alone may repeat a name (concatenated kernel files, shared
/// fixtures 17/18). Throws InputError at the second definition.
void check_defined_once(const Module& mod, std::string_view text, const std::string& filename);

}  // namespace tenet_cost::ir
