// Block dimensions (docs/tenet-engine.md §3 "Outer blocks", "Inner blocks"): a dimension whose blocks are
// translated copies in the time order, so that the counts are affine from one block on. Each qualification reads
// the occurrence table (DimUse) and returns std::nullopt when d does not qualify.
#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

std::optional<DTerms> classify_d_terms(const PieceUse& u, const Piece& p, bool allow_floor) {
  DTerms out;
  out.kind.assign(p.terms.size(), DTerm::kNone);
  for (std::size_t k = 0; k < p.terms.size(); ++k) {
    const auto& t = p.terms[k];
    if (u.terms[k].nested) return std::nullopt;  // a term of a term of d
    if (!u.terms[k].direct) continue;
    if (!u.terms[k].exact || t.den < 1) return std::nullopt;
    if (t.kind == relation::Term::Kind::kMod) {
      out.kind[k] = DTerm::kMod;
    } else {
      if (!allow_floor || (out.den != 0 && out.den != t.den)) return std::nullopt;
      out.den = t.den;
      out.kind[k] = DTerm::kFloor;
    }
  }
  return out;
}

bool direct_first_coordinate(const DimUse& use, const Piece& tp, const Piece& sp, std::size_t d) {
  if (tp.out.empty()) return false;
  const Affine& first = tp.out[0];
  for (std::size_t i = 0; i < first.coeff.size(); ++i)
    if (first.coeff[i] != (i == d ? 1 : 0)) return false;
  if (coeff_of(first, d) != 1) return false;
  for (const Piece* p : {&tp, &sp}) {
    const PieceUse& u = use.at(p, d);
    for (const auto& t : u.terms)
      if (t.direct) return false;
    for (std::size_t j = p == &tp ? 1 : 0; j < u.out.size(); ++j)
      if (u.out[j].direct) return false;
  }
  return true;
}

namespace {

/// outer_block's rule for the outputs of a map piece: no d itself; the block coordinate (the time map's first,
/// when `first_is_block`) is exactly one floor term of d with coefficient 1 plus a constant; every other coordinate
/// has no floor term of d and may combine its d % m terms with other variables and terms (the skewed systolic maps'
/// k + i%32 + 2*(j%32), docs §3 "Outer blocks": within a block the stamps, PEs and elements still depend on d % L
/// and the other dimensions only).
bool outer_outputs(const PieceUse& u, const Piece& p, const std::vector<DTerm>& kind, bool first_is_block) {
  const std::size_t nv = p.vars.size();
  for (std::size_t j = 0; j < p.out.size(); ++j) {
    const Affine& o = p.out[j];
    if (u.out[j].direct) return false;
    const bool block_coord = first_is_block && j == 0;
    bool floor_once = false;
    for (std::size_t i = 0; i < o.coeff.size(); ++i) {
      if (o.coeff[i] == 0) continue;
      const bool floor_term = i >= nv && kind[i - nv] == DTerm::kFloor;
      if (floor_term && (!block_coord || o.coeff[i] != 1 || floor_once)) return false;
      if (!floor_term && block_coord) return false;  // the block coordinate holds nothing else
      floor_once = floor_once || floor_term;
    }
    if (block_coord && !floor_once) return false;
  }
  return true;
}

/// Every d % m term of the piece has m | L.
bool mods_divide(const Piece& p, const std::vector<DTerm>& kind, i64 L) {
  for (std::size_t k = 0; k < p.terms.size(); ++k)
    if (kind[k] == DTerm::kMod && L % p.terms[k].den != 0) return false;
  return true;
}

}  // namespace

