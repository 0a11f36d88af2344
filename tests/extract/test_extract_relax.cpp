// Relax-level extraction on hand-built IR: call counts, R.matmul, packed FT
// GEMMs, attention builtins, dequantize functions across call_tir.
#include <catch2/catch.hpp>

#include "irb.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/report.hpp"

using namespace tenet_cost;
using namespace irb;

namespace {

ir::PrimFunc nt_matmul(const std::string& name, const std::string& m, const std::string& n, const std::string& k) {
  return func(name, {buffer("x", "float16", {"1", m, k}), buffer("W", "float16", {n, k}), buffer("y", "float16", {"1", m, n})},
              {},
              {block("NT_matmul", "SSSR", {"v_i0:1", "v_i1:" + m, "v_i2:" + n, "v_k:" + k},
                     store("y[v_i0, v_i1, v_i2]", "y[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * W[v_i2, v_k]"))});
}

ir::PrimFunc rms(const std::string& name) {
  return func(name, {buffer("x", "float16", {"1", "1", "4096"}), buffer("y", "float16", {"1", "1", "4096"})}, {},
              {block("copy", "SSS", {"a:1", "b:1", "c:4096"}, store("y[a, b, c]", "x[a, b, c]"))});
}

ir::Module llm() {
  ir::Module m;
  m.prim_funcs.push_back(nt_matmul("qkv", "1", "12288", "4096"));
  m.prim_funcs.push_back(nt_matmul("prefill_qkv", "n", "12288", "4096"));
  m.prim_funcs.push_back(rms("rms_norm"));
  RFunc dec("decode");
  dec.param("x", tensor({"1", "1", "4096"}, "float16")).param("w0", tensor({"12288", "4096"}, "float16"));
  dec.let("a", call_tir("rms_norm", {rvar("x")}, tensor({"1", "1", "4096"}, "float16")));
  for (int i = 0; i < 3; ++i)
    dec.let("q" + std::to_string(i), call_tir("qkv", {rvar("a"), rvar("w0")}, tensor({"1", "1", "12288"}, "float16")));
  RFunc pre("prefill");
  pre.param("x", tensor({"1", "n", "4096"}, "float16")).param("w0", tensor({"12288", "4096"}, "float16"));
  pre.let("q", call_tir("prefill_qkv", {rvar("x"), rvar("w0")}, tensor({"1", "n", "12288"}, "float16")));
  m.relax_funcs.push_back(dec.f);
  m.relax_funcs.push_back(pre.f);
  return m;
}

}  // namespace

TEST_CASE("call counts per entry; functions without callers keep empty calls") {
  auto r = extract_workloads(llm());
  CHECK(r.entries == std::vector<std::string>{"decode", "prefill"});
  REQUIRE(r.workloads.size() == 2);
  CHECK(r.workloads[0].function == "prefill_qkv");
  CHECK(r.workloads[0].calls == std::map<std::string, std::int64_t>{{"prefill", 1}});
  CHECK(r.workloads[0].m == Dim::symbolic(sym::sym_var("n")));
  CHECK(r.workloads[1].function == "qkv");
  CHECK(r.workloads[1].calls == std::map<std::string, std::int64_t>{{"decode", 3}});
}

TEST_CASE("--entry filters workloads and calls; unknown entry lists the valid ones") {
  ExtractOptions o;
  o.entry = "decode";
  auto r = extract_workloads(llm(), o);
  REQUIRE(r.workloads.size() == 1);
  CHECK(r.workloads[0].function == "qkv");
  o.entry = "nope";
  try {
    extract_workloads(llm(), o);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("valid entries: decode, prefill") != std::string::npos);
  }
  ir::Module tir_only;
  tir_only.prim_funcs.push_back(nt_matmul("f", "1", "8", "8"));
  CHECK_THROWS_AS(extract_workloads(tir_only, o), InputError);
}

