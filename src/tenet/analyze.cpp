// analyze(): exact counts by multilinear interpolation over small brute-forced
// instances (docs/tenet-engine.md §Counting), then TENET's metric formulas.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <shared_mutex>
#include <span>

#include "model.hpp"

namespace tenet_cost::tenet {
namespace {

using detail::Counts;
using detail::Model;
using relation::Affine;
using relation::Interval;
using relation::Piece;

constexpr i64 kMaxEnumeratePoints = 30'000'000; // --enumerate on the whole domain
constexpr int kMaxRetries = 4;
constexpr std::size_t kMaxScaledDims = 64;  // interpolation over a floor divisor: at most this many dimensions

/// Values a count group produces, flattened: [nT, nS, nSTD] or [tv, uv, uvt, spi].
std::vector<i64> flatten(const Counts& c, int tensor) {
  if (tensor < 0) return {c.nT, c.nS, c.nSTD};
  const auto& t = c.tensors[static_cast<std::size_t>(tensor)];
  return {t.tv, t.uv, t.uvt, t.spi};
}

struct DimPlan {
  bool compress = false;
  i64 L = 1, r = 0, n_true = 0, n0 = 0;
};

/// Window (in units of the variable) of boundary effects of variable d in the
/// pieces: 2 + the spread of the other columns in any expression involving d.
/// `big[v]`: variable v is compressed (its own growth is what we interpolate);
/// kept variables contribute their whole range.
std::vector<Interval> shrunk_box(const std::vector<Interval>& box, const std::vector<char>& big) {
  std::vector<Interval> b(box);
  for (std::size_t v = 0; v < b.size(); ++v)
    if (big[v]) b[v].hi = std::min(b[v].hi, b[v].lo + 1);
  return b;
}

/// Constraints of the pieces switch at a fixed position of d, not at a fixed
/// distance from a face of the box (e.g. `A[i] : i < 5`): how far from the low
/// face that position can be (0: no constraint on d). The window must add it:
/// the part of the box beyond the switching point needs the whole window again.
/// Through a floor term: not compressed (2^20).
i64 constraint_reach(const std::vector<const Piece*>& pieces, std::size_t d, const std::vector<Interval>& box) {
  i64 w = 0;
  for (const Piece* p : pieces) {
    const std::size_t nv = p->vars.size();
    std::vector<char> term_d(p->terms.size(), 0);  // term k depends on d (maybe nested)
    for (std::size_t k = 0; k < p->terms.size(); ++k) {
      const auto& c = p->terms[k].num.coeff;
      for (std::size_t i = 0; i < c.size(); ++i)
        if (c[i] != 0 && (i == d || (i >= nv && term_d[i - nv]))) term_d[k] = 1;
    }
    const auto full = relation::column_bounds(*p, box);
    for (const auto& dj : p->disjuncts)
      for (const auto& c : dj) {
        const Affine& e = c.expr;
        for (std::size_t k = 0; k < p->terms.size(); ++k)
          if (term_d[k] && p->terms[k].kind == relation::Term::Kind::kFloor && nv + k < e.coeff.size() &&
              e.coeff[nv + k] != 0)
            w = i64{1} << 20;
        if (d >= e.coeff.size() || e.coeff[d] == 0) continue;
        auto cb = full;
        cb[d] = Interval{0, 0};
        const Interval rest = relation::bounds(e, cb);  // everything but the d column, constant included
        const i128 a = e.coeff[d] < 0 ? -static_cast<i128>(e.coeff[d]) : static_cast<i128>(e.coeff[d]);
        const i128 at_lo = static_cast<i128>(e.coeff[d]) * box[d].lo;
        const i128 lo_abs = at_lo + rest.lo < 0 ? -(at_lo + rest.lo) : at_lo + rest.lo;
        const i128 hi_abs = at_lo + rest.hi < 0 ? -(at_lo + rest.hi) : at_lo + rest.hi;
        const i128 reach = 2 + (std::max(lo_abs, hi_abs) + a - 1) / a;
        w = std::max<i64>(w, reach > (i128{1} << 20) ? i64{1} << 20 : static_cast<i64>(reach));
      }
  }
  return w;
}

/// min(|c|, 2^20) without negating INT64_MIN.
i64 capped_abs(i64 c) { return c >= 0 ? std::min<i64>(c, i64{1} << 20) : c < -(i64{1} << 20) ? i64{1} << 20 : -c; }

i64 window(const std::vector<const Piece*>& pieces, std::size_t d, const std::vector<Interval>& box,
           const std::vector<char>& big) {
  i64 w = 1;
  const auto sbox = shrunk_box(box, big);
  for (const Piece* p : pieces) {
    const std::size_t nv = p->vars.size();
    const auto cols = relation::column_bounds(*p, sbox);
    // spread of each column: kept variables their range, compressed ones one step,
    // e % c terms c - 1, floor terms their range over the shrunk box.
    std::vector<i64> spread(cols.size(), 0);
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const i64 width = cols[i].hi - cols[i].lo;
      if (i >= nv && p->terms[i - nv].kind == relation::Term::Kind::kMod) {
        spread[i] = p->terms[i - nv].den - 1;
      } else {
        spread[i] = width;
      }
    }
    auto see = [&](const Affine& a) {
      if (d >= a.coeff.size() || a.coeff[d] == 0) {
        // d may still appear inside a term of a: handled by that term's own expression.
        return;
      }
      i64 rest = 0;
      for (std::size_t i = 0; i < a.coeff.size(); ++i) {
        if (i == d || a.coeff[i] == 0) continue;
        rest = checked_add(rest, checked_mul(capped_abs(a.coeff[i]), spread[i], "window"), "window");
      }
      // 128-bit: a coefficient near 2^63 (or INT64_MIN, whose negation overflows) is legal input.
      const i128 ad = a.coeff[d] < 0 ? -static_cast<i128>(a.coeff[d]) : static_cast<i128>(a.coeff[d]);
      const i128 span = 1 + (static_cast<i128>(rest) + ad - 1) / ad;
      w = std::max(w, static_cast<i64>(std::min<i128>(span, i128{1} << 20)));
    };
    for (const auto& o : p->out) see(o);
    for (const auto& t : p->terms) see(t.num);
    for (const auto& dj : p->disjuncts)
      for (const auto& c : dj) see(c.expr);
    // d inside a term used together with other columns: count the term's spread.
    for (std::size_t k = 0; k < p->terms.size(); ++k) {
      const auto& num = p->terms[k].num;
      if (d < num.coeff.size() && num.coeff[d] != 0) {
        auto see_term = [&](const Affine& a) {
          const std::size_t col = nv + k;
          if (col >= a.coeff.size() || a.coeff[col] == 0) return;
          i64 rest = 0;
          for (std::size_t i = 0; i < a.coeff.size(); ++i) {
            if (i == col || a.coeff[i] == 0) continue;
            rest = checked_add(rest, checked_mul(capped_abs(a.coeff[i]), spread[i], "window"), "window");
          }
          // In units of d: one step of floor((a*d + ...)/c) spans c/|a| values of d.
          const auto& tk = p->terms[k];
          const i128 an = num.coeff[d] < 0 ? -static_cast<i128>(num.coeff[d]) : static_cast<i128>(num.coeff[d]);
          const i128 steps = 1 + static_cast<i128>(rest);
          const i128 span = tk.kind == relation::Term::Kind::kFloor ? steps * ((tk.den + an - 1) / an) : steps;
          w = std::max(w, static_cast<i64>(std::min<i128>(span, i128{1} << 20)));
        };
        for (const auto& o : p->out) see_term(o);
        for (const auto& dj : p->disjuncts)
          for (const auto& c : dj) see_term(c.expr);
      }
    }
  }
  return std::min<i64>(w, 1 << 20);
}

/// Several pieces of one tensor: an element of one piece equals an element of
/// another when their coordinates agree, which for coordinate j relates d to
/// the other columns of both pieces; the window must cover the spread of
/// (coordinate - a_d * d) over all the pieces (big variables other than d are
/// required to appear identically, see decouple(), and cancel).
i64 cross_window(const detail::TensorDef& td, std::size_t d, const std::vector<Interval>& box,
                 const std::vector<char>& big_vars) {
  if (td.pieces.size() < 2) return 1;
  i64 w = 1;
  for (std::size_t j = 0; j < td.arity; ++j) {
    bool any = false;
    i64 lo = 0, hi = 0;
    i128 ad = 0;  // |coefficient|: 128-bit, as are the widths below (found by fuzz_tenet: 2^63-1 offsets)
    for (const Piece* p : td.pieces) {
      const auto& o = p->out[j];
      std::vector<Interval> fixed(box);
      for (std::size_t i = 0; i < fixed.size(); ++i)
        if (i == d || big_vars[i]) fixed[i].hi = fixed[i].lo;
      auto cols = relation::column_bounds(*p, fixed);
      cols[d] = Interval{0, 0};
      const Interval b = relation::bounds(o, cols);
      if (d < o.coeff.size() && o.coeff[d] != 0)
        ad = std::max(ad, o.coeff[d] < 0 ? -static_cast<i128>(o.coeff[d]) : static_cast<i128>(o.coeff[d]));
      lo = any ? std::min(lo, b.lo) : b.lo;
      hi = any ? std::max(hi, b.hi) : b.hi;
      any = true;
    }
    if (ad == 0) continue;  // d not in this coordinate
    const i128 span = 1 + (static_cast<i128>(hi) - lo + ad - 1) / ad;
    w = std::max(w, static_cast<i64>(std::min<i128>(span, i128{1} << 20)));
  }
  return std::min<i64>(w, 1 << 20);
}

/// Wrap-around window of d for one tensor (docs/tenet-engine.md §3 step 1): the smallest extent of d from which
/// the tensor's elements at the two faces of d (N - 1 apart: the last stamp of a time prefix and the first stamp
/// of the next) never coincide. A coordinate a*d + rest (rest spread R, with the conventions of window())
/// separates them once (N - 1)|a| > R, i.e. N >= R / |a| + 2; one separating coordinate suffices (elements meet
/// only when all coordinates agree). A piece that sees d only through terms needs its window + 1, several pieces
/// the cross-piece window + 1; a piece that ignores d needs nothing, nor one with a coordinate a*e + c of a
/// dimension e with changes[e] (wrap_changes(): e differs between the two stamps of every wrap of d).
i64 wrap_window(const detail::TensorDef& td, std::size_t d, const std::vector<Interval>& box,
                const std::vector<char>& big, const std::vector<char>& changes) {
  i64 need = 1;
  const auto sbox = shrunk_box(box, big);
  for (const Piece* p : td.pieces) {
    const std::size_t nv = p->vars.size();
    // A coordinate a*e + c of a dimension e that differs between the two stamps of every wrap of d separates them.
    bool separated = false;
    for (const auto& o : p->out) {
      std::size_t only = SIZE_MAX, n_used = 0;
      for (std::size_t i = 0; i < o.coeff.size(); ++i)
        if (o.coeff[i] != 0) {
          only = i;
          ++n_used;
        }
      separated = separated || (n_used == 1 && only < nv && only < changes.size() && changes[only]);
    }
    if (separated) continue;
    const auto cols = relation::column_bounds(*p, sbox);
    i128 best = -1;
    for (const auto& o : p->out) {
      if (d >= o.coeff.size() || o.coeff[d] == 0) continue;
      i128 rest = 0;
      for (std::size_t i = 0; i < o.coeff.size(); ++i) {
        if (i == d || o.coeff[i] == 0) continue;
        const bool mod = i >= nv && p->terms[i - nv].kind == relation::Term::Kind::kMod;
        const i128 spread = mod ? p->terms[i - nv].den - 1 : static_cast<i128>(cols[i].hi) - cols[i].lo;
        const i128 c = o.coeff[i] < 0 ? -static_cast<i128>(o.coeff[i]) : static_cast<i128>(o.coeff[i]);
        rest += c * spread;
      }
      const i128 ad = o.coeff[d] < 0 ? -static_cast<i128>(o.coeff[d]) : static_cast<i128>(o.coeff[d]);
      const i128 n = rest / ad + 2;
      best = best < 0 ? n : std::min(best, n);
    }
    if (best < 0) {
      bool in_term = false;  // some term depends on d (terms of terms included: the window sees them)
      for (const auto& t : p->terms) in_term = in_term || (d < t.num.coeff.size() && t.num.coeff[d] != 0);
      if (in_term) need = std::max(need, checked_add(window({p}, d, box, big), 1));
      continue;
    }
    need = std::max(need, static_cast<i64>(std::min<i128>(best, i128{1} << 20)));
  }
  if (td.pieces.size() > 1) need = std::max(need, checked_add(cross_window(td, d, box, big), 1));
  return std::min<i64>(need, 1 << 20);
}

/// Extents up to which a parametric closed form is valid: the sound bounds that
/// depend on the box (skewed-time distances, the PE-domain check) are taken on
/// this box, which contains every smaller one.
constexpr i64 kParametricMaxExtent = i64{1} << 40;

std::vector<Interval> huge_box(const std::vector<Interval>& box) {
  std::vector<Interval> b(box);
  for (auto& x : b) x.hi = x.lo > INT64_MAX - kParametricMaxExtent ? INT64_MAX : x.lo + kParametricMaxExtent - 1;
  return b;
}

/// Sound interval propagation over linear equations  lo <= sum a_i X_i <= hi.
class IntervalSystem {
 public:
  std::size_t add_var(i64 lo, i64 hi) {
    lo_.push_back(lo);
    hi_.push_back(hi);
    return lo_.size() - 1;
  }
  void add_eq(std::vector<std::pair<std::size_t, i64>> t, i64 lo, i64 hi) { eqs_.push_back({std::move(t), lo, hi}); }
  /// Tighten the variable bounds to a fixed point (false when infeasible).
  bool propagate() {
    for (int pass = 0; pass < 200; ++pass) {
      bool changed = false;
      for (const Eq& e : eqs_) {
        i128 smin = 0, smax = 0;
        for (const auto& [i, a] : e.t) {
          const i128 x = static_cast<i128>(a) * lo_[i], y = static_cast<i128>(a) * hi_[i];
          smin += std::min(x, y);
          smax += std::max(x, y);
        }
        // Bounds of the other terms come from the bounds before this equation's
        // updates (wider, hence still sound).
        for (const auto& [i, a] : e.t) {
          const i128 x = static_cast<i128>(a) * lo_[i], y = static_cast<i128>(a) * hi_[i];
          const i128 l = static_cast<i128>(e.lo) - (smax - std::max(x, y));
          const i128 h = static_cast<i128>(e.hi) - (smin - std::min(x, y));
          const i128 nl = a > 0 ? cdiv(l, a) : cdiv(h, a);
          const i128 nh = a > 0 ? fdiv(h, a) : fdiv(l, a);
          const i128 new_lo = std::max<i128>(nl, lo_[i]), new_hi = std::min<i128>(nh, hi_[i]);
          if (new_lo > new_hi) return false;  // both within the old (i64) bounds from here on
          if (new_lo != lo_[i] || new_hi != hi_[i]) changed = true;
          lo_[i] = static_cast<i64>(new_lo);
          hi_[i] = static_cast<i64>(new_hi);
        }
      }
      if (!changed) break;
    }
    return true;
  }
  [[nodiscard]] i64 lo(std::size_t i) const { return lo_[i]; }
  [[nodiscard]] i64 hi(std::size_t i) const { return hi_[i]; }

