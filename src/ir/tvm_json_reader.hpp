// The TVM-JSON reader (private to src/ir): a tvm.ir.save_json node graph (tvm_json_graph.hpp) -> typed IR
// (tenet_cost/ir.hpp). One Reader converts one graph; its members are defined by concern:
//   tvm_json.cpp      roots, functions (PrimFunc signatures, attributes, vars, buffers), Relax, the entry point
//   tvm_json_tir.cpp  TIR expressions and statements
// This header holds the class with its guards (Enter, bump, memoized).
//
// The node graph is converted recursively with
//  - a depth limit (kMaxGraphDepth) and an "in progress" mark per node, so a
//    cyclic or absurdly deep graph is an InputError, never a stack overflow;
//  - memoisation per function, so shared sub-trees are converted once, and a
//    budget on the size of the *expanded* tree (kMaxExpandedNodes), so a DAG
//    that doubles at every level cannot blow up later consumers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/tvm_json_graph.hpp"
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir::tvm_json {

/// TVM's binary TIR node types ("tir.Add", ...) and the BinOp each is.
const std::unordered_map<std::string, BinOp>& binary_ops();

class Reader {
 public:
  explicit Reader(const Graph& g) : g_(g), fname_(g.file()), state_(g.size(), 0) {}

  Module read_root();

 private:
  // ----------------------------------------------------------- guards

  class Enter {
   public:
    Enter(Reader& r, std::size_t idx) : r_(r), idx_(idx) {
      if (r_.state_[idx_] != 0) {
        r_.g_.fail(idx_, "", "cyclic reference: the node refers back to itself");
      }
      if (++r_.depth_ > tvm_json::kMaxGraphDepth) {
        r_.g_.fail(idx_, "", "node graph nested deeper than " + std::to_string(tvm_json::kMaxGraphDepth) + " levels");
      }
      r_.state_[idx_] = 1;
      r_.bump(1, idx_);
    }
    ~Enter() {
      r_.state_[idx_] = 0;
      --r_.depth_;
    }
    Enter(const Enter&) = delete;
    Enter& operator=(const Enter&) = delete;

   private:
    Reader& r_;
    std::size_t idx_;
  };

  void bump(std::int64_t n, std::size_t idx) {
    expanded_ += n;
    if (expanded_ > tvm_json::kMaxExpandedNodes) {
      g_.fail(idx, "",
              "the function expands to more than " + std::to_string(tvm_json::kMaxExpandedNodes) +
                  " IR nodes (shared sub-trees are counted at each use)");
    }
  }

  void reset_function_state() {
    expr_memo_.clear();
    stmt_memo_.clear();
    buffer_memo_.clear();
    expanded_ = 0;
    cur_buffers_ = nullptr;
  }

  // ----------------------------------------------------------- roots

  void add_root(Module& m, std::size_t idx, int level);
  std::string global_var_name(std::size_t idx);
  void add_function(Module& m, std::size_t idx, const std::string& name, const std::string& synthetic);
  /// Puts each function and Relax binding read at its node's file:line:col (one scan of the text for all of them), so
  /// that an error found later at a workload (a negative K, an overflowing product) names the line.
  void locate(Module& m) const;

  // ----------------------------------------------------------- PrimFunc

  PrimFunc prim_func(std::size_t idx, const std::string& given_name);
  static void collect_vars(const Expr& e, std::vector<std::string>& out, std::set<std::string>& seen);
  std::map<std::string, std::string> dict_attrs(std::size_t idx);
  std::string key_text(const tvm_json::MapEntry& e);

  /// Attribute values as text: strings verbatim, integers in decimal, bools as
  /// True/False, floats with 17 significant digits, arrays/maps in Python form.
  std::string value_text(std::size_t idx, int level);

  // ----------------------------------------------------------- vars / buffers

  std::string var_name(std::size_t idx);

  // A TIR expression's dtype: the `dtype` field, or (TVM >= mid-2026, #19875) the PrimType in
  // `ty` ("handle" for a PointerType).
  std::string dtype_of(std::size_t idx);

  /// Storage scope from a buffer's data var (PointerType.storage_scope).
  std::string var_scope(std::size_t var);
  const Buffer& buffer(std::size_t idx);

  // ----------------------------------------------------------- expressions

  std::vector<ExprPtr> exprs(const std::vector<std::size_t>& idxs);

  ExprPtr expr_field(std::size_t idx, const char* field) { return expr(g_.ref_required(idx, field)); }
  ExprPtr expr_opt(std::size_t idx, const char* field);
  std::int64_t lanes(std::size_t idx, const std::string& dtype);

  // A node shared by several parents is built once; its expanded size is charged to
  // every parent (bump), so shared sub-trees still count against kMaxExpandedNodes.
  template <class Memo, class Build>
  auto memoized(Memo& memo, std::size_t idx, Build build) {
    if (auto it = memo.find(idx); it != memo.end()) {
      bump(it->second.second, idx);
      return it->second.first;
    }
    const std::int64_t before = expanded_;
    decltype(build()) node;
    {
      Enter guard(*this, idx);
      node = build();
    }
    memo[idx] = {node, expanded_ - before};
    return node;
  }

  ExprPtr expr(std::size_t idx);
  ExprPtr build_expr(std::size_t idx);
  std::string op_name(std::size_t idx);

  // ----------------------------------------------------------- statements

  std::shared_ptr<Stmt> make_stmt(StmtKind k);
  StmtPtr stmt_opt(std::size_t idx, const char* field);
  StmtPtr stmt(std::size_t idx);

  // A negative constant loop / axis extent (docs/ir-json.md): refused, never a negative shape.
  void nonnegative_extent(std::size_t idx, const ExprPtr& extent);
  Range range(std::size_t idx);
  BufferRegion buffer_region(std::size_t idx);
  std::shared_ptr<Block> block(std::size_t idx, const std::vector<ExprPtr>& bindings, ExprPtr predicate);
  StmtPtr build_stmt(std::size_t idx);

  // ----------------------------------------------------------- Relax

  RelaxFunc relax_func(std::size_t idx, const std::string& given_name);
  StructInfoPtr var_sinfo(std::size_t var);
  StructInfoPtr sinfo(std::size_t idx);
  RExprPtr rexpr(std::size_t idx);

  const Graph& g_;
  FileName fname_;  // g_.file(), interned once
  std::vector<char> state_;
  int depth_ = 0;
  std::int64_t expanded_ = 0;
  std::unordered_map<std::size_t, std::pair<ExprPtr, std::int64_t>> expr_memo_;
  std::unordered_map<std::size_t, std::pair<StmtPtr, std::int64_t>> stmt_memo_;
  std::unordered_map<std::size_t, std::pair<Buffer, std::int64_t>> buffer_memo_;
  std::map<std::string, Buffer>* cur_buffers_ = nullptr;
  // What locate() places: a function of the module (`binding` npos) or one of its Relax bindings, by its node.
  struct Placed {
    std::size_t node = 0;
    bool relax = false;
    std::size_t function = 0, binding = 0;
  };
  std::vector<Placed> placed_;
  std::vector<std::size_t> binding_nodes_;  // the bindings of the Relax function being read
};

}  // namespace tenet_cost::ir::tvm_json
