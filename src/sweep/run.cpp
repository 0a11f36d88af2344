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

}  // namespace

// The run's numbered stages (check, resume, load, plan, evaluate, write) share their tables; splitting them into
// functions is open debt (docs/architecture.md).
// NOLINTNEXTLINE(readability-function-size): see above
RunSummary run(const Grid& grid_in, const RunOptions& opt) {
  const Grid g = normalized(grid_in);
  RunSummary sum;
  sum.points = point_count(g);
  if (sum.points > kMaxPoints)
    throw InputError("the grid has " + std::to_string(sum.points) + " points; at most " + std::to_string(kMaxPoints) +
                     " per sweep (split it into several spec files)");

  // 1. validate every value of every axis, and digest the files they read
  std::map<std::pair<AxisKind, std::string>, std::string> digests;
  std::vector<ModelFiles> model_files;
  std::map<std::string, std::optional<quant::Scheme>> schemes;
  std::map<std::string, mapping::Dataflow> dataflows;
  std::map<std::string, cost::ArrayMethod> methods;
  std::map<std::string, cost::Objective> objectives;
  std::vector<std::string> arch_names;
  for (const auto& a : g.axes)
    for (const auto& v : a.values) switch (a.kind) {
        case AxisKind::kArch:
          arch_names.push_back(v);
          digests[{a.kind, v}] = file_digest(arch::arch_file(v, opt.presets_dir));
          break;
        case AxisKind::kDataflow:
          dataflows.emplace(v, mapping::parse_dataflow(v));
          if (!dataflows.at(v).preset) digests[{a.kind, v}] = file_digest(v);
          break;
        case AxisKind::kArrayModel: methods.emplace(v, cost::parse_array_method(v)); break;
        case AxisKind::kObjective: objectives.emplace(v, cost::parse_objective(v)); break;
        case AxisKind::kModel: {
          model_files.push_back(resolve_model(v, opt.workloads_dir));
          const auto& f = model_files.back();
          digests[{a.kind, v}] =
              hex16(fnv1a(f.config.empty() ? "" : read_file(f.config), fnv1a(f.dump.empty() ? "" : read_file(f.dump))));
          break;
        }
        case AxisKind::kQuant:
          schemes.emplace(v, is_dump_scheme(v) ? std::nullopt : std::optional(quant::parse_scheme(v)));
          break;
        case AxisKind::kSet:
        case AxisKind::kSeqLen:
        case AxisKind::kContext:
        case AxisKind::kBatch: break;  // --set: with the arch below; integers: normalized()
      }

  // 2. enumerate the points (the last axis fastest), their ids, groups and the shard
  std::vector<std::size_t> est_axes, plan_axes;
  for (std::size_t i = 0; i < g.axes.size(); ++i) {
    const Stage s = axis_def(g.axes[i].kind).stage;
    if (s == Stage::kEstimator) est_axes.push_back(i);
    if (s == Stage::kPlan) plan_axes.push_back(i);
  }
  auto key_of = [](const std::vector<std::size_t>& at, const std::vector<std::size_t>& axes) {
    std::vector<std::size_t> k;
    k.reserve(axes.size());
    for (const auto i : axes) k.push_back(at[i]);
    return k;
  };
  std::set<std::string> done;
  ResultsFile existing;
  if (!opt.out.empty()) {
    std::error_code ec;
    if (fs::exists(opt.out, ec)) {
      existing = parse_results(read_file(opt.out), opt.out, true);
      for (const auto& l : existing.lines) done.insert(l.id);
      if (existing.corrupt_tail) {
        if (::truncate(opt.out.c_str(), static_cast<off_t>(existing.valid_bytes)) != 0)
          throw InputError(opt.out + ": cannot drop its corrupt last line: " + std::strerror(errno));
        sum.dropped_corrupt_tail = true;
        sum.corrupt_line = existing.tail_line;
      }
    }
  }
  std::map<std::vector<std::size_t>, std::size_t> group_of;  // estimator key -> group
  std::vector<std::vector<std::size_t>> groups;              // group -> estimator key
  std::vector<Pending> pending;
  std::vector<std::size_t> at(g.axes.size(), 0);
  for (std::int64_t n = 0; n < sum.points; ++n) {
    const auto ekey = key_of(at, est_axes);
    const auto [git, fresh] = group_of.emplace(ekey, groups.size());
    if (fresh) groups.push_back(ekey);
    json point = point_json(g, at, digests);
    std::string id = hex16(fnv1a(point.dump()));
    if (in_shard(id, opt.shard)) {
      ++sum.in_shard;
      if (done.count(id)) ++sum.skipped;
      else pending.push_back(Pending{git->second, at, std::move(id), std::move(point)});
    }
    for (std::size_t i = g.axes.size(); i-- > 0;) {  // next index, last axis fastest
      if (++at[i] < g.axes[i].values.size()) break;
      at[i] = 0;
    }
  }

  // 3. every group's arch with its --set overrides, validated (also for groups with nothing left to do)
  std::vector<arch::Arch> archs;
  std::vector<PointConfig> group_cfg;
  for (const auto& key : groups) {
    PointConfig c;
    for (std::size_t j = 0; j < est_axes.size(); ++j) read(c, g.axes[est_axes[j]], key[j]);
    archs.push_back(arch::load_arch(c.arch, opt.presets_dir, c.set));
    group_cfg.push_back(std::move(c));
  }

  // 4. the models and plans the pending points need, each dump parsed once
  std::map<std::size_t, LoadedModel> models;
  std::map<std::vector<std::size_t>, model::Model> plans;
  for (const auto& p : pending) {
    PointConfig c;
    for (const auto i : plan_axes) read(c, g.axes[i], p.at[i]);
    auto pkey = key_of(p.at, plan_axes);
    if (plans.count(pkey)) continue;
    auto mit = models.find(c.model);
    if (mit == models.end()) {
      mit = models.emplace(c.model, load_model(model_files[c.model])).first;
      ++sum.models_loaded;
    }
    model::Phases ph;
    ph.seq_len = c.seq_len;
    ph.context = c.context;
    ph.batch = c.batch;
    const LoadedModel& m = mit->second;
    const std::string& mname =
        model_files[c.model].dump.empty() ? model_files[c.model].config : model_files[c.model].dump;
    model::Model plan = m.extracted ? model::plan_from_extract(mname, *m.extracted, ph, m.config)
                                    : model::plan_from_config(mname, *m.config, ph);
    plan.name = fs::path(mname).filename().string();
    if (plan.gemms.empty()) throw InputError(mname + ": no GEMM workloads found");
    plans.emplace(std::move(pkey), std::move(plan));
  }

  // 5. evaluate: chunks of consecutive points of one group; each thread keeps its groups' Estimators
  const unsigned threads = parallel::thread_count(opt.jobs, "TC_SWEEP_THREADS");
  const std::size_t chunk = std::clamp<std::size_t>(pending.size() / (std::size_t{threads} * 8), 1, 32);
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  for (std::size_t b = 0; b < pending.size();) {
    std::size_t e = b + 1;
    while (e < pending.size() && e - b < chunk && pending[e].group == pending[b].group) ++e;
    chunks.emplace_back(b, e);
    b = e;
  }
  Sink sink(opt.out);
  std::mutex mu;
  Progress prog;
  prog.total = pending.size();
  std::atomic<std::size_t> estimators{0};
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    std::map<std::size_t, std::unique_ptr<cost::Estimator>> mine;
    try {
      for (std::size_t ci = next++; ci < chunks.size() && !failed; ci = next++) {
        for (std::size_t pi = chunks[ci].first; pi < chunks[ci].second; ++pi) {
          const Pending& p = pending[pi];
          PointConfig c;
          for (std::size_t i = 0; i < g.axes.size(); ++i)
            if (axis_def(g.axes[i].kind).stage != Stage::kEstimator) read(c, g.axes[i], p.at[i]);
          json line = json{{"id", p.id}, {"point", p.point}};
          try {
            auto est = mine.find(p.group);
            if (est == mine.end()) {
              if (mine.size() >= 8) mine.clear();  // chunks of a group mostly come to the same thread in a row
              const PointConfig& gc = group_cfg[p.group];
              cost::Options o;
              o.method = methods.at(gc.array_model);
              o.objective = objectives.at(gc.objective);
              o.engine_time_limit_s = opt.engine_time_limit_s;
              est =
                  mine.emplace(p.group, std::make_unique<cost::Estimator>(archs[p.group], dataflows.at(gc.dataflow), o))
                      .first;
              ++estimators;
            }
            model::Phases ph;
            ph.seq_len = c.seq_len;
            ph.context = c.context;
            ph.batch = c.batch;
            const auto r = model::compare(*est->second, plans.at(key_of(p.at, plan_axes)), ph, {schemes.at(c.quant)});
            line["result"] = result_json(r.rows.front());
          } catch (const InputError& e) {
            line["error"] = e.what();
          }
          const std::string text = line.dump();
          std::lock_guard<std::mutex> lock(mu);
          sink.append(p.id, text);
          ++prog.done;
          if (line.contains("error")) ++prog.errors;
          prog.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (opt.progress) opt.progress(prog);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < chunks.size(); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);

  sum.evaluated = prog.done;
  sum.errors = prog.errors;
  sum.estimators = estimators;
  sum.lines = sink.take();
  std::sort(sum.lines.begin(), sum.lines.end(), [](const ResultLine& a, const ResultLine& b) { return a.id < b.id; });
  return sum;
}

}  // namespace tenet_cost::sweep