 private:
  struct Eq {
    std::vector<std::pair<std::size_t, i64>> t;
    i64 lo, hi;
  };
  static i128 fdiv(i128 a, i128 b) {
    i128 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  static i128 cdiv(i128 a, i128 b) { return -fdiv(-a, b); }
  std::vector<i64> lo_, hi_;
  std::vector<Eq> eqs_;
};

bool unconstrained(const Piece& p) { return p.disjuncts.size() == 1 && p.disjuncts[0].empty(); }

/// The coefficient of column i of `a` (0 past its last column).
i64 coeff_of(const Affine& a, std::size_t i) { return i < a.coeff.size() ? a.coeff[i] : i64{0}; }

/// Skewed time dimension (docs/tenet-engine.md §3 "Skewed time"): d appears in
/// the time map only in the last coordinate, as +-d, and in the space map at
/// most inside `(a*d+b) % c`; both maps are single unconstrained pieces whose
/// terms each take one variable. Returns the largest |x'_d - x_d| over the
/// pairs of instances the metrics relate locally (x' on the PE of x or on an
/// interconnect neighbour of it, at the stamp of x or at the stamp one step
/// back in the last coordinate with the same prefix), or -1 when d does not
/// qualify. Sound: interval propagation over the differences of every column.
i64 skew_distance(const Model& m, std::size_t d, const std::vector<Interval>& box) {
  if (!m.is_box || m.nt == 0 || m.time.pieces.size() != 1 || m.space.pieces.size() != 1) return -1;
  const Piece& tp = m.time.pieces[0];
  const Piece& sp = m.space.pieces[0];
  if (!unconstrained(tp) || !unconstrained(sp) || m.pedom.pieces.size() != 1) return -1;
  std::vector<Interval> pe_box;
  if (!relation::as_box(m.pedom.pieces[0], pe_box) || pe_box.size() != m.ns) return -1;
  const std::size_t nv = m.nd;
  // d in the time map: only +-d in the last coordinate.
  for (const auto& t : tp.terms)
    if (coeff_of(t.num, d) != 0) return -1;
  for (std::size_t j = 0; j + 1 < m.nt; ++j)
    if (coeff_of(tp.out[j], d) != 0) return -1;
  const i64 ad = coeff_of(tp.out[m.nt - 1], d);
  if (ad != 1 && ad != -1) return -1;
  // d in the space map: only inside mod terms.
  for (const auto& o : sp.out)
    if (coeff_of(o, d) != 0) return -1;
  for (const auto& t : sp.terms)
    if (coeff_of(t.num, d) != 0 && t.kind != relation::Term::Kind::kMod) return -1;

  IntervalSystem sys;
  std::vector<std::size_t> dv(nv);
  for (std::size_t v = 0; v < nv; ++v) {
    const i64 w = box[v].hi - box[v].lo;
    dv[v] = sys.add_var(-w, w);
  }
  // Terms: one variable each (a*v + b); the same term shared between pieces.
  struct Key {
    std::size_t v;
    i64 a, b, den;
    bool operator==(const Key& o) const { return v == o.v && a == o.a && b == o.b && den == o.den; }
  };
  std::vector<Key> keys;
  std::vector<std::size_t> kf, km;  // unknowns: difference of floor((a v + b)/den) and of (a v + b) % den
  auto columns = [&](const Piece& p, std::vector<std::size_t>& col) -> bool {
    col.assign(nv + p.terms.size(), 0);
    for (std::size_t v = 0; v < nv; ++v) col[v] = dv[v];
    for (std::size_t k = 0; k < p.terms.size(); ++k) {
      const auto& t = p.terms[k];
      std::size_t var = nv;
      for (std::size_t i = 0; i < t.num.coeff.size(); ++i) {
        if (t.num.coeff[i] == 0) continue;
        if (i >= nv || var != nv) return false;  // nested term or two variables
        var = i;
      }
      if (var == nv) return false;
      const Key key{var, t.num.coeff[var], t.num.constant, t.den};
      std::size_t q = 0;
      while (q < keys.size() && !(keys[q] == key)) ++q;
      if (q == keys.size()) {
        keys.push_back(key);
        const i64 span = box[var].hi - box[var].lo;
        const i128 a = key.a < 0 ? -static_cast<i128>(key.a) : static_cast<i128>(key.a);
        if (a > (i64{1} << 20) || span > (i64{1} << 40)) return false;
        const i64 fspan = static_cast<i64>(a * span / key.den + 1);
        kf.push_back(sys.add_var(-fspan, fspan));
        km.push_back(sys.add_var(-(key.den - 1), key.den - 1));
        // a * dv = den * dF + dM
        sys.add_eq({{dv[var], key.a}, {kf.back(), -key.den}, {km.back(), -1}}, 0, 0);
      }
      col[nv + k] = t.kind == relation::Term::Kind::kFloor ? kf[q] : km[q];
    }
    return true;
  };
  auto lin = [](const Affine& a, const std::vector<std::size_t>& col) {
    std::vector<std::pair<std::size_t, i64>> t;
    for (std::size_t i = 0; i < a.coeff.size(); ++i)
      if (a.coeff[i] != 0) t.emplace_back(col[i], a.coeff[i]);
    return t;
  };
  std::vector<std::size_t> tcol, scol;
  if (!columns(tp, tcol) || !columns(sp, scol)) return -1;
  // PE offsets of the related instances: 0 and every interconnect link (a
  // translation, else anything within the PE box).
  std::vector<i64> omin(m.ns, 0), omax(m.ns, 0);
  for (const Piece& p : m.icn.pieces) {
    for (std::size_t j = 0; j < m.ns; ++j) {
      const Affine& o = p.out[j];
      bool translation = coeff_of(o, j) == 1;
      for (std::size_t i = 0; i < o.coeff.size(); ++i)
        if (i != j && o.coeff[i] != 0) translation = false;
      const i64 w = pe_box[j].hi - pe_box[j].lo;
      omin[j] = std::min(omin[j], translation ? o.constant : -w);
      omax[j] = std::max(omax[j], translation ? o.constant : w);
    }
  }
  for (std::size_t j = 0; j < m.ns; ++j) sys.add_eq(lin(sp.out[j], scol), omin[j], omax[j]);
  for (std::size_t j = 0; j < m.nt; ++j) sys.add_eq(lin(tp.out[j], tcol), j + 1 < m.nt ? 0 : -1, 0);
  if (!sys.propagate()) return -1;  // cannot happen (x' = x is a solution); be conservative
  return std::max(-sys.lo(dv[d]), sys.hi(dv[d]));
}

bool exact_var(const Affine& a, std::size_t d);
bool uses(const Affine& a, std::size_t d);

/// Terms of a map piece that see d: kind 1 = floor(d/den) (one divisor; only when allow_floor), 2 = d % m, 0 = no d.
/// False for anything else (d with another variable or a coefficient, a term of a term of d).
bool classify_d_terms(const Piece& p, std::size_t d, bool allow_floor, std::vector<int>& kind, i64& den) {
  const std::size_t nv = p.vars.size();
  kind.assign(p.terms.size(), 0);
  for (std::size_t k = 0; k < p.terms.size(); ++k) {
    const auto& t = p.terms[k];
    for (std::size_t i = nv; i < t.num.coeff.size(); ++i)
      if (t.num.coeff[i] != 0 && kind[i - nv] != 0) return false;  // a term of a term of d
    if (!uses(t.num, d)) continue;
    if (!exact_var(t.num, d) || t.den < 1) return false;
    if (t.kind == relation::Term::Kind::kMod) {
      kind[k] = 2;
    } else {
      if (!allow_floor || (den != 0 && den != t.den)) return false;
      den = t.den;
      kind[k] = 1;
    }
  }
  return true;
}

/// d wraps around in the time order: some time coordinate but the first uses d (directly or through a term), so
/// when an earlier coordinate steps, d goes from its high face back to its low face between consecutive stamps.
bool wraps_in_time(const Model& m, std::size_t d) {
  for (const Piece& p : m.time.pieces) {
    const std::size_t nv = p.vars.size();
    std::vector<char> dep(p.terms.size(), 0);
    auto uses_d = [&](const Affine& a) {
      for (std::size_t i = 0; i < a.coeff.size(); ++i)
        if (a.coeff[i] != 0 && (i == d || (i >= nv && dep[i - nv]))) return true;
      return false;
    };
    for (std::size_t k = 0; k < p.terms.size(); ++k) dep[k] = static_cast<char>(uses_d(p.terms[k].num));
    for (std::size_t j = 1; j < p.out.size(); ++j)
      if (uses_d(p.out[j])) return true;
  }
  return false;
}

/// The dimensions that differ between the two stamps of every wrap of d (see wraps_in_time): the time map is one
/// piece, d is in no term and jd is the first coordinate with d; a coordinate j that is a function of e alone (e
/// in no other coordinate) either steps (j is where the two stamps first differ) or wraps (j after it), so with j
/// = jd - 1 (it steps or wraps for every wrap of d) or j > jd (it wraps) and at least two values of the
/// coordinate in every sampled instance, e differs. Coordinates a*e + c (a != 0) qualify when e has >= 2
/// sampled values (min_extent, in enumerated values), floor(e/c) when every sampled e spans more than c values
/// (stride 1: min_extent >= c + 1; a free tile stride S = c: two tiles of `sub` enumerated values).
std::vector<char> wrap_changes(const Model& m, std::size_t d, const std::vector<i64>& min_extent,
                               const std::vector<i64>& stride, const std::vector<i64>& sub) {
  std::vector<char> out(m.nd, 0);
  if (m.time.pieces.size() != 1) return out;
  const Piece& tp = m.time.pieces[0];
  const std::size_t nv = tp.vars.size();
  for (const auto& t : tp.terms)
    if (d < t.num.coeff.size() && t.num.coeff[d] != 0) return out;
  std::size_t jd = SIZE_MAX;
  for (std::size_t j = 0; j < tp.out.size() && jd == SIZE_MAX; ++j)
    if (d < tp.out[j].coeff.size() && tp.out[j].coeff[d] != 0) jd = j;
  if (jd == SIZE_MAX || jd == 0) return out;
  // Variables a column depends on: a variable itself, a term its numerator's variables (one level suffices for
  // the check below: a term of a term is refused).
  auto vars_of = [&](const Affine& a, std::vector<std::size_t>& vs, bool& nested) {
    for (std::size_t i = 0; i < a.coeff.size(); ++i) {
      if (a.coeff[i] == 0) continue;
      if (i < nv) {
        vs.push_back(i);
        continue;
      }
      const Affine& num = tp.terms[i - nv].num;
      for (std::size_t q = 0; q < num.coeff.size(); ++q)
        if (num.coeff[q] != 0) {
          if (q >= nv) nested = true;
          vs.push_back(q);
        }
    }
    std::sort(vs.begin(), vs.end());
    vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
  };
  std::vector<int> coords(m.nd, 0);  // number of time coordinates using each variable
  std::vector<std::vector<std::size_t>> cv(tp.out.size());
  std::vector<char> bad(tp.out.size(), 0);
  for (std::size_t j = 0; j < tp.out.size(); ++j) {
    bool nested = false;
    vars_of(tp.out[j], cv[j], nested);
    bad[j] = nested;
    for (std::size_t v : cv[j]) ++coords[v];
  }
  for (std::size_t j = 0; j < tp.out.size(); ++j) {
    if (bad[j] || cv[j].size() != 1 || !(j + 1 == jd || j > jd)) continue;
    const std::size_t e = cv[j][0];
    if (e == d || coords[e] != 1) continue;
    const Affine& o = tp.out[j];
    bool ok = false;
    if (e < o.coeff.size() && o.coeff[e] != 0) {
      ok = true;  // a*e + c, possibly plus terms of e: require the plain form
      for (std::size_t i = nv; i < o.coeff.size(); ++i) ok = ok && o.coeff[i] == 0;
      ok = ok && min_extent[e] >= 2;
    } else {
      std::size_t term = SIZE_MAX, n_terms = 0;
      for (std::size_t i = nv; i < o.coeff.size(); ++i)
        if (o.coeff[i] != 0) {
          term = i - nv;
          ++n_terms;
        }
      if (n_terms == 1) {
        const relation::Term& t = tp.terms[term];
        const bool plain = t.kind == relation::Term::Kind::kFloor && t.num.constant == 0 && e < t.num.coeff.size() &&
                           t.num.coeff[e] == 1;
        if (plain && stride[e] == 1) ok = min_extent[e] >= t.den + 1;
        if (plain && stride[e] == t.den) ok = min_extent[e] >= 2 * sub[e];  // two tiles
      }
    }
    out[e] = static_cast<char>(ok);
  }
  return out;
}

/// The outer block of one value (docs/tenet-engine.md §3 "Outer blocks", L = 1): the time map's first coordinate
/// is exactly d (+ a constant), and neither map uses d anywhere else (no other coordinate, no term).
bool direct_first_coordinate(const Piece& tp, const Piece& sp, std::size_t d) {
  if (tp.out.empty()) return false;
  const Affine& first = tp.out[0];
  for (std::size_t i = 0; i < first.coeff.size(); ++i)
    if (first.coeff[i] != (i == d ? 1 : 0)) return false;
  if (coeff_of(first, d) != 1) return false;
  for (const Piece* p : {&tp, &sp}) {
    for (const auto& t : p->terms)
      if (coeff_of(t.num, d) != 0) return false;
    for (std::size_t j = p == &tp ? 1 : 0; j < p->out.size(); ++j)
      if (coeff_of(p->out[j], d) != 0) return false;
  }
  return true;
}

/// Outer block dimension (docs/tenet-engine.md §3 "Outer blocks"): the time
/// map's first coordinate is exactly floor(d/L) (+ a constant), d appears
/// nowhere else in the maps but in `d % m` terms (m | L; other coordinates may
/// combine them with other variables), the domain starts at d = 0, the group's period of d
/// is L, and each of the group's tensors either ignores d or has d as one
/// whole coordinate (the same in every piece). Then the blocks of L values of d
/// are consecutive translated copies in the outermost time coordinate, on the
/// same PEs, whose elements are the same or (whole coordinate) disjoint between
/// blocks, so every count of the group is affine in the number of whole blocks
/// from one block on (not only from the base of the general argument).
/// Returns L, or 0.
i64 outer_block(const Model& m, std::size_t d, const std::vector<std::vector<const Piece*>>& tensors, i64 period) {
  if (!m.is_box || m.nt == 0 || m.box[d].lo != 0 || m.time.pieces.size() != 1 || m.space.pieces.size() != 1) return 0;
  const Piece& tp = m.time.pieces[0];
  const Piece& sp = m.space.pieces[0];
  if (!unconstrained(tp) || !unconstrained(sp)) return 0;
  i64 L = 0, unused = 0;  // the terms: floor(d/L), d % m (m | L checked below)
  // The outputs: no d itself. The time map's first coordinate is exactly floor(d/L) (coefficient 1) plus a
  // constant; every other coordinate has no floor term of d and may combine its d % m terms with other variables
  // and terms (the skewed systolic maps' k + i%32 + 2*(j%32), docs §3 "Outer blocks": within a block the stamps,
  // PEs and elements still depend on d % L and the other dimensions only).
  auto outputs = [&](const Piece& p, const std::vector<int>& kind, bool first_is_block) -> bool {
    const std::size_t nv = p.vars.size();
    for (std::size_t j = 0; j < p.out.size(); ++j) {
      const Affine& o = p.out[j];
      if (coeff_of(o, d) != 0) return false;
      const bool block_coord = first_is_block && j == 0;
      bool floor_once = false;
      for (std::size_t i = 0; i < o.coeff.size(); ++i) {
        if (o.coeff[i] == 0) continue;
        const bool floor_term = i >= nv && kind[i - nv] == 1;
        if (floor_term && (!block_coord || o.coeff[i] != 1 || floor_once)) return false;
        if (!floor_term && block_coord) return false;  // the block coordinate holds nothing else
        floor_once = floor_once || floor_term;
      }
      if (block_coord && !floor_once) return false;
    }
    return true;
  };
  std::vector<int> tkind, skind;
  if (period == 1 && direct_first_coordinate(tp, sp, d)) {
    L = 1;  // blocks of one value: the first coordinate is d itself (floor(d/1)), e.g. T[n, ...] of a conv
  } else {
    if (!classify_d_terms(tp, d, true, tkind, L) || !outputs(tp, tkind, true) || L < 1 || period != L) return 0;
    if (!classify_d_terms(sp, d, false, skind, unused) || !outputs(sp, skind, false)) return 0;
    for (std::size_t k = 0; k < tp.terms.size(); ++k)
      if (tkind[k] == 2 && L % tp.terms[k].den != 0) return 0;
    for (std::size_t k = 0; k < sp.terms.size(); ++k)
      if (skind[k] == 2 && L % sp.terms[k].den != 0) return 0;
  }
  // Each tensor: d in no term or constraint; either no piece uses d, or every piece has d as one whole
  // coordinate (exactly d), the same in every piece: elements of different blocks then differ.
  for (const auto& pieces : tensors) {
    int pos = -2;  // -2: no piece seen, -1: d unused, j: d is coordinate j
    for (const Piece* p : pieces) {
      for (const auto& t : p->terms)
        if (coeff_of(t.num, d) != 0) return 0;
      for (const auto& dj : p->disjuncts)
        for (const auto& c : dj)
          if (coeff_of(c.expr, d) != 0) return 0;
      int here = -1;
      for (std::size_t j = 0; j < p->out.size(); ++j) {
        if (coeff_of(p->out[j], d) == 0) continue;
        if (here != -1 || !exact_var(p->out[j], d)) return 0;
        here = static_cast<int>(j);
      }
      if (pos != -2 && pos != here) return 0;
      pos = here;
    }
  }
  return L;
}

/// Inner block dimension (docs/tenet-engine.md §3 "Inner blocks"): like an outer block, but the block coordinate
/// floor(d/c) (c | L) is time coordinate p >= 1, after coordinates that do not see d. Blocks are then consecutive
/// translated copies inside every prefix (the coordinates before p); the prefixes add one link each, from the last
/// stamp of a prefix (d in the last block) to the first stamp of the next (d in block 0). A tensor of the group may
/// carry d as one whole coordinate `d` or `floor(d/g)` (g | L): elements of different blocks differ. When N_d is a
/// whole number of blocks, one block makes that link join block 0 to itself, so each carrying tensor needs a
/// witness: a coordinate `e` (e != d, the same in every piece) whose only time coordinate is q > p, exactly
/// floor(e/ce); with N_e > ce the link's two stamps differ in floor(e/ce), so in e, so in the element. Or e is
/// the only variable the coordinates before p see (a prefix witness, ce = 0): two prefixes differ in e. Or (a
/// skew witness, (d, -1), tensors carrying `d` itself) coordinate p + 1 holds d only as s * (d % m), s != 0,
/// m >= 2: the link's two stamps are at opposite extremes of d % m. Coordinates after p may mix d % m terms
/// with other variables (the skewed OS map's k + i%32 + j%32).
struct InnerBlock {
  i64 L = 0;                                                   // 0: d does not qualify
  std::vector<std::vector<std::pair<std::size_t, i64>>> need;  // per carrying tensor: its witnesses (e, ce)
};

// NOLINTNEXTLINE(readability-function-size): the qualification of an inner block, kept together
InnerBlock inner_block(const Model& m, std::size_t d, const std::vector<std::vector<const Piece*>>& tensors,
                       i64 period) {
  InnerBlock out;
  if (!m.is_box || m.nt == 0 || m.box[d].lo != 0 || period < 1 || m.time.pieces.size() != 1 ||
      m.space.pieces.size() != 1)
    return out;
  const Piece& tp = m.time.pieces[0];
  const Piece& sp = m.space.pieces[0];
  if (!unconstrained(tp) || !unconstrained(sp)) return out;
  std::vector<int> tkind, skind;
  i64 c = 0, unused = 0;
  if (!classify_d_terms(tp, d, true, tkind, c) || c == 0 || period % c != 0 ||
      !classify_d_terms(sp, d, false, skind, unused))
    return out;
  for (const Piece* pc : {&tp, &sp})  // d % m with m | period
    for (const auto& t : pc->terms)
      if (t.kind == relation::Term::Kind::kMod && uses(t.num, d) && period % t.den != 0) return out;
  const std::size_t tnv = tp.vars.size();
  // Time outputs: coordinate p is exactly floor(d/c) (+ a constant), p >= 1; before p no d; after p a
  // coordinate with a d % m term holds no other variable or term. Space: the same rule for its coordinates.
  std::size_t p = 0;
  bool found = false;
  for (std::size_t j = 0; j < tp.out.size(); ++j) {
    const Affine& o = tp.out[j];
    if (coeff_of(o, d) != 0) return out;
    bool dterm = false, other = false, block = false, residue = false;
    for (std::size_t i = 0; i < o.coeff.size(); ++i) {
      if (o.coeff[i] == 0) continue;
      if (i >= tnv && tkind[i - tnv] != 0) {
        dterm = true;
        if (tkind[i - tnv] == 1) {
          if (o.coeff[i] != 1) return out;
          block = true;
        } else {
          residue = true;
        }
      } else {
        other = true;
      }
    }
    // d before the block coordinate, or the block coordinate mixed (with another variable, or with d % m: the
    // values of consecutive blocks would overlap and their stamps interleave); after it, d % m terms may share a
    // coordinate with other variables and terms (the skewed OS map's k + i%32 + j%32: blocks are still translated
    // copies)
    if (dterm && ((block && (other || residue)) || (!found && !block))) return out;
    if (block) {
      if (found) return out;  // two block coordinates
      p = j;
      found = true;
    }
  }
  if (!found || p == 0) return out;  // p == 0 is outer_block()'s case
  const std::size_t snv = sp.vars.size();
  for (const Affine& o : sp.out) {
    if (coeff_of(o, d) != 0) return out;
    bool dterm = false, other = false;
    for (std::size_t i = 0; i < o.coeff.size(); ++i)
      if (o.coeff[i] != 0) (i >= snv && skind[i - snv] != 0 ? dterm : other) = true;
    if (dterm && other) return out;
  }
  // A skew witness: coordinate p + 1 holds d only in one term s * (d % m), s != 0, m >= 2, next to terms of other
  // variables. Given the prefix and coordinate p, d ranges over a box independent of the rest, so the last stamp
  // of a prefix (d in the last whole block) has d % m at one extreme (m - 1 or 0) and the first stamp of the next
  // prefix (block 0) at the other: instances carrying d as `d` differ across the link (docs §3 "Inner blocks").
  bool skew_witness = false;
  if (p + 1 < tp.out.size()) {
    const Affine& o = tp.out[p + 1];
    int dterms = 0;
    bool mod_ok = false;
    for (std::size_t k = 0; k < tp.terms.size(); ++k) {
      if (coeff_of(o, tnv + k) == 0 || tkind[k] == 0) continue;
      ++dterms;
      mod_ok = tkind[k] == 2 && tp.terms[k].den >= 2;
    }
    skew_witness = dterms == 1 && mod_ok;
  }
  // The witnesses a carrying tensor may use: e whose only appearance in the time map is coordinate q > p,
  // exactly floor(e/ce) (coefficient 1, no constant), with e starting at 0.
  std::vector<i64> witness(m.nd, 0);  // ce, or 0
  for (std::size_t e = 0; e < m.nd && e < tnv; ++e) {
    if (e == d || m.box[e].lo != 0) continue;
    bool ok = true;
    std::size_t term = tp.terms.size();  // the one term of e
    for (std::size_t k = 0; k < tp.terms.size() && ok; ++k) {
      const auto& t = tp.terms[k];
      for (std::size_t i = tnv; i < t.num.coeff.size(); ++i)
        ok = ok && !(t.num.coeff[i] != 0 && i - tnv == term);  // a term of e's term
      if (!uses(t.num, e)) continue;
      ok = ok && term == tp.terms.size() && t.kind == relation::Term::Kind::kFloor && exact_var(t.num, e) && t.den >= 1;
      term = k;
    }
    if (!ok || term == tp.terms.size()) continue;
    int seen = 0;
    for (std::size_t j = 0; j < tp.out.size() && ok; ++j) {
      const Affine& o = tp.out[j];
      if (coeff_of(o, e) != 0) ok = false;
      if (coeff_of(o, tnv + term) == 0) continue;
      ++seen;
      ok = ok && j > p && o.constant == 0;
      for (std::size_t x = 0; x < o.coeff.size() && ok; ++x) ok = o.coeff[x] == (x == tnv + term ? 1 : 0);
    }
    if (ok && seen == 1) witness[e] = tp.terms[term].den;
  }
  // A prefix witness: when every coordinate before p sees one variable e only (directly or through terms), two
  // different prefixes have different e, so the link's two stamps differ in e whatever its extent (ce = 0).
  std::vector<std::vector<char>> tdeps(tp.terms.size(), std::vector<char>(tnv, 0));
  for (std::size_t k = 0; k < tp.terms.size(); ++k)
    for (std::size_t i = 0; i < tp.terms[k].num.coeff.size(); ++i)
      if (tp.terms[k].num.coeff[i] != 0) {
        if (i < tnv) tdeps[k][i] = 1;
        else
          for (std::size_t v = 0; v < tnv; ++v) tdeps[k][v] = tdeps[k][v] || tdeps[i - tnv][v];
      }
  std::vector<char> prefix_vars(tnv, 0);
  for (std::size_t j = 0; j < p; ++j)
    for (std::size_t i = 0; i < tp.out[j].coeff.size(); ++i)
      if (tp.out[j].coeff[i] != 0) {
        if (i < tnv) prefix_vars[i] = 1;
        else
          for (std::size_t v = 0; v < tnv; ++v) prefix_vars[v] = prefix_vars[v] || tdeps[i - tnv][v];
      }
  std::size_t prefix_e = tnv;
  if (std::count(prefix_vars.begin(), prefix_vars.end(), 1) == 1)
    prefix_e = static_cast<std::size_t>(std::find(prefix_vars.begin(), prefix_vars.end(), 1) - prefix_vars.begin());
  // Tensors: d in no constraint; either no piece sees d, or every piece has it as the same whole coordinate
  // (`d`, or a coordinate that is exactly floor(d/g) with g | L), d in no other term or coordinate.
  for (const auto& pieces : tensors) {
    int pos = -2;   // -2: no piece seen, -1: d unused, j: d is coordinate j
    i64 form = -1;  // 0: d itself, g: floor(d/g)
    std::vector<std::array<i64, 3>> wit;
    bool first = true;
    for (const Piece* pc : pieces) {
      for (const auto& dj : pc->disjuncts)
        for (const auto& cn : dj)
          if (coeff_of(cn.expr, d) != 0) return out;
      const std::size_t nv = pc->vars.size();
      std::vector<char> dt(pc->terms.size(), 0);
      for (std::size_t k = 0; k < pc->terms.size(); ++k) {
        const auto& t = pc->terms[k];
        for (std::size_t i = nv; i < t.num.coeff.size(); ++i)
          if (t.num.coeff[i] != 0 && dt[i - nv]) return out;
        if (coeff_of(t.num, d) == 0) continue;
        if (t.kind != relation::Term::Kind::kFloor || !exact_var(t.num, d) || t.den < 1 || period % t.den != 0)
          return out;
        dt[k] = 1;
      }
      int here = -1;
      i64 f = -1;
      for (std::size_t j = 0; j < pc->out.size(); ++j) {
        const Affine& o = pc->out[j];
        bool sees = coeff_of(o, d) != 0;
        for (std::size_t k = 0; k < pc->terms.size(); ++k) sees = sees || (coeff_of(o, nv + k) != 0 && dt[k]);
        if (!sees) continue;
        if (here != -1) return out;
        here = static_cast<int>(j);
        if (exact_var(o, d)) {
          f = 0;
        } else {
          for (std::size_t k = 0; k < pc->terms.size() && f < 0; ++k) {
            Affine only;
            only.coeff.assign(nv + k + 1, 0);
            only.coeff[nv + k] = 1;
            bool eq = o.constant == 0 && coeff_of(o, nv + k) == 1;
            for (std::size_t x = 0; x < o.coeff.size() && eq; ++x) eq = o.coeff[x] == coeff_of(only, x);
            if (dt[k] && eq) f = pc->terms[k].den;
          }
          if (f < 0) return out;
        }
      }
      for (std::size_t k = 0; k < pc->terms.size(); ++k)  // a d-term used by another term or not by `here`
        if (dt[k] && (here < 0 || coeff_of(pc->out[static_cast<std::size_t>(here)], nv + k) == 0)) return out;
      if (pos != -2 && (pos != here || form != f)) return out;
      pos = here;
      form = f;
      // witnesses of this piece: coordinates that are exactly a witness variable; keep those common to all pieces
      std::vector<std::array<i64, 3>> w;  // (e, coordinate, ce)
      for (std::size_t j = 0; j < pc->out.size(); ++j)
        for (std::size_t e = 0; e < nv && e < witness.size(); ++e)
          if ((witness[e] != 0 || e == prefix_e) && exact_var(pc->out[j], e))
            w.push_back({static_cast<i64>(e), static_cast<i64>(j), e == prefix_e ? 0 : witness[e]});
      if (first) {
        wit = w;
      } else {
        std::erase_if(wit, [&](const auto& x) { return std::find(w.begin(), w.end(), x) == w.end(); });
      }
      first = false;
    }
    if (pos >= 0) {
      out.need.emplace_back();
      for (const auto& x : wit) out.need.back().emplace_back(static_cast<std::size_t>(x[0]), x[2]);
      if (skew_witness && form == 0) out.need.back().emplace_back(d, -1);  // holds at every extent
    }
  }
  out.L = period;
  return out;
}

/// d appears in the pieces' terms only as (a*d + b) % c or as floor(d/c) (d alone, coefficient 1; no other
/// floor, no mixing, no term of such a term).
bool only_mod_terms(const std::vector<const Piece*>& pieces, std::size_t d) {
  for (const Piece* p : pieces) {
    std::vector<char> uses_d(p->terms.size(), 0);
    const std::size_t nv = p->vars.size();
    for (std::size_t k = 0; k < p->terms.size(); ++k) {
      const auto& t = p->terms[k];
      bool dd = false, other = false;
      for (std::size_t i = 0; i < t.num.coeff.size(); ++i) {
        if (t.num.coeff[i] == 0) continue;
        if (i == d) {
          dd = true;
        } else if (i >= nv && uses_d[i - nv]) {
          return false;  // nested use of d
        } else {
          other = true;
        }
      }
      uses_d[k] = dd;
      if (dd && (other || (t.kind != relation::Term::Kind::kMod && !exact_var(t.num, d)))) return false;
    }
  }
  return true;
}

i128 mul128(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow("interpolated count");
  return r;
}
i128 add128(i128 a, i128 b) {
  i128 r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow("interpolated count");
  return r;
}

/// One group's counts as an exact closed form on a region of iteration-domain
/// extents: dimension d is either compressed (extent N = S * (r + n * L) with
/// n >= n0: the counts are multilinear in the n of the compressed dimensions)
/// or kept (exactly the extent N it was counted at). coef[mask * nv + v] is the
/// coefficient of value v on prod_{j in mask} (n_{comp[j]} - n0).
struct ClosedForm {
  struct Dim {
    bool compress = false;
    i64 S = 1, L = 1, r = 0, n0 = 0;  // compressed: stride, period and residue (in units of S), base
    i64 N = 0;                        // kept: the exact extent
  };
  std::vector<Dim> dims;
  std::vector<std::size_t> comp;  // compressed dimensions
  std::size_t nv = 0;
  std::vector<i128> coef;
  // Interpolation over a floor divisor (docs/tenet-engine.md §3 "Large floor divisors"): when `inner` holds two
  // forms, the value at extents with N_sd = q * G + r (q >= 1, r < Ga) is inner[0] + (inner[1] - inner[0]) * (G - Ga),
  // inner[j] evaluated with N_sd replaced by q * (Ga + j) + r (the problem with divisor Ga + j instead of G).
  std::size_t sd = 0;
  i64 G = 0, Ga = 0;
  std::vector<ClosedForm> inner;

