// Helpers shared by the scheme catalog's files (scheme.cpp: MLC and the generic integer / fp8 grammar;
// block_formats.cpp: MX, NVFP4 and the KV-cache formats; from_dump.cpp: a dump's quantization). Not public.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tenet_cost/quant.hpp"

namespace tenet_cost::quant::detail {

/// Throws the one-line InputError of an unknown scheme `text` (with a "did you mean" and the `quant list` pointer).
[[noreturn]] void bad(const std::string& text, const std::string& why);
/// At most 9 decimal digits, at least one.
bool all_digits(const std::string& s);
std::vector<std::string> split(const std::string& s, char sep);
/// An unscaled tensor of `dtype` (one element per storage word).
TensorFormat plain(const std::string& dtype);
/// fp32 | bf16 | fp16: the MAC precision of a model dtype.
MacPrecision model_precision(const std::string& dtype);
/// The MLC scheme of that name, or nullptr.
const Scheme* mlc_scheme(const std::string& name);
/// MLC-style group quantization (the custom schemes of a dump start from it).
Scheme mlc_group(const std::string& name, int bits, std::int64_t group, const std::string& model,
                 const std::string& layout, bool lm_head, std::int64_t storage_bits = 32);
/// MLC block-scale fp8 with blocks bn x bk.
Scheme mlc_block_fp8(const std::string& name, bool static_activation, std::int64_t bn = 128, std::int64_t bk = 128);
std::string block_text(std::int64_t bn, std::int64_t bk);

// ------------------------------------------------------------ block formats (block_formats.cpp)

/// A block-format scheme (mxfp4, nvfp4, w4a16-mxfp4, w4a8-mxfp4-mxfp8, ...); nullopt when `base` is not of that
/// form; throws (bad) when it is but is malformed.
std::optional<Scheme> parse_block_scheme(const std::string& full, const std::string& base);
/// A KV-cache format after '+' of the block / fp8 kinds (kvfp8[-e5m2][-head], kv-nvfp4, kv-mxfp8, and vLLM's
/// fp8 / fp8_e4m3 / fp8_e5m2) with its canonical text; nullopt when `kv` is not of these kinds.
std::optional<std::pair<TensorFormat, std::string>> parse_block_kv(const std::string& full, const std::string& kv);
/// The extra work of a linear GEMM whose MACs run on a block-scaled unit (docs/quant.md "Block formats": dynamic
/// activation quantization per element, per block and, for NVFP4, per tensor; the per-tensor scales on the output).
ExtraWork block_extra_work(const Scheme& s, std::int64_t m, std::int64_t n, std::int64_t k);
/// The block-format schemes and KV forms `quant list` shows.
const std::vector<std::string>& block_catalog_names();
/// The weight-only block-format scheme of a dump's MX / NVFP4 weights; nullopt when the dump's weights are not
/// of a block format.
std::optional<Scheme> block_scheme_from(const QuantInfo& q);

}  // namespace tenet_cost::quant::detail
