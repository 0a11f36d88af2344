// The occurrence analysis (docs/tenet-engine.md §3, docs/architecture.md "tenet"): how every dimension occurs in
// every piece of the maps, built once; the qualifications (blocks, free dimensions, windows) read it.
#include <optional>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

PieceUse piece_use(const Piece& p, std::size_t d) {
  const std::size_t nv = p.vars.size();
  PieceUse u;
  u.terms.resize(p.terms.size());
  // Terms see earlier terms only (a term's numerator has the columns of the variables and of the terms before it).
  auto via_term = [&](const Affine& a) {
    for (std::size_t i = nv; i < a.coeff.size(); ++i)
      if (a.coeff[i] != 0 && i - nv < u.terms.size() && u.terms[i - nv].depends) return true;
    return false;
  };
  for (std::size_t k = 0; k < p.terms.size(); ++k) {
    const Affine& num = p.terms[k].num;
    PieceUse::Term& t = u.terms[k];
    t.direct = uses(num, d);
    t.exact = exact_var(num, d);
    t.alone = t.direct;
    for (std::size_t i = 0; i < num.coeff.size(); ++i) t.alone = t.alone && (i == d || num.coeff[i] == 0);
    for (std::size_t i = nv; i < num.coeff.size(); ++i)
      if (num.coeff[i] != 0 && i - nv < k && u.terms[i - nv].direct) t.nested = true;
    t.depends = t.direct || via_term(num);
  }
  u.out.resize(p.out.size());
  for (std::size_t j = 0; j < p.out.size(); ++j)
    u.out[j] = PieceUse::Coord{uses(p.out[j], d), exact_var(p.out[j], d), via_term(p.out[j])};
  for (const auto& dj : p.disjuncts)
    for (const auto& c : dj) {
      u.constraint_direct = u.constraint_direct || uses(c.expr, d);
      u.constraint_via_term = u.constraint_via_term || via_term(c.expr);
    }
  return u;
}

DimUse::DimUse(const Model& m) : nd_(m.nd) {
  auto add = [&](const relation::Relation& r) {
    for (const Piece& p : r.pieces) {
      pieces_.push_back(&p);
      for (std::size_t d = 0; d < nd_; ++d) use_.push_back(piece_use(p, d));
    }
  };
  add(m.space);
  add(m.time);
  for (const auto& r : m.access_rels) add(r);
}

const PieceUse& DimUse::at(const Piece* p, std::size_t d) const {
  for (std::size_t i = 0; i < pieces_.size(); ++i)
    if (pieces_[i] == p) return use_[i * nd_ + d];
  throw InternalError("tenet: a piece outside the model's maps has no occurrence table");
}

Occurrence DimUse::occurrence(const Piece* p, std::size_t d) const {
  const PieceUse& u = at(p, d);
  if (u.constraint_direct || u.constraint_via_term) return Occurrence::kConstraint;
  bool floor = false, mod = false;
  for (std::size_t k = 0; k < u.terms.size(); ++k) {
    if (u.terms[k].nested || (u.terms[k].direct && !u.terms[k].exact)) return Occurrence::kNested;
    if (!u.terms[k].direct) continue;
    (p->terms[k].kind == relation::Term::Kind::kFloor ? floor : mod) = true;
  }
  if (mod) return Occurrence::kMod;
  if (floor) return Occurrence::kFloor;
  bool scaled = false, any = false;
  for (const auto& c : u.out) {
    any = any || c.direct;
    scaled = scaled || (c.direct && !c.exact);
  }
  return scaled ? Occurrence::kScaledCoord : any ? Occurrence::kCoord : Occurrence::kNone;
}

std::optional<int> whole_coordinate(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d) {
  int pos = -2;  // -2: no piece seen, -1: d unused, j: d is coordinate j
  for (const Piece* p : pieces) {
    const PieceUse& u = use.at(p, d);
    for (const auto& t : u.terms)
      if (t.direct) return std::nullopt;
    if (u.constraint_direct) return std::nullopt;
    int here = -1;
    for (std::size_t j = 0; j < u.out.size(); ++j) {
      if (!u.out[j].direct) continue;
      if (here != -1 || !u.out[j].exact) return std::nullopt;
      here = static_cast<int>(j);
    }
    if (pos != -2 && pos != here) return std::nullopt;
    pos = here;
  }
  return pos == -2 ? -1 : pos;
}

}  // namespace tenet_cost::tenet::detail
