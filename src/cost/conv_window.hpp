// Sliding-window reuse of a convolution's input (docs/model.md "Convolutions"): the distinct input elements a tile of
// the implicit GEMM touches, in closed form. A tile of consecutive output positions (m) and whole kernel windows of
// some channels (k) touches, per channel, the union over its output rows of (the input rows of that output row) x (the
// input columns of its output columns); each 1-D union {x·stride + r·dilation} is counted per residue class of r.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tenet_cost/cost.hpp"
#include "tenet_cost/quant.hpp"

namespace tenet_cost::cost::detail {

/// |{x·stride + r·dilation : x in xs, 0 <= r < kernel}| for xs sorted, disjoint closed intervals [lo, hi].
std::int64_t window_union(const std::vector<std::pair<std::int64_t, std::int64_t>>& xs, std::int64_t kernel,
                          std::int64_t stride, std::int64_t dilation);

/// The distinct input elements of one channel touched by the output positions first..last (inclusive, flattened
/// image-major, then row, then column) under the whole kernel window.
std::int64_t conv_run_elements(const ConvWindow& w, std::int64_t first, std::int64_t last);

/// The input elements fetched for one pass over the A tiles of an m tile `tm` (the last tile the remainder) and k
/// tiles of whole kernel windows: channels x the sum over m tiles of conv_run_elements. Memoised per thread.
std::int64_t conv_input_elements(const ConvWindow& w, std::int64_t tm);

/// Whether `op` is the convolution's input: the activation read indexed by (i, k) only (not a scale, not the filter).
bool is_conv_input(const quant::Operand& op);

/// InputError unless the window matches the GEMM (m = images·out_h·out_w, k = channels·kernel_h·kernel_w, every
/// field positive).
void check_conv_window(const GemmShape& s);

}  // namespace tenet_cost::cost::detail
