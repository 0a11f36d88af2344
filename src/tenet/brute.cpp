// The brute-force counter: enumerate the statement instances of one box,
// encode space and time stamps as integers (mixed radix from interval
// bounds, so the numeric order of time codes is the lexicographic order),
// rank the occupied stamps (prev(t) = rank - 1: the previous OCCUPIED stamp
// of the global time domain), sort the instances by (time, PE), then sweep
// the time stamps in order keeping only the element sets of the current and
// the previous stamp.
#include <algorithm>
#include <memory>
#include <numeric>

#include "tenet/count/counter.hpp"
#include "tenet/fast_map.hpp"
#include "tenet/model.hpp"

namespace tenet_cost::tenet::detail {
namespace {

constexpr i64 kNone = INT64_MAX;  // no image
constexpr i64 kAbsent = -1;       // space/time code of an instance outside a non-box domain
constexpr std::uint32_t kNoInstance = UINT32_MAX;

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

/// Step of a sorted, de-duplicated run of elements when it is an arithmetic progression of at least two
/// elements (e.g. a conv's input elements I[.., 4ox + rx, ..] of one (stamp, PE): rx varies), else 0.
i64 progression_step(const i64* a, const i64* a_end) {
  if (a_end - a < 2) return 0;
  const i64 s = a[1] - a[0];
  for (const i64* p = a + 2; p < a_end; ++p)
    if (p[0] - p[-1] != s) return 0;
  return s;
}

/// mark() for two runs: when both are arithmetic progressions with one step s (sa = sb = s > 0), their common
/// elements are a contiguous index range of a (b[0] = a[0] + o s for an integer o: a's indices o .. o + |b| - 1),
/// found without comparing elements; otherwise the merge.
void mark_runs(const i64* a, const i64* a_end, i64 sa, const i64* b, const i64* b_end, i64 sb, std::uint8_t* flags,
               std::uint8_t bit) {
  if (sa <= 0 || sa != sb) {
    mark(a, a_end, b, b_end, flags, bit);
    return;
  }
  const i64 diff = b[0] - a[0];  // codes are < the encoder's range: no overflow
  if (diff % sa != 0) return;
  const i64 o = diff / sa, na = a_end - a, nb = b_end - b;
  for (i64 i = std::max<i64>(0, o), e = std::min(na, o + nb); i < e; ++i) flags[i] |= bit;
}

/// The time limit, checked once per kEvery units of work (instances, cells, elements): a clock read per ~100 us.
struct Poll {
  static constexpr std::size_t kEvery = std::size_t{1} << 16;
  const Limits* limits = nullptr;  // nullptr: no limit
  std::size_t since = 0;           // units since the last check
  /// Throws past the time limit.
  void check() const {
    if (limits != nullptr) limits->check_time();
  }
  void tick(std::size_t units) {
    since += units;
    if (since < kEvery) return;
    since = 0;
    check();
  }
};

/// Sort `v` ascending in chunks merged pairwise, polling between them (std::sort of 3*10^7 codes takes seconds).
void polled_sort(std::vector<i64>& v, Poll& poll) {
  constexpr std::size_t kChunk = std::size_t{1} << 18;
  const std::size_t n = v.size();
  for (std::size_t b = 0; b < n; b += kChunk) {
    std::sort(v.begin() + static_cast<std::ptrdiff_t>(b),
              v.begin() + static_cast<std::ptrdiff_t>(std::min(n, b + kChunk)));
    poll.tick(kChunk);
  }
  for (std::size_t w = kChunk; w < n; w *= 2)
    for (std::size_t b = 0; b + w < n; b += 2 * w) {
      const auto first = v.begin() + static_cast<std::ptrdiff_t>(b);
      std::inplace_merge(first, first + static_cast<std::ptrdiff_t>(w),
                         v.begin() + static_cast<std::ptrdiff_t>(std::min(n, b + 2 * w)));
      poll.tick(std::min(n, b + 2 * w) - b);
    }
}

/// v = n copies of x, polling between chunks (the first touch of 10^8 bytes takes a tenth of a second).
template <class T>
void assign_polled(std::vector<T>& v, std::size_t n, T x, Poll& poll) {
  v.clear();
  v.reserve(n);
  for (std::size_t b = 0; b < n; b += Poll::kEvery) {
    v.insert(v.end(), std::min(Poll::kEvery, n - b), x);
    poll.tick(Poll::kEvery);
  }
}

/// v.resize(n), polling between chunks of the growth.
template <class T>
void resize_polled(std::vector<T>& v, std::size_t n, Poll& poll) {
  if (n <= v.size()) {
    v.resize(n);
    return;
  }
  v.reserve(n);
  while (v.size() < n) {
    v.resize(std::min(n, v.size() + Poll::kEvery));
    poll.tick(Poll::kEvery);
  }
}

/// The instances ordered by (time rank, PE rank) when no two share a (stamp, PE) pair (a unit space-time map, the
/// common case): one scatter into a dense (stamp, PE) table (ws.tmp) and one scan instead of two counting sorts and
/// a pass finding the groups. The result is the same: with distinct keys the sorted order is unique, and every
/// instance is its own group (ws.order, ws.gstart, ws.gs; tg[t]: first group of stamp t). Then scode[p] becomes the
/// cell t * nS + s of instance p (the PE codes are not needed any more). False, with tcode and scode unchanged, when
/// the table would be much larger than the instances or two instances share a pair; the caller sorts.
bool unit_order(const std::vector<i64>& tcode, std::vector<i64>& scode, std::size_t nT, std::size_t nS, i64 present,
                Workspace& ws, std::vector<std::uint32_t>& tg, Poll& poll) {
  const std::size_t cells = nT * nS;  // nT, nS <= present < 2^32: no overflow in 64 bits
  const auto np = static_cast<std::size_t>(present);
  if (nS == 0 || cells / nS != nT || cells > np + np / 4 + 1024 || cells >= kNoInstance) return false;
  std::vector<std::uint32_t>& cell = ws.tmp;
  assign_polled(cell, cells, kNoInstance, poll);
  const std::size_t n = tcode.size();
  for (std::size_t p = 0; p < n; ++p) {
    if (p % Poll::kEvery == 0) poll.check();
    if (tcode[p] == kAbsent) continue;
    std::uint32_t& c = cell[static_cast<std::size_t>(tcode[p]) * nS + static_cast<std::size_t>(scode[p])];
    if (c != kNoInstance) return false;  // two instances at one (stamp, PE)
    c = static_cast<std::uint32_t>(p);
  }
  resize_polled(ws.order, np, poll);
  resize_polled(ws.gstart, np + 1, poll);
  resize_polled(ws.gs, np, poll);
  std::uint32_t i = 0;
  for (std::size_t t = 0; t < nT; ++t) {
    poll.tick(nS + 1);
    tg[t] = i;
    const std::uint32_t* row = cell.data() + t * nS;
    for (std::size_t s = 0; s < nS; ++s)
      if (row[s] != kNoInstance) {
        ws.order[i] = row[s];
        ws.gstart[i] = i;
        ws.gs[i] = static_cast<std::uint32_t>(s);
        ++i;
      }
  }
  tg[nT] = i;
  ws.gstart[i] = i;
  for (std::size_t p = 0; p < n; ++p) {
    if (p % Poll::kEvery == 0) poll.check();
    if (tcode[p] != kAbsent) scode[p] += tcode[p] * static_cast<i64>(nS);
  }
  return true;
}

void small_sort(i64* b, i64* e) {
  if (e - b <= 16) {
    for (i64* i = b + 1; i < e; ++i) {
      const i64 v = *i;
      i64* j = i;
      while (j > b && *(j - 1) > v) {
        *j = *(j - 1);
        --j;
      }
      *j = v;
    }
  } else {
    std::sort(b, e);
  }
}

/// The enumerated instances of one box in odometer order (the last dimension fastest): the values of each dimension
/// (lo + step * (i / sub) + i % sub: `sub` residues of every step-tile) and the odometer's position.
struct Grid {
  std::size_t nd = 0;
  std::vector<i64> ext;                // enumerated values per dimension
  std::vector<std::vector<i64>> vals;  // the values of each dimension
  std::size_t N = 0;                   // instances (product of ext)
  std::size_t run_len = 1;             // values of the innermost dimension
  std::vector<i64> x;                  // the current instance (odometer)
  std::vector<std::uint32_t> idx;      // its value indices
  Poll* poll = nullptr;                // the time limit (checked every Poll::kEvery instances)

