// Private to src/tenet: the exact counter (docs/tenet-engine.md §3). Its types, every field documented, and the
// qualifications that decide how each dimension is counted (one file per kind of decision, docs/architecture.md
// "tenet"). Shared by src/tenet/count/*.cpp and the stages around the counter (groups.cpp, metrics.cpp,
// parametric.cpp); nothing outside src/tenet includes it.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tenet/model.hpp"

namespace tenet_cost::tenet::detail {

using relation::Affine;

constexpr i64 kMaxEnumeratePoints = 30'000'000;  // --enumerate on the whole domain
constexpr int kMaxRetries = 4;                   // self-check failures before the counter gives up
constexpr std::size_t kMaxScaledDims = 64;       // interpolation over a floor divisor: at most this many dimensions

/// Extents up to which a parametric closed form is valid: the sound bounds that
/// depend on the box (skewed-time distances, the PE-domain check) are taken on
/// this box, which contains every smaller one.
constexpr i64 kParametricMaxExtent = i64{1} << 40;

inline std::vector<Interval> huge_box(const std::vector<Interval>& box) {
  std::vector<Interval> b(box);
  for (auto& x : b) x.hi = x.lo > INT64_MAX - kParametricMaxExtent ? INT64_MAX : x.lo + kParametricMaxExtent - 1;
  return b;
}

// ------------------------------------------------------------ small facts about the maps

/// A piece without constraints (one empty disjunct).
inline bool unconstrained(const Piece& p) { return p.disjuncts.size() == 1 && p.disjuncts[0].empty(); }

/// The coefficient of column i of `a` (0 past its last column).
inline i64 coeff_of(const Affine& a, std::size_t i) { return i < a.coeff.size() ? a.coeff[i] : i64{0}; }

/// `a` is exactly column d (coefficient 1, nothing else, no constant).
inline bool exact_var(const Affine& a, std::size_t d) {
  if (a.constant != 0) return false;
  for (std::size_t i = 0; i < a.coeff.size(); ++i)
    if (a.coeff[i] != (i == d ? 1 : 0)) return false;
  return d < a.coeff.size();
}

/// `a` has a non-zero coefficient on column d.
inline bool uses(const Affine& a, std::size_t d) { return d < a.coeff.size() && a.coeff[d] != 0; }

/// min(|c|, 2^20) without negating INT64_MIN.
inline i64 capped_abs(i64 c) {
  return c >= 0 ? std::min<i64>(c, i64{1} << 20) : c < -(i64{1} << 20) ? i64{1} << 20 : -c;
}

inline i128 mul128(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow("interpolated count");
  return r;
}
inline i128 add128(i128 a, i128 b) {
  i128 r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow("interpolated count");
  return r;
}

// ------------------------------------------------------------ the occurrence analysis (count/dim_use.cpp)

/// How one dimension d occurs in one piece of the maps: the facts the qualifications used to re-derive each on its
/// own (docs/tenet-engine.md §3). Built once per model by DimUse; the qualifications read it.
struct PieceUse {
  struct Term {
    bool direct = false;   // the numerator has d's column (floor((a*d + ...)/c), (a*d + ...) mod c)
    bool exact = false;    // the numerator is exactly d: floor(d/c) or d mod c
    bool alone = false;    // d is the numerator's only column: a*d + b
    bool nested = false;   // the numerator uses a term whose numerator has d's column (a term of a term of d)
    bool depends = false;  // the term depends on d at all: directly or through terms, transitively
  };
  struct Coord {
    bool direct = false;    // the coordinate has d's column
    bool exact = false;     // the coordinate is exactly d
    bool via_term = false;  // the coordinate uses a term that depends on d
  };
  std::vector<Term> terms;           // per term of the piece
  std::vector<Coord> out;            // per output coordinate of the piece
  bool constraint_direct = false;    // some constraint has d's column
  bool constraint_via_term = false;  // some constraint uses a term that depends on d
};

/// The most telling way d occurs in a piece (a summary of PieceUse, for the debug log and the docs).
enum class Occurrence {
  kNone,         // d does not occur
  kCoord,        // only as whole coordinates (exactly d)
  kScaledCoord,  // in coordinates with a coefficient, an offset or other variables
  kFloor,        // in floor(d/c) terms (and coordinates)
  kMod,          // in d mod m terms (and the above)
  kConstraint,   // in a constraint of the piece
  kNested,       // in a term of a term, or in a term with other variables or a coefficient
};

/// The occurrence table: how every dimension occurs in every piece of a model's space map, time map and access
/// relations (PieceUse), built once (Counter's constructor, split_by_strides, solve_scaled's scaled copies).
class DimUse {
 public:
  explicit DimUse(const Model& m);
  /// How dimension d occurs in piece p (p a piece of the model's space, time or access relations).
  [[nodiscard]] const PieceUse& at(const Piece* p, std::size_t d) const;
  /// The summary of at(p, d).
  [[nodiscard]] Occurrence occurrence(const Piece* p, std::size_t d) const;

