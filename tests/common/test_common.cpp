#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/message.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/report.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

TEST_CASE("checked arithmetic throws instead of wrapping") {
  CHECK(checked_mul(1LL << 31, 1LL << 31) == (1LL << 62));
  CHECK_THROWS_AS(checked_mul(1LL << 40, 1LL << 40), OverflowError);
  CHECK_THROWS_AS(checked_add(INT64_MAX, 1), OverflowError);
  CHECK_THROWS_AS(checked_sub(INT64_MIN, 1), OverflowError);
  const i128 big = static_cast<i128>(1LL << 40) * (1LL << 40);
  CHECK_THROWS_AS(checked_narrow(big), OverflowError);
}

TEST_CASE("floor division and modulo follow isl semantics") {
  for (i64 a = -20; a <= 20; ++a)
    for (i64 b = -7; b <= 7; ++b) {
      if (b == 0) continue;
      const i64 q = floor_div(a, b), r = floor_mod(a, b);
      CHECK(q * b + r == a);
      // The remainder has the divisor's sign and is smaller in magnitude.
      CHECK((b > 0 ? (r >= 0 && r < b) : (r <= 0 && r > b)));
      const i64 c = ceil_div(a, b);
      CHECK((c - 1 < static_cast<double>(a) / static_cast<double>(b)));
      CHECK((c >= static_cast<double>(a) / static_cast<double>(b)));
    }
  CHECK_THROWS_AS(floor_div(1, 0), InputError);
  CHECK_THROWS_AS(floor_div(INT64_MIN, -1), OverflowError);
  CHECK(floor_mod(INT64_MIN, -1) == 0);
  CHECK_THROWS_AS(floor_mod(1, 0), InputError);
  // Near the ends of the range: oracle in 128-bit arithmetic (found by fuzz_relation).
  for (const i64 a : {INT64_MIN, INT64_MIN + 1, INT64_MIN + 12345, INT64_MAX, INT64_MAX - 1, i64{-9223372036854775000}})
    for (const i64 b : {i64{233720366}, i64{-233720366}, i64{2}, i64{-2}, i64{7}, i64{-7}, INT64_MAX, INT64_MIN + 1}) {
      const i128 r = floor_mod(a, b);
      i128 want = static_cast<i128>(a) % b;
      if (want != 0 && ((want < 0) != (b < 0))) want += b;
      CHECK(r == want);
      CHECK((static_cast<i128>(a) - r) % b == 0);
    }
}

TEST_CASE("error messages escape control bytes and invalid UTF-8") {
  const InputError e(SourceLocation{"f.p", 1, 2}, std::string("found '\x1b[31m' and '\xff' and 'caf\xc3\xa9'"));
  CHECK(std::string(e.what()) == "f.p:1:2: found '\\x1b[31m' and '\\xff' and 'caf\xc3\xa9'");
  CHECK(e.detail() == "found '\\x1b[31m' and '\\xff' and 'caf\xc3\xa9'");
}

TEST_CASE("input errors carry file:line:col") {
  InputError e(SourceLocation{"x.s", 3, 7}, "expected ']', found ';'");
  CHECK(std::string(e.what()) == "x.s:3:7: expected ']', found ';'");
  CHECK(e.detail() == "expected ']', found ';'");
}

TEST_CASE("write_output is atomic and leaves nothing behind on failure") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tc_out_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string target = (dir / "r.json").string();
  write_output(target, "{\"a\": 1}\n");
  CHECK(read_file(target) == "{\"a\": 1}\n");
  CHECK_THROWS_AS(write_output((dir / "missing" / "r.json").string(), "x"), InputError);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
  fs::remove_all(dir);
}

