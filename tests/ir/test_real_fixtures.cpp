// The real TVMScript dumps in ../shared/fixtures/real (skipped when absent):
// every file parses, with structural checks per fixture.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ir_walk.hpp"
#include "tenet_cost/ir.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace tenet_cost::ir;
using namespace ir_test;

namespace {

std::string real(const std::string& name) { return tc_test::shared_path("fixtures/real/" + name); }

#define LOAD_OR_SKIP(var, file)                          \
  const std::string var##_path = real(file);             \
  if (var##_path.empty()) {                              \
    WARN("../shared absent: skipping " << file);         \
    return;                                              \
  }                                                      \
  const Module var = load_module(var##_path)

}  // namespace

TEST_CASE("every real .py fixture parses") {
  const std::string dir = tc_test::shared_path("fixtures/real");
  if (dir.empty()) {
    WARN("../shared absent: skipping");
    return;
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".py") continue;
    ++files;
    INFO(entry.path().string());
    Module m;
    REQUIRE_NOTHROW(m = load_module(entry.path().string()));
    CHECK(m.format == "tvmscript");
    CHECK(m.source == entry.path().string());
    CHECK(m.prim_funcs.size() + m.relax_funcs.size() > 0);
    // no function body is left empty, every block has a name
    for (const auto& f : m.prim_funcs) {
      CHECK(f.body != nullptr);
      for (const Block* b : blocks(f)) CHECK_FALSE(b->name.empty());
    }
  }
  CHECK(files == 25);
}