  /// `ext` with dimension sd's extent q * G + r replaced by q * Gp + r (into `buf`, dims.size() <= kMaxScaledDims).
  [[nodiscard]] const i64* substituted(const i64* ext, i64 Gp, i64* buf) const {
    for (std::size_t d = 0; d < dims.size(); ++d) buf[d] = ext[d];
    buf[sd] = ext[sd] / G * Gp + ext[sd] % G;
    return buf;
  }

  /// Whether the extents lie in this form's region.
  [[nodiscard]] bool matches(const i64* ext) const {
    if (!inner.empty()) {
      if (ext[sd] / G < 1 || ext[sd] % G >= Ga) return false;
      std::array<i64, kMaxScaledDims> buf{};
      return inner[0].matches(substituted(ext, Ga, buf.data())) &&
             inner[1].matches(substituted(ext, Ga + 1, buf.data()));
    }
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const Dim& x = dims[d];
      if (!x.compress) {
        if (ext[d] != x.N) return false;
        continue;
      }
      if (ext[d] % x.S != 0) return false;
      const i64 u = ext[d] / x.S;
      if (u % x.L != x.r || u / x.L < x.n0) return false;
    }
    return true;
  }
  /// Value v at the extents (which must match); checked 128-bit, allocation-free.
  [[nodiscard]] i64 value(const i64* ext, std::size_t v) const {
    if (!inner.empty()) {
      std::array<i64, kMaxScaledDims> buf{};
      const i128 a = inner[0].value(substituted(ext, Ga, buf.data()), v);
      const i128 b = inner[1].value(substituted(ext, Ga + 1, buf.data()), v);
      const i128 x = add128(a, mul128(b - a, G - Ga));
      if (x < 0)
        throw InputError(
            "cannot count exactly: the interpolated count is negative (the counts are not affine in the floor "
            "divisor for this mapping)");
      return checked_narrow(x, "count");
    }
    i128 acc = 0;
    const std::size_t nb = std::size_t{1} << comp.size();
    for (std::size_t mask = 0; mask < nb; ++mask) {
      i128 prod = coef[mask * nv + v];
      if (prod == 0) continue;
      for (std::size_t j = 0; j < comp.size(); ++j)
        if (mask & (std::size_t{1} << j)) {
          const Dim& x = dims[comp[j]];
          prod = mul128(prod, ext[comp[j]] / x.S / x.L - x.n0);
        }
      acc = add128(acc, prod);
    }
    if (acc < 0)
      throw InputError(
          "cannot count exactly: the interpolated count is negative (the counts are not multilinear in the loop sizes "
          "for this mapping)");
    return checked_narrow(acc, "count");
  }
};

struct Group {
  std::vector<int> members;  // -1 = space/time counts, k >= 0 = tensor k
  std::vector<const Piece*> pieces;
  std::vector<i64> L, W;
  std::vector<i64> result;   // flattened results of all members after solving
  std::vector<i64> stride;   // free tile dimensions: enumerate one residue, scale (1 = not free)
  std::vector<i64> sub;      // ... keeping the first `sub` residues of each tile (those the maps see via d % sub)
  std::vector<std::vector<char>> contains;  // [member][d]: the tensor's elements carry d's residue
  ClosedForm form;  // the closed form solve() found (valid on a region of extents, see ClosedForm)
};

bool exact_var(const Affine& a, std::size_t d) {
  if (a.constant != 0) return false;
  for (std::size_t i = 0; i < a.coeff.size(); ++i)
    if (a.coeff[i] != (i == d ? 1 : 0)) return false;
  return d < a.coeff.size();
}
bool uses(const Affine& a, std::size_t d) { return d < a.coeff.size() && a.coeff[d] != 0; }

/// A dimension d is a free tile dimension of a group when the maps see it only
/// as floor(d/S) and every access either ignores it or uses it as a whole index
/// coordinate: then the S residues of d are independent copies (or duplicates)
/// of the same problem and one residue suffices (docs/tenet-engine.md).
i64 free_stride(const Model& m, std::size_t d, const std::vector<const Piece*>& st, const std::vector<int>& members,
                std::vector<std::vector<char>>& contains, i64& sub) {
  const i64 lo = m.box[d].lo, N = m.box[d].hi - m.box[d].lo + 1;
  i64 S = 0, M = 0;  // floor(d/S) and d % M are the only ways the maps may see d
  sub = 1;
  int coord_pos = -1;
  auto scan = [&](const Piece& p, bool allow_coord, bool& has_coord) -> bool {
    const std::size_t nv = p.vars.size();
    (void)nv;
    for (const auto& t : p.terms) {
      if (!uses(t.num, d)) continue;
      if (!exact_var(t.num, d)) return false;
      i64& which = t.kind == relation::Term::Kind::kFloor ? S : M;
      if (which == 0) which = t.den;
      if (t.den != which) return false;
    }
    for (const auto& dj : p.disjuncts)
      for (const auto& c : dj)
        if (uses(c.expr, d)) return false;
    for (std::size_t j = 0; j < p.out.size(); ++j) {
      const auto& o = p.out[j];
      if (!uses(o, d)) continue;
      if (!allow_coord || !exact_var(o, d) || has_coord) return false;
      // every piece of the tensor must carry d in the same coordinate
      if (coord_pos >= 0 && coord_pos != static_cast<int>(j)) return false;
      coord_pos = static_cast<int>(j);
      has_coord = true;
    }
    return true;
  };
  for (const Piece* p : st) {
    bool dummy = false;
    if (!scan(*p, false, dummy)) return 1;
  }
  std::vector<char> cont(members.size(), 0);
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] < 0) continue;
    const auto& td = m.tensors[static_cast<std::size_t>(members[i])];
    int agree = -1;
    coord_pos = -1;
    for (const Piece* p : td.pieces) {
      bool has = false;
      if (!scan(*p, true, has)) return 1;
      if (agree >= 0 && agree != static_cast<int>(has)) return 1;
      agree = has;
    }
    cont[i] = agree == 1;
  }
  if (S == 0) S = N;  // d appears in no floor: the whole range is one tile
  if (M == 0) M = 1;
  if (floor_mod(lo, S) != 0 || N % S != 0 || S % M != 0) return 1;
  if (S / M <= 1) return 1;
  for (std::size_t i = 0; i < members.size(); ++i) contains[i][d] = cont[i];
  sub = M;
  return S;
}

