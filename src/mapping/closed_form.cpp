// Proven closed forms of the array-level metrics of one buffer tile under the
// os / ws presets on a systolic array (docs/model.md "Closed forms"); each is
// checked against brute-force enumeration of TENET's definitions and against
// the engine (tests/mapping). An operand whose index pattern has no proven row
// makes the whole tile fall back to the engine (nullopt).
#include <algorithm>
#include <numeric>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/mapping.hpp"

namespace tenet_cost::mapping {

namespace {

using quant::Operand;

std::int64_t mul(std::int64_t a, std::int64_t b) { return checked_mul(a, b, "closed-form count"); }
std::int64_t mul(std::int64_t a, std::int64_t b, std::int64_t c) { return mul(mul(a, b), c); }
std::int64_t cdiv(std::int64_t a, std::int64_t b) { return ceil_div(a, b); }
// |{x in [0,n): x % c == 0 or x % g == 0}|
std::int64_t count_or(std::int64_t n, std::int64_t c, std::int64_t g) {
  const std::int64_t l = std::lcm(c, g);
  return cdiv(n, c) + cdiv(n, g) - cdiv(n, l);
}

// The index patterns with proven rows (i, j, k: the GEMM dims; /g: floor by a group size).
enum class Pattern {
  kIJ,      // C[i,j] (the output)
  kIK,      // A[i,k]
  kKJ,      // B[k,j]
  kJ_Kg,    // SW[j, floor(k/g)]: group scales along K
  kJ,       // SW[j]: per channel
  kZero,    // SW[0]: per tensor
  kI,       // SA[i]: per token
  kK,       // SA[k]
  kK_Jg,    // SW[k, floor(j/g)]
  kBlock,   // SW[floor(j/bn), floor(k/bk)] (bk may be 1)
  kI_Kg,    // SA[i, floor(k/g)]: per-token groups
  kKg,      // SA[floor(k/g)]: static per-block activation scale
  kUnknown,
};

struct Term {
  char dim;
  bool grouped;
};

Pattern classify(const Operand& op) {
  std::vector<Term> t;
  for (const auto& x : op.index) t.push_back({x.dim, x.divisor > 1});
  auto is = [&](std::initializer_list<Term> want) {
    if (want.size() != t.size()) return false;
    std::size_t i = 0;
    for (const auto& w : want) {
      if (t[i].dim != w.dim || t[i].grouped != w.grouped) return false;
      ++i;
    }
    return true;
  };
  if (is({{'i', false}, {'j', false}})) return op.write ? Pattern::kIJ : Pattern::kUnknown;
  if (is({{'i', false}, {'k', false}})) return Pattern::kIK;
  if (is({{'k', false}, {'j', false}})) return Pattern::kKJ;
  if (is({{'j', false}, {'k', true}})) return Pattern::kJ_Kg;
  if (is({{'j', false}})) return Pattern::kJ;
  if (is({{'0', false}})) return Pattern::kZero;
  if (is({{'i', false}})) return Pattern::kI;
  if (is({{'k', false}})) return Pattern::kK;
  if (is({{'k', false}, {'j', true}})) return Pattern::kK_Jg;
  if (is({{'j', true}, {'k', true}}) || is({{'j', true}, {'k', false}})) return Pattern::kBlock;
  if (is({{'i', false}, {'k', true}})) return Pattern::kI_Kg;
  if (is({{'k', true}})) return Pattern::kKg;
  return Pattern::kUnknown;
}

std::int64_t group_of(const Operand& op) {
  for (const auto& t : op.index)
    if (t.divisor > 1) return t.divisor;
  return 1;
}

// Unique volume of one operand, or -1 when no row is proven.
std::int64_t unique_os(Pattern p, std::int64_t R, std::int64_t C, std::int64_t tm, std::int64_t tn, std::int64_t tk,
                       std::int64_t g, std::int64_t bn, std::int64_t bk) {
  switch (p) {
    case Pattern::kIJ: return mul(tm, tn);
    case Pattern::kIK: return mul(tm, tk, cdiv(tn, C));
    case Pattern::kKJ: return mul(tn, tk, cdiv(tm, R));
    case Pattern::kJ_Kg: return mul(cdiv(tm, R), tn, cdiv(tk, g));
    case Pattern::kJ: return mul(cdiv(tm, R), tn);
    case Pattern::kZero: return mul(cdiv(tm, R), cdiv(tn, C));
    case Pattern::kI: return mul(tm, cdiv(tn, C));
    case Pattern::kK: return mul(cdiv(tm, R), cdiv(tn, C), tk);
    case Pattern::kK_Jg: return mul(cdiv(tm, R), tk, count_or(tn, C, g));
    case Pattern::kBlock: return mul(cdiv(tm, R), count_or(tn, C, bn), cdiv(tk, bk));
    case Pattern::kI_Kg: return mul(tm, cdiv(tn, C), cdiv(tk, g));
    case Pattern::kKg: return mul(cdiv(tm, R), cdiv(tn, C), cdiv(tk, g));
    case Pattern::kUnknown: break;
  }
  return -1;
}

std::int64_t unique_ws(Pattern p, std::int64_t R, std::int64_t C, std::int64_t tm, std::int64_t tn, std::int64_t tk,
                       std::int64_t g, std::int64_t bn, std::int64_t bk) {
  switch (p) {
    case Pattern::kIJ: return mul(tm, tn, cdiv(tk, R));
    case Pattern::kIK: return mul(tm, tk, cdiv(tn, C));
    case Pattern::kKJ: return mul(tk, tn);
    case Pattern::kJ_Kg: return mul(tn, count_or(tk, R, g));
    case Pattern::kJ: return mul(tn, cdiv(tk, R));
    case Pattern::kZero: return mul(cdiv(tn, C), cdiv(tk, R));
    case Pattern::kI: return mul(tm, cdiv(tn, C), cdiv(tk, R));
    case Pattern::kK: return mul(tk, cdiv(tn, C));
    case Pattern::kK_Jg: return mul(tk, count_or(tn, C, g));
    case Pattern::kBlock: return mul(count_or(tk, R, bk), count_or(tn, C, bn));
    case Pattern::kI_Kg: return mul(tm, cdiv(tn, C), count_or(tk, R, g));
    case Pattern::kKg: return mul(cdiv(tn, C), count_or(tk, R, g));
    case Pattern::kUnknown: break;
  }
  return -1;
}

// The divisor of the index term along `dim` (1 plain), or 0 when the operand does not index `dim`.
std::int64_t divisor_of(const Operand& op, char dim) {
  for (const auto& t : op.index)
    if (t.dim == dim) return t.divisor;
  return 0;
}

// Changes of an operand along a loop of extent n run in consecutive stamps by one PE: every step (plain index),
// once per group (floor(d/g)), or once (the operand does not index the loop).
std::int64_t changes(const Operand& op, char dim, std::int64_t n) {
  const std::int64_t d = divisor_of(op, dim);
  return d == 0 ? 1 : cdiv(n, d);
}

// Unique volume against the PE's own previous stamp only (each (PE, fold) pair of os holds one (i, j) and runs k
// in consecutive stamps; of ws one (k, j) and runs i): the first access of each pair, then every change along the
// time loop, less the hand-overs of fold_handover_hits (none on arrays of at least 2 x 2). A kGroup operand (accessed
// at k mod g = 0 only) is never held by a PE at the previous stamp under os (the PE's previous stamp ran k - 1).
std::int64_t temporal_unique(Preset preset, const Operand& op, std::int64_t tm, std::int64_t tn, std::int64_t tk) {
  const bool group = op.apply == quant::Apply::kGroup;
  if (preset == Preset::kOS) return mul(tm, tn, group ? cdiv(tk, op.apply_group) : changes(op, 'k', tk));
  return mul(tn, group ? cdiv(tk, op.apply_group) : tk, changes(op, 'i', tm));
}

// Unique volume of a kGroup operand (accessed at k mod g = 0 only, g >= 2: no neighbour ran the same K group's
// first k at the same or the previous stamp except the one that forwards it): os as the unconstrained row; ws
// per accessing (k, j): unique when its left neighbour holds another element (plain j: always; floor(j/bn): at a
// column-fold or block start; no j: at a column-fold start), times tm when it indexes i. -1 when not proven.
std::int64_t unique_group(Preset preset, Pattern p, const Operand& op, std::int64_t R, std::int64_t C, std::int64_t tm,
                          std::int64_t tn, std::int64_t tk) {
  const std::int64_t g = op.apply_group;
  const bool proven = (p == Pattern::kJ_Kg || p == Pattern::kBlock || p == Pattern::kI_Kg || p == Pattern::kKg) &&
                      divisor_of(op, 'k') == g && g >= 2;
  if (!proven) return -1;
  const std::int64_t bn = divisor_of(op, 'j');
  if (preset == Preset::kOS) return unique_os(p, R, C, tm, tn, tk, g, bn, g);
  const std::int64_t jpart = bn == 0 ? cdiv(tn, C) : bn == 1 ? tn : count_or(tn, C, bn);
  return mul(cdiv(tk, g), jpart, divisor_of(op, 'i') == 1 ? tm : 1);
}

// One loop folded onto `pes` PEs: fold f holds min(pes, extent - f * pes) values.
struct FoldAxis {
  char dim;
  std::int64_t extent, pes;
  [[nodiscard]] std::int64_t folds() const { return cdiv(extent, pes); }
  // whether fold f holds one value (every fold on one PE; else only a last fold of one value)
  [[nodiscard]] bool single(std::int64_t f) const { return pes == 1 || (f == folds() - 1 && extent % pes == 1); }
  // the folds that hold one value, ascending: all of them, the last one, or none
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> singles() const {
    if (pes == 1) return {0, folds()};
    return extent % pes == 1 ? std::pair<std::int64_t, std::int64_t>{folds() - 1, folds()}
                             : std::pair<std::int64_t, std::int64_t>{0, 0};
  }
};

// The element an operand accesses at (i, j, k), or nullopt where it accesses none (a kGroup operand off its
// group's first k).
std::optional<std::vector<std::int64_t>> element(const Operand& op, std::int64_t i, std::int64_t j, std::int64_t k) {
  if (op.apply == quant::Apply::kGroup && k % op.apply_group != 0) return std::nullopt;
  std::vector<std::int64_t> e;
  for (const auto& t : op.index) {
    const std::int64_t v = t.dim == 'i' ? i : t.dim == 'j' ? j : t.dim == 'k' ? k : 0;
    e.push_back(v / t.divisor);
  }
  return e;
}

// Hand-overs through PE(0,0) across folds: a fold's first stamp follows the previous fold's last stamp, at which
// only the previous fold's last PE ran; when that fold held one row and one column this is PE(0,0) itself, so its
// last element is in PE(0,0)'s register at the next fold's first stamp (TENET's previous stamp is global). The
// closed forms count that first access as a new (and, PE(0,0) having no neighbour in the array, unique) element;
// this counts the accesses where it is the same element. Folds run outer-major; PE(0,0) runs the time loop from
// `time_extent - 1` (last stamp) to 0 (first stamp). O(folds) per operand.
std::int64_t fold_handover_hits(const Operand& op, const FoldAxis& outer, const FoldAxis& inner, char time,
                                std::int64_t time_extent) {
  const auto at = [&](std::int64_t o, std::int64_t in, std::int64_t t) {
    std::int64_t c[3] = {0, 0, 0};  // i, j, k
    const auto put = [&](char d, std::int64_t v) { c[d == 'i' ? 0 : d == 'j' ? 1 : 2] = v; };
    put(outer.dim, o);
    put(inner.dim, in);
    put(time, t);
    return element(op, c[0], c[1], c[2]);
  };
  const auto hit = [&](std::int64_t o0, std::int64_t i0, std::int64_t o1, std::int64_t i1) {
    const auto prev = at(o0, i0, time_extent - 1), cur = at(o1, i1, 0);
    return prev && cur && *prev == *cur;
  };
  const auto [out_lo, out_hi] = outer.singles();
  const auto [in_lo, in_hi] = inner.singles();
  if (out_lo == out_hi || in_lo == in_hi) return 0;
  // a single-value fold followed by the next inner fold (the outer value the same): the outer dim's terms are
  // equal, so every single outer fold counts the same
  std::int64_t within = 0;
  for (std::int64_t b = in_lo; b < in_hi && b + 1 < inner.folds(); ++b)
    within += hit(0, b * inner.pes, 0, (b + 1) * inner.pes) ? 1 : 0;
  std::int64_t hits = mul(within, out_hi - out_lo);
  // the last inner fold followed by the next outer fold's first
  if (inner.single(inner.folds() - 1))
    for (std::int64_t a = out_lo; a < out_hi && a + 1 < outer.folds(); ++a)
      hits += hit(a * outer.pes, (inner.folds() - 1) * inner.pes, (a + 1) * outer.pes, 0) ? 1 : 0;
  return hits;
}

}  // namespace

bool closed_forms_apply(const arch::Arch& arch, const Dataflow& dataflow) {
  return dataflow.has_closed_form() && arch.interconnect == arch::Interconnect::kSystolic;
}

std::optional<TileMetrics> closed_form_tile(Preset preset, std::int64_t R, std::int64_t C, std::int64_t tm,
                                            std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops) {
  TileVolumes v;
  if (!closed_form_volumes(preset, R, C, tm, tn, tk, ops, v)) return std::nullopt;
  TileMetrics m;
  m.macs = v.macs;
  m.time_stamps = v.time_stamps;
  m.active_pes = v.active_pes;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (v.unique[i] < 0) continue;
    m.unique[ops[i].name] = v.unique[i];
    m.total[ops[i].name] = v.total[i];
    m.temporal_unique[ops[i].name] = v.temporal_unique[i];
  }
  return m;
}

