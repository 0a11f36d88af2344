// Counter::solve (docs/tenet-engine.md §3 steps 1-5): plan the compressed dimensions of a group, brute-force the
// 2^d' sampled instances, interpolate (Moebius transform), self-check and retry; decouple and inner_witnessed are
// its planning rules, run() the cached brute force.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

namespace {

/// Values a count group produces, flattened: [nT, nS, nSTD] or [tv, uv, uvt, spi].
std::vector<i64> flatten(const Counts& c, int tensor) {
  if (tensor < 0) return {c.nT, c.nS, c.nSTD};
  const auto& t = c.tensors[static_cast<std::size_t>(tensor)];
  return {t.tv, t.uv, t.uvt, t.spi};
}

/// The thread's brute-force buffers, shared by every Counter of the thread (brute_force is never re-entered).
detail::Workspace& thread_workspace() {
  thread_local detail::Workspace ws;
  return ws;
}

}  // namespace

Counter::Counter(const Model& m, const AnalyzeOptions& o, Limits& limits, bool parametric, Workspace* workspace)
    : m_(m),
      o_(o),
      enumerate_(o.enumerate),
      parametric_(parametric),
      limits_(limits),
      ws_(workspace != nullptr ? workspace : &thread_workspace()) {
  skew_.assign(m.nd, -1);
  if (!enumerate_ && o.skewed_time_windows)
    for (std::size_t d = 0; d < m.nd; ++d) skew_[d] = skew_distance(m, d, parametric ? huge_box(m.box) : m.box);
  if (o_.debug == DebugLevel::kCount)
    for (std::size_t d = 0; d < m.nd; ++d)
      if (skew_[d] >= 0)
        debug(o_, "skewed time dimension d" + std::to_string(d) + ": local distance " + std::to_string(skew_[d]));
}