/// Whether every interconnect image of a PE in its own row (space coordinate q) is the same for every row: each
/// piece either moves to another row (coordinate q = q + c, c != 0) or keeps the row (q = q) with its other
/// coordinates and constraints not seeing q.
bool row_invariant(const relation::Relation& icn, std::size_t q) {
  for (const Piece& p : icn.pieces) {
    if (q >= p.out.size() || q >= p.vars.size()) return false;
    const Affine& o = p.out[q];
    if (!exact_var(Affine{0, o.coeff}, q)) return false;  // coordinate q is the input's q plus a constant
    if (o.constant != 0) continue;                        // another row: never a neighbour in the same row
    for (const auto& t : p.terms)
      if (uses(t.num, q)) return false;
    for (std::size_t j = 0; j < p.out.size(); ++j)
      if (j != q && uses(p.out[j], q)) return false;
    for (const auto& dj : p.disjuncts)
      for (const auto& c : dj)
        if (uses(c.expr, q)) return false;
  }
  return true;
}

/// Free rows (docs/tenet-engine.md §3 "Free rows"): the space map holds d as one coordinate q that is exactly
/// d % S, the time map sees d only as floor(d/S), and every tensor of the group (there is no space-time member)
/// carries d as one whole coordinate. Then the S residues of d run on the S rows of coordinate q at the same
/// stamps, no element is shared between two residues, and the interconnect relates the rows alike
/// (row_invariant): every tensor count is S times the count of residue 0. Returns S (sub = 1), or 1.
i64 free_rows(const Model& m, std::size_t d, const std::vector<int>& members, std::vector<std::vector<char>>& contains,
              i64& sub) {
  const i64 lo = m.box[d].lo, N = m.box[d].hi - m.box[d].lo + 1;
  if (m.space.pieces.size() != 1 || m.time.pieces.size() != 1 || members.empty()) return 1;
  for (int k : members)
    if (k < 0) return 1;
  const Piece& sp = m.space.pieces[0];
  const Piece& tp = m.time.pieces[0];
  if (!unconstrained(sp) || !unconstrained(tp)) return 1;
  auto d_terms = [&](const Piece& p, relation::Term::Kind kind, i64& S, std::vector<char>& dt) -> bool {
    const std::size_t nv = p.vars.size();
    dt.assign(p.terms.size(), 0);
    for (std::size_t k = 0; k < p.terms.size(); ++k) {
      const auto& t = p.terms[k];
      for (std::size_t i = nv; i < t.num.coeff.size(); ++i)
        if (t.num.coeff[i] != 0 && dt[i - nv]) return false;  // a term of a term of d
      if (!uses(t.num, d)) continue;
      if (t.kind != kind || !exact_var(t.num, d) || (S != 0 && t.den != S)) return false;
      S = t.den;
      dt[k] = 1;
    }
    for (const auto& o : p.out)
      if (uses(o, d)) return false;
    return true;
  };
  i64 S = 0;
  std::vector<char> sdt, tdt;
  if (!d_terms(sp, relation::Term::Kind::kMod, S, sdt) || S < 2) return 1;
  std::size_t q = sp.out.size();
  const std::size_t snv = sp.vars.size();
  for (std::size_t j = 0; j < sp.out.size(); ++j) {
    const Affine& o = sp.out[j];
    int dterms = 0;  // uses of d's terms: exactly one, with coefficient 1, alone in the coordinate
    bool other = o.constant != 0, unit = true;
    for (std::size_t i = 0; i < o.coeff.size(); ++i)
      if (o.coeff[i] != 0) {
        if (i >= snv && sdt[i - snv]) {
          ++dterms;
          unit = unit && o.coeff[i] == 1;
        } else {
          other = true;
        }
      }
    if (dterms > 0 && (dterms > 1 || !unit || other || q != sp.out.size())) return 1;
    if (dterms > 0) q = j;
  }
  if (q == sp.out.size()) return 1;
  if (!d_terms(tp, relation::Term::Kind::kFloor, S, tdt)) return 1;
  if (floor_mod(lo, S) != 0 || N % S != 0 || !row_invariant(m.icn, q)) return 1;
  for (int k : members) {
    int pos = -1;
    for (const Piece* p : m.tensors[static_cast<std::size_t>(k)].pieces) {
      for (const auto& t : p->terms)
        if (uses(t.num, d)) return 1;
      for (const auto& dj : p->disjuncts)
        for (const auto& c : dj)
          if (uses(c.expr, d)) return 1;
      int here = -1;
      for (std::size_t j = 0; j < p->out.size(); ++j) {
        if (!uses(p->out[j], d)) continue;
        if (here != -1 || !exact_var(p->out[j], d)) return 1;
        here = static_cast<int>(j);
      }
      if (here < 0 || (pos != -1 && pos != here)) return 1;
      pos = here;
    }
    if (pos < 0) return 1;
  }
  for (auto& c : contains) c[d] = 1;
  sub = 1;
  return S;
}

/// The stride of a free dimension d of a group (free_stride, then free_rows when `rows`), or 1.
i64 tile_stride(const Model& m, std::size_t d, const std::vector<const Piece*>& st, const std::vector<int>& members,
                std::vector<std::vector<char>>& contains, i64& sub, bool rows) {
  const i64 S = free_stride(m, d, st, members, contains, sub);
  return S > 1 || !rows ? S : free_rows(m, d, members, contains, sub);
}