 private:
  std::size_t nd_ = 0;
  std::vector<const Piece*> pieces_;  // the indexed pieces
  std::vector<PieceUse> use_;         // [piece index * nd + d]
};

/// The facts of one piece and one dimension (DimUse's entries).
PieceUse piece_use(const Piece& p, std::size_t d);

/// The coordinate that carries d in every piece of a tensor when each piece either ignores d or has it as exactly
/// one whole coordinate `d` (the same in every piece), with d in no term and no constraint: -1 when no piece uses d.
/// nullopt otherwise (d in a term or constraint, a coordinate that is not exactly d, two coordinates, or pieces
/// that disagree).
std::optional<int> whole_coordinate(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d);

// ------------------------------------------------------------ the counter's types

/// How one dimension of the iteration domain is counted in one attempt of Counter::solve.
struct DimPlan {
  bool compress = false;  // interpolated: sampled at r + (n0 + b) * L, b in {0, 1} (and 2 in the self-check)
  i64 L = 1;              // the period of the dimension in the group (in units of its free stride)
  i64 r = 0;              // the true extent's residue mod L (in units of the stride): N = r + n_true * L
  i64 n_true = 0;         // the true extent's number of whole periods
  i64 n0 = 0;             // the base: the fewest periods from which the counts are multilinear (plus retries' growth)
};

/// One group's counts as an exact closed form on a region of iteration-domain
/// extents: dimension d is either compressed (extent N = S * (r + n * L) with
/// n >= n0: the counts are multilinear in the n of the compressed dimensions)
/// or kept (exactly the extent N it was counted at). coef[mask * nv + v] is the
/// coefficient of value v on prod_{j in mask} (n_{comp[j]} - n0).
struct ClosedForm {
  struct Dim {
    bool compress = false;
    i64 S = 1, L = 1, r = 0, n0 = 0;  // compressed: stride, period and residue (in units of S), base
    i64 N = 0;                        // kept: the exact extent
  };
  std::vector<Dim> dims;          // per dimension of the iteration domain
  std::vector<std::size_t> comp;  // compressed dimensions
  std::size_t nv = 0;             // values per extent (the group's flattened results)
  std::vector<i128> coef;         // 2^|comp| x nv multilinear coefficients (Moebius transform of the samples)
  // Interpolation over a floor divisor (docs/tenet-engine.md §3 "Large floor divisors"): when `inner` holds two
  // forms, the value at extents with N_sd = q * G + r (q >= 1, r < Ga) is inner[0] + (inner[1] - inner[0]) * (G - Ga),
  // inner[j] evaluated with N_sd replaced by q * (Ga + j) + r (the problem with divisor Ga + j instead of G).
  std::size_t sd = 0;             // the scaled dimension
  i64 G = 0, Ga = 0;              // its true divisor and the smaller divisor Ga sampled (Ga + 1 too)
  std::vector<ClosedForm> inner;  // empty, or the forms at divisors Ga and Ga + 1

  /// `ext` with dimension sd's extent q * G + r replaced by q * Gp + r (into `buf`, dims.size() <= kMaxScaledDims).
  [[nodiscard]] const i64* substituted(const i64* ext, i64 Gp, i64* buf) const {
    for (std::size_t d = 0; d < dims.size(); ++d) buf[d] = ext[d];
    buf[sd] = ext[sd] / G * Gp + ext[sd] % G;
    return buf;
  }

