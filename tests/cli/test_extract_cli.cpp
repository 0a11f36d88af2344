// The project's own extract fixtures (tests/fixtures/extract) and the
// `tenet-cost extract` command: JSON contract, formats, --entry, --bind, exit codes.
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using nlohmann::json;

namespace {
std::string fx(const std::string& n) { return tc_test::fixture("extract/" + n); }
json run_json(const std::string& args) {
  auto r = tc_test::run_cli("extract " + args + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}
const json& by_function(const json& doc, const std::string& f) {
  for (const auto& w : doc["workloads"])
    if (w["function"] == f) return w;
  FAIL("no workload " << f);
  throw 0;
}
}  // namespace

TEST_CASE("own fixture: toy q4f16_1 LLM module") {
  const auto r = extract_workloads(ir::load_module(fx("mini_llm_q4f16_1.py")));
  CHECK(r.entries == std::vector<std::string>{"decode", "prefill"});
  REQUIRE(r.workloads.size() == 2);  // rms_norm's sum of squares is not a GEMM
  const auto& pre = r.workloads[1];
  CHECK(pre.function == "fused_fused_dequantize_NT_matmul");
  CHECK(pre.m == Dim::symbolic(sym::sym_var("seq_len")));
  CHECK(pre.n == Dim::constant(768));
  CHECK(pre.k == Dim::constant(256));
  CHECK(pre.quant.scheme == "q4f16_1");
  CHECK(pre.calls == std::map<std::string, std::int64_t>{{"prefill", 2}});
  const auto& lm = r.workloads[0];
  CHECK(lm.n == Dim::constant(1000));
  CHECK(lm.dtype_out == parse_dtype("float32"));
  CHECK(lm.calls == std::map<std::string, std::int64_t>{{"decode", 1}});
  REQUIRE(r.attention.size() == 1);
  CHECK(r.attention[0].calls == 2);
  CHECK(r.attention[0].num_heads == 4);
  CHECK(r.attention[0].head_dim == 64);
}

TEST_CASE("own fixture: dilated strided conv2d") {
  const auto r = extract_workloads(ir::load_module(fx("conv2d_dilated.py")));
  REQUIRE(r.workloads.size() == 1);
  const auto& w = r.workloads[0];
  CHECK(w.kind == WorkloadKind::kConv);
  CHECK(w.m == Dim::constant(15 * 15));
  CHECK(w.n == Dim::constant(32));
  CHECK(w.k == Dim::constant(16 * 3 * 3));
  CHECK(w.conv.spatial_dims == 2);
  CHECK(w.conv.strides == std::vector<std::int64_t>{2, 2});
  CHECK(w.conv.dilations == std::vector<std::int64_t>{2, 2});
  CHECK(w.dtype_accum == parse_dtype("float32"));
}

TEST_CASE("own fixture: calls through Relax functions multiply along each call chain") {
  const auto r = extract_workloads(ir::load_module(fx("relax_nested_calls.py")));
  REQUIRE(r.workloads.size() == 2);
  // Oracle: the call graph of the fixture, walked by hand in its header comment.
  const auto& rm = r.workloads[0];
  CHECK(rm.function == "fused_matmul/gv");
  CHECK(rm.calls == std::map<std::string, std::int64_t>{{"fused_matmul", 1}, {"layer", 2}, {"prefill", 7}});
  const auto& tm = r.workloads[1];
  CHECK(tm.function == "matmul");
  CHECK(tm.m == Dim::constant(64));
  CHECK(tm.calls == std::map<std::string, std::int64_t>{{"layer", 1}, {"prefill", 3}});
  ExtractOptions o;
  o.entry = "prefill";
  const auto p = extract_workloads(ir::load_module(fx("relax_nested_calls.py")), o);
  REQUIRE(p.workloads.size() == 2);
  CHECK(p.workloads[0].calls == std::map<std::string, std::int64_t>{{"prefill", 7}});
}

TEST_CASE("own fixture: q8f16_1 (int8 in uint32 x4, group 32) is named") {
  const auto r = extract_workloads(ir::load_module(fx("q8f16_1_gemv.py")));
  REQUIRE(r.workloads.size() == 1);
  const auto& q = r.workloads[0].quant;
  CHECK(q.scheme == "q8f16_1");
  CHECK(q.weight_bits == 8);
  CHECK(q.elems_per_storage == 4);
  CHECK(q.group_size == 32);
  CHECK(q.zero_point == ZeroPointKind::kSymmetric);
  CHECK(r.module_quant == "q8f16_1");
}

TEST_CASE("own fixture: MLC block-scale fp8 (2-D 128x128 scale blocks) is named and sized") {
  const auto r = extract_workloads(ir::load_module(fx("fp8_block_scale_gemv.py")));
  REQUIRE(r.workloads.size() == 4);
  const std::map<std::string, std::array<std::int64_t, 2>> nk = {{"dequantize_gemv_qkv", {12288, 4096}},
                                                                 {"dequantize_gemv_o", {4096, 4096}},
                                                                 {"dequantize_gemv_gate_up", {22016, 4096}},
                                                                 {"dequantize_gemv_down", {4096, 11008}}};
  for (const auto& w : r.workloads) {
    INFO(w.function);
    REQUIRE(nk.count(w.function) == 1);
    CHECK(w.m == Dim::constant(1));
    CHECK(w.n == Dim::constant(nk.at(w.function)[0]));
    CHECK(w.k == Dim::constant(nk.at(w.function)[1]));
    CHECK(w.calls.at("decode") == 1);
    const auto& q = w.quant;
    CHECK(q.scheme == "fp8_e4m3fn_bf16_block_scale");
    CHECK(q.granularity == QuantGranularity::kBlock);
    CHECK(q.block_n == 128);
    CHECK(q.block_k == 128);
    CHECK(q.group_size == 0);
    CHECK(q.weight_bits == 8);
    CHECK(q.storage_dtype == parse_dtype("float8_e4m3fn"));
    CHECK(q.scale_dtype == parse_dtype("float32"));
    CHECK(q.weight_layout == "NK");
  }
  CHECK(r.module_quant == "fp8_e4m3fn_bf16_block_scale");
  const json doc = run_json(fx("fp8_block_scale_gemv.py"));
  const json& down = by_function(doc, "dequantize_gemv_down");
  CHECK(down["quant"]["granularity"] == "per-block");
  CHECK(down["quant"]["block"] == json::array({128, 128}));
  CHECK(down["quant"]["group_size"] == 0);
  CHECK(down["quant"]["scheme"] == "fp8_e4m3fn_bf16_block_scale");
  // a group-quantized workload has no "block" key (the field is additive)
  const json q4 = run_json(fx("q8f16_1_gemv.py"));
  CHECK_FALSE(q4["workloads"][0]["quant"].contains("block"));
  const auto t = tc_test::run_cli("extract " + fx("fp8_block_scale_gemv.py"));
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("block 128x128") != std::string::npos);
  // CSV: block_n and block_k columns next to group_size
  const auto c = tc_test::run_cli("extract --format csv " + fx("fp8_block_scale_gemv.py"));
  REQUIRE(c.exit_code == 0);
  CHECK(c.out.find("group_size,block_n,block_k,storage_dtype") != std::string::npos);
  CHECK(c.out.find(",per-block,8,0,128,128,float8_e4m3fn,") != std::string::npos);
}