// NOLINTNEXTLINE(readability-function-size): exact counting of a group, kept whole with its invariants
void Counter::solve(Group& g) {
  ScaledDim sdim;
  if (scaled_dim(g, sdim) && solve_scaled(g, sdim)) return;
  const std::size_t nd = m_.nd;
  std::vector<DimPlan> plan(nd);
  std::vector<i64> extra(nd, 0);
  // Pieces other than the time map's: their windows still apply to a skewed time dimension.
  std::vector<const Piece*> nontime;
  for (const Piece* p : g.pieces) {
    bool is_time = false;
    for (const Piece& tp : m_.time.pieces) is_time = is_time || p == &tp;
    if (!is_time) nontime.push_back(p);
  }
  // Outer block dimensions (docs §3 "Outer blocks"): affine from one whole block on.
  std::vector<char> block(nd, 0);
  std::vector<InnerBlock> inner(nd);  // inner block dimensions (docs §3 "Inner blocks")
  if (o_.outer_blocks && !enumerate_) {
    std::vector<std::vector<const Piece*>> tensors;
    for (int k : g.members)
      if (k >= 0) tensors.push_back(m_.tensors[static_cast<std::size_t>(k)].pieces);
    for (std::size_t d = 0; d < nd; ++d) block[d] = g.stride[d] == 1 && outer_block(m_, d, tensors, g.L[d]) > 0;
    if (o_.inner_blocks)
      for (std::size_t d = 0; d < nd; ++d)
        if (!block[d] && g.stride[d] == 1) {
          inner[d] = inner_block(m_, d, tensors, g.L[d]);
          block[d] = inner[d].L > 0;
        }
  }
  // Dimensions the time map sees after its first coordinate: they wrap around when an earlier coordinate steps.
  std::vector<char> wraps(nd, 0);
  for (std::size_t d = 0; d < nd && !enumerate_; ++d) wraps[d] = wraps_in_time(m_, d);
  // Fewest enumerated values of each dimension in any sampled instance: its true extent, or (compressed) at least
  // its base, which is >= min_base periods (outer blocks: min_base - 1, at least one).
  std::vector<i64> min_extent(nd, 0);
  for (std::size_t d = 0; d < nd; ++d) {
    const i64 S = g.stride[d], units = (m_.box[d].hi - m_.box[d].lo + 1) / S * g.sub[d];
    const i64 base = block[d] ? std::max<i64>(1, o_.min_base - 1) : o_.min_base;
    min_extent[d] = std::min(units, checked_mul(base, std::max<i64>(1, g.L[d] / S) * g.sub[d]));
  }
  bool refine = true;  // use the skewed-time windows (dropped if an instance's time domain has holes)
  for (int attempt = 0; attempt <= kMaxRetries; ++attempt) {
    std::vector<std::size_t> comp;
    std::vector<char> big(nd, 1), refined(nd, 0);
    std::vector<i64> Wd(nd, 1);
    // Plan the compressed dimensions (fixed point: windows depend on which
    // dimensions are big, coupling rules drop some).
    auto make_plan = [&](i64 slack) {
      big.assign(nd, 1);
      for (std::size_t iter = 0; iter < nd + 2; ++iter) {
        for (std::size_t d = 0; d < nd; ++d) {
          i64 cross = 1;
          for (int k : g.members)
            if (k >= 0) cross = std::max(cross, cross_window(m_.tensors[static_cast<std::size_t>(k)], d, m_.box, big));
          const i64 reach = constraint_reach(g.pieces, d, m_.box);
          Wd[d] = std::min<i64>(checked_add(std::max(window(g.pieces, d, m_.box, big), cross), reach), i64{1} << 20);
          if (wraps[d]) {
            // Wrap-around (docs §3 step 1): the first stamp of a time prefix follows the last stamp of the previous
            // prefix, relating instances on opposite faces of d (N - 1 apart); their elements must not meet.
            i64 wrap = 1;
            const auto changes = wrap_changes(m_, d, min_extent, g.stride, g.sub);
            for (int k : g.members)
              if (k >= 0)
                wrap = std::max(wrap, wrap_window(m_.tensors[static_cast<std::size_t>(k)], d, m_.box, big, changes));
            Wd[d] = std::min<i64>(std::max(Wd[d], checked_add(wrap, reach)), i64{1} << 20);
          }
          refined[d] = 0;
          if (refine && skew_[d] >= 0 && g.stride[d] == 1 && only_mod_terms(nontime, d)) {
            // Skewed time dimension (docs §3): the local relations reach skew_ away
            // (faces 2*skew_ + 1 apart); the first stamp of a prefix meets the last
            // stamp of the previous one (instances on opposite faces, N - 1 apart):
            // their elements must not meet, one more than the access windows.
            const i64 wr = std::max({checked_add(checked_mul(skew_[d], 2), 1),
                                     checked_add(window(nontime, d, m_.box, big), 1), checked_add(cross, 1)}) +
                           reach;
            if (wr < Wd[d]) {
              Wd[d] = wr;
              refined[d] = 1;
            }
          }
        }
        for (std::size_t d = 0; d < nd; ++d) {
          DimPlan& dp = plan[d];
          const i64 S = g.stride[d];
          const i64 N = (m_.box[d].hi - m_.box[d].lo + 1) / S;  // in units of the stride
          dp.L = std::max<i64>(1, g.L[d] / S);
          dp.r = N % dp.L;
          dp.n_true = N / dp.L;
          const i64 W = (Wd[d] + S - 1) / S;
          // An outer block dimension needs no window (docs §3 "Outer blocks": affine from one block on, whatever
          // its d % m terms are combined with); the others need theirs.
          dp.n0 = (block[d] ? std::max<i64>(1, o_.min_base - 1) : std::max<i64>(o_.min_base, (W + dp.L - 1) / dp.L)) +
                  extra[d];
          dp.compress = big[d] && !enumerate_ && m_.is_box && dp.n_true >= dp.n0 + slack;
        }
        decouple(g, plan);
        std::vector<char> nbig(nd, 0);
        for (std::size_t d = 0; d < nd; ++d) nbig[d] = plan[d].compress;
        if (nbig == big) break;
        big = nbig;
      }
    };
    // A big dimension whose true size is only n0, n0 + 1 or n0 + 2 periods is
    // not worth interpolating. Plan A (slack 3) keeps it at its true size and
    // not big: the other dimensions' windows see its whole range. Plan B
    // (slack 0) runs it at its true size in every instance but keeps it big
    // ("virtual"): that size is one of the sizes the multilinear argument
    // covers (n >= n0), so the windows and couplings of the others are those
    // of a compression sampled at the true size. Both are exact; the plan
    // with fewer brute-forced points is used (docs §3 "Virtual dimensions").
    std::vector<char> virt(nd, 0);
    auto plan_cost = [&]() {  // points of the 2^dc base instances and the dc (+1) checks
      double kept = 1;
      std::vector<double> s0, s1, s2;
      for (std::size_t d = 0; d < nd; ++d) {
        const DimPlan& dp = plan[d];
        if (!dp.compress) {
          kept *= static_cast<double>(m_.box[d].hi - m_.box[d].lo + 1) / static_cast<double>(g.stride[d]);
          continue;
        }
        for (i64 b = 0; b < 3; ++b)
          (b == 0 ? s0 : b == 1 ? s1 : s2).push_back(static_cast<double>(dp.r + (dp.n0 + b) * dp.L));
      }
      double base = kept, all0 = kept, all2 = kept;
      for (std::size_t j = 0; j < s0.size(); ++j) {
        base *= s0[j] + s1[j];
        all0 *= s0[j];
        all2 *= s2[j];
      }
      double cost = base;
      for (std::size_t j = 0; j < s0.size(); ++j) cost += all0 / s0[j] * s2[j];
      if (s0.size() > 1) cost += all2;
      return cost;
    };
    make_plan(parametric_ ? 0 : 3);  // parametric: every big dimension is compressed (the form covers n >= n0)
    bool candidate = false;          // plan B can only differ through such a dimension
    for (std::size_t d = 0; d < nd; ++d)
      candidate = candidate || (!plan[d].compress && plan[d].n_true >= plan[d].n0 && plan[d].n_true < plan[d].n0 + 3);
    if (candidate && !parametric_ && !enumerate_ && m_.is_box && o_.virtual_plan != VirtualPlan::kNever) {
      const auto pa = plan;
      const auto wa = Wd;
      const auto ra = refined;
      const double ca = plan_cost();
      make_plan(0);
      for (std::size_t d = 0; d < nd; ++d)
        if (plan[d].compress && plan[d].n_true < plan[d].n0 + 3) {
          plan[d].compress = false;
          virt[d] = 1;
        }
      bool any_virt = false;
      for (std::size_t d = 0; d < nd; ++d) any_virt = any_virt || virt[d];
      // VirtualPlan::kForce (tests): prefer plan B whenever it has a virtual dimension.
      const bool force = any_virt && o_.virtual_plan == VirtualPlan::kForce;
      if (!force && !(plan_cost() < ca)) {
        plan = pa;
        Wd = wa;
        refined = ra;
        std::fill(virt.begin(), virt.end(), 0);
      }
    }
    if (!inner_witnessed(plan, virt, g, inner, block)) {  // an inner block lost its witness: plan again
      --attempt;
      continue;
    }
    for (std::size_t d = 0; d < nd; ++d)
      if (plan[d].compress) comp.push_back(d);
    const std::size_t dc = comp.size();
    if (o_.debug == DebugLevel::kCount) {
      std::string line = "group attempt " + std::to_string(attempt) + (refine ? ":" : " (no skew):");
      for (std::size_t d = 0; d < nd; ++d)
        line += " d" + std::to_string(d) + "[L=" + std::to_string(plan[d].L) + " W=" + std::to_string(Wd[d]) +
                " r=" + std::to_string(plan[d].r) + " n=" + std::to_string(plan[d].n_true) +
                " n0=" + std::to_string(plan[d].n0) +
                (inner[d].L > 0 ? " inner block"
                 : block[d]     ? " block"
                                : "") +
                (plan[d].compress ? (refined[d] ? " C skew" : " C")
                 : virt[d]        ? (refined[d] ? " V skew" : " V")
                                  : "") +
                "]";
      for (std::size_t d = 0; d < nd; ++d)
        if (g.stride[d] > 1)
          line +=
              " free d" + std::to_string(d) + "/" + std::to_string(g.stride[d]) + "(" + std::to_string(g.sub[d]) + ")";
      debug(o_, line);
    }
    if (dc > 12) throw InputError(m_.domain.loc, "too many dimensions to count (" + std::to_string(dc) + " > 12)");
    const std::size_t nb = std::size_t{1} << dc;
    bool uses_skew = false;
    for (std::size_t d = 0; d < nd; ++d) uses_skew = uses_skew || ((plan[d].compress || virt[d]) && refined[d]);
    dense_ = true;
    std::vector<std::vector<i64>> f(nb);
    auto sizes_for = [&](const std::vector<i64>& b) {
      std::vector<Interval> box(m_.box);
      for (std::size_t j = 0; j < dc; ++j) {
        const DimPlan& dp = plan[comp[j]];
        const i64 S = g.stride[comp[j]];
        box[comp[j]].hi = box[comp[j]].lo + (dp.r + (dp.n0 + b[j]) * dp.L) * S - 1;
      }
      return box;
    };
    for (std::size_t mask = 0; mask < nb; ++mask) {
      std::vector<i64> b(dc);
      for (std::size_t j = 0; j < dc; ++j) b[j] = (mask >> j) & 1;
      f[mask] = run(g, sizes_for(b));
    }
    auto record = [&](const std::vector<std::vector<i128>>& coef) {
      ClosedForm& cf = g.form;
      cf.dims.assign(nd, {});
      for (std::size_t d = 0; d < nd; ++d) {
        auto& x = cf.dims[d];
        x.compress = plan[d].compress;
        x.S = g.stride[d];
        x.L = plan[d].L;
        x.r = plan[d].r;
        x.n0 = plan[d].n0;
        x.N = m_.box[d].hi - m_.box[d].lo + 1;
      }
      cf.comp = comp;
      cf.nv = coef.empty() ? 0 : coef[0].size();
      cf.coef.clear();
      for (const auto& row : coef) cf.coef.insert(cf.coef.end(), row.begin(), row.end());
    };
    if (dc == 0) {
      g.result = f[0];
      record({std::vector<i128>(f[0].begin(), f[0].end())});
      return;
    }
    // Moebius transform: coefficients of the multilinear polynomial in (n - n0).
    const std::size_t nv = f[0].size();
    std::vector<std::vector<i128>> c(nb, std::vector<i128>(nv));
    for (std::size_t mask = 0; mask < nb; ++mask)
      for (std::size_t v = 0; v < nv; ++v) c[mask][v] = f[mask][v];
    for (std::size_t j = 0; j < dc; ++j)
      for (std::size_t mask = 0; mask < nb; ++mask)
        if (mask & (std::size_t{1} << j))
          for (std::size_t v = 0; v < nv; ++v) c[mask][v] -= c[mask ^ (std::size_t{1} << j)][v];
    auto eval = [&](const std::vector<i64>& delta) {
      std::vector<i128> val(nv, 0);
      for (std::size_t mask = 0; mask < nb; ++mask) {
        i128 prod = 1;
        for (std::size_t j = 0; j < dc; ++j)
          if (mask & (std::size_t{1} << j)) prod = mul128(prod, delta[j]);
        for (std::size_t v = 0; v < nv; ++v) val[v] = add128(val[v], mul128(c[mask][v], prod));
      }
      return val;
    };
    // Self-check on more brute-forced instances: n0 + 2 in each compressed
    // dimension alone, and in all of them at once when that instance is small.
    bool ok = true;
    auto check = [&](const std::vector<i64>& b) {
      const auto predicted = eval(b);
      const auto actual = run(g, sizes_for(b));
      for (std::size_t v = 0; v < nv; ++v) ok = ok && predicted[v] == static_cast<i128>(actual[v]);
    };
    for (std::size_t j = 0; j < dc && ok; ++j) {
      std::vector<i64> b(dc, 0);
      b[j] = 2;
      check(b);
    }
    std::vector<i64> two(dc, 2);
    if (ok && dc > 1) check(two);
    if (uses_skew && !dense_) {
      // The skewed-time windows assume a time domain without holes in its last
      // coordinate (checked on every instance): redo with the general windows.
      refine = false;
      std::fill(extra.begin(), extra.end(), 0);
      attempt = -1;
      continue;
    }
    if (ok) {
      std::vector<i64> delta(dc);
      for (std::size_t j = 0; j < dc; ++j) delta[j] = plan[comp[j]].n_true - plan[comp[j]].n0;
      const auto val = eval(delta);
      g.result.resize(nv);
      for (std::size_t v = 0; v < nv; ++v) {
        if (val[v] < 0)
          throw InputError(m_.domain.loc,
                           "cannot count exactly: the interpolated count is negative (the counts are not multilinear "
                           "in the loop sizes for this mapping); use --enumerate for small problems");
        g.result[v] = checked_narrow(val[v], "count");
      }
      record(c);
      return;
    }
    ++retries_;
    if (o_.debug != DebugLevel::kNone)
      debug(o_, "self-check failed (attempt " + std::to_string(attempt) + (uses_skew ? ", skewed-time windows)" : ")"));
    for (std::size_t j = 0; j < dc; ++j) extra[comp[j]] += std::max<i64>(1, plan[comp[j]].n0 / 2);  // grow the base
    for (std::size_t d = 0; d < nd; ++d)
      if (virt[d]) extra[d] += std::max<i64>(1, plan[d].n0 / 2);  // virtual dimensions too (may stop being big)
  }
  throw InputError(m_.domain.loc,
                   "cannot count exactly: the counts are not multilinear in the loop sizes for this mapping "
                   "(self-check failed after " +
                       std::to_string(kMaxRetries) +
                       " retries); use --enumerate for a brute-force evaluation of small problems");
}

