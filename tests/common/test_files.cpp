// Issue 14, items 1 and 5: `-o` never harms what the path names, and every input
// file goes through one reader that never blocks and always says why it failed.
// Special files are created in a temporary directory (never the real /dev).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>

#include "common/output_testing.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace tenet_cost;

namespace {

// A fresh directory under /tmp, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tc_files_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
    ::chmod(path.c_str(), 0755);  // other users (the unprivileged runs) may traverse it
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  [[nodiscard]] std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool is_root() { return ::geteuid() == 0; }

// `setpriv` to the unprivileged user nobody, or "" when that is not possible here.
std::string as_nobody() {
  if (!is_root() || std::system("command -v setpriv >/dev/null 2>&1") != 0) return "";
  if (std::system("setpriv --reuid=65534 --regid=65534 --clear-groups true >/dev/null 2>&1") != 0) return "";
  return "setpriv --reuid=65534 --regid=65534 --clear-groups ";
}

// Runs the CLI binary through `prefix` (e.g. as_nobody()); stdout/stderr captured.
tc_test::RunResult run_as(const std::string& prefix, const std::string& args, const TempDir& dir) {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = prefix + TC_BINARY + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  tc_test::RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace

TEST_CASE("write_output: a new file honours the umask, an existing file keeps its mode", "[output]") {
  TempDir d;
  const mode_t old = ::umask(027);
  write_output(d / "new.txt", "a\n");
  CHECK((mode_of(d / "new.txt") & 07777) == 0640);
  ::umask(022);
  write_output(d / "new2.txt", "a\n");
  CHECK((mode_of(d / "new2.txt") & 07777) == 0644);
  put(d / "kept.txt", "old\n");
  ::chmod((d / "kept.txt").c_str(), 0664);
  write_output(d / "kept.txt", "new\n");
  CHECK((mode_of(d / "kept.txt") & 07777) == 0664);
  CHECK(read_file(d / "kept.txt") == "new\n");
  ::umask(old);
  // No temporary file is left behind.
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(d.path))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  CHECK(n == 0);
}

TEST_CASE("write_output: a symlink is followed, its target replaced", "[output]") {
  TempDir d;
  put(d / "target.txt", "old\n");
  ::chmod((d / "target.txt").c_str(), 0604);
  fs::create_symlink("target.txt", d / "link.txt");
  write_output(d / "link.txt", "new\n");
  CHECK(S_ISLNK(mode_of(d / "link.txt")));
  CHECK(read_file(d / "target.txt") == "new\n");
  CHECK((mode_of(d / "target.txt") & 07777) == 0604);
  // Two links deep, relative and absolute, into a subdirectory.
  fs::create_directory(d.path / "sub");
  put(d / "sub/real.txt", "x");
  fs::create_symlink(d / "sub/real.txt", d / "sub/abs");
  fs::create_symlink("sub/abs", d / "rel");
  write_output(d / "rel", "deep\n");
  CHECK(S_ISLNK(mode_of(d / "rel")));
  CHECK(S_ISLNK(mode_of(d / "sub/abs")));
  CHECK(read_file(d / "sub/real.txt") == "deep\n");
  // A dangling link creates its target.
  fs::create_symlink("created.txt", d / "dangling");
  write_output(d / "dangling", "made\n");
  CHECK(S_ISLNK(mode_of(d / "dangling")));
  CHECK(read_file(d / "created.txt") == "made\n");
  // A loop is an error, not a hang.
  fs::create_symlink("loop2", d / "loop1");
  fs::create_symlink("loop1", d / "loop2");
  CHECK(error_of([&] { write_output(d / "loop1", "x"); }).find("Too many levels of symbolic links") !=
        std::string::npos);
}

TEST_CASE("write_output: hard links keep sharing the new contents", "[output]") {
  TempDir d;
  put(d / "a.txt", "old\n");
  REQUIRE(::link((d / "a.txt").c_str(), (d / "b.txt").c_str()) == 0);
  write_output(d / "a.txt", "new\n");
  CHECK(read_file(d / "b.txt") == "new\n");
}

TEST_CASE("write_output: a hard-linked file that cannot take the new contents keeps its old ones", "[output]") {
  // a file-size limit stands in for a full disk (the same reservation fails): the new contents are refused before
  // a byte of the old is touched, every link still reads the old contents, no temporary file is left
  TempDir d;
  const std::string old = "old contents\n";
  put(d / "hl.txt", old);
  REQUIRE(::link((d / "hl.txt").c_str(), (d / "hl2.txt").c_str()) == 0);
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto saved_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const std::string err = error_of([&] { write_output(d / "hl.txt", std::string(100000, 'x')); });
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  CHECK(err.find("cannot reserve 100000 bytes") != std::string::npos);
  CHECK(err.find("left as it was") != std::string::npos);
  CHECK(read_file(d / "hl.txt") == old);
  CHECK(read_file(d / "hl2.txt") == old);
  CHECK(fs::file_size(d / "hl.txt") == old.size());
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d.path)) ++files;
  CHECK(files == 2);
  // within the limit it is written, both links see it, and a shorter content cuts the file
  write_output(d / "hl.txt", "new\n");
  CHECK(read_file(d / "hl2.txt") == "new\n");
}

