// Call forms TVM prints in 2026 (issue 22): prim_funcs called directly after LowerCallTIR /
// CallTIRRewrite, Relax functions run by vm.builtin.cuda_graph.run_or_capture, tensor-parallel
// local views, call_tir_inplace / call_tir_with_grad, `ty_args=` and `R.Any` (docs/extract.md §5).
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

using Calls = std::map<std::string, std::int64_t>;

const Workload& gemm(const ExtractResult& r, const std::string& fn) {
  for (const auto& w : r.workloads)
    if (w.function == fn) return w;
  FAIL("no workload " << fn);
  throw 0;
}

void check_shape(const Workload& w, std::int64_t m, std::int64_t n, std::int64_t k) {
  INFO(w.function);
  CHECK(w.m == Dim::constant(m));
  CHECK(w.n == Dim::constant(n));
  CHECK(w.k == Dim::constant(k));
  CHECK(w.batch == Dim::constant(1));
}

}  // namespace

TEST_CASE("call forms: direct prim_func calls after LowerCallTIR, a CUDA-graph capture run once per call") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/relax_lowered_calls.py")));
  CHECK(r.entries == std::vector<std::string>{"cuda_graph_alloc", "decode", "decode_cuda_graph_capture", "prefill"});
  REQUIRE(r.workloads.size() == 2);
  check_shape(gemm(r, "NT_matmul"), 1, 11008, 4096);
  CHECK(gemm(r, "NT_matmul").calls == Calls{{"decode", 1}});
  // two calls in the capture, which decode runs once per decode
  check_shape(gemm(r, "NT_matmul1"), 1, 4096, 4096);
  CHECK(gemm(r, "NT_matmul1").calls == Calls{{"decode", 2}, {"decode_cuda_graph_capture", 2}});
  // `add` per call-site shape: n from the argument shapes of the direct calls (the output an
  // R.memory.alloc_tensor with an annotation, or an unannotated R.builtin.alloc_tensor)
  REQUIRE(r.operators.size() == 2);
  std::map<std::string, const OperatorWorkload*> by_ops;
  for (const auto& o : r.operators) by_ops[o.ops.str()] = &o;
  REQUIRE(by_ops.count("4096") == 1);
  REQUIRE(by_ops.count("n * 4096") == 1);
  CHECK(by_ops["4096"]->calls == Calls{{"decode", 2}, {"decode_cuda_graph_capture", 1}});
  CHECK(by_ops["n * 4096"]->calls == Calls{{"prefill", 1}});
  // --entry decode: everything decode runs, its own calls and the capture's
  ExtractOptions o;
  o.entry = "decode";
  const ExtractResult d = extract_workloads(ir::load_module(tc_test::fixture("extract/relax_lowered_calls.py")), o);
  CHECK(gemm(d, "NT_matmul1").calls == Calls{{"decode", 2}});
}

TEST_CASE("call forms: R.dist.call_tir (global view), ty_args= and R.Any") {
  const std::string text =
      "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n# from tvm.script import relax as R\n\n"
      "@I.ir_module(s_tir=True)\nclass Module:\n"
      "    @T.prim_func(private=True, s_tir=True)\n"
      "    def mm(A: T.Buffer((T.int64(8), T.int64(16)), \"float32\"), B: T.Buffer((T.int64(16), T.int64(4)), "
      "\"float32\"), C: T.Buffer((T.int64(8), T.int64(4)), \"float32\")):\n"
      "        for i, j, k in T.grid(T.int64(8), T.int64(4), T.int64(16)):\n"
      "            with T.sblock(\"mm\"):\n"
      "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "                with T.init():\n                    C[vi, vj] = T.float32(0.0)\n"
      "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n\n"
      "    @R.function\n"
      "    def main(x: R.DTensor((8, 16), \"float32\", \"mesh[0]\", \"R\"), w: R.DTensor((16, 4), \"float32\", "
      "\"mesh[0]\", \"R\"), h: R.Any) -> R.DTensor((8, 4), \"float32\", \"mesh[0]\", \"R\"):\n"
      "        cls = Module\n"
      "        y = R.dist.call_tir(cls.mm, (x, w), out_ty=R.DTensor((8, 4), \"float32\", \"mesh[0]\", \"R\"))\n"
      "        z: R.Any = R.call_pure_packed(\"vm.builtin.dummy\", y, ty_args=(R.Any,))\n"
      "        return y\n";
  const ir::Module m = ir::parse_tvmscript(text, "d.py");
  REQUIRE(m.relax_funcs.size() == 1);
  const ir::RelaxFunc& f = m.relax_funcs[0];
  CHECK(f.params[2].sinfo->kind == ir::SInfoKind::kObject);  // R.Any
  REQUIRE(f.bindings.size() == 2);
  REQUIRE(f.bindings[1].value->sinfo_args.size() == 1);  // ty_args=
  CHECK(f.bindings[1].value->sinfo_args[0]->kind == ir::SInfoKind::kObject);
  const ExtractResult r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 1);
  check_shape(r.workloads[0], 8, 4, 16);
  CHECK(r.workloads[0].calls == Calls{{"main", 1}});
}

TEST_CASE("call forms (held back): R.dist.call_tir_local_view, R.call_tir_inplace, R.call_tir_with_grad") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/relax_dist_inplace_grad.py")));
  REQUIRE(r.workloads.size() == 2);
  check_shape(gemm(r, "matmul1"), 128, 256, 1024);  // the per-device shard of the 512 columns
  CHECK(gemm(r, "matmul1").calls == Calls{{"foo", 2}});
  check_shape(gemm(r, "f_mul"), 64, 16, 32);
  CHECK(gemm(r, "f_mul").calls == Calls{{"main", 1}});
  REQUIRE(r.operators.size() == 1);
  CHECK(r.operators[0].function == "add_inplace");
  CHECK(r.operators[0].ops == Dim::constant(1024));
  CHECK(r.operators[0].calls == Calls{{"main", 2}});
}
