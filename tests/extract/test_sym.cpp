// The typed symbolic extents (tenet_cost/sym.hpp) of every fixture the project can read: bind_dim against an
// independent evaluation of the tree (exact 128-bit arithmetic, Python's floor division and modulo), binding in
// two steps against binding at once, and the names left unbound.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>

#include "extract/sym.hpp"
#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::vector<std::string> fixture_files() {
  std::vector<std::string> out;
  auto add_dir = [&](const std::string& dir) {
    if (dir.empty() || !std::filesystem::is_directory(dir)) return;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".py" || ext == ".json")) out.push_back(e.path().string());
    }
  };
  for (const char* d : {"extract", "ir", "ir_json"}) add_dir(tc_test::fixture(d));
  add_dir(std::string(TC_SOURCE_DIR) + "/workloads");
  add_dir(tc_test::shared_path("fixtures/real"));
  std::sort(out.begin(), out.end());
  return out;
}

void each_dim(const ExtractResult& r, const std::function<void(const Dim&)>& fn) {
  for (const auto& w : r.workloads) {
    for (const Dim* d : {&w.batch, &w.m, &w.n, &w.k}) fn(*d);
    if (w.m_padded) fn(*w.m_padded);
    for (const auto& d : w.conv.loop_extents) fn(d);
  }
  for (const auto& o : r.operators)
    for (const Dim* d : {&o.ops, &o.read_bytes, &o.write_bytes}) fn(*d);
}

// The oracle: the tree's value with every name bound, in 128 bits; nullopt for a division by zero.
std::optional<i128> eval(const sym::Sym& s, const std::map<std::string, std::int64_t>& b) {
  using K = sym::SymKind;
  if (s.kind == K::kInt) return s.value;
  if (s.kind == K::kVar) return b.at(s.name);
  const auto x = eval(*s.a, b), y = eval(*s.b, b);
  if (!x || !y) return std::nullopt;
  switch (s.kind) {
    case K::kAdd: return *x + *y;
    case K::kSub: return *x - *y;
    case K::kMul: return *x * *y;
    default: break;
  }
  if (*y == 0) return std::nullopt;
  i128 q = *x / *y;
  if ((*x % *y != 0) && ((*x < 0) != (*y < 0))) --q;  // floor
  return s.kind == K::kFloorDiv ? q : *x - q * *y;
}

}  // namespace

TEST_CASE("every fixture's symbolic dims bind as an independent evaluation of their trees") {
  std::size_t files = 0, dims = 0;
  for (const auto& path : fixture_files()) {
    ExtractResult r;
    try {
      r = extract_workloads(ir::load_module(path));
    } catch (const InputError&) {
      continue;  // a generator script or a malformed input: no dims to check
    }
    ++files;
    each_dim(r, [&](const Dim& d) {
      if (!d.expr) return;
      INFO(path << ": " << d.str());
      ++dims;
      std::set<std::string> names;
      sym::collect_names(*d.expr, names);
      REQUIRE(!names.empty());  // a symbolic Dim is never an integer tree
      for (const std::int64_t at : {1, 7, 4096}) {
        std::map<std::string, std::int64_t> all, half, rest;
        std::size_t i = 0;
        for (const auto& n : names) {
          all[n] = at;
          (i++ % 2 == 0 ? half : rest)[n] = at;
        }
        const auto want = eval(*d.expr, all);  // the values here stay far below 2^63
        REQUIRE(want);
        if (*want < 0) {
          CHECK_THROWS_WITH(bind_dim(d, all, true), Catch::StartsWith("expected a non-negative dimension"));
          continue;
        }
        CHECK(bind_dim(d, all, true) == Dim::constant(static_cast<std::int64_t>(*want)));
        // every other name first: the rest stay symbolic, and binding them gives the same value
        const Dim part = bind_dim(d, half);
        std::set<std::string> left;
        if (part.expr) sym::collect_names(*part.expr, left);
        for (const auto& n : left) CHECK(rest.count(n) == 1);
        CHECK(bind_dim(part, rest, true) == Dim::constant(static_cast<std::int64_t>(*want)));
      }
    });
  }
  INFO(files << " fixtures, " << dims << " symbolic dims");
  CHECK(files >= 30);
  CHECK(dims >= 100);
}
