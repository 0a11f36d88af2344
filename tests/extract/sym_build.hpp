// Symbolic extents (tenet_cost/sym.hpp) written as C++ expressions in the tests: `dim(v("nseq") * v("n"))`,
// `dim((v("n") + 1) / 2 * 2)`, where / is floor division and % floor modulo, as in the extent's text
// (`(n + 1) // 2 * 2`). Each operator is sym::sym_bin, so the trees fold as the extractor's do.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>

#include "tenet_cost/sym.hpp"
#include "tenet_cost/workload.hpp"

namespace sym_build {

struct E {
  tenet_cost::sym::SymPtr p;
  E(std::int64_t c) : p(tenet_cost::sym::sym_int(c)) {}  // NOLINT(google-explicit-constructor): `v("n") + 1`
  explicit E(tenet_cost::sym::SymPtr s) : p(std::move(s)) {}
};

inline E v(std::string name) { return E(tenet_cost::sym::sym_var(std::move(name))); }
inline E bin(tenet_cost::sym::SymKind k, const E& a, const E& b) { return E(tenet_cost::sym::sym_bin(k, a.p, b.p)); }
inline E operator+(const E& a, const E& b) { return bin(tenet_cost::sym::SymKind::kAdd, a, b); }
inline E operator-(const E& a, const E& b) { return bin(tenet_cost::sym::SymKind::kSub, a, b); }
inline E operator*(const E& a, const E& b) { return bin(tenet_cost::sym::SymKind::kMul, a, b); }
inline E operator/(const E& a, const E& b) { return bin(tenet_cost::sym::SymKind::kFloorDiv, a, b); }
inline E operator%(const E& a, const E& b) { return bin(tenet_cost::sym::SymKind::kFloorMod, a, b); }
inline tenet_cost::Dim dim(const E& e) { return tenet_cost::Dim::symbolic(e.p); }

}  // namespace sym_build

// A failed CHECK on Dims prints them as extract does ("n * 4", 7, "?").
template <>
struct Catch::StringMaker<tenet_cost::Dim> {
  static std::string convert(const tenet_cost::Dim& d) { return d.str(); }
};
