// Issue 28, items 1-2: `sweep --out` modifies only a results file of the same grid (a header line with the grid's
// id comes first), refuses every other file untouched and any output that is also an input; a lock refuses a second
// sweep on the same file; duplicate lines of earlier versions are read once.
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sweep/sweep_support.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/sweep.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace sweep_test;

namespace {

// 12 points: well under a second.
const std::string kSmall =
    "--model qwen2-0.5b --seq-len 16,32 --context 64 --quant q0f16,w4a16-g128,w8a8-token-channel --dataflow os,ws";

tc_test::RunResult sweep_to(const std::string& out, const std::string& extra = "") {
  return tc_test::run_cli("sweep " + kSmall + " -q --out " + out + " " + extra);
}

// Runs `args` and checks it exits 2 naming `file` and `what`, with `file` byte for byte as it was.
void check_refused(const std::string& args, const std::string& file, const std::string& what) {
  const std::string before = slurp(file);
  const auto r = tc_test::run_cli(args);
  INFO(args);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(file) != std::string::npos);
  CHECK(r.err.find(what) != std::string::npos);
  CHECK(slurp(file) == before);
}

std::set<std::string> ids_of(const std::string& text) {
  std::set<std::string> ids;
  for (const auto& l : result_lines(text)) ids.insert(nlohmann::json::parse(l)["id"].get<std::string>());
  return ids;
}

}  // namespace

TEST_CASE("the grid id: the same set of points, whatever the order; the header is checked", "[sweep][results]") {
  sweep::Grid a, b, c;
  sweep::set_axis(a, sweep::AxisKind::kSeqLen, "", {"16", "32"});
  sweep::set_axis(a, sweep::AxisKind::kDataflow, "", {"os", "ws"});
  sweep::set_axis(b, sweep::AxisKind::kDataflow, "", {"ws", "os"});
  sweep::set_axis(b, sweep::AxisKind::kSeqLen, "", {"32", "016"});  // 016 is the point 16
  sweep::set_axis(b, sweep::AxisKind::kBatch, "", {"1"});           // the default, given
  CHECK(sweep::grid_id(a) == sweep::grid_id(b));
  c = a;
  sweep::set_axis(c, sweep::AxisKind::kSeqLen, "", {"16"});
  CHECK(sweep::grid_id(a) != sweep::grid_id(c));
  sweep::set_axis(c, sweep::AxisKind::kSet, "pe_array.rows", {"16"});
  CHECK(sweep::grid_id(c) != sweep::grid_id(a));
  // the header parses as one; an edited header (its grid no longer hashes to its id) is refused
  const std::string header = sweep::results_header(a);
  CHECK(header.find("\"grid_id\":\"" + sweep::grid_id(a) + "\"") != std::string::npos);
  const auto parsed = sweep::parse_results(header + "\n", "r.jsonl", false);
  CHECK(parsed.grid_id == sweep::grid_id(a));
  CHECK(parsed.lines.empty());
  std::string edited = header;
  edited.replace(edited.find("\"os\""), 4, "\"is\"");
  CHECK_THROWS_AS(sweep::parse_results(edited + "\n", "r.jsonl", false), InputError);
}

