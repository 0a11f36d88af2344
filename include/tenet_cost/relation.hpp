// A small reader and evaluator for the subset of isl's textual syntax that
// TENET's input files use: unions of sets `{S[i,j] : 0 <= i < 8 and ...}` and
// maps `{S[i,j] -> A[i+1, floor(j/2)] : ...}` whose output entries and
// constraints are quasi-affine (integer coefficients, +, -, c*e, floor(e/c),
// ceil(e/c), e%c / e mod c) in the input variables. Constraints are `and` /
// `or` combinations of (chained) comparisons <, <=, >, >=, =, with
// parentheses. Parameters (`[n] -> {...}`), existentials and non-affine
// products are rejected with an InputError naming file:line:column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::relation {

/// An affine combination over the columns of one piece: input variables
/// [0, n_vars) followed by the piece's quasi-affine terms [n_vars, ...).
struct Affine {
  i64 constant = 0;
  std::vector<i64> coeff;  // size = n_vars + number of terms (trailing zeros trimmed)
};

/// A quasi-affine term: floor(num / den) or num mod den (den > 0). `num` may
/// refer to input variables and to earlier terms only.
struct Term {
  enum class Kind { kFloor, kMod } kind = Kind::kFloor;
  Affine num;
  i64 den = 1;
};

/// expr >= 0 or expr == 0.
struct Constraint {
  Affine expr;
  bool equality = false;
};

/// One piece of a union: `In[vars] (-> Out[exprs])? (: formula)?`; the formula
/// is kept in disjunctive normal form (an empty list of disjuncts = false; a
/// disjunct with no constraints = true).
struct Piece {
  std::string in_name;
  std::vector<std::string> vars;
  bool is_map = false;
  std::string out_name;
  std::vector<Affine> out;  // map outputs
  std::vector<Term> terms;
  std::vector<std::vector<Constraint>> disjuncts;
  SourceLocation loc;       // where the piece starts
};

struct Relation {
  std::vector<Piece> pieces;
  bool is_map = false;
  std::string text;
  SourceLocation loc;
};

/// Parse one isl union set or union map. `loc` is the position of text[0]
/// (columns in errors are counted from it). Throws InputError.
Relation parse(const std::string& text, const SourceLocation& loc);

/// Evaluation scratch: values of the columns of one piece.
class Evaluator {
 public:
  explicit Evaluator(const Piece& p);
  /// Evaluate the terms for the point `x` (size = vars.size()).
  void bind(const i64* x);
  [[nodiscard]] i64 value(const Affine& a) const;
  /// Whether the bound point satisfies the piece's formula.
  [[nodiscard]] bool holds() const;
  [[nodiscard]] const Piece& piece() const { return *p_; }

 private:
  const Piece* p_;
  std::vector<i64> cols_;
};

/// Closed interval of a value over a box of inputs (sound, possibly loose).
struct Interval {
  i64 lo = 0, hi = 0;
};
/// Bounds of every column of `p` when x ranges over the box [lo_d, hi_d].
std::vector<Interval> column_bounds(const Piece& p, const std::vector<Interval>& box);
Interval bounds(const Affine& a, const std::vector<Interval>& cols);

/// For every input variable, the lcm of the divisors of the terms (outputs and
/// constraints) that depend on it, transitively (1 when it is in none).
std::vector<i64> periods(const Piece& p);

/// A conjunction of single-variable bounds lo_d <= x_d <= hi_d, if the piece
/// is exactly that (one disjunct, each constraint on one variable with
/// coefficient +-1, no terms); otherwise empty.
bool as_box(const Piece& p, std::vector<Interval>& box);

/// Largest |constant| and |coefficient| in the piece (used to size windows).
i64 max_abs_constant(const Piece& p);

}  // namespace tenet_cost::relation