  /// Whether the extents lie in this form's region.
  [[nodiscard]] bool matches(const i64* ext) const {
    if (!inner.empty()) {
      if (ext[sd] / G < 1 || ext[sd] % G >= Ga) return false;
      std::array<i64, kMaxScaledDims> buf{};
      return inner[0].matches(substituted(ext, Ga, buf.data())) &&
             inner[1].matches(substituted(ext, Ga + 1, buf.data()));
    }
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const Dim& x = dims[d];
      if (!x.compress) {
        if (ext[d] != x.N) return false;
        continue;
      }
      if (ext[d] % x.S != 0) return false;
      const i64 u = ext[d] / x.S;
      if (u % x.L != x.r || u / x.L < x.n0) return false;
    }
    return true;
  }
  /// Value v at the extents (which must match); checked 128-bit, allocation-free.
  [[nodiscard]] i64 value(const i64* ext, std::size_t v) const {
    if (!inner.empty()) {
      std::array<i64, kMaxScaledDims> buf{};
      const i128 a = inner[0].value(substituted(ext, Ga, buf.data()), v);
      const i128 b = inner[1].value(substituted(ext, Ga + 1, buf.data()), v);
      const i128 x = add128(a, mul128(b - a, G - Ga));
      if (x < 0)
        throw InputError(
            "cannot count exactly: the interpolated count is negative (the counts are not affine in the floor "
            "divisor for this mapping)");
      return checked_narrow(x, "count");
    }
    i128 acc = 0;
    const std::size_t nb = std::size_t{1} << comp.size();
    for (std::size_t mask = 0; mask < nb; ++mask) {
      i128 prod = coef[mask * nv + v];
      if (prod == 0) continue;
      for (std::size_t j = 0; j < comp.size(); ++j)
        if (mask & (std::size_t{1} << j)) {
          const Dim& x = dims[comp[j]];
          prod = mul128(prod, ext[comp[j]] / x.S / x.L - x.n0);
        }
      acc = add128(acc, prod);
    }
    if (acc < 0)
      throw InputError(
          "cannot count exactly: the interpolated count is negative (the counts are not multilinear in the loop sizes "
          "for this mapping)");
    return checked_narrow(acc, "count");
  }
};

/// One count group: counts that use the same relations and periods, counted together (docs §3 step 1).
struct Group {
  std::vector<int> members;          // -1 = space/time counts, k >= 0 = tensor k
  std::vector<const Piece*> pieces;  // the relations the members use: space and time map pieces, then access pieces
  std::vector<i64> L;                // per dimension: lcm of the periods of every piece (lcm_periods)
  std::vector<i64> W;                // per dimension: 1 (unused: Counter::solve computes the windows)
  std::vector<i64> result;           // flattened results of all members after solving
  std::vector<i64> stride;           // free tile dimensions: enumerate one residue, scale (1 = not free)
  std::vector<i64> sub;              // ... the first `sub` residues of each tile kept (the maps see d % sub)
  std::vector<std::vector<char>> contains;  // [member][d]: the tensor's elements carry d's residue
  ClosedForm form;  // the closed form solve() found (valid on a region of extents, see ClosedForm)
};

/// Inner block dimension (docs/tenet-engine.md §3 "Inner blocks"): like an outer block, but the block coordinate
/// floor(d/c) (c | L) is time coordinate p >= 1, after coordinates that do not see d. Blocks are then consecutive
/// translated copies inside every prefix (the coordinates before p); the prefixes add one link each, from the last
/// stamp of a prefix (d in the last block) to the first stamp of the next (d in block 0). A tensor of the group may
/// carry d as one whole coordinate `d` or `floor(d/g)` (g | L): elements of different blocks differ. When N_d is a
/// whole number of blocks, one block makes that link join block 0 to itself, so each carrying tensor needs a
/// witness: a coordinate `e` (e != d, the same in every piece) whose only time coordinate is q > p, exactly
/// floor(e/ce); with N_e > ce the link's two stamps differ in floor(e/ce), so in e, so in the element. Or e is
/// the only variable the coordinates before p see (a prefix witness, ce = 0): two prefixes differ in e. Or (a
/// skew witness, (d, -1), tensors carrying `d` itself) coordinate p + 1 holds d only as s * (d % m), s != 0,
/// m >= 2: the link's two stamps are at opposite extremes of d % m. Coordinates after p may mix d % m terms
/// with other variables (the skewed OS map's k + i%32 + j%32).
struct InnerBlock {
  i64 L = 0;                                                   // the period (0: not an inner block)
  std::vector<std::vector<std::pair<std::size_t, i64>>> need;  // per carrying tensor: its witnesses (e, ce)
};