TEST_CASE("own fixture: estimate and compare of a block-scale dump use its block scheme by default") {
  const auto e = tc_test::run_cli("estimate " + fx("fp8_block_scale_gemv.py") + " --format json");
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  const json j = json::parse(e.out);
  const std::string text = j.dump();
  CHECK(text.find("fp8_e4m3fn_bf16_block_scale") != std::string::npos);
  const auto c = tc_test::run_cli("compare " + fx("fp8_block_scale_gemv.py") + " --format json");
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const json cj = json::parse(c.out);
  REQUIRE(cj["rows"].size() == 7);  // the dump's own scheme, then the six defaults
  CHECK(cj["rows"][0]["scheme"] == "fp8_e4m3fn_bf16_block_scale (dump)");
  // decode: weights at 8 bits + float32 scales per 128x128 block + bf16 activations/outputs + fp8 activation scales
  long long expect = 0;
  for (const auto& [n, k] : std::vector<std::pair<long long, long long>>{{12288, 4096}, {4096, 4096}, {22016, 4096}, {4096, 11008}})
    expect += n * k + ((n + 127) / 128) * ((k + 127) / 128) * 4 + k + ((k + 127) / 128) * 4 + n * 2;
  CHECK(cj["rows"][0]["decode"]["dram_bytes"].get<long long>() == expect);
}

