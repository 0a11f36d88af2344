// Planning one attempt of Counter::solve (docs/tenet-engine.md §3 steps 1-3b, "Virtual dimensions"): the windows of
// every dimension, which dimensions are compressed (a fixed point with decouple's coupling rules), plan A against
// plan B, and the debug line of the plan.
#include <algorithm>
#include <string>
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

void Counter::windows(const Group& g, const Qualification& q, const Bases& bases, const std::vector<char>& big,
                      Plan& plan) const {
  for (std::size_t d = 0; d < m_.nd; ++d) {
    std::vector<i64>& Wd = plan.W;
    i64 cross = 1;
    for (int k : g.members)
      if (k >= 0) cross = std::max(cross, cross_window(m_.tensors[static_cast<std::size_t>(k)], d, m_.box, big));
    const i64 reach = constraint_reach(use_, g.pieces, d, m_.box);
    Wd[d] = std::min<i64>(checked_add(std::max(window(use_, g.pieces, d, m_.box, big), cross), reach), i64{1} << 20);
    if (q.wraps[d]) {
      // Wrap-around (docs §3 step 1): the first stamp of a time prefix follows the last stamp of the previous
      // prefix, relating instances on opposite faces of d (N - 1 apart); their elements must not meet.
      i64 wrap = 1;
      const auto changes = wrap_changes(m_, use_, d, q.min_extent, g.stride, g.sub);
      for (int k : g.members)
        if (k >= 0)
          wrap = std::max(wrap, wrap_window(use_, m_.tensors[static_cast<std::size_t>(k)], d, m_.box, big, changes));
      Wd[d] = std::min<i64>(std::max(Wd[d], checked_add(wrap, reach)), i64{1} << 20);
    }
    plan.refined[d] = 0;
    if (bases.refine && skew_[d] && g.stride[d] == 1 && only_mod_terms(use_, q.nontime, d)) {
      // Skewed time dimension (docs §3): the local relations reach skew_ away
      // (faces 2*skew_ + 1 apart); the first stamp of a prefix meets the last
      // stamp of the previous one (instances on opposite faces, N - 1 apart):
      // their elements must not meet, one more than the access windows.
      const i64 wr = std::max({checked_add(checked_mul(*skew_[d], 2), 1),
                               checked_add(window(use_, q.nontime, d, m_.box, big), 1), checked_add(cross, 1)}) +
                     reach;
      if (wr < Wd[d]) {
        Wd[d] = wr;
        plan.refined[d] = 1;
      }
    }
  }
}

namespace {
// ceil(a / d) for d > 0 without the overflow of a + d - 1 (windows near 2^63 from hostile inputs): checked.hpp's
// ceil_div for a >= 0; a negative a keeps the truncating form it always had
i64 ceil_div_pos(i64 a, i64 d) { return a >= 0 ? ceil_div(a, d) : (a + d - 1) / d; }
}  // namespace

void Counter::plan_fixed_point(const Group& g, const Qualification& q, const Bases& bases, i64 slack,
                               Plan& plan) const {
  const std::size_t nd = m_.nd;
  std::vector<char> big(nd, 1);
  for (std::size_t iter = 0; iter < nd + 2; ++iter) {
    windows(g, q, bases, big, plan);
    for (std::size_t d = 0; d < nd; ++d) {
      DimPlan& dp = plan.dims[d];
      const i64 S = g.stride[d];
      const i64 N = (m_.box[d].hi - m_.box[d].lo + 1) / S;  // in units of the stride
      dp.L = std::max<i64>(1, g.L[d] / S);
      dp.r = N % dp.L;
      dp.n_true = N / dp.L;
      const i64 W = ceil_div_pos(plan.W[d], S);
      // An outer block dimension needs no window (docs §3 "Outer blocks": affine from one block on, whatever
      // its d % m terms are combined with); the others need theirs.
      dp.n0 = (q.block[d] ? std::max<i64>(1, o_.min_base - 1) : std::max<i64>(o_.min_base, ceil_div_pos(W, dp.L))) +
              bases.extra[d];
      dp.compress = big[d] && !enumerate_ && m_.is_box && dp.n_true >= dp.n0 + slack;
    }
    decouple(g, plan.dims);
    std::vector<char> nbig(nd, 0);
    for (std::size_t d = 0; d < nd; ++d) nbig[d] = plan.dims[d].compress;
    if (nbig == big) break;
    big = nbig;
  }
}

