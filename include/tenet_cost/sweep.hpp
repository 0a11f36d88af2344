// Sweeps (docs/sweep.md): a grid of points (models x archs x --set variants x dataflows x schemes x sequence
// lengths x ...), each point one model::compare row, evaluated on threads with the parsed dumps and the cost
// caches shared, each finished point appended at once as one deterministic JSON line keyed by a stable hash of
// its inputs, so that a rerun resumes, a deterministic 1/N shard runs on one machine of many, and shards merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tenet_cost/cost.hpp"

namespace tenet_cost::sweep {

// ------------------------------------------------------------- the grid

/// The axes a grid can have. A new axis is one enumerator, one row of axis_defs(), one field of PointConfig and
/// one case of its reader (run.cpp).
enum class AxisKind {
  kArch,
  kSet,
  kDataflow,
  kArrayModel,
  kObjective,
  kModel,
  kSeqLen,
  kContext,
  kBatch,
  kTp,      // a deployment over chips (docs/sweep.md "Deployments"): tensor parallelism
  kPp,      // pipeline stages
  kEp,      // expert parallelism (an integer, or "tp": the point's tp)
  kGenLen,  // a request of seq_len prompt tokens and gen_len output tokens
  kQuant
};

/// What a new value of an axis changes: the cost::Estimator (arch, its fields, dataflow, options: the point-group
/// whose caches are shared), the plan (the model's GEMMs and their bindings), or only the point.
enum class Stage { kEstimator, kPlan, kPoint };

struct AxisDef {
  AxisKind kind;
  const char* key;            // spec-file key and result-record key; the flag is --key with '_' -> '-'
  const char* help;           // the flag's help
  /// used when neither the spec nor a flag gives the axis ("" for kSet); nullptr: an optional axis, absent from the
  /// grid, its points and the grid id unless given (the axes added after version 1's grids: tp, pp, ep, gen_len)
  const char* default_value;
  bool integer;               // values are positive integers (JSON integers in the records)
  Stage stage;
};
/// Every axis, in enumeration order (outermost first: the Estimator's axes, then the model's).
const std::vector<AxisDef>& axis_defs();
const AxisDef& axis_def(AxisKind kind);

struct Axis {
  AxisKind kind = AxisKind::kModel;
  std::string path;                 // kSet: the arch path (pe_array.rows)
  std::vector<std::string> values;  // as given (a --set value as its text)
};

/// The axes of a grid; the points are their Cartesian product.
struct Grid {
  std::vector<Axis> axes;
};

/// "a,b,c" -> {a, b, c}, splitting at commas outside quotes, brackets and braces; throws InputError naming
/// `what` for an empty item.
std::vector<std::string> split_list(const std::string& text, const std::string& what);
/// A spec file: {"model": ["qwen2-0.5b"], "arch": "edge-npu-32x32", "set": {"pe_array.rows": [32, 64]},
/// "dataflow": ["os", "ws"], "quant": [...], "seq_len": [128], "context": [512]} (a value or a list per axis).
/// Unknown keys and bad values -> InputError file:line:col.
Grid parse_spec(const std::string& text, const std::string& filename);
/// Give an axis its values (replacing the spec's). kSet: `path` names the arch field.
void set_axis(Grid& grid, AxisKind kind, const std::string& path, std::vector<std::string> values);
/// The grid in canonical order (axis_defs() order, --set axes by path) with defaults for missing axes;
/// throws InputError for a non-integer value of an integer axis or a duplicated value.
Grid normalized(Grid grid);
/// The number of points (checked: an overflowing grid is an error).
std::int64_t point_count(const Grid& grid);

// ------------------------------------------------------------- shards

struct Shard {
  std::int64_t index = 0, count = 1;  // 0 <= index < count
};
/// "I/N" (0-based I); throws InputError.
Shard parse_shard(const std::string& text);
/// The shard from the environment: SLURM_ARRAY_TASK_ID (minus SLURM_ARRAY_TASK_MIN) of SLURM_ARRAY_TASK_COUNT, or
/// JOB_COMPLETION_INDEX (Kubernetes Indexed Job) of `count` (required then); nullopt when none is set. `source`
/// names the variable used.
std::optional<Shard> shard_from_env(const std::function<const char*(const char*)>& getenv,
                                    std::optional<std::int64_t> count, std::string* source = nullptr);
/// Whether the point with this id belongs to the shard (by the id's hash: stable when the grid grows).
bool in_shard(const std::string& id, const Shard& shard);

// ------------------------------------------------------------- results files

/// One result line: {"id": "<16 hex>", "point": {inputs + file digests}, "result": {...}} or {..., "error": "..."}.
struct ResultLine {
  std::string id;
  std::string text;  // the line without its '\n'
};

/// The first line of every results file (docs/sweep.md "Results files"):
/// {"format":"tenet-cost-sweep-results","grid":{axis: [sorted values], "set": {path: [...]}},"grid_id":"<16 hex>",
/// "version":1}. The grid id is the FNV-1a hash of the canonical "grid" object: the same set of points (whatever
/// the order of axes or values, flags or spec file) gives the same id; the shard is not part of it.
std::string grid_id(const Grid& grid);
std::string results_header(const Grid& grid);  // without its '\n'

struct ResultsFile {
  std::string header;             // the header line; "" for a file of an earlier version (no header)
  std::string grid_id;            // the header's grid id ("" without a header)
  std::vector<ResultLine> lines;  // the valid lines in file order, each id once
  std::size_t duplicates = 0;     // lines dropped because the same line came before (earlier versions' runs)
  std::size_t valid_bytes = 0;    // the bytes up to the end of the last valid line
  bool corrupt_tail = false;      // the last line was partial or unparseable (a kill or power cut): dropped
  std::size_t tail_line = 0;      // its 1-based line number
};
/// Reads and validates a results file (the header, each line's id is the hash of its point, a repeated id has the
/// same line); a corrupt last line is dropped when `allow_corrupt_tail`, any other bad line throws InputError
/// file:line:col.
ResultsFile parse_results(const std::string& text, const std::string& filename, bool allow_corrupt_tail);
/// Calls `fn` on the text of each result line, in a fixed order; it may be called more than once (the same lines).
using LineSource = std::function<void(const std::function<void(const std::string&)>& fn)>;

/// Result lines kept on disk — in their results files, or a temporary file — rather than in memory: per line its id,
/// hash and place (32 bytes), read back when written out (docs/sweep.md "Speed and memory").
class SortedLines {
 public:
  /// Reads `length` bytes at `offset` of one file.
  using Reader = std::function<std::string(std::uint64_t offset, std::uint32_t length)>;
  struct Place {
    std::uint64_t id = 0, hash = 0, offset = 0;  // hash: FNV-1a of the line, checked when it is read back
    std::uint32_t length = 0, file = 0;
  };
  std::uint32_t add_file(std::string name, Reader read);
  void add(const Place& p) { places_.push_back(p); }
  /// By id; lines of equal ids keep the order they were added in.
  void sort();
  [[nodiscard]] std::size_t size() const { return places_.size(); }
  [[nodiscard]] std::vector<Place>& places() { return places_; }
  [[nodiscard]] const std::string& file_name(std::uint32_t file) const { return names_.at(file); }
  /// The line at `p`, read back (InputError when the file changed meanwhile).
  [[nodiscard]] std::string line(const Place& p) const;
  /// Every line in order (sorted: by id).
  void each(const std::function<void(const std::string&)>& fn) const;
  [[nodiscard]] LineSource source() const {
    return [this](const std::function<void(const std::string&)>& fn) { each(fn); };
  }

