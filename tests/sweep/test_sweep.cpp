// tenet-cost sweep (src/sweep, src/cli/cmd_sweep.cpp): the grid, shards, results files, resume after kill -9,
// merge. Oracles: the unsharded run (shards, threads, resumes must reproduce it byte for byte after sorting).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/sweep.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace sweep_test;
namespace fs = std::filesystem;

namespace {

// A small grid (48 points, closed-form dataflows, qwen2-0.5b at short lengths): well under a second.
const std::string kGrid =
    "--model qwen2-0.5b --seq-len 16,32 --context 64 --quant q0f16,w4a16-g128,w8a8-token-channel "
    "--dataflow os,ws --set pe_array.rows=16,32 --set dram.mb_per_s=17064,34128";

std::string sweep_cmd(const std::string& extra) { return "sweep " + kGrid + " -q " + extra; }
// With the summary on stderr.
std::string sweep_loud(const std::string& extra) { return "sweep " + kGrid + " " + extra; }

}  // namespace

TEST_CASE("split_list, parse_shard, the environment's shard", "[sweep]") {
  CHECK(sweep::split_list("a,b,c", "x") == std::vector<std::string>{"a", "b", "c"});
  CHECK(sweep::split_list("{\"rows\":8,\"cols\":8},[1,2],\"a,b\"", "x") ==
        std::vector<std::string>{"{\"rows\":8,\"cols\":8}", "[1,2]", "\"a,b\""});
  CHECK_THROWS_AS(sweep::split_list("a,,b", "x"), InputError);
  CHECK_THROWS_AS(sweep::split_list("", "x"), InputError);
  CHECK(sweep::parse_shard("0/4").index == 0);
  CHECK(sweep::parse_shard("3/4").count == 4);
  for (const char* bad : {"4/4", "-1/4", "1", "1/0", "a/b", "1/4x", "/4"})
    CHECK_THROWS_AS(sweep::parse_shard(bad), InputError);

  std::map<std::string, std::string> env;
  auto get = [&](const char* n) -> const char* {
    const auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  CHECK_FALSE(sweep::shard_from_env(get, std::nullopt).has_value());
  env = {{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "5"}, {"SLURM_ARRAY_TASK_COUNT", "3"}};
  std::string source;
  auto s = sweep::shard_from_env(get, std::nullopt, &source);
  REQUIRE(s.has_value());
  CHECK(s->index == 2);
  CHECK(s->count == 3);
  CHECK(source == "SLURM_ARRAY_TASK_ID");
  env = {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "3"}};
  CHECK_THROWS_AS(sweep::shard_from_env(get, std::nullopt), InputError);
  env = {{"JOB_COMPLETION_INDEX", "1"}};
  CHECK_THROWS_AS(sweep::shard_from_env(get, std::nullopt), InputError);  // needs --shards N
  s = sweep::shard_from_env(get, 4, &source);
  REQUIRE(s.has_value());
  CHECK(s->index == 1);
  CHECK(source == "JOB_COMPLETION_INDEX");
}

TEST_CASE("every id is in exactly one shard", "[sweep]") {
  std::mt19937_64 rng(15);
  for (int n = 1; n <= 7; ++n)
    for (int i = 0; i < 200; ++i) {
      char id[17];
      std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(rng()));
      int hits = 0;
      for (int k = 0; k < n; ++k) hits += sweep::in_shard(id, sweep::Shard{k, n}) ? 1 : 0;
      CHECK(hits == 1);
    }
}