TEST_CASE("own fixture: a recursive Relax call is dropped with a note, not followed forever") {
  const auto r = extract_workloads(ir::load_module(fx("relax_recursive_calls.py")));
  REQUIRE(r.workloads.size() == 1);
  CHECK(r.workloads[0].calls.at("ping") == 1);
  bool noted = false;
  for (const auto& s : r.skipped) noted = noted || s.find("recursive call") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("own fixture: Relax R.matmul and a FasterTransformer packed GEMM") {
  const auto r = extract_workloads(ir::load_module(fx("relax_matmul.py")));
  REQUIRE(r.workloads.size() == 3);
  const auto& s = r.workloads[0];
  CHECK(s.function == "main/s");
  CHECK(s.batch == Dim::constant(8));
  CHECK(s.m == Dim::symbolic(sym::sym_var("n")));
  CHECK(s.n == Dim::symbolic(sym::sym_var("n")));
  CHECK(s.k == Dim::constant(64));
  CHECK(s.dtype_out == parse_dtype("float32"));
  CHECK(s.weight_operand == WeightOperand::kNone);
  const auto& y = r.workloads[1];
  CHECK(y.layout == "NT");
  CHECK(y.n == Dim::constant(1024));
  CHECK(y.k == Dim::constant(512));
  CHECK(y.weight_operand == WeightOperand::kB);
  const auto& z = r.workloads[2];
  CHECK(z.source == WorkloadSource::kPacked);
  CHECK(z.m == Dim::symbolic(sym::sym_var("n")));
  CHECK(z.n == Dim::constant(1024));
  CHECK(z.quant.scheme == "q4f16_ft");
  CHECK(z.quant.weight_bits == 4);
}

TEST_CASE("extract --format json: contract keys and types") {
  const json doc = run_json(fx("mini_llm_q4f16_1.py"));
  REQUIRE(doc["workloads"].size() == 2);
  const json& w = by_function(doc, "fused_fused_dequantize_NT_matmul");
  for (const char* k : {"function", "kind", "m", "n", "k", "batch", "layout", "dtypes", "weight_operand", "quant",
                        "calls", "shape_known", "note", "location", "source"})
    CHECK(w.contains(k));
  CHECK(w["kind"] == "gemm");
  CHECK(w["m"] == "seq_len");
  CHECK(w["n"].is_number_integer());
  CHECK(w["n"] == 768);
  CHECK(w["layout"] == "NT");
  CHECK(w["dtypes"]["a"] == "float16");
  CHECK(w["dtypes"]["accum"] == "float16");
  CHECK(w["weight_operand"] == "b");
  for (const char* k : {"scheme", "granularity", "weight_bits", "group_size", "storage_dtype", "scale_dtype", "zero_point"})
    CHECK(w["quant"].contains(k));
  CHECK(w["quant"]["scheme"] == "q4f16_1");
  CHECK(w["quant"]["weight_bits"] == 4);
  CHECK(w["quant"]["group_size"] == 32);
  CHECK(w["calls"]["prefill"] == 2);
  CHECK_FALSE(w.contains("macs"));  // symbolic M
  CHECK(doc["symbols"] == json::array({"seq_len"}));
  CHECK(doc["attention"][0]["num_heads"] == 4);
  CHECK(doc["module_quant"] == "q4f16_1");
  // Deterministic: the same output twice.
  CHECK(tc_test::run_cli("extract " + fx("mini_llm_q4f16_1.py") + " --format json").out ==
        tc_test::run_cli("extract " + fx("mini_llm_q4f16_1.py") + " --format json").out);
}

TEST_CASE("extract --bind turns symbolic dims into integers; --entry filters") {
  const json doc = run_json(fx("mini_llm_q4f16_1.py") + " --bind seq_len=2048 --entry prefill");
  REQUIRE(doc["workloads"].size() == 1);
  const json& w = doc["workloads"][0];
  CHECK(w["m"] == 2048);
  CHECK(w["macs"] == 2048LL * 768 * 256);
  CHECK(w["calls"] == json{{"prefill", 2}});
  CHECK(doc["symbols"].empty());
  CHECK(doc["attention"].size() == 1);
}

TEST_CASE("extract table and csv formats") {
  auto t = tc_test::run_cli("extract " + fx("mini_llm_q4f16_1.py"));
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("fused_fused_dequantize_NT_matmul") != std::string::npos);
  CHECK(t.out.find("q4f16_1 (int4 g32 NK)") != std::string::npos);
  CHECK(t.out.find("prefill=2") != std::string::npos);
  auto c = tc_test::run_cli("extract " + fx("conv2d_dilated.py") + " --format csv");
  REQUIRE(c.exit_code == 0);
  CHECK(c.out.rfind("function,location,kind,batch,m,n,k,", 0) == 0);
  CHECK(c.out.find("conv2d,") != std::string::npos);
  CHECK(c.out.find(",conv,1,225,32,144,") != std::string::npos);
}