 private:
  std::vector<Place> places_;
  std::vector<std::string> names_;
  std::vector<Reader> readers_;
};

/// Result lines as CSV: a header (id, the point's inputs, the result's columns, error) and one row per line.
std::string results_csv(const std::vector<ResultLine>& lines);
/// The same CSV in pieces, in two passes over `lines` (the columns, then the rows): memory of one line and the
/// columns, whatever the number of lines.
void write_csv(const LineSource& lines, const std::function<void(std::string_view)>& emit);
/// CSV's first line starts with this: `--csv` and `merge --out X.csv` replace only such files.
inline constexpr const char* kCsvHeaderStart = "id,point.";

/// Throws InputError unless `path` is missing, empty, or a CSV view of results (its first line starts with
/// kCsvHeaderStart): `flag` names the option in the message.
void require_csv_target(const std::string& path, const std::string& flag);

/// Throws InputError unless `path` is missing, empty, or a results file that `sweep merge` may replace: its first
/// line is the header of the same grid as `header` (or, without a header on either side, a result line).
void require_results_target(const std::string& path, const std::string& header);

struct Merged {
  std::string header;  // the common header line ("" when no file has one)
  SortedLines lines;   // read back from the files (kept open)
};
/// The valid lines of every file, de-duplicated by id and sorted by id; throws InputError when two files hold
/// different lines for the same id, files of different grids, or any bad line. A file without a header (an earlier
/// version) joins a file with one only when each of its points is a point of that grid. Memory: 32 bytes a line
/// (the lines stay in the files).
Merged merge_results(const std::vector<std::string>& files);

// ------------------------------------------------------------- running

struct Progress {
  std::size_t done = 0;       // points of the grid passed (evaluated, finished before, or of another shard)
  std::size_t total = 0;      // points of the grid
  std::size_t evaluated = 0;  // points evaluated in this run
  std::size_t errors = 0;     // of those, error records
  double elapsed_s = 0;
};

struct RunOptions {
  std::string presets_dir;    // configs/arch
  std::string workloads_dir;  // the shipped models (workloads/<name>/{q0f16.py,config.json})
  Shard shard;
  unsigned jobs = 0;                                            // 0 = every hardware thread
  double engine_time_limit_s = cost::kDefaultEngineTimeLimit;   // per TENET engine evaluation (<= 0: none)
  std::int64_t engine_max_points = cost::kDefaultEnginePoints;  // per brute-forced instance (--engine-points)
  std::string out;  // results file (JSON lines, appended, resumed, locked); "" = RunSummary::lines
  std::string csv;  // the CSV view of the complete `out`, written before the lock is released ("" = none)
  std::vector<std::pair<std::string, std::string>> other_files;  // (what, path): `out` and `csv` must not be these
  std::function<void(const Progress&)> progress;                 // after each point (from worker threads, serialized)
};

struct RunSummary {
  std::int64_t points = 0;            // the whole grid
  std::size_t in_shard = 0;           // the points of this shard
  std::size_t skipped = 0;            // finished before (found in `out`)
  std::size_t evaluated = 0;          // evaluated now
  std::size_t errors = 0;             // of those, error records
  std::size_t models_loaded = 0;      // dumps / configs read (each once)
  std::size_t estimators = 0;         // cost::Estimator groups built
  std::size_t plans_built = 0;        // model plans built (each kept while its points run)
  bool dropped_corrupt_tail = false;  // `out` ended in a corrupt line (redone)
  std::size_t corrupt_line = 0;
  bool headerless = false;     // `out` was written by an earlier version (no header line; its points checked)
  std::size_t duplicates = 0;  // lines of `out` that repeat an earlier line (counted once)
  std::string header;          // the results header of the grid
  SortedLines lines;           // out == "": every line of the shard, sorted by id (in a temporary file)
};

/// Validates the whole grid first (archs with their --set, dataflows, schemes, models), then evaluates the
/// points of the shard not already in `out`. Throws InputError for a bad grid; a point whose evaluation fails
/// on the input (nothing fits the buffer, ...) is an error record.
RunSummary run(const Grid& grid, const RunOptions& options);

}  // namespace tenet_cost::sweep
