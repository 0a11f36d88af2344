// TVM-JSON reader + GEMM extractor (ir::read_tvm_json, extract_workloads).
#include "fuzz_common.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/ir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > tc_fuzz::kMaxInput) return 0;
  return tc_fuzz::guarded([&] {
    tc_fuzz::check_output([&] {
      const auto m = tenet_cost::ir::read_tvm_json(tc_fuzz::text(data, size), "fuzz.json");
      tenet_cost::ExtractOptions opt;
      opt.bindings = {{"n", 7}};
      return tenet_cost::report::extract_json(tenet_cost::extract_workloads(m, opt));
    });
  });
}
