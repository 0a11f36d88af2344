// Issue 14 item 7: scheme errors are one line with a "did you mean" and a pointer to
// `tenet-cost quant list`; comma lists tolerate spaces; long or odd literals are quoted safely.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "quant_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/message.hpp"
#include "tenet_cost/quant.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

using tc_test::error_of;

TEST_CASE("scheme typos get a suggestion from the catalog", "[quant]") {
  CHECK_THAT(error_of("q4f16-1"), Catch::Contains("did you mean 'q4f16_1'?"));
  CHECK_THAT(error_of("q0f61"), Catch::Contains("did you mean 'q0f16'?"));
  CHECK_THAT(error_of("q5f16_1"), Catch::Contains("did you mean 'q"));
  CHECK_THAT(error_of("Q4F16_3"), Catch::Contains("did you mean 'q4f16_"));
  CHECK_THAT(error_of("fp8-tensr"), Catch::Contains("did you mean 'fp8-tensor'?"));
  CHECK_THAT(error_of("w4a16-g128-asymm"), Catch::Contains("did you mean 'w4a16-g128-asym'?"));
  // Nothing close: no suggestion, still the pointer.
  const std::string far = error_of("completely-different");
  CHECK(far.find("did you mean") == std::string::npos);
  CHECK_THAT(far, Catch::Contains("(valid schemes: `tenet-cost quant list`)"));
  // Every suggestion parses (oracle: the suggested name is a valid scheme).
  for (const char* typo :
       {"q4f16_l", "q0f61", "Q4F16-1", "w8a8-tokn-channel", "e4m3_e4m3_f61", "q4f16_autoawk", "fp8-bock128x128"}) {
    const std::string e = error_of(typo);
    INFO(typo << " -> " << e);
    CHECK(e.find('\n') == std::string::npos);
    const auto at = e.find("did you mean '");
    REQUIRE(at != std::string::npos);
    const auto start = at + 14;
    const std::string suggested = e.substr(start, e.find('\'', start) - start);
    CHECK_NOTHROW(quant::parse_scheme(suggested));
  }
}

TEST_CASE("scheme errors are one line, short, with long and odd literals quoted safely", "[quant]") {
  const std::string huge(100000, '7');
  const std::string e = error_of("w" + huge);
  CHECK(e.size() < 400);
  CHECK_THAT(e, Catch::Contains("(100001 bytes)"));
  const std::string bom = error_of("\xef\xbb\xbfq4f16_1");
  CHECK_THAT(bom, Catch::Contains("'\\ufeffq4f16_1'"));
  CHECK_THAT(bom, Catch::Contains("did you mean 'q4f16_1'?"));
  const std::string nl = error_of("q4f16_1\nrm -rf");
  CHECK(nl.find('\n') == std::string::npos);
  CHECK_THAT(nl, Catch::Contains("q4f16_1\\nrm -rf"));
}

TEST_CASE("scheme lists: spaces trimmed, empty items skipped", "[quant]") {
  const auto v = quant::parse_scheme_list("q0f16, q4f16_1 ,\tw4a16-g128,");
  REQUIRE(v.size() == 3);
  CHECK(v[0].name == "q0f16");
  CHECK(v[1].name == "q4f16_1");
  CHECK(v[2].name == "w4a16-g128");
  CHECK(quant::parse_scheme(" q4f16_1 ").name == "q4f16_1");
  CHECK(quant::parse_scheme_list(" , ").empty());
  CHECK_THROWS_AS(quant::parse_scheme_list("q0f16, bogus"), InputError);
}

TEST_CASE("CLI: compare --quant with spaces, one-line scheme errors", "[quant]") {
  const auto bad = tc_test::run_cli("estimate --quant q4f16-1");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("did you mean 'q4f16_1'?") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  const auto list = tc_test::run_cli("compare --quant 'q0f16, bogus'");
  CHECK(list.exit_code == 2);
  CHECK(list.err.find("'bogus'") != std::string::npos);
  CHECK(std::count(list.err.begin(), list.err.end(), '\n') == 1);
}

TEST_CASE("split_list, closest_match, edit_distance", "[quant]") {
  CHECK(split_list("a, b ,c") == std::vector<std::string>{"a", "b", "c"});
  CHECK(split_list("") == std::vector<std::string>{""});
  CHECK(split_list("a,,b,") == std::vector<std::string>{"a", "", "b", ""});
  CHECK(split_list(" \t ") == std::vector<std::string>{""});
  // Oracle: the textbook recurrence (with adjacent swaps) on all strings of <= 4 letters over {a, b}.
  const auto naive = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  std::vector<std::string> words = {""};
  for (int len = 1; len <= 4; ++len)
    for (int bits = 0; bits < (1 << len); ++bits) {
      std::string w;
      for (int k = 0; k < len; ++k) w += (bits >> k & 1) ? 'a' : 'b';
      words.push_back(w);
    }
  for (const auto& a : words)
    for (const auto& b : words) CHECK(edit_distance(a, b) == naive(a, b));
  CHECK(edit_distance("ABC", "abc") == 0);
  CHECK(edit_distance("ab", "ba") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(closest_match("systolc", {"systolic", "mesh", "none"}) == "systolic");
  CHECK(closest_match("xyz", {"systolic", "mesh", "none"}).empty());
  CHECK(did_you_mean("mseh", {"systolic", "mesh"}) == "; did you mean 'mesh'?");
}