  /// Throws past the time limit.
  void check_time() const { poll->check(); }
  /// body(p) for every instance p, with x and idx set.
  template <class Body>
  void odometer(Body&& body) {
    for (std::size_t d = 0; d < nd; ++d) {
      x[d] = vals[d][0];
      idx[d] = 0;
    }
    for (std::size_t p = 0; p < N; ++p) {
      if (p % Poll::kEvery == 0) check_time();
      body(p);
      for (std::size_t d = nd; d-- > 0;) {
        if (++idx[d] < ext[d]) {
          x[d] = vals[d][idx[d]];
          break;
        }
        x[d] = vals[d][0];
        idx[d] = 0;
      }
    }
  }
  /// Runs of the innermost dimension: body(p0) for the first instance p0 of every run, with idx[0 .. nd-2] set
  /// (separable codes: outer sum + one table per point).
  template <class Body>
  void runs(Body&& body) {
    for (std::size_t d = 0; d < nd; ++d) idx[d] = 0;
    for (std::size_t p0 = 0; p0 < N; p0 += run_len) {
      poll->tick(run_len);
      body(p0);
      for (std::size_t d = nd - 1; d-- > 0;) {
        if (++idx[d] < ext[d]) break;
        idx[d] = 0;
      }
    }
  }
  /// A separable piece's code without the innermost dimension's term, at idx.
  [[nodiscard]] i64 outer_sum(const FastPiece& fp) const {
    i64 v = fp.sep_c;
    for (std::size_t d = 0; d + 1 < nd; ++d) v += fp.tab[d][idx[d]];
    return v;
  }
};

/// Encode: the time and PE code of every instance (kAbsent outside a non-box domain); returns the instances present.
i64 encode_stamps(const Model& m, Grid& grid, FastMap& sev, FastMap& tev, std::vector<i64>& tcode,
                  std::vector<i64>& scode) {
  const std::size_t nd = grid.nd;
  const bool st_fast = m.is_box && sev.fast && tev.fast && sev.pieces.size() == 1 && tev.pieces.size() == 1;
  if (st_fast && nd > 0) {
    const FastPiece& sp = sev.pieces[0];
    const FastPiece& tp = tev.pieces[0];
    const i64* stab = sp.tab[nd - 1].data();
    const i64* ttab = tp.tab[nd - 1].data();
    const std::size_t run_len = grid.run_len;
    grid.runs([&](std::size_t p0) {
      const i64 sb = grid.outer_sum(sp), tb = grid.outer_sum(tp);
      i64* sc = scode.data() + p0;
      i64* tcd = tcode.data() + p0;
      for (std::size_t i = 0; i < run_len; ++i) {
        sc[i] = sb + stab[i];
        tcd[i] = tb + ttab[i];
      }
    });
    return static_cast<i64>(grid.N);
  }
  if (st_fast) {
    const FastPiece& sp = sev.pieces[0];
    const FastPiece& tp = tev.pieces[0];
    grid.odometer([&](std::size_t p) {
      scode[p] = sp.sep_value(grid.idx.data());
      tcode[p] = tp.sep_value(grid.idx.data());
    });
    return static_cast<i64>(grid.N);
  }
  std::vector<Evaluator> dom_ev;
  if (!m.is_box)
    for (const Piece& p : m.domain.pieces) dom_ev.emplace_back(p);
  i64 present = 0;
  grid.odometer([&](std::size_t p) {
    if (!m.is_box) {
      bool in = false;
      for (auto& ev : dom_ev) {
        ev.bind(grid.x.data());
        if (ev.holds()) {
          in = true;
          break;
        }
      }
      if (!in) {
        scode[p] = tcode[p] = kAbsent;
        return;
      }
    }
    scode[p] = sev.single(grid.x.data(), m, m.space, "the space map");
    tcode[p] = tev.single(grid.x.data(), m, m.time, "the time map");
    ++present;
  });
  return present;
}

/// Rank the codes in place (dense tables when the code range is small); `uniq` gets the distinct codes in order.
void rank_codes(std::vector<i64>& codes, i64 range, i64 n, Workspace& ws, std::vector<i64>& uniq, Poll& poll) {
  uniq.clear();
  const std::size_t nc = codes.size();
  if (range <= 4 * n + 1024) {
    std::vector<std::int32_t>& dense = ws.dense;
    assign_polled(dense, static_cast<std::size_t>(range), std::int32_t{-1}, poll);
    for (std::size_t p = 0; p < nc; ++p) {
      if (p % Poll::kEvery == 0) poll.check();
      if (codes[p] != kAbsent) dense[static_cast<std::size_t>(codes[p])] = 0;
    }
    std::int32_t r = 0;
    for (std::size_t c = 0; c < dense.size(); ++c) {
      if (c % Poll::kEvery == 0) poll.check();
      if (dense[c] == 0) {
        dense[c] = r++;
        uniq.push_back(static_cast<i64>(c));
      }
    }
    for (std::size_t p = 0; p < nc; ++p) {
      if (p % Poll::kEvery == 0) poll.check();
      if (codes[p] != kAbsent) codes[p] = dense[static_cast<std::size_t>(codes[p])];
    }
  } else {
    for (i64 c : codes)
      if (c != kAbsent) uniq.push_back(c);
    polled_sort(uniq, poll);
    uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
    for (std::size_t p = 0; p < nc; ++p) {
      if (p % Poll::kEvery == 0) poll.check();
      if (codes[p] != kAbsent) codes[p] = std::lower_bound(uniq.begin(), uniq.end(), codes[p]) - uniq.begin();
    }
  }
}

/// The interconnect neighbours (PE ranks) of every active PE, checking that each lies in the PE domain.
std::vector<std::vector<std::uint32_t>> neighbours(const Model& m, const Encoder& senc, const std::vector<i64>& suniq) {
  std::vector<Evaluator> pe_ev;
  for (const Piece& p : m.pedom.pieces) pe_ev.emplace_back(p);
  std::vector<Evaluator> icn_ev;
  for (const Piece& p : m.icn.pieces) icn_ev.emplace_back(p);
  std::vector<i64> coord(m.ns + 1), nb(m.ns + 1);
  std::vector<std::vector<std::uint32_t>> iex(suniq.size());
  for (std::size_t r = 0; r < suniq.size(); ++r) {
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
      throw InputError(m.space.loc, "the space map places statement instances on " +
                                        point_str(m.space.pieces[0].out_name, coord.data(), m.ns) +
                                        ", which is outside the PE domain " + m.pedom.text);
    for (auto& ev : icn_ev) {
      ev.bind(coord.data());
      if (!ev.holds()) continue;
      for (std::size_t j = 0; j < m.ns; ++j) nb[j] = ev.value(ev.piece().out[j]);
      if (!senc.inside(nb.data())) continue;
      const i64 c = senc.encode(nb.data());
      if (c == suniq[r]) continue;  // exact-1 neighbours exclude the PE itself
      auto it = std::lower_bound(suniq.begin(), suniq.end(), c);
      if (it != suniq.end() && *it == c) iex[r].push_back(static_cast<std::uint32_t>(it - suniq.begin()));
    }
    std::sort(iex[r].begin(), iex[r].end());
    iex[r].erase(std::unique(iex[r].begin(), iex[r].end()), iex[r].end());
  }
  return iex;
}

/// Order: the instances by (time rank, PE rank) and the groups (a group = one (stamp, PE) pair) into ws.order,
/// ws.gstart, ws.gs and tg: a unit map through a dense table (unit_order; returns true), otherwise two stable
/// counting sorts.
bool order_instances(const std::vector<i64>& tcode, std::vector<i64>& scode, std::size_t nT, std::size_t nS,
                     i64 present, Workspace& ws, std::vector<std::uint32_t>& tg, Poll& poll) {
  if (unit_order(tcode, scode, nT, nS, present, ws, tg, poll)) return true;
  const std::size_t N = tcode.size();
  std::vector<std::uint32_t>& order = ws.order;
  std::vector<std::uint32_t>& tmp = ws.tmp;
  std::vector<std::uint32_t>& gstart = ws.gstart;  // first position of each group
  std::vector<std::uint32_t>& gs = ws.gs;          // its PE rank
  resize_polled(tmp, static_cast<std::size_t>(present), poll);
  resize_polled(order, static_cast<std::size_t>(present), poll);
  std::vector<std::uint32_t> tstart(nT + 1, 0);
  {
    std::vector<std::uint32_t> cnt(nS + 1, 0);
    for (std::size_t p = 0; p < N; ++p)
      if (scode[p] != kAbsent) ++cnt[static_cast<std::size_t>(scode[p]) + 1];
    for (std::size_t i = 0; i < nS; ++i) cnt[i + 1] += cnt[i];
    poll.tick(N + nS);
    for (std::size_t p = 0; p < N; ++p) {
      if (p % Poll::kEvery == 0) poll.check();
      if (scode[p] != kAbsent) tmp[cnt[static_cast<std::size_t>(scode[p])]++] = static_cast<std::uint32_t>(p);
    }
  }
  for (std::size_t p = 0; p < N; ++p)
    if (tcode[p] != kAbsent) ++tstart[static_cast<std::size_t>(tcode[p]) + 1];
  for (std::size_t t = 0; t < nT; ++t) tstart[t + 1] += tstart[t];
  poll.tick(N + nT);
  {
    std::vector<std::uint32_t> fill(tstart.begin(), tstart.end() - 1);
    for (std::size_t i = 0; i < tmp.size(); ++i) {
      if (i % Poll::kEvery == 0) poll.check();
      const std::uint32_t p = tmp[i];
      order[fill[static_cast<std::size_t>(tcode[p])]++] = p;
    }
  }
  gstart.clear();
  gs.clear();
  gstart.reserve(order.size() + 1);
  gs.reserve(order.size());
  for (std::size_t t = 0; t < nT; ++t) {
    poll.tick(tstart[t + 1] - tstart[t] + 1);
    tg[t] = static_cast<std::uint32_t>(gstart.size());
    i64 last = -1;
    for (std::uint32_t i = tstart[t]; i < tstart[t + 1]; ++i) {
      const i64 sc = scode[order[i]];
      if (sc != last) {
        gstart.push_back(i);
        gs.push_back(static_cast<std::uint32_t>(sc));
        last = sc;
      }
    }
  }
  tg[nT] = static_cast<std::uint32_t>(gstart.size());
  gstart.push_back(static_cast<std::uint32_t>(present));
  return false;
}

/// The (stamp, PE) groups in order and the neighbourhood of each: visit(g, s) for every group g (PE rank s) of
/// stamp t = 0, 1, ... with cur[s'] the group of PE s' at stamp t and prev[s'] its group at the previous occupied
/// stamp (-1: none). The end-of-stamp bookkeeping of both sweeps over sorted groups; cur and prev (nS entries, all
/// -1) are left all -1.
template <class Visit>
void for_each_group(const std::vector<std::uint32_t>& tg, const std::vector<std::uint32_t>& gs,
                    std::vector<std::int32_t>& cur, std::vector<std::int32_t>& prev, Poll& poll, Visit&& visit) {
  const std::size_t nT = tg.size() - 1;
  for (std::size_t t = 0; t < nT; ++t) {
    poll.tick(tg[t + 1] - tg[t] + 1);
    for (std::uint32_t g = tg[t]; g < tg[t + 1]; ++g) cur[gs[g]] = static_cast<std::int32_t>(g);
    for (std::uint32_t g = tg[t]; g < tg[t + 1]; ++g) visit(g, gs[g]);
    if (t > 0)
      for (std::uint32_t g = tg[t - 1]; g < tg[t]; ++g) prev[gs[g]] = -1;
    for (std::uint32_t g = tg[t]; g < tg[t + 1]; ++g) {
      prev[gs[g]] = static_cast<std::int32_t>(g);
      cur[gs[g]] = -1;
    }
  }
  for (std::uint32_t g = nT ? tg[nT - 1] : 0; g < tg[nT]; ++g) prev[gs[g]] = -1;
}

/// The unique, temporal-unique and spatial-intersection counts of one tensor.
struct SweepCounts {
  i64 uv = 0, uvt = 0, spi = 0;
  void add(bool in_t, bool in_s) {
    uv += !(in_t || in_s);
    uvt += !in_t;
    spi += in_s;
  }
};

/// Sweep of a unit (stamp, PE) table holding one element per cell (kNone when idle): prev(t) is row t - 1.
SweepCounts sweep_table(const std::vector<i64>& ec, std::size_t nT, std::size_t nS,
                        const std::vector<std::vector<std::uint32_t>>& iex, Poll& poll) {
  SweepCounts c;
  for (std::size_t t = 0; t < nT; ++t) {
    poll.tick(nS + 1);
    const i64* cur = ec.data() + t * nS;
    const i64* prv = t > 0 ? cur - nS : nullptr;
    for (std::size_t s = 0; s < nS; ++s) {
      const i64 e0 = cur[s];
      if (e0 == kNone) continue;
      const bool in_t = prv != nullptr && prv[s] == e0;
      bool in_s = false;
      for (std::uint32_t s2 : iex[s])
        if (cur[s2] == e0 || (prv != nullptr && prv[s2] == e0)) {
          in_s = true;
          break;
        }
      c.add(in_t, in_s);
    }
  }
  return c;
}

/// The elements of one tensor laid out in (stamp, PE) order and the sweep over them.
struct TensorSweep {
  const Workspace& ws;
  const std::vector<std::uint32_t>& tg;
  const std::vector<std::vector<std::uint32_t>>& iex;
  std::vector<std::int32_t>& cur_idx;
  std::vector<std::int32_t>& prev_idx;
  const std::vector<i64>& ec;              // na element codes per instance, in (stamp, PE) order
  std::size_t na;                          // slots per instance
  const std::vector<std::uint32_t>& gend;  // per group: end of its unique elements
  const std::vector<i64>& gstep;           // per group: progression_step() of its elements (0: none)
  Poll& poll;                              // the time limit