TEST_CASE("table and csv rendering") {
  report::Table t;
  t.headers = {"name", "value"};
  t.right_align = {false, true};
  t.rows = {{"a", "1"}, {"long,name", "12345"}};
  CHECK(report::render_text(t) == "name       value\n----------------\na              1\nlong,name  12345\n");
  CHECK(report::render_csv(t) == "name,value\na,1\n\"long,name\",12345\n");
  CHECK(report::grouped(1234567) == "1,234,567");
  CHECK(report::grouped(-1000) == "-1,000");
  CHECK_THROWS_AS(report::parse_format("xml"), InputError);
}

TEST_CASE("CLI: usage errors exit 2, --help exits 0") {
  CHECK(tc_test::run_cli("--help").exit_code == 0);
  CHECK(tc_test::run_cli("no-such-command").exit_code == 2);
  const auto bad = tc_test::run_cli("no-such-command");
  CHECK(bad.err.rfind("tenet-cost: error: ", 0) == 0);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK(tc_test::run_cli("").exit_code == 2);
}

TEST_CASE("quote_for_message: elides, escapes BOM and control characters, stays one line") {
  CHECK(quote_for_message("abc") == "'abc'");
  CHECK(quote_for_message("\xef\xbb\xbf"
                          "2") == "'\\ufeff2'");
  CHECK(quote_for_message("a\nb\tc\x01") == "'a\\nb\\tc\\x01'");
  CHECK(quote_for_message("caf\xc3\xa9 \xff") == "'caf\xc3\xa9 \\xff'");
  CHECK(quote_for_message("x\xe2\x80\xa8y") == "'x\\u2028y'");
  const std::string digits(100000, '9');
  const std::string q = quote_for_message(digits);
  CHECK(q.size() < 80);
  CHECK(q.find("...") != std::string::npos);
  CHECK(q.find("(100000 bytes)") != std::string::npos);
  // Elision never splits a UTF-8 character: the result is valid UTF-8.
  std::string accents;
  for (int k = 0; k < 100; ++k) accents += "\xc3\xa9";
  const std::string qa = quote_for_message(accents);
  const InputError e(qa);
  CHECK(std::string(e.what()) == qa);  // InputError would escape any invalid byte
}

TEST_CASE("require_finite: an output never shows inf or nan") {
  CHECK(require_finite(1.5, "energy") == 1.5);
  CHECK_THROWS_WITH(require_finite(std::numeric_limits<double>::infinity(), "total energy (pJ)"),
                    Catch::Contains("total energy (pJ) is not a finite number"));
  CHECK_THROWS_AS(require_finite(std::nan(""), "x"), InputError);
  CHECK_THROWS_AS(require_finite(1e308 * 10, "x"), InputError);
}

TEST_CASE("JSON: a key given twice in one object is an error naming it, at its second place") {
  CHECK_THROWS_WITH(parse_json_document("{\"a\": 1,\n \"b\": 2, \"a\": 3}", "f.json", JsonLimits{}),
                    "f.json:2:10: expected each key once in a JSON object, found 'a' twice");
  // The same key in different objects, or in nested ones, is fine; strings that look like keys too.
  CHECK_NOTHROW(parse_json_document(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": "\"a\":", "d": ["a", "a"]})",
                                    "f.json", JsonLimits{}));
  CHECK_THROWS_WITH(parse_json_document(R"({"x": [{"k": 1, "k": 2}]})", "f.json", JsonLimits{}),
                    Catch::Contains("found 'k' twice"));
  // Many keys (the hashed path): a duplicate after 100 distinct keys.
  std::string many = "{";
  for (int k = 0; k < 100; ++k) many += "\"k" + std::to_string(k) + "\": " + std::to_string(k) + ", ";
  CHECK_NOTHROW(parse_json_document(many + "\"z\": 0}", "f.json", JsonLimits{}));
  CHECK_THROWS_WITH(parse_json_document(many + "\"k42\": 0}", "f.json", JsonLimits{}), Catch::Contains("'k42' twice"));
  // Escaped quotes inside keys do not confuse the scan.
  CHECK_NOTHROW(parse_json_document(R"({"a\"": 1, "a": 2})", "f.json", JsonLimits{}));
}

