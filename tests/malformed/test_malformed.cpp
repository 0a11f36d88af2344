// The malformed-input suite (issue 5): every input here must make tenet-cost
// exit with code 2 and one clean `tenet-cost: error: ...` message - no crash,
// no internal error, no partial output. Files live in tests/fixtures/malformed
// (generator: make_malformed.py); command-line values are inline below.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kMal = std::string(TC_FIXTURE_DIR) + "/malformed";
const std::string kTenet = std::string(TC_FIXTURE_DIR) + "/tenet/small";
const std::string kDump = std::string(TC_FIXTURE_DIR) + "/extract/relax_matmul.py";

std::string q(const std::string& s) { return "'" + s + "'"; }

std::vector<std::string> files_in(const std::string& sub) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kMal + "/" + sub)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Exit code 2, nothing on stdout, and a clean message on stderr.
/// `loc` (a regex) must match the message when given: file:line[:col] where the format has lines.
void expect_clean_error(const std::string& args, const std::string& loc = "") {
  INFO("tenet-cost " << args);
  const auto r = tc_test::run_cli(args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("tenet-cost: error: ", 0) == 0);
  CHECK(r.err.size() > 25);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.err.find("terminate called") == std::string::npos);
  CHECK(r.err.find("Sanitizer") == std::string::npos);
  CHECK(r.err.find("runtime error") == std::string::npos);
  if (!loc.empty()) CHECK(std::regex_search(r.err, std::regex(loc)));
}

std::string base(const std::string& path) { return fs::path(path).filename().string(); }
std::string esc(const std::string& s) { return std::regex_replace(s, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"); }

int g_cases = 0;

}  // namespace

TEST_CASE("malformed TVMScript dumps: file:line:col errors, exit 2", "[malformed]") {
  const auto files = files_in("tvmscript");
  CHECK(files.size() >= 25);
  for (const auto& f : files) {
    if (base(f) == "gemm_2p40_cubed.py") continue;  // below: a count overflow, not a syntax error
    expect_clean_error("extract " + q(f), esc(base(f)) + R"(:\d+:\d+: expected)");
    ++g_cases;
  }
}

TEST_CASE("malformed TVM JSON graphs: exit 2, file (and line:col for syntax)", "[malformed]") {
  const auto files = files_in("tvm_json");
  CHECK(files.size() >= 30);
  for (const auto& f : files) {
    const bool syntax = base(f).rfind("syntax_", 0) == 0 || base(f).find("trunc") != std::string::npos;
    expect_clean_error("extract " + q(f), esc(base(f)) + (syntax ? R"(:\d+:\d+: invalid JSON)" : ""));
    ++g_cases;
  }
}

TEST_CASE("malformed TENET .p/.s/.m/experiment files: exit 2, file:line", "[malformed]") {
  for (const auto& f : files_in("pe")) {
    const bool no_line = base(f) == "zero_bandwidth.p";  // a whole-file property
    expect_clean_error("tenet --pe " + q(f) + " --statement " + kTenet + "/g.s --mapping " + kTenet + "/g_os.m",
                       esc(base(f)) + (no_line ? "" : R"(:\d+)"));
    ++g_cases;
  }
  // Errors of the counting stage (overflow, interval bounds) carry no line.
  const std::set<std::string> counting = {"overflow_domain_2p40_cubed.s", "time_overflow.m", "wrong_arity_space.m"};
  for (const auto& f : files_in("statement")) {
    expect_clean_error("tenet --pe " + kTenet + "/sys4.p --statement " + q(f) + " --mapping " + kTenet + "/g_os.m",
                       counting.count(base(f)) ? "" : esc(base(f)) + R"(:\d+)");
    ++g_cases;
  }
  for (const auto& f : files_in("mapping")) {
    expect_clean_error("tenet --pe " + kTenet + "/sys4.p --statement " + kTenet + "/g.s --mapping " + q(f),
                       counting.count(base(f)) ? "" : esc(base(f)) + R"(:\d+)");
    ++g_cases;
  }
  for (const auto& f : files_in("experiment")) {
    expect_clean_error("tenet --experiment " + q(f) + " --data-root " + kTenet);
    ++g_cases;
  }
}

TEST_CASE("malformed arch JSON: exit 2, file:line:col where JSON has lines", "[malformed]") {
  const std::set<std::string> no_line = {"number_overflows_double.json", "interconnect_relation_syntax.json",
                                         "over_1mib.json"};
  for (const auto& f : files_in("arch")) {
    expect_clean_error("estimate " + kDump + " --arch " + q(f), no_line.count(base(f)) ? "" : esc(base(f)) + R"(:\d+:\d+: )");
    ++g_cases;
  }
}

TEST_CASE("malformed Hugging Face config.json: exit 2 (file:line:col for syntax and nesting)", "[malformed]") {
  const auto files = files_in("hf_config");
  CHECK(files.size() >= 10);
  for (const auto& f : files) {
    const bool located = base(f) == "syntax.json" || base(f) == "deep_nesting.json";
    expect_clean_error("estimate --hf-config " + q(f), esc(base(f)) + (located ? R"(:\d+:\d+: )" : ""));
    ++g_cases;
  }
}

TEST_CASE("error messages escape control bytes and invalid UTF-8 they quote", "[malformed]") {
  const auto r = tc_test::run_cli("tenet --pe " + q(kMal + "/pe/escape_byte_in_name.p") + " --statement " + kTenet +
                                  "/g.s --mapping " + kTenet + "/g_os.m");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find("\\x1b") != std::string::npos);
}

