// parse_bindings / bind_dim and the symbolic-expression printer/parser.
#include <catch2/catch.hpp>
#include <random>

#include "extract/sym.hpp"
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
  const std::map<std::string, std::int64_t> b{{"n", 10}, {"nseq", 4}};
  CHECK(bind_dim(Dim::symbolic("nseq * n"), b) == Dim::constant(40));
  CHECK(bind_dim(Dim::symbolic("(n + 1) // 2 * 2"), b) == Dim::constant(10));
  CHECK(bind_dim(Dim::symbolic("n % 3 - 1"), b) == Dim::constant(0));
  CHECK(bind_dim(Dim::constant(5), {}) == Dim::constant(5));
  CHECK(bind_dim(Dim::symbolic("m * n"), b) == Dim::symbolic("m * 10"));
  try {
    bind_dim(Dim::symbolic("m * vocab"), b, true);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("m, vocab") != std::string::npos);
    CHECK(msg.find("bound: n, nseq") != std::string::npos);
  }
  CHECK_THROWS_AS(bind_dim(Dim::symbolic("n // 0"), b), InputError);
  CHECK_THROWS_AS(bind_dim(Dim::symbolic("n / 2"), b), InputError);
  CHECK_THROWS_AS(bind_dim(Dim::symbolic("n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n * n"),
                           {{"n", 1000}}),
                  OverflowError);
}

// Oracle: a random expression evaluated directly must equal parse(to_text(e))
// evaluated after binding (printer parenthesization is checked this way).
namespace {
struct Rnd {
  std::mt19937_64 g{12345};
  std::int64_t pick(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(g); }
};
xsym::SymPtr gen(Rnd& r, int depth, std::int64_t& value, const std::map<std::string, std::int64_t>& env) {
  if (depth == 0 || r.pick(0, 3) == 0) {
    if (r.pick(0, 1) == 0) {
      value = r.pick(-5, 9);
      return xsym::sym_int(value);
    }
    auto it = std::next(env.begin(), r.pick(0, static_cast<std::int64_t>(env.size()) - 1));
    value = it->second;
    return xsym::sym_var(it->first);
  }
  std::int64_t a = 0, b = 0;
  auto x = gen(r, depth - 1, a, env);
  auto y = gen(r, depth - 1, b, env);
  const auto op = static_cast<xsym::SymKind>(r.pick(2, 6));
  if ((op == xsym::SymKind::kFloorDiv || op == xsym::SymKind::kFloorMod) && b == 0) {
    value = checked_add(a, b);
    return xsym::sym_bin(xsym::SymKind::kAdd, x, y);
  }
  switch (op) {
    case xsym::SymKind::kAdd: value = checked_add(a, b); break;
    case xsym::SymKind::kSub: value = checked_sub(a, b); break;
    case xsym::SymKind::kMul: value = checked_mul(a, b); break;
    case xsym::SymKind::kFloorDiv: value = floor_div(a, b); break;
    default: value = floor_mod(a, b); break;
  }
  return xsym::sym_bin(op, x, y);
}
}  // namespace

TEST_CASE("symbolic printer round-trips through the parser (random expressions)") {
  Rnd r;
  const std::map<std::string, std::int64_t> env{{"n", 7}, {"m", -3}, {"seq_len", 12}};
  for (int i = 0; i < 2000; ++i) {
    std::int64_t v = 0;
    auto e = gen(r, 4, v, env);
    const std::string text = xsym::to_text(*e);
    CHECK(sym::equal(*xsym::parse(text), *e));  // the same tree back
    auto back = xsym::bind(xsym::parse(text), env);
    REQUIRE(back->kind == xsym::SymKind::kInt);
    INFO(text);
    CHECK(back->value == v);
  }
}
