// Quantization schemes: how a GEMM's operands are stored (bits per element,
// scale and zero-point tensors and their granularity) and what extra work the
// scheme implies (weight dequantization, dynamic activation quantization,
// output rescaling). A scheme turns a GEMM into the operand list of a TENET
// statement S[i,j,k] (A[i,k] x B[k,j] -> C[i,j]); scale and zero-point
// tensors are extra read operands whose index expressions encode the
// granularity (per-tensor SW[0], per-channel SW[j], per-token SA[i], group
// SW[j, floor(k/g)], 2-D block SW[floor(j/bn), floor(k/bk)], per-token group
// SA[i, floor(k/g)]), so the reuse analysis yields their traffic. Block formats
// (OCP Microscaling MXFP4/6/8 and MXINT8: one e8m0 scale per 32 along K; NVFP4:
// one e4m3 scale per 16 along K plus one fp32 scale per tensor) are group scales
// with their scale dtype; the second-level per-tensor scale is its own operand
// (SW2[0], SA2[0], SK2[0], SV2[0]).
// docs/quant.md documents every scheme and the grammar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tenet_cost/precision.hpp"

namespace tenet_cost {
struct DataType;   // dtype.hpp
struct QuantInfo;  // quant_info.hpp (a dump's quantization, plain data)
}  // namespace tenet_cost

