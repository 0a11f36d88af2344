// The project's own TVMScript fixtures (tests/fixtures/ir), one per syntax era.
#include <catch2/catch.hpp>

#include "ir_walk.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;
using namespace ir_test;

namespace {
Module load(const std::string& name) { return load_module(tc_test::fixture("ir/" + name)); }

const Stmt* first_for(const StmtPtr& body, const std::string& var) {
  const Stmt* found = nullptr;
  walk(body, [&](const Stmt& s) {
    if (found == nullptr && s.kind == StmtKind::kFor && s.var == var) found = &s;
  });
  return found;
}
}  // namespace

TEST_CASE("2022 era: @tvm.script.ir_module, T.Buffer[...], T.var, axis range form, T.cast(e, dtype)") {
  const Module m = load("era2022_relax_legalized.py");
  REQUIRE(m.relax_funcs.size() == 1);
  REQUIRE(m.prim_funcs.size() == 1);
  const RelaxFunc& main = m.relax_funcs[0];
  CHECK(main.sym_vars == std::vector<std::string>{"m"});
  const auto ct = calls(main, "R.call_tir");
  REQUIRE(ct.size() == 1);
  CHECK(ct[0]->value->args[0]->kind == RExprKind::kGlobalFunc);
  CHECK(ct[0]->value->args[0]->name == "mm");
  REQUIRE(ct[0]->value->sinfo_args.size() == 1);
  CHECK(ct[0]->value->sinfo_args[0]->dtype == "float32");
  CHECK(dims(*ct[0]->value->sinfo_args[0]) == "(m, T.int64(32))");

  const PrimFunc& f = m.prim_funcs[0];
  CHECK(f.name == "mm");
  CHECK(shape(f.buffers.at("A")) == "(128, 64)");
  CHECK(f.buffers.at("C").dtype == "float32");
  CHECK(f.buffers.at("C_local").scope == "local");
  CHECK(f.attrs.at("global_symbol") == "mm");
  CHECK(f.attrs.at("tir.noalias") == "True");
  const Block* b = find_block(f, "C_local");
  REQUIRE(b != nullptr);
  CHECK(kinds(*b) == "SSR");
  CHECK(extents(*b) == "128, 32, 64");
  CHECK(to_string(*b->iter_vars[0].min) == "0");
  CHECK(to_string(*b->iter_vars[0].binding) == "i0 * 8 + i1");
  REQUIRE(b->reads.size() == 3);
  CHECK(to_string(*b->reads[2].region[0].extent) == "vi + 1 - vi");
  CHECK(to_string(*b->reads[2].region[1].extent) == "32");
  CHECK(to_string(*stores(b->body)[0]->value) ==
        "C_local[vi, vj] + T.Cast(\"float32\", A[vi, vk]) * T.Cast(\"float32\", B[vk, vj])");
  const Block* c = find_block(f, "C");
  REQUIRE(c != nullptr);
  REQUIRE(c->predicate != nullptr);
  CHECK(to_string(*c->predicate) == "i < 127");
  const auto sel = stores(c->body)[0]->value;
  CHECK(sel->kind == ExprKind::kSelect);
  CHECK(sel->name == "if_then_else");
  CHECK(sel->dtype == "float32");
  const Stmt* bx = first_for(f.body, "i0");
  REQUIRE(bx != nullptr);
  CHECK(bx->for_kind == ForKind::kThreadBinding);
  CHECK(bx->thread_tag == "blockIdx.x");
}