/// A dimension whose only non-translation appearance in a group is floor(d/G) in the tensors' accesses
/// (docs/tenet-engine.md §3 "Large floor divisors").
struct ScaledDim {
  std::size_t d = 0;  // the dimension
  i64 G = 0;          // the divisor
  i64 Ga = 0;         // the smallest divisor sampled (Ga and Ga + 1 are counted, Ga + 2 and 2 Ga + 1 checked)
};

/// A scaled copy of a problem and of one of its groups (Counter::scaled_problem).
struct ScaledProblem {
  Model m;  // the model with floor(d/G) replaced by floor(d/Gp) in the group's access pieces
  Group g;  // the group, its pieces pointing into m
};

/// The engine's resource limits (AnalyzeOptions::max_work, time_limit_s, and an optional Deadline shared by several
/// calls): charged before every brute-forced instance; the time is also checked inside an instance (brute_force
/// polls every 2^16 points and between its phases), so a count stops within milliseconds of the limit.
class Limits {
 public:
  explicit Limits(const AnalyzeOptions& o, const Deadline* deadline = nullptr)
      : o_(o), deadline_(deadline), start_(std::chrono::steady_clock::now()) {}
  /// Count one brute-forced instance of `points` statement instances and `accesses` relations per instance;
  /// throws InputError past the work budget (unless enumerating) or the time limit.
  void charge(i64 points, i64 accesses, bool enumerate);
  /// Throws InputError past the time limit.
  void check_time() const;
  [[nodiscard]] i64 work() const { return work_; }

 private:
  const AnalyzeOptions& o_;                      // the limits
  const Deadline* deadline_;                     // a shared end (nullptr: none)
  std::chrono::steady_clock::time_point start_;  // when counting started
  i64 work_ = 0;                                 // point-accesses charged so far (saturating)
  i64 instances_ = 0;                            // instances charged so far
};

/// One line to AnalyzeOptions::debug_log (stderr when unset).
void debug(const AnalyzeOptions& o, const std::string& line);
/// Seconds with 3 significant digits.
std::string fmt_seconds(double s);

/// Per dimension: the lcm of the periods of `pieces` (relation::periods).
std::vector<i64> lcm_periods(const std::vector<const Piece*>& pieces, std::size_t nd);

// ------------------------------------------------------------ windows (count/windows.cpp)

/// Constraints of the pieces switch at a fixed position of d, not at a fixed distance from a face of the box (e.g.
/// `A[i] : i < 5`): how far from the low face that position can be (0: no constraint on d). The window must add
/// it: the part of the box beyond the switching point needs the whole window again. Through a floor term: not
/// compressed (2^20).
i64 constraint_reach(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d,
                     const std::vector<Interval>& box);
/// Window (in units of the variable) of boundary effects of variable d in the pieces: 1 + the spread of the other
/// columns in any expression involving d (docs §3 step 1). `big[v]`: variable v is compressed (its own growth is
/// what we interpolate); kept variables contribute their whole range.
i64 window(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d, const std::vector<Interval>& box,
           const std::vector<char>& big);
/// The window across the pieces of one tensor (elements of two pieces coincide when all coordinates agree).
i64 cross_window(const TensorDef& td, std::size_t d, const std::vector<Interval>& box,
                 const std::vector<char>& big_vars);
/// The wrap-around window of d for one tensor (docs §3 step 1 "Wrap-around"); `changes` from wrap_changes().
i64 wrap_window(const DimUse& use, const TensorDef& td, std::size_t d, const std::vector<Interval>& box,
                const std::vector<char>& big, const std::vector<char>& changes);
/// Skewed time dimension (docs/tenet-engine.md §3 "Skewed time"). Preconditions for d: a box; single
/// unconstrained space and time pieces whose terms each take one variable; a box PE domain; d in the time map only
/// as +-d in the last coordinate, in the space map at most inside `(a*d+b) % c`. Returns the largest |x'_d - x_d|
/// over the pairs of instances the metrics relate locally (sound: interval propagation over the differences of
/// every column); nullopt when d does not qualify.
std::optional<i64> skew_distance(const Model& m, const DimUse& use, std::size_t d, const std::vector<Interval>& box);
/// d wraps around in the time order: some time coordinate but the first uses d (directly or through a term).
bool wraps_in_time(const Model& m, const DimUse& use, std::size_t d);
/// The dimensions that differ between the two stamps of every wrap of d (docs §3 step 1 "Wrap-around").
std::vector<char> wrap_changes(const Model& m, const DimUse& use, std::size_t d, const std::vector<i64>& min_extent,
                               const std::vector<i64>& stride, const std::vector<i64>& sub);
