#include "convention.hpp"

#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost/conventions.hpp"
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

}  // namespace

std::string scalesim_convention_report(const ModelArgs& a) {
  if (a.format != "table" && a.format != "csv" && a.format != "json")
    throw InputError("--convention scalesim: expected --format table | csv | json, found '" + a.format + "'");
  if (!a.tiles.empty()) throw InputError("--convention scalesim: SCALE-Sim has no buffer tile; drop --tile");
  const cv::ScaleSimDataflow df = cv::parse_scalesim_dataflow(a.dataflow);
  const arch::Arch ar = load_arch(a);
  const model::Phases ph = phases(a);
  const model::Model plan = load_plan(a, ph);
  std::vector<Row> rows;
  rows.reserve(plan.gemms.size());
  for (const auto& g : plan.gemms) {
    if (g.shape.batch != 1)
      throw InputError("--convention scalesim: SCALE-Sim has no batched GEMM; " + g.function + " has batch " +
                       std::to_string(g.shape.batch));
    rows.push_back({&g, cv::scalesim_counts({g.shape.m, g.shape.n, g.shape.k}, ar.rows, ar.cols, df)});
  }
  return render(rows, a.format, ar.rows, ar.cols);
}

}  // namespace tenet_cost::cli
