// Parametric counting (docs/tenet-engine.md §3 "Parametric counting"): compile_parametric keeps the counter's
// closed forms per group; evaluate() evaluates them, counting only the groups no kept form covers.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "tenet/engine.hpp"

namespace tenet_cost::tenet {

using detail::check_options;
using detail::check_space_in_pe;
using detail::ClosedForm;
using detail::count_all;
using detail::fill_metrics;
using detail::Group;
using detail::huge_box;
using detail::kParametricMaxExtent;
using detail::Limits;
using detail::make_groups;
using detail::Model;
using detail::RawCounts;
using detail::require_box;
using detail::rethrow_in_context;

// The closed forms of count groups by the group's signature (group_signature): what they count depends only on the
// PE array, the space and time maps, the box's lower corner, the counting options and the group's members' access
// relations, so equal signatures in different problems share their forms. `mu` guards every list and the map.
struct FormCache {
  std::shared_mutex mu;
  std::map<std::string, std::vector<ClosedForm>> forms;  // nodes are never erased: pointers stay valid
};

std::shared_ptr<FormCache> make_form_cache() { return std::make_shared<FormCache>(); }

struct CompiledProblem::Impl {
  Problem problem;
  AnalyzeOptions options;
  Model model;                                  // model.box is the last slow-path box (guarded by mu)
  std::vector<Group> groups;                    // structure only (members, pieces, periods)
  std::shared_ptr<FormCache> cache;             // the forms, possibly shared with other problems
  std::vector<std::vector<ClosedForm>*> forms;  // per group: the closed forms found so far (in cache)
  bool fast = true;                             // the PE-domain check holds on the whole parametric range
  std::shared_mutex& mu;                        // cache->mu

