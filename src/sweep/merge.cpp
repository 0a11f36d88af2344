// Result lines kept on disk (SortedLines), `sweep merge` and the CSV view, in memory bounded by the number of lines
// (32 bytes each), never by their text (docs/sweep.md "Speed and memory").
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "sweep/internal.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::sweep {

using nlohmann::json;

std::uint32_t SortedLines::add_file(std::string name, Reader read) {
  names_.push_back(std::move(name));
  readers_.push_back(std::move(read));
  return static_cast<std::uint32_t>(names_.size() - 1);
}

void SortedLines::sort() {
  std::stable_sort(places_.begin(), places_.end(), [](const Place& a, const Place& b) { return a.id < b.id; });
}

std::string SortedLines::line(const Place& p) const {
  std::string text = readers_.at(p.file)(p.offset, p.length);
  if (fnv1a(text) != p.hash)
    throw InputError(names_[p.file] + ": changed while it was read (the line at byte " + std::to_string(p.offset) +
                     " is not what it was); run the command again");
  return text;
}

void SortedLines::each(const std::function<void(const std::string&)>& fn) const {
  for (const Place& p : places_) fn(line(p));
}

namespace {

// An input of merge: a regular file read in place (pread), or anything else (a pipe, `<(...)`) copied to a
// temporary file first.
class Input {
 public:
  explicit Input(const std::string& path) : path_(path) {
    struct stat st {};
    if (path.find('\0') == std::string::npos && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0)
        throw InputError(path + ": cannot open file: " + std::strerror(errno) +
                         (errno == EMFILE ? " (too many files at once: merge them in groups)" : ""));
      return;
    }
    spool_ = std::make_shared<Spool>();
    spool_->append(read_file(path));  // the checks of every input (a directory, a device, a NUL byte, ...)
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input() {
    if (fd_ >= 0) ::close(fd_);
  }

  // Up to `n` bytes at `offset` (fewer at the end).
  std::size_t read_some(char* buf, std::size_t n, std::uint64_t offset) const {
    if (spool_) {
      if (offset >= spool_->size()) return 0;
      const std::size_t k = std::min<std::uint64_t>(n, spool_->size() - offset);
      const std::string s = spool_->read(offset, k);
      std::copy_n(s.data(), k, buf);
      return k;
    }
    for (;;) {
      const ssize_t k = ::pread(fd_, buf, n, static_cast<off_t>(offset));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) throw InputError(path_ + ": cannot read file: " + std::strerror(errno));
      return static_cast<std::size_t>(k);
    }
  }
  std::string read(std::uint64_t offset, std::uint32_t length) const {
    std::string out(length, '\0');
    for (std::size_t done = 0; done < length;) {
      const std::size_t k = read_some(out.data() + done, length - done, offset + done);
      if (k == 0) throw InputError(path_ + ": changed while it was read (it is shorter); run the command again");
      done += k;
    }
    return out;
  }
  ByteSource from(std::uint64_t offset) const {
    return [this, offset](char* buf, std::size_t n) mutable {
      const std::size_t k = read_some(buf, n, offset);
      offset += k;
      return k;
    };
  }
  // The 1-based line that starts at byte `offset` (for a message).
  std::size_t line_at(std::uint64_t offset) const {
    std::size_t line = 1;
    char buf[1 << 16];
    for (std::uint64_t at = 0; at < offset;) {
      const std::size_t k = read_some(buf, std::min<std::uint64_t>(sizeof buf, offset - at), at);
      if (k == 0) break;
      line += static_cast<std::size_t>(std::count(buf, buf + k, '\n'));
      at += k;
    }
    return line;
  }
  // Line 1 when it is a results header, else "".
  std::string header() const {
    std::string first(kMaxHeaderLine + 1, '\0');
    std::size_t got = 0;
    for (std::size_t k = 1; k > 0 && got < first.size(); got += k)
      k = read_some(first.data() + got, first.size() - got, got);
    first.resize(got);
    const auto nl = first.find('\n');
    if (nl == std::string::npos) return "";
    first.resize(nl);
    return classify_line(first, nullptr) == LineKind::kHeader ? first : "";
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::shared_ptr<Spool> spool_;
};

// Many shards are merged at once: every input stays open until the lines are written (as many as the hard limit).
void raise_open_file_limit() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &r);
  }
}