TEST_CASE("extract exit codes") {
  auto e = tc_test::run_cli("extract " + fx("mini_llm_q4f16_1.py") + " --entry nope");
  CHECK(e.exit_code == 2);
  CHECK(e.err.find("valid entries: decode, prefill") != std::string::npos);
  CHECK(tc_test::run_cli("extract " + fx("mini_llm_q4f16_1.py") + " --bind seq_len").exit_code == 2);
  CHECK(tc_test::run_cli("extract " + fx("mini_llm_q4f16_1.py") + " --format xml").exit_code == 2);
  CHECK(tc_test::run_cli("extract /nonexistent/dump.py").exit_code == 2);
  CHECK(tc_test::run_cli("extract").exit_code == 2);
}

TEST_CASE("TVM JSON input (both dialects) gives the same workloads as TVMScript") {
  for (const char* f : {"q4_gemv_legacy.json", "q4_gemv_ffi.json"}) {
    INFO(f);
    const auto r = extract_workloads(ir::load_module(fx(f)));
    REQUIRE(r.workloads.size() == 1);
    const auto& w = r.workloads[0];
    CHECK(w.m == Dim::constant(1));
    CHECK(w.n == Dim::constant(22016));
    CHECK(w.k == Dim::constant(4096));
    CHECK(w.layout == "NT");
    CHECK(w.quant.scheme == "q4f16_1");
    CHECK(w.quant.group_size == 32);
    CHECK(w.quant.weight_layout == "NK");
    // Same facts as the TVMScript original (fixture 07) when ../shared is there.
    const auto p07 = tc_test::shared_path("fixtures/real/07_tvm_dlight_q4f16_1_decode_gemv_int32dims.py");
    if (p07.empty()) continue;
    const auto t = extract_workloads(ir::load_module(p07));
    REQUIRE(t.workloads.size() == 1);
    CHECK(t.workloads[0].quant == w.quant);
    CHECK(t.workloads[0].layout == w.layout);
    CHECK(t.workloads[0].n == w.n);
  }
  for (const char* f : {"gemm_legacy.json", "gemm_ffi.json"}) {
    INFO(f);
    const auto r = extract_workloads(ir::load_module(tc_test::fixture(std::string("ir_json/") + f)));
    REQUIRE(r.workloads.size() == 2);
    CHECK(r.workloads[0].function == "NT_matmul");
    CHECK(r.workloads[0].m == Dim::symbolic(sym::sym_var("n")));
    CHECK(r.workloads[0].n == Dim::constant(11008));
    CHECK(r.workloads[0].calls == std::map<std::string, std::int64_t>{{"main", 1}});
    CHECK(r.workloads[1].m == Dim::constant(128));
    CHECK(r.workloads[1].n == Dim::constant(256));
    CHECK(r.workloads[1].k == Dim::constant(64));
  }
}

