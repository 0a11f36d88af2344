// TVM JSON reader: the real save_json fixtures (26-29), the hand-written GEMM
// module in both dialects, the MetaSchedule line form, and malformed graphs.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ir_text.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string base64(const std::string& in) {
  static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t k = 0;
  for (; k + 2 < in.size(); k += 3) {
    const unsigned v = (static_cast<unsigned char>(in[k]) << 16) | (static_cast<unsigned char>(in[k + 1]) << 8) |
                       static_cast<unsigned char>(in[k + 2]);
    out += a[(v >> 18) & 63], out += a[(v >> 12) & 63], out += a[(v >> 6) & 63], out += a[v & 63];
  }
  if (k + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[k]) << 16;
    out += a[(v >> 18) & 63], out += a[(v >> 12) & 63], out += "==";
  } else if (k + 2 == in.size()) {
    const unsigned v = (static_cast<unsigned char>(in[k]) << 16) | (static_cast<unsigned char>(in[k + 1]) << 8);
    out += a[(v >> 18) & 63], out += a[(v >> 12) & 63], out += a[(v >> 6) & 63], out += "=";
  }
  return out;
}

const PrimFunc& func(const Module& m, const std::string& name) {
  for (const auto& f : m.prim_funcs) {
    if (f.name == name) return f;
  }
  FAIL("no prim_func " << name);
  throw;
}

