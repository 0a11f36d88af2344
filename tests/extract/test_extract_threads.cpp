// Threaded extraction (docs/extract.md "Threads") gives the serial result: the same
// JSON, skipped list, debug log lines and error, for every project and shared fixture,
// for synthetic modules concatenated from several dumps, and for mutated dumps.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <sstream>
#include <stdexcept>

#include "extract/internal.hpp"
#include "extract/parallel.hpp"
#include "irb.hpp"
#include "mutate.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

/// Routes the default logger, at debug level, into a string for the scope.
class LogToString {
 public:
  LogToString() : previous_(spdlog::default_logger()), level_(spdlog::get_level()) {
    auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_st>(out_));
    logger->set_pattern("%l: %v");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::debug);
  }
  ~LogToString() {
    spdlog::set_default_logger(previous_);
    spdlog::set_level(level_);
  }
  LogToString(const LogToString&) = delete;
  LogToString& operator=(const LogToString&) = delete;
  std::string take() {
    std::string s = out_.str();
    out_.str("");
    return s;
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
  spdlog::level::level_enum level_;
};

/// Everything an extraction yields: the JSON document, the skipped list, the
/// debug lines, or the error (its type and message).
std::string outcome(const ir::Module& m, ExtractOptions o, unsigned threads, LogToString& log) {
  o.threads = threads;
  o.min_parallel_funcs = 0;  // threads even for a handful of functions
  std::string s;
  try {
    const ExtractResult r = extract_workloads(m, o);
    try {
      s += report::extract_json(r);
    } catch (const InputError& e) {
      s += std::string("json error: ") + e.what();
    }
    for (const auto& k : r.skipped) s += "\nskipped: " + k;
  } catch (const OverflowError& e) {
    s += std::string("overflow error: ") + e.what();
  } catch (const InputError& e) {
    s += std::string("input error: ") + e.what();
  }
  return s + "\nlog:\n" + log.take();
}

/// Serial and threaded extraction of `m` (whole module, and each of its first
/// three entries) agree. Returns how many extractions were compared.
int check_same(const ir::Module& m, const std::string& what, LogToString& log) {
  std::vector<ExtractOptions> opts(1);
  for (const auto& f : m.relax_funcs) {
    if (opts.size() > 3) break;
    opts.emplace_back().entry = f.name;
  }
  opts.emplace_back().entry = "no_such_entry";  // the error path
  (void)log.take();                              // the front-end's lines
  for (const auto& o : opts) {
    INFO(what << " entry " << o.entry.value_or("(all)"));
    const std::string serial = outcome(m, o, 1, log);
    CHECK(outcome(m, o, 2, log) == serial);
    CHECK(outcome(m, o, 5, log) == serial);
  }
  return static_cast<int>(opts.size());
}

