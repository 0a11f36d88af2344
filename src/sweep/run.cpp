// Running a sweep: validate the grid, skip finished points, evaluate the rest on threads with one Estimator per
// point-group and thread, append each line at once (docs/sweep.md).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/parallel.hpp"
#include "sweep/internal.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::int64_t kMaxPoints = 10'000'000;

// ------------------------------------------------------------- models

// The files of a --model value: a shipped name (workloads/<name>/q0f16.py, or <name>/<stem> for <stem>.py, with
// its config.json), an HF config.json, or a dump (with the config.json next to it, when there is one, for heads).
struct ModelFiles {
  std::string dump, config;
};

ModelFiles resolve_model(const std::string& value, const std::string& workloads_dir) {
  std::error_code ec;
  const bool is_json = value.size() > 5 && value.substr(value.size() - 5) == ".json";
  if (fs::is_regular_file(value, ec)) {
    if (is_json) return {"", value};
    const fs::path cfg = fs::path(value).parent_path() / "config.json";
    return {value, fs::is_regular_file(cfg, ec) ? cfg.string() : ""};
  }
  const auto slash = value.find('/');
  const std::string name = value.substr(0, slash);
  const std::string stem = slash == std::string::npos ? "q0f16" : value.substr(slash + 1);
  const fs::path dir = fs::path(workloads_dir) / name;
  if (!name.empty() && !is_json && stem.find('/') == std::string::npos &&
      fs::is_regular_file(dir / (stem + ".py"), ec)) {
    const fs::path cfg = dir / "config.json";
    return {(dir / (stem + ".py")).string(), fs::is_regular_file(cfg, ec) ? cfg.string() : ""};
  }
  std::string shipped;
  for (const auto& e : fs::directory_iterator(workloads_dir, ec))
    if (e.is_directory()) shipped += (shipped.empty() ? "" : ", ") + e.path().filename().string();
  throw InputError("--model " + value + ": expected a dump, a config.json or a shipped model (" + shipped +
                   ", or <name>/<dump stem>), found no such file");
}

struct LoadedModel {
  std::optional<ExtractResult> extracted;  // a dump
  std::optional<model::ModelConfig> config;
};

LoadedModel load_model(const ModelFiles& f) {
  LoadedModel m;
  if (!f.config.empty()) m.config = model::load_hf_config(f.config);
  if (!f.dump.empty()) m.extracted = extract_workloads(ir::load_module(f.dump), {});
  return m;
}

std::string file_digest(const std::string& path) { return hex16(fnv1a(read_file(path))); }

// ------------------------------------------------------------- what a point asks for

// One point's inputs, read from its axis values. A new axis: a field here and a case in read().
struct PointConfig {
  std::string arch, dataflow, array_model, objective, quant;
  std::vector<arch::Override> set;
  std::size_t model = 0;  // index into the model axis
  std::int64_t seq_len = 0, context = 0, batch = 1;
};

void read(PointConfig& c, const Axis& axis, std::size_t at) {
  const std::string& v = axis.values[at];
  switch (axis.kind) {
    case AxisKind::kArch: c.arch = v; return;
    case AxisKind::kSet: c.set.push_back(arch::Override{axis.path, v}); return;
    case AxisKind::kDataflow: c.dataflow = v; return;
    case AxisKind::kArrayModel: c.array_model = v; return;
    case AxisKind::kObjective: c.objective = v; return;
    case AxisKind::kBatch: c.batch = positive_integer(v, "batch"); return;
    case AxisKind::kModel: c.model = at; return;
    case AxisKind::kSeqLen: c.seq_len = positive_integer(v, "seq_len"); return;
    case AxisKind::kContext: c.context = positive_integer(v, "context"); return;
    case AxisKind::kQuant: c.quant = v; return;
  }
}

bool is_dump_scheme(const std::string& quant) { return quant == "dump"; }

