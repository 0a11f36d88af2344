// The buffer tile search (cost.hpp): candidates, the working-set check, ranking.
#include <algorithm>
#include <numeric>

#include "nest.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost {

using detail::Nest;

std::vector<std::int64_t> tile_sizes(std::int64_t extent, std::int64_t align) {
  std::vector<std::int64_t> c;
  std::int64_t base = std::lcm<std::int64_t>(16, align);
  for (std::int64_t v = base; v < extent; v *= 2) {
    c.push_back(v);
    if (v > (INT64_MAX / 4)) break;
  }
  c.push_back(extent);
  return c;
}

namespace {

// Ranking: fewer DRAM bits, then fewer tiles, then a smaller working set; ties keep the enumeration order.
bool better(const TileCandidate& a, const TileCandidate& b) {
  if (a.dram_bits != b.dram_bits) return a.dram_bits < b.dram_bits;
  if (a.tiles != b.tiles) return a.tiles < b.tiles;
  return a.working_set_bits < b.working_set_bits;
}

// Calls fit(candidate) for every candidate that fits the buffer, in a fixed order (orders, then m, n, k sizes);
// throws InputError when none fits or the user's tile breaks a group alignment.
template <typename Fn>
void for_each_fitting(const TileProblem& p, const Tile& user, Fn&& fit) {
  const GemmShape& s = p.shape;
  const i128 cap = static_cast<i128>(p.buffer_bytes) * 8;
  const std::int64_t am = detail::align_of(p.ops, 'm'), an = detail::align_of(p.ops, 'n'),
                     ak = detail::align_of(p.ops, 'k');
  auto check_align = [&](const char* dim, std::int64_t t, std::int64_t extent, std::int64_t a) {
    if (t < extent && t % a != 0)
      throw InputError(std::string("tile ") + dim + "=" + std::to_string(t) + " must be a multiple of the group size " +
                       std::to_string(a) + " (or cover the whole extent " + std::to_string(extent) + ")");
  };
  if (user.m) check_align("m", user.m, s.m, am);
  if (user.n) check_align("n", user.n, s.n, an);
  if (user.k) check_align("k", user.k, s.k, ak);
  const auto cm = user.m ? std::vector<std::int64_t>{std::min(user.m, s.m)} : tile_sizes(s.m, am);
  const auto cn = user.n ? std::vector<std::int64_t>{std::min(user.n, s.n)} : tile_sizes(s.n, an);
  const auto ck = user.k ? std::vector<std::int64_t>{std::min(user.k, s.k)} : tile_sizes(s.k, ak);
  std::vector<std::string> orders = {"mnk", "nmk", "mkn", "kmn", "nkm", "knm"};
  if (!user.order.empty()) orders = {user.order};
  bool found = false;
  i128 smallest_ws = -1;
  Tile smallest;
  for (const auto& order : orders)
    for (auto tm : cm)
      for (auto tn : cn)
        for (auto tk : ck) {
          const Tile t{tm, tn, tk, order};
          const Nest nest(s, t);
          const i128 ws = detail::working_set_bits(p.ops, nest, p.accum_bits);
          if (smallest_ws < 0 || ws < smallest_ws) {
            smallest_ws = ws;
            smallest = t;
          }
          if (ws > cap) continue;
          found = true;
          fit(TileCandidate{t, detail::dram_bits(p.ops, nest, p.accum_bits), ws, nest.tiles()});
        }
  if (!found) {
    const i128 need = (smallest_ws + 7) / 8;
    throw InputError("tile " + to_string(smallest) + " needs " + std::to_string(static_cast<long long>(need)) +
                     " bytes of buffer (operands at their bits, output at " + std::to_string(p.accum_bits) +
                     "-bit partial sums) but arch '" + p.arch_name + "' has " + std::to_string(p.buffer_bytes) +
                     " bytes: over by " + std::to_string(static_cast<long long>(need - p.buffer_bytes)) +
                     " bytes; choose smaller --tile factors");
  }
}

}  // namespace

std::vector<TileCandidate> rank_tiles(const TileProblem& p, const Tile& user) {
  std::vector<TileCandidate> all;
  for_each_fitting(p, user, [&](const TileCandidate& c) { all.push_back(c); });
  std::stable_sort(all.begin(), all.end(), better);
  return all;
}

Tile choose_tile(const TileProblem& p, const Tile& user) {
  bool have = false;
  TileCandidate best;
  for_each_fitting(p, user, [&](const TileCandidate& c) {
    if (!have || better(c, best)) {
      best = c;
      have = true;
    }
  });
  return best.tile;
}

}  // namespace tenet_cost::cost