void debug(const AnalyzeOptions& o, const std::string& line) {
  if (o.debug_log) {
    o.debug_log(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

std::string fmt_seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", s);
  return buf;
}

/// The engine's resource limits (AnalyzeOptions::max_work, time_limit_s):
/// charged before every brute-forced instance.
class Limits {
 public:
  explicit Limits(const AnalyzeOptions& o) : o_(o), start_(std::chrono::steady_clock::now()) {}
  void charge(i64 points, i64 accesses, bool enumerate) {
    const i64 w = points > INT64_MAX / std::max<i64>(accesses, 1) ? INT64_MAX : points * accesses;
    work_ = w > INT64_MAX - work_ ? INT64_MAX : work_ + w;
    ++instances_;
    if (!enumerate && work_ > o_.max_work)
      throw InputError("cannot count within the work budget: the small instances of this mapping need " +
                       (work_ == INT64_MAX ? std::string("more than 9.2e18") : std::to_string(work_)) +
                       " point-accesses (statement instances x (1 + access relations)) after " +
                       std::to_string(instances_) + " instances, over the limit of " + std::to_string(o_.max_work) +
                       " (large periods, many tensors or coupled dimensions); use a smaller tile, another dataflow, "
                       "or raise the work budget");
    check_time();
  }
  void check_time() const {
    if (o_.time_limit_s <= 0) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (el > o_.time_limit_s)
      throw InputError("the TENET engine exceeded its time limit of " + fmt_seconds(o_.time_limit_s) + " s (" +
                       fmt_seconds(el) + " s elapsed, " + std::to_string(instances_) +
                       " small instances counted); use a smaller tile, another dataflow, or raise the time limit "
                       "(--time-limit)");
  }
  [[nodiscard]] i64 work() const { return work_; }

 private:
  const AnalyzeOptions& o_;
  std::chrono::steady_clock::time_point start_;
  i64 work_ = 0;
  i64 instances_ = 0;
};

std::vector<i64> lcm_periods(const std::vector<const Piece*>& pieces, std::size_t nd);

/// A dimension whose only non-translation appearance in a group is floor(d/G) in the tensors' accesses
/// (docs/tenet-engine.md §3 "Large floor divisors").
struct ScaledDim {
  std::size_t d = 0;
  i64 G = 0, Ga = 0;  // the divisor and the smallest divisor sampled
};

/// The thread's brute-force buffers, shared by every Counter of the thread (brute_force is never re-entered).
detail::Workspace& thread_workspace() {
  thread_local detail::Workspace ws;
  return ws;
}

class Counter {
 public:
  /// `parametric`: the closed forms must hold for every larger extent of the
  /// compressed dimensions (up to kParametricMaxExtent), not only at m.box.
  /// `workspace`: brute_force's buffers shared with an enclosing counter (nullptr: this counter's own).
  Counter(const Model& m, const AnalyzeOptions& o, Limits& limits, bool parametric = false,
          detail::Workspace* workspace = nullptr)
      : m_(m),
        o_(o),
        enumerate_(o.enumerate),
        parametric_(parametric),
        limits_(limits),
        ws_(workspace != nullptr ? workspace : &thread_workspace()) {
    skew_.assign(m.nd, -1);
    if (!enumerate_ && o.skewed_time_windows)
      for (std::size_t d = 0; d < m.nd; ++d) skew_[d] = skew_distance(m, d, parametric ? huge_box(m.box) : m.box);
    if (o_.debug == DebugLevel::kCount)
      for (std::size_t d = 0; d < m.nd; ++d)
        if (skew_[d] >= 0)
          debug(o_, "skewed time dimension d" + std::to_string(d) + ": local distance " + std::to_string(skew_[d]));
  }
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  /// Exact counts of every group member.
  // NOLINTNEXTLINE(readability-function-size): exact counting of a group, kept whole with its invariants
  void solve(Group& g) {
    ScaledDim sdim;
    if (scaled_dim(g, sdim) && solve_scaled(g, sdim)) return;
    const std::size_t nd = m_.nd;
    std::vector<DimPlan> plan(nd);
    std::vector<i64> extra(nd, 0);
    // Pieces other than the time map's: their windows still apply to a skewed time dimension.
    std::vector<const Piece*> nontime;
    for (const Piece* p : g.pieces) {
      bool is_time = false;
      for (const Piece& tp : m_.time.pieces) is_time = is_time || p == &tp;
      if (!is_time) nontime.push_back(p);
    }
    // Outer block dimensions (docs §3 "Outer blocks"): affine from one whole block on.
    std::vector<char> block(nd, 0);
    std::vector<InnerBlock> inner(nd);  // inner block dimensions (docs §3 "Inner blocks")
    if (o_.outer_blocks && !enumerate_) {
      std::vector<std::vector<const Piece*>> tensors;
      for (int k : g.members)
        if (k >= 0) tensors.push_back(m_.tensors[static_cast<std::size_t>(k)].pieces);
      for (std::size_t d = 0; d < nd; ++d) block[d] = g.stride[d] == 1 && outer_block(m_, d, tensors, g.L[d]) > 0;
      if (o_.inner_blocks)
        for (std::size_t d = 0; d < nd; ++d)
          if (!block[d] && g.stride[d] == 1) {
            inner[d] = inner_block(m_, d, tensors, g.L[d]);
            block[d] = inner[d].L > 0;
          }
    }
    // Dimensions the time map sees after its first coordinate: they wrap around when an earlier coordinate steps.
    std::vector<char> wraps(nd, 0);
    for (std::size_t d = 0; d < nd && !enumerate_; ++d) wraps[d] = wraps_in_time(m_, d);
    // Fewest enumerated values of each dimension in any sampled instance: its true extent, or (compressed) at least
    // its base, which is >= min_base periods (outer blocks: min_base - 1, at least one).
    std::vector<i64> min_extent(nd, 0);
    for (std::size_t d = 0; d < nd; ++d) {
      const i64 S = g.stride[d], units = (m_.box[d].hi - m_.box[d].lo + 1) / S * g.sub[d];
      const i64 base = block[d] ? std::max<i64>(1, o_.min_base - 1) : o_.min_base;
      min_extent[d] = std::min(units, checked_mul(base, std::max<i64>(1, g.L[d] / S) * g.sub[d]));
    }
    bool refine = true;  // use the skewed-time windows (dropped if an instance's time domain has holes)
    for (int attempt = 0; attempt <= kMaxRetries; ++attempt) {
      std::vector<std::size_t> comp;
      std::vector<char> big(nd, 1), refined(nd, 0);
      std::vector<i64> Wd(nd, 1);
      // Plan the compressed dimensions (fixed point: windows depend on which
      // dimensions are big, coupling rules drop some).
      auto make_plan = [&](i64 slack) {
      big.assign(nd, 1);
      for (std::size_t iter = 0; iter < nd + 2; ++iter) {
      for (std::size_t d = 0; d < nd; ++d) {
        i64 cross = 1;
        for (int k : g.members)
          if (k >= 0) cross = std::max(cross, cross_window(m_.tensors[static_cast<std::size_t>(k)], d, m_.box, big));
        const i64 reach = constraint_reach(g.pieces, d, m_.box);
        Wd[d] = std::min<i64>(checked_add(std::max(window(g.pieces, d, m_.box, big), cross), reach), i64{1} << 20);
        if (wraps[d]) {
          // Wrap-around (docs §3 step 1): the first stamp of a time prefix follows the last stamp of the previous
          // prefix, relating instances on opposite faces of d (N - 1 apart); their elements must not meet.
          i64 wrap = 1;
          const auto changes = wrap_changes(m_, d, min_extent, g.stride, g.sub);
          for (int k : g.members)
            if (k >= 0)
              wrap = std::max(wrap, wrap_window(m_.tensors[static_cast<std::size_t>(k)], d, m_.box, big, changes));
          Wd[d] = std::min<i64>(std::max(Wd[d], checked_add(wrap, reach)), i64{1} << 20);
        }
        refined[d] = 0;
        if (refine && skew_[d] >= 0 && g.stride[d] == 1 && only_mod_terms(nontime, d)) {
          // Skewed time dimension (docs §3): the local relations reach skew_ away
          // (faces 2*skew_ + 1 apart); the first stamp of a prefix meets the last
          // stamp of the previous one (instances on opposite faces, N - 1 apart):
          // their elements must not meet, one more than the access windows.
          const i64 wr = std::max({checked_add(checked_mul(skew_[d], 2), 1),
                                   checked_add(window(nontime, d, m_.box, big), 1), checked_add(cross, 1)}) + reach;
          if (wr < Wd[d]) {
            Wd[d] = wr;
            refined[d] = 1;
          }
        }
      }
      for (std::size_t d = 0; d < nd; ++d) {
        DimPlan& dp = plan[d];
        const i64 S = g.stride[d];
        const i64 N = (m_.box[d].hi - m_.box[d].lo + 1) / S;  // in units of the stride
        dp.L = std::max<i64>(1, g.L[d] / S);
        dp.r = N % dp.L;
        dp.n_true = N / dp.L;
        const i64 W = (Wd[d] + S - 1) / S;
        // An outer block dimension needs no window (docs §3 "Outer blocks": affine from one block on, whatever
        // its d % m terms are combined with); the others need theirs.
        dp.n0 = (block[d] ? std::max<i64>(1, o_.min_base - 1) : std::max<i64>(o_.min_base, (W + dp.L - 1) / dp.L)) +
                extra[d];
        dp.compress = big[d] && !enumerate_ && m_.is_box && dp.n_true >= dp.n0 + slack;
      }
      decouple(g, plan);
      std::vector<char> nbig(nd, 0);
      for (std::size_t d = 0; d < nd; ++d) nbig[d] = plan[d].compress;
      if (nbig == big) break;
      big = nbig;
      }
      };
      // A big dimension whose true size is only n0, n0 + 1 or n0 + 2 periods is
      // not worth interpolating. Plan A (slack 3) keeps it at its true size and
      // not big: the other dimensions' windows see its whole range. Plan B
      // (slack 0) runs it at its true size in every instance but keeps it big
      // ("virtual"): that size is one of the sizes the multilinear argument
      // covers (n >= n0), so the windows and couplings of the others are those
      // of a compression sampled at the true size. Both are exact; the plan
      // with fewer brute-forced points is used (docs §3 "Virtual dimensions").
      std::vector<char> virt(nd, 0);
      auto plan_cost = [&]() {  // points of the 2^dc base instances and the dc (+1) checks
        double kept = 1;
        std::vector<double> s0, s1, s2;
        for (std::size_t d = 0; d < nd; ++d) {
          const DimPlan& dp = plan[d];
          if (!dp.compress) {
            kept *= static_cast<double>(m_.box[d].hi - m_.box[d].lo + 1) / static_cast<double>(g.stride[d]);
            continue;
          }
          for (i64 b = 0; b < 3; ++b) (b == 0 ? s0 : b == 1 ? s1 : s2).push_back(static_cast<double>(dp.r + (dp.n0 + b) * dp.L));
        }
        double base = kept, all0 = kept, all2 = kept;
        for (std::size_t j = 0; j < s0.size(); ++j) {
          base *= s0[j] + s1[j];
          all0 *= s0[j];
          all2 *= s2[j];
        }
        double cost = base;
        for (std::size_t j = 0; j < s0.size(); ++j) cost += all0 / s0[j] * s2[j];
        if (s0.size() > 1) cost += all2;
        return cost;
      };
      make_plan(parametric_ ? 0 : 3);  // parametric: every big dimension is compressed (the form covers n >= n0)
      bool candidate = false;  // plan B can only differ through such a dimension
      for (std::size_t d = 0; d < nd; ++d)
        candidate = candidate || (!plan[d].compress && plan[d].n_true >= plan[d].n0 && plan[d].n_true < plan[d].n0 + 3);
      if (candidate && !parametric_ && !enumerate_ && m_.is_box && o_.virtual_plan != VirtualPlan::kNever) {
        const auto pa = plan;
        const auto wa = Wd;
        const auto ra = refined;
        const double ca = plan_cost();
        make_plan(0);
        for (std::size_t d = 0; d < nd; ++d)
          if (plan[d].compress && plan[d].n_true < plan[d].n0 + 3) {
            plan[d].compress = false;
            virt[d] = 1;
          }
        bool any_virt = false;
        for (std::size_t d = 0; d < nd; ++d) any_virt = any_virt || virt[d];
        // VirtualPlan::kForce (tests): prefer plan B whenever it has a virtual dimension.
        const bool force = any_virt && o_.virtual_plan == VirtualPlan::kForce;
        if (!force && !(plan_cost() < ca)) {
          plan = pa;
          Wd = wa;
          refined = ra;
          std::fill(virt.begin(), virt.end(), 0);
        }
      }
      if (!inner_witnessed(plan, virt, g, inner, block)) {  // an inner block lost its witness: plan again
        --attempt;
        continue;
      }
      for (std::size_t d = 0; d < nd; ++d)
        if (plan[d].compress) comp.push_back(d);
      const std::size_t dc = comp.size();
      if (o_.debug == DebugLevel::kCount) {
        std::string line = "group attempt " + std::to_string(attempt) + (refine ? ":" : " (no skew):");
        for (std::size_t d = 0; d < nd; ++d)
          line += " d" + std::to_string(d) + "[L=" + std::to_string(plan[d].L) + " W=" + std::to_string(Wd[d]) +
                  " r=" + std::to_string(plan[d].r) + " n=" + std::to_string(plan[d].n_true) +
                  " n0=" + std::to_string(plan[d].n0) +
                  (inner[d].L > 0 ? " inner block"
                   : block[d]     ? " block"
                                  : "") +
                  (plan[d].compress ? (refined[d] ? " C skew" : " C")
                   : virt[d]        ? (refined[d] ? " V skew" : " V")
                                    : "") +
                  "]";
        for (std::size_t d = 0; d < nd; ++d)
          if (g.stride[d] > 1)
            line += " free d" + std::to_string(d) + "/" + std::to_string(g.stride[d]) + "(" + std::to_string(g.sub[d]) +
                    ")";
        debug(o_, line);
      }
      if (dc > 12) throw InputError(m_.domain.loc, "too many dimensions to count (" + std::to_string(dc) + " > 12)");
      const std::size_t nb = std::size_t{1} << dc;
      bool uses_skew = false;
      for (std::size_t d = 0; d < nd; ++d) uses_skew = uses_skew || ((plan[d].compress || virt[d]) && refined[d]);
      dense_ = true;
      std::vector<std::vector<i64>> f(nb);
      auto sizes_for = [&](const std::vector<i64>& b) {
        std::vector<Interval> box(m_.box);
        for (std::size_t j = 0; j < dc; ++j) {
          const DimPlan& dp = plan[comp[j]];
          const i64 S = g.stride[comp[j]];
          box[comp[j]].hi = box[comp[j]].lo + (dp.r + (dp.n0 + b[j]) * dp.L) * S - 1;
        }
        return box;
      };
      for (std::size_t mask = 0; mask < nb; ++mask) {
        std::vector<i64> b(dc);
        for (std::size_t j = 0; j < dc; ++j) b[j] = (mask >> j) & 1;
        f[mask] = run(g, sizes_for(b));
      }
      auto record = [&](const std::vector<std::vector<i128>>& coef) {
        ClosedForm& cf = g.form;
        cf.dims.assign(nd, {});
        for (std::size_t d = 0; d < nd; ++d) {
          auto& x = cf.dims[d];
          x.compress = plan[d].compress;
          x.S = g.stride[d];
          x.L = plan[d].L;
          x.r = plan[d].r;
          x.n0 = plan[d].n0;
          x.N = m_.box[d].hi - m_.box[d].lo + 1;
        }
        cf.comp = comp;
        cf.nv = coef.empty() ? 0 : coef[0].size();
        cf.coef.clear();
        for (const auto& row : coef) cf.coef.insert(cf.coef.end(), row.begin(), row.end());
      };
      if (dc == 0) {
        g.result = f[0];
        record({std::vector<i128>(f[0].begin(), f[0].end())});
        return;
      }
      // Moebius transform: coefficients of the multilinear polynomial in (n - n0).
      const std::size_t nv = f[0].size();
      std::vector<std::vector<i128>> c(nb, std::vector<i128>(nv));
      for (std::size_t mask = 0; mask < nb; ++mask)
        for (std::size_t v = 0; v < nv; ++v) c[mask][v] = f[mask][v];
      for (std::size_t j = 0; j < dc; ++j)
        for (std::size_t mask = 0; mask < nb; ++mask)
          if (mask & (std::size_t{1} << j))
            for (std::size_t v = 0; v < nv; ++v) c[mask][v] -= c[mask ^ (std::size_t{1} << j)][v];
      auto eval = [&](const std::vector<i64>& delta) {
        std::vector<i128> val(nv, 0);
        for (std::size_t mask = 0; mask < nb; ++mask) {
          i128 prod = 1;
          for (std::size_t j = 0; j < dc; ++j)
            if (mask & (std::size_t{1} << j)) prod = mul128(prod, delta[j]);
          for (std::size_t v = 0; v < nv; ++v) val[v] = add128(val[v], mul128(c[mask][v], prod));
        }
        return val;
      };
      // Self-check on more brute-forced instances: n0 + 2 in each compressed
      // dimension alone, and in all of them at once when that instance is small.
      bool ok = true;
      auto check = [&](const std::vector<i64>& b) {
        const auto predicted = eval(b);
        const auto actual = run(g, sizes_for(b));
        for (std::size_t v = 0; v < nv; ++v) ok = ok && predicted[v] == static_cast<i128>(actual[v]);
      };
      for (std::size_t j = 0; j < dc && ok; ++j) {
        std::vector<i64> b(dc, 0);
        b[j] = 2;
        check(b);
      }
      std::vector<i64> two(dc, 2);
      if (ok && dc > 1) check(two);
      if (uses_skew && !dense_) {
        // The skewed-time windows assume a time domain without holes in its last
        // coordinate (checked on every instance): redo with the general windows.
        refine = false;
        std::fill(extra.begin(), extra.end(), 0);
        attempt = -1;
        continue;
      }
      if (ok) {
        std::vector<i64> delta(dc);
        for (std::size_t j = 0; j < dc; ++j) delta[j] = plan[comp[j]].n_true - plan[comp[j]].n0;
        const auto val = eval(delta);
        g.result.resize(nv);
        for (std::size_t v = 0; v < nv; ++v) {
          if (val[v] < 0) throw InputError(m_.domain.loc, "cannot count exactly: the interpolated count is negative (the counts are not multilinear in the loop sizes for this mapping); use --enumerate for small problems");
          g.result[v] = checked_narrow(val[v], "count");
        }
        record(c);
        return;
      }
      ++retries_;
      if (o_.debug != DebugLevel::kNone)
        debug(o_,
              "self-check failed (attempt " + std::to_string(attempt) + (uses_skew ? ", skewed-time windows)" : ")"));
      for (std::size_t j = 0; j < dc; ++j) extra[comp[j]] += std::max<i64>(1, plan[comp[j]].n0 / 2);  // grow the base
      for (std::size_t d = 0; d < nd; ++d)
        if (virt[d]) extra[d] += std::max<i64>(1, plan[d].n0 / 2);  // virtual dimensions too (may stop being big)
    }
    throw InputError(m_.domain.loc,
                     "cannot count exactly: the counts are not multilinear in the loop sizes for this mapping "
                     "(self-check failed after " + std::to_string(kMaxRetries) +
                         " retries); use --enumerate for a brute-force evaluation of small problems");
  }

  /// Two compressed dimensions in one coordinate or constraint (e.g. T[i+j],
  /// A[i+k], i <= j) make counts piecewise (chambers), not multilinear: keep all
  /// but the largest of them at their true size. Periodic terms (e % c) do not couple.
  void decouple(const Group& g, std::vector<DimPlan>& plan) const {
    for (bool changed = true; changed;) {
      changed = false;
      for (const Piece* p : g.pieces) {
        const std::size_t nv = p->vars.size();
        std::vector<std::vector<std::size_t>> term_large(p->terms.size());
        auto large = [&](const Affine& a) {
          std::vector<std::size_t> out;
          for (std::size_t i = 0; i < a.coeff.size(); ++i) {
            if (a.coeff[i] == 0) continue;
            if (i < nv) {
              if (plan[i].compress) out.push_back(i);
            } else {
              const auto& tl = term_large[i - nv];
              out.insert(out.end(), tl.begin(), tl.end());
            }
          }
          std::sort(out.begin(), out.end());
          out.erase(std::unique(out.begin(), out.end()), out.end());
          return out;
        };
        auto settle = [&](const std::vector<std::size_t>& dims) {
          if (dims.size() < 2) return;
          std::size_t keep = dims[0];
          for (std::size_t d : dims)
            if (m_.box[d].hi - m_.box[d].lo > m_.box[keep].hi - m_.box[keep].lo) keep = d;
          for (std::size_t d : dims)
            if (d != keep && plan[d].compress) {
              plan[d].compress = false;
              changed = true;
            }
        };
        for (std::size_t k = 0; k < p->terms.size(); ++k) {
          const auto l = large(p->terms[k].num);
          if (p->terms[k].kind == relation::Term::Kind::kFloor) {
            settle(l);
            term_large[k] = l;
          }
        }
        for (const auto& o : p->out) settle(large(o));
        for (const auto& dj : p->disjuncts)
          for (const auto& c : dj) settle(large(c.expr));
      }
      // A tensor accessed by several pieces: elements of different pieces can
      // coincide, so coordinate j must depend on the compressed dimensions in
      // the same way in every piece (e.g. A[i-1,j], A[i,j], A[i+1,j]); otherwise
      // the ranges of one piece cut the other's (breakpoints): keep them all.
      for (int k : g.members) {
        if (k < 0) continue;
        const auto& td = m_.tensors[static_cast<std::size_t>(k)];
        if (td.pieces.size() < 2) continue;
        for (std::size_t j = 0; j < td.arity; ++j) {
          std::vector<std::string> sig;
          std::vector<std::size_t> involved;
          for (const Piece* p : td.pieces) {
            const std::size_t nv = p->vars.size();
            std::string sgn;
            const auto& o = p->out[j];
            for (std::size_t i = 0; i < o.coeff.size(); ++i) {
              if (o.coeff[i] == 0) continue;
              if (i < nv) {
                if (plan[i].compress) {
                  sgn += "v" + std::to_string(i) + "*" + std::to_string(o.coeff[i]) + ";";
                  involved.push_back(i);
                }
              } else {
                const auto& t = p->terms[i - nv];
                std::string inner;
                for (std::size_t q = 0; q < t.num.coeff.size() && q < nv; ++q)
                  if (t.num.coeff[q] != 0 && plan[q].compress) {
                    inner += std::to_string(q) + "*" + std::to_string(t.num.coeff[q]) + ",";
                    involved.push_back(q);
                  }
                if (!inner.empty())
                  sgn += std::string(t.kind == relation::Term::Kind::kFloor ? "f" : "m") + std::to_string(t.den) + "(" +
                         inner + ")*" + std::to_string(o.coeff[i]) + ";";
              }
            }
            sig.push_back(sgn);
          }
          bool same = true;
          for (const auto& x : sig) same = same && x == sig[0];
          if (!same)
            for (std::size_t d : involved)
              if (plan[d].compress) {
                plan[d].compress = false;
                changed = true;
              }
        }
      }
    }
  }

  /// An inner block dimension d with N_d a whole number of blocks needs, for every tensor carrying it, a witness e
  /// with N_e > ce on the whole region the plan claims (docs §3 "Inner blocks"). Clears block[d] (and returns
  /// false) for the first d without one.
  bool inner_witnessed(const std::vector<DimPlan>& plan, const std::vector<char>& virt, const Group& g,
                       std::vector<InnerBlock>& inner, std::vector<char>& block) const {
    for (std::size_t d = 0; d < m_.nd; ++d) {
      if (inner[d].L == 0 || plan[d].r != 0) continue;
      bool all = true;
      for (const auto& need : inner[d].need) {
        bool any = false;
        for (const auto& [e, ce] : need) {
          const DimPlan& pe = plan[e];
          const i64 least = pe.compress || virt[e]
                                ? checked_mul(g.stride[e], checked_add(pe.r, checked_mul(pe.n0, pe.L)))
                                : m_.box[e].hi - m_.box[e].lo + 1;
          any = any || ce < 0 || least > ce;  // ce < 0: a skew witness
        }
        all = all && any;
      }
      if (all) continue;
      inner[d] = InnerBlock{};
      block[d] = 0;
      return false;
    }
    return true;
  }

  int retries() const { return retries_; }
  std::size_t instances() const { return cache_.size() + extra_instances_; }
  /// Every instance this counter brute-forced had a hole-free time domain (see Counts::time_dense).
  bool all_dense() const { return all_dense_; }

  /// Large floor divisors (docs/tenet-engine.md §3): a dimension d qualifies in group g when it is a skewed
  /// time dimension (local distance delta = skew_[d] >= 0), starts at 0, appears in no term of the space and
  /// time maps, and in the group's tensor accesses only inside floor(d/G) (one G; outputs, other terms and
  /// constraints see d only through that term; constraints not at all). Then every count, for a fixed number
  /// of whole blocks q = N / G and remainder r = N % G, is affine in G once G >= 2 delta + 2 and G > r.
  /// Only worth it when the sampled divisors are much smaller than G.
  bool scaled_dim(const Group& g, ScaledDim& out) const {
    if (enumerate_ || !m_.is_box || !o_.scaled_divisors || m_.nd > kMaxScaledDims) return false;
    bool any_tensor = false;
    for (int k : g.members) any_tensor = any_tensor || k >= 0;
    if (!any_tensor) return false;
    bool found = false;
    for (std::size_t d = 0; d < m_.nd; ++d) {
      if (skew_[d] < 0 || m_.box[d].lo != 0 || g.stride[d] != 1) continue;
      i64 G = 0;
      bool ok = true;
      for (const Piece* p : g.pieces) {
        if (!ok) break;
        const bool st = is_space_time(p);
        const std::size_t nv = p->vars.size();
        std::vector<char> dep(p->terms.size(), 0);  // term t depends on d
        auto uses_d = [&](const Affine& a) {
          if (uses(a, d)) return true;
          for (std::size_t q = nv; q < a.coeff.size(); ++q)
            if (a.coeff[q] != 0 && dep[q - nv]) return true;
          return false;
        };
        for (std::size_t t = 0; t < p->terms.size() && ok; ++t) {
          const relation::Term& term = p->terms[t];
          if (uses(term.num, d)) {
            if (st || term.kind != relation::Term::Kind::kFloor || !exact_var(term.num, d) || (G != 0 && G != term.den))
              ok = false;
            G = term.den;
            dep[t] = 1;
          } else {
            dep[t] = static_cast<char>(uses_d(term.num));
          }
        }
        if (!st)
          for (const auto& o : p->out) ok = ok && !uses(o, d);  // d only through the floor term
        for (const auto& dj : p->disjuncts)
          for (const auto& c : dj) ok = ok && !uses_d(c.expr);
      }
      if (!ok || G == 0) continue;
      const i64 N = m_.box[d].hi + 1, q = N / G, r = N % G;
      const i64 Ga = std::max(checked_add(checked_mul(skew_[d], 2), 3), r + 1);
      if (q < 1 || G < 2 * (Ga + 2)) continue;  // not worth it: the sampled divisors must be much smaller
      if (!found || G > out.G) out = ScaledDim{d, G, Ga};
      found = true;
    }
    return found;
  }

  /// Counts of g at divisors Ga and Ga + 1 (the interpolation), each an ordinary exact count of the problem with
  /// floor(d/G) replaced by floor(d/G') and N_d = q G' + r; the value at G by the affine formula. Self-check: one
  /// small instance (the smallest extents both closed forms cover, same remainder r) brute-forced at divisors
  /// Ga + 2 and 2 Ga + 1 must lie on the line through the two forms' values there. False (the caller counts as
  /// usual) when a check fails.
  // NOLINTNEXTLINE(readability-function-size): the interpolation and its self-check, kept together
  bool solve_scaled(Group& g, const ScaledDim& s) {
    const std::size_t nd = m_.nd;
    const i64 q = (m_.box[s.d].hi + 1) / s.G, r = (m_.box[s.d].hi + 1) % s.G;
    // The problem with divisor Gp: a copy of the model whose group pieces (and the tensors' pointers to them)
    // point into the copy, with floor(d/G) replaced by floor(d/Gp), extents ext and N_d = qq Gp + r.
    struct Scaled {
      Model m;
      Group g;
    };
    auto build = [&](i64 Gp, i64 qq, const std::vector<i64>& ext) {
      auto sc = std::make_unique<Scaled>(Scaled{m_, Group{}});
      Model& m2 = sc->m;
      auto remap = [&](const Piece* p) -> Piece* {
        auto find = [&](const relation::Relation& a, relation::Relation& b) -> Piece* {
          for (std::size_t i = 0; i < a.pieces.size(); ++i)
            if (&a.pieces[i] == p) return &b.pieces[i];
          return nullptr;
        };
        Piece* x = find(m_.space, m2.space);
        if (x == nullptr) x = find(m_.time, m2.time);
        for (std::size_t i = 0; x == nullptr && i < m_.access_rels.size(); ++i)
          x = find(m_.access_rels[i], m2.access_rels[i]);
        if (x == nullptr) throw InternalError("tenet: a piece of a count group is not in the model");
        return x;
      };
      for (auto& td : m2.tensors)
        for (auto& p : td.pieces) p = remap(p);
      Group& g2 = sc->g;
      g2.members = g.members;
      for (const Piece* p : g.pieces) {
        Piece* x = remap(p);
        if (!is_space_time(p))
          for (auto& t : x->terms)
            if (t.kind == relation::Term::Kind::kFloor && exact_var(t.num, s.d) && t.den == s.G) t.den = Gp;
        g2.pieces.push_back(x);
      }
      for (std::size_t d = 0; d < nd; ++d) m2.box[d].hi = m2.box[d].lo + ext[d] - 1;
      m2.box[s.d].hi = checked_add(checked_mul(qq, Gp), r) - 1;
      g2.L = lcm_periods(g2.pieces, nd);
      g2.W.assign(nd, 1);
      g2.stride.assign(nd, 1);
      g2.sub.assign(nd, 1);
      g2.contains.assign(g2.members.size(), std::vector<char>(nd, 0));
      std::vector<const Piece*> st2;
      for (const Piece& p : m2.space.pieces) st2.push_back(&p);
      for (const Piece& p : m2.time.pieces) st2.push_back(&p);
      for (std::size_t d = 0; d < nd; ++d)
        g2.stride[d] = tile_stride(m2, d, st2, g2.members, g2.contains, g2.sub[d], o_.free_rows);
      return sc;
    };
    std::vector<i64> ext(nd);
    for (std::size_t d = 0; d < nd; ++d) ext[d] = m_.box[d].hi - m_.box[d].lo + 1;
    std::vector<std::vector<i64>> res;
    ClosedForm line;  // the result's closed form: the line through the two inner forms
    line.dims.assign(nd, {});
    line.sd = s.d;
    line.G = s.G;
    line.Ga = s.Ga;
    bool dense = true;
    for (const i64 Gp : {s.Ga, s.Ga + 1}) {
      auto sc = build(Gp, q, ext);
      Counter inner(sc->m, o_, limits_, parametric_, ws_);
      inner.solve(sc->g);
      retries_ += inner.retries();
      extra_instances_ += inner.instances();
      dense = dense && inner.all_dense();
      res.push_back(sc->g.result);
      line.inner.push_back(std::move(sc->g.form));
    }
    // The check instance: the smallest extents (the compressed dimensions' bases, the fewest whole groups along
    // d) that both forms cover; the true extents always qualify.
    std::vector<i64> chk = ext;
    for (std::size_t d = 0; d < nd; ++d) {
      const auto& a = line.inner[0].dims[d];
      const auto& b = line.inner[1].dims[d];
      if (d == s.d || !a.compress || !b.compress || a.S != b.S || a.L != b.L || a.r != b.r) continue;
      const i64 small = a.S * (a.r + std::max(a.n0, b.n0) * a.L);
      if (small < chk[d]) {
        const i64 keep = chk[d];
        chk[d] = small;
        if (!line.matches(chk.data())) chk[d] = keep;
      }
    }
    i64 qc = q;
    for (i64 qq = 1; qq < q; ++qq) {
      chk[s.d] = qq * s.G + r;
      if (line.matches(chk.data())) {
        qc = qq;
        break;
      }
    }
    chk[s.d] = qc * s.G + r;
    if (!line.matches(chk.data())) throw InternalError("tenet: the scaled closed forms do not cover their extents");
    std::vector<std::vector<i64>> checks;
    for (const i64 Gc : {s.Ga + 2, 2 * s.Ga + 1}) {
      auto sc = build(Gc, qc, chk);
      Counter inner(sc->m, o_, limits_, parametric_, ws_);
      checks.push_back(inner.run(sc->g, sc->m.box));
      extra_instances_ += inner.instances();
      dense = dense && inner.all_dense();
    }
    const std::size_t nv = res[0].size();
    bool ok = dense && checks[0].size() == nv && checks[1].size() == nv;
    std::vector<i64> val(nv);
    for (std::size_t v = 0; v < nv && ok; ++v) {
      const i128 a = res[0][v], step = static_cast<i128>(res[1][v]) - a;
      const i128 x = add128(a, mul128(step, s.G - s.Ga));
      ok = ok && x >= 0;
      if (ok) val[v] = checked_narrow(x, "count");
      // The check instance: the line through the two forms' values there, at Ga + 2 and 2 Ga + 1.
      std::array<i64, kMaxScaledDims> buf{};
      const i128 ca = line.inner[0].value(line.substituted(chk.data(), s.Ga, buf.data()), v);
      const i128 cb = line.inner[1].value(line.substituted(chk.data(), s.Ga + 1, buf.data()), v);
      ok = ok && static_cast<i128>(checks[0][v]) == ca + 2 * (cb - ca) &&
           static_cast<i128>(checks[1][v]) == ca + (s.Ga + 1) * (cb - ca);
    }
    if (o_.debug == DebugLevel::kCount || (!ok && o_.debug != DebugLevel::kNone))
      debug(o_, "group: floor divisor " + std::to_string(s.G) + " of d" + std::to_string(s.d) + " sampled at " +
                    std::to_string(s.Ga) + ".." + std::to_string(s.Ga + 2) + ", " + std::to_string(2 * s.Ga + 1) +
                    (ok      ? ": affine"
                     : dense ? ": not affine, counting as usual"
                             : ": time domain with holes, counting as usual"));
    if (!ok) return false;
    g.result = std::move(val);
    line.nv = nv;
    g.form = std::move(line);
    return true;
  }

 private:
  std::vector<i64> run(const Group& g, const std::vector<Interval>& box) {
    std::vector<i64> key;
    for (const auto& b : box) key.push_back(b.hi);
    key.insert(key.end(), g.stride.begin(), g.stride.end());
    key.insert(key.end(), g.sub.begin(), g.sub.end());
    std::vector<char> want(m_.tensors.size(), 0);
    for (int k : g.members)
      if (k >= 0) want[static_cast<std::size_t>(k)] = 1;
    auto it = cache_.find(key);
    bool have = it != cache_.end();
    if (have)
      for (std::size_t k = 0; k < want.size(); ++k)
        if (want[k] && !it->second.second[k]) have = false;
    if (!have) {
      const i64 limit = enumerate_ ? kMaxEnumeratePoints : o_.max_instance_points;
      i64 pts = 1;
      for (std::size_t d = 0; d < box.size(); ++d)
        pts = checked_mul(pts, (box[d].hi - box[d].lo) / g.stride[d] + 1, "instance size");
      i64 accesses = 1;  // the space/time maps, then every access piece of the wanted tensors
      for (std::size_t k = 0; k < want.size(); ++k)
        if (want[k]) accesses += static_cast<i64>(m_.tensors[k].pieces.size());
      limits_.charge(pts, accesses, enumerate_);
      Counts c = detail::brute_force(m_, box, want, limit, g.stride, g.sub, ws_);
      if (it != cache_.end()) {
        for (std::size_t k = 0; k < want.size(); ++k)
          if (want[k]) {
            it->second.first.tensors[k] = c.tensors[k];
            it->second.second[k] = 1;
          }
      } else {
        it = cache_.emplace(key, std::make_pair(std::move(c), want)).first;
      }
    }
    dense_ = dense_ && it->second.first.time_dense;
    all_dense_ = all_dense_ && it->second.first.time_dense;
    std::vector<i64> out;
    for (std::size_t i = 0; i < g.members.size(); ++i) {
      const int k = g.members[i];
      auto v = flatten(it->second.first, k);
      if (k >= 0) {
        // Scale one residue back to all: TV counts every instance; unique counts
        // multiply only when the elements carry the residue (otherwise duplicates).
        for (std::size_t d = 0; d < m_.nd; ++d) {
          if (g.stride[d] == 1) continue;
          const i64 S = g.stride[d] / g.sub[d];  // invisible residues per tile
          v[0] = checked_mul(v[0], S, "total volume");
          if (g.contains[i][d])
            for (std::size_t j = 1; j < 4; ++j) v[j] = checked_mul(v[j], S, "unique volume");
        }
      }
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }

  const Model& m_;
  const AnalyzeOptions& o_;
  bool enumerate_;
  bool parametric_;
  /// A piece of the space or time map (not of an access relation).
  bool is_space_time(const Piece* p) const {
    for (const Piece& x : m_.space.pieces)
      if (&x == p) return true;
    for (const Piece& x : m_.time.pieces)
      if (&x == p) return true;
    return false;
  }

  Limits& limits_;
  int retries_ = 0;
  bool dense_ = true;          // every instance run since the last reset had a hole-free time domain
  bool all_dense_ = true;      // every instance run had a hole-free time domain
  std::size_t extra_instances_ = 0;  // instances brute-forced by inner counters (large floor divisors)
  std::vector<i64> skew_;      // skew_distance() of each dimension (-1: not a skewed time dimension)
  std::map<std::vector<i64>, std::pair<Counts, std::vector<char>>> cache_;
  // brute_force's buffers: the thread's (scratch of one brute_force call, which never runs another: every count of
  // the thread reuses them, saving the allocation and first-touch page faults of each new count), or an enclosing
  // counter's (the inner counts of solve_scaled)
  detail::Workspace* ws_;
};

std::vector<i64> lcm_periods(const std::vector<const Piece*>& pieces, std::size_t nd) {
  std::vector<i64> L(nd, 1);
  for (const Piece* p : pieces) {
    const auto per = relation::periods(*p);
    for (std::size_t d = 0; d < nd; ++d) L[d] = checked_mul(L[d] / std::gcd(L[d], per[d]), per[d], "period");
  }
  return L;
}

i64 energy_step(i64 e, double mult, i64 v) {
  const double r = static_cast<double>(e) + mult * static_cast<double>(v);
  if (!(r < 9.2e18 && r > -9.2e18)) throw_overflow("energy");
  return static_cast<i64>(r);  // truncation toward zero, like TENET's int conversion
}

/// floor(U * bits / bandwidth) + avg_latency - 1, exact (128-bit) and checked.
i64 delay(i64 unique, const PEArraySpec& pe, i64 bits) {
  if (pe.bandwidth == 0) throw InputError("bandwidth must be positive, found 0");
  const i128 q = static_cast<i128>(checked_mul(unique, bits, "delay")) / static_cast<i128>(pe.bandwidth);
  return checked_narrow(q + static_cast<i128>(pe.avg_latency) - 1,
                        "delay (data volume x bits / bandwidth + average latency - 1)");
}

void check_options(const AnalyzeOptions& options) {
  if (options.min_base < 1)
    throw InputError("AnalyzeOptions::min_base must be at least 1, found " + std::to_string(options.min_base));
  if (options.max_instance_points < 1 || options.max_work < 1)
    throw InputError("the engine's point limits (max_instance_points, max_work) must be positive");
  if (!(options.time_limit_s <= 1e9)) throw InputError("the engine's time limit must be a finite number of seconds");
  if (options.bits_per_item <= 0) throw InputError("bits per item must be positive");
}

/// The small instances only see part of the domain: check on the whole box that
/// the space map cannot leave the PE domain (interval bounds; exact for the usual
/// forms i % P, floor(i / P) % P, r + P * floor(i / Q) ...). Returns false
/// instead of throwing when `report` is null.
bool check_space_in_pe(const Model& m, const std::vector<Interval>& box, const SourceLocation* report) {
  if (m.pedom.pieces.size() != 1) return true;
  std::vector<Interval> pe_box;
  if (!relation::as_box(m.pedom.pieces[0], pe_box)) return true;
  for (const Piece& p : m.space.pieces) {
    const auto cols = relation::column_bounds(p, box);
    for (std::size_t j = 0; j < m.ns; ++j) {
      const Interval b = relation::bounds(p.out[j], cols);
      if (b.lo < pe_box[j].lo || b.hi > pe_box[j].hi) {
        if (report == nullptr) return false;
        throw InputError(*report, "the space map can place statement instances outside the PE domain: PE coordinate " +
                                      std::to_string(j) + " ranges over [" + std::to_string(b.lo) + ", " +
                                      std::to_string(b.hi) + "] but the PE domain allows [" +
                                      std::to_string(pe_box[j].lo) + ", " + std::to_string(pe_box[j].hi) + "]");
      }
    }
  }
  return true;
}

/// Groups of counts sharing the relations they depend on (merged when periods agree).
std::vector<Group> make_groups(const Model& m, bool enumerate) {
  std::vector<const Piece*> st_pieces;
  for (const Piece& p : m.space.pieces) st_pieces.push_back(&p);
  for (const Piece& p : m.time.pieces) st_pieces.push_back(&p);
  std::vector<Group> groups;
  auto add_group = [&](int member, std::vector<const Piece*> pieces) {
    std::vector<i64> L = lcm_periods(pieces, m.nd), W(m.nd, 1);  // W: computed in Counter::solve
    for (Group& g : groups)
      if (enumerate || g.L == L) {
        g.members.push_back(member);
        for (const Piece* p : pieces)
          if (std::find(g.pieces.begin(), g.pieces.end(), p) == g.pieces.end()) g.pieces.push_back(p);
        return;
      }
    groups.push_back(Group{{member}, pieces, L, W, {}, {}, {}, {}, {}});
  };
  add_group(-1, st_pieces);
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    auto pieces = st_pieces;
    pieces.insert(pieces.end(), m.tensors[k].pieces.begin(), m.tensors[k].pieces.end());
    add_group(static_cast<int>(k), pieces);
  }
  return groups;
}

/// Split each group by its members' free tile strides on m.box (analyze() only: the strides depend on the box,
/// and a parametric problem's groups must not). A member whose dimension d is a free tile dimension on its own
/// (free_stride) is counted in a group of members with the same strides, so one tensor that needs d whole
/// (AlexNet's I[n, c, 4 ox + rx, 4 oy + ry] needs rx, which no map sees) no longer makes the others (W, O and the
/// space/time counts) enumerate every value of d. Each group is counted exactly on its own (docs §3 step 3);
/// grouping only shares the space/time work of one brute-forced instance.
void split_by_strides(const Model& m, std::vector<Group>& groups) {
  if (!m.is_box) return;
  std::vector<const Piece*> st_pieces;
  for (const Piece& p : m.space.pieces) st_pieces.push_back(&p);
  for (const Piece& p : m.time.pieces) st_pieces.push_back(&p);
  std::vector<Group> out;
  for (Group& g : groups) {
    std::vector<std::vector<i64>> sigs;   // stride and sub of every dimension, one per part
    std::vector<std::vector<int>> parts;  // the members of each part, in the group's order
    for (int k : g.members) {
      std::vector<std::vector<char>> contains(1, std::vector<char>(m.nd, 0));
      std::vector<i64> sig;
      for (std::size_t d = 0; d < m.nd; ++d) {
        i64 sub = 1;
        sig.push_back(free_stride(m, d, st_pieces, {k}, contains, sub));
        sig.push_back(sub);
      }
      const auto it = std::find(sigs.begin(), sigs.end(), sig);
      if (it == sigs.end()) {
        sigs.push_back(sig);
        parts.push_back({k});
      } else {
        parts[static_cast<std::size_t>(it - sigs.begin())].push_back(k);
      }
    }
    if (parts.size() == 1) {
      out.push_back(std::move(g));
      continue;
    }
    for (const auto& members : parts) {
      std::vector<const Piece*> pieces = st_pieces;
      for (int k : members)
        if (k >= 0)
          for (const Piece* p : m.tensors[static_cast<std::size_t>(k)].pieces)
            if (std::find(pieces.begin(), pieces.end(), p) == pieces.end()) pieces.push_back(p);
      out.push_back(Group{members, pieces, g.L, g.W, {}, {}, {}, {}, {}});
    }
  }
  groups = std::move(out);
}

/// Solve every group on m.box (strides from m.box): the closed forms end up in the groups.
void solve_groups(const Model& m, std::vector<Group>& groups, const AnalyzeOptions& options, Counter& counter) {
  std::vector<const Piece*> st_pieces;
  for (const Piece& p : m.space.pieces) st_pieces.push_back(&p);
  for (const Piece& p : m.time.pieces) st_pieces.push_back(&p);
  for (Group& g : groups) {
    g.stride.assign(m.nd, 1);
    g.sub.assign(m.nd, 1);
    g.contains.assign(g.members.size(), std::vector<char>(m.nd, 0));
    if (options.enumerate || !m.is_box) continue;
    for (std::size_t d = 0; d < m.nd; ++d)
      g.stride[d] = tile_stride(m, d, st_pieces, g.members, g.contains, g.sub[d], options.free_rows);
  }
  for (Group& g : groups) counter.solve(g);
}

/// The raw counts behind the metrics.
struct RawCounts {
  i64 macs = 0, nT = 0, nS = 0, nSTD = 0;
  std::vector<detail::TensorCounts> tc;
};

void unpack(const Group& g, const std::vector<i64>& result, RawCounts& rc) {
  std::size_t pos = 0;
  for (int k : g.members) {
    if (k < 0) {
      rc.nT = result[pos];
      rc.nS = result[pos + 1];
      rc.nSTD = result[pos + 2];
      pos += 3;
    } else {
      auto& t = rc.tc[static_cast<std::size_t>(k)];
      t.tv = result[pos];
      t.uv = result[pos + 1];
      t.uvt = result[pos + 2];
      t.spi = result[pos + 3];
      pos += 4;
    }
  }
}

/// TENET's metric formulas from the counts; reuses `r`'s storage (no allocation
/// when `r` already holds this problem's tensors).
void fill_metrics(const Model& m, const PEArraySpec& pe, const AnalyzeOptions& options, const RawCounts& rc,
                  const SourceLocation& domain_loc, Metrics& r) {
  const i64 macs = rc.macs;
  if (macs == 0 || rc.nS == 0) throw InputError(domain_loc, "the iteration domain is empty");
  r.macs = macs;
  r.time_stamps = rc.nT;
  r.active_pes = rc.nS;
  r.space_time_points = rc.nSTD;
  r.avg_active_pes = static_cast<double>(rc.nSTD) / static_cast<double>(rc.nT);
  r.macs_per_pe = macs / rc.nS;
  r.compute_delay = r.macs_per_pe;
  r.spatial_reuse_computed = options.spatial_reuse;
  i64 uin = 0, uout = 0;
  r.tensors.resize(m.tensors.size());
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    const auto& t = rc.tc[k];
    TensorMetrics& tm = r.tensors[k];
    tm.name = m.tensors[k].name;
    tm.access = m.tensors[k].access;
    tm.total_volume = t.tv;
    tm.unique_volume = t.uv;
    tm.temporal_unique_volume = t.uvt;
    tm.spatial_reuse_volume = options.spatial_reuse ? t.spi : 0;
    tm.reuse_factor = static_cast<double>(static_cast<float>(t.tv) / static_cast<float>(t.uv));
    tm.temporal_reuse = static_cast<double>(checked_sub(t.tv, t.uvt)) / static_cast<double>(macs);
    tm.spatial_reuse = options.spatial_reuse ? static_cast<double>(t.spi) / static_cast<double>(macs) : std::nan("");
    tm.delay = delay(t.uv, pe, options.bits_per_item);
    if (tm.access == Access::kRead) {
      uin = checked_add(uin, t.uv, "unique volume");
    } else {
      uout = checked_add(uout, t.uv, "unique volume");
    }
  }
  r.ingress_delay = delay(uin, pe, options.bits_per_item);
  r.egress_delay = delay(uout, pe, options.bits_per_item);
  r.max_delay = std::max({r.ingress_delay, r.egress_delay, r.compute_delay});
  // Energy in TENET's order: inputs then outputs (each sorted by name); for each:
  // L1 read, L1 write, L2 read, L2 write, truncating after every step.
  i64 e = macs;
  for (const auto& t : r.tensors) {
    e = energy_step(e, 1.68, t.total_volume);
    e = energy_step(e, 1.68, t.total_volume);
    e = energy_step(e, 18.61, t.unique_volume);
    e = energy_step(e, 18.61, t.unique_volume);
  }
  r.energy = e;
}

i64 box_macs(const std::vector<Interval>& box) {
  i64 macs = 1;
  for (const auto& b : box) macs = checked_mul(macs, checked_add(checked_sub(b.hi, b.lo), 1), "number of MACs (|D|)");
  return macs;
}

/// Count everything on m.box (closed forms left in `groups`).
RawCounts count_all(const Model& m, std::vector<Group>& groups, const AnalyzeOptions& options, bool parametric,
                    Limits& limits, i64& retries, i64& instances) {
  Counter counter(m, options, limits, parametric);
  solve_groups(m, groups, options, counter);
  RawCounts rc;
  rc.tc.resize(m.tensors.size());
  for (const Group& g : groups) unpack(g, g.result, rc);
  if (m.is_box) {
    rc.macs = box_macs(m.box);
  } else {
    // enumerate mode over a non-box domain: |D| is the number of points found.
    std::vector<char> none(m.tensors.size(), 0);
    rc.macs = detail::brute_force(m, m.box, none, kMaxEnumeratePoints).points;
  }
  retries = counter.retries();
  instances = static_cast<i64>(counter.instances());
  return rc;
}

void require_box(const Model& m, const Problem& problem, const AnalyzeOptions& options) {
  if (!m.is_box && !options.enumerate)
    throw InputError(problem.statement.domain.loc,
                     "the iteration domain is not a box (each variable bounded by constants, joined by 'and'); "
                     "exact counting needs a box: use --enumerate to brute-force a small domain");
}

Metrics analyze_impl(const Problem& problem, const AnalyzeOptions& options) {
  check_options(options);
  const Model m = detail::compile(problem);
  require_box(m, problem, options);
  if (m.is_box && !options.enumerate) check_space_in_pe(m, m.box, &problem.mapping.space_map.loc);
  auto groups = make_groups(m, options.enumerate);
  if (!options.enumerate && options.split_free_groups) split_by_strides(m, groups);
  Limits limits(options);
  i64 retries = 0, instances = 0;
  const RawCounts rc = count_all(m, groups, options, false, limits, retries, instances);
  Metrics r;
  fill_metrics(m, problem.pe, options, rc, problem.statement.domain.loc, r);
  r.counting_method = options.enumerate ? "enumeration" : "multilinear interpolation";
  r.self_check_retries = retries;
  r.instances_counted = instances;
  return r;
}

/// With AnalyzeOptions::context, errors about the problem name it instead of a
/// (possibly `<generated>`) location; overflow errors keep their own text.
[[noreturn]] void rethrow_in_context(const AnalyzeOptions& options) {
  try {
    throw;
  } catch (const OverflowError&) {
    throw;
  } catch (const InputError& e) {
    if (options.context.empty()) throw;
    throw InputError(options.context + ": " + e.detail());
  }
}

}  // namespace

