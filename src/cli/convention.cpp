#include "convention.hpp"

#include <array>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost/conventions.hpp"
#include "cost/timeloop.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cli {

namespace {

namespace cv = cost::convention;

struct Row {
  const model::ModelGemm* gemm;
  cv::ScaleSimCounts counts;
};

const char* const kNote =
    "convention scalesim: SCALE-Sim v3's counting, not the physical model (docs/validation.md): every fold padded "
    "to the full array, cycles = folds * fold - 1 (its last cycle index), partial sums written to the SRAM per "
    "reduction fold, 1-byte words; DRAM traffic and stalls are not modelled in this convention";

std::string percent(const cv::ScaleSimCounts& c) {
  std::ostringstream os;
  os.precision(10);
  os << 100.0 * static_cast<double>(c.mapped_macs) / static_cast<double>(c.padded_macs);
  return os.str();
}

std::string render(const std::vector<Row>& rows, const std::string& format, std::int64_t r, std::int64_t c) {
  std::ostringstream os;
  if (format == "json") {
    nlohmann::json doc = {{"convention", "scalesim"}, {"array", {r, c}}, {"notes", {kNote}}};
    auto& list = doc["gemms"] = nlohmann::json::array();
    for (const auto& row : rows) {
      const auto& g = row.gemm->shape;
      const auto& k = row.counts;
      list.push_back({{"entry", row.gemm->entry},
                      {"function", row.gemm->function},
                      {"m", g.m},
                      {"n", g.n},
                      {"k", g.k},
                      {"calls", row.gemm->calls},
                      {"folds", k.row_folds * k.col_folds},
                      {"fold_cycles", k.fold_cycles},
                      {"total_cycles", k.total_cycles},
                      {"sram_ifmap_reads", k.sram_ifmap_reads},
                      {"sram_filter_reads", k.sram_filter_reads},
                      {"sram_ofmap_writes", k.sram_ofmap_writes},
                      {"mapped_pes", k.mapped_macs},
                      {"padded_pes", k.padded_macs}});
    }
    return doc.dump(2) + "\n";
  }
  const char sep = format == "csv" ? ',' : ' ';
  os << "entry" << sep << "function" << sep << "m" << sep << "n" << sep << "k" << sep << "calls" << sep << "folds"
     << sep << "fold_cycles" << sep << "total_cycles" << sep << "sram_ifmap_reads" << sep << "sram_filter_reads" << sep
     << "sram_ofmap_writes" << sep << "mapping_efficiency_pct\n";
  for (const auto& row : rows) {
    const auto& g = row.gemm->shape;
    const auto& k = row.counts;
    os << row.gemm->entry << sep << row.gemm->function << sep << g.m << sep << g.n << sep << g.k << sep
       << row.gemm->calls << sep << k.row_folds * k.col_folds << sep << k.fold_cycles << sep << k.total_cycles << sep
       << k.sram_ifmap_reads << sep << k.sram_filter_reads << sep << k.sram_ofmap_writes << sep << percent(k) << "\n";
  }
  if (format != "csv") os << "note: " << kNote << "\n";
  return os.str();
}

void require_format(const ModelArgs& a, const char* tool) {
  if (a.format != "table" && a.format != "csv" && a.format != "json")
    throw InputError(std::string("--convention ") + tool + ": expected --format table | csv | json, found '" +
                     a.format + "'");
}

/// The arch and the plan of a convention's report (format table | csv | json; no batched GEMM).
struct ConventionInput {
  arch::Arch ar;
  model::Model plan;
};

ConventionInput convention_input(const ModelArgs& a, const char* tool) {
  require_format(a, tool);
  ConventionInput in{load_arch(a), load_plan(a, phases(a))};
  if (!in.ar.levels.empty())
    throw InputError(std::string("--convention ") + tool + ": the arch '" + in.ar.name +
                     "' has memory 'levels'; the convention maps onto one buffer and DRAM (use an arch with 'buffer')");
  for (const auto& g : in.plan.gemms)
    if (g.shape.batch != 1)
      throw InputError(std::string("--convention ") + tool + ": no batched GEMM; " + g.function + " has batch " +
                       std::to_string(g.shape.batch));
  return in;
}

}  // namespace

std::string scalesim_convention_report(const ModelArgs& a) {
  if (!a.tiles.empty()) throw InputError("--convention scalesim: SCALE-Sim has no buffer tile; drop --tile");
  const cv::ScaleSimDataflow df = cv::parse_scalesim_dataflow(a.dataflow);
  const ConventionInput in = convention_input(a, "scalesim");
  std::vector<Row> rows;
  rows.reserve(in.plan.gemms.size());
  for (const auto& g : in.plan.gemms)
    rows.push_back({&g, cv::scalesim_counts({g.shape.m, g.shape.n, g.shape.k}, in.ar.rows, in.ar.cols, df)});
  return render(rows, a.format, in.ar.rows, in.ar.cols);
}

