// Non-GEMM operators of a dump (docs/extract.md "Operators"): element operations and DRAM bytes against hand
// counts (tests/fixtures/extract/nongemm_ops.py states them) and against generated element-wise kernels whose
// operation count is known by construction.
#include <catch2/catch.hpp>

#include <random>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;

namespace {

std::int64_t at(const Dim& d, std::int64_t n) {
  const Dim r = bind_dim(d, {{"n", n}}, true);
  return *r.value;
}

const OperatorWorkload* find_op(const ExtractResult& r, const std::string& fn, const std::string& entry) {
  for (const auto& o : r.operators)
    if (o.function == fn && o.calls.count(entry)) return &o;
  return nullptr;
}

struct Hand {
  const char* function;
  std::int64_t ops, read, write, fixed_read;  // per token; fixed_read: bytes read once whatever n is
  std::int64_t calls;                         // per entry
};

// Per token, from the fixture's header: hidden 64 (fp16: 128 bytes), 4 heads x 16, silu_mul input 128 wide.
const Hand kHand[] = {
    {"rms_norm", 7 * 64, 2 * 64, 2 * 64, 2 * 64, 2},
    {"softmax", 5 * 64, 2 * 64, 2 * 64, 0, 1},
    {"add", 64, 2 * 2 * 64, 2 * 64, 0, 2},
    {"fused_split_silu_multiply", 3 * 64, 2 * 128, 2 * 64, 0, 1},
    {"rotary", 6 * 64, 2 * 64 + 2 * 2 * 16, 2 * 64, 0, 1},
};

}  // namespace

TEST_CASE("operators of a toy layer: ops and bytes per call site against hand counts") {
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/nongemm_ops.py")));
  CHECK(r.workloads.size() == 2);  // the GEMMs are not operators
  for (const auto& h : kHand) {
    INFO(h.function);
    const OperatorWorkload* p = find_op(r, h.function, "prefill");
    const OperatorWorkload* d = find_op(r, h.function, "decode");
    REQUIRE(p != nullptr);
    REQUIRE(d != nullptr);
    CHECK(p != d);  // n tokens and one token are two records
    CHECK(p->shape_known);
    CHECK(p->calls.at("prefill") == h.calls);
    CHECK(d->calls.at("decode") == h.calls);
    CHECK(p->calls.size() == 1);
    for (const std::int64_t n : {1, 2, 7, 2048}) {
      INFO("n = " << n);
      CHECK(at(p->ops, n) == h.ops * n);
      CHECK(at(p->read_bytes, n) == h.read * n + h.fixed_read);
      CHECK(at(p->write_bytes, n) == h.write * n);
    }
    // decode: the call site binds n = 1
    REQUIRE(d->ops.known());
    CHECK(*d->ops.value == h.ops);
    CHECK(*d->read_bytes.value == h.read + h.fixed_read);
    CHECK(*d->write_bytes.value == h.write);
  }
  const OperatorWorkload* norm = find_op(r, "rms_norm", "prefill");
  CHECK(norm->ops.str() == "n * 448");
  CHECK(norm->reads == std::vector<std::string>{"A", "B"});
  CHECK(norm->writes == std::vector<std::string>{"rms_norm_1"});
  CHECK(std::find(r.symbols.begin(), r.symbols.end(), "n") != r.symbols.end());
}

TEST_CASE("operators: --entry keeps that entry's records, --bind binds their figures") {
  ExtractOptions o;
  o.entry = "prefill";
  o.bindings = {{"n", 10}};
  const ExtractResult r = extract_workloads(ir::load_module(tc_test::fixture("extract/nongemm_ops.py")), o);
  REQUIRE(r.operators.size() == 5);
  for (const auto& op : r.operators) {
    CHECK(op.calls.size() == 1);
    CHECK(op.calls.count("prefill") == 1);
    CHECK(op.ops.known());
  }
  CHECK(*find_op(r, "rms_norm", "prefill")->ops.value == 4480);
}