Metrics analyze(const Problem& problem, const AnalyzeOptions& options) {
  try {
    return analyze_impl(problem, options);
  } catch (const InputError&) {
    rethrow_in_context(options);
  }
}

// ------------------------------------------------------------ parametric counting

struct CompiledProblem::Impl {
  Problem problem;
  AnalyzeOptions options;
  Model model;                                 // model.box is the last slow-path box (guarded by mu)
  std::vector<Group> groups;                   // structure only (members, pieces, periods)
  std::vector<std::vector<ClosedForm>> forms;  // per group: the closed forms found so far
  bool fast = true;                            // the PE-domain check holds on the whole parametric range
  mutable std::shared_mutex mu;

  Impl(const Problem& p, const AnalyzeOptions& o) : problem(p), options(o), model(detail::compile(p)) {}
};

namespace {

constexpr std::size_t kMaxFormsPerGroup = 4096;  // then the oldest are dropped (memory bound)

void check_extents(const CompiledProblem::Impl& c, std::span<const std::int64_t> ext) {
  const Model& m = c.model;
  if (ext.size() != m.nd)
    throw InputError("expected " + std::to_string(m.nd) + " iteration-domain extents, found " +
                     std::to_string(ext.size()));
  for (std::size_t d = 0; d < m.nd; ++d) {
    if (ext[d] < 1)
      throw InputError("the extent of variable '" + m.domain.pieces[0].vars[d] + "' must be positive, found " +
                       std::to_string(ext[d]));
    (void)checked_add(m.box[d].lo, ext[d] - 1, "upper bound of an iteration-domain variable");
  }
}

/// Fast path: every group has a closed form covering `ext`. Allocation-free.
bool evaluate_fast(const CompiledProblem::Impl& c, const i64* ext, Metrics& out) {
  const Model& m = c.model;
  thread_local RawCounts rc;
  rc.tc.resize(m.tensors.size());
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    const ClosedForm* f = nullptr;
    for (const ClosedForm& cf : c.forms[gi])
      if (cf.matches(ext)) {
        f = &cf;
        break;
      }
    if (f == nullptr) return false;
    std::size_t pos = 0;
    for (int k : c.groups[gi].members) {
      if (k < 0) {
        rc.nT = f->value(ext, pos);
        rc.nS = f->value(ext, pos + 1);
        rc.nSTD = f->value(ext, pos + 2);
        pos += 3;
      } else {
        auto& t = rc.tc[static_cast<std::size_t>(k)];
        t.tv = f->value(ext, pos);
        t.uv = f->value(ext, pos + 1);
        t.uvt = f->value(ext, pos + 2);
        t.spi = f->value(ext, pos + 3);
        pos += 4;
      }
    }
  }
  rc.macs = 1;
  for (std::size_t d = 0; d < m.nd; ++d) rc.macs = checked_mul(rc.macs, ext[d], "number of MACs (|D|)");
  fill_metrics(m, c.problem.pe, c.options, rc, c.problem.statement.domain.loc, out);
  if (out.counting_method != "parametric closed form") out.counting_method = "parametric closed form";
  out.self_check_retries = 0;
  out.instances_counted = 0;
  return true;
}

