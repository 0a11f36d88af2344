// The mapping search (docs/search.md): each quantization scheme at its best configuration — dataflow (one for the
// whole model, as fixed hardware has, or each GEMM its own), PE-array shape under a PE budget, and each GEMM's
// buffer tile and loop order (cost::best_tile, exact) — ranked by an objective, with the latency–energy Pareto
// front of every configuration evaluated. Plain result structs: report/ renders them, an HTML view can draw them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::search {

/// "presets" (every preset) or a comma-separated list of dataflow names (presets, gen:..., .m files). Throws
/// InputError.
std::vector<mapping::Dataflow> parse_dataflows(const std::string& text);

/// What --dataflows names: a fixed list, plus (for "generated" and "all") the generated mappings legal for each
/// scheme (mapping::generate_dataflows: legality depends on the scheme's scale / zero-point operands).
struct DataflowSet {
  std::vector<mapping::Dataflow> listed;  // presets / gen: names / .m files, in the order given
  bool generated = false;                 // + every generated mapping legal for the scheme
};
/// "presets" | "generated" | "all" (presets + generated) | a comma-separated list. Throws InputError.
DataflowSet parse_dataflow_set(const std::string& text);
/// The dataflows searched for one scheme: `set.listed`, then (when `set.generated`) every generated mapping legal on
/// the arch's interconnect for the operands of every GEMM of the model under the scheme, minus those equal to a
/// listed preset (os = gen:ij-k-r-11, ws = gen:kj-i-c-11, is = gen:ki-j-c-11: listed once, under the preset's name)
/// and those already listed.
std::vector<mapping::Dataflow> dataflows_for(const DataflowSet& set, const arch::Arch& arch, const model::Model& model,
                                             const std::optional<quant::Scheme>& scheme);
/// The generated twin of a preset (same TENET metrics, tests/mapping), or nullopt (ncf has none).
std::optional<mapping::Generated> preset_twin(mapping::Preset p);
/// Every R x C with R * C = budget, R ascending. Throws InputError when budget <= 0.
std::vector<std::pair<std::int64_t, std::int64_t>> array_shapes(std::int64_t budget);

/// The GemmMemos of one search by (PE array, dataflow name): run() gives the schemes of a candidate one memo (their
/// equal GEMMs and the engine's compiles are shared), and compare_at_best reruns the best candidates on them. Only
/// for one arch and one set of cost options (a search's). Thread-safe.
class MemoPool {
 public:
  std::shared_ptr<cost::GemmMemo> at(std::int64_t rows, std::int64_t cols, const std::string& dataflow);

 private:
  std::mutex mu_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::string>, std::shared_ptr<cost::GemmMemo>> memos_;
};

struct Options {
  cost::Objective objective = cost::Objective::kLatency;
  cost::ArrayMethod method = cost::ArrayMethod::kAuto;
  std::vector<mapping::Dataflow> dataflows;  // listed dataflows
  bool generated = false;                    // + the generated dataflows legal for each scheme (DataflowSet::generated)
  std::vector<std::pair<std::int64_t, std::int64_t>> arrays;  // empty: the arch's own rows x cols
  bool per_gemm = false;  // each GEMM its own dataflow (default: one dataflow for the model)
  std::size_t top = 1;    // configurations listed per scheme
  unsigned jobs = 1;      // worker threads (same output for any count)
  double engine_time_limit_s = cost::kDefaultEngineTimeLimit;   // per TENET engine evaluation (<= 0: none)
  std::int64_t engine_max_points = cost::kDefaultEnginePoints;  // per brute-forced instance (--engine-points)
  /// Shared by run() and compare_at_best with these options (nullptr: each call has its own).
  std::shared_ptr<MemoPool> memos;
};

