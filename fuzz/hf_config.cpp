// Hugging Face config.json reader (model::parse_hf_config) and the GEMMs it implies
// (workloads_from_config, small seq_len/context so shapes stay cheap).
#include "fuzz_common.hpp"
#include "tenet_cost/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > tc_fuzz::kMaxInput) return 0;
  return tc_fuzz::guarded([&] {
    const auto cfg = tenet_cost::model::parse_hf_config(tc_fuzz::text(data, size), "fuzz_config.json");
    tenet_cost::model::Phases phases;
    phases.seq_len = 7;
    phases.context = 9;
    for (const auto& g : tenet_cost::model::workloads_from_config(cfg, phases)) {
      // every shape the config implies is a positive, exact count
      if (g.shape.m <= 0 || g.shape.n <= 0 || g.shape.k <= 0 || g.shape.batch <= 0 || g.calls < 0) __builtin_trap();
    }
  });
}