TEST_CASE("JSON: a NUL byte anywhere is an error at its place, never the end of the document") {
  // nlohmann's lexer stops at a NUL: `{...}\0garbage` parsed as `{...}` before.
  CHECK_THROWS_WITH(parse_json_document(std::string("{\"a\": 1}\n\0garbage", 17), "f.json", JsonLimits{}),
                    "f.json:2:1: expected JSON text, found a NUL byte");
  CHECK_THROWS_WITH(parse_json_document(std::string("{\"a\": \"x\0y\"}", 12), "f.json", JsonLimits{}),
                    "f.json:1:9: expected JSON text, found a NUL byte");
  CHECK(parse_json_document("{\"a\": \"x\\u0000y\"}", "f.json", JsonLimits{})["a"].get<std::string>().size() == 3);
}

TEST_CASE("JsonLocator finds a value by its path, or the deepest ancestor in the text", "[common][json]") {
  const std::string text = "{\"a\": {\"x\": \"}]\\\"\", \"b\": [1, {\"c\": 2},\n   [3, 4]]},\n \"d\": 1e400 }";
  const JsonLocator loc(text, "f.json");
  // offsets counted by hand: a's value at 6, a.b at 25, a.b[1].c at 35, a.b[2][1] at 46 (line 2, column 8)
  CHECK(loc.offset({}) == 0);
  CHECK(loc.offset({"a"}) == 6);
  CHECK(loc.offset({"a", "b"}) == 25);
  CHECK(loc.offset({"a", "b", std::size_t{1}, "c"}) == 35);
  CHECK(loc.offset({"a", "b", std::size_t{2}, std::size_t{1}}) == 46);
  CHECK(loc.at({"a", "b", std::size_t{2}, std::size_t{1}}).str() == "f.json:2:8");
  CHECK(loc.at({"d"}).str() == "f.json:3:7");
  // absent: npos, and the location of the deepest step that is there
  CHECK(loc.offset({"a", "zz"}) == std::string::npos);
  CHECK(loc.at({"a", "zz"}).str() == "f.json:1:7");
  CHECK(loc.at({"a", "b", std::size_t{7}}).str() == "f.json:1:26");
  CHECK(loc.at({"a", std::size_t{0}}).str() == "f.json:1:7");  // an index into an object: not there
  // a key inside a string value is not a key
  CHECK(loc.offset({"x"}) == std::string::npos);
}

TEST_CASE("JsonLocator places several elements of one array in one scan", "[common][json]") {
  // a.b's elements by hand (the array at 1:26): [0] at 1:27, [1] at 1:30, [2] at 2:4; a missing index and a missing
  // array get line 0
  const std::string text = "{\"a\": {\"x\": \"}]\\\"\", \"b\": [1, {\"c\": 2},\n   [3, 4]]}}";
  const JsonLocator loc(text, "f.json");
  const auto at = loc.elements_at({"a", "b"}, {0, 2, 9});
  REQUIRE(at.size() == 3);
  CHECK(at[0].str() == "f.json:1:27");
  CHECK(at[1].str() == "f.json:2:4");
  CHECK(at[2].line == 0);
  CHECK(loc.elements_at({"zz"}, {0})[0].line == 0);
  // the same after a UTF-8 byte order mark: columns count from after it
  const std::string bom = "\xEF\xBB\xBF" + text;
  CHECK(JsonLocator(bom, "f.json").elements_at({"a", "b"}, {1})[0].str() == "f.json:1:30");
}

TEST_CASE("a number that overflows a double is located at the number", "[common][json]") {
  // before: "f.json: invalid JSON: [json.exception.out_of_range.406] number overflow parsing '1e400'", no line
  CHECK_THROWS_WITH(parse_json_document("{\"a\": 1,\n  \"b\": -1e400}", "f.json", JsonLimits{}),
                    "f.json:2:8: expected a number within a double's range, found '-1e400'");
}