void Counter::decouple(const Group& g, std::vector<DimPlan>& plan) const {
  for (bool changed = true; changed;) {
    changed = false;
    for (const Piece* p : g.pieces) {
      const std::size_t nv = p->vars.size();
      std::vector<std::vector<std::size_t>> term_large(p->terms.size());
      auto large = [&](const Affine& a) {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < a.coeff.size(); ++i) {
          if (a.coeff[i] == 0) continue;
          if (i < nv) {
            if (plan[i].compress) out.push_back(i);
          } else {
            const auto& tl = term_large[i - nv];
            out.insert(out.end(), tl.begin(), tl.end());
          }
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
      };
      auto settle = [&](const std::vector<std::size_t>& dims) {
        if (dims.size() < 2) return;
        std::size_t keep = dims[0];
        for (std::size_t d : dims)
          if (m_.box[d].hi - m_.box[d].lo > m_.box[keep].hi - m_.box[keep].lo) keep = d;
        for (std::size_t d : dims)
          if (d != keep && plan[d].compress) {
            plan[d].compress = false;
            changed = true;
          }
      };
      for (std::size_t k = 0; k < p->terms.size(); ++k) {
        const auto l = large(p->terms[k].num);
        if (p->terms[k].kind == relation::Term::Kind::kFloor) {
          settle(l);
          term_large[k] = l;
        }
      }
      for (const auto& o : p->out) settle(large(o));
      for (const auto& dj : p->disjuncts)
        for (const auto& c : dj) settle(large(c.expr));
    }
    // A tensor accessed by several pieces: elements of different pieces can
    // coincide, so coordinate j must depend on the compressed dimensions in
    // the same way in every piece (e.g. A[i-1,j], A[i,j], A[i+1,j]); otherwise
    // the ranges of one piece cut the other's (breakpoints): keep them all.
    for (int k : g.members) {
      if (k < 0) continue;
      const auto& td = m_.tensors[static_cast<std::size_t>(k)];
      if (td.pieces.size() < 2) continue;
      for (std::size_t j = 0; j < td.arity; ++j) {
        std::vector<std::string> sig;
        std::vector<std::size_t> involved;
        for (const Piece* p : td.pieces) {
          const std::size_t nv = p->vars.size();
          std::string sgn;
          const auto& o = p->out[j];
          for (std::size_t i = 0; i < o.coeff.size(); ++i) {
            if (o.coeff[i] == 0) continue;
            if (i < nv) {
              if (plan[i].compress) {
                sgn += "v" + std::to_string(i) + "*" + std::to_string(o.coeff[i]) + ";";
                involved.push_back(i);
              }
            } else {
              const auto& t = p->terms[i - nv];
              std::string inner;
              for (std::size_t q = 0; q < t.num.coeff.size() && q < nv; ++q)
                if (t.num.coeff[q] != 0 && plan[q].compress) {
                  inner += std::to_string(q) + "*" + std::to_string(t.num.coeff[q]) + ",";
                  involved.push_back(q);
                }
              if (!inner.empty())
                sgn += std::string(t.kind == relation::Term::Kind::kFloor ? "f" : "m") + std::to_string(t.den) + "(" +
                       inner + ")*" + std::to_string(o.coeff[i]) + ";";
            }
          }
          sig.push_back(sgn);
        }
        bool same = true;
        for (const auto& x : sig) same = same && x == sig[0];
        if (!same)
          for (std::size_t d : involved)
            if (plan[d].compress) {
              plan[d].compress = false;
              changed = true;
            }
      }
    }
  }
}