TEST_CASE("01: Llama-2-13B q4f16_1 batched whole module") {
  LOAD_OR_SKIP(m, "01_mlc_llama2_13b_q4f16_1_batched_whole_module.py");
  CHECK(m.prim_funcs.size() == 29);
  CHECK(m.relax_funcs.size() == 6);
  std::vector<std::string> rnames;
  for (const auto& f : m.relax_funcs) rnames.push_back(f.name);
  CHECK(rnames == std::vector<std::string>{"create_kv_cache", "decode_with_embed", "embed", "get_metadata",
                                           "prefill_with_embed", "softmax_with_temperature"});

  const PrimFunc* qkv = find_prim(m, "fused_fused_decode_NT_matmul");
  REQUIRE(qkv != nullptr);
  CHECK(qkv->is_private);
  REQUIRE(qkv->params.size() == 4);
  CHECK(qkv->params[0].kind == ParamKind::kBuffer);
  CHECK(qkv->params[2].kind == ParamKind::kHandle);
  CHECK(qkv->params[2].buffer == "lv1088");
  CHECK(qkv->params[3].buffer == "var_NT_matmul_intermediate");
  CHECK(shape(qkv->buffers.at("lv")) == "(T.int64(15360), T.int64(640))");
  CHECK(qkv->buffers.at("lv").dtype == "uint32");
  CHECK(shape(qkv->buffers.at("lv1088")) == "(nseq, T.int64(1), T.int64(5120))");
  CHECK(qkv->buffers.at("lv1088").dtype == "float16");
  CHECK(qkv->sym_vars == std::vector<std::string>{"nseq"});
  CHECK(qkv->attrs.at("tir.noalias") == "T.bool(True)");
  const Block* dec = find_block(*qkv, "decode");
  REQUIRE(dec != nullptr);
  CHECK(kinds(*dec) == "SS");
  CHECK(extents(*dec) == "T.int64(15360), T.int64(5120)");
  REQUIRE(dec->reads.size() == 2);
  CHECK(dec->reads[0].buffer == "lv");
  CHECK(to_string(*dec->reads[0].region[1].min) == "v_j // T.int64(8)");
  const auto st = stores(dec->body);
  REQUIRE(st.size() == 1);
  CHECK(to_string(*st[0]->value) ==
        "(T.Cast(\"float16\", T.bitwise_and(T.shift_right(lv[v_i, v_j // T.int64(8)], T.Cast(\"uint32\", v_j % "
        "T.int64(8)) * T.uint32(4)), T.uint32(15))) - T.float16(7)) * lv1[v_i, v_j // T.int64(32)]");
  CHECK(st[0]->value->dtype == "float16");
  const Block* mm = find_block(*qkv, "NT_matmul");
  REQUIRE(mm != nullptr);
  CHECK(kinds(*mm) == "SSSR");
  CHECK(extents(*mm) == "nseq, T.int64(1), T.int64(15360), T.int64(5120)");
  CHECK(mm->init != nullptr);

  // T.LetStmt and symbolic vars declared inside a block
  const PrimFunc* kv = find_prim(m, "kv_cache_transpose_append");
  REQUIRE(kv != nullptr);
  CHECK(kv->params.back().kind == ParamKind::kScalar);
  CHECK(kv->params.back().dtype == "int32");
  int lets = 0;
  walk(kv->body, [&](const Stmt& s) { lets += s.kind == StmtKind::kLet; });
  CHECK(lets == 4);
  const Block* kt = find_block(*kv, "k_transpose_append");
  REQUIRE(kt != nullptr);
  REQUIRE(kt->reads.size() == 6);
  CHECK(kt->reads[1].buffer == "page_table_indptr");
  CHECK(to_string(*kt->reads[1].region[0].extent) == "seq_idx + 2 - seq_idx");

  const RelaxFunc* embed = find_relax(m, "embed");
  REQUIRE(embed != nullptr);
  const auto ct = calls(*embed, "R.call_tir");
  REQUIRE(ct.size() == 3);
  const RExpr& take = *ct[1]->value;
  REQUIRE(take.args.size() == 2);
  CHECK(take.args[0]->kind == RExprKind::kGlobalFunc);
  CHECK(take.args[0]->name == "fused_fused_decode4_take");
  CHECK(take.args[1]->kind == RExprKind::kTuple);
  CHECK(take.args[1]->args.size() == 3);
  REQUIRE(take.sinfo_args.size() == 1);
  CHECK(dims(*take.sinfo_args[0]) == "(nseq * n, T.int64(5120))");  // Relax shape literals are int64
  REQUIRE(take.kwargs.size() == 1);
  CHECK(take.kwargs[0].first == "tir_vars");
  CHECK(take.kwargs[0].second->kind == RExprKind::kShape);
  REQUIRE(take.kwargs[0].second->dims.size() == 2);
  CHECK(to_string(*take.kwargs[0].second->dims[0]) == "n");

  // the ~100 KB single-line R.Tuple parameter
  const RelaxFunc* dec_embed = find_relax(m, "decode_with_embed");
  REQUIRE(dec_embed != nullptr);
  REQUIRE(dec_embed->params.size() == 3);
  const StructInfo& tup = *dec_embed->params[2].sinfo;
  CHECK(tup.kind == SInfoKind::kTuple);
  CHECK(tup.fields.size() > 300);
  CHECK(tup.fields[0]->kind == SInfoKind::kTensor);
  CHECK(dims(*tup.fields[0]) == "(vocab_size_1, T.int64(640))");
  CHECK(tup.fields[0]->dtype == "uint32");
  CHECK(dec_embed->attrs.at("num_input") == "2");
  CHECK(std::find(dec_embed->sym_vars.begin(), dec_embed->sym_vars.end(), "nseq") != dec_embed->sym_vars.end());
  const auto pure = calls(*dec_embed, "R.call_pure_packed");
  REQUIRE_FALSE(pure.empty());
  CHECK(pure[0]->value->args[0]->kind == RExprKind::kString);
  CHECK(pure[0]->value->args[0]->name == "vm.builtin.paged_attention_kv_cache_append");
  REQUIRE(pure[0]->value->sinfo_args.size() == 1);
  CHECK(pure[0]->value->sinfo_args[0]->kind == SInfoKind::kObject);
  const auto dps = calls(*dec_embed, "R.call_dps_packed");
  REQUIRE_FALSE(dps.empty());
  CHECK(dps[0]->value->args[0]->name == "vm.builtin.paged_attention_kv_cache_attention");
  // tuple indexing
  bool saw_getitem = false;
  for (const auto& b : dec_embed->bindings)
    if (b.var == "lv_1" && b.value->kind == RExprKind::kTupleGetItem) {
      saw_getitem = true;
      CHECK(b.value->index == 2);
      CHECK(b.value->args[0]->name == "model_params");
      REQUIRE(b.sinfo != nullptr);
      CHECK(dims(*b.sinfo) == "(T.int64(15360), T.int64(640))");
    }
  CHECK(saw_getitem);

  const RelaxFunc* meta = find_relax(m, "get_metadata");
  REQUIRE(meta != nullptr);
  REQUIRE(meta->ret != nullptr);
  CHECK(meta->ret->kind == RExprKind::kString);
  CHECK(meta->ret->name.find("\"model_name\": \"Llama-2-13b-chat-hf\"") != std::string::npos);
}