TEST_CASE("the grid: spec files, defaults, point counts, errors", "[sweep]") {
  const auto g = sweep::parse_spec(
      R"({"model": ["qwen2-0.5b"], "set": {"pe_array.rows": [16, 32], "dram.mb_per_s": 51200},
          "dataflow": ["os", "ws", "is"], "seq_len": [16, 32], "context": 64})",
      "spec.json");
  const auto n = sweep::normalized(g);
  CHECK(sweep::point_count(n) == 2 * 1 * 3 * 2 * 1);
  // canonical order: the axis table's order, --set axes by path; the optional axes (no default) are left out
  const auto optional = std::count_if(sweep::axis_defs().begin(), sweep::axis_defs().end(),
                                      [](const sweep::AxisDef& d) { return d.default_value == nullptr; });
  CHECK(optional == 4);  // tp, pp, ep, gen_len
  REQUIRE(n.axes.size() == sweep::axis_defs().size() - static_cast<std::size_t>(optional) + 1);
  CHECK(n.axes[0].kind == sweep::AxisKind::kArch);
  CHECK(n.axes[1].path == "dram.mb_per_s");
  CHECK(n.axes[2].path == "pe_array.rows");
  try {
    sweep::parse_spec("{\n  \"modle\": [\"x\"]\n}", "spec.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("spec.json:2:3: unknown key 'modle'", 0) == 0);
  }
  CHECK_THROWS_AS(sweep::parse_spec(R"({"set": [1]})", "s.json"), InputError);
  CHECK_THROWS_AS(sweep::parse_spec(R"({"model": []})", "s.json"), InputError);
  sweep::Grid bad;
  sweep::set_axis(bad, sweep::AxisKind::kSeqLen, "", {"16", "x"});
  CHECK_THROWS_AS(sweep::normalized(bad), InputError);
  sweep::set_axis(bad, sweep::AxisKind::kSeqLen, "", {"16", "16"});
  CHECK_THROWS_AS(sweep::normalized(bad), InputError);
}