bool closed_form_volumes(Preset preset, std::int64_t R, std::int64_t C, std::int64_t tm, std::int64_t tn,
                         std::int64_t tk, const std::vector<Operand>& ops, TileVolumes& m) {
  if (!info(preset).closed_form) return false;
  m.unique.assign(ops.size(), -1);
  m.total.assign(ops.size(), -1);
  m.temporal_unique.assign(ops.size(), -1);
  m.macs = mul(tm, tn, tk);
  if (preset == Preset::kOS) {
    const std::int64_t bi = cdiv(tm, R), bj = cdiv(tn, C);
    m.time_stamps = checked_add(checked_add(mul(bi, bj, tk - 2), mul(bj, tm)), mul(bi, tn));
    m.active_pes = mul(std::min(tm, R), std::min(tn, C));
  } else {
    const std::int64_t bj = cdiv(tn, C), bk = cdiv(tk, R);
    m.time_stamps = checked_add(checked_add(mul(bj, bk, tm - 2), mul(bj, tk)), mul(bk, tn));
    m.active_pes = mul(std::min(tk, R), std::min(tn, C));
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Operand& op = ops[i];
    if (!op.in_array()) continue;  // not an operand of the array's statement
    const Pattern p = classify(op);
    const std::int64_t g = group_of(op);
    // 2-D block scale S[floor(j/bn), floor(k/bk)]: divisors of the j and k terms
    const std::int64_t bn = op.index.size() == 2 ? op.index[0].divisor : 1;
    const std::int64_t bk = op.index.size() == 2 ? op.index[1].divisor : 1;
    const bool group = op.apply == quant::Apply::kGroup;
    std::int64_t uv = 0;
    if (group) uv = unique_group(preset, p, op, R, C, tm, tn, tk);
    else
      uv =
          preset == Preset::kOS ? unique_os(p, R, C, tm, tn, tk, g, bn, bk) : unique_ws(p, R, C, tm, tn, tk, g, bn, bk);
    if (uv < 0) return false;
    // os folds i (rows) outer, j (columns) inner, runs k in time; ws folds j (columns) outer, k (rows) inner, runs i
    const std::int64_t hits = preset == Preset::kOS ? fold_handover_hits(op, {'i', tm, R}, {'j', tn, C}, 'k', tk)
                                                    : fold_handover_hits(op, {'j', tn, C}, {'k', tk, R}, 'i', tm);
    m.unique[i] = uv - hits;
    m.total[i] = group ? mul(tm, tn, cdiv(tk, op.apply_group)) : m.macs;
    m.temporal_unique[i] = (op.write ? uv : temporal_unique(preset, op, tm, tn, tk)) - hits;
  }
  return true;
}

}  // namespace tenet_cost::mapping