TEST_CASE("02: Relax-level matmul + permute_dims, metadata constants") {
  LOAD_OR_SKIP(m, "02_mlc_llama7b_fp16_relax_before_quantize.py");
  CHECK(m.prim_funcs.size() == 8);
  CHECK(m.relax_funcs.size() == 4);
  std::size_t matmuls = 0, permutes = 0, constants = 0;
  for (const auto& f : m.relax_funcs) {
    matmuls += calls(f, "R.matmul").size();
    permutes += calls(f, "R.permute_dims").size();
    for (const auto& b : f.bindings)
      if (b.value->kind == RExprKind::kCall)
        for (const auto& a : b.value->args)
          if (a->kind == RExprKind::kConstant && a->name == "relax.expr.Constant") ++constants;
  }
  CHECK(matmuls == 20);
  CHECK(permutes == 26);
  CHECK(constants >= 1);
  const RelaxFunc* dec = find_relax(m, "decoding");
  REQUIRE(dec != nullptr);
  const auto mm = calls(*dec, "R.matmul");
  REQUIRE_FALSE(mm.empty());
  REQUIRE(mm[0]->value->kwargs.size() == 1);
  CHECK(mm[0]->value->kwargs[0].first == "out_dtype");
  CHECK(mm[0]->value->kwargs[0].second->name == "void");
  const auto pd = calls(*dec, "R.permute_dims");
  REQUIRE_FALSE(pd.empty());
  CHECK(pd[0]->value->kwargs[0].first == "axes");
  CHECK(pd[0]->value->kwargs[0].second->kind == RExprKind::kOther);
  CHECK(dec->params[1].sinfo->kind == SInfoKind::kShape);
}

TEST_CASE("04: T.meta_var constants are substituted") {
  LOAD_OR_SKIP(m, "04_mlc_redpajama3b_q4f32_0_dispatch_module.py");
  CHECK(m.prim_funcs.size() == 30);
  const PrimFunc* f = find_prim(m, "fused_NT_matmul1_divide_maximum_minimum");
  REQUIRE(f != nullptr);
  CHECK(f->sym_vars.empty());
  CHECK(shape(f->buffers.at("lv34")) == "(T.int64(1), T.int64(32), T.int64(128), T.int64(80))");
  const PrimFunc* d = find_prim(m, "decode");
  REQUIRE(d != nullptr);
  const auto st = stores(d->body);
  REQUIRE_FALSE(st.empty());
  CHECK(to_string(*st[0]->value).find("T.reinterpret(\"float32\", T.shift_left(") != std::string::npos);
  CHECK(shape(d->buffers.at("B")) == "(T.int64(80), T.int64(2560))");
}

TEST_CASE("06: int32 symbolic var, attention QK GEMV") {
  LOAD_OR_SKIP(m, "06_tvm_dlight_attention_qk_gemv_symbolic_n.py");
  REQUIRE(m.prim_funcs.size() == 1);
  const PrimFunc& f = m.prim_funcs[0];
  CHECK(f.name == "before");
  CHECK_FALSE(f.is_private);
  CHECK(f.sym_vars == std::vector<std::string>{"n"});
  const Block* b = find_block(f, "NT_matmul");
  REQUIRE(b != nullptr);
  CHECK(kinds(*b) == "SSSSR");
  CHECK(extents(*b) == "1, 32, 1, n, 128");
  CHECK(b->iter_vars[3].extent->dtype == "int32");
  CHECK(f.buffers.at("var_compute_intermediate").dtype == "float32");  // match_buffer default
  const Block* mx = find_block(f, "T_maximum");
  REQUIRE(mx != nullptr);
  CHECK(to_string(*stores(mx->body)[0]->value) ==
        "T.max(var_T_divide_intermediate[v_ax0, v_ax1, v_ax2, v_ax3], T.float16(-65504))");
}

TEST_CASE("09: nested loads (g_idx indirection)") {
  LOAD_OR_SKIP(m, "09_tvm_dlight_autogptq_decode_gemv.py");
  REQUIRE(m.prim_funcs.size() == 1);
  bool nested = false;
  for (const Stmt* s : stores(m.prim_funcs[0].body)) {
    std::function<void(const Expr&, int)> visit = [&](const Expr& e, int depth) {
      if (e.kind == ExprKind::kLoad && depth > 0) nested = true;
      for (const auto& a : e.args) visit(*a, depth + (e.kind == ExprKind::kLoad));
    };
    visit(*s->value, 0);
  }
  CHECK(nested);
}