// The point's record: every axis value (integers as integers, --set values as given) and the digests of the files
// it reads, so that an edited arch or dump is a new point.
json point_json(const Grid& g, const std::vector<std::size_t>& at,
                const std::map<std::pair<AxisKind, std::string>, std::string>& digests) {
  json p = json::object();
  p["set"] = json::object();
  json files = json::object();
  for (std::size_t i = 0; i < g.axes.size(); ++i) {
    const Axis& a = g.axes[i];
    const AxisDef& d = axis_def(a.kind);
    const std::string& v = a.values[at[i]];
    if (a.kind == AxisKind::kSet) p["set"][a.path] = v;
    else if (d.integer) p[d.key] = positive_integer(v, d.key);
    else p[d.key] = v;
    const auto it = digests.find({a.kind, v});
    if (it != digests.end()) files[d.key] = it->second;
  }
  p["files"] = files;
  return p;
}

json result_json(const model::CompareRow& r) {
  auto phase = [](const model::PhaseSum& s, double tokens_per_s) {
    return json{{"latency_s", s.latency_s},
                {"energy_j", s.energy_j},
                {"dram_bytes", s.dram_bytes},
                {"scale_dram_bytes", s.scale_dram_bytes},
                {"tokens_per_s", tokens_per_s}};
  };
  for (const double x : {r.prefill.latency_s, r.prefill.energy_j, r.decode.latency_s, r.decode.energy_j,
                         r.prefill_tokens_per_s, r.decode_tokens_per_s})
    if (!std::isfinite(x)) throw InternalError("sweep: a non-finite result");
  return json{{"scheme", r.scheme},
              {"prefill", phase(r.prefill, r.prefill_tokens_per_s)},
              {"decode", phase(r.decode, r.decode_tokens_per_s)}};
}

// ------------------------------------------------------------- the results file

class Sink {
 public:
  explicit Sink(const std::string& path) : path_(path) {
    if (path_.empty()) return;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw InputError(path_ + ": cannot open for appending: " + std::strerror(errno));
  }
  ~Sink() {
    if (fd_ >= 0) ::close(fd_);
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  // one write() per line: a kill between lines leaves whole lines, a power cut at worst a partial last one
  void append(const std::string& id, std::string line) {
    if (fd_ < 0) {
      lines_.push_back(ResultLine{id, std::move(line)});
      return;
    }
    line += '\n';
    std::size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw InputError(path_ + ": cannot append a result: " + std::strerror(errno));
      off += static_cast<std::size_t>(n);
    }
  }
  std::vector<ResultLine> take() { return std::move(lines_); }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<ResultLine> lines_;
};

struct Pending {
  std::size_t group = 0;        // index of its estimator group
  std::vector<std::size_t> at;  // value index per axis
  std::string id;
  json point;
};

model::Phases phases_of(const PointConfig& c) {
  model::Phases ph;
  ph.seq_len = c.seq_len;
  ph.context = c.context;
  ph.batch = c.batch;
  return ph;
}

std::vector<std::size_t> key_of(const std::vector<std::size_t>& at, const std::vector<std::size_t>& axes) {
  std::vector<std::size_t> k;
  k.reserve(axes.size());
  for (const auto i : axes) k.push_back(at[i]);
  return k;
}

// Stage 1: every value of every axis parsed, and the files the values read digested (an edited file: new points).
struct CheckedAxes {
  std::map<std::pair<AxisKind, std::string>, std::string> digests;
  std::vector<ModelFiles> model_files;
  std::map<std::string, std::optional<quant::Scheme>> schemes;  // nullopt: the dump's own scheme
  std::map<std::string, mapping::Dataflow> dataflows;
  std::map<std::string, cost::ArrayMethod> methods;
  std::map<std::string, cost::Objective> objectives;
};

