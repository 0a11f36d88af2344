// Extern GEMMs (internal): GEMMs that exist only as a call of a library kernel, whose shape and
// quantization come from the call's arguments (docs/extract.md §3 "Extern GEMMs").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "extract/relax_scan.hpp"

namespace tenet_cost::xrelax {

/// The extern GEMM families MLC-LLM emits as `R.call_dps_packed(name, ..)`.
enum class ExternGemm : std::uint8_t {
  kNone,
  kFasterTransformer,  // fastertransformer.gemm_fp16_int[_bias]: (x, w, scale, [bias,] act, m, n, k, group)
  kCutlassFp8,         // cutlass.gemm_e4m3_e4m3_fp16 ..: (x, w, workspace, scale), fp8 per-tensor
  kCutlassGroup,       // cutlass.group_gemm[_e4m3_e4m3_fp16 ..]: (x, w[E, N, K], indptr, workspace, [scale])
  kCutlassBlock,       // cutlass.groupwise_scaled_gemm_e4m3fn_e4m3fn: (x, w, x_scale, w_scale, workspace, bn, bk)
  kCutlassBlockBmm,    // cutlass.groupwise_scaled_bmm_e4m3fn_e4m3fn: the same with a leading batch dim
  kCutlassBlockGroup,  // cutlass.groupwise_scaled_group_gemm_e4m3fn_e4m3fn: (x, w, xs, ws, indptr, workspace, bn, bk)
  kTritonBlock,        // mlc.triton.w8a8_block_fp8_matmul: (x, w, xs, ws, N, K, bn, bk, ..)
  kTritonBlockGroup,  // mlc.triton.w8a8_block_fp8_group_matmul: (x, w, xs, ws, expert_ids, indptr, N, K, E, bn, bk, ..)
};

/// The family of a packed function name (kNone for any other name).
ExternGemm extern_gemm_kind(std::string_view packed_name);

/// The workload of the binding `b` = `R.call_dps_packed(name, ..)` of family `kind` (not kNone).
Workload extern_gemm(const Env& env, const ir::Binding& b, const std::string& name, ExternGemm kind);

}  // namespace tenet_cost::xrelax

namespace tenet_cost::xtir {

/// The GEMM of a prim_func whose body launches MLC-LLM's Triton block-scale fp8 kernel: TVM prints the launch
/// `T.call_kernel(triton.jit(..), grid, A.data, B.data, C.data, As.data, Bs.data, ..)` as
/// `T.call_packed("triton_w8a8_block_fp8_[group_]gemm_N.._K.._block_n.._block_k..", A.data, ..)`. Nullopt for any
/// other function.
std::optional<TirGemm> triton_kernel_gemm(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index);

}  // namespace tenet_cost::xtir