  /// Every (PE, stamp) holds one instance with at most one element: ec[g] is group g's element (kNone when none).
  SweepCounts unit() {
    SweepCounts c;
    const i64* e = ec.data();
    for_each_group(tg, ws.gs, cur_idx, prev_idx, poll, [&](std::uint32_t g, std::uint32_t s) {
      const i64 e0 = e[g];
      if (e0 == kNone) return;
      auto has = [&](std::int32_t gi) { return gi >= 0 && e[gi] == e0; };
      const bool in_t = has(prev_idx[s]);
      bool in_s = false;
      for (std::uint32_t s2 : iex[s])
        if (has(cur_idx[s2]) || has(prev_idx[s2])) {
          in_s = true;
          break;
        }
      c.add(in_t, in_s);
    });
    return c;
  }

  /// Sorted, de-duplicated groups: each element of a group against the previous stamp's group of its PE and the
  /// neighbours' groups of this and the previous stamp.
  SweepCounts general(std::vector<std::uint8_t>& flags) {
    SweepCounts c;
    const i64* codes = ec.data();
    const std::uint32_t* gstart = ws.gstart.data();
    const std::size_t slots = na;
    auto blk = [&](std::size_t g) { return codes + static_cast<std::size_t>(gstart[g]) * slots; };
    for_each_group(tg, ws.gs, cur_idx, prev_idx, poll, [&](std::uint32_t g, std::uint32_t s) {
      const i64* a = blk(g);
      const std::size_t sz = gend[g];
      if (sz == 0) return;
      const i64* a_end = a + sz;
      if (sz == 1) {
        // Common case (injective maps): one element, test membership directly.
        const i64 e0 = *a;
        auto has = [&](std::int32_t gi) {
          if (gi < 0) return false;
          const i64* b = blk(static_cast<std::size_t>(gi));
          const i64* b_end = b + gend[static_cast<std::size_t>(gi)];
          if (b_end - b <= 8) {
            for (; b != b_end; ++b)
              if (*b == e0) return true;
            return false;
          }
          return std::binary_search(b, b_end, e0);
        };
        const bool in_t = has(prev_idx[s]);
        bool in_s = false;
        for (std::uint32_t s2 : iex[s]) {
          if (has(cur_idx[s2]) || has(prev_idx[s2])) {
            in_s = true;
            break;
          }
        }
        c.add(in_t, in_s);
        return;
      }
      flags.assign(sz, 0);
      if (prev_idx[s] >= 0) {
        const auto pg = static_cast<std::size_t>(prev_idx[s]);
        mark_runs(a, a_end, gstep[g], blk(pg), blk(pg) + gend[pg], gstep[pg], flags.data(), 1);
      }
      for (std::uint32_t s2 : iex[s]) {
        if (cur_idx[s2] >= 0) {
          const auto cg = static_cast<std::size_t>(cur_idx[s2]);
          mark_runs(a, a_end, gstep[g], blk(cg), blk(cg) + gend[cg], gstep[cg], flags.data(), 2);
        }
        if (prev_idx[s2] >= 0) {
          const auto pg = static_cast<std::size_t>(prev_idx[s2]);
          mark_runs(a, a_end, gstep[g], blk(pg), blk(pg) + gend[pg], gstep[pg], flags.data(), 2);
        }
      }
      for (std::uint8_t f : flags) c.add((f & 1) != 0, (f & 2) != 0);
    });
    return c;
  }
};

/// Element codes of tensor td for every instance into ec, in (stamp, PE) order: na slots per instance (sorted,
/// de-duplicated, padded with kNone) at pos[p] * na, or with a unit table and one access in the table itself (cell
/// cell_of[p]). Returns the total volume.
i64 element_codes(Grid& grid, FastMap& aev, bool in_table, const i64* cell_of, const std::uint32_t* pos,
                  const std::vector<char>& present_mask, std::vector<i64>& ec) {
  const std::size_t na = aev.pieces.size(), nd = grid.nd;
  if (aev.fast && na == 1 && nd > 0 && present_mask.empty()) {
    const FastPiece& fp = aev.pieces[0];
    const i64* ltab = fp.tab[nd - 1].data();
    const std::size_t run_len = grid.run_len;
    auto fill = [&](const auto* slot_of) {
      grid.runs([&](std::size_t p0) {
        const i64 b = grid.outer_sum(fp);
        const auto* ps = slot_of + p0;
        for (std::size_t i = 0; i < run_len; ++i) ec[static_cast<std::size_t>(ps[i])] = b + ltab[i];
      });
    };
    if (in_table) {
      fill(cell_of);
    } else {
      fill(pos);
    }
    return static_cast<i64>(grid.N);  // every instance is present (a box domain)
  }
  i64 tv = 0;
  grid.odometer([&](std::size_t p) {
    if (!present_mask.empty() && !present_mask[p]) return;
    i64* slot = ec.data() + (in_table ? static_cast<std::size_t>(cell_of[p]) : static_cast<std::size_t>(pos[p]) * na);
    std::size_t cnt = 0;
    if (aev.fast) {
      for (const auto& fp : aev.pieces) slot[cnt++] = fp.sep_value(grid.idx.data());
    } else {
      for (const auto& fp : aev.pieces) {
        i64 v;
        if (fp.eval(grid.x.data(), aev.cols.data(), v)) slot[cnt++] = v;
      }
    }
    if (cnt > 1) {
      small_sort(slot, slot + cnt);
      cnt = static_cast<std::size_t>(std::unique(slot, slot + cnt) - slot);
    }
    tv += static_cast<i64>(cnt);
    for (std::size_t a = cnt; a < na; ++a) slot[a] = kNone;
  });
  return tv;
}

/// Sort and de-duplicate every group's block of ec in place: gend = end of its unique elements, gstep its
/// progression step.
void sort_groups(const Workspace& ws, std::size_t na, std::vector<i64>& ec, std::vector<std::uint32_t>& gend,
                 std::vector<i64>& gstep, Poll& poll) {
  for (std::size_t g = 0; g < ws.gs.size(); ++g) {
    poll.tick(static_cast<std::size_t>(ws.gstart[g + 1] - ws.gstart[g]) * na + 1);
    i64* b = ec.data() + static_cast<std::size_t>(ws.gstart[g]) * na;
    i64* e = ec.data() + static_cast<std::size_t>(ws.gstart[g + 1]) * na;
    if (e - b > 1) small_sort(b, e);
    i64* u = e - b > 1 ? std::unique(b, e) : e;
    while (u > b && *(u - 1) == kNone) --u;
    gend[g] = static_cast<std::uint32_t>(u - ec.data() -
                                         static_cast<std::ptrdiff_t>(ws.gstart[g]) * static_cast<std::ptrdiff_t>(na));
    gstep[g] = progression_step(b, u);
  }
}

}  // namespace

Counts brute_force(const Model& m, const std::vector<Interval>& box, const std::vector<char>& want, i64 max_points,
                   const std::vector<i64>& step_in, const std::vector<i64>& sub_in, Workspace* workspace,
                   const Limits* limits) {
  Workspace local;
  Workspace& ws = workspace ? *workspace : local;
  std::vector<i64> step(step_in), sub(sub_in);
  step.resize(m.nd, 1);
  sub.resize(m.nd, 1);
  Counts out;
  out.tensors.assign(m.tensors.size(), TensorCounts{});
  const std::size_t nd = m.nd;
  Grid grid;
  grid.nd = nd;
  Poll poll{limits};
  grid.poll = &poll;
  grid.ext.resize(nd);
  i64 n = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    grid.ext[d] = box[d].hi < box[d].lo ? 0 : ((box[d].hi - box[d].lo) / step[d] + 1) * sub[d];
    if (grid.ext[d] <= 0) return out;
    n = checked_mul(n, grid.ext[d], "number of statement instances");
  }
  if (n > max_points)
    throw InputError(m.domain.loc, "instance of " + std::to_string(n) +
                                       " statement instances exceeds the brute-force limit of " +
                                       std::to_string(max_points));
  if (n >= (i64{1} << 32) - 1) throw InputError(m.domain.loc, "brute-force instance too large");