/// d appears in the pieces' terms only as (a*d + b) % c or as floor(d/c) (d alone, coefficient 1; no other
/// floor, no mixing, no term of such a term).
bool only_mod_terms(const DimUse& use, const std::vector<const Piece*>& pieces, std::size_t d);

// ------------------------------------------------------------ blocks (count/blocks.cpp)

/// How a term of a map piece sees d (classify_d_terms).
enum class DTerm : char {
  kNone,   // not at all
  kFloor,  // floor(d/c)
  kMod,    // d mod m
};
/// The terms through which a map piece sees d.
struct DTerms {
  std::vector<DTerm> kind;  // per term of the piece
  i64 den = 0;              // the one floor divisor c (0: no floor term)
};
/// The terms of a map piece that see d, when each is exactly floor(d/c) (one c; only when allow_floor) or d % m;
/// nullopt for anything else (d with another variable or a coefficient, a term of a term of d).
std::optional<DTerms> classify_d_terms(const PieceUse& u, const Piece& p, bool allow_floor);
/// The outer block of one value (docs/tenet-engine.md §3 "Outer blocks", L = 1): the time map's first coordinate
/// is exactly d (+ a constant), and neither map uses d anywhere else (no other coordinate, no term).
bool direct_first_coordinate(const DimUse& use, const Piece& tp, const Piece& sp, std::size_t d);
/// Outer block dimension (docs/tenet-engine.md §3 "Outer blocks"). Preconditions for d: a box starting at d = 0;
/// single unconstrained space and time pieces; the time map's first coordinate is exactly floor(d/L) (+ a
/// constant) with L the group's period of d (or exactly d when the period is 1), d appears nowhere else in the
/// maps but in `d % m` terms (m | L; other coordinates may combine them with other variables); each of the group's
/// tensors either ignores d or has d as one whole coordinate (whole_coordinate). Then the blocks of L values of d
/// are consecutive translated copies in the outermost time coordinate, on the same PEs, whose elements are the same
/// or (whole coordinate) disjoint between blocks, so every count of the group is affine in the number of whole
/// blocks from one block on (not only from the base of the general argument). Returns L, nullopt otherwise.
std::optional<i64> outer_block(const Model& m, const DimUse& use, std::size_t d,
                               const std::vector<std::vector<const Piece*>>& tensors, i64 period);
/// Inner block dimension (see InnerBlock). Preconditions for d: as an outer block but the block coordinate
/// floor(d/c) (c | L) is time coordinate p >= 1 (block_coordinate), the space map mixes no term of d with anything
/// (space_separates), and each tensor ignores d or carries it as the same whole coordinate `d` or `floor(d/g)`
/// (g | L) in every piece, d in no constraint. Returns L = the period and each carrying tensor's witnesses; nullopt
/// when d does not qualify.
std::optional<InnerBlock> inner_block(const Model& m, const DimUse& use, std::size_t d,
                                      const std::vector<std::vector<const Piece*>>& tensors, i64 period);

// ------------------------------------------------------------ free dimensions (count/free_dims.cpp)

/// A free tile dimension of a group: one residue class of every tile is enumerated and the counts scaled back.
struct FreeDim {
  i64 stride = 1;              // S: the tile (of d's values)
  i64 sub = 1;                 // the first `sub` residues of each tile are enumerated (the maps see d % sub)
  std::vector<char> contains;  // per member: the tensor's elements carry d (its unique counts scale too)
};

/// Free stride (docs/tenet-engine.md §3 step 3). Preconditions for d: the maps see it only as floor(d/S) and
/// d % M (one S, one M, M | S, S / M >= 2; no S: S = N_d), in no constraint and no coordinate; every access of a
/// member either ignores it or uses it as one whole coordinate (the same in every piece; its floor and mod terms
/// as the maps'); S | N_d and S | lo_d. Then the S residues of d are independent copies (or duplicates) of the
/// same problem and the first M of every tile suffice. nullopt when d does not qualify.
std::optional<FreeDim> free_stride(const Model& m, const DimUse& use, std::size_t d,
                                   const std::vector<const Piece*>& st, const std::vector<int>& members);