TEST_CASE("2023 era: @I.ir_module, T.int64() tuple decls, match_buffer forms, Relax dataflow") {
  const Module m = load("era2023_module.py");
  REQUIRE(m.prim_funcs.size() == 2);
  REQUIRE(m.relax_funcs.size() == 1);
  const PrimFunc& f = m.prim_funcs[0];
  CHECK_FALSE(f.is_private);
  CHECK(f.sym_vars == std::vector<std::string>{"n", "b"});
  CHECK(f.attrs.at("op_pattern") == "4");
  CHECK(f.attrs.at("tir.noalias") == "T.bool(True)");
  REQUIRE(f.params.size() == 4);
  CHECK(f.params[2].kind == ParamKind::kHandle);
  CHECK(f.params[2].buffer == "x");
  CHECK(f.params[2].dtype == "float16");
  CHECK(f.params[3].buffer == "out");
  CHECK(shape(f.buffers.at("out")) == "(b, n, T.int64(256))");
  CHECK(f.buffers.at("out").dtype == "float16");
  const Block* mm = find_block(f, "NT_matmul");
  REQUIRE(mm != nullptr);
  CHECK(kinds(*mm) == "SSSR");
  CHECK(extents(*mm) == "b, n, T.int64(256), T.int64(128)");
  CHECK(mm->iter_vars[0].binding->dtype == "int64");
  // loads carry their buffer's dtype, vars their declared dtype
  const auto upd = stores(mm->body);
  REQUIRE(upd.size() == 1);
  CHECK(upd[0]->value->dtype == "float16");

  const PrimFunc& sc = m.prim_funcs[1];
  REQUIRE(sc.params.size() == 3);
  CHECK(sc.params[2].kind == ParamKind::kScalar);
  CHECK(sc.params[2].dtype == "int64");
  CHECK(sc.sym_vars == std::vector<std::string>{"n"});
  CHECK(sc.buffers.at("A").dtype == "float32");  // match_buffer without dtype
  const auto st = stores(sc.body);
  REQUIRE(st.size() == 1);
  const auto& sum = st[0]->value;
  REQUIRE(sum->kind == ExprKind::kBinary);
  CHECK(sum->args[1]->kind == ExprKind::kFloat);
  CHECK(sum->args[1]->float_value == -1.5e-3);
  CHECK(sum->args[0]->args[1]->float_value == 3.4028234663852886e+38);

  const RelaxFunc& r = m.relax_funcs[0];
  CHECK(r.name == "decode");
  CHECK(r.sym_vars == std::vector<std::string>{"b", "n"});
  CHECK(r.attrs.at("num_input") == "2");
  CHECK(r.attrs.at("tir_var_upper_bound") == "{\"n\": 2048}");
  REQUIRE(r.params.size() == 4);
  CHECK(r.params[1].sinfo->kind == SInfoKind::kObject);
  const StructInfo& p = *r.params[2].sinfo;
  REQUIRE(p.kind == SInfoKind::kTuple);
  REQUIRE(p.fields.size() == 3);
  CHECK(p.fields[1]->kind == SInfoKind::kTuple);
  CHECK(p.fields[1]->fields[1]->kind == SInfoKind::kPrim);
  CHECK(p.fields[1]->fields[1]->dtype == "int64");
  CHECK(p.fields[2]->kind == SInfoKind::kShape);
  CHECK(dims(*r.params[3].sinfo) == "(b, n)");
  CHECK(r.params[0].sinfo->ndim == 3);

  std::vector<std::string> vars;
  for (const auto& b : r.bindings) vars.push_back(b.var);
  CHECK(vars == std::vector<std::string>{"w", "s_pair", "s", "lv", "lv2", "c", "k", "fill", "gv"});
  const auto ct = calls(r, "R.call_tir");
  REQUIRE(ct.size() == 2);
  CHECK(ct[0]->value->args[0]->name == "fused_decode_NT_matmul");
  CHECK(ct[1]->value->sinfo_args.size() == 1);  // out_sinfo given as a list
  REQUIRE(ct[1]->value->kwargs.size() == 1);
  CHECK(to_string(*ct[1]->value->kwargs[0].second->dims[0]) == "b * n * T.int64(256)");
  const auto pp = calls(r, "R.call_pure_packed");
  REQUIRE(pp.size() == 1);
  REQUIRE(pp[0]->value->args.size() == 5);
  CHECK(pp[0]->value->args[4]->kind == RExprKind::kPrimValue);
  CHECK(pp[0]->value->args[4]->prim->kind == ExprKind::kFloat);
  CHECK(pp[0]->value->args[4]->prim->dtype == "float32");
  const Binding& k = r.bindings[6];
  CHECK(k.value->kind == RExprKind::kConstant);
  CHECK(k.value->prim->int_value == 0);
  CHECK(k.value->prim->dtype == "float16");
  const Binding& fill = r.bindings[7];
  REQUIRE(fill.value->args.size() == 2);
  CHECK(fill.value->args[1]->kind == RExprKind::kConstant);
  CHECK(fill.value->args[1]->name == "relax.expr.Constant");
  CHECK(fill.value->args[1]->index == 1);
  CHECK(r.bindings[2].value->kind == RExprKind::kTupleGetItem);
  REQUIRE(r.ret != nullptr);
  CHECK(r.ret->name == "gv");
}