  // Encode: the stamps and PEs of every instance as mixed-radix codes.
  const auto space_pieces = pieces_of(m.space);
  const auto time_pieces = pieces_of(m.time);
  Encoder senc, tenc;
  senc.init(image_bounds(space_pieces, m.ns, box), "PE coordinate range");
  tenc.init(image_bounds(time_pieces, m.nt, box), "time stamp range");
  grid.vals.resize(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    grid.vals[d].resize(static_cast<std::size_t>(grid.ext[d]));
    for (i64 i = 0; i < grid.ext[d]; ++i)
      grid.vals[d][static_cast<std::size_t>(i)] = box[d].lo + step[d] * (i / sub[d]) + i % sub[d];
  }
  grid.N = static_cast<std::size_t>(n);
  grid.run_len = nd ? static_cast<std::size_t>(grid.ext[nd - 1]) : 1;
  grid.x.assign(nd, 0);
  grid.idx.assign(nd + 1, 0);
  FastMap sev(space_pieces, senc, grid.vals), tev(time_pieces, tenc, grid.vals);
  // Time codes, later (same storage) the element codes; PE codes. Reused buffers:
  // every slot read is written first (no clearing needed).
  std::vector<i64>& tcode = ws.codes_a;
  std::vector<i64>& scode = ws.codes_b;
  resize_polled(tcode, grid.N, poll);
  resize_polled(scode, grid.N, poll);
  const i64 present = encode_stamps(m, grid, sev, tev, tcode, scode);
  out.points = present;
  if (present == 0) return out;
  grid.check_time();

