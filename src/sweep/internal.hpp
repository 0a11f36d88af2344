// Private helpers of the sweep module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tenet_cost/output.hpp"
#include "tenet_cost/sweep.hpp"

namespace tenet_cost::sweep {

/// A positive decimal integer; throws InputError "<what>: expected a positive integer, found '<text>'".
std::int64_t positive_integer(const std::string& text, const std::string& what);

/// FNV-1a, 64 bits: the point ids and the file digests (stable across runs, machines and builds).
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL) {
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}
/// 16 lowercase hex digits.
std::string hex16(std::uint64_t v);
/// The value of 16 hex digits (an id).
std::uint64_t id_value(const std::string& id);

// ------------------------------------------------------------- results files (results.cpp)

inline constexpr std::size_t kMaxLine = std::size_t{1} << 20;        // a result line
inline constexpr std::size_t kMaxHeaderLine = std::size_t{8} << 20;  // the header (it lists every axis value)

/// What the first line of a file is: our header, a result line (a file of an earlier version), or neither.
enum class LineKind { kHeader, kResult, kOther };
/// `problem` says why a kOther line is neither ("not JSON", ...).
LineKind classify_line(const std::string& line, std::string* problem);
/// The grid id written in a (valid) header line.
std::string header_grid_id(const std::string& header);
/// The header's "grid" object.
nlohmann::json header_grid(const std::string& header);
/// An axis value in the records: a JSON integer for an integer axis (and an ep degree), else its text ("tp", a name).
nlohmann::json axis_value_json(const AxisDef& d, const std::string& value);
/// The canonical "grid" object of a normalized grid (values sorted; integers as JSON integers).
nlohmann::json grid_object(const Grid& normalized_grid);
/// Whether a result line's point is a point of the grid (every axis value in the grid, no other key); `grid` is
/// grid_object() of it.
bool point_in_grid(const nlohmann::json& point, const nlohmann::json& grid);
/// The first axis whose values differ between two grid objects: "seq_len: [16,32] in F, [16] in G" (shortened).
std::string grid_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                            const std::string& b_name);

/// Reads `n` bytes into `buf`; 0 at the end.
using ByteSource = std::function<std::size_t(char* buf, std::size_t n)>;
/// Reads a results file line by line: the header (line 1, when there is one), then result lines, each id once
/// (`on_line` is called for the first, with the line's byte offset in the file; an identical repeat counts in
/// `duplicates`, a different line for the same id throws). Without `dedupe`, `on_line` sees every line and no id is
/// kept (the caller de-duplicates). Fills every field of ResultsFile but `lines`. Errors as parse_results.
ResultsFile scan_results(const ByteSource& source, const std::string& filename, bool allow_corrupt_tail,
                         const std::function<void(const ResultLine&, std::size_t offset)>& on_line, bool dedupe = true);

/// The finished ids of a results file for a resume, in 8 bytes each (issue 28: scan_results' de-duplication holds
/// about 60 bytes a line): `open` gives a reader from the file's start (called two or three times: the lines are
/// counted first, so `ids` is allocated once at its size); `on_line` sees every valid line, in file order; `ids` is
/// returned sorted and distinct. An id on several lines is checked in a second pass that keeps only the repeated ids:
/// identical lines count in `duplicates`, a different one throws as scan_results does.
ResultsFile scan_finished_ids(const std::function<ByteSource()>& open, const std::string& filename,
                              bool allow_corrupt_tail, const std::function<void(const ResultLine&)>& on_line,
                              std::vector<std::uint64_t>& ids);

// ------------------------------------------------------------- the results file of a run (out_file.cpp)

/// The `--out` of a run: opened, locked (an exclusive, non-blocking flock held until the end: a second sweep on the
/// same file is refused), identified — a missing or empty file (the header is written), a partial header, our header
/// of the same grid, or a file of an earlier version without a header whose points all belong to the grid; anything
/// else is refused with the file untouched — its finished ids read and a corrupt last line cut. Without a path, the
/// lines are kept in memory.
class ResultsOut {
 public:
  ResultsOut(const std::string& path, const Grid& normalized_grid, RunSummary& sum);
  ~ResultsOut();
  ResultsOut(const ResultsOut&) = delete;
  ResultsOut& operator=(const ResultsOut&) = delete;
  [[nodiscard]] bool finished(const std::string& id) const;
  /// One write() per line: a kill between lines leaves whole lines, a power cut at worst a partial last one.
  void append(const std::string& id, const std::string& line);
  /// Without a path: the lines appended, sorted by id (they are in a temporary file, not in memory).
  SortedLines take();
  /// The CSV view of every line of the file (read again through the locked descriptor, twice: the columns, then the
  /// rows; built in a temporary file).
  [[nodiscard]] OutputStream csv() const;

 private:
  void open_locked();
  void identify(const Grid& grid, RunSummary& sum);
  [[nodiscard]] ByteSource reader(std::size_t offset) const;
  void write_line(const std::string& text);

  std::string path_, header_;
  int fd_ = -1;
  std::vector<std::uint64_t> done_;  // sorted
  bool repeats_ = false;             // the file holds a line twice (an earlier version's runs): the CSV de-duplicates
  std::shared_ptr<Spool> spool_;     // without a path: the lines, on disk
  SortedLines lines_;                // and where each one is
};

}  // namespace tenet_cost::sweep