TEST_CASE("2024 era: private bare prim_funcs, loop kinds, if/else, lets, asserts, duplicates") {
  const Module m = load("era2024_primfuncs.py");
  REQUIRE(m.prim_funcs.size() == 3);
  CHECK(m.prim_funcs[1].name == "scheduled");
  CHECK(m.prim_funcs[2].name == "scheduled");  // duplicate names are kept
  const PrimFunc& dq = m.prim_funcs[0];
  CHECK(dq.is_private);
  CHECK(dq.attrs.at("tir.HoistIfThenElseExprWithBlock") == "1");
  CHECK(dq.sym_vars == std::vector<std::string>{"batch_size"});
  const Block* mm = find_block(dq, "NT_matmul");
  REQUIRE(mm != nullptr);
  const auto st = stores(mm->body);
  REQUIRE(st.size() == 1);
  CHECK(to_string(*st[0]->value) == "out[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * dequantize[v_i2, v_k]");
  CHECK(to_string(*stores(find_block(dq, "dequantize")->body)[0]->value) ==
        "(compute[v0, v1] - T.float16(7)) * lv1[v0, v1 // T.int64(32)]");

  const PrimFunc& s = m.prim_funcs[1];
  CHECK(s.params[3].kind == ParamKind::kScalar);
  CHECK(s.params[3].dtype == "int32");
  const Stmt* tx = first_for(s.body, "tx");
  REQUIRE(tx != nullptr);
  CHECK(tx->thread_tag == "threadIdx.x");
  CHECK(to_string(*tx->min) == "0");
  CHECK(to_string(*tx->extent) == "8");
  const Stmt* j1 = first_for(s.body, "j_1");
  REQUIRE(j1 != nullptr);
  CHECK(j1->for_kind == ForKind::kUnrolled);
  CHECK(to_string(*j1->min) == "2");
  CHECK(to_string(*j1->extent) == "16");
  CHECK(first_for(s.body, "p")->for_kind == ForKind::kParallel);
  CHECK(first_for(s.body, "v")->for_kind == ForKind::kVectorized);
  CHECK(first_for(s.body, "j_0")->for_kind == ForKind::kSerial);
  const Stmt* i = first_for(s.body, "i");
  REQUIRE(i != nullptr);
  CHECK(to_string(*i->min) == "4");
  CHECK(to_string(*i->extent) == "4");
  const Block* b = find_block(s, "B");
  REQUIRE(b != nullptr);
  CHECK(b->annotations.at("meta_schedule.cooperative_fetch") == "3");
  CHECK(to_string(*b->reads[0].region[0].min) == "idx[vi]");
  REQUIRE(b->body->kind == StmtKind::kIf);
  CHECK(to_string(*b->body->value) == "vi < n");
  REQUIRE(b->body->else_body != nullptr);
  CHECK(to_string(*b->body->body->value) == "T.max(A[idx[vi], vj], T.float32(0)) + T.min(T.exp(A[vi, vj]), T.sqrt(T.float32(2)))");
  const auto& sel = b->body->else_body->value;
  CHECK(sel->kind == ExprKind::kSelect);
  CHECK(std::isinf(sel->args[2]->float_value));
  CHECK(sel->args[1]->float_value == -65504.0);
  int lets = 0, evals = 0, others = 0;
  walk(s.body, [&](const Stmt& st2) {
    lets += st2.kind == StmtKind::kLet;
    evals += st2.kind == StmtKind::kEvaluate;
    if (st2.kind == StmtKind::kOther) {
      ++others;
      CHECK(st2.text.rfind("assert tmp >= 0", 0) == 0);
    }
  });
  CHECK(lets == 2);   // T.LetStmt and `tmp: T.int32 = ...`
  CHECK(evals == 1);
  CHECK(others == 1);

  const Block* set = find_block(m.prim_funcs[2], "set");
  REQUIRE(set != nullptr);
  CHECK(to_string(*stores(set->body)[0]->value) == "True and not vi == 3 or False");
  CHECK(stores(set->body)[0]->value->dtype == "bool");
}

TEST_CASE("2026 era: tirx import, s_tir prim_func, sblock, sblock_alloc_buffer") {
  const Module m = load("era2026_tirx.py");
  REQUIRE(m.prim_funcs.size() == 1);
  const PrimFunc& f = m.prim_funcs[0];
  CHECK(f.is_private);
  CHECK(f.attrs.at("tirx.noalias") == "True");
  CHECK(f.buffers.at("acc").scope == "local");
  CHECK(f.buffers.at("deq").dtype == "float16");
  const auto bs = blocks(f);
  REQUIRE(bs.size() == 3);
  CHECK(bs[1]->name == "NT_matmul");
  CHECK(kinds(*bs[1]) == "SSSR");
  CHECK(extents(*bs[1]) == "1, 1, 1024, 1024");
  // the function-level alloc_buffers wrap the rest of the body
  REQUIRE(f.body->kind == StmtKind::kAlloc);
  CHECK(f.body->alloc->name == "deq");
  REQUIRE(f.body->body->kind == StmtKind::kAlloc);
  CHECK(f.body->body->alloc->name == "acc");
}

TEST_CASE("ordinary Python around the functions is skipped, unknown TIR is kept opaque") {
  const Module m = load("python_noise.py");
  REQUIRE(m.prim_funcs.size() == 1);
  CHECK(m.relax_funcs.empty());
  const PrimFunc& f = m.prim_funcs[0];
  CHECK(f.name == "add_one");
  REQUIRE(find_block(f, "B") != nullptr);
  int others = 0, lets = 0;
  walk(f.body, [&](const Stmt& s) {
    others += s.kind == StmtKind::kOther;
    if (s.kind == StmtKind::kLet) {
      ++lets;
      CHECK(s.var == "y");
      CHECK(s.value->args[1]->kind == ExprKind::kOther);  // [1, 2][0]
      CHECK(s.value->args[0]->name == "unknown_intrinsic");
    }
  });
  CHECK(others == 2);  // with T.attr(...) and while
  CHECK(lets == 1);
}