std::optional<i64> outer_block(const Model& m, const DimUse& use, std::size_t d,
                               const std::vector<std::vector<const Piece*>>& tensors, i64 period) {
  if (!m.is_box || m.nt == 0 || m.box[d].lo != 0 || m.time.pieces.size() != 1 || m.space.pieces.size() != 1)
    return std::nullopt;
  const Piece& tp = m.time.pieces[0];
  const Piece& sp = m.space.pieces[0];
  if (!unconstrained(tp) || !unconstrained(sp)) return std::nullopt;
  i64 L = 0;  // the terms: floor(d/L), d % m (m | L checked below)
  if (period == 1 && direct_first_coordinate(use, tp, sp, d)) {
    L = 1;  // blocks of one value: the first coordinate is d itself (floor(d/1)), e.g. T[n, ...] of a conv
  } else {
    const PieceUse& tu = use.at(&tp, d);
    const PieceUse& su = use.at(&sp, d);
    const auto tk = classify_d_terms(tu, tp, true);
    if (!tk || !outer_outputs(tu, tp, tk->kind, true) || tk->den < 1 || period != tk->den) return std::nullopt;
    L = tk->den;
    const auto sk = classify_d_terms(su, sp, false);
    if (!sk || !outer_outputs(su, sp, sk->kind, false)) return std::nullopt;
    if (!mods_divide(tp, tk->kind, L) || !mods_divide(sp, sk->kind, L)) return std::nullopt;
  }
  // Each tensor: d in no term or constraint; either no piece uses d, or every piece has d as one whole
  // coordinate (exactly d), the same in every piece: elements of different blocks then differ.
  for (const auto& pieces : tensors)
    if (!whole_coordinate(use, pieces, d)) return std::nullopt;
  return L;
}