  Impl(const Problem& p, const AnalyzeOptions& o, std::shared_ptr<FormCache> c)
      : problem(p), options(o), model(detail::compile(p)), cache(std::move(c)), mu(cache->mu) {}
};

namespace {

constexpr std::size_t kMaxFormsPerGroup = 4096;  // then the oldest are dropped (memory bound)

void append_affine(std::string& out, const relation::Affine& a) {
  out += std::to_string(a.constant);
  for (const i64 c : a.coeff) out += "," + std::to_string(c);
  out += ";";
}

// A piece's structure: its outputs, quasi-affine terms and formula over positional variables (names left out: a
// renamed tensor or variable is the same relation).
void append_piece(std::string& out, const relation::Piece& p) {
  out += "P" + std::to_string(p.vars.size()) + (p.is_map ? "m" : "s") + std::to_string(p.out.size()) + "(";
  for (const auto& t : p.terms) {
    out += t.kind == relation::Term::Kind::kFloor ? "f" : "m";
    out += std::to_string(t.den) + ":";
    append_affine(out, t.num);
  }
  out += ")(";
  for (const auto& a : p.out) append_affine(out, a);
  out += ")(";
  for (const auto& conj : p.disjuncts) {
    out += "[";
    for (const auto& c : conj) {
      out += c.equality ? "=" : ">";
      append_affine(out, c.expr);
    }
    out += "]";
  }
  out += ")";
}

// What a count group's closed forms depend on: the problem's PE array, maps, lower corner and counting options, and
// the group's periods and members (the space/time counts, or a tensor's access kind and pieces) in order.
std::string group_signature(const Model& m, const Problem& p, const AnalyzeOptions& o, const Group& g) {
  std::string out = p.pe.domain.text + "|" + p.pe.interconnect.text + "|" + p.mapping.space_map.text + "|" +
                    p.mapping.time_map.text + "|";
  for (const auto& b : m.box) out += std::to_string(b.lo) + ",";
  out += "|" + std::to_string(static_cast<int>(o.enumerate)) + std::to_string(static_cast<int>(o.spatial_reuse)) +
         std::to_string(static_cast<int>(o.skewed_time_windows)) + std::to_string(static_cast<int>(o.scaled_divisors)) +
         std::to_string(static_cast<int>(o.outer_blocks)) + std::to_string(static_cast<int>(o.inner_blocks)) +
         std::to_string(static_cast<int>(o.free_rows)) + std::to_string(static_cast<int>(o.split_free_groups)) + "," +
         std::to_string(static_cast<int>(o.virtual_plan)) + "," + std::to_string(o.min_base) + "," +
         std::to_string(o.bits_per_item) + "|L";
  for (const i64 l : g.L) out += std::to_string(l) + ",";
  for (const int k : g.members) {
    if (k < 0) {
      out += "|st";
      continue;
    }
    const auto& t = m.tensors[static_cast<std::size_t>(k)];
    out += t.access == Access::kRead ? "|r" : "|w";
    for (const auto* piece : t.pieces) append_piece(out, *piece);
  }
  return out;
}

void check_extents(const CompiledProblem::Impl& c, std::span<const std::int64_t> ext) {
  const Model& m = c.model;
  if (ext.size() != m.nd)
    throw InputError("expected " + std::to_string(m.nd) + " iteration-domain extents, found " +
                     std::to_string(ext.size()));
  for (std::size_t d = 0; d < m.nd; ++d) {
    if (ext[d] < 1)
      throw InputError("the extent of variable '" + m.domain.pieces[0].vars[d] + "' must be positive, found " +
                       std::to_string(ext[d]));
    (void)checked_add(m.box[d].lo, ext[d] - 1, "upper bound of an iteration-domain variable");
  }
}

/// Fast path: every group has a closed form covering `ext`. Allocation-free.
bool evaluate_fast(const CompiledProblem::Impl& c, const i64* ext, Metrics& out) {
  const Model& m = c.model;
  thread_local RawCounts rc;
  rc.tc.resize(m.tensors.size());
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    const ClosedForm* f = nullptr;
    for (const ClosedForm& cf : *c.forms[gi])
      if (cf.matches(ext)) {
        f = &cf;
        break;
      }
    if (f == nullptr) return false;
    std::size_t pos = 0;
    for (int k : c.groups[gi].members) {
      if (k < 0) {
        rc.nT = f->value(ext, pos);
        rc.nS = f->value(ext, pos + 1);
        rc.nSTD = f->value(ext, pos + 2);
        pos += 3;
      } else {
        auto& t = rc.tc[static_cast<std::size_t>(k)];
        t.tv = f->value(ext, pos);
        t.uv = f->value(ext, pos + 1);
        t.uvt = f->value(ext, pos + 2);
        t.spi = f->value(ext, pos + 3);
        pos += 4;
      }
    }
  }
  rc.macs = 1;
  for (std::size_t d = 0; d < m.nd; ++d) rc.macs = checked_mul(rc.macs, ext[d], "number of MACs (|D|)");
  fill_metrics(m, c.problem.pe, c.options, rc, c.problem.statement.domain.loc, out);
  if (out.counting_method != "parametric closed form") out.counting_method = "parametric closed form";
  out.self_check_retries = 0;
  out.instances_counted = 0;
  return true;
}

/// Slow path: count the extents (brute-forcing small instances) and keep the closed forms.
/// `reusable`: the extents lie in the parametric range (else: what analyze() does).
void evaluate_slow(CompiledProblem::Impl& c, const i64* ext, bool reusable, Metrics& out, const Deadline* dl) {
  Model& m = c.model;
  for (std::size_t d = 0; d < m.nd; ++d) m.box[d].hi = m.box[d].lo + ext[d] - 1;
  if (!c.fast || !reusable || c.options.enumerate) {  // no reusable closed form: what analyze() does
    if (!c.options.enumerate) check_space_in_pe(m, m.box, &c.problem.mapping.space_map.loc);
    auto groups = make_groups(m, c.options.enumerate);
    Limits limits(c.options, dl);
    i64 retries = 0, instances = 0;
    const RawCounts rc = count_all(m, groups, c.options, false, limits, retries, instances);
    fill_metrics(m, c.problem.pe, c.options, rc, c.problem.statement.domain.loc, out);
    out.counting_method = c.options.enumerate ? "enumeration" : "multilinear interpolation";
    out.self_check_retries = retries;
    out.instances_counted = instances;
    return;
  }
  // Only the groups no kept closed form covers are counted: a covered group's form already holds at ext (a tile
  // search meets many extents new to one group only, e.g. a new k with the scale's period).
  std::vector<std::size_t> todo;
  std::vector<Group> groups;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi)
    if (std::none_of(c.forms[gi]->begin(), c.forms[gi]->end(), [&](const ClosedForm& f) { return f.matches(ext); })) {
      todo.push_back(gi);
      groups.push_back(c.groups[gi]);
    }
  Limits limits(c.options, dl);
  i64 retries = 0, instances = 0;
  (void)count_all(m, groups, c.options, true, limits, retries, instances);
  for (std::size_t i = 0; i < todo.size(); ++i) {
    auto& fs = *c.forms[todo[i]];
    if (!groups[i].form.matches(ext)) continue;  // cannot happen: the form was found at ext
    if (fs.size() >= kMaxFormsPerGroup) fs.erase(fs.begin());
    fs.push_back(std::move(groups[i].form));
  }
  // Every group now has a form covering ext: the values are the forms' (equal to the counts just made).
  if (!evaluate_fast(c, ext, out)) throw InternalError("tenet: a closed form just found does not cover its extents");
  out.self_check_retries = retries;
  out.instances_counted = instances;
}

}  // namespace

