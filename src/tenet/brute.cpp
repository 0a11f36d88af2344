// The brute-force counter: enumerate the statement instances of one box,
// encode space and time stamps as integers (mixed radix from interval
// bounds, so the numeric order of time codes is the lexicographic order),
// rank the occupied stamps (prev(t) = rank - 1: the previous OCCUPIED stamp
// of the global time domain), sort the instances by (time, PE), then sweep
// the time stamps in order keeping only the element sets of the current and
// the previous stamp.
#include <algorithm>
#include <numeric>

#include "model.hpp"

namespace tenet_cost::tenet::detail {
namespace {

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

/// Evaluates a (function-like) map relation at points.
struct MapEval {
  std::vector<Evaluator> ev;
  std::vector<bool> trivial;  // piece formula is `true`
  std::size_t arity = 0;
  std::vector<i64> tmp;
  explicit MapEval(const std::vector<const Piece*>& pieces, std::size_t ar) : arity(ar), tmp(ar) {
    for (const Piece* p : pieces) {
      ev.emplace_back(*p);
      trivial.push_back(p->disjuncts.size() == 1 && p->disjuncts[0].empty());
    }
  }
  /// Images of x written to out (k * arity values); returns k.
  std::size_t images(const i64* x, i64* out) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      ev[i].bind(x);
      if (!trivial[i] && !ev[i].holds()) continue;
      const Piece& p = ev[i].piece();
      for (std::size_t j = 0; j < arity; ++j) out[k * arity + j] = ev[i].value(p.out[j]);
      ++k;
    }
    return k;
  }
};

std::vector<const Piece*> pieces_of(const Relation& r) {
  std::vector<const Piece*> v;
  for (const Piece& p : r.pieces) v.push_back(&p);
  return v;
}

std::vector<Interval> image_bounds(const std::vector<const Piece*>& pieces, std::size_t arity,
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

std::string point_str(const std::string& name, const i64* v, std::size_t n) {
  std::string s = name + "[";
  for (std::size_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

/// One function value per point (exactly one image, or several equal ones).
i64 single_image(MapEval& me, const Encoder& enc, const i64* x, std::vector<i64>& buf, const Model& m,
                 const Relation& rel, const char* what) {
  const std::size_t k = me.images(x, buf.data());
  if (k == 0)
    throw InputError(rel.loc, std::string(what) + " does not map the statement instance " +
                                  point_str(m.stmt_name, x, m.nd) + " (it must be defined on the whole domain)");
  const i64 c = enc.encode(buf.data());
  for (std::size_t i = 1; i < k; ++i)
    if (enc.encode(buf.data() + i * me.arity) != c)
      throw InputError(rel.loc, std::string(what) + " maps the statement instance " + point_str(m.stmt_name, x, m.nd) +
                                    " to more than one point (it must be a function)");
  return c;
}

struct StampBuf {
  std::vector<std::uint32_t> s;    // PE rank of each group, ascending
  std::vector<std::uint32_t> ptr;  // group g's elements: e[ptr[g], ptr[g+1])
  std::vector<i64> e;
  void clear() {
    s.clear();
    ptr.assign(1, 0);
    e.clear();
  }
  std::vector<std::int32_t> index;  // PE rank -> group, -1 when the PE is idle at this stamp
  void init(std::size_t nS) {
    index.assign(nS, -1);
    clear();
  }
  void reset() {
    for (std::uint32_t pe : s) index[pe] = -1;
    clear();
  }
  [[nodiscard]] int find(std::uint32_t pe) const { return index[pe]; }
};

/// flags[i] |= bit for every element of [a, a_end) also in [b, b_end) (both sorted).
void mark(const i64* a, const i64* a_end, const i64* b, const i64* b_end, std::uint8_t* flags, std::uint8_t bit) {
  const i64* a0 = a;
  while (a != a_end && b != b_end) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      flags[a - a0] |= bit;
      ++a;
      ++b;
    }
  }
}

}  // namespace

