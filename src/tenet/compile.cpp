// Parsing and validation of a Problem into a Model.
#include <algorithm>
#include <map>

#include "model.hpp"

namespace tenet_cost::tenet::detail {
namespace {

std::string tuple_str(const std::string& name, std::size_t arity) {
  return name + "[" + std::to_string(arity) + " dims]";
}

Relation parse_kind(const RelationText& rt, bool want_map, const std::string& what) {
  Relation r = relation::parse(rt.text, rt.loc);
  if (!r.pieces.empty() && r.is_map != want_map)
    throw InputError(rt.loc, "expected " + what + " (" + (want_map ? "a map `{A[..] -> B[..]}`" : "a set `{A[..] : ...}`") +
                                 "), found a " + (r.is_map ? "map" : "set"));
  return r;
}

bool propagate_bounds(const Piece& p, const std::vector<relation::Constraint>& conj, std::vector<Interval>& box,
                      std::vector<bool>& lo, std::vector<bool>& hi);

/// Single-variable bounds of one conjunction (for a bounding box).
bool conj_bounds(const Piece& p, const std::vector<relation::Constraint>& conj, std::vector<Interval>& box) {
  const std::size_t nv = p.vars.size();
  std::vector<bool> lo(nv, false), hi(nv, false);
  box.assign(nv, Interval{});
  for (const auto& c : conj) {
    std::size_t var = nv;
    i64 coef = 0;
    bool single = true;
    for (std::size_t i = 0; i < c.expr.coeff.size(); ++i) {
      if (c.expr.coeff[i] == 0) continue;
      if (var != nv || i >= nv) {
        single = false;
        break;
      }
      var = i;
      coef = c.expr.coeff[i];
    }
    if (!single || var == nv) continue;
    // coef*x + k >= 0 (or == 0)
    const i64 k = c.expr.constant;
    if (coef > 0 || c.equality) {
      const i64 b = coef > 0 ? ceil_div(-k, coef) : floor_div(k, -coef);
      box[var].lo = lo[var] ? std::max(box[var].lo, b) : b;
      lo[var] = true;
    }
    if (coef < 0 || c.equality) {
      const i64 b = coef < 0 ? floor_div(k, -coef) : ceil_div(-k, coef);
      box[var].hi = hi[var] ? std::min(box[var].hi, b) : b;
      hi[var] = true;
    }
  }
  return propagate_bounds(p, conj, box, lo, hi);
}

/// Tighten a box by interval propagation through the constraints of one
/// conjunction (e.g. 0 <= j < i with 0 <= i < 256 bounds j by 255).
bool propagate_bounds(const Piece& p, const std::vector<relation::Constraint>& conj, std::vector<Interval>& box,
                      std::vector<bool>& lo, std::vector<bool>& hi) {
  const std::size_t nv = p.vars.size();
  for (std::size_t round = 0; round <= nv; ++round) {
    bool changed = false;
    for (const auto& c : conj) {
      bool terms = false;
      for (std::size_t i = nv; i < c.expr.coeff.size(); ++i) terms = terms || c.expr.coeff[i] != 0;
      if (terms) continue;
      for (std::size_t v = 0; v < nv && v < c.expr.coeff.size(); ++v) {
        const i64 a = c.expr.coeff[v];
        if (a == 0) continue;
        // a*x_v >= -(c + sum_{u != v} a_u x_u): need the max of the rest.
        i128 rest_max = c.expr.constant, rest_min = c.expr.constant;
        bool ok_max = true, ok_min = true;
        for (std::size_t u = 0; u < nv && u < c.expr.coeff.size(); ++u) {
          const i64 b = c.expr.coeff[u];
          if (u == v || b == 0) continue;
          if (b > 0) {
            if (hi[u]) rest_max += static_cast<i128>(b) * box[u].hi; else ok_max = false;
            if (lo[u]) rest_min += static_cast<i128>(b) * box[u].lo; else ok_min = false;
          } else {
            if (lo[u]) rest_max += static_cast<i128>(b) * box[u].lo; else ok_max = false;
            if (hi[u]) rest_min += static_cast<i128>(b) * box[u].hi; else ok_min = false;
          }
        }
        auto set_lo = [&](i128 bnd) {
          if (bnd < INT64_MIN / 2 || bnd > INT64_MAX / 2) return;
          const i64 b64 = static_cast<i64>(bnd);
          if (!lo[v] || b64 > box[v].lo) { box[v].lo = b64; lo[v] = true; changed = true; }
        };
        auto set_hi = [&](i128 bnd) {
          if (bnd < INT64_MIN / 2 || bnd > INT64_MAX / 2) return;
          const i64 b64 = static_cast<i64>(bnd);
          if (!hi[v] || b64 < box[v].hi) { box[v].hi = b64; hi[v] = true; changed = true; }
        };
        // a*x + rest >= 0  ->  x >= ceil(-rest/a) (a > 0) or x <= floor(rest/-a) (a < 0), using rest_max.
        if (ok_max) {
          if (a > 0) {
            const i128 num = -rest_max;
            set_lo(num >= 0 ? (num + a - 1) / a : -((-num) / a));
          } else {
            const i128 num = rest_max, den = -a;
            set_hi(num >= 0 ? num / den : -((-num + den - 1) / den));
          }
        }
        if (c.equality && ok_min) {
          // also a*x + rest <= 0
          if (a > 0) {
            const i128 num = -rest_min;
            set_hi(num >= 0 ? num / a : -((-num + a - 1) / a));
          } else {
            const i128 num = rest_min, den = -a;
            set_lo(num >= 0 ? (num + den - 1) / den : -((-num) / den));
          }
        }
      }
    }
    if (!changed) break;
  }
  for (std::size_t v = 0; v < nv; ++v)
    if (!lo[v] || !hi[v]) return false;
  return true;
}

void check_map_pieces(const Relation& r, const RelationText& rt, const std::string& in_name, std::size_t nd,
                      const std::string& what, std::size_t& arity, std::string* out_name) {
  if (r.pieces.empty()) throw InputError(rt.loc, what + " is empty");
  bool first = true;
  for (const Piece& p : r.pieces) {
    if (p.in_name != in_name || p.vars.size() != nd)
      throw InputError(rt.loc, what + ": expected the statement's tuple " + tuple_str(in_name, nd) + " on the left, found " +
                                   tuple_str(p.in_name, p.vars.size()));
    if (first) {
      arity = p.out.size();
      if (out_name) *out_name = p.out_name;
      first = false;
    } else if (p.out.size() != arity || (out_name && p.out_name != *out_name)) {
      throw InputError(rt.loc, what + ": all pieces must map to the same tuple, found " + tuple_str(p.out_name, p.out.size()) +
                                   " and " + tuple_str(out_name ? *out_name : std::string(), arity));
    }
  }
}

}  // namespace

Model compile(const Problem& problem) {
  Model m;
  m.pe = problem.pe;
  const auto& st = problem.statement;
  m.domain = parse_kind(st.domain, false, "the iteration domain");
  if (m.domain.pieces.empty()) throw InputError(st.domain.loc, "the iteration domain is empty");
  m.stmt_name = m.domain.pieces[0].in_name;
  m.nd = m.domain.pieces[0].vars.size();
  for (const Piece& p : m.domain.pieces)
    if (p.in_name != m.stmt_name || p.vars.size() != m.nd)
      throw InputError(st.domain.loc, "all pieces of the iteration domain must have the same tuple, found " +
                                          tuple_str(m.stmt_name, m.nd) + " and " + tuple_str(p.in_name, p.vars.size()));
  if (m.domain.pieces.size() == 1 && relation::as_box(m.domain.pieces[0], m.box)) {
    m.is_box = true;
  } else {
    m.is_box = false;
    bool any = false;
    for (const Piece& p : m.domain.pieces) {
      for (const auto& conj : p.disjuncts) {
        std::vector<Interval> b;
        if (!conj_bounds(p, conj, b))
          throw InputError(st.domain.loc,
                           "cannot bound every variable of the iteration domain by constants (each needs a lower and "
                           "an upper bound such as 0 <= i < 256)");
        if (!any) {
          m.box = b;
          any = true;
        } else {
          for (std::size_t d = 0; d < m.nd; ++d) {
            m.box[d].lo = std::min(m.box[d].lo, b[d].lo);
            m.box[d].hi = std::max(m.box[d].hi, b[d].hi);
          }
        }
      }
    }
    if (!any) throw InputError(st.domain.loc, "the iteration domain is empty");
  }
  for (std::size_t d = 0; d < m.nd; ++d)
    if (m.box[d].lo > m.box[d].hi)
      throw InputError(st.domain.loc, "the iteration domain is empty (variable '" + m.domain.pieces[0].vars[d] +
                                          "' has no admissible value)");
  for (std::size_t d = 0; d < m.nd; ++d) {  // every extent hi - lo + 1 must be a 64-bit integer
    const std::string what = "extent of variable '" + m.domain.pieces[0].vars[d] + "' of the iteration domain (" +
                             std::to_string(m.box[d].lo) + " <= " + m.domain.pieces[0].vars[d] +
                             " <= " + std::to_string(m.box[d].hi) + ")";
    (void)checked_add(checked_sub(m.box[d].hi, m.box[d].lo, what), 1, what);
  }

  const auto& mp = problem.mapping;
  m.space = parse_kind(mp.space_map, true, "the space map");
  m.time = parse_kind(mp.time_map, true, "the time map");
  std::string pe_name;
  check_map_pieces(m.space, mp.space_map, m.stmt_name, m.nd, "the space map", m.ns, &pe_name);
  std::string t_name;
  check_map_pieces(m.time, mp.time_map, m.stmt_name, m.nd, "the time map", m.nt, &t_name);

  m.pedom = parse_kind(problem.pe.domain, false, "the PE domain");
  if (m.pedom.pieces.empty()) throw InputError(problem.pe.domain.loc, "the PE domain is empty");
  m.icn = parse_kind(problem.pe.interconnect, true, "the interconnect");
  for (const Piece& p : m.pedom.pieces)
    if (p.in_name != pe_name || p.vars.size() != m.ns) {
      // Blame the file that disagrees with the rest: when the PE domain and the interconnect agree with each
      // other, the space map (the mapping file) is the inconsistent one.
      bool pe_file_consistent = true;
      for (const Piece& q : m.icn.pieces)
        pe_file_consistent = pe_file_consistent && q.in_name == p.in_name && q.vars.size() == p.vars.size();
      if (pe_file_consistent)
        throw InputError(mp.space_map.loc, "the space map targets " + tuple_str(pe_name, m.ns) +
                                               " but the PE array (its domain and interconnect) is " +
                                               tuple_str(p.in_name, p.vars.size()));
      throw InputError(problem.pe.domain.loc, "the PE domain is " + tuple_str(p.in_name, p.vars.size()) +
                                                  " but the space map targets " + tuple_str(pe_name, m.ns));
    }
  for (const Piece& p : m.icn.pieces)
    if (p.in_name != pe_name || p.vars.size() != m.ns || p.out_name != pe_name || p.out.size() != m.ns)
      throw InputError(problem.pe.interconnect.loc, "the interconnect must map " + tuple_str(pe_name, m.ns) + " to " +
                                                        tuple_str(pe_name, m.ns) + ", found " +
                                                        tuple_str(p.in_name, p.vars.size()) + " -> " +
                                                        tuple_str(p.out_name, p.out.size()));

  // Accesses: one relation per line; pieces grouped by (kind, tensor name).
  m.access_rels.reserve(st.reads.size() + st.writes.size());
  std::map<std::pair<int, std::string>, TensorDef> defs;
  auto add_lines = [&](const std::vector<RelationText>& lines, Access kind) {
    for (const RelationText& rt : lines) {
      m.access_rels.push_back(parse_kind(rt, true, "an access relation"));
      const Relation& r = m.access_rels.back();
      if (r.pieces.empty()) throw InputError(rt.loc, "the access relation is empty");
      for (const Piece& p : r.pieces) {
        if (p.in_name != m.stmt_name || p.vars.size() != m.nd)
          throw InputError(rt.loc, "the access relation's domain is " + tuple_str(p.in_name, p.vars.size()) +
                                       " but the statement is " + tuple_str(m.stmt_name, m.nd));
        if (p.out_name.empty()) throw InputError(rt.loc, "the accessed tensor has no name (expected e.g. S[i] -> A[i])");
        auto& def = defs[{kind == Access::kRead ? 0 : 1, p.out_name}];
        if (def.pieces.empty()) {
          def.name = p.out_name;
          def.access = kind;
          def.arity = p.out.size();
        } else if (def.arity != p.out.size()) {
          throw InputError(rt.loc, "tensor " + p.out_name + " is accessed with " + std::to_string(p.out.size()) +
                                       " and with " + std::to_string(def.arity) + " indices");
        }
        def.pieces.push_back(&p);
      }
    }
  };
  add_lines(st.reads, Access::kRead);
  add_lines(st.writes, Access::kWrite);
  for (auto& [key, def] : defs) m.tensors.push_back(std::move(def));
  return m;
}

}  // namespace tenet_cost::tenet::detail