CheckedAxes check_axes(const Grid& g, const RunOptions& opt) {
  CheckedAxes ck;
  for (const auto& a : g.axes)
    for (const auto& v : a.values) switch (a.kind) {
        case AxisKind::kArch: ck.digests[{a.kind, v}] = file_digest(arch::arch_file(v, opt.presets_dir)); break;
        case AxisKind::kDataflow:
          ck.dataflows.emplace(v, mapping::parse_dataflow(v));
          if (!ck.dataflows.at(v).preset) ck.digests[{a.kind, v}] = file_digest(v);
          break;
        case AxisKind::kArrayModel: ck.methods.emplace(v, cost::parse_array_method(v)); break;
        case AxisKind::kObjective: ck.objectives.emplace(v, cost::parse_objective(v)); break;
        case AxisKind::kModel: {
          ck.model_files.push_back(resolve_model(v, opt.workloads_dir));
          const auto& f = ck.model_files.back();
          ck.digests[{a.kind, v}] =
              hex16(fnv1a(f.config.empty() ? "" : read_file(f.config), fnv1a(f.dump.empty() ? "" : read_file(f.dump))));
          break;
        }
        case AxisKind::kQuant:
          ck.schemes.emplace(v, is_dump_scheme(v) ? std::nullopt : std::optional(quant::parse_scheme(v)));
          break;
        case AxisKind::kSet:
        case AxisKind::kSeqLen:
        case AxisKind::kContext:
        case AxisKind::kBatch: break;  // --set: with the arch in configure_groups; integers: normalized()
      }
  return ck;
}

// The ids already in the results file (a resumed run skips them); a corrupt last line (a run killed mid-write) is cut.
std::set<std::string> finished_ids(const RunOptions& opt, RunSummary& sum) {
  std::set<std::string> done;
  std::error_code ec;
  if (opt.out.empty() || !fs::exists(opt.out, ec)) return done;
  const ResultsFile existing = parse_results(read_file(opt.out), opt.out, true);
  for (const auto& l : existing.lines) done.insert(l.id);
  if (existing.corrupt_tail) {
    if (::truncate(opt.out.c_str(), static_cast<off_t>(existing.valid_bytes)) != 0)
      throw InputError(opt.out + ": cannot drop its corrupt last line: " + std::strerror(errno));
    sum.dropped_corrupt_tail = true;
    sum.corrupt_line = existing.tail_line;
  }
  return done;
}

// Stage 2: the points (the last axis fastest), their ids, estimator groups and this shard's pending ones.
struct Enumerated {
  std::vector<std::size_t> est_axes, plan_axes;  // the axes that choose the Estimator / the model plan
  std::vector<std::vector<std::size_t>> groups;  // group -> its estimator key (value index per est_axes)
  std::vector<Pending> pending;
};

Enumerated enumerate_points(const Grid& g, const CheckedAxes& ck, const std::set<std::string>& done,
                            const RunOptions& opt, RunSummary& sum) {
  Enumerated en;
  for (std::size_t i = 0; i < g.axes.size(); ++i) {
    const Stage s = axis_def(g.axes[i].kind).stage;
    if (s == Stage::kEstimator) en.est_axes.push_back(i);
    if (s == Stage::kPlan) en.plan_axes.push_back(i);
  }
  std::map<std::vector<std::size_t>, std::size_t> group_of;  // estimator key -> group
  std::vector<std::size_t> at(g.axes.size(), 0);
  for (std::int64_t n = 0; n < sum.points; ++n) {
    const auto [git, fresh] = group_of.emplace(key_of(at, en.est_axes), en.groups.size());
    if (fresh) en.groups.push_back(git->first);
    json point = point_json(g, at, ck.digests);
    std::string id = hex16(fnv1a(point.dump()));
    if (in_shard(id, opt.shard)) {
      ++sum.in_shard;
      if (done.count(id)) ++sum.skipped;
      else en.pending.push_back(Pending{git->second, at, std::move(id), std::move(point)});
    }
    for (std::size_t i = g.axes.size(); i-- > 0;) {  // next index, last axis fastest
      if (++at[i] < g.axes[i].values.size()) break;
      at[i] = 0;
    }
  }
  return en;
}