std::vector<std::string> dumps_under(const std::string& dir) {
  std::vector<std::string> out;
  if (dir.empty() || !std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".py" || ext == ".json")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The class bodies of several IRModule dumps in one class, each copy's functions
/// (and its `cls.f` references) renamed f_cK, under the first dump's header.
std::string concatenate(const std::vector<std::string>& paths) {
  std::string out;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const std::string text = read_file(paths[k]);
    const std::string cls = "class Module:\n";
    const std::size_t at = text.find(cls);
    REQUIRE(at != std::string::npos);
    if (k == 0) out += text.substr(0, at + cls.size());
    const std::string suffix = "_c" + std::to_string(k);
    const std::string body = text.substr(at + cls.size());
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::size_t pos = 0;
    while (pos < body.size()) {
      std::size_t eol = body.find('\n', pos);
      if (eol == std::string::npos) eol = body.size();
      std::string line = body.substr(pos, eol - pos);
      const std::size_t indent = line.find_first_not_of(' ');
      if (indent != std::string::npos && line.compare(indent, 4, "def ") == 0) {
        const std::size_t paren = line.find('(');
        if (paren != std::string::npos) line.insert(paren, suffix);
      }
      for (std::size_t c = line.find("cls."); c != std::string::npos; c = line.find("cls.", c + 4)) {
        std::size_t e = c + 4;
        while (e < line.size() && ident(line[e])) ++e;
        if (e > c + 4) line.insert(e, suffix);
      }
      out += line;
      out += '\n';
      pos = eol + 1;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("threaded extraction equals the serial one on every fixture") {
  LogToString log;
  std::vector<std::string> files = dumps_under(tc_test::fixture(""));
  const std::string shared = tc_test::shared_path("fixtures/real");
  for (const auto& f : dumps_under(shared)) files.push_back(f);
  int loaded = 0, compared = 0;
  for (const auto& path : files) {
    ir::Module m;
    try {
      m = ir::load_module(path);
    } catch (const InputError&) {
      continue;  // malformed fixtures
    }
    ++loaded;
    compared += check_same(m, path, log);
  }
  INFO("loaded " << loaded << ", compared " << compared);
  CHECK(loaded >= 20);
  if (!shared.empty()) CHECK(loaded >= 45);
}

TEST_CASE("threaded extraction equals the serial one on concatenated dumps") {
  LogToString log;
  std::vector<std::string> parts = {tc_test::fixture("extract/mini_llm_q4f16_1.py"),
                                    tc_test::fixture("extract/relax_nested_calls.py"),
                                    tc_test::fixture("extract/relax_matmul.py"),
                                    tc_test::fixture("extract/q8f16_1_gemv.py"),
                                    tc_test::fixture("extract/fp8_block_scale_gemv.py"),
                                    tc_test::fixture("extract/relax_recursive_calls.py")};
  for (const char* name : {"01_mlc_llama2_13b_q4f16_1_batched_whole_module.py",
                           "03_mlc_llama7b_q4_fused_decode_matmul_whole_module.py",
                           "04_mlc_redpajama3b_q4f32_0_dispatch_module.py"})
    if (const std::string p = tc_test::shared_path(std::string("fixtures/real/") + name); !p.empty()) parts.push_back(p);
  // Every part twice (the second copy's names differ), in two orders.
  std::vector<std::string> twice = parts;
  twice.insert(twice.end(), parts.rbegin(), parts.rend());
  ir::ParseOptions whole;
  whole.require_whole_module = false;  // the glued parts' prim_funcs are not all called
  const ir::Module m = ir::parse_tvmscript(concatenate(twice), "concatenated.py", whole);
  CHECK(m.prim_funcs.size() >= 20);
  check_same(m, "concatenated", log);
  // Its default thread count and cut-off give the serial result too.
  ExtractOptions o;
  o.threads = 1;
  const ExtractResult serial = extract_workloads(m, o);
  o.threads = 0;
  CHECK(report::extract_json(extract_workloads(m, o)) == report::extract_json(serial));
}

TEST_CASE("threaded extraction equals the serial one on mutated dumps") {
  // Mutations make prim_funcs fail their analysis (skipped with an InputError)
  // or the whole extraction fail: the same functions, messages and errors.
  LogToString log;
  std::mt19937 rng(11);
  const std::vector<std::string> swaps = {"0", "1", "n", "v_k", "T.int64(8)", "-", "*", "//", "+", "R", "S",
                                          "\"uint32\"", "T.uint32(7)", "x", ")", ","};
  const std::string text = concatenate({tc_test::fixture("extract/mini_llm_q4f16_1.py"),
                                        tc_test::fixture("extract/q8f16_1_gemv.py"),
                                        tc_test::fixture("extract/mini_llm_q4f16_1.py")});
  int accepted = 0;
  for (int it = 0; it < 60; ++it) {
    const std::string t = tc_test::mutate_words(text, 4, rng, swaps);
    ir::Module m;
    try {
      ir::ParseOptions whole;
      whole.require_whole_module = false;  // glued parts (see concatenate)
      m = ir::parse_tvmscript(t, "mutated.py", whole);
    } catch (const InputError&) {
      continue;
    }
    ++accepted;
    (void)log.take();
    INFO("mutation " << it);
    ExtractOptions o;
    const std::string serial = outcome(m, o, 1, log);
    CHECK(outcome(m, o, 3, log) == serial);
  }
  CHECK(accepted > 10);

}

TEST_CASE("threaded extraction: skipped functions and workers' debug lines in the serial order") {
  using namespace irb;
  LogToString log;
  ir::Module m;
  for (int i = 0; i < 40; ++i) {
    // Every 7th is a convolution whose window stride overflows (the function is
    // skipped with an OverflowError), every 5th is nested 600 loops deep (a debug
    // line from its analysis; the GEMM below the cut is not seen).
    ir::StmtPtr body = block("mm", "SSR", {"a:4", "b:4", "kk:8"},
                             i % 7 == 3 ? store("y[a, b]", "y[a, b] + x[a * 4611686018427387904 * 4 + kk] * W[kk, b]")
                                        : store("y[a, b]", "y[a, b] + x[a, kk] * W[kk, b]"));
    if (i % 5 == 1)
      for (int d = 0; d < 600; ++d) {
        auto loop = std::make_shared<ir::Stmt>();
        loop->kind = ir::StmtKind::kFor;
        loop->var = "l" + std::to_string(d);
        loop->extent = E("1");
        loop->body = body;
        body = loop;
      }
    m.prim_funcs.push_back(func("f" + std::to_string(i), {buffer("x", "float16", {"4", "8"}), buffer("W", "float16", {"8", "4"})},
                                {buffer("y", "float16", {"4", "4"})}, {body}));
  }
  const std::string serial = outcome(m, {}, 1, log);
  CHECK(serial.find("\nskipped: f3: ") != std::string::npos);
  CHECK(serial.find("f1: statement nesting deeper than 512") != std::string::npos);
  for (unsigned t : {2u, 3u, 8u}) CHECK(outcome(m, {}, t, log) == serial);
}

TEST_CASE("ordered_parallel: takes in order, replays logs, rethrows the first error") {
  LogToString log;
  for (unsigned threads : {1u, 2u, 4u}) {
    INFO("threads " << threads);
    std::vector<std::size_t> taken;
    std::string what;
    try {
      xtir::ordered_parallel<std::size_t>(
          threads, 40,
          [](std::size_t i) -> std::size_t {
            xtir::debug("work {}", i);
            if (i == 7 || i == 9 || i == 30) throw std::runtime_error("failed at " + std::to_string(i));
            return i * i;
          },
          [&](std::size_t i, std::size_t&& v) {
            CHECK(v == i * i);
            taken.push_back(i);
            xtir::debug("take {}", i);
          });
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    CHECK(what == "failed at 7");
    CHECK(taken == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6});
    std::string expected;
    for (int i = 0; i < 7; ++i) expected += "debug: work " + std::to_string(i) + "\ndebug: take " + std::to_string(i) + "\n";
    expected += "debug: work 7\n";
    CHECK(log.take() == expected);
  }
  // Without errors every result is taken, in order.
  std::vector<std::size_t> taken;
  xtir::ordered_parallel<int>(
      3, 1000, [](std::size_t) { return 1; }, [&](std::size_t i, int&&) { taken.push_back(i); });
  REQUIRE(taken.size() == 1000);
  for (std::size_t i = 0; i < taken.size(); ++i) CHECK(taken[i] == i);
  // The debug level off: nothing is formatted or kept.
  spdlog::set_level(spdlog::level::info);
  xtir::ordered_parallel<int>(
      2, 10, [](std::size_t i) { xtir::debug("work {}", i); return 0; }, [](std::size_t, int&&) {});
  CHECK(log.take().empty());
}

TEST_CASE("TC_EXTRACT_THREADS and the thread option") {
  CHECK(xtir::extract_threads(1) == 1);
  CHECK(xtir::extract_threads(3) == 3);
  CHECK(xtir::extract_threads(100) == parallel::kMaxThreads);
  const unsigned def = xtir::extract_threads(0);
  CHECK(def >= 1);
  CHECK(def <= parallel::kMaxThreads);
}
