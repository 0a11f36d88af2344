// The isl-subset relation parser and evaluator (relation::parse, Evaluator,
// column_bounds, periods, as_box).
#include <vector>

#include "fuzz_common.hpp"
#include "tenet_cost/relation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > tc_fuzz::kMaxInput) return 0;
  return tc_fuzz::guarded([&] {
    using namespace tenet_cost::relation;
    const Relation r = parse(tc_fuzz::text(data, size), tenet_cost::SourceLocation{"fuzz.isl", 1, 1});
    for (const Piece& p : r.pieces) {
      (void)periods(p);
      std::vector<Interval> b2;
      (void)as_box(p, b2);
      (void)max_abs_constant(p);
      // The evaluator's contract (as the engine uses it): every affine form is
      // first bounded over the box with checked arithmetic (OverflowError), then
      // points inside the box evaluate without overflow.
      const std::vector<Interval> box(p.vars.size(), Interval{-3, 3});
      const std::vector<Interval> cols = column_bounds(p, box);
      for (const auto& conj : p.disjuncts) {
        for (const auto& c : conj) (void)bounds(c.expr, cols);
      }
      for (const auto& o : p.out) (void)bounds(o, cols);
      Evaluator ev(p);
      std::vector<tenet_cost::i64> x(p.vars.size(), 0);
      for (int k = 0; k < 8; ++k) {
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = (k * 7 + static_cast<int>(i) * 3) % 7 - 3;
        ev.bind(x.data());
        (void)ev.holds();
        for (const auto& o : p.out) (void)ev.value(o);
      }
    }
  });
}
