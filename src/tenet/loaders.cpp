// Readers for TENET's input files, following PEArray::Load, Statement::Load,
// Mapping::Load and upstream test/main.cpp (docs/tenet-engine.md §Input).
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tenet_cost/output.hpp"
#include "tenet_cost/relation.hpp"
#include "tenet_cost/tenet.hpp"

namespace tenet_cost::tenet {
namespace {

constexpr std::size_t kMaxFile = std::size_t{16} << 20;

struct Line {
  std::string text;
  std::uint32_t number = 0;
};

std::vector<Line> read_lines(const std::string& path) {
  std::error_code ec;  // a path the OS cannot even stat (too long, ...) is left to read_file's message
  if (std::filesystem::is_directory(path, ec)) throw InputError(SourceLocation{path, 0, 0}, "is a directory, expected a file");
  const std::string content = read_file(path, kMaxFile);
  std::vector<Line> lines;
  std::size_t start = 0;
  std::uint32_t no = 1;
  while (start <= content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    std::string l = content.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.find('\0') != std::string::npos)
      throw InputError(SourceLocation{path, no, 0}, "binary data (NUL byte) in a text file");
    lines.push_back({l, no});
    if (end == content.size()) break;
    start = end + 1;
    ++no;
  }
  while (!lines.empty() && lines.back().text.find_first_not_of(" \t") == std::string::npos) lines.pop_back();
  return lines;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

RelationText relation_line(const std::string& path, const std::vector<Line>& lines, std::size_t idx,
                           const std::string& what) {
  if (idx >= lines.size() || blank(lines[idx].text)) {
    const std::uint32_t no = idx < lines.size() ? lines[idx].number : static_cast<std::uint32_t>(idx + 1);
    throw InputError(SourceLocation{path, no, 0},
                     "expected " + what + ", found " + (idx < lines.size() ? "an empty line" : "end of file"));
  }
  RelationText r{lines[idx].text, SourceLocation{path, lines[idx].number, 1}};
  (void)relation::parse(r.text, r.loc);  // report syntax errors at load time
  return r;
}

std::uint64_t parse_unsigned(const std::string& tok, const SourceLocation& loc, const std::string& what) {
  if (tok.empty() || tok.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(loc, "expected " + what + " (a non-negative integer), found '" + tok + "'");
  std::uint64_t v = 0;
  for (char c : tok) {
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, static_cast<unsigned>(c - '0'), &v))
      throw InputError(loc, what + " '" + tok + "' does not fit in 64 bits");
  }
  return v;
}

}  // namespace

PEArraySpec load_pe_array(const std::string& path) {
  const auto lines = read_lines(path);
  PEArraySpec pe;
  pe.domain = relation_line(path, lines, 0, "the PE domain, e.g. {PE[i,j] : 0 <= i < 8 and 0 <= j < 8}");
  pe.interconnect = relation_line(path, lines, 1, "the interconnect, e.g. {PE[i,j] -> PE[i-1,j]}");
  static const char* names[] = {"l1 size", "l2 size", "bandwidth", "average latency"};
  std::uint64_t* fields[] = {&pe.l1_size, &pe.l2_size, &pe.bandwidth, &pe.avg_latency};
  std::size_t k = 0;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    std::istringstream in(lines[i].text);
    std::string tok;
    std::uint32_t col = 1;
    while (in >> tok) {
      const auto pos = lines[i].text.find(tok, col - 1);
      col = static_cast<std::uint32_t>(pos + 1);
      const SourceLocation loc{path, lines[i].number, col};
      if (k >= 4) throw InputError(loc, "unexpected extra value '" + tok + "' after `l1 l2 bandwidth latency`");
      *fields[k] = parse_unsigned(tok, loc, names[k]);
      if (fields[k] == &pe.bandwidth && pe.bandwidth == 0) throw InputError(loc, "bandwidth must be positive, found 0");
      ++k;
      col += static_cast<std::uint32_t>(tok.size());
    }
  }
  return pe;
}

