// The windows of the counter (docs/tenet-engine.md §3 steps 1 and 3b): how far from a face of the box a
// dimension's boundary effects reach in a group's pieces (window, cross_window, constraint_reach), across a
// wrap-around of the time order (wraps_in_time, wrap_changes, wrap_window), and along a skewed time dimension
// (skew_distance, only_mod_terms).
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

namespace {

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

}  // namespace

/// Constraints of the pieces switch at a fixed position of d, not at a fixed
/// distance from a face of the box (e.g. `A[i] : i < 5`): how far from the low
/// face that position can be (0: no constraint on d). The window must add it:
/// the part of the box beyond the switching point needs the whole window again.
/// Through a floor term: not compressed (2^20).
i64 constraint_reach(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d,
                     const std::vector<Interval>& box) {
  i64 w = 0;
  for (const Piece* p : pieces) {
    const std::size_t nv = p->vars.size();
    const PieceUse& u = use.at(p, d);
    const auto full = relation::column_bounds(*p, box);
    for (const auto& dj : p->disjuncts)
      for (const auto& c : dj) {
        const Affine& e = c.expr;
        for (std::size_t k = 0; k < p->terms.size(); ++k)
          if (u.terms[k].depends && p->terms[k].kind == relation::Term::Kind::kFloor && nv + k < e.coeff.size() &&
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

i64 window(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d, const std::vector<Interval>& box,
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
      if (use.at(p, d).terms[k].direct) {
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
i64 wrap_window(const DimUse& use, const detail::TensorDef& td, std::size_t d, const std::vector<Interval>& box,
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
      bool in_term = false;  // some term has d (terms of terms included: the window sees them)
      for (const auto& t : use.at(p, d).terms) in_term = in_term || t.direct;
      if (in_term) need = std::max(need, checked_add(window(use, {p}, d, box, big), 1));
      continue;
    }
    need = std::max(need, static_cast<i64>(std::min<i128>(best, i128{1} << 20)));
  }
  if (td.pieces.size() > 1) need = std::max(need, checked_add(cross_window(td, d, box, big), 1));
  return std::min<i64>(need, 1 << 20);
}

/// Skewed time dimension (docs/tenet-engine.md §3 "Skewed time"): d appears in
/// the time map only in the last coordinate, as +-d, and in the space map at
/// most inside `(a*d+b) % c`; both maps are single unconstrained pieces whose
/// terms each take one variable. Returns the largest |x'_d - x_d| over the
/// pairs of instances the metrics relate locally (x' on the PE of x or on an
/// interconnect neighbour of it, at the stamp of x or at the stamp one step
/// back in the last coordinate with the same prefix), or -1 when d does not
/// qualify. Sound: interval propagation over the differences of every column.
std::optional<i64> skew_distance(const Model& m, const DimUse& use, std::size_t d, const std::vector<Interval>& box) {
  if (!m.is_box || m.nt == 0 || m.time.pieces.size() != 1 || m.space.pieces.size() != 1) return std::nullopt;
  const Piece& tp = m.time.pieces[0];
  const Piece& sp = m.space.pieces[0];
  if (!unconstrained(tp) || !unconstrained(sp) || m.pedom.pieces.size() != 1) return std::nullopt;
  std::vector<Interval> pe_box;
  if (!relation::as_box(m.pedom.pieces[0], pe_box) || pe_box.size() != m.ns) return std::nullopt;
  const std::size_t nv = m.nd;
  // d in the time map: only +-d in the last coordinate.
  const PieceUse& tu = use.at(&tp, d);
  const PieceUse& su = use.at(&sp, d);
  for (const auto& t : tu.terms)
    if (t.direct) return std::nullopt;
  for (std::size_t j = 0; j + 1 < m.nt; ++j)
    if (tu.out[j].direct) return std::nullopt;
  const i64 ad = coeff_of(tp.out[m.nt - 1], d);
  if (ad != 1 && ad != -1) return std::nullopt;
  // d in the space map: only inside mod terms.
  for (const auto& o : su.out)
    if (o.direct) return std::nullopt;
  for (std::size_t k = 0; k < sp.terms.size(); ++k)
    if (su.terms[k].direct && sp.terms[k].kind != relation::Term::Kind::kMod) return std::nullopt;

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
  if (!columns(tp, tcol) || !columns(sp, scol)) return std::nullopt;
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
  if (!sys.propagate()) return std::nullopt;  // cannot happen (x' = x is a solution); be conservative
  return std::max(-sys.lo(dv[d]), sys.hi(dv[d]));
}

/// d wraps around in the time order: some time coordinate but the first uses d (directly or through a term), so
/// when an earlier coordinate steps, d goes from its high face back to its low face between consecutive stamps.
bool wraps_in_time(const Model& m, const DimUse& use, std::size_t d) {
  for (const Piece& p : m.time.pieces) {
    const PieceUse& u = use.at(&p, d);
    for (std::size_t j = 1; j < u.out.size(); ++j)
      if (u.out[j].direct || u.out[j].via_term) return true;
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
std::vector<char> wrap_changes(const Model& m, const DimUse& use, std::size_t d, const std::vector<i64>& min_extent,
                               const std::vector<i64>& stride, const std::vector<i64>& sub) {
  std::vector<char> out(m.nd, 0);
  if (m.time.pieces.size() != 1) return out;
  const Piece& tp = m.time.pieces[0];
  const std::size_t nv = tp.vars.size();
  const PieceUse& u = use.at(&tp, d);
  for (const auto& t : u.terms)
    if (t.direct) return out;
  std::size_t jd = SIZE_MAX;
  for (std::size_t j = 0; j < u.out.size() && jd == SIZE_MAX; ++j)
    if (u.out[j].direct) jd = j;
  if (jd == SIZE_MAX || jd == 0) return out;
  // Variables a column depends on: a variable itself, a term its numerator's variables (one level suffices for
  // the check below: a term of a term is refused).
  auto vars_of = [&](const Affine& a, std::vector<std::size_t>& vs, bool& nested) {
    for (std::size_t i = 0; i < a.coeff.size(); ++i) {
      if (a.coeff[i] == 0) continue;
      if (i < nv) {
        if (i < m.nd) vs.push_back(i);
        else nested = true;  // a variable that is not a domain dimension: no qualification
        continue;
      }
      const Affine& num = tp.terms[i - nv].num;
      for (std::size_t q = 0; q < num.coeff.size(); ++q)
        if (num.coeff[q] != 0) {
          if (q >= nv || q >= m.nd) nested = true;  // a term of a term: refused below, and never indexed
          else vs.push_back(q);
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

/// d appears in the pieces' terms only as (a*d + b) % c or as floor(d/c) (d alone, coefficient 1; no other
/// floor, no mixing, no term of such a term).
bool only_mod_terms(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d) {
  for (const Piece* p : pieces) {
    const PieceUse& u = use.at(p, d);
    for (std::size_t k = 0; k < p->terms.size(); ++k) {
      const PieceUse::Term& t = u.terms[k];
      if (t.nested) return false;  // nested use of d
      if (t.direct && (!t.alone || (p->terms[k].kind != relation::Term::Kind::kMod && !t.exact))) return false;
    }
  }
  return true;
}

}  // namespace tenet_cost::tenet::detail
