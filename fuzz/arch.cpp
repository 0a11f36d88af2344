// Arch-config JSON parser (arch::parse_arch) and the PE array it describes.
#include "fuzz_common.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/relation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > tc_fuzz::kMaxInput) return 0;
  return tc_fuzz::guarded([&] {
    const auto a = tenet_cost::arch::parse_arch(tc_fuzz::text(data, size), "fuzz_arch.json");
    if (a.rows <= 0 || a.cols <= 0 || a.buffer_bytes < 0 || a.clock_mhz < 0) __builtin_trap();  // accepted => sane
    const auto pe = tenet_cost::mapping::pe_array(a);
    (void)tenet_cost::relation::parse(pe.domain.text, pe.domain.loc);
    for (const auto p : tenet_cost::kMacPrecisions) (void)a.mac_rate(p);
  });
}