TEST_CASE("R.matmul with a permute_dims weight (NT) and attention matmuls (none)") {
  RFunc f("decoding");
  f.param("x", tensor({"1", "1", "4096"}, "float16"))
      .param("wq", tensor({"4096", "4096"}, "float16"))
      .param("wk", tensor({"4096", "4096"}, "float16"))
      .param("q4", tensor({"1", "32", "1", "128"}, "float16"))
      .param("k4", tensor({"1", "32", "n", "128"}, "float16"));
  f.let("t0", rcall("R.permute_dims", {rvar("wq")}), tensor({"4096", "4096"}, "float16"));
  f.let("m0", rcall("R.matmul", {rvar("x"), rvar("t0")}, {}, {{"out_dtype", rstr("void")}}),
        tensor({"1", "1", "4096"}, "float16"));
  f.let("t1", rcall("R.permute_dims", {rvar("wk")}), tensor({"4096", "4096"}, "float16"));
  f.let("m1", rcall("R.matmul", {rvar("x"), rvar("t1")}, {}, {{"out_dtype", rstr("void")}}),
        tensor({"1", "1", "4096"}, "float16"));
  auto axes = std::make_shared<ir::RExpr>();
  axes->kind = ir::RExprKind::kShape;
  for (auto d : {"0", "1", "3", "2"}) axes->dims.push_back(E(d));
  f.let("kt", rcall("R.permute_dims", {rvar("k4")}, {}, {{"axes", axes}}), tensor({"1", "32", "128", "n"}, "float16"));
  f.let("s", rcall("R.matmul", {rvar("q4"), rvar("kt")}), tensor({"1", "32", "1", "n"}, "float16"));
  ir::Module m;
  m.relax_funcs.push_back(f.f);
  auto r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 2);
  const Workload& w = r.workloads[0];  // "decoding/m0" < "decoding/s"
  CHECK(w.function == "decoding/m0");
  CHECK(w.source == WorkloadSource::kRelax);
  CHECK(w.m == Dim::constant(1));
  CHECK(w.n == Dim::constant(4096));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.layout == "NT");
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.calls == std::map<std::string, std::int64_t>{{"decoding", 2}});
  const Workload& a = r.workloads[1];
  CHECK(a.batch == Dim::constant(32));
  CHECK(a.m == Dim::constant(1));
  CHECK(a.n == Dim::symbolic(sym::sym_var("n")));
  CHECK(a.k == Dim::constant(128));
  CHECK(a.layout == "NT");
  CHECK(a.weight_operand == WeightOperand::kNone);
  CHECK(r.module_quant == "q0f16");
}

TEST_CASE("R.matmul broadcasting batch dims (fixture 20 shape)") {
  RFunc f("main");
  f.param("x", tensor({"b", "1", "m", "k"}, "float32")).param("y", tensor({"a", "1", "c", "k", "n"}, "float32"));
  f.let("gv", rcall("R.matmul", {rvar("x"), rvar("y")}), tensor({"a", "b", "c", "m", "n"}, "float32"));
  ir::Module m;
  m.relax_funcs.push_back(f.f);
  auto r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  // issue 13 item 6: a leading dim only x has (y broadcast over it) joins M, one only y has joins N
  CHECK(w.batch == Dim::constant(1));
  CHECK(w.m.str() == "b * m");
  CHECK(w.n.str() == "a * c * n");
  CHECK(w.k == Dim::symbolic(sym::sym_var("k")));
  CHECK(w.weight_operand == WeightOperand::kNone);
  CHECK(r.symbols == std::vector<std::string>{"a", "b", "c", "k", "m", "n"});
}

TEST_CASE("FasterTransformer packed GEMM (fixture 16)") {
  RFunc f("main");
  f.param("x", tensor({"1", "1", "4096"}, "float16"))
      .param("weight", tensor({"4096", "512"}, "int8"))
      .param("scale", tensor({"1", "1024"}, "float16"));
  f.let("lv1", rcall("R.call_dps_packed",
                     {rstr("fastertransformer.gemm_fp16_int"),
                      rtuple({rvar("x"), rvar("weight"), rvar("scale"), rstr("identity"), rprim("1"), rprim("1024"),
                              rprim("4096"), rprim("4096")})},
                     {tensor({"1", "1", "1024"}, "float16")}));
  ir::Module m;
  m.relax_funcs.push_back(f.f);
  auto r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.source == WorkloadSource::kPacked);
  CHECK(w.m == Dim::constant(1));
  CHECK(w.n == Dim::constant(1024));
  CHECK(w.k == Dim::constant(4096));
  CHECK(w.quant.scheme == "q4f16_ft");
  CHECK(w.quant.weight_bits == 4);
  CHECK(w.quant.storage_dtype == parse_dtype("int8"));
  CHECK(w.quant.granularity == QuantGranularity::kChannel);
  CHECK(w.calls == std::map<std::string, std::int64_t>{{"main", 1}});
}

TEST_CASE("KV-cache attention builtins are reported per entry with heads") {
  RFunc f("decode_with_embed");
  f.param("kv", object()).param("q", tensor({"nseq", "1", "40", "128"}, "float16"));
  f.param("k", tensor({"nseq", "1", "8", "128"}, "float16"));
  for (int i = 0; i < 2; ++i) {
    f.let("c" + std::to_string(i), rcall("R.call_pure_packed",
                                         {rstr("vm.builtin.paged_attention_kv_cache_append"), rvar("kv"), rvar("k"),
                                          rvar("k"), rprim("0")},
                                         {object()}));
    f.let("a" + std::to_string(i),
          rcall("R.call_dps_packed",
                {rstr("vm.builtin.paged_attention_kv_cache_attention"), rtuple({rvar("kv"), rvar("q"), rprim("0")})},
                {tensor({"nseq", "1", "40", "128"}, "float16")}));
  }
  ir::Module m;
  m.relax_funcs.push_back(f.f);
  auto r = extract_workloads(m);
  CHECK(r.workloads.empty());
  REQUIRE(r.attention.size() == 1);
  CHECK(r.attention[0].entry == "decode_with_embed");
  CHECK(r.attention[0].calls == 2);
  CHECK(r.attention[0].num_heads == 40);
  CHECK(r.attention[0].head_dim == 128);
  CHECK(r.attention[0].num_kv_heads == 8);
}