/// Message of the InputError that reading `text` throws ("" when it does not throw).
std::string error_of(const std::string& text, const std::string& file = "bad.json") {
  try {
    (void)read_tvm_json(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("fixture 26: legacy v0.15 BufferStore with Ramp/Broadcast", "[ir_json]") {
  const std::string p = tc_test::shared_path("fixtures/real/26_tvm_json_legacy_v0.15_tir_bufferstore_ramp.json");
  if (p.empty()) {
    WARN("../shared not present: skipped");
    return;
  }
  const Module m = read_tvm_json(slurp(p), p);
  CHECK(m.format == "tvm-json-legacy");
  CHECK(m.source == p);
  REQUIRE(m.prim_funcs.size() == 1);
  REQUIRE(m.relax_funcs.empty());
  const PrimFunc& f = m.prim_funcs[0];
  CHECK(f.name == "tir.BufferStore");
  CHECK(f.attrs.count("tvm_json.synthetic") == 1);
  REQUIRE(f.body);
  REQUIRE(f.body->kind == StmtKind::kStore);
  CHECK(f.body->buffer == "buffer");
  REQUIRE(f.body->indices.size() == 1);
  const Expr& idx = *f.body->indices[0];
  CHECK(idx.kind == ExprKind::kRamp);
  CHECK(idx.int_value == 12);  // lanes: an int field before 0.16
  CHECK(idx.dtype == "int32x12");
  REQUIRE(idx.args.size() == 2);
  CHECK(idx.args[0]->int_value == 11);
  CHECK(idx.args[1]->int_value == 1);
  const Expr& v = *f.body->value;
  CHECK(v.kind == ExprKind::kBroadcast);
  CHECK(v.int_value == 12);
  REQUIRE(v.args.size() == 1);
  CHECK(v.args[0]->kind == ExprKind::kInt);
  CHECK(v.args[0]->int_value == 3);
  REQUIRE(f.buffers.count("buffer") == 1);
  const Buffer& b = f.buffers.at("buffer");
  CHECK(b.dtype == "int32");
  REQUIRE(b.shape.size() == 1);
  CHECK(b.shape[0]->int_value == 50);
  CHECK(b.scope.empty());  // storage_scope "" (a String node without repr_str)
}

TEST_CASE("fixture 27: legacy v0.17 BufferLoad/BufferStore with predicate", "[ir_json]") {
  const std::string p = tc_test::shared_path("fixtures/real/27_tvm_json_legacy_v0.17_tir_bufferload_predicate.json");
  if (p.empty()) {
    WARN("../shared not present: skipped");
    return;
  }
  const Module m = read_tvm_json(slurp(p), p);
  REQUIRE(m.prim_funcs.size() == 1);
  const PrimFunc& f = m.prim_funcs[0];
  REQUIRE(f.body->kind == StmtKind::kStore);
  // The buffer's name is an empty String node: the reader names it after its node index.
  CHECK(f.body->buffer == "buffer_2");
  REQUIRE(f.body->indices.size() == 1);
  CHECK(f.body->indices[0]->kind == ExprKind::kRamp);
  CHECK(f.body->indices[0]->int_value == 4);
  CHECK(f.body->indices[0]->args[0]->int_value == 4);  // store at [4:8]
  const Expr& v = *f.body->value;
  CHECK(v.kind == ExprKind::kLoad);
  CHECK(v.name == "buffer_2");
  CHECK(v.dtype == "float32x4");
  REQUIRE(v.args.size() == 1);
  CHECK(v.args[0]->kind == ExprKind::kRamp);
  CHECK(v.args[0]->int_value == 4);  // lanes is a node reference (IntImm 4) since 0.16
  CHECK(v.args[0]->args[0]->int_value == 0);
  REQUIRE(f.buffers.count("buffer_2") == 1);
  CHECK(f.buffers.at("buffer_2").dtype == "float32");
  CHECK(f.buffers.at("buffer_2").shape.at(0)->int_value == 8);
  CHECK(f.buffers.at("buffer_2").scope.empty());  // "global" is the default scope
}

TEST_CASE("fixture 28: tvm-ffi tirx.Add of a var with itself", "[ir_json]") {
  const std::string p = tc_test::shared_path("fixtures/real/28_tvm_json_ffi_v0.26_tirx_add.json");
  if (p.empty()) {
    WARN("../shared not present: skipped");
    return;
  }
  const Module m = read_tvm_json(slurp(p), p);
  CHECK(m.format == "tvm-json-ffi");
  REQUIRE(m.prim_funcs.size() == 1);
  const PrimFunc& f = m.prim_funcs[0];
  CHECK(f.name == "tir.Add");
  REQUIRE(f.body->kind == StmtKind::kEvaluate);
  const Expr& e = *f.body->value;
  CHECK(e.kind == ExprKind::kBinary);
  CHECK(e.bin_op == BinOp::kAdd);
  REQUIRE(e.args.size() == 2);
  for (const auto& a : e.args) {
    CHECK(a->kind == ExprKind::kVar);
    CHECK(a->name == "legacy");
    CHECK(a->dtype == "int64");  // from the var's `ty` PrimType
  }
  CHECK(e.args[0] == e.args[1]);  // one node, converted once
}

TEST_CASE("fixture 29: tvm-ffi relax Tuple of vars", "[ir_json]") {
  const std::string p = tc_test::shared_path("fixtures/real/29_tvm_json_ffi_v0.26_relax_tuple.json");
  if (p.empty()) {
    WARN("../shared not present: skipped");
    return;
  }
  const Module m = read_tvm_json(slurp(p), p);
  REQUIRE(m.prim_funcs.empty());
  REQUIRE(m.relax_funcs.size() == 1);
  const RelaxFunc& f = m.relax_funcs[0];
  CHECK(f.name == "relax.Tuple");
  REQUIRE(f.ret);
  CHECK(f.ret->kind == RExprKind::kTuple);
  REQUIRE(f.ret->args.size() == 2);
  CHECK(f.ret->args[0]->kind == RExprKind::kVar);
  CHECK(f.ret->args[0]->name == "legacy");
}

TEST_CASE("hand-written GEMM module, legacy dialect", "[ir_json]") {
  const std::string p = tc_test::fixture("ir_json/gemm_legacy.json");
  const Module m = read_tvm_json(slurp(p), p);
  CHECK(m.format == "tvm-json-legacy");
  REQUIRE(m.prim_funcs.size() == 2);
  REQUIRE(m.relax_funcs.size() == 1);
  CHECK(m.prim_funcs[0].name == "matmul");
  CHECK(m.prim_funcs[1].name == "NT_matmul");

  const PrimFunc& mm = func(m, "matmul");
  CHECK_FALSE(mm.is_private);
  CHECK(mm.attrs.at("global_symbol") == "matmul");
  CHECK(mm.attrs.at("tir.noalias") == "True");
  REQUIRE(mm.params.size() == 3);
  CHECK(mm.params[0].name == "A");
  CHECK(mm.params[0].kind == ParamKind::kBuffer);
  CHECK(mm.params[0].buffer == "A");
  CHECK(mm.params[0].dtype == "float16");
  CHECK(mm.sym_vars.empty());
  CHECK(mm.buffers.size() == 3);
  CHECK(mm.buffers.at("B").shape.at(1)->int_value == 256);

  // root block -> for i -> for j -> for k -> block "matmul"
  REQUIRE(mm.body->kind == StmtKind::kBlock);
  CHECK(mm.body->block->name == "root");
  CHECK(mm.body->block->iter_vars.empty());
  StmtPtr s = mm.body->block->body;
  std::vector<std::pair<std::string, std::int64_t>> loops;
  while (s && s->kind == StmtKind::kFor) {
    CHECK(s->for_kind == ForKind::kSerial);
    CHECK(s->min->int_value == 0);
    loops.emplace_back(s->var, s->extent->int_value);
    s = s->body;
  }
  CHECK(loops == std::vector<std::pair<std::string, std::int64_t>>{{"i", 128}, {"j", 256}, {"k", 64}});
  REQUIRE(s);
  REQUIRE(s->kind == StmtKind::kBlock);
  const Block& b = *s->block;
  CHECK(b.name == "matmul");
  REQUIRE(b.iter_vars.size() == 3);
  CHECK(b.iter_vars[0].name == "v_i");
  CHECK(b.iter_vars[0].kind == IterKind::kSpatial);
  CHECK(b.iter_vars[1].kind == IterKind::kSpatial);
  CHECK(b.iter_vars[2].kind == IterKind::kReduce);
  CHECK(b.iter_vars[2].extent->int_value == 64);
  CHECK(b.iter_vars[2].binding->kind == ExprKind::kVar);
  CHECK(b.iter_vars[2].binding->name == "k");
  CHECK(b.predicate == nullptr);  // the always-true predicate is dropped
  REQUIRE(b.reads.size() == 2);
  CHECK(b.reads[0].buffer == "A");
  CHECK(b.reads[1].buffer == "B");
  REQUIRE(b.reads[1].region.size() == 2);
  CHECK(b.reads[1].region[0].min->name == "v_k");
  CHECK(b.reads[1].region[0].extent->int_value == 1);
  REQUIRE(b.writes.size() == 1);
  CHECK(b.writes[0].buffer == "C");
  REQUIRE(b.init);
  CHECK(b.init->kind == StmtKind::kStore);
  CHECK(b.init->value->kind == ExprKind::kFloat);
  REQUIRE(b.body->kind == StmtKind::kStore);
  CHECK(b.body->buffer == "C");
  const Expr& upd = *b.body->value;
  REQUIRE(upd.kind == ExprKind::kBinary);
  CHECK(upd.bin_op == BinOp::kAdd);
  CHECK(upd.args[0]->kind == ExprKind::kLoad);
  CHECK(upd.args[0]->name == "C");
  const Expr& mul = *upd.args[1];
  REQUIRE(mul.kind == ExprKind::kBinary);
  CHECK(mul.bin_op == BinOp::kMul);
  CHECK(mul.args[0]->name == "A");
  CHECK(mul.args[1]->name == "B");
  CHECK(mul.args[1]->args.at(0)->name == "v_k");

  const PrimFunc& nt = func(m, "NT_matmul");
  CHECK(nt.is_private);
  CHECK(nt.sym_vars == std::vector<std::string>{"n"});
  REQUIRE(nt.params.size() == 3);
  CHECK(nt.params[0].name == "x");
  CHECK(nt.params[0].kind == ParamKind::kHandle);
  CHECK(nt.params[0].buffer == "X");
  CHECK(nt.params[1].kind == ParamKind::kBuffer);
  CHECK(nt.buffers.at("X").shape.at(1)->kind == ExprKind::kVar);
  CHECK(nt.buffers.at("X").shape.at(1)->dtype == "int64");

  const RelaxFunc& main = m.relax_funcs[0];
  CHECK(main.name == "main");
  REQUIRE(main.params.size() == 2);
  CHECK(main.params[0].name == "x");
  REQUIRE(main.params[0].sinfo);
  CHECK(main.params[0].sinfo->kind == SInfoKind::kTensor);
  CHECK(main.params[0].sinfo->dims.size() == 3);
  CHECK(main.sym_vars == std::vector<std::string>{"n"});
  REQUIRE(main.bindings.size() == 2);
  CHECK(main.bindings[0].var == "lv");
  const RExpr& call = *main.bindings[0].value;
  CHECK(call.kind == RExprKind::kCall);
  CHECK(call.op == "R.call_tir");
  REQUIRE(call.args.size() == 2);
  CHECK(call.args[0]->kind == RExprKind::kGlobalFunc);
  CHECK(call.args[0]->name == "NT_matmul");
  CHECK(call.args[1]->kind == RExprKind::kTuple);
  REQUIRE(call.sinfo_args.size() == 1);
  CHECK(call.sinfo_args[0]->dims.at(2)->int_value == 11008);
  REQUIRE(main.ret);
  CHECK(main.ret->name == "gv");
}

TEST_CASE("legacy and tvm-ffi dialects give the same IR", "[ir_json]") {
  const Module a = read_tvm_json(slurp(tc_test::fixture("ir_json/gemm_legacy.json")), "a.json");
  const Module b = read_tvm_json(slurp(tc_test::fixture("ir_json/gemm_ffi.json")), "b.json");
  CHECK(b.format == "tvm-json-ffi");
  const std::string da = ir_test::dump(a, false);
  CHECK(da.size() > 2000);
  CHECK(da == ir_test::dump(b, false));
}

TEST_CASE("the mid-2026 StructInfo -> Type rename gives the same IR as the older dialects", "[ir_json]") {
  // relax.TensorType, `ty` (PrimType for TIR, no dtype field), ir.Call with ty_args, ret_ty,
  // ir.Var with `name` for TIR and Relax vars, PointerType handle params (make_gemm_json.py)
  const Module a = read_tvm_json(slurp(tc_test::fixture("ir_json/gemm_legacy.json")), "a.json");
  const Module c = read_tvm_json(slurp(tc_test::fixture("ir_json/gemm_ffi_2026.json")), "c.json");
  CHECK(c.format == "tvm-json-ffi");
  CHECK(ir_test::dump(a, false) == ir_test::dump(c, false));
  const ExtractResult r = extract_workloads(c);
  REQUIRE(r.workloads.size() == 2);
  const Workload& nt = r.workloads[0].function == "NT_matmul" ? r.workloads[0] : r.workloads[1];
  CHECK(nt.m == Dim::symbolic(sym::sym_var("n")));
  CHECK(nt.n == Dim::constant(11008));
  CHECK(nt.k == Dim::constant(4096));
  CHECK(nt.calls == std::map<std::string, std::int64_t>{{"main", 1}});
}

TEST_CASE("MetaSchedule workload lines: [shash, base64(save_json)]", "[ir_json]") {
  const std::string legacy = slurp(tc_test::fixture("ir_json/gemm_legacy.json"));
  const std::string ffi = slurp(tc_test::fixture("ir_json/gemm_ffi.json"));
  const std::string db = "[\"0x1234\", \"" + base64(legacy) + "\"]\n\n[\"0x99\", \"" + base64(ffi) + "\"]\n";
  const Module m = read_tvm_json(db, "database_workload.json");
  REQUIRE(m.prim_funcs.size() == 4);
  REQUIRE(m.relax_funcs.size() == 2);
  const Module direct = read_tvm_json(legacy, "x");
  Module first;
  first.prim_funcs = {m.prim_funcs[0], m.prim_funcs[1]};
  first.relax_funcs = {m.relax_funcs[0]};
  CHECK(ir_test::dump(first, false) == ir_test::dump(direct, false));

  CHECK_THAT(error_of("[\"0x1\", \"@@@@\"]\n", "db.json"), Catch::Contains("db.json:1 (base64 workload)") &&
                                                             Catch::Contains("invalid base64"));
  CHECK_THAT(error_of("[\"0x1\", \"" + base64(legacy) + "\"]\n[1, 2]\n", "db.json"),
             Catch::StartsWith("db.json:2:1: expected a MetaSchedule workload line"));
  CHECK_THAT(error_of("[\"0x1\", \"" + base64("{\"root\": 1,") + "\"]\n", "db.json"),
             Catch::StartsWith("db.json:1 (base64 workload):1:12: invalid JSON"));
}

namespace {
/// A legacy graph with the given nodes (node 0 = null is prepended) and root.
std::string legacy_graph(const std::string& nodes, int root) {
  return "{\"root\": " + std::to_string(root) + ", \"nodes\": [{\"type_key\": \"\"}," + nodes +
         "], \"attrs\": {\"tvm_version\": \"0.15.0\"}}";
}
const std::string kInt = R"({"type_key": "IntImm", "attrs": {"dtype": "int32", "value": "7"}})";
}  // namespace

TEST_CASE("malformed TVM JSON: clean InputErrors", "[ir_json][malformed]") {
  // Syntax errors carry file:line:col of the offending byte.
  CHECK_THAT(error_of("{\n  \"root\": 1,\n  \"nodes\": [,]\n}"), Catch::StartsWith("bad.json:3:13: invalid JSON:"));
  CHECK_THAT(error_of("{\"root\": 1"), Catch::StartsWith("bad.json:1:11: invalid JSON:"));
  CHECK_THAT(error_of(""), Catch::Contains("empty input"));
  CHECK_THAT(error_of("   \n "), Catch::Contains("empty input"));
  CHECK_THAT(error_of("\"just a string\""), Catch::Contains("expected a JSON object"));
  CHECK_THAT(error_of("{\"nodes\": []}"), Catch::Contains("not a TVM JSON graph"));
  CHECK_THAT(error_of("{\"root\": 0, \"nodes\": []}"), Catch::Contains("\"nodes\" array is empty"));
  CHECK_THAT(error_of("{\"root\": 0, \"nodes\": {}}"), Catch::Contains("expected a \"nodes\" array"));
  CHECK_THAT(error_of("{\"root\": \"1\", \"nodes\": [{}]}"), Catch::Contains("\"root\" must be an integer"));
  CHECK_THAT(error_of("{\"root\": 5, \"nodes\": [{}]}"), Catch::Contains("root index 5 is outside the 1 nodes"));
  CHECK_THAT(error_of("{\"root\": -1, \"nodes\": [{}]}"), Catch::Contains("outside"));
  CHECK_THAT(error_of("{\"root_index\": 0, \"nodes\": [{\"data\": 1}]}"), Catch::Contains("node 0: missing \"type\""));
  CHECK_THAT(error_of("{\"root\": 0, \"nodes\": [7]}"), Catch::Contains("node 0: expected an object"));
  CHECK_THAT(error_of("{\"root\": 0, \"nodes\": [{\"type_key\": 3}]}"), Catch::Contains("\"type_key\" must be a string"));
  // Unknown / unsupported root.
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "runtime.String", "repr_str": "x"})", 1)),
             Catch::Contains("node 1 (runtime.String): unsupported root"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "Frobnicate"})", 1)), Catch::Contains("unsupported root"));
  // Dangling, cyclic, wrong field types.
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.Add", "attrs": {"a": "9", "b": "9"}})", 1)),
             Catch::Contains("node 1 (tir.Add), field 'a': dangling reference to node 9 (the graph has 2 nodes)"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.Add", "attrs": {"a": "1", "b": "1"}})", 1)),
             Catch::Contains("cyclic reference"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.Add", "attrs": {"a": "2", "b": "3"}},
                                      {"type_key": "tir.Mul", "attrs": {"a": "1", "b": "1"}}, )" + kInt, 1)),
             Catch::Contains("cyclic reference"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.Add", "attrs": {"a": "x", "b": "1"}})", 1)),
             Catch::Contains("field 'a': expected a node reference (a decimal index), found \"x\""));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.Add", "attrs": {"a": "0", "b": "0"}})", 1)),
             Catch::Contains("field 'a': required reference is null"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.Add", "attrs": {"b": "2"}}, )" + kInt, 1)),
             Catch::Contains("field 'a': missing required field"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "IntImm", "attrs": {"dtype": "int32", "value": "seven"}})", 1)),
             Catch::Contains("node 1 (IntImm), field 'value': expected an integer, found \"seven\""));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "IntImm", "attrs": {"dtype": "int32", "value": "99999999999999999999"}})", 1)),
             Catch::Contains("does not fit in 64 bits"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "FloatImm", "attrs": {"dtype": "float32", "value": "1.5x"}})", 1)),
             Catch::Contains("expected a number"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "IntImm", "attrs": []})", 1)), Catch::Contains("\"attrs\" must be an object"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.SeqStmt", "attrs": {"seq": "2"}}, )" + kInt, 1)),
             Catch::Contains("field 'seq': expected a reference to an Array"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.SeqStmt", "attrs": {"seq": "2"}}, {"type_key": "Array", "data": ["a"]})", 1)),
             Catch::Contains("expected a node index"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.SeqStmt", "attrs": {"seq": "2"}}, {"type_key": "Array", "data": [77]})", 1)),
             Catch::Contains("dangling reference to node 77"));
  CHECK_THAT(error_of(legacy_graph(R"({"type_key": "tir.For", "attrs": {"loop_var": "2", "min": "3", "extent": "3", "kind": "9", "body": "4"}},
      {"type_key": "tir.Var", "attrs": {"dtype": "int32", "name": "0"}}, )" + kInt + R"(, {"type_key": "tir.Evaluate", "attrs": {"value": "3"}})", 1)),
             Catch::Contains("field 'kind': unknown loop kind 9"));
  CHECK_THAT(error_of(R"({"root": 1, "nodes": [{"type_key": ""}, {"type_key": "Map", "data": [1]}]})"), Catch::Contains("unsupported root"));
  // tvm-ffi: references are JSON integers, literals are literals.
  CHECK_THAT(error_of(R"({"root_index": 1, "nodes": [{"type": "None"}, {"type": "tirx.Add", "data": {"a": "0", "b": 0}}]})"),
             Catch::Contains("field 'a': expected a node reference (an integer)"));
  CHECK_THAT(error_of(R"({"root_index": 1, "nodes": [{"type": "None"}, {"type": "tirx.Add", "data": {"a": 3.5, "b": 0}}]})"),
             Catch::Contains("expected a node reference"));
  CHECK_THAT(error_of(R"({"root_index": 0, "nodes": [{"type": "tirx.Add", "data": {"a": 0, "b": 0}}]})"),
             Catch::Contains("cyclic reference"));
  CHECK_THAT(error_of(R"({"root_index": 0, "nodes": [{"type": "ffi.Map", "data": [0]}]})"), Catch::Contains("unsupported root"));
  CHECK_THAT(error_of(R"({"root_index": 0, "nodes": [{"type": "ir.IRModule", "data": {"functions": 1}}, {"type": "ffi.Map", "data": [0]}]})"),
             Catch::Contains("odd number of entries"));
  CHECK_THAT(error_of(R"({"root_index": 0, "nodes": [{"type": "ir.IRModule", "data": {"functions": 1}}, {"type": "ffi.Map", "data": [2, 2]}, {"type": "ffi.String", "data": 5}]})"),
             Catch::Contains("node 2 (ffi.String), field 'data': expected a string"));
  CHECK_THAT(error_of(R"({"root_index": 0, "nodes": [{"type": "ir.IRModule", "data": {"functions": 1}}, {"type": "ffi.Map", "data": [2, 2]}, {"type": "ir.IntImm", "data": {}}]})"),
             Catch::Contains("expected a GlobalVar as a function key"));
}