namespace {

namespace tl = cost::timeloop;

struct TimeloopRow {
  const model::ModelGemm* gemm;
  tl::GemmMapping mapping;
  tl::Counts counts;
};

const char* const kTimeloopNote =
    "convention timeloop: Timeloop's counting, not the physical model (docs/validation.md): scalars (words), not "
    "bytes; an element broadcast to the PEs of a row or column in one cycle is one buffer read (multicast) and "
    "outputs reduced across PEs are one update; a PE holds its last operand; the first update of an output reads "
    "nothing; cycles = temporal iterations (unlimited bandwidth, no fill or drain); DRAM loops over the tile, the "
    "buffer over the array folds with the streamed dimension innermost; the PEs used per side are the largest "
    "divisor of the tile's dimension that fits; the buffer's capacity is not checked (one tile = the whole GEMM "
    "unless --tile)";

/// The rows x cols dimensions of --dataflow os | ws | is (SCALE-Sim's assignment: os M x N, ws K x N, is K x M).
std::pair<char, char> array_dims(const std::string& dataflow) {
  if (dataflow == "os") return {'m', 'n'};
  if (dataflow == "ws") return {'k', 'n'};
  if (dataflow == "is") return {'k', 'm'};
  throw InputError("--convention timeloop: expected --dataflow os | ws | is, found '" + dataflow + "'");
}

/// The one --tile of the convention (no target); absent factors are the whole dimension, the order mnk.
cost::Tile timeloop_tile(const ModelArgs& a) {
  if (a.tiles.size() > 1) throw InputError("--convention timeloop: expected one --tile, found several");
  if (a.tiles.empty()) return {};
  if (a.tiles[0].find(':') != std::string::npos)
    throw InputError("--convention timeloop: expected --tile m=..,n=..,k=..[,order=..] without a target, found '" +
                     a.tiles[0] + "'");
  return cost::parse_tile(a.tiles[0]);
}

const std::array<const char*, 2> kLevels = {"dram", "buffer"};

std::string render_timeloop(const std::vector<TimeloopRow>& rows, const std::string& format) {
  if (format == "json") {
    nlohmann::json doc = {{"convention", "timeloop"}, {"notes", {kTimeloopNote}}};
    auto& list = doc["gemms"] = nlohmann::json::array();
    for (const auto& row : rows) {
      const auto& g = row.mapping;
      nlohmann::json one = {{"entry", row.gemm->entry},
                            {"function", row.gemm->function},
                            {"m", g.m},
                            {"n", g.n},
                            {"k", g.k},
                            {"calls", row.gemm->calls},
                            {"computes", row.counts.computes},
                            {"cycles", row.counts.cycles},
                            {"pes", row.counts.mac_instances},
                            {"tile", cost::to_string(cost::Tile{g.tile_m, g.tile_n, g.tile_k, g.order})}};
      const auto problem = tl::gemm_problem(g.m, g.n, g.k);
      for (std::size_t l = 0; l < kLevels.size(); ++l)
        for (std::size_t s = 0; s < problem.spaces.size(); ++s) {
          const auto& c = row.counts.levels[l].spaces[s];
          one[kLevels[l]][problem.spaces[s].name] = {
              {"capacity", c.capacity}, {"reads", c.reads}, {"fills", c.fills}, {"updates", c.updates}};
        }
      list.push_back(one);
    }
    return doc.dump(2) + "\n";
  }
  std::ostringstream os;
  const char sep = format == "csv" ? ',' : ' ';
  os << "entry" << sep << "function" << sep << "m" << sep << "n" << sep << "k" << sep << "calls" << sep << "pes" << sep
     << "cycles" << sep << "buffer_weights_reads" << sep << "buffer_inputs_reads" << sep << "buffer_outputs_updates"
     << sep << "buffer_outputs_reads" << sep << "dram_weights_reads" << sep << "dram_inputs_reads" << sep
     << "dram_outputs_updates" << sep << "dram_outputs_reads\n";
  for (const auto& row : rows) {
    const auto& g = row.mapping;
    const auto& d = row.counts.levels[0].spaces;
    const auto& b = row.counts.levels[1].spaces;
    os << row.gemm->entry << sep << row.gemm->function << sep << g.m << sep << g.n << sep << g.k << sep
       << row.gemm->calls << sep << row.counts.mac_instances << sep << row.counts.cycles << sep << b[0].reads << sep
       << b[1].reads << sep << b[2].updates << sep << b[2].reads << sep << d[0].reads << sep << d[1].reads << sep
       << d[2].updates << sep << d[2].reads << "\n";
  }
  if (format != "csv") os << "note: " << kTimeloopNote << "\n";
  return os.str();
}

}  // namespace

std::string timeloop_convention_report(const ModelArgs& a) {
  const auto [row_dim, col_dim] = array_dims(a.dataflow);
  const cost::Tile tile = timeloop_tile(a);
  const ConventionInput in = convention_input(a, "timeloop");
  const arch::Arch& ar = in.ar;
  std::vector<TimeloopRow> rows;
  rows.reserve(in.plan.gemms.size());
  for (const auto& g : in.plan.gemms) {
    const auto& s = g.shape;
    tl::GemmMapping m{s.m,
                      s.n,
                      s.k,
                      tile.m > 0 ? tile.m : s.m,
                      tile.n > 0 ? tile.n : s.n,
                      tile.k > 0 ? tile.k : s.k,
                      tile.order.empty() ? "mnk" : tile.order,
                      row_dim,
                      col_dim,
                      ar.rows,
                      ar.cols};
    rows.push_back({&g, m, tl::analyze(tl::gemm_problem(s.m, s.n, s.k), tl::gemm_mapping(m))});
  }
  return render_timeloop(rows, a.format);
}

}  // namespace tenet_cost::cli
