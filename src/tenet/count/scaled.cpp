// Large floor divisors (docs/tenet-engine.md §3 "Large floor divisors"): a group whose tensors see a skewed time
// dimension d only as floor(d/G) is counted at two small divisors and interpolated in G.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

std::optional<ScaledDim> Counter::scaled_dim(const Group& g) const {
  if (enumerate_ || !m_.is_box || !o_.scaled_divisors || m_.nd > kMaxScaledDims) return std::nullopt;
  bool any_tensor = false;
  for (int k : g.members) any_tensor = any_tensor || k >= 0;
  if (!any_tensor) return std::nullopt;
  std::optional<ScaledDim> out;
  for (std::size_t d = 0; d < m_.nd; ++d) {
    if (!skew_[d] || m_.box[d].lo != 0 || g.stride[d] != 1) continue;
    i64 G = 0;
    bool ok = true;
    for (const Piece* p : g.pieces) {
      if (!ok) break;
      const bool st = is_space_time(p);
      const PieceUse& u = use_.at(p, d);
      for (std::size_t t = 0; t < p->terms.size() && ok; ++t) {
        const relation::Term& term = p->terms[t];
        if (!u.terms[t].direct) continue;
        if (st || term.kind != relation::Term::Kind::kFloor || !u.terms[t].exact || (G != 0 && G != term.den))
          ok = false;
        G = term.den;
      }
      if (!st)
        for (const auto& o : u.out) ok = ok && !o.direct;  // d only through the floor term
      ok = ok && !u.constraint_direct && !u.constraint_via_term;
    }
    if (!ok || G == 0) continue;
    const i64 N = m_.box[d].hi + 1, q = N / G, r = N % G;
    const i64 Ga = std::max(checked_add(checked_mul(*skew_[d], 2), 3), r + 1);
    if (q < 1 || G < 2 * (Ga + 2)) continue;  // not worth it: the sampled divisors must be much smaller
    if (!out || G > out->G) out = ScaledDim{d, G, Ga};
  }
  return out;
}

std::unique_ptr<ScaledProblem> Counter::scaled_problem(const Group& g, const ScaledDim& s, i64 Gp, i64 qq,
                                                       const std::vector<i64>& ext) const {
  const std::size_t nd = m_.nd;
  const i64 r = (m_.box[s.d].hi + 1) % s.G;
  auto sc = std::make_unique<ScaledProblem>(ScaledProblem{m_, Group{}});
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
  set_free_dims(m2, DimUse(m2), g2, o_.free_rows);
  return sc;
}

namespace {

/// The check instance of solve_scaled: the smallest extents (the compressed dimensions' bases, the fewest whole
/// groups qc along d) that both inner forms of `line` cover; the true extents always qualify. (extents, qc).
std::pair<std::vector<i64>, i64> check_instance(const ClosedForm& line, const ScaledDim& s, std::vector<i64> chk, i64 q,
                                                i64 r) {
  for (std::size_t d = 0; d < chk.size(); ++d) {
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
  return {std::move(chk), qc};
}

}  // namespace

bool Counter::solve_scaled(Group& g, const ScaledDim& s) {
  const std::size_t nd = m_.nd;
  const i64 q = (m_.box[s.d].hi + 1) / s.G, r = (m_.box[s.d].hi + 1) % s.G;
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
    auto sc = scaled_problem(g, s, Gp, q, ext);
    Counter inner(sc->m, o_, limits_, parametric_, ws_);
    inner.solve(sc->g);
    retries_ += inner.retries();
    extra_instances_ += inner.instances();
    dense = dense && inner.all_dense();
    res.push_back(sc->g.result);
    line.inner.push_back(std::move(sc->g.form));
  }
  const auto [chk, qc] = check_instance(line, s, ext, q, r);
  std::vector<std::vector<i64>> checks;
  for (const i64 Gc : {s.Ga + 2, 2 * s.Ga + 1}) {
    auto sc = scaled_problem(g, s, Gc, qc, chk);
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

}  // namespace tenet_cost::tenet::detail
