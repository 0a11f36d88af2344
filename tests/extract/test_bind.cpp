// parse_bindings, bind_dim and the symbolic extents' printing.
#include <catch2/catch.hpp>
#include <random>

#include "extract/sym.hpp"
#include "sym_build.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"

using namespace tenet_cost;

TEST_CASE("parse_bindings accepts name=int lists and rejects malformed ones") {
  auto b = parse_bindings("seq_len=2048, batch_size=1");
  CHECK(b == std::map<std::string, std::int64_t>{{"batch_size", 1}, {"seq_len", 2048}});
  CHECK(parse_bindings("").empty());
  CHECK(parse_bindings("  ").empty());
  for (const char* bad : {"n", "n=", "=3", "n=3,", "n=3,n=4", "n=x", "n=1.5", "1n=2", "n=-1", "n=99999999999999999999"})
    CHECK_THROWS_AS(parse_bindings(bad), InputError);
}

TEST_CASE("bind_dim evaluates + - * // % and keeps unbound names symbolic") {
  using sym_build::dim;
  using sym_build::v;
  const std::map<std::string, std::int64_t> b{{"n", 10}, {"nseq", 4}};
  CHECK(bind_dim(dim(v("nseq") * v("n")), b) == Dim::constant(40));
  CHECK(bind_dim(dim((v("n") + 1) / 2 * 2), b) == Dim::constant(10));
  CHECK(bind_dim(dim(v("n") % 3 - 1), b) == Dim::constant(0));
  CHECK(bind_dim(Dim::constant(5), {}) == Dim::constant(5));
  CHECK(bind_dim(dim(v("m") * v("n")), b) == dim(v("m") * 10));
  CHECK(bind_dim(dim(v("m") * v("n")), b).str() == "m * 10");
  CHECK(bind_dim(Dim::unknown(), b) == Dim::unknown());
  CHECK_THROWS_WITH(bind_dim(Dim::unknown(), b, true), "a dimension is unknown (its shape could not be determined)");
  try {
    bind_dim(dim(v("m") * v("vocab")), b, true);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("m, vocab") != std::string::npos);
    CHECK(msg.find("in 'm * vocab'") != std::string::npos);
    CHECK(msg.find("bound: n, nseq") != std::string::npos);
  }
  CHECK_THROWS_AS(bind_dim(dim(v("n") / 0), b), InputError);
  sym_build::E big = v("n");
  for (int i = 0; i < 19; ++i) big = big * v("n");
  CHECK_THROWS_AS(bind_dim(dim(big), {{"n", 1000}}), OverflowError);
}

TEST_CASE("symbolic extents print with Python's precedence, parenthesized only where needed") {
  using sym_build::dim;
  using sym_build::v;
  CHECK(dim(v("nseq") * v("n")).str() == "nseq * n");
  CHECK(dim((v("seq_len") + 1) / 2 * 2).str() == "(seq_len + 1) // 2 * 2");
  CHECK(dim(v("a") - (v("b") - v("c"))).str() == "a - (b - c)");
  CHECK(dim(v("a") - v("b") - v("c")).str() == "a - b - c");
  CHECK(dim(v("a") * (v("b") / 4)).str() == "a * (b // 4)");
  CHECK(dim(v("a") % 3 + 1).str() == "a % 3 + 1");
  CHECK(dim(sym_build::E(-3) * v("n")).str() == "(-3) * n");
  CHECK(dim(v("n") * 1 + 0).str() == "n");  // identities fold
  CHECK(dim(sym_build::E(6) / 4).str() == "1");
  CHECK(dim(sym_build::E(6) / 4) == Dim::constant(1));  // an integer tree is a constant Dim
  CHECK(Dim::unknown().str() == "?");
  CHECK(Dim::constant(7).str() == "7");
  CHECK(dim(v("n") + 1) == dim(v("n") + 1));  // structural, not by pointer
  CHECK_FALSE(dim(v("n") + 1) == dim(v("n") + 2));
  CHECK_FALSE(dim(v("n")) == Dim::unknown());
}

// Oracle: a random expression's value, computed by the generator's own arithmetic, must equal what binding every
// name gives.
namespace {
struct Rnd {
  std::mt19937_64 g{12345};
  std::int64_t pick(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(g); }
};
sym::SymPtr gen(Rnd& r, int depth, std::int64_t& value, const std::map<std::string, std::int64_t>& env) {
  if (depth == 0 || r.pick(0, 3) == 0) {
    if (r.pick(0, 1) == 0) {
      value = r.pick(-5, 9);
      return sym::sym_int(value);
    }
    auto it = std::next(env.begin(), r.pick(0, static_cast<std::int64_t>(env.size()) - 1));
    value = it->second;
    return sym::sym_var(it->first);
  }
  std::int64_t a = 0, b = 0;
  auto x = gen(r, depth - 1, a, env);
  auto y = gen(r, depth - 1, b, env);
  const auto op = static_cast<sym::SymKind>(r.pick(2, 6));
  if ((op == sym::SymKind::kFloorDiv || op == sym::SymKind::kFloorMod) && b == 0) {
    value = checked_add(a, b);
    return sym::sym_bin(sym::SymKind::kAdd, x, y);
  }
  switch (op) {
    case sym::SymKind::kAdd: value = checked_add(a, b); break;
    case sym::SymKind::kSub: value = checked_sub(a, b); break;
    case sym::SymKind::kMul: value = checked_mul(a, b); break;
    case sym::SymKind::kFloorDiv: value = floor_div(a, b); break;
    default: value = floor_mod(a, b); break;
  }
  return sym::sym_bin(op, x, y);
}
}  // namespace

TEST_CASE("binding a random expression gives its value (random expressions)") {
  Rnd r;
  const std::map<std::string, std::int64_t> env{{"n", 7}, {"m", -3}, {"seq_len", 12}};
  for (int i = 0; i < 2000; ++i) {
    std::int64_t v = 0;
    auto e = gen(r, 4, v, env);
    INFO(sym::to_text(*e));
    auto back = sym::bind(e, env);
    REQUIRE(back->kind == sym::SymKind::kInt);
    CHECK(back->value == v);
    if (e->kind == sym::SymKind::kInt) continue;  // folded already: a constant Dim, which bind_dim keeps
    if (v >= 0) {
      CHECK(bind_dim(Dim::symbolic(e), env, true) == Dim::constant(v));
    } else {
      CHECK_THROWS_WITH(bind_dim(Dim::symbolic(e), env), Catch::StartsWith("expected a non-negative dimension"));
    }
  }
}
