// Running a sweep: validate the grid, then stream its points — skip the finished ones, evaluate the rest on threads
// with one Estimator per point-group and thread, append each line at once (docs/sweep.md).
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>

#include "common/parallel.hpp"
#include "sweep/internal.hpp"
#include "sweep/shares.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/model_json.hpp"
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
  std::string name;  // the dump's path, else the config's
};

LoadedModel load_model(const ModelFiles& f) {
  LoadedModel m;
  if (!f.config.empty()) m.config = model::load_hf_config(f.config);
  if (!f.dump.empty()) m.extracted = extract_workloads(ir::load_module(f.dump), {});
  m.name = f.dump.empty() ? f.config : f.dump;
  return m;
}

// The model's plan at `ph` (a dump's extracted workloads, else its config's); throws InputError.
model::Model build_plan(const LoadedModel& m, const model::Phases& ph) {
  model::Model p = m.extracted ? model::plan_from_extract(m.name, *m.extracted, ph, m.config)
                               : model::plan_from_config(m.name, *m.config, ph);
  p.name = fs::path(m.name).filename().string();
  if (p.gemms.empty()) throw InputError(m.name + ": no GEMM workloads found");
  return p;
}

std::string file_digest(const std::string& path) { return hex16(fnv1a(read_file(path))); }

// ------------------------------------------------------------- what a point asks for

// One point's inputs, read from its axis values. A new axis: a field here and a case in read().
struct PointConfig {
  std::string arch, dataflow, array_model, objective, quant;
  std::vector<arch::Override> set;
  std::size_t model = 0;  // index into the model axis
  std::int64_t seq_len = 0, context = 0, batch = 1;
  std::int64_t tp = 1, pp = 1, ep = 1;   // a deployment (any of the tp / pp / ep axes given: `deployed`)
  bool ep_tp = false, deployed = false;  // ep_tp: ep is the point's tp
  std::int64_t gen_len = 0;              // a request (gen_len axis given): prompt = seq_len
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
    case AxisKind::kTp:
      c.tp = positive_integer(v, "tp");
      c.deployed = true;
      return;
    case AxisKind::kPp:
      c.pp = positive_integer(v, "pp");
      c.deployed = true;
      return;
    case AxisKind::kEp:
      c.ep_tp = v == "tp";
      c.ep = c.ep_tp ? 1 : positive_integer(v, "ep");
      c.deployed = true;
      return;
    case AxisKind::kGenLen: c.gen_len = positive_integer(v, "gen_len"); return;
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
    else p[d.key] = axis_value_json(d, v);
    const auto it = digests.find({a.kind, v});
    if (it != digests.end()) files[d.key] = it->second;
  }
  p["files"] = files;
  return p;
}