  // Order: rank the stamps and PEs, find the neighbours, sort the instances into (stamp, PE) groups.
  std::vector<i64> tuniq, suniq;
  rank_codes(tcode, tenc.range, n, ws, tuniq, poll);
  grid.check_time();
  rank_codes(scode, senc.range, n, ws, suniq, poll);
  grid.check_time();
  const std::size_t nT = tuniq.size(), nS = suniq.size();
  if (m.nt > 0) {
    const i64 rl = tenc.radix[m.nt - 1];  // codes: prefix * rl + (last - lo_last)
    for (std::size_t r = 1; r < nT && out.time_dense; ++r)
      if (tuniq[r] / rl == tuniq[r - 1] / rl && tuniq[r] != tuniq[r - 1] + 1) out.time_dense = false;
  }
  out.nT = static_cast<i64>(nT);
  out.nS = static_cast<i64>(nS);
  const auto iex = neighbours(m, senc, suniq);
  std::vector<std::uint32_t> tg(nT + 1, 0);  // groups of stamp t: [tg[t], tg[t+1])
  const bool table = order_instances(tcode, scode, nT, nS, present, ws, tg, poll);
  grid.check_time();
  out.nSTD = static_cast<i64>(ws.gs.size());
  bool any_tensor = false;
  for (std::size_t k = 0; k < m.tensors.size(); ++k) any_tensor = any_tensor || want[k];
  if (!any_tensor) return out;