TEST_CASE("hostile TVM JSON: resource limits instead of crashes", "[ir_json][limits]") {
  SECTION("JSON text nested deeper than the limit") {
    const std::string deep = std::string(300, '[') + std::string(300, ']');
    CHECK_THAT(error_of("{\"root\": 0, \"nodes\": " + deep + "}"), Catch::Contains("nested deeper than 256 levels"));
    // the location points at the first bracket over the limit
    CHECK_THAT(error_of(std::string(5000, '{')), Catch::StartsWith("bad.json:1:257: JSON nested deeper"));
  }
  SECTION("a node chain deeper than the recursion limit") {
    std::string nodes;
    const int n = 2000;
    for (int i = 1; i < n; ++i) nodes += R"({"type_key": "tir.Not", "attrs": {"a": ")" + std::to_string(i + 1) + "\"}},";
    nodes += kInt;
    CHECK_THAT(error_of(legacy_graph(nodes, 1)), Catch::Contains("node graph nested deeper than 400 levels"));
  }
  SECTION("a DAG whose expansion is exponential") {
    std::string nodes;
    const int n = 60;  // Add(x_{i+1}, x_{i+1}): 2^60 nodes once expanded
    for (int i = 1; i < n; ++i) {
      const std::string c = std::to_string(i + 1);
      nodes += R"({"type_key": "tir.Add", "attrs": {"a": ")" + c + R"(", "b": ")" + c + "\"}},";
    }
    nodes += kInt;
    CHECK_THAT(error_of(legacy_graph(nodes, 1)), Catch::Contains("expands to more than 4000000 IR nodes"));
    // 18 levels (2^19 nodes) are fine and share the converted sub-trees
    std::string small;
    for (int i = 1; i < 18; ++i) {
      const std::string c = std::to_string(i + 1);
      small += R"({"type_key": "tir.Add", "attrs": {"a": ")" + c + R"(", "b": ")" + c + "\"}},";
    }
    small += kInt;
    const Module m = read_tvm_json(legacy_graph(small, 1), "ok.json");
    const Expr& top = *m.prim_funcs.at(0).body->value;
    CHECK(top.args[0] == top.args[1]);
  }
  SECTION("nested base64 workload lines are bounded") {
    std::string inner = "[\"0x1\", \"" + base64("[\"0x2\", \"" + base64("[\"0x3\", \"e30=\"]") + "\"]") + "\"]";
    CHECK_THAT(error_of(inner), Catch::Contains("nested too deeply"));
  }
}