json result_json(const model::CompareRow& r) {
  auto phase = [](const model::PhaseSum& s, double tokens_per_s) {
    json terms = json::object();  // the energy split, as compare's energy_by_term_j (sums to energy_j)
    for (const auto term : cost::kEnergyTerms) {
      if (!std::isfinite(s.energy_by_term[term])) throw InternalError("sweep: a non-finite energy term");
      terms[cost::to_string(term)] = s.energy_by_term[term];
    }
    return json{{"latency_s", s.latency_s},
                {"energy_j", s.energy_j},
                {"energy_by_term_j", std::move(terms)},
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

model::Phases phases_of(const PointConfig& c) {
  model::Phases ph;
  ph.seq_len = c.seq_len;
  ph.context = c.context;
  ph.batch = c.batch;
  ph.parallel.tp = c.tp;
  ph.parallel.pp = c.pp;
  ph.parallel.ep = c.ep_tp ? c.tp : c.ep;
  return ph;
}

// One point's result: compare's row (plain, or over chips with the tp / pp / ep axes: compare_deployed, the row's
// figures as `compare --tp A,B --format json` writes them, its "deployment" object included), and the request's
// figures (prompt = seq_len) with the gen_len axis.
json point_result(cost::Estimator& est, const model::Model& plan, const LoadedModel& m, const PointConfig& c,
                  const std::optional<quant::Scheme>& scheme) {
  const model::Phases ph = phases_of(c);
  const std::vector<std::optional<quant::Scheme>> schemes = {scheme};
  if (c.deployed && !plan.config) throw InternalError("sweep: a deployment of a plan without a config");
  model::CompareResult r = c.deployed ? model::compare_deployed(est, plan, *plan.config, ph, schemes)
                                      : model::compare(est, plan, ph, schemes);
  if (c.gen_len > 0) {
    const model::Request req{c.seq_len, c.gen_len};
    if (c.deployed) {
      model::add_deployed_requests(r, est, plan, *plan.config, ph, req, schemes);
    } else {
      const model::PlanAt at = [&m](const model::Phases& x) { return build_plan(m, x); };
      model::add_requests(r, est, at, ph, req, schemes, model::RankBy::kListed, m.config);
    }
  }
  const model::CompareRow& row = r.rows.front();
  json out = result_json(row);
  if (row.request) out["request"] = model::request_json(*row.request);
  if (row.deploy) {
    const model::Deployment& dep = r.deployments.at(row.deploy->deployment);
    out["deployment"] = model::deploy_row_json(*row.deploy, dep.parallel.ep > 1);
    out["deployment"].update(model::deployment_json(dep));
  }
  return out;
}

// Stage 1: every value of every axis parsed, and the files the values read digested (an edited file: new points).
struct CheckedAxes {
  std::map<std::pair<AxisKind, std::string>, std::string> digests;
  std::vector<ModelFiles> model_files;
  std::map<std::string, std::optional<quant::Scheme>> schemes;  // nullopt: the dump's own scheme
  std::map<std::string, mapping::Dataflow> dataflows;
  std::map<std::string, cost::ArrayMethod> methods;
  std::map<std::string, cost::Objective> objectives;
  std::vector<std::pair<std::string, std::string>> files;  // (what, path): the files the grid reads
};

// A token count or batch within tenet-cost's limits (model::check_phases): refused before any point runs rather than
// one error record per point (a seq_len of 10^12 would otherwise be a plan that runs for minutes, then overflows).
void check_length(AxisKind kind, const std::string& v) {
  model::Phases ph;
  const std::int64_t n = positive_integer(v, axis_def(kind).key);
  if (kind == AxisKind::kSeqLen) ph.seq_len = n;
  if (kind == AxisKind::kContext) ph.context = n;
  if (kind == AxisKind::kBatch) ph.batch = n;
  if (kind == AxisKind::kGenLen) model::check_range("gen_len", n, model::kMaxTokens, "output tokens per request");
  model::check_phases(ph, std::nullopt);
}

// A deployment degree as compare's --tp / --pp / --ep reads it (1 .. 4096; ep also "tp"); the models must be configs
// (compare_deployed shards a config's plan; a dump's GEMMs are one chip's shapes already).
void check_degree(AxisKind kind, const std::string& v, const std::vector<ModelFiles>& models,
                  const std::vector<std::string>& names) {
  (void)model::deployment_grid(kind == AxisKind::kTp ? v : "", kind == AxisKind::kPp ? v : "",
                               kind == AxisKind::kEp ? v : "", model::Parallel{});
  for (std::size_t i = 0; i < models.size(); ++i)
    if (!models[i].dump.empty())
      throw InputError("--model " + names[i] + ": the tp / pp / ep axes shard a config's plan, and this is a dump (" +
                       models[i].dump + "); give its config.json as the model");
}

std::vector<std::string> model_values(const Grid& g) {
  for (const auto& a : g.axes)
    if (a.kind == AxisKind::kModel) return a.values;
  return {};
}

CheckedAxes check_axes(const Grid& g, const RunOptions& opt) {
  CheckedAxes ck;
  for (const auto& a : g.axes)
    for (const auto& v : a.values) switch (a.kind) {
        case AxisKind::kArch:
          ck.files.emplace_back("--arch " + v, arch::arch_file(v, opt.presets_dir));
          ck.digests[{a.kind, v}] = file_digest(ck.files.back().second);
          break;
        case AxisKind::kDataflow:
          ck.dataflows.emplace(v, mapping::parse_dataflow(v));
          if (!ck.dataflows.at(v).preset) ck.digests[{a.kind, v}] = file_digest(v);
          if (!ck.dataflows.at(v).preset) ck.files.emplace_back("--dataflow " + v, v);
          break;
        case AxisKind::kArrayModel: ck.methods.emplace(v, cost::parse_array_method(v)); break;
        case AxisKind::kObjective: ck.objectives.emplace(v, cost::parse_objective(v)); break;
        case AxisKind::kModel: {
          ck.model_files.push_back(resolve_model(v, opt.workloads_dir));
          const auto& f = ck.model_files.back();
          for (const auto& path : {f.dump, f.config})
            if (!path.empty()) ck.files.emplace_back("--model " + v, path);
          ck.digests[{a.kind, v}] =
              hex16(fnv1a(f.config.empty() ? "" : read_file(f.config), fnv1a(f.dump.empty() ? "" : read_file(f.dump))));
          break;
        }
        case AxisKind::kQuant:
          ck.schemes.emplace(v, is_dump_scheme(v) ? std::nullopt : std::optional(quant::parse_scheme(v)));
          break;
        case AxisKind::kSeqLen:
        case AxisKind::kContext:
        case AxisKind::kBatch:
        case AxisKind::kGenLen: check_length(a.kind, v); break;
        case AxisKind::kTp:  // below, once the models are resolved
        case AxisKind::kPp:
        case AxisKind::kEp:
        case AxisKind::kSet: break;  // with the arch in validate_groups
      }
  for (const auto& a : g.axes)
    if (a.kind == AxisKind::kTp || a.kind == AxisKind::kPp || a.kind == AxisKind::kEp)
      for (const auto& v : a.values) check_degree(a.kind, v, ck.model_files, model_values(g));
  return ck;
}

// ------------------------------------------------------------- the points, lazily

// The axes that choose the Estimator (a point-group) and the model plan; the n-th point's value indices (the last
// axis fastest) and a group's or plan's index (mixed radix over its axes).
struct Layout {
  std::vector<std::size_t> est_axes, plan_axes;
  explicit Layout(const Grid& g) {
    for (std::size_t i = 0; i < g.axes.size(); ++i) {
      const Stage s = axis_def(g.axes[i].kind).stage;
      if (s == Stage::kEstimator) est_axes.push_back(i);
      if (s == Stage::kPlan) plan_axes.push_back(i);
    }
  }
  static void decode(const Grid& g, std::int64_t n, std::vector<std::size_t>& at) {
    for (std::size_t i = g.axes.size(); i-- > 0;) {
      const auto k = static_cast<std::int64_t>(g.axes[i].values.size());
      at[i] = static_cast<std::size_t>(n % k);
      n /= k;
    }
  }
  static std::int64_t index_of(const Grid& g, const std::vector<std::size_t>& at,
                               const std::vector<std::size_t>& axes) {
    std::int64_t n = 0;
    for (const auto i : axes)
      n = n * static_cast<std::int64_t>(g.axes[i].values.size()) + static_cast<std::int64_t>(at[i]);
    return n;
  }
};

// `out` and `csv` are never a file the grid reads, the spec, `-o`, or each other; an existing CSV target is replaced
// only when it is a CSV view of results.
void check_output_paths(const RunOptions& opt, const CheckedAxes& ck) {
  auto others = opt.other_files;
  others.insert(others.end(), ck.files.begin(), ck.files.end());
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--out", opt.out}, {"--csv", opt.csv}}) {
    if (path.empty()) continue;
    for (const auto& [what, other] : others)
      if (same_file(path, other))
        throw InputError(path + ": " + flag + " names the same file as " + what + "; refusing to write over it (give " +
                         flag + " another file)");
  }
  if (!opt.out.empty() && !opt.csv.empty() && same_file(opt.out, opt.csv))
    throw InputError(opt.out + ": --out and --csv name the same file; the CSV view would replace the results");
  if (!opt.csv.empty()) require_csv_target(opt.csv, "--csv");
}

// Every group's arch with its --set overrides, validated before any point runs (then dropped: a group's arch is
// built again when its points run).
void validate_groups(const Grid& g, const Layout& lay, const RunOptions& opt) {
  std::int64_t groups = 1;
  for (const auto i : lay.est_axes) groups *= static_cast<std::int64_t>(g.axes[i].values.size());
  std::vector<std::size_t> at(lay.est_axes.size(), 0);
  for (std::int64_t n = 0; n < groups; ++n) {
    PointConfig c;
    for (std::size_t j = 0; j < at.size(); ++j) read(c, g.axes[lay.est_axes[j]], at[j]);
    (void)arch::load_arch(c.arch, opt.presets_dir, c.set);
    for (std::size_t j = at.size(); j-- > 0;) {
      if (++at[j] < g.axes[lay.est_axes[j]].values.size()) break;
      at[j] = 0;
    }
  }
}

// A small least-recently-used cache of shared values built on first use (outside the lock); the values in use stay
// alive through their shared_ptr after eviction.
template <class V>
class LruCache {
 public:
  explicit LruCache(std::size_t capacity) : capacity_(capacity) {}
  V get(std::int64_t key, const std::function<V()>& build) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto it = map_.find(key);
      if (it != map_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second.second);
        return it->second.first;
      }
    }
    V v = build();
    std::lock_guard<std::mutex> lock(mu_);
    ++built_;
    const auto it = map_.find(key);
    if (it != map_.end()) return it->second.first;  // another thread built it meanwhile
    lru_.push_front(key);
    map_.emplace(key, std::make_pair(v, lru_.begin()));
    if (map_.size() > capacity_) {
      map_.erase(lru_.back());
      lru_.pop_back();
    }
    return v;
  }
  std::size_t built() {
    std::lock_guard<std::mutex> lock(mu_);
    return built_;
  }

 private:
  std::mutex mu_;
  std::size_t capacity_, built_ = 0;
  std::list<std::int64_t> lru_;  // most recent first
  std::unordered_map<std::int64_t, std::pair<V, std::list<std::int64_t>::iterator>> map_;
};