/// Totals of one configuration over the model (per phase and other entry as in compare, and over every entry: the
/// objective ranks configurations by the latter).
struct Totals {
  model::PhaseSum prefill, decode;
  std::vector<model::EntrySum> other;  // the entries that are neither prefill nor decode, by name (ratios unset)
  double latency_s = 0, energy_j = 0;  // every entry
  std::int64_t dram_bytes = 0;
};

/// Whether configuration totals `a` rank before `b` by the objective (latency, energy, their product, DRAM bytes over
/// every entry); ties: energy, then DRAM bytes (then the caller's enumeration order).
bool better(const Totals& a, const Totals& b, cost::Objective o);

/// One GEMM's chosen mapping.
struct GemmChoice {
  std::string function, entry;
  model::Phase phase = model::Phase::kOther;
  std::int64_t calls = 1;
  cost::GemmShape shape;
  std::string dataflow;
  cost::Tile tile;
  cost::Term bound = cost::Term::kCompute;
  double latency_s = 0, energy_j = 0;  // per call
  std::int64_t dram_bytes = 0;
};

/// One evaluated configuration of a scheme.
struct Config {
  std::string dataflow;  // the dataflow's name, or "per-gemm"
  std::int64_t rows = 0, cols = 0;
  Totals totals;
  std::vector<GemmChoice> gemms;  // in plan order
};

struct SchemeResult {
  std::string scheme;
  std::vector<Config> top;          // best first (top[0] = the best configuration); at most Options::top
  std::int64_t configurations = 0;  // evaluated for this scheme
};

struct ParetoPoint {
  std::string scheme, dataflow;
  std::int64_t rows = 0, cols = 0;
  double latency_s = 0, energy_j = 0;
};

struct SearchResult {
  model::RunInfo info;  // dataflow: the candidate set, e.g. "os,ws,is,ncf"
  cost::Objective objective = cost::Objective::kLatency;
  bool per_gemm = false;
  std::vector<SchemeResult> rows;   // in the order of the schemes
  std::vector<ParetoPoint> pareto;  // non-dominated (latency, energy) over every configuration, latency ascending
  /// search --prompt-len / --gen-len: the request whose model was searched (the prefill and every decode step;
  /// `decode` totals are the steps' sum), and which part of it: kPrefill or kDecode (--per-phase), kOther (whole)
  std::optional<model::Request> request;
  model::Phase part = model::Phase::kOther;
};

/// The search. `progress(done, total)` after each (scheme, array, dataflow) evaluation (serialised).
SearchResult run(const arch::Arch& arch, const model::Model& model, const model::Phases& phases,
                 const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                 const std::function<void(std::size_t, std::size_t)>& progress = {});

/// A saved search result (`search --format json`) for one scheme, as `estimate --plan FILE` replays it.
struct Replay {
  std::optional<quant::Scheme> scheme;            // nullopt: the dump's own quantization ("... (dump)")
  std::string scheme_name;                        // as the plan names it
  mapping::Dataflow dataflow;                     // one dataflow for the model (gemm_dataflows empty)
  std::vector<mapping::Dataflow> gemm_dataflows;  // a --per-gemm plan: GEMM i's dataflow, in plan order
  std::int64_t rows = 0, cols = 0;                // the PE array
  std::vector<cost::TileRule> rules;  // each GEMM's tile and order, targeted by function and shape (M x N x K)
};
/// Reads the plan at `path` and checks it against the model and arch: the row of scheme `quant` (or the only row
/// when `quant` is empty), its dataflow (or, for a --per-gemm plan, each GEMM's), the arch's name, and the GEMMs
/// (function, entry, batch, m, n, k, in plan order). Throws InputError at file:line:col of the value that does not
/// match.
Replay read_replay(const std::string& path, const model::Model& model, const std::string& arch_name,
                   const std::string& quant);
