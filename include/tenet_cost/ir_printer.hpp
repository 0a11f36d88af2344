// The IR printer: any node as readable TVMScript text, deterministic (maps print in key order, functions in
// module order). A module prints as a whole `@I.ir_module` class that parse_tvmscript reads back; printing that
// parse gives the same text again (the round trip is a fixed point, tests/ir/test_printer.cpp). Locations are not
// printed. What the IR does not keep is not printed either: a Relax function's return annotation, its dataflow
// blocks (bindings are flat), `+=` (a store of `a + b`); a loop or region over [min, min + extent) prints its
// bounds as `min, min + extent` unless the extent was read as `hi - min`, which prints as `min, hi`.
#pragma once

#include <string>

#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

std::string print(const Module& m);
std::string print(const PrimFunc& f);
std::string print(const RelaxFunc& f);
/// A statement at indentation 0 (nested statements indent by 4 spaces, as TVM prints).
std::string print(const Stmt& s);
std::string print(const Block& b);
std::string print(const Buffer& b);  // `name = T.alloc_buffer((..), "dtype")`
std::string print(const Expr& e);    // as to_string(e)
std::string print(const RExpr& e);
std::string print(const StructInfo& s);

}  // namespace tenet_cost::ir
