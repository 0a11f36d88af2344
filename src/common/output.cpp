// Reading inputs and writing results safely (docs/reliability.md, "Files").
//
// write_output never replaces what the path names unless it is a regular file:
// a device, FIFO or socket is written directly (or refused), a symlink is
// followed and its target replaced, an existing file keeps its mode and owner,
// and the new contents are fsync'ed before the rename (and the directory after).
//
// read_file is the one reader of every input file: stat before open, open
// non-blocking (a FIFO never hangs the open), pipes streamed up to the limit,
// devices refused, every failure with its strerror reason.
#include "tenet_cost/output.hpp"

#include "common/output_testing.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "tenet_cost/error.hpp"
#include "tenet_cost/message.hpp"

namespace tenet_cost {

namespace {

std::string why(int err) { return std::strerror(err); }

// A path with a NUL byte would name a shorter path to the OS (c_str stops at the
// NUL): refused rather than silently reading or replacing another file.
void require_no_nul(const std::string& path, const char* what) {
  if (path.find('\0') != std::string::npos)
    throw InputError(quote_for_message(path) + ": " + what + ": the file name contains a NUL byte");
}

// Closes a descriptor on every path out of a scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    const int f = fd;
    fd = -1;
    return f;
  }
};

// The write(2) of every output (a test replaces it to fail midway: output_testing.hpp).
std::atomic<testing::WriteFn> g_write{&::write};

void write_all(int fd, std::string_view content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = g_write.load()(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": write failed: " + why(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

void clear_nonblock(int fd, const std::string& path) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
    throw InputError(path + ": cannot use file: " + why(errno));
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Follows symlinks (also dangling ones) to the path that a write would create
// or replace. ELOOP after 40 links, like the kernel.
std::string resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string buf(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n < 0) throw InputError(path + ": cannot read the symbolic link: " + why(errno));
    buf.resize(static_cast<std::size_t>(n));
    p = (!buf.empty() && buf[0] == '/') ? buf : dir_of(p) + "/" + buf;
  }
  throw InputError(path + ": cannot write: " + why(ELOOP));
}

const char* kind_of(mode_t m) {
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

// A device, FIFO or socket: written in place, never replaced. Block devices
// and directories are refused (a report written over a disk is never wanted).
void write_stream(int fd, const OutputStream& content, const std::string& path) {
  std::size_t total = 0;
  content.produce([&](std::string_view piece) {
    write_all(fd, piece, path);
    total += piece.size();
  });
  if (total != content.size)
    throw InternalError(path + ": an output stream gave " + std::to_string(total) + " bytes, not its " +
                        std::to_string(content.size));
}

void write_special(const std::string& path, const struct stat& st, const OutputStream& content) {
  if (S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))
    throw InputError(path + ": is " + std::string(kind_of(st.st_mode)) +
                     ", not a file tenet-cost can write a result to");
  // O_NONBLOCK: a FIFO without a reader fails with ENXIO instead of hanging.
  Fd fd(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.fd < 0) {
    const int err = errno;
    if (err == ENXIO && S_ISFIFO(st.st_mode))
      throw InputError(path + ": is a FIFO with no reader; start the reader first");
    throw InputError(path + ": cannot open for writing: " + why(err));
  }
  clear_nonblock(fd.fd, path);
  write_stream(fd.fd, content, path);
  if (::close(fd.release()) != 0) throw InputError(path + ": write failed: " + why(errno));
}

// The old contents of a file written in place, read first so that a write failing midway (an I/O error, a quota)
// can put them back; files over kMaxBackup bytes (or not readable) are written without this net.
constexpr off_t kMaxBackup = off_t{256} << 20;

std::optional<std::string> backup_of(int fd, off_t size) {
  if (size > kMaxBackup) return std::nullopt;
  std::string old(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < old.size()) {
    const ssize_t n = ::pread(fd, old.data() + done, old.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<std::size_t>(n);
  }
  return old;
}

// Puts the old contents back after a failed write (the blocks are there: reserved or the old file's own).
bool restore(int fd, const std::string& old) {
  std::size_t done = 0;
  while (done < old.size()) {
    const ssize_t n = ::pwrite(fd, old.data() + done, old.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return ::ftruncate(fd, static_cast<off_t>(old.size())) == 0 && (::fsync(fd) == 0 || errno == EINVAL);
}

// In place: used when the directory is not writable or the file has other hard links that a rename would detach.
// Nothing of the old contents is touched before the blocks of the new ones are reserved (fallocate): a full disk,
// a file-size limit or a file system that cannot reserve space refuses the write with the file as it was. Then the
// new contents are written over the old from offset 0 and the file is cut to their length; a write that fails
// midway puts the old contents back (kept in memory up to kMaxBackup bytes) before it reports the error.
void write_in_place(const std::string& path, const OutputStream& content) {
  Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.fd < 0 && (errno == EACCES || errno == EPERM))
    fd.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd.fd < 0) throw InputError(path + ": cannot open for writing: " + why(errno));
  clear_nonblock(fd.fd, path);
  struct stat before {};
  if (::fstat(fd.fd, &before) != 0) throw InputError(path + ": cannot write: " + why(errno));
  if (content.size > 0) {
    int rc = 0;
    do {
      rc = ::fallocate(fd.fd, 0, 0, static_cast<off_t>(content.size));
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int err = errno;
      (void)::ftruncate(fd.fd, before.st_size);  // a failed reservation may have grown it
      throw InputError(path + ": cannot reserve " + std::to_string(content.size) +
                       " bytes for the new contents in place (" + why(err) + "); the file is left as it was" +
                       (err == EOPNOTSUPP ? " (its file system cannot reserve space; to replace it atomically, "
                                            "remove its other hard links or make its directory writable)"
                                          : ""));
    }
  }
  const std::optional<std::string> old = backup_of(fd.fd, before.st_size);
  try {
    write_stream(fd.fd, content, path);
    if (::ftruncate(fd.fd, static_cast<off_t>(content.size)) != 0)
      throw InputError(path + ": write failed: " + why(errno));
    if (::fsync(fd.fd) != 0 && errno != EINVAL) throw InputError(path + ": write failed: " + why(errno));
  } catch (const InputError& e) {
    if (old && restore(fd.fd, *old)) throw InputError(std::string(e.what()) + "; the old contents were put back");
    throw InputError(std::string(e.what()) + "; the file may be partly overwritten (its old contents could not be " +
                     "kept or put back)");
  }
  if (::close(fd.release()) != 0) throw InputError(path + ": write failed: " + why(errno));
}

// The temporary file beside `target`: ".NAME.tmp.XXXXXX", NAME cut so that the name fits NAME_MAX.
std::string temp_template(const std::string& dir, const std::string& target) {
  const auto slash = target.rfind('/');
  std::string base = target.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::size_t room = NAME_MAX - std::string(".").size() - std::string(".tmp.XXXXXX").size();
  if (base.size() > room) base.resize(room);
  return dir + "/." + base + ".tmp.XXXXXX";
}

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

void fsync_dir(const std::string& dir) {
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.fd >= 0) (void)::fsync(d.fd);  // best effort: some filesystems refuse fsync on directories
}

// "/dev/stdout", "/dev/stderr", "/dev/fd/N", "/proc/self/fd/N": a descriptor that is
// already open (the shell's redirection, a pipe); written through, never replaced.
int named_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string pre(prefix);
    if (path.size() > pre.size() && path.size() <= pre.size() + 6 && path.compare(0, pre.size(), pre) == 0 &&
        path.find_first_not_of("0123456789", pre.size()) == std::string::npos)
      return std::stoi(path.substr(pre.size()));
  }
  return -1;
}

}  // namespace