/// Slow path: count the extents (brute-forcing small instances) and keep the closed forms.
/// `reusable`: the extents lie in the parametric range (else: what analyze() does).
void evaluate_slow(CompiledProblem::Impl& c, const i64* ext, bool reusable, Metrics& out) {
  Model& m = c.model;
  for (std::size_t d = 0; d < m.nd; ++d) m.box[d].hi = m.box[d].lo + ext[d] - 1;
  if (!c.fast || !reusable || c.options.enumerate) {  // no reusable closed form: what analyze() does
    if (!c.options.enumerate) check_space_in_pe(m, m.box, &c.problem.mapping.space_map.loc);
    auto groups = make_groups(m, c.options.enumerate);
    Limits limits(c.options);
    i64 retries = 0, instances = 0;
    const RawCounts rc = count_all(m, groups, c.options, false, limits, retries, instances);
    fill_metrics(m, c.problem.pe, c.options, rc, c.problem.statement.domain.loc, out);
    out.counting_method = c.options.enumerate ? "enumeration" : "multilinear interpolation";
    out.self_check_retries = retries;
    out.instances_counted = instances;
    return;
  }
  // Only the groups no kept closed form covers are counted: a covered group's form already holds at ext (a tile
  // search meets many extents new to one group only, e.g. a new k with the scale's period).
  std::vector<std::size_t> todo;
  std::vector<Group> groups;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi)
    if (std::none_of(c.forms[gi].begin(), c.forms[gi].end(), [&](const ClosedForm& f) { return f.matches(ext); })) {
      todo.push_back(gi);
      groups.push_back(c.groups[gi]);
    }
  Limits limits(c.options);
  i64 retries = 0, instances = 0;
  (void)count_all(m, groups, c.options, true, limits, retries, instances);
  for (std::size_t i = 0; i < todo.size(); ++i) {
    auto& fs = c.forms[todo[i]];
    if (!groups[i].form.matches(ext)) continue;  // cannot happen: the form was found at ext
    if (fs.size() >= kMaxFormsPerGroup) fs.erase(fs.begin());
    fs.push_back(std::move(groups[i].form));
  }
  // Every group now has a form covering ext: the values are the forms' (equal to the counts just made).
  if (!evaluate_fast(c, ext, out)) throw InternalError("tenet: a closed form just found does not cover its extents");
  out.self_check_retries = retries;
  out.instances_counted = instances;
}

}  // namespace

