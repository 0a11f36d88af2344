// Private to the printer (print_expr.cpp, printer.cpp): the pieces both halves share.
#pragma once

#include <string>
#include <string_view>

#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

/// Appends `e` as TVMScript text; an integer literal whose dtype is `bare_int` (or unknown) prints bare.
void print_expr(std::string& out, const Expr& e, std::string_view bare_int);
/// Appends `s` as a double-quoted Python string literal (escapes quotes, backslashes and control characters).
void print_quoted(std::string& out, std::string_view s);
/// Appends `v` as the shortest text that reads back to the same double ("nan" and "inf" quoted).
void print_double(std::string& out, double v);

}  // namespace tenet_cost::ir
