// Issue 13 items 2 (extern / intrinsic dequantize), 3 (tensorized blocks) and 6 (broadcast
// batch matmul), on the project's own fixtures (tests/fixtures/extract/).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Workload& find(const ExtractResult& r, const std::string& fn) {
  for (const auto& w : r.workloads)
    if (w.function == fn) return w;
  FAIL("no workload " << fn);
  throw 0;
}

ExtractResult run_text(const std::string& text, const std::string& name) {
  return extract_workloads(ir::parse_tvmscript(text, name));
}

/// `text` with the first `from` replaced by `to` (the replacement must happen).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto p = text.find(from);
  REQUIRE(p != std::string::npos);
  return text.replace(p, from.size(), to);
}

/// Product of a buffer's static dims as declared in a function's signature.
std::int64_t dims_of(const ir::PrimFunc& f, const std::string& buffer, std::size_t d) {
  const auto& b = f.buffers.at(buffer);
  REQUIRE(d < b.shape.size());
  REQUIRE(b.shape[d]->kind == ir::ExprKind::kInt);
  return b.shape[d]->int_value;
}

}  // namespace

TEST_CASE("tensorized GEMMs: M/N/K from the loops around the intrinsic x the fragment tile (item 3)") {
  const std::string path = tc_test::fixture("extract/tensorized_gemm.py");
  const ir::Module mod = ir::load_module(path);
  const ExtractResult r = extract_workloads(mod);
  // the fragment fill / load / store blocks (spatial only) never give a workload
  REQUIRE(r.workloads.size() == 3);
  // oracle: the unscheduled function's buffer shapes C[M, N] = A[M, K] . B[N, K]^T
  const ir::PrimFunc& plain = mod.prim_funcs.at(0);
  REQUIRE(plain.name == "matmul");
  const std::int64_t M = dims_of(plain, "A", 0), K = dims_of(plain, "A", 1), N = dims_of(plain, "B", 0);
  const Workload& ref = find(r, "matmul");
  CHECK(ref.m == Dim::constant(M));
  for (const char* fn : {"matmul_wmma", "matmul_ptx_mma"}) {
    INFO(fn);
    const Workload& w = find(r, fn);
    CHECK(w.shape_known);
    CHECK(w.m == ref.m);
    CHECK(w.n == ref.n);
    CHECK(w.k == ref.k);
    CHECK(w.batch == ref.batch);
    CHECK(w.m == Dim::constant(M));
    CHECK(w.n == Dim::constant(N));
    CHECK(w.k == Dim::constant(K));
    CHECK(w.layout == ref.layout);
    CHECK(w.layout == "NT");
    CHECK(w.dtype_a == parse_dtype("float16"));
    CHECK(w.dtype_b == parse_dtype("float16"));
    CHECK(w.dtype_accum == parse_dtype("float32"));
    CHECK(w.dtype_out == parse_dtype("float32"));
    CHECK(w.weight_operand == ref.weight_operand);
    CHECK(w.note.find("tensorized") != std::string::npos);
    CHECK(w.note.find("fragment tile 16x16x16") != std::string::npos);
  }
}