namespace {

// A write(2) that fails with EIO once kFailAfter bytes went through: an I/O error after the space was reserved.
constexpr std::size_t kFailAfter = 5000;
std::size_t g_written = 0;
ssize_t failing_write(int fd, const void* buf, std::size_t n) {
  if (g_written >= kFailAfter) {
    errno = EIO;
    return -1;
  }
  const ssize_t k = ::write(fd, buf, std::min(n, kFailAfter - g_written));
  if (k > 0) g_written += static_cast<std::size_t>(k);
  return k;
}

}  // namespace

TEST_CASE("write_output: a hard-linked file whose write fails midway gets its old contents back", "[output]") {
  TempDir d;
  const std::string old = std::string(3000, 'o') + "\n";
  put(d / "hl.txt", old);
  REQUIRE(::link((d / "hl.txt").c_str(), (d / "hl2.txt").c_str()) == 0);
  g_written = 0;
  const auto real = testing::set_write_function(&failing_write);
  const std::string err = error_of([&] { write_output(d / "hl.txt", std::string(20000, 'x')); });
  testing::set_write_function(real);
  CHECK(g_written == kFailAfter);  // 5000 bytes of the new contents were written over the old
  CHECK(err.find("write failed: Input/output error") != std::string::npos);
  CHECK(err.find("the old contents were put back") != std::string::npos);
  CHECK(read_file(d / "hl.txt") == old);
  CHECK(read_file(d / "hl2.txt") == old);
  struct stat st {};
  REQUIRE(::stat((d / "hl.txt").c_str(), &st) == 0);
  CHECK(st.st_nlink == 2);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d.path)) ++files;
  CHECK(files == 2);
}

TEST_CASE("write_output: a hard-linked file on a full tmpfs keeps its old contents (root: mount)", "[output]") {
  TempDir d;
  const std::string mnt = d / "small";
  fs::create_directory(mnt);
  if (!is_root() || std::system(("mount -t tmpfs -o size=8k tmpfs " + mnt + " 2>/dev/null").c_str()) != 0) {
    WARN("cannot mount a tmpfs here (not root, or no mount permission): skipped");
    return;
  }
  const std::string old = "old contents\n";
  put(mnt + "/hl.txt", old);
  REQUIRE(::link((mnt + "/hl.txt").c_str(), (mnt + "/hl2.txt").c_str()) == 0);
  // 8 KiB of space, one page used: 20,000 bytes cannot fit, 4,000 can
  const std::string err = error_of([&] { write_output(mnt + "/hl.txt", std::string(20000, 'x')); });
  const std::string after = read_file(mnt + "/hl.txt"), after2 = read_file(mnt + "/hl2.txt");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(mnt)) ++files;
  write_output(mnt + "/hl.txt", std::string(4000, 'y'));
  const std::string fits = read_file(mnt + "/hl2.txt");
  CHECK(std::system(("umount " + mnt).c_str()) == 0);
  CHECK(err.find("No space left on device") != std::string::npos);
  CHECK(err.find("left as it was") != std::string::npos);
  CHECK(after == old);
  CHECK(after2 == old);
  CHECK(files == 2);
  CHECK(fits == std::string(4000, 'y'));
}