// A point-group: its arch and options, and the GEMM memo its points share on every thread. The memo is replaced by
// a fresh one every kMemoPoints points, so that a group of a million points (a seq-len x context grid) does not keep
// every GEMM it ever searched.
constexpr std::size_t kMemoPoints = 4096;

struct GroupState {
  PointConfig cfg;
  arch::Arch arch;
  std::mutex mu;
  std::shared_ptr<cost::GemmMemo> memo = cost::make_gemm_memo();
  std::size_t uses = 0;
  std::shared_ptr<cost::GemmMemo> memo_for_point() {
    std::lock_guard<std::mutex> lock(mu);
    if (++uses > kMemoPoints) {
      memo = cost::make_gemm_memo();
      uses = 1;
    }
    return memo;
  }
};

// A model plan, or why it cannot be built (every point of it is then an error record).
struct PlanEntry {
  std::shared_ptr<const model::Model> plan;
  std::string error;
};

// The points in order, in chunks on threads: each point's id, its shard, skipped when finished before, else
// evaluated and appended at once. Groups and plans are built when first needed and dropped when unused (a few per
// thread), so memory does not grow with the grid.
class Evaluation {
 public:
  Evaluation(const Grid& g, const CheckedAxes& ck, const Layout& lay, const std::vector<LoadedModel>& models,
             const RunOptions& opt, ResultsOut& out, unsigned threads)
      : g_(g),
        ck_(ck),
        lay_(lay),
        models_(models),
        opt_(opt),
        out_(out),
        threads_(threads),
        groups_(std::size_t{threads} * 2 + 2),
        plans_(std::size_t{threads} * 2 + 2) {}

