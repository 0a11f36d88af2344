// The dataflow generator (mapping.hpp, docs/model.md "Generated dataflows"): integer space-time transforms of the
// GEMM loop nest, kept when legal on the interconnect for every operand of the scheme.
//
// Within one fold (x < R, y < C) a generated mapping is the linear transform M of the loop vector (i, j, k):
//   row = x, col = y, t = time + skew0*x + skew1*y.
// M is unimodular (|det M| = 1), so every (PE, stamp) holds one MAC. An operand indexed by some loops is reused
// along every loop it does not index (a floor(d/g) index: along d inside a group, too); moving one step along
// such a loop e changes (row, col, t) by M e. The reuse is realised on the array when that delta is "same PE,
// later stamp" or "an interconnect neighbour, later stamp" (for e or -e); anything else — a broadcast in the same
// stamp, a jump past the neighbours — is not what a systolic or mesh array can forward.
#include <Eigen/Dense>
#include <algorithm>

#include "tenet_cost/mapping.hpp"

namespace tenet_cost::mapping {

namespace {

using Mat3 = Eigen::Matrix<long long, 3, 3>;
using Vec3 = Eigen::Matrix<long long, 3, 1>;

int loop_index(char d) { return d == 'i' ? 0 : d == 'j' ? 1 : 2; }

// Rows: PE row, PE column, inner time; columns: loops i, j, k.
Mat3 transform(const Generated& g) {
  Mat3 m = Mat3::Zero();
  m(0, loop_index(g.space[0])) = 1;
  m(1, loop_index(g.space[1])) = 1;
  m(2, loop_index(g.time)) = 1;
  m(2, loop_index(g.space[0])) += g.skew[0];
  m(2, loop_index(g.space[1])) += g.skew[1];
  return m;
}

bool neighbour(long long dr, long long dc, arch::Interconnect ic) {
  switch (ic) {
    case arch::Interconnect::kSystolic: return (dr == 1 && dc == 0) || (dr == 0 && dc == 1);
    case arch::Interconnect::kMesh: return std::abs(dr) + std::abs(dc) == 1;
    case arch::Interconnect::kNone:
    case arch::Interconnect::kRelation: break;
  }
  return false;
}

// The delta along e (or -e, whichever goes forward in time) is forwarded on the array.
bool forwarded(const Vec3& delta, arch::Interconnect ic) {
  Vec3 d = delta;
  if (d(2) < 0) d = -d;
  if (d(2) <= 0) return false;  // same stamp: a broadcast (or two MACs in one PE and stamp)
  if (d(0) == 0 && d(1) == 0) return true;
  return neighbour(d(0), d(1), ic);
}

// Loops along which an operand is reused: those it does not index, and those under a floor(d/g) with g > 1.
std::vector<int> reuse_loops(const quant::Operand& op) {
  bool indexed[3] = {false, false, false};
  std::vector<int> out;
  for (const auto& t : op.index) {
    if (t.dim == '0') continue;
    const int l = loop_index(t.dim);
    if (t.divisor > 1) out.push_back(l);
    else indexed[l] = true;
  }
  for (int l = 0; l < 3; ++l)
    if (!indexed[l] && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  return out;
}

}  // namespace

std::string Generated::name() const {
  return std::string("gen:") + space[0] + space[1] + "-" + time + "-" + (rows_fold_outer ? "r" : "c") + "-" +
         std::to_string(skew[0]) + std::to_string(skew[1]);
}

std::optional<Generated> parse_generated(const std::string& text) {
  // gen:xy-t-r-ab
  if (text.size() != 13 || text.compare(0, 4, "gen:") != 0 || text[6] != '-' || text[8] != '-' || text[10] != '-')
    return std::nullopt;
  Generated g;
  g.space = {text[4], text[5]};
  g.time = text[7];
  auto loop = [](char c) { return c == 'i' || c == 'j' || c == 'k'; };
  if (!loop(g.space[0]) || !loop(g.space[1]) || !loop(g.time) || g.space[0] == g.space[1] || g.time == g.space[0] ||
      g.time == g.space[1])
    return std::nullopt;
  if (text[9] != 'r' && text[9] != 'c') return std::nullopt;
  g.rows_fold_outer = text[9] == 'r';
  for (int s = 0; s < 2; ++s) {
    const char c = text[static_cast<std::size_t>(11 + s)];
    if (c < '0' || c > '2') return std::nullopt;
    g.skew[static_cast<std::size_t>(s)] = c - '0';
  }
  return g;
}

std::optional<std::string> illegality(const Generated& g, arch::Interconnect ic, const std::vector<quant::Operand>& ops) {
  const Mat3 m = transform(g);
  const long long det = m.determinant();  // exact: Eigen's 3x3 cofactor expansion in integers
  if (det != 1 && det != -1) return "its in-fold transform is not unimodular (det " + std::to_string(det) + ")";
  for (const auto& op : ops)
    for (const int l : reuse_loops(op)) {
      Vec3 d = m.col(l);
      if (forwarded(d, ic)) continue;
      if (d(2) < 0) d = -d;
      const std::string along = std::string("operand ") + op.name + " is reused along loop " + "ijk"[l] + ", which ";
      if (d(2) == 0) return along + "this mapping places in the same time stamp (a broadcast)";
      return along + "moves " + std::to_string(d(0)) + " row(s) and " + std::to_string(d(1)) +
             " column(s) per step: not a neighbour on a " + arch::to_string(ic) + " interconnect";
    }
  return std::nullopt;
}

bool is_legal(const Generated& g, arch::Interconnect ic, const std::vector<quant::Operand>& ops) {
  return !illegality(g, ic, ops).has_value();
}

std::vector<Dataflow> generate_dataflows(arch::Interconnect ic, const std::vector<quant::Operand>& ops) {
  std::vector<Dataflow> out;
  if (ic == arch::Interconnect::kRelation) return out;
  const char loops[3] = {'i', 'j', 'k'};
  for (const char x : loops)
    for (const char y : loops) {
      if (x == y) continue;
      const char t = static_cast<char>('i' + 'j' + 'k' - x - y);
      for (const bool rows_outer : {true, false})
        for (int a = 0; a <= 2; ++a)
          for (int b = 0; b <= 2; ++b) {
            const Generated g{{x, y}, t, rows_outer, {a, b}};
            if (is_legal(g, ic, ops)) out.push_back(Dataflow{g.name(), std::nullopt, g, {}});
          }
    }
  return out;
}

}  // namespace tenet_cost::mapping
