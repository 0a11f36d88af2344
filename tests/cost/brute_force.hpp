// Test oracle: a direct enumeration of TENET's definitions (docs/tenet-model.md §3)
// for the preset dataflows on a systolic array: |TD|, |SD| and per operand its total volume (a kGroup operand is
// accessed at k mod g = 0 only), its unique volume against the default neighbourhood and against the PE's own
// previous stamp. Independent of the closed forms.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tenet_cost/quant.hpp"

namespace tc_test {

/// R, C, tm, tn, tk of the closed-form vs brute-force comparisons: blocks that divide the tile and blocks that do not,
/// one-row / one-column arrays and single-value last folds (PE(0,0) hands its register over between folds).
inline const std::vector<std::array<int, 5>>& oracle_sizes() {
  static const std::vector<std::array<int, 5>> sizes = {
      {4, 4, 8, 8, 8},  {4, 4, 10, 9, 12}, {3, 5, 7, 11, 13}, {4, 4, 1, 9, 12}, {4, 4, 6, 4, 5},
      {2, 3, 5, 6, 16}, {1, 4, 5, 9, 7},   {4, 1, 9, 5, 7},   {1, 1, 3, 4, 5},  {1, 3, 4, 7, 6},
      {3, 1, 7, 4, 6},  {2, 2, 5, 5, 4},   {1, 1, 2, 3, 1},   {1, 3, 3, 4, 1},  {3, 1, 1, 5, 2}};
  return sizes;
}

struct BruteResult {
  long long time_stamps = 0, active_pes = 0;
  std::map<std::string, long long> unique, total, temporal_unique;
};

inline long long fdiv(long long a, long long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

inline BruteResult brute_force(const std::string& kind, int R, int C, int tm, int tn, int tk,
                               const std::vector<tenet_cost::quant::Operand>& ops) {
  using Stamp = std::vector<long long>;
  struct Pt { int p, q; Stamp t; int i, j, k; };
  std::vector<Pt> pts;
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn; ++j)
      for (int k = 0; k < tk; ++k) {
        Pt x{0, 0, {}, i, j, k};
        if (kind == "os") {
          x.p = i % R; x.q = j % C;
          x.t = {i / R, j / C, i % R + j % C + k};
        } else if (kind == "ws") {
          x.p = k % R; x.q = j % C;
          x.t = {j / C, k / R, i + j % C + k % R};
        } else if (kind == "is") {
          x.p = k % R; x.q = i % C;
          x.t = {i / C, k / R, j + i % C + k % R};
        } else {  // ncf
          x.p = j % R; x.q = k % C;
          x.t = {i / R, k / C, i % R, j / R};
        }
        pts.push_back(x);
      }
  std::set<Stamp> td;
  std::set<std::pair<int, int>> sd;
  for (const auto& x : pts) { td.insert(x.t); sd.insert({x.p, x.q}); }
  std::vector<Stamp> order(td.begin(), td.end());
  std::map<Stamp, int> index;
  for (std::size_t n = 0; n < order.size(); ++n) index[order[n]] = static_cast<int>(n);
  BruteResult r;
  r.time_stamps = static_cast<long long>(td.size());
  r.active_pes = static_cast<long long>(sd.size());
  for (const auto& op : ops) {
    std::map<std::tuple<int, int, int>, std::set<std::vector<long long>>> acc;
    long long total = 0;
    for (const auto& x : pts) {
      if (op.apply == tenet_cost::quant::Apply::kGroup && x.k % op.apply_group != 0) continue;
      ++total;
      std::vector<long long> e;
      for (const auto& t : op.index) {
        const long long v = t.dim == 'i' ? x.i : t.dim == 'j' ? x.j : t.dim == 'k' ? x.k : 0;
        e.push_back(t.dim == '0' ? 0 : fdiv(v, t.divisor));
      }
      acc[{x.p, x.q, index[x.t]}].insert(e);
    }
    long long uv = 0, uvt = 0;
    for (const auto& [st, elems] : acc) {
      const auto [p, q, t] = st;
      const auto own = acc.find({p, q, t - 1});
      for (const auto& e : elems)
        if (own == acc.end() || !own->second.count(e)) ++uvt;
      std::set<std::vector<long long>> nb;
      const std::vector<std::pair<int, int>> spaces = {{p, q}, {p - 1, q}, {p, q - 1}};
      for (const auto& [sp, sq] : spaces)
        for (int tt : {t, t - 1}) {
          if (tt < 0) continue;
          if (sp == p && sq == q && tt == t) continue;
          const auto it = acc.find({sp, sq, tt});
          if (it != acc.end()) nb.insert(it->second.begin(), it->second.end());
        }
      for (const auto& e : elems)
        if (!nb.count(e)) ++uv;
    }
    r.unique[op.name] = uv;
    r.total[op.name] = total;
    r.temporal_unique[op.name] = uvt;
  }
  return r;
}

}  // namespace tc_test