Counts brute_force(const Model& m, const std::vector<Interval>& box, const std::vector<char>& want, i64 max_points) {
  Counts out;
  out.tensors.assign(m.tensors.size(), TensorCounts{});
  const std::size_t nd = m.nd;
  std::vector<i64> ext(nd);
  i64 n = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    ext[d] = box[d].hi - box[d].lo + 1;
    if (ext[d] <= 0) return out;
    n = checked_mul(n, ext[d], "number of statement instances");
  }
  if (n > max_points)
    throw InputError(m.domain.loc, "instance of " + std::to_string(n) + " statement instances exceeds the brute-force limit of " +
                                       std::to_string(max_points));

  const auto space_pieces = pieces_of(m.space);
  const auto time_pieces = pieces_of(m.time);
  Encoder senc, tenc;
  senc.init(image_bounds(space_pieces, m.ns, box), "PE coordinate range");
  tenc.init(image_bounds(time_pieces, m.nt, box), "time stamp range");
  MapEval sev(space_pieces, m.ns), tev(time_pieces, m.nt);
  std::vector<i64> sbuf(m.ns * space_pieces.size() + 1), tbuf(m.nt * time_pieces.size() + 1);
  std::vector<Evaluator> dom_ev;
  if (!m.is_box)
    for (const Piece& p : m.domain.pieces) dom_ev.emplace_back(p);

  const std::size_t N = static_cast<std::size_t>(n);
  constexpr i64 kAbsent = -1;
  std::vector<i64> tcode(N), scode(N);
  std::vector<i64> x(nd);
  for (std::size_t d = 0; d < nd; ++d) x[d] = box[d].lo;
  i64 present = 0;
  for (std::size_t p = 0; p < N; ++p) {
    bool in = true;
    if (!m.is_box) {
      in = false;
      for (auto& ev : dom_ev) {
        ev.bind(x.data());
        if (ev.holds()) {
          in = true;
          break;
        }
      }
    }
    if (in) {
      scode[p] = single_image(sev, senc, x.data(), sbuf, m, m.space, "the space map");
      tcode[p] = single_image(tev, tenc, x.data(), tbuf, m, m.time, "the time map");
      ++present;
    } else {
      scode[p] = tcode[p] = kAbsent;
    }
    for (std::size_t d = nd; d-- > 0;) {
      if (++x[d] <= box[d].hi) break;
      x[d] = box[d].lo;
    }
  }
  out.points = present;
  if (present == 0) return out;

  // Rank time stamps and PEs.
  auto rank = [&](std::vector<i64>& codes, i64 range, std::vector<i64>& uniq) {
    uniq.clear();
    if (range <= 4 * n + 1024) {
      std::vector<std::int32_t> dense(static_cast<std::size_t>(range), -1);
      for (i64 c : codes)
        if (c != kAbsent) dense[static_cast<std::size_t>(c)] = 0;
      std::int32_t r = 0;
      for (std::size_t c = 0; c < dense.size(); ++c)
        if (dense[c] == 0) {
          dense[c] = r++;
          uniq.push_back(static_cast<i64>(c));
        }
      for (i64& c : codes)
        if (c != kAbsent) c = dense[static_cast<std::size_t>(c)];
    } else {
      for (i64 c : codes)
        if (c != kAbsent) uniq.push_back(c);
      std::sort(uniq.begin(), uniq.end());
      uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
      for (i64& c : codes)
        if (c != kAbsent) c = std::lower_bound(uniq.begin(), uniq.end(), c) - uniq.begin();
    }
  };
  std::vector<i64> tuniq, suniq;
  rank(tcode, tenc.range, tuniq);
  rank(scode, senc.range, suniq);
  const std::size_t nT = tuniq.size(), nS = suniq.size();
  out.nT = static_cast<i64>(nT);
  out.nS = static_cast<i64>(nS);

  // PE coordinates, PE-domain membership and interconnect neighbours of each active PE.
  std::vector<Evaluator> pe_ev;
  for (const Piece& p : m.pedom.pieces) pe_ev.emplace_back(p);
  MapEval icn(pieces_of(m.icn), m.ns);
  std::vector<i64> coord(m.ns), nb(m.ns * std::max<std::size_t>(1, m.icn.pieces.size()) + 1);
  std::vector<std::vector<std::uint32_t>> iex(nS);
  for (std::size_t r = 0; r < nS; ++r) {
    senc.decode(suniq[r], coord.data());
    bool inside = false;
    for (auto& ev : pe_ev) {
      ev.bind(coord.data());
      if (ev.holds()) {
        inside = true;
        break;
      }
    }
    if (!inside)
      throw InputError(m.space.loc, "the space map places statement instances on " + point_str(m.space.pieces[0].out_name, coord.data(), m.ns) +
                                        ", which is outside the PE domain " + m.pedom.text);
    if (m.icn.pieces.empty()) continue;
    const std::size_t k = icn.images(coord.data(), nb.data());
    for (std::size_t i = 0; i < k; ++i) {
      const i64* v = nb.data() + i * m.ns;
      if (!senc.inside(v)) continue;
      const i64 c = senc.encode(v);
      if (c == suniq[r]) continue;  // exact-1 neighbours exclude the PE itself
      auto it = std::lower_bound(suniq.begin(), suniq.end(), c);
      if (it != suniq.end() && *it == c) iex[r].push_back(static_cast<std::uint32_t>(it - suniq.begin()));
    }
    std::sort(iex[r].begin(), iex[r].end());
    iex[r].erase(std::unique(iex[r].begin(), iex[r].end()), iex[r].end());
  }

  // Order the instances by (time rank, PE rank): counting sort by time, then sort each bucket by PE.
  std::vector<std::uint32_t> tstart(nT + 1, 0);
  for (std::size_t p = 0; p < N; ++p)
    if (tcode[p] != kAbsent) ++tstart[static_cast<std::size_t>(tcode[p]) + 1];
  for (std::size_t t = 0; t < nT; ++t) tstart[t + 1] += tstart[t];
  std::vector<std::uint32_t> order(static_cast<std::size_t>(present));
  {
    std::vector<std::uint32_t> fill(tstart.begin(), tstart.end() - 1);
    for (std::size_t p = 0; p < N; ++p)
      if (tcode[p] != kAbsent) order[fill[static_cast<std::size_t>(tcode[p])]++] = static_cast<std::uint32_t>(p);
  }
  std::vector<i64>().swap(tcode);
  for (std::size_t t = 0; t < nT; ++t) {
    auto b = order.begin() + tstart[t], e = order.begin() + tstart[t + 1];
    std::stable_sort(b, e, [&](std::uint32_t a, std::uint32_t c) { return scode[a] < scode[c]; });
  }
  i64 nstd = 0;
  for (std::size_t t = 0; t < nT; ++t)
    for (std::uint32_t i = tstart[t]; i < tstart[t + 1]; ++i)
      if (i == tstart[t] || scode[order[i]] != scode[order[i - 1]]) ++nstd;
  out.nSTD = nstd;

  // Per tensor: sweep the stamps.
  std::vector<i64> stride(nd, 1);
  for (std::size_t d = nd; d-- > 1;) stride[d - 1] = stride[d] * ext[d];
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    if (!want[k]) continue;
    const TensorDef& td = m.tensors[k];
    Encoder eenc;
    eenc.init(image_bounds(td.pieces, td.arity, box), "tensor index range");
    MapEval aev(td.pieces, td.arity);
    std::vector<i64> ebuf(td.arity * td.pieces.size() + 1), codes(td.pieces.size() + 1);
    TensorCounts& tc = out.tensors[k];
    StampBuf prev, cur;
    prev.init(nS);
    cur.init(nS);
    std::vector<std::uint8_t> flags;
    for (std::size_t t = 0; t < nT; ++t) {
      cur.reset();
      for (std::uint32_t i = tstart[t]; i < tstart[t + 1]; ++i) {
        const std::uint32_t p = order[i];
        const auto s = static_cast<std::uint32_t>(scode[p]);
        if (cur.s.empty() || cur.s.back() != s) {
          if (!cur.s.empty()) {
            auto gb = cur.e.begin() + cur.ptr.back();
            std::sort(gb, cur.e.end());
            cur.e.erase(std::unique(gb, cur.e.end()), cur.e.end());
            cur.ptr.push_back(static_cast<std::uint32_t>(cur.e.size()));
          }
          cur.index[s] = static_cast<std::int32_t>(cur.s.size());
          cur.s.push_back(s);
        }
        i64 rem = p;
        for (std::size_t d = 0; d < nd; ++d) {
          x[d] = box[d].lo + rem / stride[d];
          rem %= stride[d];
        }
        const std::size_t na = aev.images(x.data(), ebuf.data());
        for (std::size_t a = 0; a < na; ++a) codes[a] = eenc.encode(ebuf.data() + a * td.arity);
        if (na > 1) {
          std::sort(codes.begin(), codes.begin() + static_cast<std::ptrdiff_t>(na));
          const auto u = std::unique(codes.begin(), codes.begin() + static_cast<std::ptrdiff_t>(na)) - codes.begin();
          tc.tv += u;
          cur.e.insert(cur.e.end(), codes.begin(), codes.begin() + u);
        } else {
          tc.tv += static_cast<i64>(na);
          if (na == 1) cur.e.push_back(codes[0]);
        }
      }
      {
        auto gb = cur.e.begin() + cur.ptr.back();
        std::sort(gb, cur.e.end());
        cur.e.erase(std::unique(gb, cur.e.end()), cur.e.end());
        cur.ptr.push_back(static_cast<std::uint32_t>(cur.e.size()));
      }
      if (cur.e.size() >= (std::size_t{1} << 32)) throw InputError("brute-force instance too large");
      // Metrics of every group of stamp t.
      for (std::size_t g = 0; g < cur.s.size(); ++g) {
        const i64* a = cur.e.data() + cur.ptr[g];
        const i64* a_end = cur.e.data() + cur.ptr[g + 1];
        const std::size_t sz = static_cast<std::size_t>(a_end - a);
        if (sz == 0) continue;
        flags.assign(sz, 0);
        const std::uint32_t s = cur.s[g];
        if (t > 0) {
          const int pg = prev.find(s);
          if (pg >= 0) mark(a, a_end, prev.e.data() + prev.ptr[pg], prev.e.data() + prev.ptr[pg + 1], flags.data(), 1);
        }
        for (std::uint32_t s2 : iex[s]) {
          const int cg = cur.find(s2);
          if (cg >= 0) mark(a, a_end, cur.e.data() + cur.ptr[cg], cur.e.data() + cur.ptr[cg + 1], flags.data(), 2);
          if (t > 0) {
            const int pg = prev.find(s2);
            if (pg >= 0) mark(a, a_end, prev.e.data() + prev.ptr[pg], prev.e.data() + prev.ptr[pg + 1], flags.data(), 2);
          }
        }
        for (std::uint8_t f : flags) {
          tc.uv += f == 0;
          tc.uvt += (f & 1) == 0;
          tc.spi += (f & 2) != 0;
        }
      }
      std::swap(prev, cur);
    }
  }
  return out;
}

}  // namespace tenet_cost::tenet::detail