void write_output(const std::string& path, std::string_view content) {
  write_output(path, OutputStream{content.size(), [content](const auto& emit) { emit(content); }});
}

void write_output(const std::string& path, const OutputStream& content) {
  require_no_nul(path, "cannot write file");
  if (path.empty() || path == "-") {
    content.produce(
        [](std::string_view piece) { std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    std::cout.flush();
    if (!std::cout) throw InputError("cannot write to standard output: " + why(errno));
    return;
  }
  if (const int fd = named_descriptor(path); fd >= 0) {
    std::cout.flush();
    write_stream(fd, content, path);
    return;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    write_special(path, st, content);
    return;
  }
  const std::string target = resolve_links(path);
  std::optional<struct stat> existing;
  if (::stat(target.c_str(), &st) == 0) {
    existing = st;
  } else if (errno != ENOENT) {
    throw InputError(path + ": cannot write: " + why(errno));
  }
  if (existing && !S_ISREG(existing->st_mode)) {
    write_special(target, *existing, content);
    return;
  }
  if (existing && existing->st_nlink > 1) {
    // A rename would give this name a new inode and leave the other links with the old contents.
    write_in_place(target, content);
    std::cerr << "tenet-cost: note: " << path << " has " << existing->st_nlink
              << " hard links; written in place (not atomically) to keep them\n";
    return;
  }
  const std::string dir = dir_of(target);
  std::string tmpl = temp_template(dir, target);
  Fd fd(::mkstemp(tmpl.data()));
  if (fd.fd < 0) {
    const int err = errno;
    if (existing && (err == EACCES || err == EPERM || err == EROFS)) {
      write_in_place(target, content);
      std::cerr << "tenet-cost: note: cannot create a temporary file in " << dir << " (" << why(err) << "); wrote "
                << path << " in place (not atomically)\n";
      return;
    }
    throw InputError(path + ": cannot create a temporary file in " + dir + ": " + why(err));
  }
  const auto fail = [&](const std::string& what, int err) {
    ::unlink(tmpl.c_str());
    throw InputError(path + ": " + what + ": " + why(err));
  };
  // mkstemp creates 0600: an existing file keeps its mode and owner, a new one gets 0666 & ~umask.
  const mode_t mode = existing ? (existing->st_mode & 07777) : (0666 & ~current_umask());
  if (::fchmod(fd.fd, mode) != 0) fail("cannot set the file mode", errno);
  if (existing && (existing->st_uid != ::geteuid() || existing->st_gid != ::getegid()))
    (void)::fchown(fd.fd, existing->st_uid, existing->st_gid);  // only root may; otherwise the writer owns it
  try {
    write_stream(fd.fd, content, path);
  } catch (...) {
    ::unlink(tmpl.c_str());
    throw;
  }
  if (::fsync(fd.fd) != 0) fail("write failed", errno);
  if (::close(fd.release()) != 0) fail("write failed", errno);
  if (std::rename(tmpl.c_str(), target.c_str()) != 0) fail("cannot rename the temporary file into place", errno);
  fsync_dir(dir);
}

Spool::Spool() {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/tenet-cost-spool.XXXXXX";
  fd_ = ::mkstemp(tmpl.data());
  if (fd_ < 0) throw InputError("cannot create a temporary file (" + tmpl + ") for a large output: " + why(errno));
  ::unlink(tmpl.c_str());  // gone with the descriptor, whatever happens
}

Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);
}