TEST_CASE("write_output: a file name of NAME_MAX bytes is written atomically (its temporary name fits)", "[output]") {
  TempDir d;
  const std::string name(NAME_MAX - 1, 'n');
  put(d / name, "old\n");
  write_output(d / name, "new\n");
  CHECK(read_file(d / name) == "new\n");
  const std::string longest(NAME_MAX, 'm');
  write_output(d / longest, "fresh\n");
  CHECK(read_file(d / longest) == "fresh\n");
}

TEST_CASE("write_output: a FIFO is written, never replaced; without a reader it is an error", "[output]") {
  TempDir d;
  const std::string fifo = d / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(error_of([&] { write_output(fifo, "x"); }).find("FIFO with no reader") != std::string::npos);
  CHECK(S_ISFIFO(mode_of(fifo)));
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  write_output(fifo, "through the fifo\n");
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  CHECK(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "through the fifo\n");
  CHECK(S_ISFIFO(mode_of(fifo)));
  // Through a symlink too.
  fs::create_symlink("fifo", d / "to_fifo");
  CHECK(error_of([&] { write_output(d / "to_fifo", "x"); }).find("no reader") != std::string::npos);
  CHECK(S_ISLNK(mode_of(d / "to_fifo")));
}

TEST_CASE("write_output: devices are written in place (mknod in a temp dir), sockets refused", "[output]") {
  TempDir d;
  if (is_root()) {
    const std::string null = d / "null", full = d / "full", blk = d / "blk";
    REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
    REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
    REQUIRE(::mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0);
    write_output(null, "discarded\n");
    CHECK(S_ISCHR(mode_of(null)));
    CHECK(error_of([&] { write_output(full, "x"); }).find("No space left on device") != std::string::npos);
    CHECK(S_ISCHR(mode_of(full)));
    CHECK(error_of([&] { write_output(blk, "x"); }).find("is a block device") != std::string::npos);
    CHECK(S_ISBLK(mode_of(blk)));
    // The CLI, as root: -o on a device node leaves it a device.
    const auto r = run_as("", "quant list -o " + null, d);
    CHECK(r.exit_code == 0);
    CHECK(S_ISCHR(mode_of(null)));
  }
  const std::string sock = d / "sock";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  REQUIRE(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  CHECK(error_of([&] { write_output(sock, "x"); }).find("is a socket") != std::string::npos);
  CHECK(S_ISSOCK(mode_of(sock)));
  ::close(s);
  CHECK(error_of([&] { write_output(d.path.string(), "x"); }).find("is a directory") != std::string::npos);
}

TEST_CASE("CLI -o: accepted before or after the subcommand, /dev/stdout written through", "[output]") {
  TempDir d;
  const auto before = run_as("", "-o " + (d / "a.txt") + " quant list", d);
  const auto after = run_as("", "quant list -o " + (d / "b.txt"), d);
  const auto mid = run_as("", "quant -o " + (d / "c.txt") + " list", d);
  REQUIRE(before.exit_code == 0);
  REQUIRE(after.exit_code == 0);
  REQUIRE(mid.exit_code == 0);
  CHECK(before.out.empty());
  CHECK(!read_file(d / "a.txt").empty());
  CHECK(read_file(d / "a.txt") == read_file(d / "b.txt"));
  CHECK(read_file(d / "a.txt") == read_file(d / "c.txt"));
  const auto dump = tc_test::fixture("extract/relax_matmul.py");
  const auto e1 = run_as("", "extract " + dump + " --format csv -o " + (d / "e.csv"), d);
  CHECK(e1.exit_code == 0);
  CHECK(read_file(d / "e.csv") == tc_test::run_cli("extract " + dump + " --format csv").out);
  const auto through = run_as("", "quant list -o /dev/stdout", d);
  CHECK(through.exit_code == 0);
  CHECK(through.out == read_file(d / "a.txt"));
  CHECK(S_ISREG(mode_of(d / "stdout.txt")));
}

TEST_CASE("CLI -o as an unprivileged user: /dev/stdout, read-only directory fallback", "[output]") {
  const std::string nobody = as_nobody();
  if (nobody.empty()) {
    WARN("skipped: needs root and setpriv to run as nobody");
    return;
  }
  TempDir d;
  // stdout.txt/stderr.txt are opened by the root shell before setpriv: fine for nobody.
  const auto r = run_as(nobody, "quant list -o /dev/stdout", d);
  CHECK(r.exit_code == 0);
  CHECK(!r.out.empty());
  // The directory (root, 0755) is not writable for nobody; an existing writable file is
  // written in place, with a note on stderr.
  put(d / "shared.txt", "old\n");
  ::chmod((d / "shared.txt").c_str(), 0666);
  const auto inplace = run_as(nobody, "quant list -o " + (d / "shared.txt"), d);
  CHECK(inplace.exit_code == 0);
  CHECK(inplace.err.find("in place (not atomically)") != std::string::npos);
  CHECK(read_file(d / "shared.txt") == r.out);
  CHECK((mode_of(d / "shared.txt") & 07777) == 0666);
  // A new file there cannot be created: exit 2 with the reason.
  const auto denied = run_as(nobody, "quant list -o " + (d / "new.txt"), d);
  CHECK(denied.exit_code == 2);
  CHECK(denied.err.find("Permission denied") != std::string::npos);
  CHECK(!fs::exists(d / "new.txt"));
  // In a directory nobody may write, a new file gets nobody's umask'd mode.
  fs::create_directory(d.path / "w");
  ::chmod((d.path / "w").c_str(), 0777);
  const auto fresh = run_as("umask 022; " + nobody, "quant list -o " + (d / "w/out.txt"), d);
  CHECK(fresh.exit_code == 0);
  CHECK((mode_of(d / "w/out.txt") & 07777) == 0644);
}

TEST_CASE("read_file: pipes are streamed, devices and FIFOs without a writer refused with a reason", "[input]") {
  TempDir d;
  put(d / "f.txt", "hello\n");
  CHECK(read_file(d / "f.txt") == "hello\n");
  CHECK(error_of([&] { read_file(d / "missing"); }).find("No such file or directory") != std::string::npos);
  CHECK(error_of([&] { read_file(d.path.string()); }).find("is a directory") != std::string::npos);
  CHECK(error_of([&] { read_file(d / "f.txt", 3); }).find("over the limit of 3 bytes") != std::string::npos);
  // A NUL byte in a name (a fuzzed dataflow or .p path) never names the shorter path to the OS.
  const std::string nul = d / "f.txt" + std::string(1, '\0') + ".m";
  CHECK(error_of([&] { read_file(nul); }).find("the file name contains a NUL byte") != std::string::npos);
  CHECK(error_of([&] { write_output(nul, "replaced\n"); }).find("the file name contains a NUL byte") !=
        std::string::npos);
  CHECK(read_file(d / "f.txt") == "hello\n");
  // A FIFO with no writer: an error at once, never a hang.
  const std::string fifo = d / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(error_of([&] { read_file(fifo); }).find("the pipe gave no data") != std::string::npos);
  // Character devices (made here with mknod: /dev/zero, /dev/urandom, /dev/null) are refused.
  if (is_root()) {
    for (const auto& [name, minor] : {std::pair{"zero", 5u}, std::pair{"urandom", 9u}, std::pair{"null", 3u}}) {
      const std::string dev = d / name;
      REQUIRE(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0);
      CHECK(error_of([&] { read_file(dev); }).find("not a regular file (a character device)") != std::string::npos);
    }
  }
  // Unreadable file (as nobody): the reason is given.
  put(d / "secret.txt", "s");
  ::chmod((d / "secret.txt").c_str(), 0600);
  if (const std::string nobody = as_nobody(); !nobody.empty()) {
    const auto r = run_as(nobody, "extract " + (d / "secret.txt"), d);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("Permission denied") != std::string::npos);
  }
}

