// tenet-cost sweep [--spec F] [--model A,B] [--arch ..] [--set KEY=V1,V2]... [--out results.jsonl] [--shard I/N]
// tenet-cost sweep merge a.jsonl b.jsonl ... [--out all.jsonl|all.csv]
// tenet-cost [-o page.html] sweep plot results.jsonl
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "commands.hpp"
#include "model_args.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/report_html.hpp"
#include "tenet_cost/sweep.hpp"

namespace tenet_cost::cli {

namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  std::string spec, out, csv, shard, format = "jsonl";
  std::int64_t shards = 0;
  unsigned jobs = 0;
  double every = 10;
  double time_limit = cost::kDefaultEngineTimeLimit;
  std::int64_t engine_points = cost::kDefaultEnginePoints;
  bool quiet = false;
  std::map<sweep::AxisKind, std::string> lists;  // --model a,b ...
  std::vector<std::string> set;                  // --set KEY=V1,V2
};

struct MergeArgs {
  std::vector<std::string> files;
  std::string out, format;
};

bool csv_format(const std::string& format, const std::string& out) {
  if (format == "csv") return true;
  if (format == "jsonl" || format == "json") return false;
  if (!format.empty()) throw InputError("--format: expected jsonl or csv, found '" + format + "'");
  return out.size() > 4 && out.substr(out.size() - 4) == ".csv";
}

// A results file's text (the header, then the lines) or its CSV view, built on disk: the lines are never all in
// memory.
std::shared_ptr<Spool> results_text(const std::string& header, const sweep::SortedLines& lines, bool csv) {
  auto out = std::make_shared<Spool>();
  const auto emit = [&out](std::string_view piece) { out->append(piece); };
  if (csv) {
    sweep::write_csv(lines.source(), emit);
  } else {
    if (!header.empty()) out->append(header + "\n");
    lines.each([&out](const std::string& line) {
      out->append(line);
      out->append("\n");
    });
  }
  return out;
}

// A bar on a terminal's stderr; elsewhere (a batch job's log) one line every `every` seconds. The fraction is of the
// grid's points passed (evaluated now, finished before, or of another shard).
class ProgressView {
 public:
  ProgressView(bool quiet, double every) : quiet_(quiet), tty_(isatty(2) != 0), every_(every) {}
  void operator()(const sweep::Progress& p) {
    if (quiet_ || p.total == 0) return;
    const double pct = 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total);
    const double eta = p.done ? p.elapsed_s * static_cast<double>(p.total - p.done) / static_cast<double>(p.done) : 0;
    if (tty_) {
      if (p.elapsed_s - last_ < 0.1 && p.done != p.total) return;
      last_ = p.elapsed_s;
      const int width = 30, filled = static_cast<int>(pct / 100.0 * width);
      std::fprintf(stderr, "\rsweep [%s%s] %zu/%zu %5.1f%%, %zu evaluated, %zu errors, %.0f s left   ",
                   std::string(static_cast<std::size_t>(filled), '#').c_str(),
                   std::string(static_cast<std::size_t>(width - filled), '.').c_str(), p.done, p.total, pct,
                   p.evaluated, p.errors, eta);
      shown_ = true;
    } else if (p.elapsed_s - last_ >= every_ || p.done == p.total) {
      last_ = p.elapsed_s;
      std::fprintf(stderr, "sweep: %zu/%zu points (%.1f%%), %zu evaluated, %zu errors, %.1f s elapsed, %.0f s left\n",
                   p.done, p.total, pct, p.evaluated, p.errors, p.elapsed_s, eta);
    }
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  bool quiet_, tty_;
  double every_, last_ = 0;
  bool shown_ = false;
};

// The notes about the results file (printed also with -q: they say what was done to the data).
void print_notes(const sweep::RunSummary& sum, const std::string& out) {
  if (sum.dropped_corrupt_tail)
    std::fprintf(stderr, "sweep: %s: line %zu was partial or corrupt (an interrupted write): dropped and redone\n",
                 out.c_str(), sum.corrupt_line);
  if (sum.headerless)
    std::fprintf(stderr,
                 "sweep: note: %s was written by an earlier tenet-cost (no header line); its points all belong to "
                 "this grid, so it was resumed as it is\n",
                 out.c_str());
  if (sum.duplicates > 0)
    std::fprintf(stderr,
                 "sweep: note: %s holds %zu duplicate line(s) (the same point written twice by an earlier version); "
                 "each point is counted and shown once (`sweep merge` writes a file without them)\n",
                 out.c_str(), sum.duplicates);
}

