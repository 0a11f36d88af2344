// The estimate path end to end through the library API: dump text (TVMScript, or TVM
// JSON when it starts with '{' / '[') -> extract_workloads -> model::workloads_from_extract
// -> cost::Estimator on an arch -> model::estimate -> report::render (json, table).
// Input: up to three parts separated by a line "----": the dump, an arch JSON (default:
// a 4 x 4 systolic array), a scheme name (default: the dump's own quantization).
// GEMMs larger than 2^12 per dimension are skipped so an execution stays short.
#include <optional>
#include <string>

#include "fuzz_common.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/report.hpp"

namespace {

const char* kArch = R"({"clock_mhz": 1000, "pe_array": {"rows": 4, "cols": 4},
 "macs_per_pe_per_cycle": {"int4": 4, "int8": 2, "fp8": 2, "fp16": 1},
 "buffer": {"bytes": 65536, "bits_per_cycle": 256}, "dram": {"mb_per_s": 4000},
 "energy_pj": {"mac": {"int8": 0.2, "fp16": 1.5}, "dram_per_bit": 20, "buffer_per_bit": 1.5}})";

std::string part(const std::string& all, int index) {
  std::size_t start = 0;
  for (int k = 0; k < index; ++k) {
    const std::size_t sep = all.find("\n----\n", start);
    if (sep == std::string::npos) return "";
    start = sep + 6;
  }
  const std::size_t end = all.find("\n----\n", start);
  return all.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > tc_fuzz::kMaxInput) return 0;
  using namespace tenet_cost;
  return tc_fuzz::guarded([&] {
    const std::string all = tc_fuzz::text(data, size);
    const std::string dump = part(all, 0), arch_text = part(all, 1), scheme_text = part(all, 2);
    const auto first = dump.find_first_not_of(" \t\r\n");
    const bool json = first != std::string::npos && (dump[first] == '{' || dump[first] == '[');
    const ir::Module m = json ? ir::read_tvm_json(dump, "fuzz.json") : ir::parse_tvmscript(dump, "fuzz.py");
    const ExtractResult extracted = extract_workloads(m);
    model::Phases phases;
    phases.seq_len = 16;
    phases.context = 32;
    const model::Model plan = model::plan_from_extract("fuzz", extracted, phases, std::nullopt);
    for (const auto& g : plan.gemms)
      if (g.shape.m > 4096 || g.shape.n > 4096 || g.shape.k > 4096 || g.shape.batch > 64) return;
    const arch::Arch a = arch::parse_arch(arch_text.empty() ? std::string(kArch) : arch_text, "fuzz_arch.json");
    if (a.rows > 64 || a.cols > 64) return;
    std::optional<quant::Scheme> scheme;
    if (!scheme_text.empty()) scheme = quant::parse_scheme(scheme_text);
    tc_fuzz::check_output([&] {
      cost::Estimator fresh(a, mapping::parse_dataflow("os"));  // a second run must not depend on the first's memo
      const auto result = model::estimate(fresh, plan, phases, scheme);
      (void)report::render(result, report::Format::kTable);
      return report::render(result, report::Format::kJson);
    });
  });
}
