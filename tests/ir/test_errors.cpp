// Syntax errors: InputError with file:line:col and "expected X, found Y";
// corrupted and truncated dumps never crash; resource limits hold.
#include <catch2/catch.hpp>

#include <random>

#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;

namespace {

// Parse `text`; on failure check the error's shape. Returns true when it parsed.
bool parse_or_located_error(const std::string& text, const std::string& name) {
  try {
    (void)parse_tvmscript(text, name);
    return true;
  } catch (const OverflowError&) {
    throw;  // not expected from the parser
  } catch (const InputError& e) {
    const SourceLocation& w = e.where();
    INFO(e.what());
    REQUIRE(w.file == name);
    REQUIRE(w.line >= 1);
    REQUIRE(w.column >= 1);
    // line/col are inside the text (a position just past the end is allowed for "end of file")
    std::uint32_t lines = 1;
    for (const char c : text) lines += c == '\n';
    REQUIRE(w.line <= lines);
    std::size_t line_start = 0;
    for (std::uint32_t l = 1; l < w.line; ++l) line_start = text.find('\n', line_start) + 1;
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    REQUIRE(w.column <= line_end - line_start + 1);
    const std::string prefix = name + ":" + std::to_string(w.line) + ":" + std::to_string(w.column) + ": ";
    REQUIRE(std::string(e.what()).rfind(prefix, 0) == 0);
    REQUIRE(e.detail().rfind("expected ", 0) == 0);
    REQUIRE(e.detail().find(", found ") != std::string::npos);
    return false;
  }
}

std::string error_of(const std::string& text) {
  try {
    ParseOptions o;
    o.require_whole_module = false;  // syntax snippets, not whole dumps
    (void)parse_tvmscript(text, "t.py", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

const char* kSmall =
    "@T.prim_func\n"
    "def f(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4, 4), \"float32\")):\n"
    "    for i, j in T.grid(4, 4):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n";

std::vector<std::string> corpus() {
  std::vector<std::string> out{kSmall};
  for (const char* f : {"06_tvm_dlight_attention_qk_gemv_symbolic_n.py", "15_tvm_dlight_conv3d.py",
                        "16_mlc_ft_quant_fastertransformer_gemm_relax.py",
                        "22_tvm2022_old_tbuffer_brackets_matmul_relu_tensorcore.py",
                        "21_tvm2023_old_relax_matmul_symbolic_legalized.py"}) {
    const std::string p = tc_test::shared_path("fixtures/real/" + std::string(f));
    if (!p.empty()) out.push_back(read_file(p));
  }
  for (const char* f : {"era2023_module.py", "python_noise.py", "era2024_primfuncs.py"})
    out.push_back(read_file(tc_test::fixture("ir/" + std::string(f))));
  return out;
}

}  // namespace

TEST_CASE("syntax errors name the position and the offending token") {
  CHECK(error_of("def f(:\n    pass\n") == "t.py:1:7: expected a parameter name, found ':'");
  CHECK(error_of("x = (1, 2\n") == "t.py:2:1: expected a closing bracket, found end of file");
  CHECK(error_of("x = [1, 2)\n") == "t.py:1:10: expected ',' or ']', found ')'");
  CHECK(error_of("x = 'abc\n") == "t.py:1:5: expected the closing ' of this string, found end of line");
  CHECK(error_of("x = \"\"\"abc\n\n") == "t.py:1:5: expected the closing \"\"\" of this string, found end of file");
  CHECK(error_of("if x:\n        a = 1\n    b = 2\n") ==
        "t.py:3:5: expected an indentation of 0 columns (matching an enclosing block), found 4");
  CHECK(error_of("  x = 1\n") == "t.py:1:3: expected a statement at the left margin, found an indented block");
  CHECK(error_of("def f():\nreturn 1\n") == "t.py:2:1: expected an indented block, found 'return'");
  CHECK(error_of("x = 1 +\n") == "t.py:1:8: expected an expression, found end of line");
  CHECK(error_of("x = $\n") == "t.py:1:5: expected a token, found '$'");
  CHECK(error_of("x = 1e\n") == "t.py:1:7: expected an exponent after 'e', found '\\x0a'");
  CHECK(error_of("x = 12abc\n") == "t.py:1:7: expected an operator or delimiter after the number '12', found 'a'");
  CHECK(error_of("x = 0x\n") == "t.py:1:7: expected digits after '0x', found '\\x0a'");
  CHECK(error_of("x = 007\n") == "t.py:1:5: expected a decimal number without leading zeros, found '007'");
  CHECK(error_of("@T.prim_func\nx = 1\n") == "t.py:2:1: expected 'def' or 'class' after a decorator, found 'x'");
  CHECK(error_of("for i in range(3) pass\n") == "t.py:1:19: expected ':', found 'pass'");
  CHECK(error_of("a b\n") == "t.py:1:3: expected end of line, found 'b'");
  CHECK(error_of("x = T.int64(99999999999999999999)\n") == "<no error>");  // top-level Python: not lowered
  CHECK(error_of("@T.prim_func\ndef f():\n    x = T.int64(99999999999999999999)\n") ==
        "t.py:3:17: expected an integer literal within the 64-bit signed range, found '99999999999999999999'");
  CHECK(error_of("@T.prim_func\ndef f():\n    x = -9223372036854775808\n") == "<no error>");
  CHECK(error_of("@T.prim_func\ndef f():\n    x = 9223372036854775808\n") ==
        "t.py:3:9: expected an integer literal within the 64-bit signed range, found '9223372036854775808'");
}

TEST_CASE("deep nesting is a clear error, not a stack overflow") {
  const std::string parens = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
  CHECK(error_of(parens).find("expected an expression nested at most 300 levels deep") != std::string::npos);
  // the lexer's own bracket limit, reached through a call-free path (comprehension skipping)
  const std::string lists = "x = [y for y in " + std::string(5000, '[') + std::string(5000, ']') + "]\n";
  CHECK(error_of(lists).find("expected at most 256 nested brackets, found more") != std::string::npos);
  const std::string minus = "x = " + std::string(100000, '-') + "1\n";
  CHECK(error_of(minus).find("expected an expression nested at most 300 levels deep") != std::string::npos);
  std::string nots = "x = ";
  for (int i = 0; i < 50000; ++i) nots += "not ";
  CHECK(error_of(nots + "1\n").find("nested at most 300 levels deep") != std::string::npos);
  std::string sum = "x = a";
  for (int i = 0; i < 200000; ++i) sum += " + a";
  CHECK(error_of(sum + "\n").find("expected an expression at most 1000 operations deep") != std::string::npos);
  std::string attr = "x = a";
  for (int i = 0; i < 200000; ++i) attr += ".b";
  CHECK(error_of(attr + "\n").find("operations deep") != std::string::npos);
  std::string calls = "x = f";
  for (int i = 0; i < 200000; ++i) calls += "()";
  CHECK(error_of(calls + "\n").find("operations deep") != std::string::npos);
  std::string indent;
  for (int i = 0; i < 400; ++i) indent += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  indent += std::string(400, ' ') + "pass\n";
  CHECK(error_of(indent).find("expected at most 256 indentation levels, found more") != std::string::npos);
  // many allocations in a row nest the rest of the scope: bounded too
  std::string allocs = "@T.prim_func\ndef f():\n";
  for (int i = 0; i < 3000; ++i) allocs += "    a" + std::to_string(i) + " = T.alloc_buffer((4,), \"float32\")\n";
  CHECK(error_of(allocs).find("expected statements nested at most 1024 levels deep") != std::string::npos);
  const std::string long_name = "x = " + std::string(10000, 'a') + "\n";
  CHECK(error_of(long_name).find("expected a name of at most 4096 bytes") != std::string::npos);
  // wide is fine: a 50 000-element tuple and a 100 000-term call list
  std::string wide = "x = (";
  for (int i = 0; i < 50000; ++i) wide += "1, ";
  CHECK(error_of(wide + ")\n") == "<no error>");
}

TEST_CASE("truncated dumps give located errors or parse, never crash") {
  int errors = 0, parsed = 0;
  for (const std::string& text : corpus()) {
    const std::size_t step = std::max<std::size_t>(1, text.size() / 150);
    for (std::size_t cut = 0; cut < text.size(); cut += step) {
      if (parse_or_located_error(text.substr(0, cut), "cut.py")) ++parsed;
      else ++errors;
    }
  }
  CHECK(errors > 100);
  CHECK(parsed > 0);
}

TEST_CASE("byte flips, unbalanced brackets and bad indentation never crash") {
  std::mt19937 rng(20261122);
  const std::string alphabet = "()[]{}:,.=+-*/%<>!\"'#\\\n\t @0123456789abcT_\x01\xff";
  int errors = 0, bad_indent = 0;
  for (const std::string& text : corpus()) {
    for (int round = 0; round < 60; ++round) {
      std::string t = text;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        const std::size_t at = rng() % t.size();
        t[at] = alphabet[rng() % alphabet.size()];
      }
      if (!parse_or_located_error(t, "flip.py")) ++errors;
    }
    // drop every closing bracket of one kind
    for (const char close : {')', ']'}) {
      std::string t = text;
      const std::size_t at = t.rfind(close);
      if (at != std::string::npos) t.erase(at, 1);
      if (!parse_or_located_error(t, "unbalanced.py")) ++errors;
    }
    // shift one indented line left by one column (an error unless inside brackets)
    const std::size_t line = text.find("\n    ", text.size() / 2);
    if (line != std::string::npos) {
      std::string t = text;
      t.erase(line + 1, 1);
      if (!parse_or_located_error(t, "indent.py")) ++bad_indent;
    }
  }
  CHECK(errors > 50);
  CHECK(bad_indent > 3);
}

TEST_CASE("a truncated copy of the 348 KB dump fails at the cut") {
  const std::string p = tc_test::shared_path("fixtures/real/01_mlc_llama2_13b_q4f16_1_batched_whole_module.py");
  if (p.empty()) return;
  const std::string text = read_file(p);
  // cut inside the 16 KB single-line tuple parameter of decode_with_embed
  const std::size_t at = text.find("model_params: R.Tuple(") + 8000;
  try {
    (void)parse_tvmscript(text.substr(0, at), "cut.py");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.where().line == 718);
    CHECK(std::string(e.what()).find("found end of file") != std::string::npos);
  }
}

TEST_CASE("load_module reports unreadable files") {
  CHECK_THROWS_AS(load_module("/nonexistent/dump.py"), InputError);
  CHECK_THROWS_AS(load_module(tc_test::fixture("ir")), InputError);
}

TEST_CASE("a huge bracket is a clear error naming the limit, in bounded memory") {
  // 65,536 pending elements is the limit (docs/reliability.md): real dumps need ~400
  std::string ok = "x = (";
  for (int i = 0; i < 65000; ++i) ok += "1,";
  CHECK(error_of(ok + ")\n") == "<no error>");
  std::string big = "x = (";
  for (int i = 0; i < 200000; ++i) big += "1,";
  CHECK(error_of(big + ")\n") ==
        "t.py:1:131076: expected at most 65536 elements in open brackets (the largest real dumps have ~400: "
        "docs/reliability.md, limits), found more");
  // nested: the elements of all open brackets count
  std::string nested = "x = f(";
  for (int i = 0; i < 40000; ++i) nested += "1,";
  nested += "[";
  for (int i = 0; i < 40000; ++i) nested += "2,";
  CHECK(error_of(nested + "])\n").find("expected at most 65536 elements in open brackets") != std::string::npos);
}

TEST_CASE("a huge definition is a clear error naming the node limit; the count restarts per definition") {
  // 2^21 syntax nodes per top-level definition (docs/reliability.md): the largest real
  // function has 23,130. Each line below is 60,001 nodes (a tuple of 60,000 ones).
  std::string line = "    x = (";
  for (int i = 0; i < 60000; ++i) line += "1,";
  line += ")\n";
  auto def = [&](int i, int lines) {
    std::string d = "def f" + std::to_string(i) + "():\n";
    for (int l = 0; l < lines; ++l) d += line;
    return d;
  };
  // two definitions of ~1.2 M nodes each: fine, the limit is per definition
  CHECK(error_of(def(0, 20) + def(1, 20)) == "<no error>");
  // one of ~2.16 M: refused at the node that crosses the limit
  const std::string msg = error_of(def(0, 36));
  CHECK_THAT(msg, Catch::StartsWith("t.py:36:"));
  CHECK_THAT(msg, Catch::EndsWith(": expected at most 2097152 syntax nodes in one top-level definition (the largest "
                                  "real function has 23,130 nodes: docs/reliability.md, limits), found more"));
}