TEST_CASE("results files: validation, the corrupt tail, merge", "[sweep]") {
  TempDir dir;
  const auto r = tc_test::run_cli(sweep_cmd("--out " + dir / "all.jsonl"));
  REQUIRE(r.exit_code == 0);
  const std::string all = slurp(dir / "all.jsonl");
  REQUIRE(lines_of(all).front().rfind("{\"format\":\"tenet-cost-sweep-results\",\"grid\":{", 0) == 0);
  const auto lines = result_lines(all);
  REQUIRE(lines.size() == 48);
  std::set<std::string> ids;
  for (const auto& l : lines) ids.insert(l.substr(7, 16));
  CHECK(ids.size() == 48);
  const auto parsed = sweep::parse_results(all, "all.jsonl", false);
  CHECK(parsed.lines.size() == 48);
  CHECK_FALSE(parsed.corrupt_tail);
  CHECK(parsed.header == lines_of(all).front());
  CHECK(parsed.grid_id.size() == 16);
  // a cut last line: allowed as a corrupt tail on resume only
  const std::string cut = all.substr(0, all.size() - 40);
  CHECK_THROWS_AS(sweep::parse_results(cut, "cut.jsonl", false), InputError);
  const auto tail = sweep::parse_results(cut, "cut.jsonl", true);
  CHECK(tail.corrupt_tail);
  CHECK(tail.tail_line == 49);
  CHECK(tail.lines.size() == 47);
  // an edited line (its id no longer the hash of its point) in the middle is an error even on resume
  std::string edited = all;
  edited.replace(edited.find("\"seq_len\":16"), 12, "\"seq_len\":17");
  CHECK_THROWS_AS(sweep::parse_results(edited, "e.jsonl", true), InputError);
  // merge: overlapping files de-duplicate; a conflicting line for one id is refused
  spit(dir / "a.jsonl", lines[0] + "\n" + lines[1] + "\n");
  spit(dir / "b.jsonl", lines[1] + "\n" + lines[2] + "\n");
  const auto merged = tc_test::run_cli("sweep merge " + dir / "a.jsonl" + " " + dir / "b.jsonl");
  REQUIRE(merged.exit_code == 0);
  CHECK(sorted_lines(merged.out) ==
        std::vector<std::string>(sorted_lines(lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n")));
  spit(dir / "bad.jsonl", lines[0] + "\n{\"id\":1}\n");
  const auto bad = tc_test::run_cli("sweep merge " + dir / "a.jsonl" + " " + dir / "bad.jsonl");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.jsonl:2:1: expected a sweep result line") != std::string::npos);
  const auto csv = tc_test::run_cli("sweep merge " + dir / "all.jsonl" + " --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(lines_of(csv.out).size() == 49);
  CHECK(csv.out.rfind("id,point.arch,", 0) == 0);
}

TEST_CASE("merge streams from the files: the output is the in-memory oracle's, byte for byte", "[sweep][merge]") {
  // merge keeps 32 bytes a line and reads the lines back from the files (docs/sweep.md "Speed and memory"); the
  // oracle holds them: the header, then every distinct line once, sorted by id
  TempDir dir;
  REQUIRE(tc_test::run_cli(sweep_cmd("--out " + dir / "all.jsonl")).exit_code == 0);
  const std::string all = slurp(dir / "all.jsonl");
  const std::string header = lines_of(all).front();
  auto lines = result_lines(all);
  std::map<std::string, std::string> by_id;
  for (const auto& l : lines) by_id[l.substr(7, 16)] = l;
  std::string oracle = header + "\n";
  std::vector<sweep::ResultLine> sorted;
  for (const auto& [id, l] : by_id) {
    oracle += l + "\n";
    sorted.push_back({id, l});
  }
  // three shards in shuffled order, overlapping, one with a line twice and one without a header
  std::mt19937 rng(7);
  std::shuffle(lines.begin(), lines.end(), rng);
  std::string s0 = header + "\n", s1 = header + "\n", s2;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    (i % 3 == 0 ? s0 : i % 3 == 1 ? s1 : s2) += lines[i] + "\n";
    if (i % 5 == 0) s1 += lines[i] + "\n";  // also in shard 1 (an overlap, or a line twice in it)
  }
  spit(dir / "s0.jsonl", s0);
  spit(dir / "s1.jsonl", s1);
  spit(dir / "s2.jsonl", s2);
  const std::string files = " " + dir / "s0.jsonl" + " " + dir / "s1.jsonl" + " " + dir / "s2.jsonl";
  const auto out = tc_test::run_cli("sweep merge" + files);
  REQUIRE(out.exit_code == 0);
  CHECK(out.out == oracle);
  REQUIRE(tc_test::run_cli("sweep merge" + files + " --out " + dir / "m.jsonl").exit_code == 0);
  CHECK(slurp(dir / "m.jsonl") == oracle);
  const auto csv = tc_test::run_cli("sweep merge" + files + " --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out == sweep::results_csv(sorted));
  // a file given twice (here once as /dev/stdin): its lines once
  const auto twice = tc_test::run_cli("sweep merge" + files + " /dev/stdin < " + dir / "s0.jsonl");
  REQUIRE(twice.exit_code == 0);
  CHECK(twice.out == oracle);
  // the same id with another line in one file: refused at the second line, naming the first
  std::string changed = lines[0];
  const auto digit = changed.find("\"dram_bytes\":") + 13;  // an integer: the line stays canonical
  changed[digit] = changed[digit] == '9' ? '8' : '9';
  spit(dir / "c.jsonl", header + "\n" + lines[0] + "\n" + lines[1] + "\n" + changed + "\n");
  const auto bad = tc_test::run_cli("sweep merge " + dir / "c.jsonl");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("c.jsonl:4:1: point " + lines[0].substr(7, 16) + " has a different result on line 2") !=
        std::string::npos);
}

TEST_CASE("shards and thread counts reproduce the unsharded run", "[sweep]") {
  TempDir dir;
  const auto whole = tc_test::run_cli(sweep_cmd("--jobs 1"));
  REQUIRE(whole.exit_code == 0);
  const auto expected = sorted_lines(whole.out);
  REQUIRE(expected.size() == 49);  // the header and 48 points
  CHECK(sorted_lines(tc_test::run_cli(sweep_cmd("--jobs 2")).out) == expected);
  // more threads than chunks of two points: the shares are split and taken over (src/sweep/shares.hpp)
  CHECK(sorted_lines(tc_test::run_cli(sweep_cmd("--jobs 5")).out) == expected);
  CHECK(sorted_lines(tc_test::run_cli(sweep_cmd("--jobs 8")).out) == expected);
  // 4 shards into files, merged
  std::string files;
  std::size_t total = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string f = dir / ("shard" + std::to_string(i) + ".jsonl");
    REQUIRE(tc_test::run_cli(sweep_cmd("--shard " + std::to_string(i) + "/4 --out " + f)).exit_code == 0);
    total += result_lines(slurp(f)).size();
    files += " " + f;
  }
  CHECK(total == 48);
  CHECK(sorted_lines(tc_test::run_cli("sweep merge" + files).out) == expected);
  // the shard from the environment: a Slurm array task, a Kubernetes Indexed Job's pod
  setenv("SLURM_ARRAY_TASK_ID", "2", 1);
  setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
  const auto slurm = tc_test::run_cli(sweep_loud("--out " + dir / "slurm.jsonl"));
  unsetenv("SLURM_ARRAY_TASK_ID");
  unsetenv("SLURM_ARRAY_TASK_COUNT");
  REQUIRE(slurm.exit_code == 0);
  CHECK(slurm.err.find("in shard 2/4 (SLURM_ARRAY_TASK_ID)") != std::string::npos);
  CHECK(sorted_lines(slurp(dir / "slurm.jsonl")) == sorted_lines(slurp(dir / "shard2.jsonl")));
  setenv("JOB_COMPLETION_INDEX", "1", 1);
  const auto k8s = tc_test::run_cli(sweep_cmd("--shards 4 --out " + dir / "k8s.jsonl"));
  const auto k8s_no_count = tc_test::run_cli(sweep_cmd(""));
  unsetenv("JOB_COMPLETION_INDEX");
  REQUIRE(k8s.exit_code == 0);
  CHECK(sorted_lines(slurp(dir / "k8s.jsonl")) == sorted_lines(slurp(dir / "shard1.jsonl")));
  CHECK(k8s_no_count.exit_code == 2);
}

TEST_CASE("GNU parallel: 4 shards in parallel, merged = unsharded", "[sweep][parallel]") {
  if (std::system("command -v parallel >/dev/null 2>&1") != 0) {
    WARN("GNU parallel is not installed (scripts/install-deps.sh): skipped");
    return;
  }
  TempDir dir;
  const auto whole = tc_test::run_cli(sweep_cmd(""));
  REQUIRE(whole.exit_code == 0);
  const std::string cmd = "parallel --will-cite -j 4 " + std::string(TC_BINARY) + " " + sweep_cmd("--jobs 1") +
                          " --shard {}/4 --out " + dir / "p{}.jsonl" + " ::: 0 1 2 3";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto merged = tc_test::run_cli("sweep merge " + dir / "p0.jsonl" + " " + dir / "p1.jsonl" + " " +
                                       dir / "p2.jsonl" + " " + dir / "p3.jsonl");
  REQUIRE(merged.exit_code == 0);
  CHECK(sorted_lines(merged.out) == sorted_lines(whole.out));
}

TEST_CASE("resume: a kill -9 at random points, then a rerun = the complete set, no duplicates", "[sweep][resume]") {
  TempDir dir;
  const auto whole = tc_test::run_cli(sweep_cmd(""));
  REQUIRE(whole.exit_code == 0);
  const auto expected = sorted_lines(whole.out);
  std::mt19937 rng(42);
  for (int round = 0; round < 4; ++round) {
    const std::string out = dir / ("k" + std::to_string(round) + ".jsonl");
    // start, kill -9 after a random delay (possibly before it wrote anything, possibly after it finished)
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const std::string cmd = std::string(TC_BINARY) + " " + sweep_cmd("--jobs 2 --out " + out);
      execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    usleep(std::uniform_int_distribution<useconds_t>(0, 150000)(rng));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    const auto partial = lines_of(slurp(out));
    CHECK(partial.size() <= 49);
    const auto rerun = tc_test::run_cli(sweep_cmd("--out " + out));
    REQUIRE(rerun.exit_code == 0);
    CHECK(sorted_lines(slurp(out)) == expected);
  }
  // a power cut: the last line half written -> detected, dropped and redone
  const std::string out = dir / "cut.jsonl";
  const std::string all = [&] {
    std::string s;
    for (const auto& l : expected) s += l + "\n";
    return s;
  }();
  const auto ls = lines_of(all);
  spit(out, all.substr(0, all.size() - ls.back().size() / 2 - 1));
  auto rerun = tc_test::run_cli(sweep_loud("--out " + out));
  REQUIRE(rerun.exit_code == 0);
  CHECK(rerun.err.find("line 49 was partial or corrupt") != std::string::npos);
  CHECK(rerun.err.find("47 finished before, 1 evaluated") != std::string::npos);
  CHECK(sorted_lines(slurp(out)) == expected);
  // garbage in the middle is not guessed at: refused, the file untouched
  spit(out, ls[0] + "\nnot json\n" + ls[1] + "\n");
  rerun = tc_test::run_cli(sweep_cmd("--out " + out));
  CHECK(rerun.exit_code == 2);
  CHECK(rerun.err.find(":2:1: expected a sweep result line") != std::string::npos);
  CHECK(lines_of(slurp(out)).size() == 3);
}

TEST_CASE("sweep errors: bad axes exit 2 naming the value", "[sweep]") {
  auto r = tc_test::run_cli("sweep --model qwen2-0.5b --seq-len 16 --context 32 --set pe_array.rowz=16,32 -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--set pe_array.rowz=16") != std::string::npos);
  r = tc_test::run_cli("sweep --model qwen2-0.5b --seq-len 16 --context 32 --set pe_array.rows=16,abc -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--set pe_array.rows=abc") != std::string::npos);
  r = tc_test::run_cli("sweep --model no-such-model --seq-len 16 -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--model no-such-model") != std::string::npos);
  r = tc_test::run_cli("sweep --model qwen2-0.5b --seq-len 16,0 -q");
  CHECK(r.exit_code == 2);
  r = tc_test::run_cli("sweep --model qwen2-0.5b --dataflow os,xyz -q");
  CHECK(r.exit_code == 2);
  r = tc_test::run_cli("sweep --model qwen2-0.5b --quant q0f16,nope -q");
  CHECK(r.exit_code == 2);
  r = tc_test::run_cli("sweep --model qwen2-0.5b --shard 4/4 -q");
  CHECK(r.exit_code == 2);
  // lengths and batches beyond tenet-cost's limits: refused before any point runs, not one error record each
  r = tc_test::run_cli("sweep --model qwen2-0.5b --seq-len 16,1000000000000 -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--seq-len 1000000000000: expected 1 .. 16777216") != std::string::npos);
  CHECK(r.out.empty());
  r = tc_test::run_cli("sweep --model qwen2-0.5b --context 16777217 -q");
  CHECK(r.exit_code == 2);
  r = tc_test::run_cli("sweep --model qwen2-0.5b --batch 65537 -q");
  CHECK(r.exit_code == 2);
}