  void run(std::int64_t points) {
    chunk_ = std::clamp<std::int64_t>(points / (std::int64_t{threads_} * 8), 1, 64);
    prog_.total = static_cast<std::size_t>(points);
    start_ = std::chrono::steady_clock::now();
    const auto threads = static_cast<unsigned>(std::clamp<std::int64_t>(points / chunk_, 1, threads_));
    Shares shares(points, threads, chunk_);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back([this, &shares, t] { worker(shares, t); });
    worker(shares, 0);
    for (auto& t : pool) t.join();
    if (failure_) std::rethrow_exception(failure_);
  }

  void summarize(RunSummary& sum) {
    sum.in_shard = in_shard_;
    sum.skipped = skipped_;
    sum.evaluated = prog_.evaluated;
    sum.errors = prog_.errors;
    sum.estimators = estimators_;
    sum.plans_built = plans_.built();
  }

 private:
  using Estimators = std::map<std::int64_t, std::pair<const cost::GemmMemo*, std::unique_ptr<cost::Estimator>>>;

  void worker(Shares& shares, unsigned t) {
    Estimators mine;
    std::vector<std::size_t> at(g_.axes.size());
    try {
      for (std::int64_t b = 0, e = 0; !failed_ && shares.next(t, b, e);) {
        for (std::int64_t n = b; n < e; ++n) point(n, at, mine);
        std::lock_guard<std::mutex> lock(mu_);
        report();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!failure_) failure_ = std::current_exception();
      failed_ = true;
    }
  }

  void report() {  // under mu_
    prog_.done = seen_;
    prog_.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (opt_.progress) opt_.progress(prog_);
  }

  void point(std::int64_t n, std::vector<std::size_t>& at, Estimators& mine) {
    ++seen_;
    Layout::decode(g_, n, at);
    const json point = point_json(g_, at, ck_.digests);
    const std::string id = hex16(fnv1a(point.dump()));
    if (!in_shard(id, opt_.shard)) return;
    ++in_shard_;
    if (out_.finished(id)) {
      ++skipped_;
      return;
    }
    const json line = evaluate(id, point, at, mine);
    const std::string text = line.dump();
    std::lock_guard<std::mutex> lock(mu_);
    out_.append(id, text);
    ++prog_.evaluated;
    if (line.contains("error")) ++prog_.errors;
    report();
  }