namespace tenet_cost::quant {

// kBlock: 2-D blocks of block_n (along N, output channels) x block_k (along K)
// weights share one scale (DeepSeek-V3 / MLC block-scale fp8). For an
// activation, kGroup means per token and per `group` along K: SA[i, floor(k/g)].
// kHead: one scale per attention head (KV cache); an attention GEMM is one KV head, so within it the scale is
// constant like a per-tensor one (SK[0]).
enum class Granularity { kNone, kTensor, kChannel, kToken, kGroup, kBlock, kHead };
std::string to_string(Granularity g);

/// How one stored tensor (weight, activation or KV cache) is quantized.
struct TensorFormat {
  std::string dtype = "float16";   // element type: float16, bfloat16, float32, int8, int4, int3, float8_e4m3fn, float8_e5m2
  std::int64_t storage_bits = 16;  // bits of one storage word
  std::int64_t elems_per_storage = 1;  // elements packed per storage word (int4 in uint32: 8)
  Granularity scale = Granularity::kNone;
  std::int64_t group = 0;          // kGroup: elements per group along the reduction axis
  std::int64_t scale_bits = 0;     // 0: no scale tensor
  bool zero_point = false;         // asymmetric: a zero-point tensor with the scale's shape
  std::int64_t zero_bits = 0;
  std::int64_t block_n = 0;        // kBlock: block size along N (output channels)
  std::int64_t block_k = 0;        // kBlock: block size along K (reduction)
  std::string scale_dtype;         // "float16", "float32", "float8_e8m0fnu" (MX), "float8_e4m3fn" (NVFP4); "" = none
  std::int64_t tensor_scale_bits = 0;  // second-level per-tensor scale (NVFP4: 32); 0 = none
  [[nodiscard]] bool quantized() const { return scale != Granularity::kNone || is_low_precision(); }
  [[nodiscard]] bool is_low_precision() const;  // int*, float8*, float6*, float4*
};

/// Where a scheme comes from: MLC-LLM's catalog, the generic grammar, or a dump's own quantization. Shown in the
/// views (to_string: "mlc", "generic", "dump"), never decided on.
enum class SchemeFamily { kMlc, kGeneric, kDump };
std::string to_string(SchemeFamily f);

/// A complete scheme. Names: MLC-LLM's (q4f16_1, ...) or the generic grammar
/// (w4a16-g128-asym, w8a8-token-channel, fp8-tensor, fp8-block128x128,
/// w8a8-block128x128, mxfp4, nvfp4, w4a16-mxfp4, w4a8-mxfp4-mxfp8, ...
/// [+kv8 | +kv4-g64 | +kvfp8 | +kvfp8-head | +kv-nvfp4 ...]); aliases of other
/// tools (vLLM, aiconfigurator: modelopt_fp4, fp8_block, w4a16_mxfp4, ...)
/// resolve to these names.
struct Scheme {
  std::string name;                 // canonical name; parse_scheme(name) gives the same scheme
  SchemeFamily family = SchemeFamily::kGeneric;  // where it comes from (a scheme read from a dump: kDump)
  std::string description;
  std::string model_dtype = "float16";  // activations outside GEMMs, outputs
  TensorFormat weight;              // linear-layer weights
  TensorFormat activation;          // GEMM input activations
  bool dynamic_activation = false;  // per-token max computed at run time
  MacPrecision compute =
      MacPrecision::kFp16;          // MAC precision: fp32, fp16, bf16, fp8, int8, int4, mxfp4, mxfp6,
                                    // mxfp8, mxint8, nvfp4 (block-scaled units: the scale applied once per block)
  std::int64_t accum_bits = 32;     // partial sums
  std::int64_t out_bits = 16;       // GEMM outputs
  bool dequant_weight = false;      // weights converted before the MAC (weight-only quant)
  bool output_rescale = false;      // outputs multiplied by activation x weight scales
  bool quantize_lm_head = true;     // false: lm_head stays at model dtype (q4f16_2, fp8 MLC)
  std::string weight_layout = "NK"; // informative
  std::optional<TensorFormat> kv;   // KV-cache quantization (attention GEMMs)
};

/// Parse a scheme name (case-insensitive, surrounding spaces ignored); throws a
/// one-line InputError with the reason, a "did you mean" for a near miss and a
/// pointer to `tenet-cost quant list`.
Scheme parse_scheme(const std::string& text);
/// A comma-separated list ("q0f16, q4f16_1"): items trimmed, empty items skipped.
std::vector<Scheme> parse_scheme_list(const std::string& text);
/// The MLC schemes plus representative generic ones (for `quant list`).
std::vector<Scheme> catalog();
/// Human text listing the valid forms (used in error messages and docs).
std::string valid_forms();
/// The scheme of a dump's weight quantization as the extractor found it (the MLC scheme when named, a 2-D
/// block-scale scheme for block sizes, else a custom group / channel scheme).
Scheme scheme_from(const QuantInfo& q);
/// Bits of one element of a dtype name (float16 -> 16, int4 -> 4, ...); throws on unknown.
std::int64_t dtype_bits(const std::string& dtype);
std::int64_t dtype_bits(const DataType& dtype);

// ------------------------------------------------------------ operands

/// One index of an access relation: dim 'i', 'j', 'k' (or 'b'), or '0' for
/// the constant 0; divisor > 1 means floor(dim / divisor).
struct IndexTerm {
  char dim = '0';
  std::int64_t divisor = 1;
  bool operator==(const IndexTerm&) const = default;
};

/// What a statement operand is to the GEMM.
enum class OperandRole { kActivation, kWeight, kScale, kZeroPoint, kOutput };
/// "activation" | "weight" | "scale" | "zero_point" | "output" (the JSON contract's spelling).
std::string to_string(OperandRole r);
/// Scale and zero-point tensors: the quantization metadata whose traffic is reported apart.
inline bool is_quant_metadata(OperandRole r) { return r == OperandRole::kScale || r == OperandRole::kZeroPoint; }

/// Where an operand is used (docs/model.md "Where scales are applied"). Values (A, B, C) are used by every MAC;
/// a scale or zero point where its scheme applies it on this arch:
enum class Apply {
  kMac,     // by every MAC inside the PE (values; a weight-only scale with arch dequant.placement "pe")
  kGroup,   // once per K group / block by the PE holding the partial sum (rescale-and-accumulate, or the shared
            // exponent of a block-scaled dot product): the access relation holds only at `k mod g = 0`
  kEdge,    // by the dequantizer at the array edge as its weight element enters: it never enters the array
  kOutput,  // by the output rescale once per output (per-tensor / channel / token scales of low-precision MACs):
            // it never enters the array
};
/// "mac" | "group" | "edge" | "output" (the JSON contract's spelling).
std::string to_string(Apply a);
/// Where the arch dequantizes a weight (or KV cache) stored below the MAC precision (arch dequant.placement).
enum class DequantSite { kEdge, kPE };

/// A tensor of the TENET statement with its storage size.
struct Operand {
  std::string name;      // A, B, C, SA, SW, ZW, SK, ...
  OperandRole role = OperandRole::kActivation;
  std::vector<IndexTerm> index;
  std::int64_t bits_num = 16, bits_den = 1;  // bits per element = num / den (int3 in uint32: 32/10)
  bool write = false;
  /// Scales and zero points: the operand they belong to (kWeight: the weight or KV cache, kActivation: A).
  OperandRole of = OperandRole::kWeight;
  Apply apply = Apply::kMac;
  std::int64_t apply_group = 0;  // kGroup: the K group / block size g (>= 2)
  /// Bits per element inside the PE array (NoC transfers): the storage bits, or the MAC precision's bits for a
  /// weight dequantized at the array edge. 0 = the storage bits.
  std::int64_t array_bits = 0;
  bool operator==(const Operand&) const = default;
  /// isl text of the access relation, e.g. "{S[i,j,k]->SW[j,floor(k/32)]}" (batched: S[b,i,j,k]); a kGroup
  /// operand's relation holds at `k mod g = 0` only.
  [[nodiscard]] std::string relation(bool batched = false) const;
  /// bits as text: "4", "3.2".
  [[nodiscard]] std::string bits_text() const;
  /// Whether the operand is an operand of the PE array's statement (every kind but kOutput).
  [[nodiscard]] bool in_array() const { return apply != Apply::kOutput; }
};

/// Which GEMM of the model: a linear layer (B = weight [k, j]), attention
/// scores Q.K^T (B = K cache, k = head_dim, j = token) or attention P.V
/// (B = V cache, k = token, j = head_dim).
enum class GemmRole { kLinear, kLinearUnquantized, kAttnQK, kAttnPV };

/// The statement operands of a GEMM under a scheme: reads (A, B, extra
/// scale / zero-point tensors) then the write C, each scale placed where the
/// scheme applies it on an arch that dequantizes at `site` (docs/model.md
/// "Where scales are applied").
std::vector<Operand> operands(const Scheme& s, GemmRole role, DequantSite site);
/// The operands of the PE array's statement (Operand::in_array), in order.
std::vector<Operand> array_operands(const std::vector<Operand>& ops);

/// Sets each operand's Apply (and the array bits of a weight dequantized at the edge) from the scheme, the GEMM's
/// role and the arch's dequantization site (docs/model.md "Where scales are applied"); operands() calls it.
void place(std::vector<Operand>& ops, const Scheme& s, GemmRole role, DequantSite site);
/// The placement on an arch without the scheme's block-scaled MAC unit (arch::MacPath::kDequantized, docs/arch.md
/// "MAC precisions"): every activation / weight operand narrower than 16 bits is dequantized before the MACs (at the
/// edge it enters the array at `mac_bits`), and its block scales are applied there (kEdge, or kMac in the PE);
/// per-tensor scales stay on the output.
void place_dequantized(std::vector<Operand>& ops, std::int64_t mac_bits, DequantSite site);

/// Extra vector work the scheme implies for one GEMM of M x N x K.
struct ExtraWork {
  bool dequant = false;             // B is dequantized (count chosen by arch placement)
  std::int64_t act_quant_ops = 0;   // activation quantization (max + scale) per element
  std::int64_t rescale_ops = 0;     // output rescaling
};
ExtraWork extra_work(const Scheme& s, GemmRole role, std::int64_t m, std::int64_t n, std::int64_t k);
/// MAC precision of a GEMM under the scheme (attention runs at model dtype). Its bits and whether it is a
/// block-scaled unit: precision_bits and is_block_scaled (tenet_cost/precision.hpp).
MacPrecision compute_precision(const Scheme& s, GemmRole role);

/// Bits per element of a stored tensor including its block / group scales and its per-tensor scale, as an exact
/// formula over the reduction length K of one row: "4 + 8/32 bits per element" (MXFP4), "4 + 8/16 bits per element
/// + 32 bits per tensor" (NVFP4). The bytes of an N x K weight are N·K·bits/8 + N·ceil(K/g)·scale_bits/8
/// (+ tensor_scale_bits/8).
std::string bits_formula(const TensorFormat& f);
/// The scheme's name if `text` is another tool's alias for it (vLLM `modelopt_fp4` -> nvfp4, aiconfigurator
/// `fp8_block` -> fp8-block128x128, ...), else "". Lower-case input.
std::string alias_of(const std::string& text);
/// Every alias with its canonical name (docs/quant.md "Aliases"; `quant list` prints them).
const std::vector<std::pair<std::string, std::string>>& aliases();

}  // namespace tenet_cost::quant
