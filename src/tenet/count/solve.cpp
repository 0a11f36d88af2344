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
      use_(m),
      o_(o),
      enumerate_(o.enumerate),
      parametric_(parametric),
      limits_(limits),
      ws_(workspace != nullptr ? workspace : &thread_workspace()) {
  skew_.assign(m.nd, std::nullopt);
  if (!enumerate_ && o.skewed_time_windows)
    for (std::size_t d = 0; d < m.nd; ++d) skew_[d] = skew_distance(m, use_, d, parametric ? huge_box(m.box) : m.box);
  if (o_.debug == DebugLevel::kCount)
    for (std::size_t d = 0; d < m.nd; ++d)
      if (skew_[d])
        debug(o_, "skewed time dimension d" + std::to_string(d) + ": local distance " + std::to_string(*skew_[d]));
}

void Counter::solve(Group& g) {
  if (const auto s = scaled_dim(g); s && solve_scaled(g, *s)) return;
  Qualification q = qualify(g);
  Bases bases{std::vector<i64>(m_.nd, 0), true};
  int attempt = 0;  // self-check failures since the windows last changed
  while (attempt <= kMaxRetries) {
    const Plan plan = choose_plan(g, q, bases);
    if (!inner_witnessed(plan.dims, plan.virt, g, q.inner, q.block)) continue;  // Retry::kReplan: plan again
    log_plan(g, q, bases, plan, attempt);
    switch (sample_and_check(g, plan, attempt)) {
      case Retry::kDone: return;
      case Retry::kDropSkew:  // the skewed-time windows assume a time domain without holes: the general windows
        bases.refine = false;
        std::fill(bases.extra.begin(), bases.extra.end(), 0);
        attempt = 0;
        break;
      case Retry::kGrowBase:
        grow_bases(plan, bases);
        ++attempt;
        break;
    }
  }
  throw InputError(m_.domain.loc,
                   "cannot count exactly: the counts are not multilinear in the loop sizes for this mapping "
                   "(self-check failed after " +
                       std::to_string(kMaxRetries) +
                       " retries); use --enumerate for a brute-force evaluation of small problems");
}

Qualification Counter::qualify(const Group& g) const {
  const std::size_t nd = m_.nd;
  Qualification q;
  // Pieces other than the time map's: their windows still apply to a skewed time dimension.
  for (const Piece* p : g.pieces) {
    bool is_time = false;
    for (const Piece& tp : m_.time.pieces) is_time = is_time || p == &tp;
    if (!is_time) q.nontime.push_back(p);
  }
  // Outer block dimensions (docs §3 "Outer blocks"): affine from one whole block on.
  q.block.assign(nd, 0);
  q.inner.assign(nd, InnerBlock{});  // inner block dimensions (docs §3 "Inner blocks")
  if (o_.outer_blocks && !enumerate_) {
    std::vector<std::vector<const Piece*>> tensors;
    for (int k : g.members)
      if (k >= 0) tensors.push_back(m_.tensors[static_cast<std::size_t>(k)].pieces);
    for (std::size_t d = 0; d < nd; ++d)
      q.block[d] = g.stride[d] == 1 && outer_block(m_, use_, d, tensors, g.L[d]).has_value();
    if (o_.inner_blocks)
      for (std::size_t d = 0; d < nd; ++d)
        if (!q.block[d] && g.stride[d] == 1)
          if (auto ib = inner_block(m_, use_, d, tensors, g.L[d])) {
            q.inner[d] = std::move(*ib);
            q.block[d] = q.inner[d].L > 0;
          }
  }
  // Dimensions the time map sees after its first coordinate: they wrap around when an earlier coordinate steps.
  q.wraps.assign(nd, 0);
  for (std::size_t d = 0; d < nd && !enumerate_; ++d) q.wraps[d] = wraps_in_time(m_, use_, d);
  // Fewest enumerated values of each dimension in any sampled instance: its true extent, or (compressed) at least
  // its base, which is >= min_base periods (outer blocks: min_base - 1, at least one).
  q.min_extent.assign(nd, 0);
  for (std::size_t d = 0; d < nd; ++d) {
    const i64 S = g.stride[d], units = (m_.box[d].hi - m_.box[d].lo + 1) / S * g.sub[d];
    const i64 base = q.block[d] ? std::max<i64>(1, o_.min_base - 1) : o_.min_base;
    q.min_extent[d] = std::min(units, checked_mul(base, std::max<i64>(1, g.L[d] / S) * g.sub[d]));
  }
  return q;
}

Retry Counter::sample_and_check(Group& g, const Plan& plan, int attempt) {
  const std::size_t dc = plan.comp.size();
  if (dc > 12) throw InputError(m_.domain.loc, "too many dimensions to count (" + std::to_string(dc) + " > 12)");
  bool uses_skew = false;
  for (std::size_t d = 0; d < m_.nd; ++d)
    uses_skew = uses_skew || ((plan.dims[d].compress || plan.virt[d]) && plan.refined[d]);
  dense_ = true;
  const auto f = sample(g, plan);
  if (dc == 0) {
    g.result = f[0];
    record_form(g, plan, {std::vector<i128>(f[0].begin(), f[0].end())});
    return Retry::kDone;
  }
  const auto c = moebius(f, dc);
  const bool ok = self_check(g, plan, c);
  // The skewed-time windows assume a time domain without holes in its last coordinate (checked on every instance).
  if (uses_skew && !dense_) return Retry::kDropSkew;
  if (!ok) {
    ++retries_;
    if (o_.debug != DebugLevel::kNone)
      debug(o_, "self-check failed (attempt " + std::to_string(attempt) + (uses_skew ? ", skewed-time windows)" : ")"));
    return Retry::kGrowBase;
  }
  std::vector<i64> delta(dc);
  for (std::size_t j = 0; j < dc; ++j) delta[j] = plan.dims[plan.comp[j]].n_true - plan.dims[plan.comp[j]].n0;
  const auto val = eval_multilinear(c, delta);
  g.result.resize(val.size());
  for (std::size_t v = 0; v < val.size(); ++v) {
    if (val[v] < 0)
      throw InputError(m_.domain.loc,
                       "cannot count exactly: the interpolated count is negative (the counts are not multilinear "
                       "in the loop sizes for this mapping); use --enumerate for small problems");
    g.result[v] = checked_narrow(val[v], "count");
  }
  record_form(g, plan, c);
  return Retry::kDone;
}

void Counter::grow_bases(const Plan& plan, Bases& bases) const {
  for (const std::size_t d : plan.comp) bases.extra[d] += std::max<i64>(1, plan.dims[d].n0 / 2);  // grow the base
  for (std::size_t d = 0; d < m_.nd; ++d)
    if (plan.virt[d]) bases.extra[d] += std::max<i64>(1, plan.dims[d].n0 / 2);  // virtual dimensions too
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
  key.reserve(box.size() + g.stride.size() + g.sub.size());
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
    Counts c = detail::brute_force(m_, box, want, limit, g.stride, g.sub, ws_, &limits_);
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