TEST_CASE("CLI inputs: a pipe, /dev/stdin and process substitution are streamed; a device is refused", "[input]") {
  TempDir d;
  const std::string dump = tc_test::fixture("extract/relax_matmul.py");
  const std::string want = tc_test::run_cli("extract " + dump + " --format csv").out;
  REQUIRE(!want.empty());
  // The locations name the path given on the command line.
  const auto named = [&](const std::string& name) {
    std::string w = want;
    for (std::size_t at; (at = w.find(dump)) != std::string::npos;) w.replace(at, dump.size(), name);
    return w;
  };
  auto r = run_as("cat " + dump + " | ", "extract /dev/stdin --format csv", d);
  CHECK(r.exit_code == 0);
  CHECK(r.out == named("/dev/stdin"));
  r = run_as("", "extract /dev/stdin --format csv < " + dump, d);  // a regular file behind /dev/stdin
  CHECK(r.exit_code == 0);
  CHECK(r.out == named("/dev/stdin"));
  if (std::system("command -v bash >/dev/null 2>&1") == 0) {
    const std::string out = d / "ps.txt";
    const std::string cmd = "bash -c '" + std::string(TC_BINARY) + " extract <(cat " + dump + ") --format csv' >" + out;
    CHECK(std::system(cmd.c_str()) == 0);
    CHECK(std::regex_replace(read_file(out), std::regex("/dev/fd/[0-9]+"), "/dev/fd/N") == named("/dev/fd/N"));
  }
  r = run_as("", "extract /dev/stdin < /dev/null", d);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a regular file (a character device)") != std::string::npos);
  // An empty pipe is not an empty dump.
  r = run_as("true | ", "extract /dev/stdin", d);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("the pipe gave no data") != std::string::npos);
  // A pipe over the size limit stops at the limit (arch files: 1 MiB).
  r = run_as("head -c 2000000 /dev/zero | ", "estimate --arch /dev/stdin", d);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("over the limit of 1048576 bytes") != std::string::npos);
}