TEST_CASE("fused-QKV attention builtin: kv heads from the qkv width") {
  for (const auto& qkv : {std::vector<std::string>{"1", "n", "1536"}, std::vector<std::string>{"1", "n", "24", "64"}}) {
    RFunc f("prefill");
    f.param("kv", object()).param("qkv", tensor(qkv, "float16"));
    f.let("o", rcall("R.call_pure_packed",
                     {rstr("vm.builtin.attention_kv_cache_attention_with_fused_qkv"), rvar("kv"), rprim("0"),
                      rprim("1"), rvar("qkv")},
                     {tensor({"1", "n", "16", "64"}, "float16")}));
    ir::Module m;
    m.relax_funcs.push_back(f.f);
    auto r = extract_workloads(m);
    REQUIRE(r.attention.size() == 1);
    CHECK(r.attention[0].num_heads == 16);
    CHECK(r.attention[0].head_dim == 64);
    CHECK(r.attention[0].num_kv_heads == 4);  // 24 = 16 + 2 * 4
  }
}

TEST_CASE("a dequantize prim_func feeding the GEMM weight through Relax bindings") {
  ir::Module m;
  // decode: W (K/8, N) u32, S (K/32, N) f16 -> D (K, N), then transposed copy T (N, K).
  m.prim_funcs.push_back(func(
      "decode", {buffer("A", "uint32", {"512", "4096"}), buffer("B", "float16", {"128", "4096"}),
                 buffer("T", "float16", {"4096", "4096"})},
      {buffer("D", "float16", {"4096", "4096"})},
      {block("decode", "SS", {"v_i:4096", "v_j:4096"},
             store("D[v_i, v_j]",
                   "(T.Cast(\"float16\", T.bitwise_and(T.shift_right(A[v_i // 8, v_j], T.Cast(\"uint32\", v_i % 8 * 4)), "
                   "T.uint32(15))) - T.float16(7)) * B[v_i // 32, v_j]")),
       block("T_transpose", "SS", {"a0:4096", "a1:4096"}, store("T[a0, a1]", "D[a1, a0]"))}));
  m.prim_funcs.push_back(nt_matmul("NT_matmul", "1", "4096", "4096"));
  RFunc f("decoding");
  f.param("x", tensor({"1", "1", "4096"}, "float16"))
      .param("qw", tensor({"512", "4096"}, "uint32"))
      .param("qs", tensor({"128", "4096"}, "float16"));
  f.let("wt", call_tir("decode", {rvar("qw"), rvar("qs")}, tensor({"4096", "4096"}, "float16")));
  f.let("y", call_tir("NT_matmul", {rvar("x"), rvar("wt")}, tensor({"1", "1", "4096"}, "float16")));
  // The same weight used by R.matmul with permute_dims of the dequantized (K, N) output of a second call.
  m.relax_funcs.push_back(f.f);
  auto r = extract_workloads(m);
  REQUIRE(r.workloads.size() == 1);
  const Workload& w = r.workloads[0];
  CHECK(w.function == "NT_matmul");
  CHECK(w.weight_operand == WeightOperand::kB);
  CHECK(w.quant.scheme == "q4f16_0");
  CHECK(w.quant.weight_layout == "KN");
  CHECK(w.quant.group_size == 32);
  CHECK(w.note.find("dequantized by decode") != std::string::npos);
  CHECK(w.calls == std::map<std::string, std::int64_t>{{"decoding", 1}});
}

TEST_CASE("JSON contract: integers, symbolic strings, calls object") {
  ExtractOptions o;
  auto r = extract_workloads(llm(), o);
  const std::string j = report::extract_json(r);
  CHECK(j.find("\"m\": \"n\"") != std::string::npos);
  CHECK(j.find("\"n\": 12288") != std::string::npos);
  CHECK(j.find("\"prefill\": 1") != std::string::npos);
  CHECK(j.find("\"macs\": 50331648") != std::string::npos);  // 1 * 12288 * 4096
  o.bindings = {{"n", 7}};
  const std::string jb = report::extract_json(extract_workloads(llm(), o));
  CHECK(jb.find("\"m\": 7") != std::string::npos);
  CHECK(jb.find("\"symbols\": []") != std::string::npos);
}