  cost::Estimator& estimator(const std::vector<std::size_t>& at, Estimators& mine) {
    const std::int64_t gi = Layout::index_of(g_, at, lay_.est_axes);
    const auto state = groups_.get(gi, [&] {
      auto s = std::make_shared<GroupState>();
      for (const auto i : lay_.est_axes) read(s->cfg, g_.axes[i], at[i]);
      s->arch = arch::load_arch(s->cfg.arch, opt_.presets_dir, s->cfg.set);
      return s;
    });
    const auto memo = state->memo_for_point();
    if (!mine.count(gi) && mine.size() >= 8) mine.clear();  // a thread's points mostly come group after group
    auto& slot = mine[gi];
    if (!slot.second || slot.first != memo.get()) {
      cost::Options o;
      o.method = ck_.methods.at(state->cfg.array_model);
      o.objective = ck_.objectives.at(state->cfg.objective);
      o.engine_time_limit_s = opt_.engine_time_limit_s;
      o.engine_max_points = opt_.engine_max_points;
      slot = {memo.get(),
              std::make_unique<cost::Estimator>(state->arch, ck_.dataflows.at(state->cfg.dataflow), o, memo)};
      ++estimators_;
    }
    return *slot.second;
  }

  PlanEntry plan(const std::vector<std::size_t>& at) {
    return plans_.get(Layout::index_of(g_, at, lay_.plan_axes), [&] {
      PointConfig c;
      for (const auto i : lay_.plan_axes) read(c, g_.axes[i], at[i]);
      try {
        return PlanEntry{std::make_shared<const model::Model>(build_plan(models_[c.model], phases_of(c))), ""};
      } catch (const InputError& e) {
        return PlanEntry{nullptr, e.what()};
      }
    });
  }

  // One point's line: its result, or the InputError that point alone ran into.
  json evaluate(const std::string& id, const json& point, const std::vector<std::size_t>& at, Estimators& mine) {
    PointConfig c;
    for (std::size_t i = 0; i < g_.axes.size(); ++i)
      if (axis_def(g_.axes[i].kind).stage != Stage::kEstimator) read(c, g_.axes[i], at[i]);
    json line = json{{"id", id}, {"point", point}};
    try {
      cost::Estimator& est = estimator(at, mine);
      const PlanEntry p = plan(at);
      if (!p.plan) throw InputError(p.error);
      line["result"] = point_result(est, *p.plan, models_[c.model], c, ck_.schemes.at(c.quant));
    } catch (const InputError& e) {
      line["error"] = e.what();
    }
    return line;
  }

  const Grid& g_;
  const CheckedAxes& ck_;
  const Layout& lay_;
  const std::vector<LoadedModel>& models_;
  const RunOptions& opt_;
  ResultsOut& out_;
  unsigned threads_;
  LruCache<std::shared_ptr<GroupState>> groups_;
  LruCache<PlanEntry> plans_;
  std::int64_t chunk_ = 1;
  std::mutex mu_;
  Progress prog_;
  std::atomic<std::size_t> seen_{0}, in_shard_{0}, skipped_{0}, estimators_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr failure_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

void require_csv_target(const std::string& path, const std::string& flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return;
  std::string head(std::strlen(kCsvHeaderStart), '\0');  // only the first bytes: a CSV view may be large
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  if (head != kCsvHeaderStart)
    throw InputError(path + ": " + flag + " names a file that is not a CSV view of sweep results (its first line " +
                     "does not start with '" + kCsvHeaderStart + "'); refusing to replace it (give " + flag +
                     " another file, or remove it)");
}

RunSummary run(const Grid& grid_in, const RunOptions& opt) {
  const Grid g = normalized(grid_in);
  RunSummary sum;
  sum.points = point_count(g);
  if (sum.points > kMaxPoints)
    throw InputError("the grid has " + std::to_string(sum.points) + " points; at most " + std::to_string(kMaxPoints) +
                     " per sweep (split it into several spec files)");
  sum.header = results_header(g);
  const CheckedAxes ck = check_axes(g, opt);
  check_output_paths(opt, ck);
  const Layout lay(g);
  validate_groups(g, lay, opt);
  std::vector<LoadedModel> models;
  for (const auto& f : ck.model_files) models.push_back(load_model(f));
  sum.models_loaded = models.size();
  ResultsOut out(opt.out, g, sum);
  const unsigned threads = parallel::thread_count(opt.jobs, "TC_SWEEP_THREADS");
  Evaluation ev(g, ck, lay, models, opt, out, threads);
  ev.run(sum.points);
  ev.summarize(sum);
  if (!opt.csv.empty()) write_output(opt.csv, out.csv());
  sum.lines = out.take();
  return sum;
}

}  // namespace tenet_cost::sweep