TEST_CASE("15: conv3d with += desugared") {
  LOAD_OR_SKIP(m, "15_tvm_dlight_conv3d.py");
  const PrimFunc& f = m.prim_funcs.at(0);
  const Block* c = find_block(f, "C");
  REQUIRE(c != nullptr);
  CHECK(kinds(*c) == "SSSSSRRRR");
  const auto st = stores(c->body);
  REQUIRE(st.size() == 1);
  CHECK(st[0]->buffer == "C");
  CHECK(to_string(*st[0]->value) ==
        "C[v_nn, v_ff, v_yy, v_xx, v_zz] + pad_A[v_nn, v_rc, v_yy * 2 + v_ry, v_xx * 14 + v_rx, v_zz * 14 + v_rz] * "
        "W[v_ff, v_rc, v_ry, v_rx, v_rz]");
  CHECK(f.params.size() == 3);
}

TEST_CASE("16: FasterTransformer call_dps_packed with prim values") {
  LOAD_OR_SKIP(m, "16_mlc_ft_quant_fastertransformer_gemm_relax.py");
  REQUIRE(m.relax_funcs.size() == 1);
  const RelaxFunc& f = m.relax_funcs[0];
  CHECK(f.params[0].sinfo->dtype == "float16");  // positional dtype
  CHECK(dims(*f.params[1].sinfo) == "(T.int64(4096), T.int64(512))");
  const auto d = calls(f, "R.call_dps_packed");
  REQUIRE(d.size() == 1);
  const RExpr& c = *d[0]->value;
  CHECK(c.args[0]->name == "fastertransformer.gemm_fp16_int");
  REQUIRE(c.args[1]->args.size() == 8);
  CHECK(c.args[1]->args[3]->kind == RExprKind::kString);
  CHECK(c.args[1]->args[5]->kind == RExprKind::kPrimValue);
  CHECK(c.args[1]->args[5]->prim->int_value == 1024);
  REQUIRE(c.sinfo_args.size() == 1);
  CHECK(dims(*c.sinfo_args[0]) == "(T.int64(1), T.int64(1), T.int64(1024))");
  REQUIRE(f.ret != nullptr);
  CHECK(f.ret->name == "lv2");
}

TEST_CASE("17: black-formatted dump with duplicate function names") {
  LOAD_OR_SKIP(m, "17_mlc_llama2_7b_q4f16_1_primfuncs.py");
  CHECK(m.prim_funcs.size() == 33);
  int reshape3 = 0;
  for (const auto& f : m.prim_funcs) reshape3 += f.name == "reshape3";
  CHECK(reshape3 == 2);
  const PrimFunc* take = find_prim(m, "fused_fused_decode1_take");
  REQUIRE(take != nullptr);
  CHECK(take->attrs.at("global_symbol") == "fused_fused_decode1_take");
  CHECK(shape(take->buffers.at("lv")) == "(32000, 512)");
}

TEST_CASE("20/21: 2023-early Relax with T.var and positional call_tir sinfo") {
  LOAD_OR_SKIP(before, "20_tvm2023_old_relax_matmul_symbolic_before.py");
  REQUIRE(before.relax_funcs.size() == 1);
  const RelaxFunc& f = before.relax_funcs[0];
  CHECK(f.params[0].sinfo->dtype == "float32");
  CHECK(dims(*f.params[0].sinfo) == "(b, T.int64(1), m, k)");
  for (const char* v : {"a", "b", "c", "m", "n", "k"})
    CHECK(std::find(f.sym_vars.begin(), f.sym_vars.end(), v) != f.sym_vars.end());
  REQUIRE(calls(f, "R.matmul").size() == 1);

  LOAD_OR_SKIP(after, "21_tvm2023_old_relax_matmul_symbolic_legalized.py");
  REQUIRE(after.relax_funcs.size() == 1);
  REQUIRE(after.prim_funcs.size() == 1);
  const auto ct = calls(after.relax_funcs[0], "R.call_tir");
  REQUIRE(ct.size() == 1);
  CHECK(ct[0]->value->args[0]->kind == RExprKind::kGlobalFunc);
  CHECK(ct[0]->value->args[0]->name == "matmul");
  REQUIRE(ct[0]->value->sinfo_args.size() == 1);
  CHECK(dims(*ct[0]->value->sinfo_args[0]) == "(a, b, c, m, n)");
  const PrimFunc& mm = after.prim_funcs[0];
  CHECK(mm.sym_vars == std::vector<std::string>{"a", "b", "c", "k", "m", "n"});
  CHECK(shape(mm.buffers.at("rxplaceholder")) == "(b, T.int64(1), m, k)");
  CHECK(mm.buffers.at("rxplaceholder").dtype == "float32");
  const Block* b = find_block(mm, "matmul");
  REQUIRE(b != nullptr);
  CHECK(kinds(*b) == "SSSSSR");
  CHECK(extents(*b) == "a, b, c, m, n, k");
  CHECK(b->iter_vars[0].extent->dtype == "int64");
}