// Stage 3: every group's arch with its --set overrides, validated (also for groups with nothing left to do).
struct Group {
  PointConfig cfg;
  arch::Arch arch;
};

std::vector<Group> configure_groups(const Grid& g, const Enumerated& en, const RunOptions& opt) {
  std::vector<Group> out;
  out.reserve(en.groups.size());
  for (const auto& key : en.groups) {
    PointConfig c;
    for (std::size_t j = 0; j < en.est_axes.size(); ++j) read(c, g.axes[en.est_axes[j]], key[j]);
    arch::Arch a = arch::load_arch(c.arch, opt.presets_dir, c.set);
    out.push_back(Group{std::move(c), std::move(a)});
  }
  return out;
}

// Stage 4: the model plans the pending points need, each dump parsed once.
using Plans = std::map<std::vector<std::size_t>, model::Model>;  // plan key (value index per plan_axes) -> plan

Plans build_plans(const Grid& g, const CheckedAxes& ck, const Enumerated& en, RunSummary& sum) {
  std::map<std::size_t, LoadedModel> models;
  Plans plans;
  for (const auto& p : en.pending) {
    auto pkey = key_of(p.at, en.plan_axes);
    if (plans.count(pkey)) continue;
    PointConfig c;
    for (const auto i : en.plan_axes) read(c, g.axes[i], p.at[i]);
    const ModelFiles& files = ck.model_files[c.model];
    auto mit = models.find(c.model);
    if (mit == models.end()) {
      mit = models.emplace(c.model, load_model(files)).first;
      ++sum.models_loaded;
    }
    const LoadedModel& m = mit->second;
    const std::string& mname = files.dump.empty() ? files.config : files.dump;
    model::Model plan = m.extracted ? model::plan_from_extract(mname, *m.extracted, phases_of(c), m.config)
                                    : model::plan_from_config(mname, *m.config, phases_of(c));
    plan.name = fs::path(mname).filename().string();
    if (plan.gemms.empty()) throw InputError(mname + ": no GEMM workloads found");
    plans.emplace(std::move(pkey), std::move(plan));
  }
  return plans;
}

// Stage 5: chunks of consecutive pending points of one group, on threads; each thread keeps its groups' Estimators.
class Evaluation {
 public:
  Evaluation(const Grid& g, const CheckedAxes& ck, const Enumerated& en, const std::vector<Group>& groups,
             const Plans& plans, const RunOptions& opt)
      : g_(g), ck_(ck), en_(en), groups_(groups), plans_(plans), opt_(opt), sink_(opt.out) {
    // one GEMM memo per group (its arch, dataflow and options), shared by its points and by every thread
    for (std::size_t i = 0; i < groups_.size(); ++i) memos_.push_back(cost::make_gemm_memo());
  }

