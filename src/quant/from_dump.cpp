// A dump's weight quantization (the extractor's QuantInfo) as a scheme (docs/quant.md): the MLC scheme of that
// name, MX / NVFP4 block formats, MLC block-scale fp8, else a custom group / channel / 2-D block scheme.
#include "internal.hpp"
#include "tenet_cost/quant_info.hpp"

namespace tenet_cost::quant {

using namespace detail;  // NOLINT(google-build-using-namespace): the catalog's own helpers (internal.hpp)

namespace {

// A dump's quantization without 2-D blocks: the MLC scheme of that name, else a custom group/channel scheme.
Scheme scheme_from_groups(const QuantInfo& q) {
  const std::string& mlc_name = q.scheme;
  const int weight_bits = q.weight_bits;
  const std::int64_t group_size = q.group_size;
  const OptDataType& scale_dtype = q.scale_dtype;
  const bool zero_point_tensor = q.zero_point == ZeroPointKind::kTensor;
  const int elems_per_storage = q.elems_per_storage;
  const OptDataType& storage_dtype = q.storage_dtype;
  if (mlc_name != "none" && mlc_name != "custom" && !mlc_name.empty()) {
    if (const Scheme* m = mlc_scheme(mlc_name)) return *m;
    // a generic catalog name the extractor gives an integer GEMM (w8a8-token-channel, w8a8-tensor)
    if (mlc_name == "w8a8-token-channel" || mlc_name == "w8a8-tensor") return parse_scheme(mlc_name);
  }
  if (weight_bits <= 0) return parse_scheme("q0f16");
  Scheme s = mlc_group("custom", weight_bits, group_size, "float16", "", true);
  s.family = SchemeFamily::kDump;
  if (storage_dtype && elems_per_storage > 0) {
    s.weight.storage_bits = dtype_bits(*storage_dtype);
    s.weight.elems_per_storage = elems_per_storage;
  }
  if (group_size <= 0) s.weight.scale = Granularity::kChannel;
  s.weight.scale_bits = scale_dtype ? dtype_bits(*scale_dtype) : 0;
  s.weight.scale_dtype = to_string(scale_dtype);
  if (s.weight.scale_bits == 0) s.weight.scale = Granularity::kNone;
  s.weight.zero_point = zero_point_tensor;
  s.weight.zero_bits = zero_point_tensor ? weight_bits : 0;
  s.name = "custom-w" + std::to_string(weight_bits) + (group_size > 0 ? "-g" + std::to_string(group_size) : "");
  s.description = "quantization found in the dump (not an MLC-LLM scheme name)";
  return s;
}

}  // namespace

Scheme scheme_from(const QuantInfo& q) {
  if (auto block = block_scheme_from(q)) return std::move(*block);  // MX / NVFP4 weights (block_formats.cpp)
  const std::int64_t block_n = q.block_n, block_k = q.block_k;
  if (block_n <= 0 || block_k <= 0 || q.weight_bits <= 0) return scheme_from_groups(q);
  if (q.storage_dtype == DataType::Float(8, "e4m3fn") && q.zero_point != ZeroPointKind::kTensor) {
    const bool is_static = q.scheme == "fp8_e4m3fn_bf16_block_scale_static_activation";
    Scheme s = mlc_block_fp8(is_static ? q.scheme : "fp8_e4m3fn_bf16_block_scale", is_static, block_n, block_k);
    if (block_n != 128 || block_k != 128) s.name += "-block" + block_text(block_n, block_k);
    if (q.scale_dtype) {
      s.weight.scale_bits = dtype_bits(*q.scale_dtype);
      s.weight.scale_dtype = to_string(*q.scale_dtype);
    }
    if (q.scheme != s.name && q.scheme.rfind("fp8_e4m3fn_bf16_block_scale", 0) != 0) s.family = SchemeFamily::kDump;
    return s;
  }
  QuantInfo custom = q;
  custom.scheme = "custom";
  Scheme s = scheme_from_groups(custom);
  s.weight.scale = s.weight.scale_bits ? Granularity::kBlock : Granularity::kNone;
  s.weight.group = 0;
  s.weight.block_n = block_n;
  s.weight.block_k = block_k;
  s.name = "custom-w" + std::to_string(q.weight_bits) + "-block" + block_text(block_n, block_k);
  return s;
}

}  // namespace tenet_cost::quant
