// TVMScript front-end: Python AST (ir/pyast.hpp) -> typed IR (tenet_cost/ir.hpp).
//
// Lowering is lenient: a construct this front-end does not model becomes
// StmtKind::kOther / ExprKind::kOther / RExprKind::kOther carrying its source
// text, so one odd function never blocks the rest of a dump. Only syntax
// errors (from the parser) and unrepresentable literals are fatal.
//
// The lowering is src/ir/tvmscript_lowerer.hpp (the Lowerer) with tvmscript_module.cpp, tvmscript_stmt.cpp,
// tvmscript_expr.cpp; this file drives the parse, serial or in parallel chunks.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/parallel.hpp"
#include "ir/node_pool.hpp"
#include "ir/pyast.hpp"
#include "ir/text_hash.hpp"
#include "ir/tvmscript_lowerer.hpp"
#include "ir/whole_module.hpp"
#include "tenet_cost/dtype.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {

namespace {

using py::Stmt;
using tvmscript::Lowerer;
using tvmscript::ModuleScope;

// ============================================================ parallel parse
//
// A large dump is parsed in K chunks at once, split before top-level
// functions (class members at the class's member indentation, or defs at the
// left margin). Each chunk gets its own lexer, parser, arena and lowerer and
// starts from the state a serial parse would have at its first line (line
// number, indentation, enclosing class, imports seen), which is guessed and
// then verified: the chunk before it must end exactly there, at a statement
// boundary of the same class body (or of the top level), with the same
// indentation stack, line number and scope. Any mismatch or error and the
// whole text is parsed serially, so the result (or the error) is always the
// serial one.

Module parse_serial(const std::string& text, const std::string& filename) {
  Module mod;
  mod.source = filename;
  mod.format = "tvmscript";
  py::Arena arena;
  py::Parser parser(text, filename, arena);
  Lowerer lowerer(parser, filename, mod);
  parser.parse_file(lowerer);
  return mod;
}

// Chunks per thread: at least kMinChunksPerThread, more for a large text (one
// per kChunkBytes, up to kMaxChunksPerThread) so that the last chunk leaves
// the other threads idle for a short time only.
constexpr unsigned kMinChunksPerThread = 4;
constexpr unsigned kMaxChunksPerThread = 16;
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

unsigned thread_count(const ParseOptions& opt) { return parallel::thread_count(opt.threads, "TC_PARSE_THREADS"); }

// Line breaks in [b, e) as the lexer counts them: "\n", "\r\n" and a lone "\r".
std::uint32_t count_lines(std::string_view text, std::size_t b, std::size_t e) {
  const char* p = text.data() + b;
  const char* const end = text.data() + e;
  std::size_t n = 0;
  bool any_cr = false;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  __m128i crs = _mm_setzero_si128();
  while (end - p >= 16) {
    __m128i acc = _mm_setzero_si128();  // per-byte counts, summed before they can wrap
    for (int i = 0; i < 255 && end - p >= 16; ++i, p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
      crs = _mm_or_si128(crs, _mm_cmpeq_epi8(v, cr));
    }
    const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    n += static_cast<std::size_t>(_mm_cvtsi128_si64(sums)) +
         static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
  any_cr = _mm_movemask_epi8(crs) != 0;
#endif
  for (; p < end; ++p) {
    n += *p == '\n' ? 1 : 0;
    any_cr = any_cr || *p == '\r';
  }
  if (any_cr) {
    for (std::size_t i = b; i < e; ++i)
      if (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) ++n;
  }
  return static_cast<std::uint32_t>(n);
}

// The character after exactly `indent` spaces at the line start `p`, or '\0'
// when the line is indented otherwise.
char after_indent(std::string_view text, std::size_t p, std::uint32_t indent) {
  if (p + indent >= text.size()) return '\0';
  for (std::size_t i = p; i < p + indent; ++i)
    if (text[i] != ' ') return '\0';
  return text[p + indent] == ' ' ? '\0' : text[p + indent];
}

bool starts_def(std::string_view text, std::size_t p, std::uint32_t indent) {
  return after_indent(text, p, indent) == 'd' && text.substr(p + indent, 4) == "def ";
}

// The start of the line before the one starting at `p` (p >= 2).
std::size_t previous_line(std::string_view text, std::size_t p) {
  const std::size_t nl = text.rfind('\n', p - 2);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Does a function definition (its first decorator, or its `def` when it has
// none) start at the line start `p`, indented by `indent`?
bool starts_function(std::string_view text, std::size_t p, std::uint32_t indent) {
  const char c = after_indent(text, p, indent);
  if (c != '@' && !(c == 'd' && starts_def(text, p, indent))) return false;
  if (p < 2) return true;
  return after_indent(text, previous_line(text, p), indent) != '@';  // not a second decorator of the one above
}

std::size_t next_line(std::string_view text, std::size_t p) {
  const std::size_t nl = text.find('\n', p);
  return nl == std::string_view::npos ? text.size() : nl + 1;
}

using parallel::run_parallel;

// Where the chunks split, and the state a serial parse has at each split line.
struct SplitPlan {
  std::uint32_t indent = 0;           // the functions' indentation (0: top level)
  py::Parser::StopContext context = py::Parser::StopContext::kTopLevel;
  const Stmt* cls = nullptr;          // the enclosing class header (class members)
  ModuleScope scope;
  std::vector<std::size_t> starts;    // chunk starts: 0, then split lines
  std::vector<std::uint32_t> lines;   // the line number at each start
};

struct ChunkResult {
  Module part;
  bool ok = false;  // parsed; unless last, ended at the next split in the planned state
};

void parse_chunk(const std::string& text, const std::string& filename, const SplitPlan& plan, std::size_t k,
                 ChunkResult& out) noexcept {
  try {
    const bool last = k + 1 == plan.starts.size();
    py::LexRange range;
    range.begin = plan.starts[k];
    range.line = plan.lines[k];
    range.indent = k > 0 ? plan.indent : 0;
    range.stop = last ? py::LexRange::kNoStop : plan.starts[k + 1];
    py::Arena arena;
    py::Parser parser(text, filename, arena, range);
    Lowerer lowerer(parser, filename, out.part);
    if (k > 0) lowerer.set_scope(plan.scope);
    parser.parse_file(lowerer, k > 0 ? plan.cls : nullptr);
    if (last) {
      out.ok = true;
      return;
    }
    const auto& lex = parser.lexer();
    const std::vector<std::uint32_t> indents =
        plan.indent > 0 ? std::vector<std::uint32_t>{0, plan.indent} : std::vector<std::uint32_t>{0};
    out.ok = parser.stopped_in() == plan.context && lex.line() == plan.lines[k + 1] && lex.indents() == indents &&
             lowerer.scope() == plan.scope;
  } catch (...) {
    out.ok = false;  // the serial parse reports it
  }
}

std::optional<Module> parse_parallel(const std::string& text, const std::string& filename, unsigned threads,
                                     ParseStats& stats) {
  const std::string_view t(text);
  // The first function: its indentation says where the split lines are.
  std::size_t first = t.size();
  std::uint32_t indent = 0;
  for (std::size_t p = 0; p < t.size(); p = next_line(t, p)) {
    std::uint32_t sp = 0;
    while (p + sp < t.size() && t[p + sp] == ' ') ++sp;
    if (!starts_def(t, p, sp)) continue;
    first = p;  // back to its first decorator
    while (first >= 2 && after_indent(t, previous_line(t, first), sp) == '@') first = previous_line(t, first);
    indent = sp;
    break;
  }
  if (first >= t.size()) return std::nullopt;

  SplitPlan plan;
  plan.indent = indent;
  plan.context = indent > 0 ? py::Parser::StopContext::kClassBody : py::Parser::StopContext::kTopLevel;
  plan.starts.push_back(0);
  const std::size_t span = t.size() - first;
  // A few chunks per thread, taken in turn, keep the threads busy to the end
  // even when chunks parse at different speeds.
  const auto chunks = static_cast<unsigned>(
      std::clamp<std::size_t>(span / kChunkBytes, threads * kMinChunksPerThread, threads * kMaxChunksPerThread));
  for (unsigned k = 1; k < chunks; ++k) {
    std::size_t p = std::max(first + span / chunks * k, plan.starts.back() + 1);
    if (p > 0 && t[p - 1] != '\n') p = next_line(t, p);
    while (p < t.size() && !starts_function(t, p, indent)) p = next_line(t, p);
    if (p >= t.size()) break;
    plan.starts.push_back(p);
  }
  if (plan.starts.size() < 2) return std::nullopt;

  // The state at the first function, from a parse of the text before it (the
  // header: imports, the class line). Its arena keeps the class header alive.
  py::Arena header_arena;
  Module header_mod;
  py::LexRange header_range;
  header_range.stop = first;
  py::Parser header(text, filename, header_arena, header_range);
  Lowerer header_lowerer(header, filename, header_mod);
  try {
    header.parse_file(header_lowerer);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (header.stopped_in() != plan.context || !header_mod.prim_funcs.empty() || !header_mod.relax_funcs.empty())
    return std::nullopt;
  plan.scope = header_lowerer.scope();
  plan.cls = plan.context == py::Parser::StopContext::kClassBody ? header_lowerer.class_header() : nullptr;

  const std::size_t n = plan.starts.size();
  std::vector<std::uint32_t> breaks(n, 0);
  run_parallel(threads, n - 1, [&](std::size_t k) { breaks[k] = count_lines(t, plan.starts[k], plan.starts[k + 1]); });
  plan.lines.push_back(1);
  for (std::size_t k = 0; k + 1 < n; ++k) plan.lines.push_back(plan.lines.back() + breaks[k]);

  std::vector<ChunkResult> results(n);
  run_parallel(threads, n, [&](std::size_t k) { parse_chunk(text, filename, plan, k, results[k]); });
  stats.chunks = static_cast<unsigned>(n);
  stats.threads = std::min(threads, stats.chunks);
  for (const auto& r : results)
    if (!r.ok) return std::nullopt;

  Module mod;
  mod.source = filename;
  mod.format = "tvmscript";
  std::size_t n_prim = 0, n_relax = 0;
  for (const auto& r : results) {
    n_prim += r.part.prim_funcs.size();
    n_relax += r.part.relax_funcs.size();
  }
  mod.prim_funcs.reserve(n_prim);
  mod.relax_funcs.reserve(n_relax);
  for (auto& r : results) {
    std::move(r.part.prim_funcs.begin(), r.part.prim_funcs.end(), std::back_inserter(mod.prim_funcs));
    std::move(r.part.relax_funcs.begin(), r.part.relax_funcs.end(), std::back_inserter(mod.relax_funcs));
    std::move(r.part.other_globals.begin(), r.part.other_globals.end(), std::back_inserter(mod.other_globals));
    r.part = Module();
  }
  return mod;
}

}  // namespace

Module parse_tvmscript(const std::string& text, const std::string& filename, const ParseOptions& options) {
  ParseStats local;
  ParseStats& stats = options.stats != nullptr ? *options.stats : local;
  stats = ParseStats{};
  const unsigned threads = thread_count(options);
  std::optional<Module> mod;
  if (threads > 1 && text.size() >= options.min_parallel_bytes && !options.ordered_debug_log) {
    mod = parse_parallel(text, filename, threads, stats);
    if (!mod) {
      stats.threads = 1;
      stats.chunks = 1;
      stats.fell_back = true;
    }
  }
  if (!mod) mod = parse_serial(text, filename);
  check_defined_once(*mod, text, filename);
  if (options.require_whole_module) check_whole_module(*mod, text, filename);
  return std::move(*mod);
}

Module parse_tvmscript(const std::string& text, const std::string& filename) {
  return parse_tvmscript(text, filename, ParseOptions{});
}

}  // namespace tenet_cost::ir