TEST_CASE("unknown node types inside a function are kept as kOther", "[ir_json]") {
  const std::string g = legacy_graph(
      R"({"type_key": "tir.SeqStmt", "attrs": {"seq": "2"}},
         {"type_key": "Array", "data": [3, 4]},
         {"type_key": "tir.Evaluate", "attrs": {"value": "5"}},
         {"type_key": "tir.FancyNewStmt", "attrs": {"whatever": "1"}},
         {"type_key": "tir.Shuffle", "attrs": {"dtype": "int32x4"}})",
      1);
  const Module m = read_tvm_json(g, "x.json");
  const Stmt& seq = *m.prim_funcs.at(0).body;
  REQUIRE(seq.kind == StmtKind::kSeq);
  REQUIRE(seq.children.size() == 2);
  CHECK(seq.children[0]->kind == StmtKind::kEvaluate);
  CHECK(seq.children[0]->value->kind == ExprKind::kOther);
  CHECK(seq.children[0]->value->name == "tir.Shuffle");
  CHECK(seq.children[1]->kind == StmtKind::kOther);
  CHECK(seq.children[1]->text == "tir.FancyNewStmt");
}

TEST_CASE("tir.Call ops, Cast, Select, IfThenElse, LetStmt, Allocate+DeclBuffer", "[ir_json]") {
  // ffi dialect, hand-written: let x = cast(int64, 3) in if (x < 4) A[0] = exp(1.0) else Evaluate(select)
  const std::string g = R"({"root_index": 1, "nodes": [
    {"type": "None"},
    {"type": "tirx.LetStmt", "data": {"var": 2, "value": 4, "body": 6}},
    {"type": "tirx.Var", "data": {"name": 3, "dtype": "int64"}},
    {"type": "ffi.String", "data": "x"},
    {"type": "tirx.Cast", "data": {"dtype": "int64", "value": 5}},
    {"type": "ir.IntImm", "data": {"dtype": "int32", "value": 3}},
    {"type": "tirx.Allocate", "data": {"buffer_var": 7, "dtype": "float32", "extents": 10, "condition": 0, "body": 11}},
    {"type": "tirx.Var", "data": {"name": 8, "dtype": "handle", "type_annotation": 9}},
    {"type": "ffi.String", "data": "A_data"},
    {"type": "ir.PointerType", "data": {"element_type": 0, "storage_scope": "shared"}},
    {"type": "ffi.Array", "data": [14]},
    {"type": "tirx.DeclBuffer", "data": {"buffer": 12, "body": 15}},
    {"type": "tirx.Buffer", "data": {"data": 7, "name": 13, "dtype": "float32", "shape": 10}},
    {"type": "ffi.String", "data": "A"},
    {"type": "ir.IntImm", "data": {"dtype": "int64", "value": 16}},
    {"type": "tirx.IfThenElse", "data": {"condition": 16, "then_case": 17, "else_case": 22}},
    {"type": "tirx.LT", "data": {"a": 2, "b": 14}},
    {"type": "tirx.BufferStore", "data": {"buffer": 12, "value": 18, "indices": 21}},
    {"type": "tirx.Call", "data": {"dtype": "float32", "op": 19, "args": 20}},
    {"type": "ir.Op", "data": {"name": "tirx.exp"}},
    {"type": "ffi.Array", "data": [25]},
    {"type": "ffi.Array", "data": [26]},
    {"type": "tirx.Evaluate", "data": {"value": 23}},
    {"type": "tirx.Call", "data": {"dtype": "float32", "op": 24, "args": 27}},
    {"type": "ir.Op", "data": {"name": "tir.if_then_else"}},
    {"type": "ir.FloatImm", "data": {"dtype": "float32", "value": 1.0}},
    {"type": "ir.IntImm", "data": {"dtype": "int32", "value": 0}},
    {"type": "ffi.Array", "data": [28, 25, 25]},
    {"type": "ir.IntImm", "data": {"dtype": "bool", "value": 1}}
  ]})";
  const Module m = read_tvm_json(g, "ops.json");
  const PrimFunc& f = m.prim_funcs.at(0);
  CHECK(f.name == "tir.LetStmt");
  const Stmt& let = *f.body;
  REQUIRE(let.kind == StmtKind::kLet);
  CHECK(let.var == "x");
  CHECK(let.value->kind == ExprKind::kCast);
  CHECK(let.value->dtype == "int64");
  const Stmt& alloc = *let.body;
  REQUIRE(alloc.kind == StmtKind::kAlloc);
  REQUIRE(alloc.alloc);
  CHECK(alloc.alloc->name == "A");  // the DeclBuffer's buffer, not the data var
  CHECK(alloc.alloc->scope == "shared");
  CHECK(alloc.alloc->shape.at(0)->int_value == 16);
  CHECK(f.buffers.count("A") == 1);
  const Stmt& iff = *alloc.body;
  REQUIRE(iff.kind == StmtKind::kIf);
  CHECK(iff.value->kind == ExprKind::kBinary);
  CHECK(iff.value->bin_op == BinOp::kLt);
  REQUIRE(iff.body->kind == StmtKind::kStore);
  CHECK(iff.body->value->kind == ExprKind::kCall);
  CHECK(iff.body->value->name == "exp");
  REQUIRE(iff.else_body);
  CHECK(iff.else_body->value->kind == ExprKind::kSelect);
  CHECK(iff.else_body->value->args.size() == 3);
  CHECK(iff.else_body->value->args[0]->kind == ExprKind::kBool);
}