TEST_CASE("22: 2022 syntax: T.Buffer[...], scopes, thread bindings, slices, T.where") {
  LOAD_OR_SKIP(m, "22_tvm2022_old_tbuffer_brackets_matmul_relu_tensorcore.py");
  REQUIRE(m.prim_funcs.size() == 1);
  const PrimFunc& f = m.prim_funcs[0];
  CHECK(shape(f.buffers.at("A")) == "(127, 127)");
  CHECK(f.buffers.at("A").dtype == "float16");
  CHECK(f.buffers.at("compute").dtype == "float32");
  CHECK(f.buffers.at("C_reindex_shared_wmma_accumulator").scope == "wmma.accumulator");
  CHECK(f.buffers.at("C_reindex_shared").scope == "shared");
  CHECK(f.attrs.at("global_symbol") == "main");
  int threads = 0;
  walk(f.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kFor && s.for_kind == ForKind::kThreadBinding) {
      ++threads;
      CHECK_FALSE(s.thread_tag.empty());
    }
  });
  CHECK(threads == 3);
  const Block* co = find_block(f, "C_o");
  REQUIRE(co != nullptr);
  CHECK(kinds(*co) == "SSR");
  CHECK(extents(*co) == "8, 8, 8");
  REQUIRE(co->reads.size() == 2);
  CHECK(to_string(*co->reads[0].region[0].min) == "v0_o * 16");
  CHECK(to_string(*co->reads[0].region[0].extent) == "v0_o * 16 + 16 - v0_o * 16");
  CHECK(co->annotations.at("warp_execution") == "1");
  REQUIRE(co->init != nullptr);
  const Block* c = find_block(f, "C");
  REQUIRE(c != nullptr);
  CHECK(to_string(*stores(c->body)[0]->value).find("T.Cast(\"float32\", A_reindex[") != std::string::npos);
  const Block* sh = find_block(f, "C_reindex_shared");
  REQUIRE(sh != nullptr);
  REQUIRE(sh->predicate != nullptr);
  CHECK(to_string(*sh->predicate) == "ax0 < 127 and ax0_0_0_ax1_0_0_fused * 64 + ax1 < 127");
  const Block* ar = find_block(f, "A_reindex");
  REQUIRE(ar != nullptr);
  const auto& sel = stores(ar->body)[0]->value;
  CHECK(sel->kind == ExprKind::kSelect);
  CHECK(sel->dtype == "float16");
  const Block* ci = find_block(f, "C_init");
  REQUIRE(ci != nullptr);
  CHECK(ci->reads.empty());
}

TEST_CASE("23/24/25: 2026 tirx sblock syntax matches the 2024 block syntax") {
  LOAD_OR_SKIP(a, "23_tvm2026_tirx_sblock_q4f16_1_lm_head_gemv_before.py");
  const PrimFunc& f = a.prim_funcs.at(0);
  CHECK(f.is_private);
  CHECK(f.attrs.at("tirx.noalias") == "True");
  CHECK(f.buffers.at("p_output0_intermediate_1").dtype == "float16");
  const Block* b = find_block(f, "NT_matmul");
  REQUIRE(b != nullptr);
  CHECK(kinds(*b) == "SSSR");
  CHECK(extents(*b) == "1, 1, 32000, 4096");

  LOAD_OR_SKIP(s26, "24_tvm2026_tirx_sblock_q4f16_1_lm_head_gemv_scheduled.py");
  LOAD_OR_SKIP(s25, "25_tvm_dlight_q4f16_1_lm_head_gemv_scheduled.py");
  const auto b26 = blocks(s26.prim_funcs.at(0));
  const auto b25 = blocks(s25.prim_funcs.at(0));
  REQUIRE(b26.size() == b25.size());
  for (std::size_t i = 0; i < b26.size(); ++i) {
    CHECK(b26[i]->name == b25[i]->name);
    CHECK(kinds(*b26[i]) == kinds(*b25[i]));
    CHECK(extents(*b26[i]) == extents(*b25[i]));
  }
  CHECK(s26.prim_funcs[0].buffers.at("lv3216_shared").scope == "shared");
  int vec = 0, ann_serial = 0;
  walk(s26.prim_funcs[0].body, [&](const Stmt& st) {
    if (st.kind != StmtKind::kFor) return;
    vec += st.for_kind == ForKind::kVectorized;
    ann_serial += st.for_kind == ForKind::kSerial;
  });
  CHECK(vec == 5);
  CHECK(ann_serial >= 3);
}