TEST_CASE("malformed command-line values: schemes, --bind, --tile, --dataflow, formats", "[malformed]") {
  const std::vector<std::string> schemes = {"q5f16_1", "w4a16-g0", "w4a16-g", "w9a16", "w4a16-gabc", "fp9-tensor",
                                            "w4a16+kv9", "w4a16+kv4-g0", "w4a16-g-1", "+kv8",
                                            "w4a16-g99999999999999999999"};
  for (const auto& s : schemes) {
    expect_clean_error("estimate " + kDump + " --quant " + q(s), "scheme");
    ++g_cases;
  }
  expect_clean_error("compare " + kDump + " --quant q4f16_1,bogus", "bogus");
  ++g_cases;
  const std::vector<std::string> binds = {"n", "n=", "=4", "n=abc", "n=4,,m=2", "n=99999999999999999999", "n=4,n=5",
                                          "n=1e3", "n=4;m=2", "n=-"};
  for (const auto& b : binds) {
    expect_clean_error("extract " + kDump + " --bind " + q(b));
    ++g_cases;
  }
  const std::vector<std::string> tiles = {"m=0,n=16,k=16", "x=16", "m=-4,n=4,k=4", "m=16,n=16,k=16,order=abc",
                                          "m=99999999999999999999", "m=a,n=b,k=c"};
  for (const auto& t : tiles) {
    expect_clean_error("estimate " + kDump + " --tile " + q(t));
    ++g_cases;
  }
  for (const auto& d : {"xyz", "/nonexistent/file.m", ""}) {
    expect_clean_error("estimate " + kDump + " --dataflow " + q(d));
    ++g_cases;
  }
  expect_clean_error("estimate " + kDump + " --dataflow " + kMal + "/mapping/time_syntax.m", R"(time_syntax\.m:\d+:\d+)");
  expect_clean_error("estimate " + kDump + " --array-model sometimes");
  expect_clean_error("estimate " + kDump + " --arch no-such-preset", "no-such-preset");
  expect_clean_error("extract " + kDump + " --format yaml");
  expect_clean_error("tenet --pe " + kTenet + "/sys4.p --statement " + kTenet + "/g.s --mapping " + kTenet +
                     "/g_os.m --format csv");
  expect_clean_error("extract /nonexistent/dump.py", "nonexistent");
  expect_clean_error("extract " + kMal);  // a directory
  expect_clean_error("extract " + kDump + " --entry no_such_entry", "no_such_entry");
  // CLI11 usage errors: the same one-line `tenet-cost: error: ...` as every other error.
  for (const auto& args : {"--no-such-option extract " + kDump, std::string("frobnicate"), std::string("extract")})
    expect_clean_error(args, "see tenet-cost --help");
  expect_clean_error("estimate " + kDump + " --seq-len 0");
  g_cases += 13;
}

TEST_CASE("2^40 x 2^40 x 2^40 GEMM: every count overflow is an error", "[malformed][overflow]") {
  const std::string f = kMal + "/tvmscript/gemm_2p40_cubed.py";
  expect_clean_error("extract " + q(f) + " --format json", "overflow");
  expect_clean_error("tenet --pe " + kTenet + "/sys4.p --statement " + kMal + "/statement/overflow_domain_2p40_cubed.s" +
                         " --mapping " + kTenet + "/g_os.m",
                     "overflow");
  g_cases += 2;
}

