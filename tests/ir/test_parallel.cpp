// The parallel TVMScript parse (ParseOptions): its oracle is the serial parse.
// Every text is parsed serially and split into 2-4 chunks; the modules must
// dump identically (every node, every location), speculation that a split
// cannot verify must fall back to the serial parse, and errors must be the
// serial ones.
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "ir_text.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;

namespace {

Module parse_with(const std::string& text, unsigned threads, ParseStats* stats = nullptr) {
  ParseOptions opt;
  opt.min_parallel_bytes = 0;
  opt.threads = threads;
  opt.stats = stats;
  opt.require_whole_module = false;  // snippets and cut files (the whole-module check is tested in tests/extract)
  return parse_tvmscript(text, "t.py", opt);
}

// The error message of a parse, "" when it succeeds.
std::string error_with(const std::string& text, unsigned threads, ParseStats* stats = nullptr) {
  try {
    parse_with(text, threads, stats);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* const kHeader =
    "# from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n";

// Function i of a class body (a prim_func and a Relax function calling it).
std::string member(int i) {
  const std::string n = std::to_string(i);
  return "    @T.prim_func(private=True)\n"
         "    def add_" + n + "(A: T.Buffer((T.int64(8),), \"float32\"), B: T.Buffer((T.int64(8),), \"float32\")):\n"
         "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
         "        for i in range(T.int64(8)):\n"
         "            with T.block(\"add\"):\n"
         "                v = T.axis.spatial(T.int64(8), i)\n"
         "                T.reads(A[v])\n"
         "                T.writes(B[v])\n"
         "                B[v] = A[v] + T.float32(" + n + ")\n"
         "\n"
         "    @R.function\n"
         "    def main_" + n + "(x: R.Tensor((8,), dtype=\"float32\")) -> R.Tensor((8,), dtype=\"float32\"):\n"
         "        cls = Module\n"
         "        with R.dataflow():\n"
         "            y = R.call_tir(cls.add_" + n + ", (x,), out_sinfo=R.Tensor((8,), dtype=\"float32\"))\n"
         "            z: R.Tensor((8,), dtype=\"float32\") = R.add(y, x)\n"
         "            R.output(z)\n"
         "        return z\n"
         "\n";
}

std::string class_module(int functions) {
  std::string s = kHeader;
  for (int i = 0; i < functions; ++i) s += member(i);
  return s;
}

// The same functions at the left margin (no class).
std::string bare_functions(int functions) {
  std::string s = "from tvm.script import tir as T\n\n";
  for (int i = 0; i < functions; ++i) {
    std::istringstream in(member(i).substr(0, member(i).find("    @R.function")));
    for (std::string line; std::getline(in, line);) s += (line.size() >= 4 ? line.substr(4) : line) + "\n";
  }
  return s;
}

// Serial and forced-parallel parses of `text` dump identically; returns the
// stats of the last parallel parse.
ParseStats check_same_as_serial(const std::string& text, std::vector<unsigned> threads = {2, 3, 4}) {
  const std::string serial = ir_test::dump(parse_with(text, 1));
  ParseStats stats;
  for (const unsigned k : threads) {
    INFO("threads " << k);
    const std::string parallel = ir_test::dump(parse_with(text, k, &stats));
    REQUIRE(parallel.size() == serial.size());
    CHECK(parallel == serial);
  }
  return stats;
}

}  // namespace

TEST_CASE("a module parsed in chunks equals the serial parse") {
  const std::string text = class_module(12);
  for (const unsigned k : {2u, 3u, 4u}) {
    ParseStats stats;
    const Module m = parse_with(text, k, &stats);
    CHECK(stats.threads == k);
    CHECK(stats.chunks == 4 * k);  // 24 functions: four chunks per thread
    CHECK_FALSE(stats.fell_back);
    REQUIRE(m.prim_funcs.size() == 12);
    REQUIRE(m.relax_funcs.size() == 12);
    for (int i = 0; i < 12; ++i) {
      CHECK(m.prim_funcs[static_cast<std::size_t>(i)].name == "add_" + std::to_string(i));
      CHECK(m.relax_funcs[static_cast<std::size_t>(i)].name == "main_" + std::to_string(i));
    }
  }
  check_same_as_serial(text);
  // positions are the real file positions in every chunk
  const Module m = parse_with(text, 4);
  CHECK(m.prim_funcs.back().loc.line == 7 + 19 * 11);
  CHECK(m.prim_funcs.back().loc.column == 5);
  CHECK(m.relax_funcs.back().bindings.back().loc.line == 7 + 19 * 11 + 15);
  CHECK(m.relax_funcs.back().bindings.back().loc.column == 13);
}

TEST_CASE("the serial parse is used below min_parallel_bytes and with one thread") {
  const std::string text = class_module(6);
  ParseStats stats;
  ParseOptions opt;
  opt.threads = 4;
  opt.stats = &stats;
  parse_tvmscript(text, "t.py", opt);  // default threshold: 4 MiB
  CHECK(stats.chunks == 1);
  CHECK_FALSE(stats.fell_back);
  parse_with(text, 1, &stats);
  CHECK(stats.chunks == 1);
  CHECK_FALSE(stats.fell_back);
}

TEST_CASE("ordered_debug_log parses serially, whatever the logger's level") {
  const std::string text = class_module(6);
  const std::string serial = ir_test::dump(parse_with(text, 1));
  ParseStats stats;
  ParseOptions opt;
  opt.min_parallel_bytes = 0;
  opt.threads = 3;
  opt.stats = &stats;
  const spdlog::level::level_enum level = spdlog::get_level();
  for (const auto lvl : {spdlog::level::warn, spdlog::level::debug}) {
    spdlog::set_level(lvl);
    opt.ordered_debug_log = true;
    CHECK(ir_test::dump(parse_tvmscript(text, "t.py", opt)) == serial);
    CHECK(stats.threads == 1);
    CHECK(stats.chunks == 1);
    CHECK_FALSE(stats.fell_back);
    // Without it the logger's level does not choose the algorithm.
    opt.ordered_debug_log = false;
    CHECK(ir_test::dump(parse_tvmscript(text, "t.py", opt)) == serial);
    CHECK(stats.threads == 3);
    CHECK(stats.chunks > 1);
  }
  spdlog::set_level(level);
}

TEST_CASE("TC_PARSE_THREADS sets the thread count when the options do not") {
  const std::string text = class_module(6);
  ParseStats stats;
  ParseOptions opt;
  opt.min_parallel_bytes = 0;
  opt.stats = &stats;
  ::setenv("TC_PARSE_THREADS", "1", 1);
  parse_tvmscript(text, "t.py", opt);
  CHECK(stats.chunks == 1);
  ::setenv("TC_PARSE_THREADS", "3", 1);
  parse_tvmscript(text, "t.py", opt);
  CHECK(stats.threads == 3);
  ::unsetenv("TC_PARSE_THREADS");
}

TEST_CASE("functions at the left margin are split too") {
  const std::string text = bare_functions(10);
  const ParseStats stats = check_same_as_serial(text);
  CHECK(stats.threads == 4);
  CHECK(stats.chunks == 10);  // one per function
  CHECK_FALSE(stats.fell_back);
  CHECK(parse_with(text, 4).prim_funcs.size() == 10);
}

TEST_CASE("CRLF line endings keep the real line numbers in every chunk") {
  std::string text;
  for (const char c : class_module(10)) {
    if (c == '\n') text += '\r';
    text += c;
  }
  const ParseStats stats = check_same_as_serial(text);
  CHECK(stats.threads == 4);
  CHECK(stats.chunks == 16);
  CHECK_FALSE(stats.fell_back);
  CHECK(parse_with(text, 4).prim_funcs.back().loc.line == 7 + 19 * 9);
}

TEST_CASE("split lines inside a triple-quoted string fall back to the serial parse") {
  // a class-level docstring that looks like many functions, most of the file
  std::string text = class_module(2);
  text += "    \"\"\"\n";
  for (int i = 0; i < 400; ++i) text += "    @T.prim_func\n    def fake_" + std::to_string(i) + "():\n        pass\n";
  text += "    \"\"\"\n";
  for (int i = 2; i < 4; ++i) text += member(i);
  ParseStats stats;
  const Module m = parse_with(text, 4, &stats);
  CHECK(stats.fell_back);
  CHECK(m.prim_funcs.size() == 4);
  check_same_as_serial(text);
}

TEST_CASE("split lines inside brackets fall back to the serial parse") {
  // `@` continuing expressions inside parentheses, at the member indentation:
  // (a @ b0, c0 @ b1, c1 @ b2, ...)
  std::string text = class_module(2);
  text += "    product = (a\n";
  for (int i = 0; i < 2000; ++i) text += "    @ b" + std::to_string(i) + "\n    , c" + std::to_string(i) + "\n";
  text += "    )\n";
  for (int i = 2; i < 4; ++i) text += member(i);
  ParseStats stats;
  const Module m = parse_with(text, 4, &stats);
  CHECK(stats.fell_back);
  CHECK(m.prim_funcs.size() == 4);
  check_same_as_serial(text);
}

TEST_CASE("an import between functions changes the scope: the split is not trusted") {
  // T2 is only a TIR namespace after the import in the middle of the file
  std::string text = bare_functions(2);
  text += "from tvm.script import tir as T2\n\n";
  std::string more = bare_functions(20).substr(std::string("from tvm.script import tir as T\n\n").size());
  for (std::size_t p = 0; (p = more.find("T.", p)) != std::string::npos; p += 3) more.replace(p, 2, "T2.");
  for (std::size_t p = 0; (p = more.find("def add_", p)) != std::string::npos; p += 8) more.insert(p + 8, "x");
  text += more;
  ParseStats stats;
  const Module m = parse_with(text, 2, &stats);
  CHECK(stats.fell_back);
  CHECK(m.prim_funcs.size() == 22);
  check_same_as_serial(text);
}

TEST_CASE("a syntax error in a later chunk is reported as the serial parse reports it") {
  std::string text = class_module(12);
  const std::size_t at = text.find("def add_9(");
  REQUIRE(at != std::string::npos);
  text.insert(text.find('\n', at) + 1, "        x = (1 +\n");
  const std::string serial = error_with(text, 1);
  REQUIRE_FALSE(serial.empty());
  CHECK(serial.find("t.py:") != std::string::npos);
  for (const unsigned k : {2u, 3u, 4u}) {
    ParseStats stats;
    CHECK(error_with(text, k, &stats) == serial);
    CHECK(stats.fell_back);
  }
  // an error in the first chunk too
  std::string early = class_module(12);
  early.insert(early.find("def add_0("), "@@ ");
  CHECK(error_with(early, 3) == error_with(early, 1));
}

TEST_CASE("a file cut inside a function, and a file without functions, parse as serially") {
  const std::string text = class_module(8);
  for (const std::size_t cut : {text.size() / 3, text.size() / 2, text.size() - 7}) {
    const std::string part = text.substr(0, cut);
    CHECK(error_with(part, 3) == error_with(part, 1));
  }
  ParseStats stats;
  CHECK(parse_with("x = 1\ny = 2\n", 4, &stats).prim_funcs.empty());
  CHECK(stats.chunks == 1);
}

TEST_CASE("the project's TVMScript fixtures parse in chunks as serially") {
  for (const auto& entry : std::filesystem::directory_iterator(tc_test::fixture("ir"))) {
    if (entry.path().extension() != ".py") continue;
    INFO(entry.path().string());
    check_same_as_serial(read_file(entry.path().string()));
  }
}

TEST_CASE("the real TVMScript dumps parse in chunks as serially") {
  const std::string dir = tc_test::shared_path("fixtures/real");
  if (dir.empty()) {
    WARN("../shared absent: skipping the real fixtures");
    return;
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".py") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE_FALSE(files.empty());
  std::size_t split = 0;
  for (const auto& path : files) {
    INFO(path);
    const std::string text = read_file(path);
    const ParseStats stats = check_same_as_serial(text);
    // a dump of many functions really is parsed in chunks
    std::size_t defs = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.compare(line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '), 4, "def ") == 0)
        ++defs;
    if (defs >= 10) {
      CHECK(stats.threads == 4);
      CHECK(stats.chunks >= 4);
      CHECK_FALSE(stats.fell_back);
      ++split;
    }
  }
  CHECK(split >= 8);  // 01-05, 17-19
  ParseStats stats;
  parse_with(read_file(files.front()), 4, &stats);  // 01: the 348 KB MLC module
  CHECK(stats.threads == 4);
  CHECK(stats.chunks >= 4);  // its 35 functions are of very different sizes
  CHECK_FALSE(stats.fell_back);
}