TEST_CASE("CSV views: --format csv on stdout equals --csv of the results file", "[sweep]") {
  TempDir dir;
  const auto stdout_csv = tc_test::run_cli(sweep_cmd("--format csv"));
  REQUIRE(stdout_csv.exit_code == 0);
  const auto file = tc_test::run_cli(sweep_cmd("--out " + dir / "r.jsonl" + " --csv " + dir / "r.csv"));
  REQUIRE(file.exit_code == 0);
  const auto csv = slurp(dir / "r.csv");
  CHECK(lines_of(csv).size() == 49);
  CHECK(lines_of(csv).front() == lines_of(stdout_csv.out).front());
  CHECK(sorted_lines(csv) == sorted_lines(stdout_csv.out));
  CHECK(csv.find("result.decode.tokens_per_s") != std::string::npos);
  CHECK(csv.find("result.prefill.energy_by_term_j.dram") != std::string::npos);  // the energy split, per term
}

TEST_CASE("the batch and objective axes give what compare gives with the same flags", "[sweep]") {
  const std::string common = " --seq-len 16 --context 32 --quant q4f16_1";
  const auto r = tc_test::run_cli("sweep --model qwen2-0.5b" + common + " --batch 1,4 --objective latency,dram -q");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto lines = result_lines(r.out);
  REQUIRE(lines.size() == 4);
  int matched = 0;
  for (const auto& l : lines) {
    const auto j = nlohmann::json::parse(l);
    const std::int64_t batch = j["point"]["batch"].get<std::int64_t>();
    const std::string objective = j["point"]["objective"].get<std::string>();
    const std::string w = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/";
    const auto c =
        tc_test::run_cli("compare " + w + "q0f16.py --hf-config " + w + "config.json" + common + " --batch " +
                         std::to_string(batch) + " --objective " + objective + " --format json");
    INFO(c.err);
    REQUIRE(c.exit_code == 0);
    const auto cj = nlohmann::json::parse(c.out);
    const auto& row = cj["rows"].back();
    CHECK(row["decode"]["latency_s"] == j["result"]["decode"]["latency_s"]);
    CHECK(row["prefill"]["dram_bytes"] == j["result"]["prefill"]["dram_bytes"]);
    for (const char* phase : {"prefill", "decode"}) {  // the energy split: compare's, term by term
      INFO(phase);
      const auto& terms = j["result"][phase]["energy_by_term_j"];
      CHECK(terms == row[phase]["energy_by_term_j"]);
      double sum = 0;
      for (const auto& [name, joules] : terms.items()) sum += joules.get<double>();
      CHECK(sum == Approx(j["result"][phase]["energy_j"].get<double>()).epsilon(1e-9));
    }
    ++matched;
  }
  CHECK(matched == 4);
  const auto bad = tc_test::run_cli("sweep --model qwen2-0.5b" + common + " --objective fastest -q");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("fastest") != std::string::npos);
}