TEST_CASE("sweep --out refuses every file that is not a results file of the same grid, untouched", "[sweep][results]") {
  TempDir dir;
  spit(dir / "note.txt", "remember the milk\n");
  spit(dir / "one-line.txt", "no newline at the end");
  spit(dir / "two.txt", "a\nb\n");
  spit(dir / "object.json", "{\"a\": 1}\n");
  spit(dir / "newline", "\n");
  for (const char* f : {"note.txt", "one-line.txt", "two.txt", "object.json", "newline"})
    check_refused("sweep " + kSmall + " -q --out " + dir / f, dir / f, "not a tenet-cost sweep results file");
  // the results of another grid, with a header and without one (an earlier version): refused, not appended to
  REQUIRE(tc_test::run_cli("sweep --model qwen2-0.5b --seq-len 16 --context 64 -q --out " + dir / "other.jsonl")
              .exit_code == 0);
  check_refused("sweep " + kSmall + " -q --out " + dir / "other.jsonl", dir / "other.jsonl",
                "the results of another grid (");
  spit(dir / "old-other.jsonl", result_lines(slurp(dir / "other.jsonl")).front() + "\n");
  check_refused("sweep " + kSmall + " -q --out " + dir / "old-other.jsonl", dir / "old-other.jsonl",
                "is not a point of this grid");
  // an output that is also an input: the spec, a model file, --csv, -o
  spit(dir / "grid.json", R"({"model": ["qwen2-0.5b"], "seq_len": [16], "context": [64]})"
                          "\n");
  check_refused("sweep --spec " + dir / "grid.json" + " -q --out " + dir / "grid.json", dir / "grid.json",
                "--out names the same file as --spec");
  check_refused("sweep --spec " + dir / "grid.json" + " -q --out " + dir / "r.jsonl --csv " + dir / "grid.json",
                dir / "grid.json", "--csv names the same file as --spec");
  REQUIRE(sweep_to(dir / "r.jsonl").exit_code == 0);
  check_refused("sweep " + kSmall + " -q --out " + dir / "r.jsonl --csv " + dir / "r.jsonl", dir / "r.jsonl",
                "--out and --csv name the same file");
  check_refused("-o " + dir / "r.jsonl sweep " + kSmall + " -q --out " + dir / "r.jsonl", dir / "r.jsonl",
                "--out names the same file as -o");
  check_refused("sweep " + kSmall + " -q --out " + dir / "r.jsonl --csv " + dir / "note.txt", dir / "note.txt",
                "not a CSV view of sweep results");
  spit(dir / "config.json", slurp(std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json"));
  check_refused("sweep --model " + dir / "config.json --seq-len 16 --context 64 -q --out " + dir / "config.json",
                dir / "config.json", "--out names the same file as --model");
  // merge --out: a non-results file or another grid's results are not replaced
  check_refused("sweep merge " + dir / "r.jsonl --out " + dir / "note.txt", dir / "note.txt",
                "not a tenet-cost sweep results file");
  check_refused("sweep merge " + dir / "r.jsonl --out " + dir / "other.jsonl", dir / "other.jsonl",
                "the results of another grid");
  check_refused("sweep merge " + dir / "r.jsonl " + dir / "other.jsonl", dir / "other.jsonl",
                "results of another grid than");
}

TEST_CASE("sweep --out accepts a missing or empty file, a cut header and its own grid in any order",
          "[sweep][results]") {
  TempDir dir;
  REQUIRE(sweep_to(dir / "r.jsonl").exit_code == 0);
  const std::string full = slurp(dir / "r.jsonl");
  REQUIRE(result_lines(full).size() == 12);
  const std::string header = lines_of(full).front();
  // the same grid with the axes and values in another order: the same file, nothing evaluated again
  const auto again = tc_test::run_cli(
      "sweep --dataflow ws,os --quant w8a8-token-channel,w4a16-g128,q0f16 --seq-len "
      "32,16 --context 64 --model qwen2-0.5b --out " +
      dir / "r.jsonl");
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("12 finished before, 0 evaluated") != std::string::npos);
  CHECK(slurp(dir / "r.jsonl") == full);
  spit(dir / "empty.jsonl", "");
  REQUIRE(sweep_to(dir / "empty.jsonl").exit_code == 0);
  CHECK(sorted_lines(slurp(dir / "empty.jsonl")) == sorted_lines(full));
  spit(dir / "cut.jsonl", header.substr(0, header.size() / 2));  // a run stopped during its first write
  REQUIRE(sweep_to(dir / "cut.jsonl").exit_code == 0);
  CHECK(sorted_lines(slurp(dir / "cut.jsonl")) == sorted_lines(full));
  // stdout (no --out) is a results file too: it resumes
  const auto out = tc_test::run_cli("sweep " + kSmall + " -q");
  REQUIRE(out.exit_code == 0);
  CHECK(sorted_lines(out.out) == sorted_lines(full));
}

TEST_CASE("a second sweep on a locked results file is refused; concurrent sweeps never duplicate",
          "[sweep][results][lock]") {
  TempDir dir;
  REQUIRE(sweep_to(dir / "r.jsonl").exit_code == 0);
  const std::string full = slurp(dir / "r.jsonl");
  // a lock held here (as a running sweep holds it): refused, untouched
  const int fd = ::open((dir / "r.jsonl").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  check_refused("sweep " + kSmall + " -q --out " + dir / "r.jsonl", dir / "r.jsonl",
                "another tenet-cost sweep is writing to this results file");
  ::close(fd);
  CHECK(sweep_to(dir / "r.jsonl").exit_code == 0);
  // 4 sweeps started at once on a new file: each finishes or is refused; then a rerun completes it, no point twice
  const std::string cmd = std::string(TC_BINARY) + " sweep " + kSmall + " -q --jobs 1 --out " + dir / "c.jsonl";
  std::vector<pid_t> pids;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", ("exec " + cmd + " 2>/dev/null").c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  int finished = 0;
  for (const pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK((WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 2));
    finished += WEXITSTATUS(status) == 0 ? 1 : 0;
  }
  CHECK(finished >= 1);
  const auto lines = result_lines(slurp(dir / "c.jsonl"));
  CHECK(lines.size() == 12);
  CHECK(ids_of(slurp(dir / "c.jsonl")).size() == lines.size());
  CHECK(sorted_lines(slurp(dir / "c.jsonl")) == sorted_lines(full));
}

TEST_CASE("duplicate lines of earlier versions are read once, with a note; conflicting ones are refused",
          "[sweep][results]") {
  TempDir dir;
  REQUIRE(sweep_to(dir / "r.jsonl").exit_code == 0);
  const auto lines = result_lines(slurp(dir / "r.jsonl"));
  // an earlier version's file: no header, two runs wrote 5 points twice and stopped before the rest
  std::string old;
  for (int i = 0; i < 8; ++i) old += lines[static_cast<std::size_t>(i)] + "\n";
  for (int i = 0; i < 5; ++i) old += lines[static_cast<std::size_t>(i)] + "\n";
  spit(dir / "old.jsonl", old);
  const auto r = tc_test::run_cli("sweep " + kSmall + " --out " + dir / "old.jsonl --csv " + dir / "old.csv");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("written by an earlier tenet-cost (no header line)") != std::string::npos);
  CHECK(r.err.find("holds 5 duplicate line(s)") != std::string::npos);
  CHECK(r.err.find("8 finished before, 4 evaluated") != std::string::npos);
  CHECK(lines_of(slurp(dir / "old.csv")).size() == 13);  // the CSV header + each of the 12 points once
  CHECK(ids_of(slurp(dir / "old.jsonl")).size() == 12);
  const auto merged = tc_test::run_cli("sweep merge " + dir / "old.jsonl");
  REQUIRE(merged.exit_code == 0);
  CHECK(result_lines(merged.out).size() == 12);
  // the same id with another line (results of another version): refused, naming both lines
  std::string conflict = lines[0] + "\n" + lines[1] + "\n";
  std::string changed = lines[0];
  const auto digit = changed.find("\"dram_bytes\":") + 13;  // an integer: the line stays canonical
  changed[digit] = changed[digit] == '9' ? '8' : '9';
  spit(dir / "conflict.jsonl", conflict + changed + "\n" + lines[2] + "\n");
  check_refused("sweep " + kSmall + " -q --out " + dir / "conflict.jsonl", dir / "conflict.jsonl",
                ":3:1: point " + lines[0].substr(7, 16) + " has a different result on line 1");
}