/// estimate --plan: the model run at the plan's array, each GEMM at its tile and order on its dataflow (one
/// estimator per distinct dataflow; info.dataflow "per-gemm" and a note for a --per-gemm plan). `o` gives the
/// other cost options; its tile rules are the plan's.
model::EstimateResult replay(const Replay& plan, arch::Arch arch, cost::Options o, const model::Model& model,
                             const model::Phases& phases);

/// compare --search: each scheme's compare row at its own best configuration (`result`, from run with the same
/// arguments): exactly the row `compare` gives with that dataflow and array (model::compare of that scheme), the
/// ratios against the first row. Throws InputError for a per-GEMM search (no single dataflow to compare at).
model::CompareResult compare_at_best(const arch::Arch& arch, const model::Model& model, const model::Phases& phases,
                                     const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                                     const SearchResult& result);

/// The estimator of a configuration (one dataflow for the model): the arch at its array, the search's cost options
/// and memo.
cost::Estimator estimator_at(const arch::Arch& arch, const Options& o, const Config& c);

/// The search of a request's mappings (docs/search.md "Requests"): the plan at `phases`, the request's decode steps
/// (model::decode_steps) and one search of the request's model (model::request_model: the prefill and every decode
/// step at its own context, so the objective is the whole request's), or two with `per_phase` (the prefill part, then
/// the decode steps' part), each result marked with the request and its part.
struct RequestSearch {
  model::Model plan;
  model::DecodeSteps steps;
  std::vector<SearchResult> found;  // one (the whole request) or two (per phase: prefill, decode steps)
  std::vector<std::string> notes;   // the request's (a context beyond the config's limit, ...)
  std::string searched;             // what was searched, for the outputs
};
RequestSearch search_request(const arch::Arch& arch, const model::PlanSource& source, const model::Phases& phases,
                             const model::Request& req, const std::vector<std::optional<quant::Scheme>>& schemes,
                             const Options& o, bool per_phase,
                             const std::function<void(std::size_t, std::size_t)>& progress = {});

/// compare --search with a request (--prompt-len / --gen-len; docs/search.md "Requests"): each scheme's mapping
/// chosen by the objective over its whole request — the prefill and the gen_len - 1 decode steps, each at its own
/// context (model::request_model) — or, `per_phase`, the prefill's mapping by the prefill and the decode's by the
/// decode steps; each row is then compare's row and request figures at that mapping (per phase: the prefill at the
/// prefill's, the decode steps at the decode's), the rows ordered by `rank`. Throws InputError for --per-gemm.
model::CompareResult compare_request_at_best(const arch::Arch& arch, const model::PlanSource& source,
                                             const model::Phases& phases, const model::Request& req,
                                             const std::vector<std::optional<quant::Scheme>>& schemes, const Options& o,
                                             bool per_phase, model::RankBy rank);

/// compare --search over chips (--tp / --pp / --ep; docs/search.md "Deployments"): for each deployment of `grid`
/// (deployments outer, schemes inner, as model::compare_deployments) and scheme, every candidate mapping (the listed
/// and generated dataflows x `o.arrays`, or the arch's array) runs the deployment — model::compare_deployed on the
/// sharded GEMMs of each stage with its collectives and pipeline, and with `req` the whole request
/// (model::add_deployed_requests) — and the row is the best by `o.objective` over the deployment's prefill + decode
/// step (+ other entries), or over the request (e2e latency, its energy and DRAM bytes); ties: energy, DRAM bytes, the
/// candidates' order. Each row's mapping in `mappings`; with `req` the rows ordered by `rank`. A candidate that fails
/// on its input is skipped with a note. Throws InputError for --per-gemm.
model::CompareResult compare_deployed_at_best(const arch::Arch& arch, const model::Model& whole,
                                              const model::ModelConfig& cfg, const model::Phases& phases,
                                              const std::vector<std::optional<quant::Scheme>>& schemes,
                                              const std::vector<model::Parallel>& grid, const Options& o,
                                              const std::optional<model::Request>& req, model::RankBy rank);

}  // namespace tenet_cost::search