TEST_CASE("a storage dtype with an absurd bit width is not understood, not an internal error") {
  // dtype_bits once parsed the width with std::stoi: "uint99999999999999999999" threw
  // std::out_of_range and the CLI exited 1 ("internal error: stoi").
  const std::string base = read_file(fx("q8f16_1_gemv.py"));
  for (const std::string width : {"99999999999999999999", "99999"}) {
    std::string text = base;
    for (std::size_t p = 0; (p = text.find("\"uint32\"", p)) != std::string::npos;)
      text.replace(p, 8, "\"uint" + width + "\"");
    INFO(width);
    const ir::Module m = ir::parse_tvmscript(text, "absurd_width.py");
    ExtractResult r;
    REQUIRE_NOTHROW(r = extract_workloads(m));
    REQUIRE(!r.workloads.empty());
    CHECK(r.workloads.front().quant.scheme != "q8f16_1");  // no longer MLC's int8-in-uint32 packing
  }
}

TEST_CASE("-v: debug logs go to stderr, the result alone to stdout") {
  // spdlog's default logger writes to stdout: a -v run once printed its debug
  // lines into the JSON on stdout.
  const auto r = tc_test::run_cli("-v extract " + fx("relax_recursive_calls.py") + " --format json");
  REQUIRE(r.exit_code == 0);
  CHECK_NOTHROW(json::parse(r.out));
  CHECK(r.out.find("debug") == std::string::npos);
  CHECK(r.err.find("tenet-cost: debug: pong: recursive call of Relax function ping not followed") != std::string::npos);
}

TEST_CASE("extract CLI: a dump without a GEMM says so on stderr (exit 0); a truncated dump is exit 2") {
  const std::string dir = std::filesystem::temp_directory_path() / "tc_extract_cli_nogemm";
  std::filesystem::create_directories(dir);
  const std::string plain = dir + "/copy.py";
  {
    std::ofstream(plain)
        << "@T.prim_func\ndef copy(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
           "    for i in range(4):\n        with T.block(\"b\"):\n            vi = T.axis.spatial(4, i)\n"
           "            B[vi] = A[vi]\n";
  }
  auto r = tc_test::run_cli("extract " + plain);
  CHECK(r.exit_code == 0);
  CHECK(r.err == "tenet-cost: warning: no GEMM or convolution found in " + plain + "\n");
  // the shipped model cut inside `prefill`
  std::ifstream in(std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/q4f16_1.py");
  std::string text, line;
  for (int n = 0; std::getline(in, line) && n < 1400; ++n) text += line + "\n";
  const std::string cut = dir + "/cut.py";
  { std::ofstream(cut) << text; }
  r = tc_test::run_cli("extract " + cut);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::StartsWith("tenet-cost: error: " + cut + ":1400:") && Catch::EndsWith("(truncated dump?)\n"));
  std::filesystem::remove_all(dir);
}