namespace {

/// inner_block's time coordinate p >= 1 of the block: exactly floor(d/c) (coefficient 1, + a constant); before p no
/// d; the block coordinate mixed with nothing. After it, d % m terms may share a coordinate with other variables
/// and terms (the skewed OS map's k + i%32 + j%32: blocks are still translated copies). nullopt otherwise (p = 0 is
/// outer_block's case).
std::optional<std::size_t> block_coordinate(const PieceUse& u, const Piece& tp, const std::vector<DTerm>& tkind) {
  const std::size_t tnv = tp.vars.size();
  std::size_t p = 0;
  bool found = false;
  for (std::size_t j = 0; j < tp.out.size(); ++j) {
    const Affine& o = tp.out[j];
    if (u.out[j].direct) return std::nullopt;
    bool dterm = false, other = false, block = false, residue = false;
    for (std::size_t i = 0; i < o.coeff.size(); ++i) {
      if (o.coeff[i] == 0) continue;
      if (i >= tnv && tkind[i - tnv] != DTerm::kNone) {
        dterm = true;
        if (tkind[i - tnv] == DTerm::kFloor) {
          if (o.coeff[i] != 1) return std::nullopt;
          block = true;
        } else {
          residue = true;
        }
      } else {
        other = true;
      }
    }
    // d before the block coordinate, or the block coordinate mixed (with another variable, or with d % m: the
    // values of consecutive blocks would overlap and their stamps interleave)
    if (dterm && ((block && (other || residue)) || (!found && !block))) return std::nullopt;
    if (block) {
      if (found) return std::nullopt;  // two block coordinates
      p = j;
      found = true;
    }
  }
  if (!found || p == 0) return std::nullopt;
  return p;
}

/// inner_block's space rule: no coordinate holds d itself or mixes a term of d with anything else.
bool space_separates(const PieceUse& u, const Piece& sp, const std::vector<DTerm>& skind) {
  const std::size_t snv = sp.vars.size();
  for (std::size_t j = 0; j < sp.out.size(); ++j) {
    const Affine& o = sp.out[j];
    if (u.out[j].direct) return false;
    bool dterm = false, other = false;
    for (std::size_t i = 0; i < o.coeff.size(); ++i)
      if (o.coeff[i] != 0) (i >= snv && skind[i - snv] != DTerm::kNone ? dterm : other) = true;
    if (dterm && other) return false;
  }
  return true;
}

/// A skew witness: time coordinate p + 1 holds d only in one term s * (d % m), s != 0, m >= 2, next to terms of
/// other variables. Given the prefix and coordinate p, d ranges over a box independent of the rest, so the last
/// stamp of a prefix (d in the last whole block) has d % m at one extreme (m - 1 or 0) and the first stamp of the
/// next prefix (block 0) at the other: instances carrying d as `d` differ across the link (docs §3 "Inner blocks").
bool skew_witness(const Piece& tp, const std::vector<DTerm>& tkind, std::size_t p) {
  if (p + 1 >= tp.out.size()) return false;
  const std::size_t tnv = tp.vars.size();
  const Affine& o = tp.out[p + 1];
  int dterms = 0;
  bool mod_ok = false;
  for (std::size_t k = 0; k < tp.terms.size(); ++k) {
    if (coeff_of(o, tnv + k) == 0 || tkind[k] == DTerm::kNone) continue;
    ++dterms;
    mod_ok = tkind[k] == DTerm::kMod && tp.terms[k].den >= 2;
  }
  return dterms == 1 && mod_ok;
}

/// The witnesses a carrying tensor may use: e (!= d, starting at 0) whose only appearance in the time map is
/// coordinate q > p, exactly floor(e/ce) (coefficient 1, no constant). Per dimension: ce, or 0.
std::vector<i64> floor_witnesses(const Model& m, const DimUse& use, const Piece& tp, std::size_t d, std::size_t p) {
  const std::size_t tnv = tp.vars.size();
  std::vector<i64> witness(m.nd, 0);
  for (std::size_t e = 0; e < m.nd && e < tnv; ++e) {
    if (e == d || m.box[e].lo != 0) continue;
    const PieceUse& u = use.at(&tp, e);
    bool ok = true;
    std::size_t term = tp.terms.size();  // the one term of e
    for (std::size_t k = 0; k < tp.terms.size() && ok; ++k) {
      ok = !u.terms[k].nested;  // a term of e's term
      if (!u.terms[k].direct) continue;
      ok = ok && term == tp.terms.size() && tp.terms[k].kind == relation::Term::Kind::kFloor && u.terms[k].exact &&
           tp.terms[k].den >= 1;
      term = k;
    }
    if (!ok || term == tp.terms.size()) continue;
    int seen = 0;
    for (std::size_t j = 0; j < tp.out.size() && ok; ++j) {
      const Affine& o = tp.out[j];
      if (u.out[j].direct) ok = false;
      if (coeff_of(o, tnv + term) == 0) continue;
      ++seen;
      ok = ok && j > p && o.constant == 0;
      for (std::size_t x = 0; x < o.coeff.size() && ok; ++x) ok = o.coeff[x] == (x == tnv + term ? 1 : 0);
    }
    if (ok && seen == 1) witness[e] = tp.terms[term].den;
  }
  return witness;
}

/// A prefix witness: when every time coordinate before p sees one variable e only (directly or through terms), two
/// different prefixes have different e, so the link's two stamps differ in e whatever its extent. e, or the number
/// of variables when there is none.
std::size_t prefix_witness(const Piece& tp, std::size_t p) {
  const std::size_t tnv = tp.vars.size();
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
  if (std::count(prefix_vars.begin(), prefix_vars.end(), 1) != 1) return tnv;
  return static_cast<std::size_t>(std::find(prefix_vars.begin(), prefix_vars.end(), 1) - prefix_vars.begin());
}

/// How one piece of a tensor carries d for inner_block: d in no constraint, in no term but floor(d/g) (g | L) and
/// in no term of such a term; at most one coordinate sees d, and it is exactly `d` (form 0) or exactly floor(d/g)
/// (form g); every d-term is used by that coordinate. (coordinate, form): (-1, -1) when no coordinate sees d;
/// nullopt when the piece does not qualify.
std::optional<std::pair<int, i64>> carried_form(const PieceUse& u, const Piece& pc, i64 period) {
  if (u.constraint_direct) return std::nullopt;
  const std::size_t nv = pc.vars.size();
  std::vector<char> dt(pc.terms.size(), 0);
  for (std::size_t k = 0; k < pc.terms.size(); ++k) {
    const auto& t = pc.terms[k];
    if (u.terms[k].nested) return std::nullopt;
    if (!u.terms[k].direct) continue;
    if (t.kind != relation::Term::Kind::kFloor || !u.terms[k].exact || t.den < 1 || period % t.den != 0)
      return std::nullopt;
    dt[k] = 1;
  }
  int here = -1;
  i64 f = -1;
  for (std::size_t j = 0; j < pc.out.size(); ++j) {
    const Affine& o = pc.out[j];
    bool sees = u.out[j].direct;
    for (std::size_t k = 0; k < pc.terms.size(); ++k) sees = sees || (coeff_of(o, nv + k) != 0 && dt[k]);
    if (!sees) continue;
    if (here != -1) return std::nullopt;
    here = static_cast<int>(j);
    if (u.out[j].exact) {
      f = 0;
      continue;
    }
    for (std::size_t k = 0; k < pc.terms.size() && f < 0; ++k) {
      bool eq = o.constant == 0 && coeff_of(o, nv + k) == 1;
      for (std::size_t x = 0; x < o.coeff.size() && eq; ++x) eq = o.coeff[x] == (x == nv + k ? 1 : 0);
      if (dt[k] && eq) f = pc.terms[k].den;
    }
    if (f < 0) return std::nullopt;
  }
  for (std::size_t k = 0; k < pc.terms.size(); ++k)  // a d-term used by another term or not by `here`
    if (dt[k] && (here < 0 || coeff_of(pc.out[static_cast<std::size_t>(here)], nv + k) == 0)) return std::nullopt;
  return std::make_pair(here, f);
}

}  // namespace