double Counter::plan_cost(const Group& g, const std::vector<DimPlan>& plan) const {
  double kept = 1;
  std::vector<double> s0, s1, s2;
  for (std::size_t d = 0; d < m_.nd; ++d) {
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
}

Plan Counter::choose_plan(const Group& g, const Qualification& q, const Bases& bases) const {
  const std::size_t nd = m_.nd;
  Plan plan{std::vector<DimPlan>(nd), std::vector<i64>(nd, 1), std::vector<char>(nd, 0), std::vector<char>(nd, 0), {}};
  plan_fixed_point(g, q, bases, parametric_ ? 0 : 3, plan);  // parametric: every big dimension is compressed
  bool candidate = false;                                    // plan B can only differ through such a dimension
  for (const DimPlan& dp : plan.dims)
    candidate = candidate || (!dp.compress && dp.n_true >= dp.n0 && dp.n_true < dp.n0 + 3);
  if (candidate && !parametric_ && !enumerate_ && m_.is_box && o_.virtual_plan != VirtualPlan::kNever) {
    const Plan a = plan;
    const double ca = plan_cost(g, plan.dims);
    plan_fixed_point(g, q, bases, 0, plan);
    for (std::size_t d = 0; d < nd; ++d)
      if (plan.dims[d].compress && plan.dims[d].n_true < plan.dims[d].n0 + 3) {
        plan.dims[d].compress = false;
        plan.virt[d] = 1;
      }
    bool any_virt = false;
    for (std::size_t d = 0; d < nd; ++d) any_virt = any_virt || plan.virt[d];
    // VirtualPlan::kForce (tests): prefer plan B whenever it has a virtual dimension.
    const bool force = any_virt && o_.virtual_plan == VirtualPlan::kForce;
    if (!force && !(plan_cost(g, plan.dims) < ca)) plan = a;
  }
  for (std::size_t d = 0; d < nd; ++d)
    if (plan.dims[d].compress) plan.comp.push_back(d);
  return plan;
}

void Counter::log_plan(const Group& g, const Qualification& q, const Bases& bases, const Plan& plan,
                       int attempt) const {
  if (o_.debug != DebugLevel::kCount) return;
  std::string line = "group attempt " + std::to_string(attempt) + (bases.refine ? ":" : " (no skew):");
  for (std::size_t d = 0; d < m_.nd; ++d) {
    const DimPlan& dp = plan.dims[d];
    line += " d" + std::to_string(d) + "[L=" + std::to_string(dp.L) + " W=" + std::to_string(plan.W[d]) +
            " r=" + std::to_string(dp.r) + " n=" + std::to_string(dp.n_true) + " n0=" + std::to_string(dp.n0) +
            (q.inner[d].L > 0 ? " inner block"
             : q.block[d]     ? " block"
                              : "") +
            (dp.compress    ? (plan.refined[d] ? " C skew" : " C")
             : plan.virt[d] ? (plan.refined[d] ? " V skew" : " V")
                            : "") +
            "]";
  }
  for (std::size_t d = 0; d < m_.nd; ++d)
    if (g.stride[d] > 1)
      line += " free d" + std::to_string(d) + "/" + std::to_string(g.stride[d]) + "(" + std::to_string(g.sub[d]) + ")";
  debug(o_, line);
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

}  // namespace tenet_cost::tenet::detail