TEST_CASE("operators: generated element-wise kernels count domain x operations") {
  std::mt19937 rng(12);
  const char* const ops[] = {" + ", " - ", " * ", " / "};
  for (int trial = 0; trial < 40; ++trial) {
    const int rows = 1 + static_cast<int>(rng() % 9), cols = 1 + static_cast<int>(rng() % 300);
    const int nops = static_cast<int>(rng() % 7), calls = 1 + static_cast<int>(rng() % 3);
    // A[i, j] (op A[i, j]) ... with nops binary operators and one T.exp per third trial
    std::string value = "A[v_i, v_j]";
    for (int k = 0; k < nops; ++k) value = "(" + value + ops[rng() % 4] + "A[v_i, v_j + T.int64(0)])";
    std::int64_t expect_ops = nops;
    if (trial % 3 == 0) {
      value = "T.exp(" + value + ")";
      ++expect_ops;
    }
    std::string text =
        "# from tvm.script import tir as T\n@I.ir_module\nclass Module:\n"
        "    @T.prim_func(private=True)\n"
        "    def ew(A: T.Buffer((T.int64(" +
        std::to_string(rows) + "), T.int64(" + std::to_string(cols) + ")), \"float32\"), B: T.Buffer((T.int64(" +
        std::to_string(rows) + "), T.int64(" + std::to_string(cols) +
        ")), \"float16\")):\n"
        "        for i, j in T.grid(T.int64(" +
        std::to_string(rows) + "), T.int64(" + std::to_string(cols) +
        ")):\n"
        "            with T.block(\"ew\"):\n"
        "                v_i, v_j = T.axis.remap(\"SS\", [i, j])\n"
        "                B[v_i, v_j] = T.Cast(\"float16\", " +
        value + ")\n";
    text += "    @R.function\n    def main(a: R.Tensor((" + std::to_string(rows) + ", " + std::to_string(cols) +
            "), dtype=\"float32\")):\n        cls = Module\n";
    text += "        with R.dataflow():\n            lv0 = a\n";
    std::string last = "a";
    for (int c = 0; c < calls; ++c) {
      text += "            lv" + std::to_string(c + 1) + " = R.call_tir(cls.ew, (a,), out_sinfo=R.Tensor((" +
              std::to_string(rows) + ", " + std::to_string(cols) + "), dtype=\"float16\"))\n";
      last = "lv" + std::to_string(c + 1);
    }
    text += "            R.output(" + last + ")\n        return " + last + "\n";
    INFO(text);
    const ExtractResult r = extract_workloads(ir::parse_tvmscript(text, "gen.py"));
    REQUIRE(r.operators.size() == 1);
    const OperatorWorkload& o = r.operators[0];
    const std::int64_t elems = static_cast<std::int64_t>(rows) * cols;
    CHECK(*o.ops.value == elems * expect_ops);
    CHECK(*o.read_bytes.value == elems * 4);
    CHECK(*o.write_bytes.value == elems * 2);
    CHECK(o.calls.at("main") == calls);
  }
}

TEST_CASE("operators: a GEMM's fused epilogue is the blocks consuming its result; a plain GEMM has none") {
  const std::string text = R"(# from tvm.script import tir as T
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm_bias_relu(A: T.Buffer((T.int64(8), T.int64(16)), "float16"), B: T.Buffer((T.int64(32), T.int64(16)), "float16"), bias: T.Buffer((T.int64(32),), "float16"), C: T.Buffer((T.int64(8), T.int64(32)), "float32")):
        mm = T.alloc_buffer((T.int64(8), T.int64(32)), "float16")
        biased = T.alloc_buffer((T.int64(8), T.int64(32)), "float16")
        for i, j, k in T.grid(T.int64(8), T.int64(32), T.int64(16)):
            with T.block("mm"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    mm[v_i, v_j] = T.float16(0)
                mm[v_i, v_j] = mm[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]
        for i, j in T.grid(T.int64(8), T.int64(32)):
            with T.block("bias"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                biased[v_i, v_j] = mm[v_i, v_j] + bias[v_j]
        for i, j in T.grid(T.int64(8), T.int64(32)):
            with T.block("relu"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                C[v_i, v_j] = T.Cast("float32", T.max(biased[v_i, v_j], T.float16(0)))
    @T.prim_func(private=True)
    def mm_cast(A: T.Buffer((T.int64(8), T.int64(16)), "float16"), B: T.Buffer((T.int64(32), T.int64(16)), "float16"), C: T.Buffer((T.int64(8), T.int64(32)), "float32")):
        mm = T.alloc_buffer((T.int64(8), T.int64(32)), "float16")
        for i, j, k in T.grid(T.int64(8), T.int64(32), T.int64(16)):
            with T.block("mm"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    mm[v_i, v_j] = T.float16(0)
                mm[v_i, v_j] = mm[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]
        for i, j in T.grid(T.int64(8), T.int64(32)):
            with T.block("cast"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                C[v_i, v_j] = T.Cast("float32", mm[v_i, v_j])
)";
  const ExtractResult r = extract_workloads(ir::parse_tvmscript(text, "epi.py"));
  REQUIRE(r.workloads.size() == 2);  // both GEMMs stay GEMMs
  REQUIRE(r.operators.size() == 1);  // a cast alone is no work and reads nothing: no record for mm_cast
  const OperatorWorkload& e = r.operators.front();
  CHECK(e.function == "mm_bias_relu");
  CHECK(e.epilogue);
  CHECK(*e.ops.value == 8 * 32 * 2);     // the add and the max per output element (casts are free)
  CHECK(*e.read_bytes.value == 32 * 2);  // the bias, fp16; A, B and the GEMM's result are the GEMM's
  CHECK(*e.write_bytes.value == 0);      // the output write is the GEMM's
  CHECK(e.reads == std::vector<std::string>{"bias"});
}

TEST_CASE("operators: a schedule's cross-thread reduction of partial sums is the GEMM's, not an epilogue") {
  for (const char* name : {"fixtures/real/24_tvm2026_tirx_sblock_q4f16_1_lm_head_gemv_scheduled.py",
                           "fixtures/real/25_tvm_dlight_q4f16_1_lm_head_gemv_scheduled.py"}) {
    const std::string path = tc_test::shared_path(name);
    if (path.empty()) return;  // ../shared absent
    const ExtractResult r = extract_workloads(ir::load_module(path));
    REQUIRE(!r.workloads.empty());
    for (const auto& o : r.operators) CHECK_FALSE(o.epilogue);
  }
}
