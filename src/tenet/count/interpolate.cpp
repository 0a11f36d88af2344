// Sampling and interpolation (docs/tenet-engine.md §3 steps 4-5): the 2^d' brute-forced instances of a plan, the
// multilinear coefficients (Moebius transform), the self-check instances and the closed form left in the group.
#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

std::vector<std::vector<i128>> moebius(const std::vector<std::vector<i64>>& f, std::size_t dc) {
  const std::size_t nb = std::size_t{1} << dc;
  const std::size_t nv = f[0].size();
  std::vector<std::vector<i128>> c(nb, std::vector<i128>(nv));
  for (std::size_t mask = 0; mask < nb; ++mask)
    for (std::size_t v = 0; v < nv; ++v) c[mask][v] = f[mask][v];
  for (std::size_t j = 0; j < dc; ++j)
    for (std::size_t mask = 0; mask < nb; ++mask)
      if (mask & (std::size_t{1} << j))
        for (std::size_t v = 0; v < nv; ++v) c[mask][v] -= c[mask ^ (std::size_t{1} << j)][v];
  return c;
}

std::vector<i128> eval_multilinear(const std::vector<std::vector<i128>>& c, const std::vector<i64>& delta) {
  const std::size_t nb = c.size(), dc = delta.size(), nv = c[0].size();
  std::vector<i128> val(nv, 0);
  for (std::size_t mask = 0; mask < nb; ++mask) {
    i128 prod = 1;
    for (std::size_t j = 0; j < dc; ++j)
      if (mask & (std::size_t{1} << j)) prod = mul128(prod, delta[j]);
    for (std::size_t v = 0; v < nv; ++v) val[v] = add128(val[v], mul128(c[mask][v], prod));
  }
  return val;
}

std::vector<Interval> Counter::sizes_for(const Group& g, const Plan& plan, const std::vector<i64>& b) const {
  std::vector<Interval> box(m_.box);
  for (std::size_t j = 0; j < plan.comp.size(); ++j) {
    const std::size_t d = plan.comp[j];
    const DimPlan& dp = plan.dims[d];
    box[d].hi = box[d].lo + (dp.r + (dp.n0 + b[j]) * dp.L) * g.stride[d] - 1;
  }
  return box;
}

std::vector<std::vector<i64>> Counter::sample(const Group& g, const Plan& plan) {
  const std::size_t dc = plan.comp.size(), nb = std::size_t{1} << dc;
  std::vector<std::vector<i64>> f(nb);
  for (std::size_t mask = 0; mask < nb; ++mask) {
    std::vector<i64> b(dc);
    for (std::size_t j = 0; j < dc; ++j) b[j] = (mask >> j) & 1;
    f[mask] = run(g, sizes_for(g, plan, b));
  }
  return f;
}

bool Counter::self_check(const Group& g, const Plan& plan, const std::vector<std::vector<i128>>& c) {
  const std::size_t dc = plan.comp.size(), nv = c[0].size();
  bool ok = true;
  auto check = [&](const std::vector<i64>& b) {
    const auto predicted = eval_multilinear(c, b);
    const auto actual = run(g, sizes_for(g, plan, b));
    for (std::size_t v = 0; v < nv; ++v) ok = ok && predicted[v] == static_cast<i128>(actual[v]);
  };
  for (std::size_t j = 0; j < dc && ok; ++j) {
    std::vector<i64> b(dc, 0);
    b[j] = 2;
    check(b);
  }
  std::vector<i64> two(dc, 2);
  if (ok && dc > 1) check(two);
  return ok;
}

void Counter::record_form(Group& g, const Plan& plan, const std::vector<std::vector<i128>>& coef) const {
  ClosedForm& cf = g.form;
  cf.dims.assign(m_.nd, {});
  for (std::size_t d = 0; d < m_.nd; ++d) {
    auto& x = cf.dims[d];
    x.compress = plan.dims[d].compress;
    x.S = g.stride[d];
    x.L = plan.dims[d].L;
    x.r = plan.dims[d].r;
    x.n0 = plan.dims[d].n0;
    x.N = m_.box[d].hi - m_.box[d].lo + 1;
  }
  cf.comp = plan.comp;
  cf.nv = coef.empty() ? 0 : coef[0].size();
  cf.coef.clear();
  for (const auto& row : coef) cf.coef.insert(cf.coef.end(), row.begin(), row.end());
}

}  // namespace tenet_cost::tenet::detail