/// Whether every interconnect image of a PE in its own row (space coordinate q) is the same for every row: each
/// piece either moves to another row (coordinate q = q + c, c != 0) or keeps the row (q = q) with its other
/// coordinates and constraints not seeing q.
bool row_invariant(const relation::Relation& icn, std::size_t q);
/// Free rows (docs/tenet-engine.md §3 "Free rows"). Preconditions for d: every member is a tensor; the space and
/// time maps are single unconstrained pieces; the space map holds d as one coordinate q that is exactly d % S
/// (S >= 2) and nowhere else; the time map sees d only as floor(d/S); every member carries d as one whole coordinate
/// (whole_coordinate >= 0); S | N_d, S | lo_d and the interconnect treats the rows alike (row_invariant). Then every
/// tensor count is S times the count of residue 0 (stride S, sub 1, every member carries d). nullopt otherwise.
std::optional<FreeDim> free_rows(const Model& m, const DimUse& use, std::size_t d, const std::vector<int>& members);
/// The free dimension d of a group: free_stride, else (when `rows`) free_rows; nullopt when neither applies.
std::optional<FreeDim> free_dim(const Model& m, const DimUse& use, std::size_t d, const std::vector<const Piece*>& st,
                                const std::vector<int>& members, bool rows);
/// The strides, subs and carried dimensions of every dimension of g (free_dim on m.box; 1, 1, 0 when not free).
void set_free_dims(const Model& m, const DimUse& use, Group& g, bool rows);

/// What Counter::qualify() finds out about a group before planning: fixed for every attempt of Counter::solve but
/// for the inner blocks, which inner_witnessed() may drop.
struct Qualification {
  std::vector<const Piece*> nontime;  // the group's pieces but the time map's (their windows still apply to a skewed
                                      // time dimension)
  std::vector<char> block;            // per dimension: an outer or inner block (affine from one whole block on)
  std::vector<InnerBlock> inner;      // per dimension: the inner block (L = 0: none)
  std::vector<char> wraps;            // per dimension: the time map sees it after its first coordinate (wraps_in_time)
  std::vector<i64> min_extent;        // per dimension: the fewest enumerated values in any sampled instance (its true
                                      // extent, or min_base periods, min_base - 1 for a block)
};

/// What one attempt of Counter::solve leaves to the next.
struct Bases {
  std::vector<i64> extra;  // per dimension: periods added to the base n0 after failed self-checks
  bool refine = true;      // use the skewed-time windows (dropped when a sampled time domain has holes)
};

/// The plan of one attempt of Counter::solve (Counter::choose_plan).
struct Plan {
  std::vector<DimPlan> dims;      // per dimension: compressed or kept, period, residue, base
  std::vector<i64> W;             // per dimension: its window, in units of the dimension
  std::vector<char> refined;      // per dimension: W is the skewed-time window (tighter than the general one)
  std::vector<char> virt;         // per dimension: virtual (plan B: kept at its true size but big for the others)
  std::vector<std::size_t> comp;  // the compressed dimensions, in increasing order
};

/// How an attempt of Counter::solve ended. (kReplan, an inner block that lost its witness, is decided before
/// sampling: Counter::solve plans again with the same attempt number.)
enum class Retry {
  kDone,      // counted: g.result and g.form are set
  kGrowBase,  // the self-check failed: grow the bases of the compressed and virtual dimensions and try again
  kDropSkew,  // a sampled instance's time domain has holes: plan again with the general windows, from attempt 0
};

/// The multilinear coefficients (Moebius transform) of the 2^dc samples f[mask] (bit j: n0 + 1 in the j-th
/// compressed dimension), in (n - n0).
std::vector<std::vector<i128>> moebius(const std::vector<std::vector<i64>>& f, std::size_t dc);
/// The multilinear polynomial with coefficients c at n - n0 = delta (checked 128-bit).
std::vector<i128> eval_multilinear(const std::vector<std::vector<i128>>& c, const std::vector<i64>& delta);

// ------------------------------------------------------------ the counter (count/solve.cpp, count/scaled.cpp)