  // Sweep, per tensor: element codes in (stamp, PE) order, then each group against its neighbourhood.
  // pos[p]: position of instance p in ws.order (reuses ws.tmp; only built when a tensor needs it).
  std::vector<std::uint32_t>& pos = ws.tmp;
  bool have_pos = false;
  std::vector<char> present_mask;
  if (!m.is_box) {
    assign_polled(present_mask, grid.N, char{0}, poll);
    for (std::uint32_t p : ws.order) present_mask[p] = 1;
  }
  std::vector<std::int32_t> cur_idx(nS, -1), prev_idx(nS, -1);
  std::vector<std::uint32_t> gend;  // sized when a tensor needs sort_groups
  std::vector<i64> gstep;           // progression_step() of each group's elements (0: none)
  std::vector<std::uint8_t> flags;
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    if (!want[k]) continue;
    const TensorDef& td = m.tensors[k];
    Encoder eenc;
    eenc.init(image_bounds(td.pieces, td.arity, box), "tensor index range");
    FastMap aev(td.pieces, eenc, grid.vals);
    const std::size_t na = aev.pieces.size();
    TensorCounts& tc = out.tensors[k];
    // With a unit (stamp, PE) table and one access, the element codes go into the table itself (cell t * nS + s,
    // kNone in an idle cell): the sweep then reads the cells of the previous stamp (rank t - 1) and of the
    // neighbour PEs directly.
    const bool in_table = table && na == 1;
    if (!in_table && !have_pos) {
      if (pos.size() < grid.N) resize_polled(pos, grid.N, poll);  // non-box domains: absent instances have no position
      for (std::size_t i = 0; i < ws.order.size(); ++i) {
        if (i % Poll::kEvery == 0) poll.check();
        pos[ws.order[i]] = static_cast<std::uint32_t>(i);
      }
      have_pos = true;
    }
    std::vector<i64>& ec = tcode;  // the time codes are no longer needed
    if (in_table) {
      assign_polled(ec, nT * nS, kNone, poll);
    } else {
      resize_polled(ec, static_cast<std::size_t>(present) * na, poll);
    }
    tc.tv = element_codes(grid, aev, in_table, scode.data(), pos.data(), present_mask, ec);
    grid.check_time();
    SweepCounts c;
    if (in_table) {
      c = sweep_table(ec, nT, nS, iex, poll);
    } else {
      const bool unit = na == 1 && ws.gs.size() == static_cast<std::size_t>(present);
      if (!unit) {
        resize_polled(gend, ws.gs.size(), poll);
        resize_polled(gstep, ws.gs.size(), poll);
        sort_groups(ws, na, ec, gend, gstep, poll);
      }
      TensorSweep sw{ws, tg, iex, cur_idx, prev_idx, ec, na, gend, gstep, poll};
      c = unit ? sw.unit() : sw.general(flags);
    }
    tc.uv = c.uv;
    tc.uvt = c.uvt;
    tc.spi = c.spi;
    grid.check_time();
  }
  return out;
}

}  // namespace tenet_cost::tenet::detail