std::optional<InnerBlock> inner_block(const Model& m, const DimUse& use, std::size_t d,
                                      const std::vector<std::vector<const Piece*>>& tensors, i64 period) {
  if (!m.is_box || m.nt == 0 || m.box[d].lo != 0 || period < 1 || m.time.pieces.size() != 1 ||
      m.space.pieces.size() != 1)
    return std::nullopt;
  const Piece& tp = m.time.pieces[0];
  const Piece& sp = m.space.pieces[0];
  if (!unconstrained(tp) || !unconstrained(sp)) return std::nullopt;
  const PieceUse& tu = use.at(&tp, d);
  const PieceUse& su = use.at(&sp, d);
  const auto tk = classify_d_terms(tu, tp, true);
  if (!tk || tk->den == 0 || period % tk->den != 0) return std::nullopt;
  const auto sk = classify_d_terms(su, sp, false);
  if (!sk) return std::nullopt;
  for (const auto& [pc, u] : {std::make_pair(&tp, &tu), std::make_pair(&sp, &su)})  // d % m with m | period
    for (std::size_t k = 0; k < pc->terms.size(); ++k)
      if (pc->terms[k].kind == relation::Term::Kind::kMod && u->terms[k].direct && period % pc->terms[k].den != 0)
        return std::nullopt;
  const auto p = block_coordinate(tu, tp, tk->kind);
  if (!p || !space_separates(su, sp, sk->kind)) return std::nullopt;
  const bool skew = skew_witness(tp, tk->kind, *p);
  const std::vector<i64> witness = floor_witnesses(m, use, tp, d, *p);
  const std::size_t prefix_e = prefix_witness(tp, *p);
  // Tensors: either no piece sees d, or every piece has it as the same whole coordinate (`d`, or a coordinate that
  // is exactly floor(d/g) with g | L), d in no other term or coordinate.
  InnerBlock out;
  for (const auto& pieces : tensors) {
    int pos = -2;   // -2: no piece seen, -1: d unused, j: d is coordinate j
    i64 form = -1;  // 0: d itself, g: floor(d/g)
    std::vector<std::array<i64, 3>> wit;
    bool first = true;
    for (const Piece* pc : pieces) {
      const auto carried = carried_form(use.at(pc, d), *pc, period);
      if (!carried) return std::nullopt;
      const auto [here, f] = *carried;
      if (pos != -2 && (pos != here || form != f)) return std::nullopt;
      pos = here;
      form = f;
      // witnesses of this piece: coordinates that are exactly a witness variable; keep those common to all pieces
      const std::size_t nv = pc->vars.size();
      std::vector<std::array<i64, 3>> w;  // (e, coordinate, ce)
      for (std::size_t j = 0; j < pc->out.size(); ++j)
        for (std::size_t e = 0; e < nv && e < witness.size(); ++e)
          if ((witness[e] != 0 || e == prefix_e) && use.at(pc, e).out[j].exact)
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
      if (skew && form == 0) out.need.back().emplace_back(d, -1);  // holds at every extent
    }
  }
  out.L = period;
  return out;
}

}  // namespace tenet_cost::tenet::detail
