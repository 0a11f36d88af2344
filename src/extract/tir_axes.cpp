// The axis classification helpers shared by the TIR GEMM recognisers (tir_axes.hpp; docs/extract.md §1).
#include "extract/tir_axes.hpp"

#include "tenet_cost/checked.hpp"

namespace tenet_cost::xtir {

using ir::Expr;
using ir::ExprPtr;
using sym::SymPtr;

OperandFacts operand_facts(const ExprPtr& e, const std::map<std::string, Axis>& axes) {
  OperandFacts f;
  f.expr = e;
  std::vector<const Expr*> loads;
  collect_loads(*e, loads, false);
  std::size_t best = 0;
  std::vector<const Expr*> top;
  collect_loads(*e, top, true);
  for (const Expr* l : loads) {
    for (const auto& idx : l->args) {
      if (!idx) continue;
      std::set<std::string> vs;
      collect_vars(*idx, vs);
      bool has_r = false;
      for (const auto& v : vs) {
        auto it = axes.find(v);
        if (it == axes.end()) continue;
        f.vars.insert(v);
        has_r = has_r || is_reduce(it->second.kind);
      }
      if (has_r)
        for (const auto& v : vs) {
          auto it = axes.find(v);
          if (it != axes.end() && !is_reduce(it->second.kind)) f.mixed.insert(v);
        }
    }
  }
  for (const Expr* l : top) {
    std::set<std::string> vs;
    for (const auto& idx : l->args)
      if (idx) collect_vars(*idx, vs);
    std::size_t n = 0;
    for (const auto& v : vs) n += axes.count(v);
    if (!f.primary || n > best) {
      f.primary = l;
      best = n;
    }
  }
  return f;
}

std::vector<int> positions(const Expr* load, const std::set<std::string>& vars) {
  std::vector<int> out;
  if (!load) return out;
  for (std::size_t d = 0; d < load->args.size(); ++d) {
    std::set<std::string> vs;
    if (load->args[d]) collect_vars(*load->args[d], vs);
    for (const auto& v : vs)
      if (vars.count(v)) {
        out.push_back(static_cast<int>(d));
        break;
      }
  }
  return out;
}

SymPtr unpadded(const SymPtr& s) {
  using sym::SymKind;
  if (!s || s->kind != SymKind::kMul) return s;
  const SymPtr* div = &s->a;
  const SymPtr* mul = &s->b;
  if ((*div)->kind != SymKind::kFloorDiv) std::swap(div, mul);
  if ((*div)->kind != SymKind::kFloorDiv || (*mul)->kind != SymKind::kInt) return s;
  const std::int64_t d = (*mul)->value;
  const SymPtr& sum = (*div)->a;
  if (d < 2 || (*div)->b->kind != SymKind::kInt || (*div)->b->value != d || sum->kind != SymKind::kAdd) return s;
  const SymPtr* x = &sum->a;
  const SymPtr* c = &sum->b;
  if ((*c)->kind != SymKind::kInt) std::swap(x, c);
  if ((*c)->kind != SymKind::kInt || (*c)->value != d - 1 || (*x)->kind == SymKind::kInt) return s;
  return *x;
}

std::optional<SymPtr> extent_product(const std::vector<std::string>& order, const std::set<std::string>& which,
                                     const std::map<std::string, Axis>& axes, std::string& bad, bool unpad) {
  std::vector<SymPtr> fs;
  for (const auto& n : order) {
    if (!which.count(n)) continue;
    const Axis& a = axes.at(n);
    std::optional<SymPtr> s;
    if (a.extent) s = xsym::from_ir(*a.extent);
    if (!s) {
      bad = n;
      return std::nullopt;
    }
    fs.push_back(unpad ? unpadded(*s) : *s);
  }
  try {
    return xsym::product(fs);
  } catch (const OverflowError&) {
    bad = "the axes' product (it overflows 64 bits)";
    return std::nullopt;
  }
}

TirGemm block_gemm(const ir::PrimFunc& f, const ir::Block& blk, std::size_t func_index) {
  TirGemm g;
  g.func_index = func_index;
  g.w.function = f.name;
  g.w.loc = blk.loc.line ? blk.loc : f.loc;
  g.w.source = WorkloadSource::kTir;
  return g;
}

/// Layout from the operands' primary loads: A is transposed when its K index comes before its
/// last M index; B when its last N index comes before its K index (B[n, k] = NT).
std::string gemm_layout(const OperandFacts& fa, const OperandFacts& fb, const std::set<std::string>& kset,
                        const std::set<std::string>& mset, const std::set<std::string>& nset) {
  const auto a_k = positions(fa.primary, kset), a_m = positions(fa.primary, mset);
  const auto b_k = positions(fb.primary, kset), b_n = positions(fb.primary, nset);
  const bool a_t = !a_k.empty() && !a_m.empty() && a_k.front() < a_m.back();
  const bool b_t = !b_k.empty() && !b_n.empty() && b_n.back() < b_k.front();
  return std::string(a_t ? "T" : "N") + (b_t ? "T" : "N");
}

}  // namespace tenet_cost::xtir
