// The axis classification shared by the TIR GEMM recognisers (tir_gemm.cpp: a block's multiply-accumulate store;
// tir_tensorized.cpp: an intrinsic over buffer regions). Internal to the extractor (docs/extract.md §1).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "extract/internal.hpp"

namespace tenet_cost::xtir {

/// A block iter var as an axis of the GEMM: its name, kind and domain extent.
struct Axis {
  std::string name;
  ir::IterKind kind = ir::IterKind::kSpatial;
  ir::ExprPtr extent;
};

/// What an operand's loads reference.
struct OperandFacts {
  ir::ExprPtr expr;                   // as written in the block (casts kept)
  std::set<std::string> vars;         // iter vars referenced
  std::set<std::string> mixed;        // spatial vars sharing an index with a reduce var
  const ir::Expr* primary = nullptr;  // the load with most iter vars
};

inline bool is_reduce(ir::IterKind k) { return k == ir::IterKind::kReduce; }

OperandFacts operand_facts(const ir::ExprPtr& e, const std::map<std::string, Axis>& axes);
/// Index positions of `load` referencing any of `vars`.
std::vector<int> positions(const ir::Expr* load, const std::set<std::string>& vars);
/// `(x + (d - 1)) // d * d` (an extent padded by a schedule to a multiple of d) -> x; else s.
sym::SymPtr unpadded(const sym::SymPtr& s);
/// Extent product of the axes `which` (in `order`) as a symbolic value; nullopt with `bad` naming the axis whose
/// extent is no integer expression (or the overflow). `unpad`: each factor through `unpadded`.
std::optional<sym::SymPtr> extent_product(const std::vector<std::string>& order, const std::set<std::string>& which,
                                          const std::map<std::string, Axis>& axes, std::string& bad,
                                          bool unpad = false);
/// A GEMM found in block `blk` of `f` (function, location, source set).
TirGemm block_gemm(const ir::PrimFunc& f, const ir::Block& blk, std::size_t func_index);
/// Layout from the operands' primary loads: A is transposed when its K index comes before its last M index; B when
/// its last N index comes before its K index (B[n, k] = NT).
std::string gemm_layout(const OperandFacts& fa, const OperandFacts& fb, const std::set<std::string>& kset,
                        const std::set<std::string>& mset, const std::set<std::string>& nset);

/// The type of an expression's value (a cast's, a load's buffer's, else the node's dtype).
OptDataType expr_type(const ir::Expr& e, const FuncIndex& fi);
/// An integer GEMM's weight (int8 x int8 -> int32) without a dequantize: bits and storage from its dtype, the
/// granularity from a requantize of the accumulator `acc` (its output-channel dims given) in the function, the
/// scheme w8a8-token-channel (per channel) or w8a8-tensor; a note appended to `w.note` (int_gemm.cpp).
void integer_weight_quant(const FuncIndex& fi, const std::string& acc,
                          const std::vector<std::size_t>& channel_dims_of_acc, const ir::Block* gemm_block,
                          Workload& w);

/// GEMMs whose multiply-accumulate is an intrinsic over buffer regions (tir_tensorized.cpp).
std::vector<TirGemm> tensorized_gemms(const ir::PrimFunc& f, const FuncIndex& fi, std::size_t func_index);

}  // namespace tenet_cost::xtir
