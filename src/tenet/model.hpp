// Internal: a validated, parsed TENET problem and the brute-force counter.
#pragma once

#include <string>
#include <vector>

#include "tenet_cost/relation.hpp"
#include "tenet_cost/tenet.hpp"

namespace tenet_cost::tenet::detail {

using relation::Interval;
using relation::Piece;
using relation::Relation;

struct TensorDef {
  std::string name;
  Access access = Access::kRead;
  std::vector<const Piece*> pieces;
  std::size_t arity = 0;
};

struct Model {
  Relation domain;
  std::string stmt_name;
  std::size_t nd = 0;
  bool is_box = false;
  std::vector<Interval> box;  // the box (is_box) or a bounding box
  Relation space, time, pedom, icn;
  std::size_t ns = 0, nt = 0;
  std::vector<Relation> access_rels;
  std::vector<TensorDef> tensors;  // reads sorted by name, then writes sorted by name
  PEArraySpec pe;
};

/// Parse and check every relation of the problem (names, arities, kinds).
Model compile(const Problem& problem);

struct TensorCounts {
  i64 tv = 0;   // total volume: sum over instances of |A(x)|
  i64 uv = 0;   // unique volume against the default neighbourhood
  i64 uvt = 0;  // unique volume against (s, prev t) only
  i64 spi = 0;  // spatial-reuse intersection count
};

struct Counts {
  i64 points = 0;  // |D|
  i64 nT = 0, nS = 0, nSTD = 0;
  std::vector<TensorCounts> tensors;  // indexed like Model::tensors (zeros when not wanted)
  /// Every prefix (all time coordinates but the last) of the occupied stamps has
  /// a contiguous range of last coordinates (prev(t) = t - 1 inside a prefix).
  bool time_dense = true;
};

/// Buffers of brute_force kept between the instances of one count (a Counter
/// owns one): reusing them saves the allocation and first-touch page faults
/// that were ~40 % of the CPU time of a TENET experiment.
class Limits;  // count/counter.hpp

struct Workspace {
  std::vector<i64> codes_a, codes_b;
  std::vector<std::int32_t> dense;
  std::vector<std::uint32_t> order, tmp, gstart, gs;
};

/// Brute force over the statement instances inside `box` (a sub-box of the
/// domain's box that shares its lower corner). `want[k]` selects tensors.
/// Throws InputError when a map is not a function on the domain, when the
/// space map leaves the PE domain, or when the instance exceeds `max_points`.
/// `step[d]` > 1 enumerates only the first `sub[d]` values of every step-tile
/// of dimension d: lo + step * q + u, u < sub (a free tile dimension).
/// `limits` (optional): its time limit is checked every 2^16 instances and between the phases.
Counts brute_force(const Model& m, const std::vector<Interval>& box, const std::vector<char>& want, i64 max_points,
                   const std::vector<i64>& step = {}, const std::vector<i64>& sub = {}, Workspace* workspace = nullptr,
                   const Limits* limits = nullptr);

}  // namespace tenet_cost::tenet::detail
