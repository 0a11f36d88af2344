// A convolution workload's window (conv_window.hpp).
#include "conv_window.hpp"

#include <vector>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"

namespace tenet_cost::model {

std::optional<cost::ConvWindow> conv_window(const Workload& w, const cost::GemmShape& g,
                                            const std::map<std::string, std::int64_t>& bindings) {
  const ConvInfo& ci = w.conv;
  const auto dims = static_cast<std::size_t>(ci.spatial_dims);
  if (w.kind != WorkloadKind::kConv || dims < 1 || dims > 2 || ci.window_out.size() != dims ||
      ci.window_kernel.size() != dims || ci.strides.size() != dims || ci.dilations.size() != dims)
    return std::nullopt;
  // a loop's extent at the bindings, by name
  const auto extent = [&](const std::string& name) -> std::int64_t {
    for (std::size_t i = 0; i < ci.loop_names.size() && i < ci.loop_extents.size(); ++i)
      if (ci.loop_names[i] == name) {
        const Dim d = bind_dim(ci.loop_extents[i], bindings);
        return d.value ? *d.value : 0;
      }
    return 0;
  };
  std::vector<std::int64_t> out(2, 1), kernel(2, 1), stride(2, 1), dilation(2, 1);
  for (std::size_t d = 0; d < dims; ++d) {
    const std::size_t at = d + 2 - dims;  // a 1-D window is the columns
    out[at] = extent(ci.window_out[d]);
    kernel[at] = extent(ci.window_kernel[d]);
    stride[at] = ci.strides[d];
    dilation[at] = ci.dilations[d];
    if (out[at] < 1 || kernel[at] < 1 || stride[at] < 1 || dilation[at] < 1) return std::nullopt;
  }
  const std::int64_t pixels = checked_mul(out[0], out[1], "output pixels");
  const std::int64_t window = checked_mul(kernel[0], kernel[1], "kernel volume");
  if (g.m % pixels != 0 || g.k % window != 0) return std::nullopt;
  return cost::ConvWindow{g.m / pixels, out[0],    out[1],    g.k / window, kernel[0],
                          kernel[1],    stride[0], stride[1], dilation[0],  dilation[1]};
}

}  // namespace tenet_cost::model
