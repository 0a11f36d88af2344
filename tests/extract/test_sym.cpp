// The typed symbolic extent (tenet_cost/sym.hpp) against the text it replaces, on every symbolic dimension of every
// fixture the project can read: the typed expression prints as the Dim's text, the text parses back to the same
// tree, and bind_dim on the typed form gives what the text path gives (the same Dim or the same error) under
// several bindings.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>

#include "extract/sym.hpp"
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

// bind_dim's answer as text: the Dim, or the error's message.
std::string answer(const Dim& d, const std::map<std::string, std::int64_t>& b, bool require_known) {
  try {
    const Dim r = bind_dim(d, b, require_known);
    return r.str();
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

TEST_CASE("every fixture's symbolic dims: typed and text forms print, parse and bind alike") {
  std::size_t files = 0, dims = 0;
  for (const auto& path : fixture_files()) {
    ExtractResult r;
    try {
      r = extract_workloads(ir::load_module(path));
    } catch (const InputError&) {
      continue;  // a generator script or a malformed input: no dims to compare
    }
    ++files;
    each_dim(r, [&](const Dim& d) {
      if (d.known() || d.expr.empty() || d.expr == "?") return;
      INFO(path << ": " << d.expr);
      ++dims;
      REQUIRE(d.sym);
      CHECK(xsym::to_text(*d.sym) == d.expr);           // the typed form prints as the text
      CHECK(sym::equal(*xsym::parse(d.expr), *d.sym));  // the text parses back to the same tree
      std::set<std::string> names;
      xsym::collect_names(*d.sym, names);
      std::vector<std::map<std::string, std::int64_t>> bindings(5);
      std::size_t i = 0;
      for (const auto& n : names) {
        bindings[1][n] = 1;
        bindings[2][n] = 7;
        bindings[3][n] = 4096;
        if (i++ % 2 == 0) bindings[4][n] = 3;  // partial: every other name
      }
      const Dim text = Dim::symbolic(d.expr);  // no typed form: the text path
      for (const auto& b : bindings)
        for (const bool require_known : {false, true})
          CHECK(answer(d, b, require_known) == answer(text, b, require_known));
    });
  }
  INFO(files << " fixtures, " << dims << " symbolic dims");
  CHECK(files >= 30);
  CHECK(dims >= 100);
}
