// Evaluation, interval bounds and structural queries on parsed relations.
#include <algorithm>
#include <limits>
#include <numeric>

#include "tenet_cost/relation.hpp"

namespace tenet_cost::relation {

Evaluator::Evaluator(const Piece& p) : p_(&p), cols_(p.vars.size() + p.terms.size(), 0) {}

void Evaluator::bind(const i64* x) {
  const std::size_t nv = p_->vars.size();
  for (std::size_t i = 0; i < nv; ++i) cols_[i] = x[i];
  for (std::size_t k = 0; k < p_->terms.size(); ++k) {
    const Term& t = p_->terms[k];
    const i64 v = value(t.num);
    cols_[nv + k] = t.kind == Term::Kind::kFloor ? floor_div(v, t.den) : floor_mod(v, t.den);
  }
}

i64 Evaluator::value(const Affine& a) const {
  i64 v = a.constant;
  const std::size_t n = a.coeff.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (a.coeff[i] == 0) continue;
    i64 t;
    if (__builtin_mul_overflow(a.coeff[i], cols_[i], &t) || __builtin_add_overflow(v, t, &v))
      throw_overflow("value of a relation expression");
  }
  return v;
}

bool Evaluator::holds() const {
  for (const auto& conj : p_->disjuncts) {
    bool ok = true;
    for (const auto& c : conj) {
      const i64 v = value(c.expr);
      if (c.equality ? v != 0 : v < 0) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

Interval bounds(const Affine& a, const std::vector<Interval>& cols) {
  i64 lo = a.constant, hi = a.constant;
  for (std::size_t i = 0; i < a.coeff.size(); ++i) {
    const i64 c = a.coeff[i];
    if (c == 0) continue;
    const i64 x = checked_mul(c, cols[i].lo, "interval bound");
    const i64 y = checked_mul(c, cols[i].hi, "interval bound");
    lo = checked_add(lo, std::min(x, y), "interval bound");
    hi = checked_add(hi, std::max(x, y), "interval bound");
  }
  return {lo, hi};
}

std::vector<Interval> column_bounds(const Piece& p, const std::vector<Interval>& box) {
  std::vector<Interval> cols(box);
  cols.resize(p.vars.size());
  for (const Term& t : p.terms) {
    const Interval n = bounds(t.num, cols);
    if (t.kind == Term::Kind::kFloor) {
      cols.push_back({floor_div(n.lo, t.den), floor_div(n.hi, t.den)});
    } else if (floor_div(n.lo, t.den) == floor_div(n.hi, t.den)) {
      cols.push_back({floor_mod(n.lo, t.den), floor_mod(n.hi, t.den)});
    } else {
      cols.push_back({0, t.den - 1});
    }
  }
  return cols;
}

namespace {
std::vector<bool> term_uses(const Piece& p, std::size_t var) {
  // uses[k]: term k depends (transitively) on variable `var`.
  const std::size_t nv = p.vars.size();
  std::vector<bool> uses(p.terms.size(), false);
  for (std::size_t k = 0; k < p.terms.size(); ++k) {
    const auto& c = p.terms[k].num.coeff;
    for (std::size_t i = 0; i < c.size() && !uses[k]; ++i) {
      if (c[i] == 0) continue;
      if (i < nv ? i == var : uses[i - nv]) uses[k] = true;
    }
  }
  return uses;
}
}  // namespace

std::vector<i64> periods(const Piece& p) {
  const std::size_t nv = p.vars.size();
  // Effective divisor of each term: its own times the lcm of the nested ones.
  std::vector<i64> eff(p.terms.size(), 1);
  for (std::size_t k = 0; k < p.terms.size(); ++k) {
    // floor(e/c) with e periodic of period P in a variable: period c * P (e.g. floor(c/2) % 2 -> 4).
    i64 nested = 1;
    const auto& c = p.terms[k].num.coeff;
    for (std::size_t i = nv; i < c.size(); ++i)
      if (c[i] != 0) nested = checked_mul(nested / std::gcd(nested, eff[i - nv]), eff[i - nv], "period");
    eff[k] = checked_mul(p.terms[k].den, nested, "period");
  }
  std::vector<i64> out(nv, 1);
  for (std::size_t v = 0; v < nv; ++v) {
    const auto uses = term_uses(p, v);
    for (std::size_t k = 0; k < p.terms.size(); ++k)
      if (uses[k]) out[v] = checked_mul(out[v] / std::gcd(out[v], eff[k]), eff[k], "period");
  }
  return out;
}

bool as_box(const Piece& p, std::vector<Interval>& box) {
  const std::size_t nv = p.vars.size();
  if (!p.terms.empty() || p.disjuncts.size() != 1) return false;
  std::vector<bool> has_lo(nv, false), has_hi(nv, false);
  box.assign(nv, Interval{});
  for (const Constraint& c : p.disjuncts[0]) {
    std::size_t var = nv;
    i64 coef = 0;
    for (std::size_t i = 0; i < c.expr.coeff.size(); ++i) {
      if (c.expr.coeff[i] == 0) continue;
      if (var != nv) return false;
      var = i;
      coef = c.expr.coeff[i];
    }
    if (var == nv) {
      // Constant constraint: true ones are harmless, false ones make the set empty.
      const i64 v = c.expr.constant;
      if (c.equality ? v != 0 : v < 0) return false;
      continue;
    }
    if (coef != 1 && coef != -1) return false;
    // coef*x + k >= 0  ->  x >= -k (coef 1) or x <= k (coef -1)
    const i64 k = c.expr.constant;
    const bool lower = coef == 1 || c.equality;
    const bool upper = coef == -1 || c.equality;
    const i64 bound = coef == 1 ? checked_sub(0, k) : k;
    if (lower) {
      box[var].lo = has_lo[var] ? std::max(box[var].lo, bound) : bound;
      has_lo[var] = true;
    }
    if (upper) {
      box[var].hi = has_hi[var] ? std::min(box[var].hi, bound) : bound;
      has_hi[var] = true;
    }
  }
  for (std::size_t v = 0; v < nv; ++v)
    if (!has_lo[v] || !has_hi[v]) return false;
  return true;
}

i64 max_abs_constant(const Piece& p) {
  i64 m = 0;
  // |INT64_MIN| does not fit: saturate at INT64_MAX (found by fuzz_relation).
  auto abs_sat = [](i64 c) { return c == std::numeric_limits<i64>::min() ? std::numeric_limits<i64>::max() : (c < 0 ? -c : c); };
  auto see = [&m, &abs_sat](const Affine& a) {
    m = std::max(m, abs_sat(a.constant));
    for (i64 c : a.coeff) m = std::max(m, abs_sat(c));
  };
  for (const auto& o : p.out) see(o);
  for (const auto& t : p.terms) see(t.num);
  for (const auto& d : p.disjuncts)
    for (const auto& c : d) see(c.expr);
  return m;
}

}  // namespace tenet_cost::relation
