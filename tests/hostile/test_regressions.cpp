// The hostile suite's findings, each fixed at its root, replayed exactly (fixture, literal index, value) so a
// regression fails here with its name (docs/reliability.md §2b).
#include <algorithm>
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

namespace {

// 1-based line:col of the first `needle` in `text` (plus `skip` bytes into it), as "L:C".
std::string line_col_of(const std::string& text, const std::string& needle, std::size_t skip = 0) {
  auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  at += skip;
  const auto line_start = text.rfind('\n', at);
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
  return std::to_string(line) + ":" + std::to_string(at - (line_start == std::string::npos ? 0 : line_start + 1) + 1);
}

// `bytes` run as the fixture `rel` of format `fmt` must be refused with a message that starts with its file name and
// `line_col`, then contains `what`.
void check_located(Format fmt, const std::string& rel, const std::string& bytes, const std::string& line_col,
                   const std::string& what) {
  const Fixture f{fmt, std::string(TC_SOURCE_DIR) + "/" + rel, "", "", ""};
  const Outcome o = run(f, bytes, "/hostile");
  const std::string name = rel.substr(rel.rfind('/') + 1);
  INFO(rel);
  CHECK(o.kind == Outcome::Kind::kInputError);
  CHECK_THAT(o.text, Catch::StartsWith("/hostile/" + name + ":" + line_col + ": ") && Catch::Contains(what));
  CHECK(o.text.size() <= 300);
}

}  // namespace

// Before: 1,032 HF-config messages of the hostile suite named the file without a line (every key error), and ~40
// overflows of widths derived from the config named no file; now each is at the value of the key it is about.
TEST_CASE("an HF config error is located at the key's value", "[hostile][regression][location]") {
  const std::string rel = "workloads/llama-2-7b/config.json", text = fixture(rel);
  std::string t = text;
  t.replace(t.find("32000"), 5, "-1");  // vocab_size
  check_located(Format::kHfConfig, rel, t, line_col_of(t, "-1"), "expected a positive integer for 'vocab_size'");
  t = text;
  t.replace(t.find("11008"), 5, "4611686018427387904");  // intermediate_size: 2 x it (gate_up) overflows
  check_located(Format::kHfConfig, rel, t, line_col_of(t, "4611686018427387904"), "gate_up width does not fit");
  t = text;
  t.replace(t.find("\"num_key_value_heads\": 32"), 25, "\"num_key_value_heads\": 5");
  check_located(Format::kHfConfig, rel, t, line_col_of(t, "\"num_key_value_heads\": 5", 23),
                "multiple of num_key_value_heads");
  // a missing key: at the object that lacks it
  t = text;
  const auto at = t.find("\"vocab_size\"");
  t.erase(at, t.find('\n', at) - at);
  t.insert(at, "\"x\": 0,");
  check_located(Format::kHfConfig, rel, t, "1:1", "missing 'vocab_size'");
}

// Before: an MoE config whose layers x experts overflow (num_hidden_layers = 2^62) failed in the plan with "expert
// calls does not fit" and no file; now at the layers' value.
TEST_CASE("an MoE config's expert calls overflow at the layers' value", "[hostile][regression][location]") {
  const std::string rel = "workloads/mixtral-8x7b/config.json", text = fixture(rel);
  std::string t = text;
  const std::string key = "\"num_hidden_layers\": 32";
  REQUIRE(t.find(key) != std::string::npos);
  t.replace(t.find(key), key.size(), "\"num_hidden_layers\": 4611686018427387904");
  check_located(Format::kHfConfig, rel, t, line_col_of(t, "4611686018427387904"), "expert calls does not fit");
}

// Before: 357 TVM-JSON node and graph errors named the file without a line; now at the node's field (or the node, or
// the top-level key).
TEST_CASE("a TVM JSON node error is located at the node's field", "[hostile][regression][location]") {
  const std::string rel = "tests/fixtures/ir_json/gemm_ffi.json", text = fixture(rel);
  const auto root = text.find("\"root_index\"");
  REQUIRE(root != std::string::npos);
  std::string t = text;
  const auto digits = t.find_first_of("0123456789", root);
  t.replace(digits, t.find_first_not_of("0123456789", digits) - digits, "99999");
  check_located(Format::kTvmJson, rel, t, line_col_of(t, "99999"), "root index 99999 is outside the");
  // every "extent" reference of a loop made dangling: the first one reported, at its value
  t = text;
  const auto ext = t.find("\"extent\":");
  REQUIRE(ext != std::string::npos);
  const auto v = t.find_first_of("0123456789", ext);
  t.replace(v, t.find_first_not_of("0123456789", v) - v, "77777777");
  check_located(Format::kTvmJson, rel, t, line_col_of(t, "77777777"), "dangling reference to node 77777777");
}

// The last two location gaps of the hostile suite (the ratchet is now 0): before, both named the file without a line.
TEST_CASE("a TVM JSON tensor dimension below 0 is refused at its node", "[hostile][regression][location]") {
  // x: R.Tensor((1, 32, -1)) in TVM JSON: before, "expected a non-negative K in main/y, found -1" without a line (the
  // Relax bindings of a TVM-JSON graph had no location); now at the IntImm's value, as the TVMScript reader does
  const std::string rel = "tests/fixtures/ir_json/relax_2026.json", text = fixture(rel);
  const std::string needle = "\"ty\": 6, \"value\": 64";
  REQUIRE(text.find(needle) != std::string::npos);
  std::string t = text;
  t.replace(t.find(needle), needle.size(), "\"ty\": 6, \"value\": -1");
  check_located(Format::kTvmJson, rel, t, line_col_of(t, "-1, \"span\""), "expected a non-negative tensor dimension");
  // an overflowing product is reported at the Relax binding that makes the GEMM (`y = R.matmul(x, w)`, node 55)
  t = text;
  t.replace(t.find(needle), needle.size(), "\"ty\": 6, \"value\": 4611686018427387904");
  check_located(Format::kTvmJson, rel, t, line_col_of(t, "{\"type\": \"relax.expr.VarBinding\""), "the MACs of main/y");
}

TEST_CASE("an overflow in an extern dequant's region is placed at the literal", "[hostile][regression][location]") {
  // T.reads(B[v_i, v_j_o * T.int64(-2^63):...]) of the decode prim_func: before, "arithmetic overflow: multiplication
  // does not fit in 64 bits" naming the dump without a line; now at the literal of largest magnitude in the
  // overflowing expression
  const std::string rel = "tests/fixtures/extract/extern_dequant_relax.py";
  const std::string t = with_literal(fixture(rel), 15, "-9223372036854775808");
  check_located(Format::kTvmScript, rel, t, line_col_of(t, "T.int64(-9223372036854775808)"), "arithmetic overflow");
}
