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

}  // namespace

bool closed_forms_apply(const arch::Arch& arch, const Dataflow& dataflow) {
  return dataflow.has_closed_form() && arch.interconnect == arch::Interconnect::kSystolic;
}

std::optional<TileMetrics> closed_form_tile(Preset preset, std::int64_t R, std::int64_t C, std::int64_t tm,
                                            std::int64_t tn, std::int64_t tk, const std::vector<Operand>& ops) {
  if (!info(preset).closed_form) return std::nullopt;
  TileMetrics m;
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
  for (const auto& op : ops) {
    const Pattern p = classify(op);
    const std::int64_t g = group_of(op);
    // 2-D block scale S[floor(j/bn), floor(k/bk)]: divisors of the j and k terms
    const std::int64_t bn = op.index.size() == 2 ? op.index[0].divisor : 1;
    const std::int64_t bk = op.index.size() == 2 ? op.index[1].divisor : 1;
    const std::int64_t uv = preset == Preset::kOS ? unique_os(p, R, C, tm, tn, tk, g, bn, bk)
                                                  : unique_ws(p, R, C, tm, tn, tk, g, bn, bk);
    if (uv < 0) return std::nullopt;
    m.unique[op.name] = uv;
    m.total[op.name] = m.macs;
  }
  return m;
}

}  // namespace tenet_cost::mapping