CompiledProblem::CompiledProblem(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledProblem::CompiledProblem(CompiledProblem&&) noexcept = default;
CompiledProblem& CompiledProblem::operator=(CompiledProblem&&) noexcept = default;
CompiledProblem::~CompiledProblem() = default;

std::size_t CompiledProblem::dims() const { return impl_->model.nd; }

std::vector<std::int64_t> CompiledProblem::template_extents() const {
  std::vector<std::int64_t> e;
  const auto b = detail::compile(impl_->problem).box;
  e.reserve(b.size());
  for (const auto& x : b) e.push_back(x.hi - x.lo + 1);
  return e;
}

std::size_t CompiledProblem::closed_forms() const {
  std::shared_lock lock(impl_->mu);
  std::size_t n = 0;
  for (const auto* f : impl_->forms) n += f->size();
  return n;
}

CompiledProblem compile_parametric(const Problem& problem, const AnalyzeOptions& options, const Deadline* deadline,
                                   std::shared_ptr<FormCache> cache) {
  try {
    check_options(options);
    auto impl = std::make_unique<CompiledProblem::Impl>(problem, options, cache ? std::move(cache) : make_form_cache());
    Model& m = impl->model;
    require_box(m, problem, options);
    if (!m.is_box) throw InputError(problem.statement.domain.loc, "parametric counting needs a box iteration domain");
    impl->groups = make_groups(m, options.enumerate);
    {
      const std::unique_lock lock(impl->mu);
      for (const Group& g : impl->groups)
        impl->forms.push_back(&impl->cache->forms[group_signature(m, problem, options, g)]);
    }
    impl->fast = !options.enumerate && check_space_in_pe(m, huge_box(m.box), nullptr);
    std::vector<i64> ext;
    for (const auto& b : m.box) ext.push_back(b.hi - b.lo + 1);
    CompiledProblem c(std::move(impl));
    Metrics first;
    evaluate(c, ext, first, deadline);  // the template's own extents: the first closed forms
    return c;
  } catch (const InputError&) {
    rethrow_in_context(options);
  }
}

void evaluate(const CompiledProblem& compiled, std::span<const std::int64_t> extents, Metrics& out,
              const Deadline* deadline) {
  CompiledProblem::Impl& c = *compiled.impl_;
  try {
    check_extents(c, extents);
    bool in_range = true;
    for (const i64 e : extents) in_range = in_range && e <= kParametricMaxExtent;
    if (c.fast && in_range) {
      std::shared_lock lock(c.mu);
      if (evaluate_fast(c, extents.data(), out)) return;
    }
    std::unique_lock lock(c.mu);
    if (c.fast && in_range && evaluate_fast(c, extents.data(), out)) return;  // compiled meanwhile
    evaluate_slow(c, extents.data(), in_range, out, deadline);
  } catch (const InputError&) {
    rethrow_in_context(c.options);
  }
}

Metrics evaluate(const CompiledProblem& compiled, std::span<const std::int64_t> extents) {
  Metrics m;
  evaluate(compiled, extents, m);
  return m;
}

}  // namespace tenet_cost::tenet
