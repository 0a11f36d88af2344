// Private to src/tenet: the stages around the counter (docs/tenet-engine.md §3): checks, count groups, metrics.
// analyze.cpp and parametric.cpp run them; groups.cpp and metrics.cpp define them.
#pragma once

#include <vector>

#include "tenet/count/counter.hpp"

namespace tenet_cost::tenet::detail {

/// The raw counts behind the metrics.
struct RawCounts {
  i64 macs = 0, nT = 0, nS = 0, nSTD = 0;
  std::vector<detail::TensorCounts> tc;
};

/// The options' ranges (min_base, the point limits, the time limit, bits per item).
void check_options(const AnalyzeOptions& options);
/// The small instances only see part of the domain: check on the whole box that
/// the space map cannot leave the PE domain (interval bounds; exact for the usual
/// forms i % P, floor(i / P) % P, r + P * floor(i / Q) ...). Returns false
/// instead of throwing when `report` is null.
bool check_space_in_pe(const Model& m, const std::vector<Interval>& box, const SourceLocation* report);
/// Exact counting needs a box domain (unless enumerating).
void require_box(const Model& m, const Problem& problem, const AnalyzeOptions& options);
/// With AnalyzeOptions::context, errors about the problem name it instead of a
/// (possibly `<generated>`) location; overflow errors keep their own text.
[[noreturn]] void rethrow_in_context(const AnalyzeOptions& options);

/// Groups of counts sharing the relations they depend on (merged when periods agree).
std::vector<Group> make_groups(const Model& m, bool enumerate);
/// Split each group by its members' free tile strides on m.box (analyze() only; groups.cpp explains).
void split_by_strides(const Model& m, std::vector<Group>& groups);
/// Solve every group on m.box (strides from m.box): the closed forms end up in the groups.
void solve_groups(const Model& m, std::vector<Group>& groups, const AnalyzeOptions& options, Counter& counter);
/// Count everything on m.box (closed forms left in `groups`).
RawCounts count_all(const Model& m, std::vector<Group>& groups, const AnalyzeOptions& options, bool parametric,
                    Limits& limits, i64& retries, i64& instances);

/// A group's flattened results into the raw counts.
void unpack(const Group& g, const std::vector<i64>& result, RawCounts& rc);
/// TENET's metric formulas from the counts; reuses `r`'s storage (no allocation
/// when `r` already holds this problem's tensors).
void fill_metrics(const Model& m, const PEArraySpec& pe, const AnalyzeOptions& options, const RawCounts& rc,
                  const SourceLocation& domain_loc, Metrics& r);
/// |D| of a box, checked.
i64 box_macs(const std::vector<Interval>& box);

}  // namespace tenet_cost::tenet::detail