/// Counts the groups of one model exactly (docs/tenet-engine.md §3): solve() brute-forces small instances, fits the
/// multilinear closed form and self-checks it; every brute-forced instance is cached (by its box, strides and the
/// tensors it counted) for the life of the counter.
class Counter {
 public:
  /// `parametric`: the closed forms must hold for every larger extent of the
  /// compressed dimensions (up to kParametricMaxExtent), not only at m.box.
  /// `workspace`: brute_force's buffers shared with an enclosing counter (nullptr: this counter's own).
  Counter(const Model& m, const AnalyzeOptions& o, Limits& limits, bool parametric = false,
          Workspace* workspace = nullptr);
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  /// Exact counts of every group member (g.result) and their closed form (g.form): solve_scaled when a dimension
  /// qualifies, else qualify -> (choose_plan -> sample_and_check -> retry) until the self-check passes.
  void solve(Group& g);

  /// Two compressed dimensions in one coordinate or constraint (e.g. T[i+j],
  /// A[i+k], i <= j) make counts piecewise (chambers), not multilinear: keep all
  /// but the largest of them at their true size. Periodic terms (e % c) do not couple.
  void decouple(const Group& g, std::vector<DimPlan>& plan) const;

  /// An inner block dimension d with N_d a whole number of blocks needs, for every tensor carrying it, a witness e
  /// with N_e > ce on the whole region the plan claims (docs §3 "Inner blocks"). Clears block[d] (and returns
  /// false) for the first d without one.
  bool inner_witnessed(const std::vector<DimPlan>& plan, const std::vector<char>& virt, const Group& g,
                       std::vector<InnerBlock>& inner, std::vector<char>& block) const;

  /// The occurrence table of the counter's model.
  [[nodiscard]] const DimUse& dim_use() const { return use_; }
  [[nodiscard]] int retries() const { return retries_; }
  [[nodiscard]] std::size_t instances() const { return cache_.size() + extra_instances_; }
  /// Every instance this counter brute-forced had a hole-free time domain (see Counts::time_dense).
  [[nodiscard]] bool all_dense() const { return all_dense_; }

  /// Large floor divisors (docs/tenet-engine.md §3): a dimension d qualifies in group g when it is a skewed
  /// time dimension (local distance delta = *skew_[d]), starts at 0, appears in no term of the space and
  /// time maps, and in the group's tensor accesses only inside floor(d/G) (one G; outputs, other terms and
  /// constraints see d only through that term; constraints not at all). Then every count, for a fixed number
  /// of whole blocks q = N / G and remainder r = N % G, is affine in G once G >= 2 delta + 2 and G > r.
  /// Only worth it when the sampled divisors are much smaller than G. The largest such G; nullopt when none.
  [[nodiscard]] std::optional<ScaledDim> scaled_dim(const Group& g) const;

  /// Counts of g at divisors Ga and Ga + 1 (the interpolation), each an ordinary exact count of the problem with
  /// floor(d/G) replaced by floor(d/G') and N_d = q G' + r; the value at G by the affine formula. Self-check: one
  /// small instance (the smallest extents both closed forms cover, same remainder r) brute-forced at divisors
  /// Ga + 2 and 2 Ga + 1 must lie on the line through the two forms' values there. False (the caller counts as
  /// usual) when a check fails.
  bool solve_scaled(Group& g, const ScaledDim& s);

 private:
  /// The problem with divisor Gp (solve_scaled): a copy of the model whose group pieces (and the tensors' pointers
  /// to them) point into the copy, with floor(d/G) replaced by floor(d/Gp), extents ext and N_d = qq Gp + r; its
  /// group g with its periods and free dimensions.
  std::unique_ptr<ScaledProblem> scaled_problem(const Group& g, const ScaledDim& s, i64 Gp, i64 qq,
                                                const std::vector<i64>& ext) const;

