// The count groups of a problem (docs/tenet-engine.md §3 step 1): counts that use the same relations and periods,
// split by their members' free tile strides, each solved by the counter.
#include <algorithm>
#include <vector>

#include "tenet/engine.hpp"

namespace tenet_cost::tenet::detail {

/// Groups of counts sharing the relations they depend on (merged when periods agree).
std::vector<Group> make_groups(const Model& m, bool enumerate) {
  std::vector<const Piece*> st_pieces;
  for (const Piece& p : m.space.pieces) st_pieces.push_back(&p);
  for (const Piece& p : m.time.pieces) st_pieces.push_back(&p);
  std::vector<Group> groups;
  auto add_group = [&](int member, const std::vector<const Piece*>& pieces) {
    std::vector<i64> L = lcm_periods(pieces, m.nd), W(m.nd, 1);  // W: computed in Counter::solve
    for (Group& g : groups)
      if (enumerate || g.L == L) {
        g.members.push_back(member);
        for (const Piece* p : pieces)
          if (std::find(g.pieces.begin(), g.pieces.end(), p) == g.pieces.end()) g.pieces.push_back(p);
        return;
      }
    groups.push_back(Group{{member}, pieces, L, W, {}, {}, {}, {}, {}});
  };
  add_group(-1, st_pieces);
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    auto pieces = st_pieces;
    pieces.insert(pieces.end(), m.tensors[k].pieces.begin(), m.tensors[k].pieces.end());
    add_group(static_cast<int>(k), pieces);
  }
  return groups;
}

/// Split each group by its members' free tile strides on m.box (analyze() only: the strides depend on the box,
/// and a parametric problem's groups must not). A member whose dimension d is a free tile dimension on its own
/// (free_stride) is counted in a group of members with the same strides, so one tensor that needs d whole
/// (AlexNet's I[n, c, 4 ox + rx, 4 oy + ry] needs rx, which no map sees) no longer makes the others (W, O and the
/// space/time counts) enumerate every value of d. Each group is counted exactly on its own (docs §3 step 3);
/// grouping only shares the space/time work of one brute-forced instance.
void split_by_strides(const Model& m, std::vector<Group>& groups) {
  if (!m.is_box) return;
  std::vector<const Piece*> st_pieces;
  for (const Piece& p : m.space.pieces) st_pieces.push_back(&p);
  for (const Piece& p : m.time.pieces) st_pieces.push_back(&p);
  const DimUse use(m);
  std::vector<Group> out;
  for (Group& g : groups) {
    std::vector<std::vector<i64>> sigs;   // stride and sub of every dimension, one per part
    std::vector<std::vector<int>> parts;  // the members of each part, in the group's order
    for (int k : g.members) {
      std::vector<i64> sig;
      for (std::size_t d = 0; d < m.nd; ++d) {
        const auto f = free_stride(m, use, d, st_pieces, {k});
        sig.push_back(f ? f->stride : 1);
        sig.push_back(f ? f->sub : 1);
      }
      const auto it = std::find(sigs.begin(), sigs.end(), sig);
      if (it == sigs.end()) {
        sigs.push_back(sig);
        parts.push_back({k});
      } else {
        parts[static_cast<std::size_t>(it - sigs.begin())].push_back(k);
      }
    }
    if (parts.size() == 1) {
      out.push_back(std::move(g));
      continue;
    }
    for (const auto& members : parts) {
      std::vector<const Piece*> pieces = st_pieces;
      for (int k : members)
        if (k >= 0)
          for (const Piece* p : m.tensors[static_cast<std::size_t>(k)].pieces)
            if (std::find(pieces.begin(), pieces.end(), p) == pieces.end()) pieces.push_back(p);
      out.push_back(Group{members, pieces, g.L, g.W, {}, {}, {}, {}, {}});
    }
  }
  groups = std::move(out);
}

/// Solve every group on m.box (strides from m.box): the closed forms end up in the groups.
void solve_groups(const Model& m, std::vector<Group>& groups, const AnalyzeOptions& options, Counter& counter) {
  for (Group& g : groups) {
    g.stride.assign(m.nd, 1);
    g.sub.assign(m.nd, 1);
    g.contains.assign(g.members.size(), std::vector<char>(m.nd, 0));
    if (options.enumerate || !m.is_box) continue;
    set_free_dims(m, counter.dim_use(), g, options.free_rows);
  }
  for (Group& g : groups) counter.solve(g);
}

/// Count everything on m.box (closed forms left in `groups`).
RawCounts count_all(const Model& m, std::vector<Group>& groups, const AnalyzeOptions& options, bool parametric,
                    Limits& limits, i64& retries, i64& instances) {
  Counter counter(m, options, limits, parametric);
  solve_groups(m, groups, options, counter);
  RawCounts rc;
  rc.tc.resize(m.tensors.size());
  for (const Group& g : groups) unpack(g, g.result, rc);
  if (m.is_box) {
    rc.macs = box_macs(m.box);
  } else {
    // enumerate mode over a non-box domain: |D| is the number of points found.
    std::vector<char> none(m.tensors.size(), 0);
    rc.macs = detail::brute_force(m, m.box, none, kMaxEnumeratePoints, {}, {}, nullptr, &limits).points;
  }
  retries = counter.retries();
  instances = static_cast<i64>(counter.instances());
  return rc;
}

}  // namespace tenet_cost::tenet::detail