bool Counter::inner_witnessed(const std::vector<DimPlan>& plan, const std::vector<char>& virt, const Group& g,
                              std::vector<InnerBlock>& inner, std::vector<char>& block) const {
  for (std::size_t d = 0; d < m_.nd; ++d) {
    if (inner[d].L == 0 || plan[d].r != 0) continue;
    bool all = true;
    for (const auto& need : inner[d].need) {
      bool any = false;
      for (const auto& [e, ce] : need) {
        const DimPlan& pe = plan[e];
        const i64 least = pe.compress || virt[e] ? checked_mul(g.stride[e], checked_add(pe.r, checked_mul(pe.n0, pe.L)))
                                                 : m_.box[e].hi - m_.box[e].lo + 1;
        any = any || ce < 0 || least > ce;  // ce < 0: a skew witness
      }
      all = all && any;
    }
    if (all) continue;
    inner[d] = InnerBlock{};
    block[d] = 0;
    return false;
  }
  return true;
}

std::vector<i64> Counter::run(const Group& g, const std::vector<Interval>& box) {
  std::vector<i64> key;
  for (const auto& b : box) key.push_back(b.hi);
  key.insert(key.end(), g.stride.begin(), g.stride.end());
  key.insert(key.end(), g.sub.begin(), g.sub.end());
  std::vector<char> want(m_.tensors.size(), 0);
  for (int k : g.members)
    if (k >= 0) want[static_cast<std::size_t>(k)] = 1;
  auto it = cache_.find(key);
  bool have = it != cache_.end();
  if (have)
    for (std::size_t k = 0; k < want.size(); ++k)
      if (want[k] && !it->second.second[k]) have = false;
  if (!have) {
    const i64 limit = enumerate_ ? kMaxEnumeratePoints : o_.max_instance_points;
    i64 pts = 1;
    for (std::size_t d = 0; d < box.size(); ++d)
      pts = checked_mul(pts, (box[d].hi - box[d].lo) / g.stride[d] + 1, "instance size");
    i64 accesses = 1;  // the space/time maps, then every access piece of the wanted tensors
    for (std::size_t k = 0; k < want.size(); ++k)
      if (want[k]) accesses += static_cast<i64>(m_.tensors[k].pieces.size());
    limits_.charge(pts, accesses, enumerate_);
    Counts c = detail::brute_force(m_, box, want, limit, g.stride, g.sub, ws_);
    if (it != cache_.end()) {
      for (std::size_t k = 0; k < want.size(); ++k)
        if (want[k]) {
          it->second.first.tensors[k] = c.tensors[k];
          it->second.second[k] = 1;
        }
    } else {
      it = cache_.emplace(key, std::make_pair(std::move(c), want)).first;
    }
  }
  dense_ = dense_ && it->second.first.time_dense;
  all_dense_ = all_dense_ && it->second.first.time_dense;
  std::vector<i64> out;
  for (std::size_t i = 0; i < g.members.size(); ++i) {
    const int k = g.members[i];
    auto v = flatten(it->second.first, k);
    if (k >= 0) {
      // Scale one residue back to all: TV counts every instance; unique counts
      // multiply only when the elements carry the residue (otherwise duplicates).
      for (std::size_t d = 0; d < m_.nd; ++d) {
        if (g.stride[d] == 1) continue;
        const i64 S = g.stride[d] / g.sub[d];  // invisible residues per tile
        v[0] = checked_mul(v[0], S, "total volume");
        if (g.contains[i][d])
          for (std::size_t j = 1; j < 4; ++j) v[j] = checked_mul(v[j], S, "unique volume");
      }
    }
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace tenet_cost::tenet::detail