void Spool::append(std::string_view bytes) {
  buf_.append(bytes);
  size_ += bytes.size();
  if (buf_.size() >= (std::size_t{1} << 20)) flush();
}

void Spool::flush() const {
  std::size_t done = 0;
  while (done < buf_.size()) {
    const ssize_t n = ::pwrite(fd_, buf_.data() + done, buf_.size() - done, static_cast<off_t>(flushed_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError("cannot write a temporary file for a large output: " + why(errno));
    done += static_cast<std::size_t>(n);
  }
  flushed_ += buf_.size();
  buf_.clear();
}

std::string Spool::read(std::size_t offset, std::size_t length) const {
  flush();
  std::string out(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError("cannot read back a temporary file of a large output: " + why(n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
  return out;
}

OutputStream Spool::stream() const {
  return OutputStream{size_, [this](const std::function<void(std::string_view)>& emit) {
                        constexpr std::size_t kPiece = std::size_t{1} << 20;
                        for (std::size_t off = 0; off < size_; off += kPiece)
                          emit(read(off, std::min(kPiece, size_ - off)));
                      }};
}

namespace testing {
WriteFn set_write_function(WriteFn fn) { return g_write.exchange(fn ? fn : &::write); }
}  // namespace testing

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty() || a == "-" || b == "-") return false;
  struct stat sa {
  }, sb{};
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec1), ec1);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec2), ec2);
  return !ec1 && !ec2 && ca == cb;
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  require_no_nul(path, "cannot open file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path + ": cannot open file: " + why(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, expected a file");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw InputError(path + ": not a regular file (" + std::string(kind_of(st.st_mode)) +
                     "); pass a file, a pipe or a process substitution");
  if (S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw InputError(path + ": file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                     std::to_string(max_bytes) + " bytes");
  // O_NONBLOCK: opening a FIFO never waits for a writer.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.fd < 0) throw InputError(path + ": cannot open file: " + why(errno));
  struct stat now {};
  if (::fstat(fd.fd, &now) != 0) throw InputError(path + ": cannot read file: " + why(errno));
  if ((now.st_mode & S_IFMT) != (st.st_mode & S_IFMT))
    throw InputError(path + ": the file changed while it was opened; try again");
  clear_nonblock(fd.fd, path);
  const bool stream = S_ISFIFO(now.st_mode);
  std::string data;
  if (!stream) data.reserve(static_cast<std::size_t>(now.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": cannot read file: " + why(errno));
    }
    if (n == 0) break;
    if (static_cast<std::size_t>(n) > max_bytes - data.size())
      throw InputError(path + ": input is over the limit of " + std::to_string(max_bytes) + " bytes");
    data.append(buf, static_cast<std::size_t>(n));
  }
  if (stream && data.empty())
    throw InputError(path + ": the pipe gave no data (a FIFO is read only when its writer is already running)");
  return data;
}

}  // namespace tenet_cost