CompiledProblem::CompiledProblem(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledProblem::CompiledProblem(CompiledProblem&&) noexcept = default;
CompiledProblem& CompiledProblem::operator=(CompiledProblem&&) noexcept = default;
CompiledProblem::~CompiledProblem() = default;

std::size_t CompiledProblem::dims() const { return impl_->model.nd; }

std::vector<std::int64_t> CompiledProblem::template_extents() const {
  std::vector<std::int64_t> e;
  const auto b = detail::compile(impl_->problem).box;
  e.reserve(b.size());
  for (const auto& x : b) e.push_back(x.hi - x.lo + 1);
  return e;
}

std::size_t CompiledProblem::closed_forms() const {
  std::shared_lock lock(impl_->mu);
  std::size_t n = 0;
  for (const auto& f : impl_->forms) n += f.size();
  return n;
}

CompiledProblem compile_parametric(const Problem& problem, const AnalyzeOptions& options) {
  try {
    check_options(options);
    auto impl = std::make_unique<CompiledProblem::Impl>(problem, options);
    Model& m = impl->model;
    require_box(m, problem, options);
    if (!m.is_box) throw InputError(problem.statement.domain.loc, "parametric counting needs a box iteration domain");
    impl->groups = make_groups(m, options.enumerate);
    impl->forms.resize(impl->groups.size());
    impl->fast = !options.enumerate && check_space_in_pe(m, huge_box(m.box), nullptr);
    std::vector<i64> ext;
    for (const auto& b : m.box) ext.push_back(b.hi - b.lo + 1);
    CompiledProblem c(std::move(impl));
    Metrics first;
    evaluate(c, ext, first);  // the template's own extents: the first closed forms
    return c;
  } catch (const InputError&) {
    rethrow_in_context(options);
  }
}

void evaluate(const CompiledProblem& compiled, std::span<const std::int64_t> extents, Metrics& out) {
  CompiledProblem::Impl& c = *compiled.impl_;
  try {
    check_extents(c, extents);
    bool in_range = true;
    for (const i64 e : extents) in_range = in_range && e <= kParametricMaxExtent;
    if (c.fast && in_range) {
      std::shared_lock lock(c.mu);
      if (evaluate_fast(c, extents.data(), out)) return;
    }
    std::unique_lock lock(c.mu);
    if (c.fast && in_range && evaluate_fast(c, extents.data(), out)) return;  // compiled meanwhile
    evaluate_slow(c, extents.data(), in_range, out);
  } catch (const InputError&) {
    rethrow_in_context(c.options);
  }
}

Metrics evaluate(const CompiledProblem& compiled, std::span<const std::int64_t> extents) {
  Metrics m;
  evaluate(compiled, extents, m);
  return m;
}

}  // namespace tenet_cost::tenet