TEST_CASE("tensorized GEMMs: a tile the intrinsics contradict, and a block without a reduce axis") {
  const std::string text = slurp(tc_test::fixture("extract/tensorized_gemm.py"));
  SECTION("ptx_mma shapes that disagree with the regions: shape unknown, said in the note") {
    std::string t = text;
    for (int i = 0; i < 2; ++i) t = replaced(t, "\"m16n8k16\"", "\"m16n8k8\"");
    const ExtractResult r = run_text(t, "mma.py");
    const Workload& w = find(r, "matmul_ptx_mma");
    CHECK_FALSE(w.shape_known);
    CHECK(w.note.find("disagrees with the intrinsics' shapes") != std::string::npos);
  }
  SECTION("ptx_mma shapes of 10^18 MACs per call: no overflow, they disagree") {
    std::string t = text;
    for (int i = 0; i < 2; ++i) t = replaced(t, "\"m16n8k16\"", "\"m999999n999999k999999\"");
    const ExtractResult r = run_text(t, "mma.py");
    const Workload& w = find(r, "matmul_ptx_mma");
    CHECK_FALSE(w.shape_known);
    CHECK(w.note.find("(1999994000005999998 MACs)") != std::string::npos);
  }
  SECTION("regions whose sizes are no fragment tile: shape unknown") {
    // the MMA block's write region (the one after its reads of the warp operands) becomes 32x7
    const std::string mma_rw =
        "B_shared_warp[vj_o, vk_o, 0:32, 0:8])\n" + std::string(28, ' ') + "T.writes(C_warp[vi_o, vj_o, 0:32, 0:8])";
    const std::string t =
        replaced(text, mma_rw, replaced(mma_rw, "C_warp[vi_o, vj_o, 0:32, 0:8])", "C_warp[vi_o, vj_o, 0:32, 0:7])"));
    const ExtractResult r = run_text(t, "mma.py");
    const Workload& w = find(r, "matmul_ptx_mma");
    CHECK_FALSE(w.shape_known);
    CHECK(w.note.find("fragment tile not derivable") != std::string::npos);
  }
  SECTION("an MMA block with no reduce axis is a tile, not a workload") {
    const std::string t = replaced(text, "v2_o = T.axis.reduce(64,", "v2_o = T.axis.spatial(64,");
    const ExtractResult r = run_text(t, "mma.py");
    CHECK(r.workloads.size() == 2);
    for (const auto& w : r.workloads) CHECK(w.function != "matmul_wmma");
  }
}

TEST_CASE("extern dequantize: facts from dequantize_info, the extern's name and the shapes (item 2)") {
  const std::string path = tc_test::fixture("extract/extern_dequant.py");
  const ExtractResult r = extract_workloads(ir::load_module(path));
  REQUIRE(r.workloads.size() == 2);
  const Workload& w = find(r, "gemv_i4_extern");
  CHECK(w.m == Dim::constant(1));
  CHECK(w.n == Dim::constant(1024));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.layout == "NT");
  CHECK(w.weight_operand == WeightOperand::kB);  // the decoded weight, not the activation
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.elems_per_storage == 2);
  CHECK(w.quant.storage_dtype == parse_dtype("int8"));
  CHECK(w.quant.scale_dtype == parse_dtype("float16"));
  CHECK(w.quant.granularity == QuantGranularity::kGroup);
  CHECK(w.quant.group_size == 32);
  CHECK(w.quant.weight_layout == "NK");
  CHECK(w.quant.zero_point == ZeroPointKind::kSymmetric);
  CHECK(w.quant.scheme == "custom");
  CHECK(w.note.find("decoded by extern decode_i4s_to_f16_scale in block B_decode_local_o from B (int8)") !=
        std::string::npos);
  CHECK(w.note.find("bits 4 from dequantize_info (agrees") != std::string::npos);
  CHECK(w.note.find("the regions' sizes (2 per int8) 4") != std::string::npos);
  CHECK(w.note.find("group size 32 from dequantize_info (agrees") != std::string::npos);

  const Workload& u = find(r, "gemv_u2_pure_extern");
  CHECK(u.weight_operand == WeightOperand::kB);
  CHECK(u.quant.weight_bits == 2);
  CHECK(u.quant.elems_per_storage == 4);
  CHECK(u.quant.granularity == QuantGranularity::kChannel);
  CHECK(u.quant.zero_point == ZeroPointKind::kNone);
  CHECK(u.note.find("bits 2 from the extern's name (agrees") != std::string::npos);
  CHECK(u.note.find("unsigned source without zero point (the extern's name)") != std::string::npos);
}