  // The steps of solve() (count/solve.cpp, count/plan.cpp, count/interpolate.cpp).
  /// Which dimensions are blocks, wrap around in time, and their fewest sampled values.
  [[nodiscard]] Qualification qualify(const Group& g) const;
  /// Plan A (slack 3) or, when cheaper, plan B with virtual dimensions. A big dimension whose true size is only n0,
  /// n0 + 1 or n0 + 2 periods is not worth interpolating. Plan A keeps it at its true size and not big: the other
  /// dimensions' windows see its whole range. Plan B (slack 0) runs it at its true size in every instance but keeps
  /// it big ("virtual"): that size is one of the sizes the multilinear argument covers (n >= n0), so the windows and
  /// couplings of the others are those of a compression sampled at the true size. Both are exact; the plan with
  /// fewer brute-forced points is used (docs §3 "Virtual dimensions"). Parametric: plan A with slack 0 only.
  [[nodiscard]] Plan choose_plan(const Group& g, const Qualification& q, const Bases& bases) const;
  /// The compressed dimensions, a fixed point: the windows depend on which dimensions are big, and decouple() drops
  /// some. A big dimension is compressed when n_true >= n0 + slack.
  void plan_fixed_point(const Group& g, const Qualification& q, const Bases& bases, i64 slack, Plan& plan) const;
  /// The windows of every dimension (plan.W, plan.refined) given the big dimensions: the general window, the
  /// cross-piece window, the constraint reach, the wrap-around window and the skewed-time window.
  void windows(const Group& g, const Qualification& q, const Bases& bases, const std::vector<char>& big,
               Plan& plan) const;
  /// Points of the 2^dc base instances and the dc (+1) checks of a plan.
  [[nodiscard]] double plan_cost(const Group& g, const std::vector<DimPlan>& plan) const;
  /// The plan's debug line (DebugLevel::kCount).
  void log_plan(const Group& g, const Qualification& q, const Bases& bases, const Plan& plan, int attempt) const;
  /// Sample the 2^dc instances, interpolate, self-check; on success the values at the true extents and the closed
  /// form go to g. Throws when dc > 12 or a predicted count is negative.
  Retry sample_and_check(Group& g, const Plan& plan, int attempt);
  /// After a failed self-check: grow the base of every compressed and virtual dimension by max(1, n0 / 2).
  void grow_bases(const Plan& plan, Bases& bases) const;
  /// The box of the sampled instance b (b[j]: periods beyond n0 in the j-th compressed dimension).
  [[nodiscard]] std::vector<Interval> sizes_for(const Group& g, const Plan& plan, const std::vector<i64>& b) const;
  /// The 2^dc instances n0 + {0, 1} of the compressed dimensions, brute-forced.
  std::vector<std::vector<i64>> sample(const Group& g, const Plan& plan);
  /// Self-check on more brute-forced instances: n0 + 2 in each compressed dimension alone, and in all of them at
  /// once (dc > 1); true when the polynomial c predicts every one exactly.
  bool self_check(const Group& g, const Plan& plan, const std::vector<std::vector<i128>>& c);
  /// The closed form of the plan with coefficients `coef` into g.form.
  void record_form(Group& g, const Plan& plan, const std::vector<std::vector<i128>>& coef) const;

  /// The counts of g's members on `box` (brute force, cached), scaled back from one residue of the free dimensions.
  std::vector<i64> run(const Group& g, const std::vector<Interval>& box);

  /// A piece of the space or time map (not of an access relation).
  [[nodiscard]] bool is_space_time(const Piece* p) const {
    for (const Piece& x : m_.space.pieces)
      if (&x == p) return true;
    for (const Piece& x : m_.time.pieces)
      if (&x == p) return true;
    return false;
  }

  const Model& m_;                   // the problem (its box: the extents counted)
  DimUse use_;                       // how every dimension occurs in every piece of m_
  const AnalyzeOptions& o_;          // switches, limits and the debug log
  bool enumerate_;                   // o_.enumerate: brute force the whole box, no interpolation
  bool parametric_;                  // closed forms must hold for every larger extent (see the constructor)
  Limits& limits_;                   // shared with every counter of this count (inner counters of solve_scaled too)
  int retries_ = 0;                  // self-check failures so far (inner counters' included)
  bool dense_ = true;                // every instance run since the last reset had a hole-free time domain
  bool all_dense_ = true;            // every instance run had a hole-free time domain
  std::size_t extra_instances_ = 0;  // instances brute-forced by inner counters (large floor divisors)
  std::vector<std::optional<i64>> skew_;  // skew_distance() of each dimension (nullopt: not a skewed time dimension)
  /// brute-forced instances: key = box upper bounds, strides, subs; value = the counts and the tensors counted
  std::map<std::vector<i64>, std::pair<Counts, std::vector<char>>> cache_;
  // brute_force's buffers: the thread's (scratch of one brute_force call, which never runs another: every count of
  // the thread reuses them, saving the allocation and first-touch page faults of each new count), or an enclosing
  // counter's (the inner counts of solve_scaled)
  Workspace* ws_;
};

}  // namespace tenet_cost::tenet::detail
