// Private to src/tenet (brute.cpp): the relations of a problem compiled for the brute force. Mixed-radix
// encoders of integer tuples, map pieces as sparse affine forms folded into the encoder's code (separable pieces as
// one table per dimension), and a map of several pieces evaluated to its single image.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tenet/model.hpp"

namespace tenet_cost::tenet::detail {

using relation::Evaluator;

/// Mixed-radix encoder of integer tuples with known bounds.
struct Encoder {
  std::vector<i64> lo, radix, stride;
  i64 range = 1;  // product of radices
  void init(const std::vector<Interval>& b, const char* what) {
    const std::size_t k = b.size();
    lo.resize(k);
    radix.resize(k);
    stride.assign(k, 1);
    range = 1;
    for (std::size_t i = 0; i < k; ++i) {
      lo[i] = b[i].lo;
      radix[i] = checked_add(checked_sub(b[i].hi, b[i].lo, what), 1, what);
      range = checked_mul(range, radix[i], what);
    }
    for (std::size_t i = k; i-- > 1;) stride[i - 1] = stride[i] * radix[i];
  }
  [[nodiscard]] i64 encode(const i64* v) const {
    i64 c = 0;
    for (std::size_t i = 0; i < lo.size(); ++i) c += (v[i] - lo[i]) * stride[i];
    return c;
  }
  [[nodiscard]] bool inside(const i64* v) const {
    for (std::size_t i = 0; i < lo.size(); ++i)
      if (v[i] < lo[i] || v[i] >= lo[i] + radix[i]) return false;
    return true;
  }
  void decode(i64 c, i64* v) const {
    for (std::size_t i = 0; i < lo.size(); ++i) {
      v[i] = lo[i] + c / stride[i];
      c %= stride[i];
    }
  }
};

inline std::vector<const Piece*> pieces_of(const Relation& r) {
  std::vector<const Piece*> v;
  for (const Piece& p : r.pieces) v.push_back(&p);
  return v;
}

inline std::vector<Interval> image_bounds(const std::vector<const Piece*>& pieces, std::size_t arity,
                                          const std::vector<Interval>& box) {
  std::vector<Interval> out(arity);
  bool first = true;
  for (const Piece* p : pieces) {
    const auto cols = relation::column_bounds(*p, box);
    for (std::size_t j = 0; j < arity; ++j) {
      const Interval b = relation::bounds(p->out[j], cols);
      if (first) {
        out[j] = b;
      } else {
        out[j].lo = std::min(out[j].lo, b.lo);
        out[j].hi = std::max(out[j].hi, b.hi);
      }
    }
    first = false;
  }
  return out;
}

inline std::string point_str(const std::string& name, const i64* v, std::size_t n) {
  std::string s = name + "[";
  for (std::size_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

/// A piece compiled for fast evaluation: sparse affine forms, and the
/// mixed-radix code of the output tuple folded into one affine form.
struct FastPiece {
  struct Lin {
    i64 c = 0;
    std::vector<std::pair<std::uint32_t, i64>> t;
  };
  struct FTerm {
    Lin num;
    i64 den = 1;
    bool mod = false;
  };
  const Piece* p = nullptr;
  std::size_t nv = 0;
  std::vector<FTerm> terms;
  Lin code;  // encoder code of the output tuple
  bool trivial = true;
  std::unique_ptr<Evaluator> ev;  // for pieces with constraints

  static Lin lin(const relation::Affine& a) {
    Lin l;
    l.c = a.constant;
    for (std::size_t i = 0; i < a.coeff.size(); ++i)
      if (a.coeff[i] != 0) l.t.emplace_back(static_cast<std::uint32_t>(i), a.coeff[i]);
    return l;
  }
  FastPiece(const Piece& pc, const Encoder& enc) : p(&pc), nv(pc.vars.size()) {
    for (const auto& t : pc.terms) terms.push_back({lin(t.num), t.den, t.kind == relation::Term::Kind::kMod});
    // code = sum_j stride_j * (out_j - lo_j)
    relation::Affine acc;
    for (std::size_t j = 0; j < pc.out.size(); ++j) {
      const auto& o = pc.out[j];
      acc.constant = checked_add(acc.constant, checked_mul(enc.stride[j], checked_sub(o.constant, enc.lo[j])));
      if (acc.coeff.size() < o.coeff.size()) acc.coeff.resize(o.coeff.size(), 0);
      for (std::size_t i = 0; i < o.coeff.size(); ++i)
        acc.coeff[i] = checked_add(acc.coeff[i], checked_mul(enc.stride[j], o.coeff[i]));
    }
    code = lin(acc);
    trivial = pc.disjuncts.size() == 1 && pc.disjuncts[0].empty();
    if (!trivial) ev = std::make_unique<Evaluator>(pc);
  }
  // Separable form: code(x) = sep_c + sum_d tab[d][x_d - lo_d] (when every term depends on one variable).
  bool separable = false;
  i64 sep_c = 0;
  std::vector<std::vector<i64>> tab;
  void build_tables(const std::vector<std::vector<i64>>& vals) {
    if (!trivial) return;
    const std::size_t nt = terms.size();
    std::vector<int> owner(nv + nt, -1);  // variable a column depends on (-2: several)
    for (std::size_t i = 0; i < nv; ++i) owner[i] = static_cast<int>(i);
    for (std::size_t k = 0; k < nt; ++k) {
      int o = -1;
      for (const auto& [col, a] : terms[k].num.t) {
        (void)a;
        const int w = owner[col];
        if (w == -2 || (o >= 0 && w >= 0 && w != o)) return;  // not separable
        if (w >= 0) o = w;
      }
      owner[nv + k] = o;
    }
    // i64 range guard: every table value must fit (codes are bounded by the encoder).
    std::vector<i64> cols(nv + nt, 0);
    auto eval_cols = [&]() {
      for (std::size_t k = 0; k < nt; ++k) {
        const i64 v = dot(terms[k].num, cols.data());
        cols[nv + k] = terms[k].mod ? floor_mod(v, terms[k].den) : floor_div(v, terms[k].den);
      }
    };
    std::fill(cols.begin(), cols.end(), 0);
    eval_cols();
    sep_c = code.c;
    for (const auto& [col, a] : code.t)
      if (owner[col] < 0) sep_c += a * cols[col];  // constant columns
    tab.assign(nv, {});
    for (std::size_t d = 0; d < nv; ++d) {
      const i64 ext = static_cast<i64>(vals[d].size());
      tab[d].resize(static_cast<std::size_t>(ext));
      for (i64 i = 0; i < ext; ++i) {
        std::fill(cols.begin(), cols.end(), 0);
        cols[d] = vals[d][static_cast<std::size_t>(i)];
        eval_cols();
        i64 v = 0;
        for (const auto& [col, a] : code.t)
          if (owner[col] == static_cast<int>(d)) v += a * cols[col];
        tab[d][static_cast<std::size_t>(i)] = v;
      }
    }
    separable = true;
  }
  [[nodiscard]] i64 sep_value(const std::uint32_t* idx) const {
    i64 v = sep_c;
    for (std::size_t d = 0; d < nv; ++d) v += tab[d][idx[d]];
    return v;
  }
  static i64 dot(const Lin& l, const i64* cols) {
    i64 v = l.c;
    for (const auto& [i, a] : l.t) v += a * cols[i];
    return v;
  }
  /// Code of the image of x, or false when the piece's formula rejects x.
  bool eval(const i64* x, i64* cols, i64& out) const {
    if (!trivial) {
      ev->bind(x);
      if (!ev->holds()) return false;
    }
    for (std::size_t i = 0; i < nv; ++i) cols[i] = x[i];
    for (std::size_t k = 0; k < terms.size(); ++k) {
      const i64 v = dot(terms[k].num, cols);
      cols[nv + k] = terms[k].mod ? floor_mod(v, terms[k].den) : floor_div(v, terms[k].den);
    }
    out = dot(code, cols);
    return true;
  }
};

struct FastMap {
  std::vector<FastPiece> pieces;
  std::vector<i64> cols;
  bool fast = false;  // one separable piece
  FastMap(const std::vector<const Piece*>& ps, const Encoder& enc, const std::vector<std::vector<i64>>& vals) {
    std::size_t nc = 1;
    for (const Piece* p : ps) {
      pieces.emplace_back(*p, enc);
      nc = std::max(nc, p->vars.size() + p->terms.size());
    }
    cols.resize(nc);
    bool all = true;
    for (auto& fp : pieces) {
      fp.build_tables(vals);
      all = all && fp.separable;
    }
    fast = all;
  }
  /// The single image code (throws when there is none or several distinct ones).
  i64 single(const i64* x, const Model& m, const Relation& rel, const char* what) {
    i64 c = 0;
    bool found = false;
    for (const auto& fp : pieces) {
      i64 v;
      if (!fp.eval(x, cols.data(), v)) continue;
      if (found && v != c)
        throw InputError(rel.loc, std::string(what) + " maps the statement instance " +
                                      point_str(m.stmt_name, x, m.nd) +
                                      " to more than one point (it must be a function)");
      c = v;
      found = true;
    }
    if (!found)
      throw InputError(rel.loc, std::string(what) + " does not map the statement instance " +
                                    point_str(m.stmt_name, x, m.nd) + " (it must be defined on the whole domain)");
    return c;
  }
};

}  // namespace tenet_cost::tenet::detail
