// The results file of a run (`sweep --out`): only a results file of the same grid is ever appended to; a second
// sweep on the same file is refused by a lock (docs/sweep.md "Results files").
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sweep/internal.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::sweep {

using nlohmann::json;

namespace {

std::string why(int err) { return std::strerror(err); }

// The advice that ends every refusal: the file is left as it was.
constexpr const char* kLeftAlone =
    "; the file is left as it was (give this sweep another --out, or remove the file to start over)";

}  // namespace

ResultsOut::ResultsOut(const std::string& path, const Grid& grid, RunSummary& sum)
    : path_(path), header_(results_header(grid)) {
  if (path_.empty()) {
    spool_ = std::make_shared<Spool>();
    lines_.add_file("the sweep's lines",
                    [sp = spool_](std::uint64_t offset, std::uint32_t length) { return sp->read(offset, length); });
    return;
  }
  open_locked();
  try {
    identify(grid, sum);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

ResultsOut::~ResultsOut() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

// Opens (or creates) the file and takes its lock; retries when the name was given to another file meanwhile (a
// `sweep merge --out` replacing it), so the lock is always on the file the name names.
void ResultsOut::open_locked() {
  for (int attempt = 0; attempt < 8; ++attempt) {
    int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) {
      fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
      if (fd < 0 && errno == EEXIST) continue;  // created by another process just now: open that one
    }
    if (fd < 0) throw InputError(path_ + ": cannot open the results file: " + why(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw InputError(path_ + ": not a regular file; --out names a results file (JSON lines)");
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw InputError(path_ +
                         ": another tenet-cost sweep is writing to this results file (it holds the file's lock); "
                         "wait for it to finish and run this command again (it resumes), or give this one another "
                         "--out");
      throw InputError(path_ + ": cannot lock the results file (" + why(err) +
                       "); a sweep needs a file system with file locks for its --out");
    }
    struct stat named {};
    if (::stat(path_.c_str(), &named) == 0 && named.st_dev == st.st_dev && named.st_ino == st.st_ino) {
      fd_ = fd;
      return;
    }
    ::close(fd);  // the name now names another file: lock that one
  }
  throw InputError(path_ + ": the results file keeps being replaced by another process; try again");
}

ByteSource ResultsOut::reader(std::size_t offset) const {
  return [fd = fd_, off = offset, path = path_](char* buf, std::size_t n) mutable {
    for (;;) {
      const ssize_t k = ::pread(fd, buf, n, static_cast<off_t>(off));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) throw InputError(path + ": cannot read the results file: " + why(errno));
      off += static_cast<std::size_t>(k);
      return static_cast<std::size_t>(k);
    }
  };
}

void ResultsOut::identify(const Grid& grid, RunSummary& sum) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw InputError(path_ + ": cannot read the results file: " + why(errno));
  std::string first(std::min<std::size_t>(static_cast<std::size_t>(st.st_size), kMaxHeaderLine + 1), '\0');
  first.resize(reader(0)(first.data(), first.size()));
  const auto nl = first.find('\n');
  const std::string want = header_ + "\n";
  // empty, or the beginning of our header (with its format tag) without its newline: a run stopped in its first write
  const std::size_t tag = header_.find(",\"grid\":");
  if (first.empty() ||
      (nl == std::string::npos && first.size() >= tag && static_cast<std::size_t>(st.st_size) < want.size() &&
       want.compare(0, first.size(), first) == 0)) {
    if (::ftruncate(fd_, 0) != 0) throw InputError(path_ + ": cannot write the results file: " + why(errno));
    write_line(header_);
    return;
  }
  std::string problem = "a line over 8 MiB";
  const LineKind kind = nl == std::string::npos && first.size() > kMaxHeaderLine
                            ? LineKind::kOther
                            : classify_line(first.substr(0, nl), &problem);
  if (nl == std::string::npos && kind != LineKind::kOther) problem = "a line without its newline";
  if (kind == LineKind::kOther || nl == std::string::npos)
    throw InputError(path_ + ": not a tenet-cost sweep results file (line 1: " + problem +
                     "); refusing to write to it" + kLeftAlone);
  const json ours = grid_object(grid);
  if (kind == LineKind::kHeader && header_grid_id(first.substr(0, nl)) != grid_id(grid))
    throw InputError(path_ + ": the results of another grid (" +
                     grid_difference(header_grid(first.substr(0, nl)), ours, path_, "this sweep") +
                     "); refusing to append to it" + kLeftAlone);
  sum.headerless = kind == LineKind::kResult;
  const ResultsFile scan = scan_finished_ids(
      [this] { return reader(0); }, path_, true,
      [&](const ResultLine& l) {
        if (sum.headerless && !point_in_grid(json::parse(l.text)["point"], ours))
          throw InputError(path_ + ": point " + l.id +
                           " is not a point of this grid (a results file of an earlier version, without a header "
                           "line, of another grid); refusing to append to it" +
                           kLeftAlone);
      },
      done_);
  sum.duplicates = scan.duplicates;
  repeats_ = scan.duplicates > 0;
  if (scan.corrupt_tail) {
    if (::ftruncate(fd_, static_cast<off_t>(scan.valid_bytes)) != 0)
      throw InputError(path_ + ": cannot drop its corrupt last line: " + why(errno));
    sum.dropped_corrupt_tail = true;
    sum.corrupt_line = scan.tail_line;
  }
}

bool ResultsOut::finished(const std::string& id) const {
  return std::binary_search(done_.begin(), done_.end(), id_value(id));
}

void ResultsOut::write_line(const std::string& text) {
  const std::string line = text + "\n";
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(path_ + ": cannot append a result: " + why(errno));
    off += static_cast<std::size_t>(n);
  }
}

void ResultsOut::append(const std::string& id, const std::string& line) {
  if (fd_ < 0) {
    lines_.add({id_value(id), fnv1a(line), spool_->size(), static_cast<std::uint32_t>(line.size()), 0});
    spool_->append(line);
    return;
  }
  write_line(line);
}

SortedLines ResultsOut::take() {
  lines_.sort();
  return std::move(lines_);
}

OutputStream ResultsOut::csv() const {
  auto csv = std::make_shared<Spool>();
  write_csv(
      [this](const std::function<void(const std::string&)>& fn) {
        // each id once: de-duplicated only when the file repeats a line (else no id is held)
        (void)scan_results(
            reader(0), path_, false, [&fn](const ResultLine& l, std::size_t) { fn(l.text); }, repeats_);
      },
      [&csv](std::string_view piece) { csv->append(piece); });
  OutputStream s = csv->stream();
  s.produce = [csv, produce = std::move(s.produce)](const auto& emit) { produce(emit); };  // keeps the file
  return s;
}

}  // namespace tenet_cost::sweep
