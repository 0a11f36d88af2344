// Exact equality of every integer metric of two results (counter vs enumeration,
// parametric vs analyze): shared by the tests of tests/tenet.
#pragma once
#include <catch2/catch.hpp>

#include "tenet_cost/tenet.hpp"

namespace tenet_cost::test {

inline void check_same_metrics(const tenet::Metrics& a, const tenet::Metrics& b) {
  CHECK(a.macs == b.macs);
  CHECK(a.time_stamps == b.time_stamps);
  CHECK(a.active_pes == b.active_pes);
  CHECK(a.space_time_points == b.space_time_points);
  CHECK(a.macs_per_pe == b.macs_per_pe);
  CHECK(a.ingress_delay == b.ingress_delay);
  CHECK(a.egress_delay == b.egress_delay);
  CHECK(a.max_delay == b.max_delay);
  CHECK(a.energy == b.energy);
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (std::size_t k = 0; k < a.tensors.size(); ++k) {
    INFO("tensor " << a.tensors[k].name);
    CHECK(a.tensors[k].name == b.tensors[k].name);
    CHECK(a.tensors[k].total_volume == b.tensors[k].total_volume);
    CHECK(a.tensors[k].unique_volume == b.tensors[k].unique_volume);
    CHECK(a.tensors[k].temporal_unique_volume == b.tensors[k].temporal_unique_volume);
    CHECK(a.tensors[k].spatial_reuse_volume == b.tensors[k].spatial_reuse_volume);
    CHECK(a.tensors[k].delay == b.tensors[k].delay);
  }
}

}  // namespace tenet_cost::test