StatementSpec load_statement(const std::string& path) {
  const auto lines = read_lines(path);
  if (lines.empty()) throw InputError(SourceLocation{path, 1, 0}, "expected `R W` (read/write access counts), found an empty file");
  std::istringstream in(lines[0].text);
  std::string r_tok, w_tok, extra;
  in >> r_tok >> w_tok;
  const SourceLocation hdr{path, lines[0].number, 1};
  if (r_tok.empty() || w_tok.empty() || (in >> extra))
    throw InputError(hdr, "expected `R W` (numbers of read and write access lines), found '" + lines[0].text + "'");
  const std::uint64_t nr = parse_unsigned(r_tok, hdr, "read access count");
  const std::uint64_t nw = parse_unsigned(w_tok, hdr, "write access count");
  if (nr > 4096 || nw > 4096) throw InputError(hdr, "access counts larger than 4096 are not supported");
  StatementSpec s;
  s.domain = relation_line(path, lines, 1, "the iteration domain, e.g. {S[i,j] : 0 <= i < 8 and 0 <= j < 8}");
  const std::size_t need = 2 + nr + nw;
  if (lines.size() < need)
    throw InputError(SourceLocation{path, static_cast<std::uint32_t>(lines.size() + 1), 0},
                     "the header declares " + std::to_string(nr) + " read and " + std::to_string(nw) +
                         " write access lines, but the file has only " + std::to_string(lines.size() - 2));
  for (std::size_t i = 0; i < nr; ++i) s.reads.push_back(relation_line(path, lines, 2 + i, "a read access relation"));
  for (std::size_t i = 0; i < nw; ++i)
    s.writes.push_back(relation_line(path, lines, 2 + nr + i, "a write access relation"));
  for (std::size_t i = need; i < lines.size(); ++i)
    if (!blank(lines[i].text))
      throw InputError(SourceLocation{path, lines[i].number, 1},
                       "more access lines than the header's `" + r_tok + " " + w_tok + "` declares");
  return s;
}

MappingSpec load_mapping(const std::string& path) {
  const auto lines = read_lines(path);
  MappingSpec m;
  m.space_map = relation_line(path, lines, 0, "the space map, e.g. {S[i,j,k] -> PE[i%8, j%8]}");
  m.time_map = relation_line(path, lines, 1, "the time map, e.g. {S[i,j,k] -> T[floor(i/8), floor(j/8), k]}");
  for (std::size_t i = 2; i < lines.size(); ++i)
    if (!blank(lines[i].text))
      throw InputError(SourceLocation{path, lines[i].number, 1}, "unexpected extra line after the time map");
  return m;
}

Problem load_problem(const std::string& pe_path, const std::string& statement_path, const std::string& mapping_path) {
  Problem p;
  p.pe = load_pe_array(pe_path);
  p.statement = load_statement(statement_path);
  p.mapping = load_mapping(mapping_path);
  return p;
}

Problem load_experiment(const std::string& experiment_path, const std::string& data_root) {
  const auto lines = read_lines(experiment_path);
  std::vector<std::string> paths;
  for (const auto& l : lines) {
    if (blank(l.text)) continue;
    std::string t = l.text;
    t.erase(0, t.find_first_not_of(" \t"));
    t.erase(t.find_last_not_of(" \t") + 1);
    if (paths.size() == 3)
      throw InputError(SourceLocation{experiment_path, l.number, 1},
                       "expected three paths (mapping, PE array, statement), found a fourth");
    paths.push_back(data_root.empty() ? t : data_root + "/" + t);
  }
  if (paths.size() != 3)
    throw InputError(SourceLocation{experiment_path, 0, 0},
                     "expected three paths (mapping, PE array, statement), found " + std::to_string(paths.size()));
  return load_problem(paths[1], paths[2], paths[0]);
}

Problem make_problem(const std::string& pe_domain, const std::string& interconnect,
                     const std::string& iteration_domain, const std::vector<std::string>& reads,
                     const std::vector<std::string>& writes, const std::string& space_map,
                     const std::string& time_map, std::uint64_t bandwidth, std::uint64_t avg_latency) {
  auto rt = [](const std::string& text, std::uint32_t line) { return RelationText{text, SourceLocation{"<generated>", line, 1}}; };
  Problem p;
  p.pe.domain = rt(pe_domain, 1);
  p.pe.interconnect = rt(interconnect, 2);
  p.pe.bandwidth = bandwidth;
  p.pe.avg_latency = avg_latency;
  p.statement.domain = rt(iteration_domain, 2);
  std::uint32_t line = 3;
  for (const auto& r : reads) p.statement.reads.push_back(rt(r, line++));
  for (const auto& w : writes) p.statement.writes.push_back(rt(w, line++));
  p.mapping.space_map = rt(space_map, 1);
  p.mapping.time_map = rt(time_map, 2);
  return p;
}

}  // namespace tenet_cost::tenet
