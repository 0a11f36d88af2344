// A dump's convolutions reach the cost model with their sliding window (docs/model.md "Buffer <-> DRAM",
// "Any dump"): the extracted window loops, strides and dilations become cost::GemmShape::conv, the notes say so, and
// the input's DRAM bytes are the halo count, below the im2col matrix.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

const model::ModelGemm& find(const model::Model& m, const std::string& function) {
  const auto it =
      std::find_if(m.gemms.begin(), m.gemms.end(), [&](const model::ModelGemm& g) { return g.function == function; });
  REQUIRE(it != m.gemms.end());
  return *it;
}

}  // namespace

TEST_CASE("a dump's convolutions carry their window to the cost model") {
  const model::Model m =
      model::plan_from_dump(tc_test::fixture("extract/grouped_conv.py"), model::Phases{}, std::nullopt);
  // group_conv2d_s2: 1 x 8 x 17 x 17 padded input, 6 filters of 4 x 3 x 3 in 2 groups, stride 2: 8 x 8 outputs
  const auto& s2 = find(m, "group_conv2d_s2").shape;
  REQUIRE(s2.conv);
  CHECK(*s2.conv == cost::ConvWindow{1, 8, 8, 4, 3, 3, 2, 2, 1, 1});
  CHECK(s2.batch == 2);
  // depthwise: each channel its own group (batch 32), one channel of a 3 x 3 window over 112 x 112 outputs
  const auto& dw = find(m, "depthwise_conv2d").shape;
  REQUIRE(dw.conv);
  CHECK(*dw.conv == cost::ConvWindow{1, 112, 112, 1, 3, 3, 1, 1, 1, 1});
  bool noted = false;
  for (const auto& n : m.notes) noted = noted || n.find("distinct input elements of each tile") != std::string::npos;
  CHECK(noted);
  // the estimate: the input moves its halo, at most the im2col matrix of the same tile
  cost::Estimator est(arch::load_arch("edge-npu-32x32", std::string(TC_SOURCE_DIR) + "/configs/arch"),
                      mapping::parse_dataflow("ws"));
  const auto q = quant::parse_scheme("q0f16");
  const auto& c = est.gemm(s2, q);
  cost::GemmShape plain = s2;
  plain.conv.reset();
  const auto& p = est.gemm(plain, q, c.tile);
  CHECK(c.tensors.front().dram_bytes < p.tensors.front().dram_bytes);
  CHECK(c.tensors.front().dram_bytes == 2 * 2 * 4 * 17 * 17);  // 2 groups x 4 channels x the 17 x 17 padded input
}
