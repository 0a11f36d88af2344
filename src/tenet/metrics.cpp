// TENET's metric formulas (docs/tenet-engine.md §2) from the raw counts.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tenet/engine.hpp"

namespace tenet_cost::tenet::detail {

namespace {

i64 energy_step(i64 e, double mult, i64 v) {
  const double r = static_cast<double>(e) + mult * static_cast<double>(v);
  if (!(r < 9.2e18 && r > -9.2e18)) throw_overflow("energy");
  return static_cast<i64>(r);  // truncation toward zero, like TENET's int conversion
}

/// floor(U * bits / bandwidth) + avg_latency - 1, exact (128-bit) and checked.
i64 delay(i64 unique, const PEArraySpec& pe, i64 bits) {
  if (pe.bandwidth == 0) throw InputError("bandwidth must be positive, found 0");
  const i128 q = static_cast<i128>(checked_mul(unique, bits, "delay")) / static_cast<i128>(pe.bandwidth);
  return checked_narrow(q + static_cast<i128>(pe.avg_latency) - 1,
                        "delay (data volume x bits / bandwidth + average latency - 1)");
}

}  // namespace

void unpack(const Group& g, const std::vector<i64>& result, RawCounts& rc) {
  std::size_t pos = 0;
  for (int k : g.members) {
    if (k < 0) {
      rc.nT = result[pos];
      rc.nS = result[pos + 1];
      rc.nSTD = result[pos + 2];
      pos += 3;
    } else {
      auto& t = rc.tc[static_cast<std::size_t>(k)];
      t.tv = result[pos];
      t.uv = result[pos + 1];
      t.uvt = result[pos + 2];
      t.spi = result[pos + 3];
      pos += 4;
    }
  }
}

/// TENET's metric formulas from the counts; reuses `r`'s storage (no allocation
/// when `r` already holds this problem's tensors).
void fill_metrics(const Model& m, const PEArraySpec& pe, const AnalyzeOptions& options, const RawCounts& rc,
                  const SourceLocation& domain_loc, Metrics& r) {
  const i64 macs = rc.macs;
  if (macs == 0 || rc.nS == 0) throw InputError(domain_loc, "the iteration domain is empty");
  r.macs = macs;
  r.time_stamps = rc.nT;
  r.active_pes = rc.nS;
  r.space_time_points = rc.nSTD;
  r.avg_active_pes = static_cast<double>(rc.nSTD) / static_cast<double>(rc.nT);
  r.macs_per_pe = macs / rc.nS;
  r.compute_delay = r.macs_per_pe;
  r.spatial_reuse_computed = options.spatial_reuse;
  i64 uin = 0, uout = 0;
  r.tensors.resize(m.tensors.size());
  for (std::size_t k = 0; k < m.tensors.size(); ++k) {
    const auto& t = rc.tc[k];
    TensorMetrics& tm = r.tensors[k];
    tm.name = m.tensors[k].name;
    tm.access = m.tensors[k].access;
    tm.total_volume = t.tv;
    tm.unique_volume = t.uv;
    tm.temporal_unique_volume = t.uvt;
    tm.spatial_reuse_volume = options.spatial_reuse ? t.spi : 0;
    tm.reuse_factor = static_cast<double>(static_cast<float>(t.tv) / static_cast<float>(t.uv));
    tm.temporal_reuse = static_cast<double>(checked_sub(t.tv, t.uvt)) / static_cast<double>(macs);
    tm.spatial_reuse = options.spatial_reuse ? static_cast<double>(t.spi) / static_cast<double>(macs) : std::nan("");
    tm.delay = delay(t.uv, pe, options.bits_per_item);
    if (tm.access == Access::kRead) {
      uin = checked_add(uin, t.uv, "unique volume");
    } else {
      uout = checked_add(uout, t.uv, "unique volume");
    }
  }
  r.ingress_delay = delay(uin, pe, options.bits_per_item);
  r.egress_delay = delay(uout, pe, options.bits_per_item);
  r.max_delay = std::max({r.ingress_delay, r.egress_delay, r.compute_delay});
  // Energy in TENET's order: inputs then outputs (each sorted by name); for each:
  // L1 read, L1 write, L2 read, L2 write, truncating after every step.
  i64 e = macs;
  for (const auto& t : r.tensors) {
    e = energy_step(e, 1.68, t.total_volume);
    e = energy_step(e, 1.68, t.total_volume);
    e = energy_step(e, 18.61, t.unique_volume);
    e = energy_step(e, 18.61, t.unique_volume);
  }
  r.energy = e;
}

i64 box_macs(const std::vector<Interval>& box) {
  i64 macs = 1;
  for (const auto& b : box) macs = checked_mul(macs, checked_add(checked_sub(b.hi, b.lo), 1), "number of MACs (|D|)");
  return macs;
}

}  // namespace tenet_cost::tenet::detail
