// Free tile dimensions (docs/tenet-engine.md §3 step 3 and "Free rows"): dimensions of which one residue per tile
// is enumerated and the counts scaled back.
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

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

}  // namespace tenet_cost::tenet::detail
