// Block dimensions (docs/tenet-engine.md §3 "Outer blocks", "Inner blocks"): a dimension whose blocks are
// translated copies in the time order, so that the counts are affine from one block on.
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

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

}  // namespace tenet_cost::tenet::detail
