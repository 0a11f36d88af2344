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

// The dump tests/fixtures/extract/<name> with its n-th literal set to `value` must be refused with a message at
// the dump's line that contains `what`.
void check_refused(const std::string& name, std::size_t n, const std::string& value, const std::string& what) {
  const std::string rel = "tests/fixtures/extract/" + name;
  const Fixture f{Format::kTvmScript, std::string(TC_SOURCE_DIR) + "/" + rel, "", "", ""};
  const Outcome o = run(f, with_literal(fixture(rel), n, value), "/hostile");
  INFO(name << " literal " << n << " -> " << value);
  CHECK(o.kind == Outcome::Kind::kInputError);
  CHECK_THAT(o.text, Catch::StartsWith("/hostile/" + name + ":") && Catch::Contains(what));
}

}  // namespace

TEST_CASE("a negative GEMM extent from a mutated literal is refused at the workload", "[hostile][regression]") {
  // before: exit 0 with K = -1 and negative MACs (relax_matmul.py) and batch = -1 (extern_fp8_gemms.py)
  check_refused("relax_matmul.py", 29, "-1", "expected a non-negative K");
  check_refused("extern_fp8_gemms.py", 57, "-1", "expected a non-negative batch");
}

TEST_CASE("a convolution with a stride or dilation below 1 is refused", "[hostile][regression]") {
  // before: exit 0 with "strides": [-1, ..] / "dilations": [-9223372036854775808, ..] in the workload
  check_refused("conv2d_dilated.py", 26, "-9223372036854775808", "a dilation >= 1");
  check_refused("conv2d_dilated.py", 27, "-1", "a stride >= 1");
}

TEST_CASE("an overflow deep in extraction names the dump", "[hostile][regression]") {
  // before: "arithmetic overflow: MACs of NT_matmul_decode_qk does not fit in 64 bits" without a file (from the
  // report view); now at the workload's line:col
  check_refused("attention_kinds.py", 18, "4611686018427387904", "the MACs of");
}

namespace {

// The message of parse_json_document's InputError on `text` (a test failure when it parses).
std::string json_error(const std::string& text) {
  try {
    (void)tenet_cost::parse_json_document(text, "a.json", tenet_cost::JsonLimits{1 << 20, 16, "test"});
  } catch (const tenet_cost::InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}

}  // namespace

TEST_CASE("a JSON syntax error quotes a long token elided", "[hostile][regression]") {
  // before: nlohmann's "last read: '<the whole string so far>'" made a 339..778-character message
  const std::string m = json_error("{\"description\": \"" + std::string(500, 'x') + "\x01\"}");
  CHECK(m.size() <= 300);
  CHECK_THAT(m, Catch::StartsWith("a.json:1:") && Catch::Contains("last read: '") && Catch::Contains("bytes)"));
}

TEST_CASE("a JSON syntax error in an object key quotes the token elided and keeps what was expected",
          "[hostile][regression]") {
  // before: "... parsing object key - invalid literal; last read: '<the string so far>'; expected string literal"
  // was left whole (the quote does not end the message): 501 characters on a flipped byte of edge-npu-3level.json
  const std::string m = json_error("{\"description\": \"" + std::string(500, 'x') + "\", \x60name\": 1}");
  INFO(m);
  CHECK(m.size() <= 300);
  CHECK_THAT(m, Catch::StartsWith("a.json:1:") && Catch::Contains("last read: '") && Catch::Contains("bytes)") &&
                    Catch::Contains("; expected string literal"));
}
