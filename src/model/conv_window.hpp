// A convolution workload's window for the cost model (docs/model.md "Convolutions").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tenet_cost/cost.hpp"
#include "tenet_cost/workload.hpp"

namespace tenet_cost::model {

/// The sliding window of a 1-D or 2-D convolution workload at `bindings`, for its implicit GEMM `g` (m = images x
/// output pixels, k = channels x kernel volume); nullopt when the workload is no such convolution (3-D, a window
/// whose loops or strides are not known, or m / k not multiples of the output pixels / kernel volume): then it is
/// costed as im2col, which the plan's notes say.
std::optional<cost::ConvWindow> conv_window(const Workload& w, const cost::GemmShape& g,
                                            const std::map<std::string, std::int64_t>& bindings);

}  // namespace tenet_cost::model
