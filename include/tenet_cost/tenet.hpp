// The native TENET engine: (PE array, statement, space-time mapping) ->
// every metric of TENET (see docs/tenet-engine.md for the definitions and
// the exact counting method). Counts are exact 64-bit integers; any overflow
// is an OverflowError.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tenet_cost/error.hpp"

namespace tenet_cost::tenet {

/// One relation as text (isl syntax) plus where it came from.
struct RelationText {
  std::string text;
  SourceLocation loc;  // file + line of the text; column 1
};

/// `.p` file: PE domain, interconnect, `l1 l2 bandwidth avg_latency`.
struct PEArraySpec {
  RelationText domain;
  RelationText interconnect;
  std::uint64_t l1_size = 1, l2_size = 1, bandwidth = 1, avg_latency = 1;
};

/// `.s` file: iteration domain and access relations.
struct StatementSpec {
  RelationText domain;
  std::vector<RelationText> reads;
  std::vector<RelationText> writes;
};

/// `.m` file: space map and time map.
struct MappingSpec {
  RelationText space_map;
  RelationText time_map;
};

struct Problem {
  PEArraySpec pe;
  StatementSpec statement;
  MappingSpec mapping;
};

PEArraySpec load_pe_array(const std::string& path);
StatementSpec load_statement(const std::string& path);
MappingSpec load_mapping(const std::string& path);
Problem load_problem(const std::string& pe_path, const std::string& statement_path,
                     const std::string& mapping_path);
/// `experiment_N` file: mapping, PE array, statement paths relative to data_root.
Problem load_experiment(const std::string& experiment_path, const std::string& data_root);

enum class Access { kRead, kWrite };

struct TensorMetrics {
  std::string name;
  Access access = Access::kRead;
  std::int64_t total_volume = 0;
  std::int64_t unique_volume = 0;      // against the default neighbourhood
  double reuse_factor = 0.0;           // total / unique
  double temporal_reuse = 0.0;         // (total - unique vs (s, prev t)) / |D|
  double spatial_reuse = 0.0;          // |intersection with neighbours| / |D|
  std::int64_t delay = 0;              // ingress (reads) / egress (writes) of this tensor alone
  // Added: the integer counts behind the ratios.
  std::int64_t temporal_unique_volume = 0;  // unique volume against (s, prev t) only
  std::int64_t spatial_reuse_volume = 0;    // |intersection with neighbours| (spatial_reuse * |D|)
};

struct Metrics {
  std::int64_t macs = 0;               // |D|
  std::int64_t time_stamps = 0;        // |TD|
  std::int64_t active_pes = 0;         // |SD|
  std::int64_t space_time_points = 0;  // |STD|
  double avg_active_pes = 0.0;         // |STD| / |TD|
  std::int64_t macs_per_pe = 0;        // floor(|D| / |SD|)
  std::int64_t ingress_delay = 0;      // all read tensors together
  std::int64_t egress_delay = 0;       // all write tensors together
  std::int64_t compute_delay = 0;      // = macs_per_pe
  std::int64_t max_delay = 0;
  std::int64_t energy = 0;             // TENET's truncation order, 64-bit
  std::vector<TensorMetrics> tensors;  // reads then writes, each sorted by name
  // Added: how the numbers were obtained.
  bool spatial_reuse_computed = true;  // false with AnalyzeOptions::spatial_reuse = false (spatial_reuse = NaN)
  std::string counting_method;         // "multilinear interpolation" or "enumeration"
  std::int64_t self_check_retries = 0; // times a self-check failed and a larger base was tried
  std::int64_t instances_counted = 0;  // brute-forced small instances
};

/// Which counting plan the counter may use for dimensions with only n0..n0+2
/// periods (docs/tenet-engine.md §3 "Virtual dimensions").
enum class VirtualPlan {
  kAuto,   // the plan with fewer brute-forced points (default)
  kNever,  // plan A only (formerly TC_NO_VIRTUAL=1)
  kForce,  // plan B whenever it has a virtual dimension (tests; formerly TC_FORCE_VIRTUAL=1)
};

/// What the counter reports through AnalyzeOptions::debug_log.
enum class DebugLevel {
  kNone,
  kSelfCheck,  // self-check failures only (formerly TC_DEBUG_SELFCHECK=1)
  kCount,      // plans (periods, windows, bases, compressed dimensions) and self-check failures (TC_DEBUG_COUNT=1)
};

/// Every knob of the engine (it reads no environment variable).
struct AnalyzeOptions {
  bool enumerate = false;              // brute force over the domain (debug / oracle)
  bool spatial_reuse = true;           // the spatial-reuse intersection is the most costly metric
  std::int64_t bits_per_item = 16;     // TENET's BIT_PER_ITEM for the delays

  // Counter tuning (formerly environment variables; the defaults are the documented method).
  std::int64_t min_base = 2;        // smallest base n0 in periods (formerly TC_MIN_BASE); >= 1
  bool skewed_time_windows = true;  // the tighter skewed-time windows (false: formerly TC_NO_SKEW=1)
  VirtualPlan virtual_plan = VirtualPlan::kAuto;
  /// Large floor divisors (`floor(k/128)` of a group scale): count at a few small divisors and interpolate
  /// (docs/tenet-engine.md §3 "Large floor divisors"); false: count with the divisor as given (comparison).
  bool scaled_divisors = true;
  /// Outer block dimensions (a time map's first coordinate floor(d/L), d unseen by the group's tensors): base of
  /// one block instead of two (docs/tenet-engine.md §3 "Outer blocks"); false: the general base (comparison).
  bool outer_blocks = true;
  /// Inner blocks (docs/tenet-engine.md §3 "Inner blocks"): a block coordinate floor(d/c) after other time
  /// coordinates is affine from one block on too (false: the general base; for comparison).
  bool inner_blocks = true;
  /// Free rows (docs/tenet-engine.md §3 "Free rows"): a dimension held as `d % S` by one PE coordinate and carried
  /// by every tensor of a count group is counted on one residue (false: on all; for comparison).
  bool free_rows = true;
  /// analyze(): count tensors whose free tile dimensions differ in separate groups (docs/tenet-engine.md §3
  /// step 3); false: one group per set of periods, as before (comparison).
  bool split_free_groups = true;