TEST_CASE("extern dequantize: sources that disagree are named; no decode left -> unquantized") {
  const std::string text = slurp(tc_test::fixture("extract/extern_dequant.py"));
  SECTION("dequantize_info says 8 bits, the name and the shapes 4") {
    const ExtractResult r = run_text(replaced(text, "\"bits\": 4", "\"bits\": 8"), "x.py");
    const Workload& w = find(r, "gemv_i4_extern");
    CHECK(w.quant.weight_bits == 8);
    CHECK(w.note.find("DISAGREE") != std::string::npos);
  }
  SECTION("bits that do not fit the storage (4294967300 would wrap to 4 in 32 bits): its width, said") {
    const ExtractResult r = run_text(replaced(text, "\"bits\": 4", "\"bits\": 4294967300"), "x.py");
    const Workload& w = find(r, "gemv_i4_extern");
    CHECK(w.quant.weight_bits == 8);
    CHECK(w.note.find("bits 4294967300 do not fit the int8 storage: its width is used") != std::string::npos);
  }
  SECTION("group size from the scale's shape alone") {
    const ExtractResult r = run_text(replaced(text, "\"group_size\": 32, ", ""), "x.py");
    const Workload& w = find(r, "gemv_i4_extern");
    CHECK(w.quant.group_size == 32);
    CHECK(w.note.find("group size 32 from the scale's shape along K (128 groups of K 4096)") != std::string::npos);
  }
  SECTION("a decode that is no extern call: the weight is not invented") {
    const ExtractResult r =
        run_text(replaced(text, "T.call_pure_extern(\"handle\"", "T.tvm_thread_allreduce(\"handle\""), "x.py");
    const Workload& u = find(r, "gemv_u2_pure_extern");
    CHECK(u.quant.weight_bits == 0);
    CHECK(u.quant.scheme != "custom");
  }
}

TEST_CASE("extern dequantize in a separate producer prim_func called from Relax (item 2)") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/extern_dequant_relax.py")));
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = find(r, "NT_matmul");
  CHECK(w.m == Dim::symbolic(sym::sym_var("n")));
  CHECK(w.n == Dim::constant(4096));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.calls.at("prefill") == 1);
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.group_size == 128);
  CHECK(w.quant.storage_dtype == parse_dtype("int8"));
  CHECK(w.quant.weight_layout == "NK");
  CHECK(w.quant.zero_point == ZeroPointKind::kNone);
  CHECK(w.note.find("weight dequantized by decode") != std::string::npos);
  CHECK(w.note.find("group size 128 from dequantize_info (agrees") != std::string::npos);
}

TEST_CASE("broadcast batch matmul: one shape convention in Relax and in legalized TIR (item 6)") {
  const ExtractResult rel = extract_workloads(ir::load_module(tc_test::fixture("extract/broadcast_matmul_relax.py")));
  const ExtractResult tir = extract_workloads(ir::load_module(tc_test::fixture("extract/broadcast_matmul_tir.py")));
  REQUIRE(rel.workloads.size() == 2);
  REQUIRE(tir.workloads.size() == 2);
  const std::map<std::string, std::string> pairs{{"mm/gv", "matmul"}, {"bmm/gv", "matmul1"}};
  for (const auto& [rf, tf] : pairs) {
    INFO(rf << " vs " << tf);
    const Workload& a = find(rel, rf);
    const Workload& b = find(tir, tf);
    CHECK(a.m == b.m);
    CHECK(a.n == b.n);
    CHECK(a.k == b.k);
    CHECK(a.batch == b.batch);
    CHECK(a.layout == b.layout);
    CHECK(a.dtype_a == b.dtype_a);
    CHECK(a.dtype_b == b.dtype_b);
    CHECK(a.calls == b.calls);
  }
  // a dim one operand broadcasts over joins that side's M / N; a dim both have is batch
  CHECK(find(rel, "mm/gv").m.str() == "b * m");
  CHECK(find(rel, "mm/gv").n.str() == "a * c * n");
  CHECK(find(rel, "mm/gv").batch == Dim::constant(1));
  CHECK(find(rel, "bmm/gv").m == Dim::constant(2 * 64));
  CHECK(find(rel, "bmm/gv").batch == Dim::constant(8));
  CHECK(find(rel, "bmm/gv").n == Dim::constant(16));
  CHECK(find(rel, "bmm/gv").k == Dim::constant(32));
  // the MACs with every name bound agree with the brute product of the output dims and K
  ExtractOptions o;
  o.bindings = {{"a", 2}, {"b", 3}, {"c", 5}, {"m", 7}, {"n", 11}, {"k", 13}};
  const ExtractResult bound =
      extract_workloads(ir::load_module(tc_test::fixture("extract/broadcast_matmul_relax.py")), o);
  const Workload& w = find(bound, "mm/gv");
  CHECK(*w.batch.value * *w.m.value * *w.n.value * *w.k.value == 2 * 3 * 5 * 7 * 11 * 13);
}