TEST_CASE("write_output of a stream: pieces from a Spool land whole, also in place", "[output][spool]") {
  // a large output is built in a Spool (an unlinked temporary file) and written in pieces: the same bytes as
  // write_output of the whole text, on the atomic path and on the in-place path of a hard-linked file
  std::string text;
  for (int i = 0; text.size() < (std::size_t{3} << 20); ++i) text += "line " + std::to_string(i) + "\n";
  Spool spool;
  for (std::size_t at = 0; at < text.size(); at += 4099) spool.append(std::string_view(text).substr(at, 4099));
  CHECK(spool.size() == text.size());
  CHECK(spool.read(1'500'000, 20) == text.substr(1'500'000, 20));  // across a flush
  CHECK(spool.str() == text);
  const auto dir = std::filesystem::temp_directory_path() / ("tc_spool_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string a = (dir / "a.txt").string(), b = (dir / "b.txt").string();
  write_output(a, spool.stream());
  CHECK(read_file(a) == text);
  std::filesystem::create_hard_link(a, b);
  std::string other = text;
  other.replace(0, 4, "LINE");
  Spool second;
  second.append(other);
  write_output(a, second.stream());  // in place: both names
  CHECK(read_file(b) == other);
  // a stream whose pieces do not add up to its size is a bug, and the target is left as it was
  const OutputStream wrong{10, [](const std::function<void(std::string_view)>& emit) { emit("12345"); }};
  CHECK_THROWS_AS(write_output((dir / "c.txt").string(), wrong), InternalError);
  CHECK_FALSE(std::filesystem::exists(dir / "c.txt"));
  std::filesystem::remove_all(dir);
}