TEST_CASE("atomic --output: a failing command leaves nothing behind", "[malformed][output]") {
  const fs::path dir = fs::temp_directory_path() / ("tc_malformed_out_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string out = (dir / "result.txt").string();
  for (const auto& args :
       {"extract " + kMal + "/tvmscript/unclosed_paren.py", "extract " + kMal + "/tvm_json/self_cycle.json",
        "tenet --pe " + kMal + "/pe/empty.p --statement " + kTenet + "/g.s --mapping " + kTenet + "/g_os.m",
        "estimate " + kDump + " --arch " + kMal + "/arch/rows_zero.json", "extract " + kDump + " --bind n="}) {
    expect_clean_error("-o " + q(out) + " " + args);
    CHECK(fs::is_empty(dir));
  }
  // An existing result is not truncated by a failing run.
  {
    std::ofstream(out) << "previous result\n";
  }
  expect_clean_error("-o " + q(out) + " extract " + kMal + "/tvmscript/unclosed_paren.py");
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  CHECK(line == "previous result");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  // Success: exit 0, the file holds exactly what stdout would.
  const auto ok = tc_test::run_cli("-o " + q(out) + " extract " + kDump + " --format json");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.empty());
  const auto ref = tc_test::run_cli("extract " + kDump + " --format json");
  std::ifstream in2(out);
  const std::string got((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  CHECK(got == ref.out);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  // Unwritable target directory: exit 2, clean message.
  expect_clean_error("-o /nonexistent_dir/x.txt extract " + kDump, "nonexistent_dir");
  fs::remove_all(dir);
}

TEST_CASE("the suite has at least 100 malformed inputs", "[malformed]") {
  // Runs last (Catch2 declaration order); counts the cases the tests above ran.
  CHECK(g_cases >= 100);
}

TEST_CASE("names with non-UTF-8 bytes: JSON output replaces them (was exit 1)", "[malformed][json]") {
  const std::string f = kMal + "/non_utf8_function_name.py";
  const auto r = tc_test::run_cli("extract " + q(f) + " --format json");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("mat\xEF\xBF\xBDmul") != std::string::npos);  // U+FFFD
  const auto e = tc_test::run_cli("estimate " + q(f) + " --format json");
  CHECK(e.exit_code != 1);
  CHECK(e.err.find("internal error") == std::string::npos);
}

TEST_CASE("arch numbers (issue 14): no wrapped integer, no silently dropped rate, finite energies", "[malformed]") {
  // file -> the message part: the number as written in the file, never wrapped or rounded.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"clock_u64max.json", "expected 'clock_mhz' in 1 .. 1000000, found '18446744073709551615'"},
      {"clock_2p63.json", "expected 'clock_mhz' in 1 .. 1000000, found '9223372036854775808'"},
      {"clock_1e20.json", "expected 'clock_mhz' in 1 .. 1000000, found '100000000000000000000'"},
      {"rows_u64max.json", "expected 'rows' in 1 .. 4096, found '18446744073709551615'"},
      {"buffer_2p62.json", "expected 'bytes' in 1 .. 281474976710656, found '4611686018427387904'"},
      {"dram_u64max.json", "expected 'mb_per_s' in 1 .. 1000000000, found '18446744073709551615'"},
      {"mac_rate_u64max.json", "found '18446744073709551615'"},
      {"mac_rate_2p63.json", "found '9223372036854775808'"},
      {"mac_rate_tiny.json", "found '1e-300'"},
      {"mac_rate_negzero.json", "found '-0.0'"},
      {"mac_rate_zero.json",
       "expected 'fp16' (MACs per PE per cycle) to be an integer in 1 .. 65536 or a fraction k/64 >= 1/64, found '0'"},
      {"mac_rate_negative.json", "found '-1'"},
      {"energy_1e308.json", "expected 'dram_per_bit' in 0 .. 1000000.0, found '1e308'"},
      {"energy_negzero.json", "expected 'dram_per_bit' in 0 .. 1000000.0, found '-0.0'"},
      {"energy_mac_huge.json", "expected 'fp32' in 0 .. 1000000.0, found '1e300'"},
      {"duplicate_key.json", "expected each key once in a JSON object, found 'clock_mhz' twice"},
      {"duplicate_nested_key.json", "expected each key once in a JSON object, found 'rows' twice"},
      {"bom_value.json", "found '\\ufeffsystolic'; did you mean 'systolic'?"},
  };
  for (const auto& [file, want] : cases) {
    const std::string path = kMal + "/arch/" + file;
    INFO(file);
    const auto r = tc_test::run_cli("estimate " + kDump + " --arch " + q(path));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(want) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(std::regex_search(r.err, std::regex(esc(file) + R"(:\d+:\d+: )")));
  }
  // The located line is the line of the offending key (fp16 appears in two sections).
  const auto r = tc_test::run_cli("estimate " + kDump + " --arch " + q(kMal + "/arch/energy_mac_huge.json"));
  CHECK(r.err.find("energy_mac_huge.json:12:") != std::string::npos);
  const auto z = tc_test::run_cli("estimate " + kDump + " --arch " + q(kMal + "/arch/mac_rate_zero.json"));
  CHECK(z.err.find("mac_rate_zero.json:5:") != std::string::npos);
}

TEST_CASE("a Hugging Face config.json passed as DUMP: the hint names --hf-config", "[malformed]") {
  const std::string cfg = std::string(TC_SOURCE_DIR) + "/workloads/llama-2-7b/config.json";
  const auto r = tc_test::run_cli("extract " + q(cfg));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--hf-config") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
