// The hostile suite's findings, each fixed at its root, replayed exactly (fixture, literal index, value) so a
// regression fails here with its name (docs/reliability.md §2b).
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "hostile/mutate.hpp"
#include "hostile/runners.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"

using namespace tc_hostile;

namespace {

std::string fixture(const std::string& rel) {
  std::ifstream in(std::string(TC_SOURCE_DIR) + "/" + rel, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `text` with its `n`-th (1-based) integer literal replaced by `value`.
std::string with_literal(const std::string& text, std::size_t n, const std::string& value) {
  const auto lits = integer_literals(text);
  REQUIRE(n >= 1);
  REQUIRE(n <= lits.size());
  const auto [b, e] = lits[n - 1];
  return text.substr(0, b) + value + text.substr(e);
}

Outcome run_dump(const std::string& rel, std::size_t n, const std::string& value) {
  const Fixture f{Format::kTvmScript, std::string(TC_SOURCE_DIR) + "/" + rel, "", "", ""};
  return run(f, with_literal(fixture(rel), n, value), "/hostile");
}

}  // namespace

TEST_CASE("a negative GEMM extent from a mutated literal is refused at the workload", "[hostile][regression]") {
  // before: exit 0 with K = -1 and negative MACs (relax_matmul.py) and batch = -1 (extern_fp8_gemms.py)
  const Outcome k = run_dump("tests/fixtures/extract/relax_matmul.py", 29, "-1");
  CHECK(k.kind == Outcome::Kind::kInputError);
  CHECK_THAT(k.text, Catch::StartsWith("/hostile/relax_matmul.py:") && Catch::Contains("expected a non-negative") &&
                         Catch::Contains("found -1"));
  const Outcome b = run_dump("tests/fixtures/extract/extern_fp8_gemms.py", 57, "-1");
  CHECK(b.kind == Outcome::Kind::kInputError);
  CHECK_THAT(b.text, Catch::Contains("extern_fp8_gemms.py:") && Catch::Contains("expected a non-negative batch"));
}

TEST_CASE("a convolution with a stride or dilation below 1 is refused", "[hostile][regression]") {
  // before: exit 0 with "strides": [-1, ..] / "dilations": [-9223372036854775808, ..] in the workload
  const Outcome d = run_dump("tests/fixtures/extract/conv2d_dilated.py", 26, "-9223372036854775808");
  CHECK(d.kind == Outcome::Kind::kInputError);
  CHECK_THAT(d.text, Catch::Contains("conv2d_dilated.py:") && Catch::Contains("a dilation >= 1"));
  const Outcome s = run_dump("tests/fixtures/extract/conv2d_dilated.py", 27, "-1");
  CHECK(s.kind == Outcome::Kind::kInputError);
  CHECK_THAT(s.text, Catch::Contains("a stride >= 1") && Catch::Contains("found -1"));
}

TEST_CASE("an overflow deep in extraction names the dump", "[hostile][regression]") {
  // before: "arithmetic overflow: MACs of NT_matmul_decode_qk does not fit in 64 bits" without a file (from the
  // report view); now at the workload's line:col
  const Outcome o = run_dump("tests/fixtures/extract/attention_kinds.py", 18, "4611686018427387904");
  CHECK(o.kind == Outcome::Kind::kInputError);
  CHECK_THAT(o.text, Catch::StartsWith("/hostile/attention_kinds.py:") && Catch::Contains("overflow"));
}

TEST_CASE("a JSON syntax error quotes a long token elided", "[hostile][regression]") {
  // before: nlohmann's "last read: '<the whole string so far>'" made a 339..778-character message
  const std::string text = "{\"description\": \"" + std::string(500, 'x') + "\x01\"}";
  try {
    (void)tenet_cost::parse_json_document(text, "a.json", tenet_cost::JsonLimits{1 << 20, 16, "test"});
    FAIL("expected an InputError");
  } catch (const tenet_cost::InputError& e) {
    const std::string m = e.what();
    CHECK(m.size() <= 300);
    CHECK_THAT(m, Catch::StartsWith("a.json:1:") && Catch::Contains("last read: '") && Catch::Contains("bytes)"));
  }
}