  void run(unsigned threads) {
    const std::size_t chunk = std::clamp<std::size_t>(en_.pending.size() / (std::size_t{threads} * 8), 1, 32);
    for (std::size_t b = 0; b < en_.pending.size();) {
      std::size_t e = b + 1;
      while (e < en_.pending.size() && e - b < chunk && en_.pending[e].group == en_.pending[b].group) ++e;
      chunks_.emplace_back(b, e);
      b = e;
    }
    prog_.total = en_.pending.size();
    start_ = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < chunks_.size(); ++t) pool.emplace_back([this] { worker(); });
    worker();
    for (auto& t : pool) t.join();
    if (failure_) std::rethrow_exception(failure_);
  }

  void summarize(RunSummary& sum) {
    sum.evaluated = prog_.done;
    sum.errors = prog_.errors;
    sum.estimators = estimators_;
    sum.lines = sink_.take();
  }

 private:
  using Estimators = std::map<std::size_t, std::unique_ptr<cost::Estimator>>;

  void worker() {
    Estimators mine;
    try {
      for (std::size_t ci = next_++; ci < chunks_.size() && !failed_; ci = next_++)
        for (std::size_t pi = chunks_[ci].first; pi < chunks_[ci].second; ++pi) {
          const Pending& p = en_.pending[pi];
          const json line = evaluate(p, mine);
          const std::string text = line.dump();
          std::lock_guard<std::mutex> lock(mu_);
          sink_.append(p.id, text);
          ++prog_.done;
          if (line.contains("error")) ++prog_.errors;
          prog_.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
          if (opt_.progress) opt_.progress(prog_);
        }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!failure_) failure_ = std::current_exception();
      failed_ = true;
    }
  }

  // One point's line: its result, or the InputError that point alone ran into.
  json evaluate(const Pending& p, Estimators& mine) {
    PointConfig c;
    for (std::size_t i = 0; i < g_.axes.size(); ++i)
      if (axis_def(g_.axes[i].kind).stage != Stage::kEstimator) read(c, g_.axes[i], p.at[i]);
    json line = json{{"id", p.id}, {"point", p.point}};
    try {
      auto est = mine.find(p.group);
      if (est == mine.end()) {
        if (mine.size() >= 8) mine.clear();  // chunks of a group mostly come to the same thread in a row
        const Group& gr = groups_[p.group];
        cost::Options o;
        o.method = ck_.methods.at(gr.cfg.array_model);
        o.objective = ck_.objectives.at(gr.cfg.objective);
        o.engine_time_limit_s = opt_.engine_time_limit_s;
        o.engine_max_points = opt_.engine_max_points;
        est = mine.emplace(p.group, std::make_unique<cost::Estimator>(gr.arch, ck_.dataflows.at(gr.cfg.dataflow), o,
                                                                      memos_.at(p.group)))
                  .first;
        ++estimators_;
      }
      const auto r =
          model::compare(*est->second, plans_.at(key_of(p.at, en_.plan_axes)), phases_of(c), {ck_.schemes.at(c.quant)});
      line["result"] = result_json(r.rows.front());
    } catch (const InputError& e) {
      line["error"] = e.what();
    }
    return line;
  }

  const Grid& g_;
  const CheckedAxes& ck_;
  const Enumerated& en_;
  const std::vector<Group>& groups_;
  std::vector<std::shared_ptr<cost::GemmMemo>> memos_;
  const Plans& plans_;
  const RunOptions& opt_;
  Sink sink_;
  std::vector<std::pair<std::size_t, std::size_t>> chunks_;
  std::mutex mu_;
  Progress prog_;
  std::atomic<std::size_t> estimators_{0};
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr failure_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

RunSummary run(const Grid& grid_in, const RunOptions& opt) {
  const Grid g = normalized(grid_in);
  RunSummary sum;
  sum.points = point_count(g);
  if (sum.points > kMaxPoints)
    throw InputError("the grid has " + std::to_string(sum.points) + " points; at most " + std::to_string(kMaxPoints) +
                     " per sweep (split it into several spec files)");
  const CheckedAxes ck = check_axes(g, opt);
  const std::set<std::string> done = finished_ids(opt, sum);
  const Enumerated en = enumerate_points(g, ck, done, opt, sum);
  const std::vector<Group> groups = configure_groups(g, en, opt);
  const Plans plans = build_plans(g, ck, en, sum);
  Evaluation ev(g, ck, en, groups, plans, opt);
  ev.run(parallel::thread_count(opt.jobs, "TC_SWEEP_THREADS"));
  ev.summarize(sum);
  std::sort(sum.lines.begin(), sum.lines.end(), [](const ResultLine& a, const ResultLine& b) { return a.id < b.id; });
  return sum;
}

}  // namespace tenet_cost::sweep