// Keeps the first line of each id (sorted, equal ids in file order); a repeat must be the same line, else an error
// naming both places.
void drop_repeats(SortedLines& lines, const std::vector<std::shared_ptr<Input>>& in) {
  auto& places = lines.places();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < places.size(); ++i) {
    if (kept > 0 && places[kept - 1].id == places[i].id) {
      const auto& a = places[kept - 1];
      const auto& b = places[i];
      if (a.hash == b.hash && a.length == b.length && lines.line(a) == lines.line(b)) continue;
      const std::size_t la = in[a.file]->line_at(a.offset), lb = in[b.file]->line_at(b.offset);
      const std::string id = hex16(b.id);
      if (a.file == b.file)
        throw InputError(SourceLocation{lines.file_name(b.file), static_cast<std::uint32_t>(lb), 1},
                         "point " + id + " has a different result on line " + std::to_string(la) +
                             " (results of different tenet-cost versions?)");
      throw InputError(lines.file_name(b.file) + ":" + std::to_string(lb) + ": point " + id +
                       " has a different result in " + lines.file_name(a.file) + ":" + std::to_string(la) +
                       " (results of different tenet-cost versions?)");
    }
    places[kept++] = places[i];
  }
  places.resize(kept);
  places.shrink_to_fit();
}

}  // namespace

Merged merge_results(const std::vector<std::string>& files) {
  raise_open_file_limit();
  Merged m;
  std::vector<std::shared_ptr<Input>> in;
  std::vector<bool> has_header;
  std::string header_file;
  for (const auto& f : files) {
    in.push_back(std::make_shared<Input>(f));
    const std::string h = in.back()->header();
    has_header.push_back(!h.empty());
    if (h.empty()) continue;
    if (m.header.empty()) {
      m.header = h;
      header_file = f;
    } else if (header_grid_id(h) != header_grid_id(m.header)) {
      throw InputError(f + ": results of another grid than " + header_file + " (" +
                       grid_difference(header_grid(h), header_grid(m.header), f, header_file) +
                       "); merge the results of one grid");
    }
  }
  const json grid = m.header.empty() ? json() : header_grid(m.header);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::shared_ptr<Input> input = in[i];
    const std::uint32_t file = m.lines.add_file(
        files[i], [input](std::uint64_t offset, std::uint32_t length) { return input->read(offset, length); });
    std::size_t n = has_header[i] ? 1 : 0;
    (void)scan_results(
        input->from(0), files[i], false,
        [&](const ResultLine& l, std::size_t offset) {
          ++n;
          if (!has_header[i] && !grid.is_null() && !point_in_grid(json::parse(l.text)["point"], grid))
            throw InputError(files[i] + ":" + std::to_string(n) + ": point " + l.id +
                             " (a file without a header) is not a point of the grid of " + header_file);
          m.lines.add({id_value(l.id), fnv1a(l.text), offset, static_cast<std::uint32_t>(l.text.size()), file});
        },
        false);
  }
  m.lines.sort();
  drop_repeats(m.lines, in);
  return m;
}

namespace {

void flatten(const json& v, const std::string& prefix, std::map<std::string, json>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) flatten(it.value(), prefix + "." + it.key(), out);
  } else {
    out[prefix] = v;
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A line's cells by column: id, point.*, result.*, error.
std::map<std::string, json> row_of(const std::string& line) {
  const json doc = json::parse(line);
  std::map<std::string, json> row;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "id") flatten(it.value(), it.key(), row);
  row["id"] = doc["id"];
  return row;
}

}  // namespace

void write_csv(const LineSource& lines, const std::function<void(std::string_view)>& emit) {
  std::set<std::string> columns;
  lines([&](const std::string& line) {
    for (const auto& [k, v] : row_of(line))
      if (k != "id") columns.insert(k);
  });
  // id, then point.*, then result.*, then error (each group sorted)
  std::vector<std::string> order = {"id"};
  for (const char* group : {"point.", "result.", "error"})
    for (const auto& c : columns)
      if (c.rfind(group, 0) == 0) order.push_back(c);
  std::string out;
  for (std::size_t i = 0; i < order.size(); ++i) out += (i ? "," : "") + csv_field(order[i]);
  emit(out + "\n");
  lines([&](const std::string& line) {
    const auto row = row_of(line);
    out.clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto it = row.find(order[i]);
      std::string cell;
      if (it != row.end()) cell = it->second.is_string() ? it->second.get<std::string>() : it->second.dump();
      out += (i ? "," : "") + csv_field(cell);
    }
    emit(out + "\n");
  });
}

std::string results_csv(const std::vector<ResultLine>& lines) {
  std::string out;
  write_csv(
      [&lines](const std::function<void(const std::string&)>& fn) {
        for (const auto& l : lines) fn(l.text);
      },
      [&out](std::string_view piece) { out.append(piece); });
  return out;
}

}  // namespace tenet_cost::sweep