  // Debug output: one line per message to `debug_log` (stderr when empty).
  DebugLevel debug = DebugLevel::kNone;
  std::function<void(const std::string&)> debug_log;

  // Resource limits: exceeding one is an InputError naming the limit, the figure and what to change.
  std::int64_t max_instance_points = 20'000'000;  // statement instances of one brute-forced small instance
  std::int64_t max_work = 4'000'000'000;          // sum over brute-forced instances of points x (1 + accesses)
  double time_limit_s = 60.0;                     // wall-clock limit of one analyze() / compile (<= 0: none)

  /// What the problem is, for messages (e.g. "GEMM 256x512x512 tile under dataflow ws"). When set, it
  /// replaces the location of the statement/mapping in errors about the problem as a whole (a generated
  /// problem's location is `<generated>`, which means nothing to a user).
  std::string context;
};

Metrics analyze(const Problem& problem, const AnalyzeOptions& options = {});

/// A wall-clock end shared by several engine calls (a GEMM's tile search, docs/search.md): a call still counting
/// past `at` throws InputError naming `what` and the limit. `limit_s` <= 0: none.
struct Deadline {
  std::chrono::steady_clock::time_point at{};
  double limit_s = 0;  // the limit `at` was set from (for the message)
  std::string what;    // e.g. "the tile search of a GEMM 4096x4096x4096 under dataflow os"
  /// A deadline `limit_s` seconds from now (none when limit_s <= 0).
  static Deadline from_now(double limit_s, std::string what);
  [[nodiscard]] bool set() const { return limit_s > 0; }
  /// Throws InputError when set and past.
  void check() const;
};

/// Closed forms shared between compiled problems (compile_parametric's `cache`): a count group whose counts are
/// the same function of the extents in two problems (the same PE array, maps, lower corner and counting options,
/// and members with the same access relations up to names, e.g. A[i,k], W[k,j], C[i,j] with or without a group
/// scale beside them) is compiled once. Thread-safe (one lock for every problem using the cache).
struct FormCache;
std::shared_ptr<FormCache> make_form_cache();

/// A problem compiled into exact closed forms of every count as functions of
/// the iteration-domain extents (docs/tenet-engine.md §3 "Parametric
/// counting"): for a (PE array, statement structure, mapping), any other box
/// of the same lower corner is evaluated from the closed forms in
/// microseconds, without allocating, once a closed form covers its extents
/// (per residue of each extent modulo the mapping's periods and above a small
/// base; other extents are compiled on first use and kept). Thread-safe.
class CompiledProblem {
 public:
  CompiledProblem(CompiledProblem&&) noexcept;
  CompiledProblem& operator=(CompiledProblem&&) noexcept;
  ~CompiledProblem();
  /// Number of iteration-domain dimensions (= extents per evaluation).
  [[nodiscard]] std::size_t dims() const;
  /// The template problem's own extents.
  [[nodiscard]] std::vector<std::int64_t> template_extents() const;
  /// Closed forms compiled so far (all count groups together).
  [[nodiscard]] std::size_t closed_forms() const;

  struct Impl;

 private:
  explicit CompiledProblem(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend CompiledProblem compile_parametric(const Problem&, const AnalyzeOptions&, const Deadline*,
                                            std::shared_ptr<FormCache>);
  friend void evaluate(const CompiledProblem&, std::span<const std::int64_t>, Metrics&, const Deadline*);
};

/// Compile `problem` (its iteration domain must be a box; its extents are the
/// first ones compiled). `options` apply to every later evaluation (limits per
/// compile of new extents, `context` in errors). `deadline` (optional) bounds this call's counting too. `cache`
/// (optional): the closed forms are kept there, shared with the other problems compiled into it (nullptr: a cache
/// of this problem's own).
CompiledProblem compile_parametric(const Problem& problem, const AnalyzeOptions& options = {},
                                   const Deadline* deadline = nullptr, std::shared_ptr<FormCache> cache = nullptr);
/// The metrics of the template with iteration-domain extents `extents` (one
/// per dimension, in the domain's variable order, lower bounds kept): equal to
/// analyze() of that problem. Reuses `out`'s storage (allocation-free once a
/// closed form covers the extents and `out` held this problem's tensors). `deadline` (optional): counting new
/// extents stops there too (the options' time limit still bounds each call).
void evaluate(const CompiledProblem& compiled, std::span<const std::int64_t> extents, Metrics& out,
              const Deadline* deadline = nullptr);
Metrics evaluate(const CompiledProblem& compiled, std::span<const std::int64_t> extents);

/// Problem from isl-syntax strings (loc.file = "<generated>"), e.g. for
/// generated GEMMs. `reads`/`writes` are one access relation each.
Problem make_problem(const std::string& pe_domain, const std::string& interconnect,
                     const std::string& iteration_domain, const std::vector<std::string>& reads,
                     const std::vector<std::string>& writes, const std::string& space_map,
                     const std::string& time_map, std::uint64_t bandwidth = 64, std::uint64_t avg_latency = 16);

}  // namespace tenet_cost::tenet
