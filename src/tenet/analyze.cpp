// analyze(): exact counts by multilinear interpolation over small brute-forced
// instances (docs/tenet-engine.md §Counting), then TENET's metric formulas. The stages: compile -> require_box ->
// check_space_in_pe -> make_groups -> split_by_strides -> count_all (groups.cpp, the counter in count/) ->
// fill_metrics (metrics.cpp).
#include <string>
#include <vector>

#include "tenet/engine.hpp"

namespace tenet_cost::tenet {
namespace detail {

void check_options(const AnalyzeOptions& options) {
  if (options.min_base < 1)
    throw InputError("AnalyzeOptions::min_base must be at least 1, found " + std::to_string(options.min_base));
  if (options.max_instance_points < 1 || options.max_work < 1)
    throw InputError("the engine's point limits (max_instance_points, max_work) must be positive");
  if (!(options.time_limit_s <= 1e9)) throw InputError("the engine's time limit must be a finite number of seconds");
  if (options.bits_per_item <= 0) throw InputError("bits per item must be positive");
}

/// The small instances only see part of the domain: check on the whole box that
/// the space map cannot leave the PE domain (interval bounds; exact for the usual
/// forms i % P, floor(i / P) % P, r + P * floor(i / Q) ...). Returns false
/// instead of throwing when `report` is null.
bool check_space_in_pe(const Model& m, const std::vector<Interval>& box, const SourceLocation* report) {
  if (m.pedom.pieces.size() != 1) return true;
  std::vector<Interval> pe_box;
  if (!relation::as_box(m.pedom.pieces[0], pe_box)) return true;
  for (const Piece& p : m.space.pieces) {
    const auto cols = relation::column_bounds(p, box);
    for (std::size_t j = 0; j < m.ns; ++j) {
      const Interval b = relation::bounds(p.out[j], cols);
      if (b.lo < pe_box[j].lo || b.hi > pe_box[j].hi) {
        if (report == nullptr) return false;
        throw InputError(*report, "the space map can place statement instances outside the PE domain: PE coordinate " +
                                      std::to_string(j) + " ranges over [" + std::to_string(b.lo) + ", " +
                                      std::to_string(b.hi) + "] but the PE domain allows [" +
                                      std::to_string(pe_box[j].lo) + ", " + std::to_string(pe_box[j].hi) + "]");
      }
    }
  }
  return true;
}

void require_box(const Model& m, const Problem& problem, const AnalyzeOptions& options) {
  if (!m.is_box && !options.enumerate)
    throw InputError(problem.statement.domain.loc,
                     "the iteration domain is not a box (each variable bounded by constants, joined by 'and'); "
                     "exact counting needs a box: use --enumerate to brute-force a small domain");
}

/// With AnalyzeOptions::context, errors about the problem name it instead of a
/// (possibly `<generated>`) location; overflow errors keep their own text.
[[noreturn]] void rethrow_in_context(const AnalyzeOptions& options) {
  try {
    throw;
  } catch (const OverflowError&) {
    throw;
  } catch (const InputError& e) {
    if (options.context.empty()) throw;
    throw InputError(options.context + ": " + e.detail());
  }
}

namespace {

Metrics analyze_impl(const Problem& problem, const AnalyzeOptions& options) {
  check_options(options);
  const Model m = compile(problem);
  require_box(m, problem, options);
  if (m.is_box && !options.enumerate) check_space_in_pe(m, m.box, &problem.mapping.space_map.loc);
  auto groups = make_groups(m, options.enumerate);
  if (!options.enumerate && options.split_free_groups) split_by_strides(m, groups);
  Limits limits(options);
  i64 retries = 0, instances = 0;
  const RawCounts rc = count_all(m, groups, options, false, limits, retries, instances);
  Metrics r;
  fill_metrics(m, problem.pe, options, rc, problem.statement.domain.loc, r);
  r.counting_method = options.enumerate ? "enumeration" : "multilinear interpolation";
  r.self_check_retries = retries;
  r.instances_counted = instances;
  return r;
}

/// Where an error of analyze() is told (called in a handler; rethrows). An overflow of the counts comes from the
/// three files together (a bound of the statement's domain, a coefficient of the maps, the PE array's numbers):
/// named with each one's location when the problem was read from files; a generated problem (options.context)
/// keeps the overflow's own text. Any other error: rethrow_in_context.
[[noreturn]] void rethrow_placed(const Problem& problem, const AnalyzeOptions& options) {
  try {
    throw;
  } catch (const OverflowError& e) {
    const SourceLocation& s = problem.statement.domain.loc;
    if (!options.context.empty() || s.file.empty() || s.file.front() == '<' || s.line == 0) throw;
    throw InputError(s, e.detail() + ", counting this statement under the mapping " +
                            problem.mapping.time_map.loc.str() + " on the PE array " + problem.pe.domain.loc.str());
  } catch (const InputError&) {
    rethrow_in_context(options);
  }
}

}  // namespace
}  // namespace detail

Metrics analyze(const Problem& problem, const AnalyzeOptions& options) {
  try {
    return detail::analyze_impl(problem, options);
  } catch (const InputError&) {
    detail::rethrow_placed(problem, options);
  }
}

}  // namespace tenet_cost::tenet