void run_sweep(const SweepArgs& a, Context& ctx) {
  sweep::Grid grid;
  if (!a.spec.empty()) grid = sweep::parse_spec(read_file(a.spec, std::size_t{1} << 20), a.spec);
  for (const auto& [kind, list] : a.lists)
    sweep::set_axis(grid, kind, "", sweep::split_list(list, "--" + std::string(sweep::axis_def(kind).key)));
  for (const auto& s : a.set) {
    const auto eq = s.find('=');
    const auto o = arch::parse_override(s);  // the message for a missing '=' or an empty path
    sweep::set_axis(grid, sweep::AxisKind::kSet, o.path, sweep::split_list(s.substr(eq + 1), "--set " + s));
  }
  sweep::RunOptions opt;
  opt.presets_dir = arch_presets_dir();
  opt.workloads_dir = (fs::path(data_root()) / "workloads").string();
  opt.jobs = a.jobs;
  opt.engine_time_limit_s = cost::checked_time_limit(a.time_limit);
  opt.engine_max_points = cost::checked_engine_points(a.engine_points);
  opt.out = a.out;
  if (!a.csv.empty() && a.out.empty()) throw InputError("--csv needs --out (the CSV is a view of the results file)");
  opt.csv = a.csv;
  if (!a.spec.empty()) opt.other_files.emplace_back("--spec", a.spec);
  if (ctx.output != "-") opt.other_files.emplace_back("-o", ctx.output);
  std::string source = "--shard";
  if (!a.shard.empty()) {
    opt.shard = sweep::parse_shard(a.shard);
  } else if (const auto s = sweep::shard_from_env([](const char* n) { return std::getenv(n); },
                                                  a.shards > 0 ? std::optional(a.shards) : std::nullopt, &source)) {
    opt.shard = *s;
  }
  const bool csv = csv_format(a.format, "");
  ProgressView view(a.quiet, a.every);
  opt.progress = [&view](const sweep::Progress& p) { view(p); };
  const sweep::RunSummary sum = sweep::run(grid, opt);
  view.finish();
  print_notes(sum, a.out);
  if (!a.quiet) {
    std::string shard;
    if (opt.shard.count > 1)
      shard =
          " in shard " + std::to_string(opt.shard.index) + "/" + std::to_string(opt.shard.count) + " (" + source + ")";
    std::fprintf(stderr,
                 "sweep: %lld points, %zu%s: %zu finished before, %zu evaluated (%zu errors); %zu models parsed, %zu "
                 "estimators, %zu plans\n",
                 static_cast<long long>(sum.points), sum.in_shard, shard.c_str(), sum.skipped, sum.evaluated,
                 sum.errors, sum.models_loaded, sum.estimators, sum.plans_built);
  }
  if (a.out.empty()) ctx.result_file = results_text(sum.header, sum.lines, csv);
}

}  // namespace

CLI::App* add_sweep(CLI::App& app, const Command& self, Context& ctx) {
  auto args = std::make_shared<SweepArgs>();
  auto margs = std::make_shared<MergeArgs>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("--spec", args->spec, "Sweep spec (JSON): the axes and their values (docs/sweep.md)");
  for (const auto& d : sweep::axis_defs()) {
    if (d.kind == sweep::AxisKind::kSet) continue;
    std::string flag = std::string("--") + d.key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    const sweep::AxisKind kind = d.kind;
    cmd->add_option_function<std::string>(
        flag, [args, kind](const std::string& v) { args->lists[kind] = v; },
        std::string(d.help) + ", comma-separated" +
            (d.default_value ? " (default: " + std::string(d.default_value) + ")" : " (default: not swept)"));
  }
  cmd->add_option("--set", args->set, "KEY=V1,V2: sweep an arch field over values (repeatable: the variants multiply)")
      ->allow_extra_args(false);
  cmd->add_option("--out", args->out,
                  "Results file: one JSON line per point, appended as it finishes; a rerun "
                  "resumes (default: all lines on stdout at the end)");
  cmd->add_option("--csv", args->csv, "Also write the CSV view of the complete --out file here at the end");
  cmd->add_option("--format", args->format, "jsonl | csv (stdout without --out)");
  cmd->add_option("--jobs,-j", args->jobs, "Threads (default: every hardware thread, at most 8)");
  cmd->add_option("--shard", args->shard,
                  "I/N: run the deterministic I-th of N parts (0-based; default: from "
                  "SLURM_ARRAY_TASK_ID/_COUNT or JOB_COMPLETION_INDEX)");
  cmd->add_option("--shards", args->shards, "N parts when the index comes from JOB_COMPLETION_INDEX");
  cmd->add_option("--progress-every", args->every, "Seconds between progress lines when stderr is not a terminal");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress or summary on stderr");
  add_time_limit_option(cmd, args->time_limit);
  add_engine_points_option(cmd, args->engine_points);

  auto* merge = cmd->add_subcommand("merge", "validate and de-duplicate results files into one (sorted by id)");
  merge->add_option("FILES", margs->files, "Results files (JSON lines)")->required();
  merge->add_option("--out", margs->out, "The merged file (.csv: the CSV view); default stdout");
  merge->add_option("--format", margs->format, "jsonl | csv (default: by --out's extension)");
  merge->callback([&ctx, margs] {
    const bool csv = csv_format(margs->format, margs->out);
    const auto merged = sweep::merge_results(margs->files);
    if (!margs->out.empty()) {
      if (csv) sweep::require_csv_target(margs->out, "merge --out");
      else sweep::require_results_target(margs->out, merged.header);
    }
    const auto text = results_text(merged.header, merged.lines, csv);
    if (margs->out.empty()) ctx.result_file = text;
    else write_output(margs->out, text->stream());
    std::fprintf(stderr, "sweep merge: %zu points from %zu files\n", merged.lines.size(), margs->files.size());
  });
  auto plot_file = std::make_shared<std::string>();
  auto* plot = cmd->add_subcommand("plot",
                                   "an HTML page of a results file: metrics against the swept axes per scheme "
                                   "and the Pareto front over the grid (docs/report.md)");
  plot->add_option("RESULTS", *plot_file, "A results file (JSON lines: sweep --out, sweep merge)")->required();
  plot->callback([&ctx, plot_file] {
    const auto file = sweep::parse_results(read_file(*plot_file), *plot_file, false);
    ctx.result = report::html::render(report::html::sweep_doc(file, *plot_file));
  });
  cmd->callback([&ctx, args, merge, plot] {
    if (merge->parsed() || plot->parsed()) return;
    run_sweep(*args, ctx);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
