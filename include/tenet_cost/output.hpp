// Writing results: to stdout, or atomically to a file (temporary file in the
// same directory + rename), so an error never leaves a partial file behind.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace tenet_cost {

/// Write `content` to `path` atomically; "-" or "" means standard output.
/// Throws InputError when the file cannot be written.
void write_output(const std::string& path, std::string_view content);

/// Content written in pieces, so that a large output is never held whole: its size in bytes and a function that
/// passes every piece, in order, to `emit` (called once per write; the pieces must add up to `size`).
struct OutputStream {
  std::size_t size = 0;
  std::function<void(const std::function<void(std::string_view)>& emit)> produce;
};
/// write_output of a stream: the same paths and guarantees (atomic rename, in place with the space reserved first).
void write_output(const std::string& path, const OutputStream& content);

/// An output built on disk instead of in memory: an unlinked temporary file in $TMPDIR (else /tmp), removed when the
/// Spool goes. Appends are buffered (1 MiB); read-backs and stream() flush first.
class Spool {
 public:
  Spool();  // throws InputError when no temporary file can be made
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  void append(std::string_view bytes);
  [[nodiscard]] std::size_t size() const { return size_; }
  /// `length` bytes from `offset` (within what was appended).
  [[nodiscard]] std::string read(std::size_t offset, std::size_t length) const;
  /// Everything appended, as a stream for write_output (read back in 1 MiB pieces).
  [[nodiscard]] OutputStream stream() const;
  /// Everything appended, whole (for tests and the in-process API).
  [[nodiscard]] std::string str() const { return read(0, size_); }

 private:
  void flush() const;
  int fd_ = -1;
  std::size_t size_ = 0;
  mutable std::string buf_;          // appended, not yet written
  mutable std::size_t flushed_ = 0;  // bytes written to the file
};

/// Whether two paths name the same file: the same device and inode when both exist, else the same absolute path
/// once `.`, `..` and symbolic links of the existing part are resolved.
bool same_file(const std::string& a, const std::string& b);

/// Read a whole file; throws InputError naming the file when it cannot be
/// read or is larger than `max_bytes`.
std::string read_file(const std::string& path, std::size_t max_bytes = std::size_t{1} << 31);

}  // namespace tenet_cost
