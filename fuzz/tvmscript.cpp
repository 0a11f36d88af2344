// TVMScript parser + GEMM extractor (ir::parse_tvmscript, extract_workloads).
#include "fuzz_common.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/ir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > tc_fuzz::kMaxInput) return 0;
  return tc_fuzz::guarded([&] {
    tc_fuzz::check_output([&] {
      const auto m = tenet_cost::ir::parse_tvmscript(tc_fuzz::text(data, size), "fuzz.py");
      tenet_cost::ExtractOptions opt;
      opt.bindings = {{"n", 7}, {"m", 5}, {"seq_len", 16}, {"batch_size", 2}};
      return tenet_cost::report::extract_json(tenet_cost::extract_workloads(m, opt));
    });
  });
}
