// Free tile dimensions (docs/tenet-engine.md §3 step 3 and "Free rows"): dimensions of which one residue per tile
// is enumerated and the counts scaled back.
#include <optional>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

std::optional<FreeDim> free_stride(const Model& m, const DimUse& use, std::size_t d,
                                   const std::vector<const Piece*>& st, const std::vector<int>& members) {
  const i64 lo = m.box[d].lo, N = m.box[d].hi - m.box[d].lo + 1;
  i64 S = 0, M = 0;  // floor(d/S) and d % M are the only ways the maps may see d
  int coord_pos = -1;
  auto scan = [&](const Piece& p, bool allow_coord, bool& has_coord) -> bool {
    const PieceUse& u = use.at(&p, d);
    for (std::size_t k = 0; k < p.terms.size(); ++k) {
      const auto& t = p.terms[k];
      if (!u.terms[k].direct) continue;
      if (!u.terms[k].exact) return false;
      i64& which = t.kind == relation::Term::Kind::kFloor ? S : M;
      if (which == 0) which = t.den;
      if (t.den != which) return false;
    }
    if (u.constraint_direct) return false;
    for (std::size_t j = 0; j < u.out.size(); ++j) {
      if (!u.out[j].direct) continue;
      if (!allow_coord || !u.out[j].exact || has_coord) return false;
      // every piece of the tensor must carry d in the same coordinate
      if (coord_pos >= 0 && coord_pos != static_cast<int>(j)) return false;
      coord_pos = static_cast<int>(j);
      has_coord = true;
    }
    return true;
  };
  for (const Piece* p : st) {
    bool dummy = false;
    if (!scan(*p, false, dummy)) return std::nullopt;
  }
  std::vector<char> cont(members.size(), 0);
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] < 0) continue;
    const auto& td = m.tensors[static_cast<std::size_t>(members[i])];
    int agree = -1;
    coord_pos = -1;
    for (const Piece* p : td.pieces) {
      bool has = false;
      if (!scan(*p, true, has)) return std::nullopt;
      if (agree >= 0 && agree != static_cast<int>(has)) return std::nullopt;
      agree = has;
    }
    cont[i] = agree == 1;
  }
  if (S == 0) S = N;  // d appears in no floor: the whole range is one tile
  if (M == 0) M = 1;
  if (floor_mod(lo, S) != 0 || N % S != 0 || S % M != 0) return std::nullopt;
  if (S / M <= 1) return std::nullopt;
  return FreeDim{S, M, cont};
}

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

namespace {

/// The terms of a single unconstrained map piece through which it sees d, all exactly `kind`(d / S) with one S
/// (S: 0 until the first, shared between calls), and d in no coordinate and no term of such a term; nullopt
/// otherwise. (free_rows: the space map's d % S, the time map's floor(d/S).)
std::optional<std::vector<char>> terms_of(const PieceUse& u, const Piece& p, relation::Term::Kind kind, i64& S) {
  std::vector<char> dt(p.terms.size(), 0);
  for (std::size_t k = 0; k < p.terms.size(); ++k) {
    const auto& t = p.terms[k];
    if (u.terms[k].nested) return std::nullopt;  // a term of a term of d
    if (!u.terms[k].direct) continue;
    if (t.kind != kind || !u.terms[k].exact || (S != 0 && t.den != S)) return std::nullopt;
    S = t.den;
    dt[k] = 1;
  }
  for (const auto& c : u.out)
    if (c.direct) return std::nullopt;
  return dt;
}

/// The space coordinate q that is exactly one of d's terms (`sdt`) with coefficient 1 and nothing else, d's terms
/// in no other coordinate; nullopt otherwise.
std::optional<std::size_t> row_coordinate(const Piece& sp, const std::vector<char>& sdt) {
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
    if (dterms > 0 && (dterms > 1 || !unit || other || q != sp.out.size())) return std::nullopt;
    if (dterms > 0) q = j;
  }
  if (q == sp.out.size()) return std::nullopt;
  return q;
}

}  // namespace

std::optional<FreeDim> free_rows(const Model& m, const DimUse& use, std::size_t d, const std::vector<int>& members) {
  const i64 lo = m.box[d].lo, N = m.box[d].hi - m.box[d].lo + 1;
  if (m.space.pieces.size() != 1 || m.time.pieces.size() != 1 || members.empty()) return std::nullopt;
  for (int k : members)
    if (k < 0) return std::nullopt;
  const Piece& sp = m.space.pieces[0];
  const Piece& tp = m.time.pieces[0];
  if (!unconstrained(sp) || !unconstrained(tp)) return std::nullopt;
  i64 S = 0;
  const auto sdt = terms_of(use.at(&sp, d), sp, relation::Term::Kind::kMod, S);
  if (!sdt || S < 2) return std::nullopt;
  const auto q = row_coordinate(sp, *sdt);
  if (!q) return std::nullopt;
  if (!terms_of(use.at(&tp, d), tp, relation::Term::Kind::kFloor, S)) return std::nullopt;
  if (floor_mod(lo, S) != 0 || N % S != 0 || !row_invariant(m.icn, *q)) return std::nullopt;
  for (int k : members) {
    const auto pos = whole_coordinate(use, m.tensors[static_cast<std::size_t>(k)].pieces, d);
    if (!pos || *pos < 0) return std::nullopt;
  }
  return FreeDim{S, 1, std::vector<char>(members.size(), 1)};
}

std::optional<FreeDim> free_dim(const Model& m, const DimUse& use, std::size_t d, const std::vector<const Piece*>& st,
                                const std::vector<int>& members, bool rows) {
  auto f = free_stride(m, use, d, st, members);
  if (f || !rows) return f;
  return free_rows(m, use, d, members);
}

void set_free_dims(const Model& m, const DimUse& use, Group& g, bool rows) {
  std::vector<const Piece*> st;
  for (const Piece& p : m.space.pieces) st.push_back(&p);
  for (const Piece& p : m.time.pieces) st.push_back(&p);
  for (std::size_t d = 0; d < m.nd; ++d) {
    const auto f = free_dim(m, use, d, st, g.members, rows);
    if (!f) continue;
    g.stride[d] = f->stride;
    g.sub[d] = f->sub;
    for (std::size_t i = 0; i < g.members.size(); ++i) g.contains[i][d] = f->contains[i];
  }
}

}  // namespace tenet_cost::tenet::detail