TEST_CASE("2026 Relax JSON (held back): relax.AnyType, ir.TupleType, ir.Var, ty_args, a GEMM from `ty`", "[ir_json]") {
  const Module m = read_tvm_json(slurp(tc_test::fixture("ir_json/relax_2026.json")), "r.json");
  REQUIRE(m.relax_funcs.size() == 1);
  const RelaxFunc& f = m.relax_funcs[0];
  REQUIRE(f.params.size() == 3);
  REQUIRE(f.params[0].sinfo);
  CHECK(f.params[0].sinfo->kind == SInfoKind::kTensor);
  CHECK(f.params[0].sinfo->dims.size() == 3);
  CHECK(f.params[0].sinfo->dtype == "float16");
  REQUIRE(f.params[2].sinfo);
  CHECK(f.params[2].sinfo->kind == SInfoKind::kObject);  // R.Any
  REQUIRE(f.bindings.size() == 3);
  CHECK(f.bindings[0].value->op == "R.matmul");
  CHECK(f.bindings[1].value->op == "R.call_pure_packed");
  REQUIRE(f.bindings[1].value->sinfo_args.size() == 1);  // ty_args
  CHECK(f.bindings[1].value->sinfo_args[0]->kind == SInfoKind::kObject);
  REQUIRE(f.bindings[2].sinfo);
  CHECK(f.bindings[2].sinfo->kind == SInfoKind::kTuple);  // ir.TupleType
  CHECK(f.bindings[2].sinfo->fields.size() == 2);
  const ExtractResult r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.function == "main/y");
  CHECK(w.m == Dim::constant(32));
  CHECK(w.n == Dim::constant(128));
  CHECK(w.k == Dim::constant(64));
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.calls == std::map<std::string, std::int64_t>{{"main", 1}});
}
