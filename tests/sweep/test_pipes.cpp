// Issue 28: `sweep merge` reading from pipes and FIFOs and writing to them (`--out /dev/stdout` into a pipe, `--out
// FIFO`, `-o FIFO`): each works or is refused at once with a clear message, never hangs or half-writes. Every run has a
// deadline (the child is killed and the case fails), so a regression fails here instead of hanging ctest. Before:
// `merge --out /dev/stdout | cat` and `merge --out FIFO` (with or without a reader) hung for ever, because the check
// that --out is a results file opened the target for reading (the pipe's read end; a FIFO waiting for a writer).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "sweep/sweep_support.hpp"
#include "test_support.hpp"

using namespace sweep_test;

namespace {

struct Run {
  int exit_code = -1;  // -1: killed at the deadline (a hang)
  std::string out, err;
};

// Runs tenet-cost with `args` (no shell), its stdin a pipe fed with `input` (closed at once when empty) and its
// stdout and stderr pipes read here, for at most `seconds`.
Run run_piped(const std::vector<std::string>& args, const std::string& input = "", int seconds = 60) {
  int in[2], out[2], err[2];
  REQUIRE(::pipe(in) == 0);
  REQUIRE(::pipe(out) == 0);
  REQUIRE(::pipe(err) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    std::vector<char*> argv{const_cast<char*>(TC_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(TC_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  auto feeder = std::async(std::launch::async, [fd = in[1], input] {
    std::size_t off = 0;
    while (off < input.size()) {
      const ssize_t n = ::write(fd, input.data() + off, input.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    ::close(fd);
  });
  Run r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  feeder.wait();
  if (!killed && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

// A reader of a FIFO, registered before it returns (so a writer that refuses a FIFO without a reader sees it), that
// reads to the end in the background: poll() waits for the first writer and then for its data or its close.
std::future<std::string> read_fifo(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return std::async(std::launch::async, [fd] {
    std::string got;
    pollfd p{fd, POLLIN, 0};
    for (;;) {
      if (::poll(&p, 1, 60'000) <= 0) break;  // a minute without a writer: the case fails on what was read
      char buf[65536];
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) got.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EAGAIN) break;  // the writer closed it
    }
    ::close(fd);
    return got;
  });
}

}  // namespace

TEST_CASE("sweep merge: inputs from a pipe or a FIFO, output into a pipe or a FIFO", "[sweep][pipes]") {
  TempDir dir;
  const std::string grid = "--model qwen2-0.5b --seq-len 16,32 --context 64 --quant q0f16,w4a16-g128 --dataflow os,ws";
  for (const char* shard : {"0/2", "1/2"}) {
    const std::string name = dir / (std::string("s") + shard[0] + ".jsonl");
    REQUIRE(tc_test::run_cli("sweep " + grid + " -q --jobs 1 --shard " + shard + " --out " + name).exit_code == 0);
  }
  const std::string s0 = dir / "s0.jsonl", s1 = dir / "s1.jsonl";
  const auto ref = tc_test::run_cli("sweep merge " + s0 + " " + s1);
  REQUIRE(ref.exit_code == 0);
  REQUIRE(result_lines(ref.out).size() == 8);
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);

  SECTION("a pipe as an input (/dev/stdin), the output into a pipe (--out /dev/stdout)") {
    const Run r = run_piped({"sweep", "merge", "/dev/stdin", s1, "--out", "/dev/stdout"}, slurp(s0));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == ref.out);
  }
  SECTION("stdout into a pipe (no --out), the CSV view likewise") {
    const Run r = run_piped({"sweep", "merge", s0, s1});
    CHECK(r.exit_code == 0);
    CHECK(r.out == ref.out);
    const Run csv = run_piped({"sweep", "merge", s0, s1, "--out", "/dev/stdout", "--format", "csv"});
    CHECK(csv.exit_code == 0);
    CHECK(lines_of(csv.out).size() == 9);  // the CSV header and the 8 points
    CHECK(csv.out.rfind("id,point.", 0) == 0);
  }
  SECTION("--out FIFO and -o FIFO with a reader: the whole file through the FIFO, which stays a FIFO") {
    auto got = read_fifo(fifo);
    const Run r = run_piped({"sweep", "merge", s0, s1, "--out", fifo});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(got.get() == ref.out);
    auto got2 = read_fifo(fifo);
    const Run o = run_piped({"-o", fifo, "sweep", "merge", s0, s1});
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(got2.get() == ref.out);
    struct stat st {};
    REQUIRE(::stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
  }
  SECTION("--out FIFO or -o FIFO without a reader: refused at once, nothing half-written") {
    for (const auto& args : {std::vector<std::string>{"sweep", "merge", s0, s1, "--out", fifo},
                             std::vector<std::string>{"-o", fifo, "sweep", "merge", s0, s1}}) {
      const Run r = run_piped(args);
      INFO(r.err);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find(fifo + ": is a FIFO with no reader") != std::string::npos);
      CHECK(r.out.empty());
    }
  }
  SECTION("a FIFO as an input: read when its writer runs, refused at once without one") {
    // the FIFO filled before the merge starts (a reader held while the writer opens), closed once the merge has read
    // it all (FIONREAD 0): no timing guess
    const std::string text = slurp(s0);
    REQUIRE(text.size() < 65536);  // fits the pipe's buffer
    const int keep = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    REQUIRE(keep >= 0);
    const int w = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(w >= 0);
    REQUIRE(::write(w, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(keep);
    auto merge = std::async(std::launch::async, [&] { return run_piped({"sweep", "merge", fifo, s1}); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int left = 1; left > 0 && std::chrono::steady_clock::now() < deadline;) {
      REQUIRE(::ioctl(w, FIONREAD, &left) == 0);
      if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::close(w);
    const Run r = merge.get();
    CHECK(r.exit_code == 0);
    CHECK(r.out == ref.out);
    const Run none = run_piped({"sweep", "merge", fifo, s1, "--out", dir / "m.jsonl"});
    INFO(none.err);
    CHECK(none.exit_code == 2);
    CHECK(none.err.find("the pipe gave no data") != std::string::npos);
    CHECK(!fs::exists(dir / "m.jsonl"));
  }
  SECTION("a sweep's own --out is a results file: a FIFO or /dev/stdout is refused, not written") {
    for (const std::string& target : {fifo, std::string("/dev/stdout")}) {
      const Run r = run_piped({"sweep", "--model", "qwen2-0.5b", "--seq-len", "16", "--context", "64", "--quant",
                               "q0f16", "-q", "--out", target});
      INFO(target << ": " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find("not a regular file") != std::string::npos);
      CHECK(r.out.empty());
    }
  }
}
