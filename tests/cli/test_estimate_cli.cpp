#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <functional>
#include <set>

#include "test_support.hpp"

using nlohmann::json;

namespace {

std::set<std::string> keys(const json& j) {
  std::set<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.insert(it.key());
  return k;
}

bool has_all(const json& j, const std::set<std::string>& want) {
  const auto k = keys(j);
  for (const auto& w : want)
    if (!k.count(w)) {
      UNSCOPED_INFO("missing key " << w);
      return false;
    }
  return true;
}

const std::string kSrc = TC_SOURCE_DIR;

}  // namespace

TEST_CASE("compare with no arguments uses the default model, arch and six schemes") {
  const auto r = tc_test::run_cli("compare --format json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(has_all(j, {"model", "arch", "dataflow", "rows"}));
  CHECK(j["model"] == "llama-2-7b");
  CHECK(j["arch"] == "edge-npu-32x32");
  REQUIRE(j["rows"].size() == 6);
  for (const auto& row : j["rows"]) {
    CHECK(has_all(row, {"scheme", "prefill", "decode", "scale_traffic_share", "speedup_vs_first"}));
    CHECK(has_all(row["prefill"], {"latency_s", "dram_bytes", "energy_j"}));
    CHECK(has_all(row["decode"], {"latency_s", "tokens_per_s", "dram_bytes", "energy_j"}));
    CHECK(row["decode"]["dram_bytes"].is_number_integer());
  }
  CHECK(j["rows"][0]["scheme"] == "q0f16");
  CHECK(j["rows"][0]["speedup_vs_first"] == 1.0);
  CHECK(j["rows"][0]["scale_traffic_share"] == 0.0);
  // q4f16_1 decode moves about a third of fp16's bytes and has scale traffic
  const double ratio = j["rows"][1]["traffic_ratio_vs_first"].get<double>();
  CHECK(ratio > 0.25);
  CHECK(ratio < 0.40);
  CHECK(j["rows"][1]["scale_traffic_share"].get<double>() > 0.05);
  // decode of Llama-2-7B fp16 moves its ~13.5 GB of weights plus the 1 GB KV cache per token
  const auto fp16 = j["rows"][0]["decode"]["dram_bytes"].get<long long>();
  CHECK(fp16 > 14000000000LL);
  CHECK(fp16 < 15000000000LL);
  const auto t = tc_test::run_cli("compare");
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("q4f16_autoawq") != std::string::npos);
  const auto c = tc_test::run_cli("compare --format csv --quant q0f16,w4a16-g128");
  REQUIRE(c.exit_code == 0);
  CHECK(c.out.rfind("scheme,prefill_ms", 0) == 0);
}

TEST_CASE("estimate JSON has the documented keys") {
  const auto r = tc_test::run_cli("estimate --hf-config " + kSrc +
                                  "/workloads/qwen2-0.5b/config.json --quant w4a16-g128+kv8 --seq-len 64 --context 128 "
                                  "--format json");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(has_all(j, {"workloads", "totals"}));
  REQUIRE(!j["workloads"].empty());
  std::set<std::string> roles;
  for (const auto& w : j["workloads"]) {
    CHECK(has_all(w, {"function", "entry", "calls", "macs", "cycles", "latency_s", "energy_j", "utilization", "tensors"}));
    for (const auto& t : w["tensors"]) {
      CHECK(has_all(t, {"name", "role", "bits", "dram_bytes", "buffer_bytes"}));
      roles.insert(t["role"].get<std::string>());
    }
  }
  CHECK(roles == std::set<std::string>{"activation", "weight", "scale", "output"});
  for (const char* e : {"prefill", "decode"}) {
    REQUIRE(j["totals"].contains(e));
    CHECK(has_all(j["totals"][e], {"macs", "cycles", "latency_s", "dram_bytes", "energy_j"}));
  }
  const auto t = tc_test::run_cli("estimate --hf-config " + kSrc + "/workloads/qwen2-0.5b/config.json --format table");
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("Totals per entry") != std::string::npos);
}

TEST_CASE("quant list documents the schemes in every format") {
  const auto t = tc_test::run_cli("quant list");
  REQUIRE(t.exit_code == 0);
  for (const char* s : {"q0f16", "q0f32", "q3f16_1", "q4f16_0", "q4f16_1", "q4f32_1", "q4f16_2", "q4f16_autoawq",
                        "q4f16_ft", "e4m3_e4m3_f16", "e5m2_e5m2_f16", "q8f16_1", "w4a16-g128-asym",
                        "w8a8-token-channel", "w4a8-g128", "w4a4-g128", "fp8-tensor", "+kv8", "+kv4-g64"})
    CHECK(t.out.find(s) != std::string::npos);
  const auto j = tc_test::run_cli("quant list --format json");
  REQUIRE(j.exit_code == 0);
  CHECK(json::parse(j.out).size() > 20);
  CHECK(tc_test::run_cli("quant list --format csv").exit_code == 0);
}

TEST_CASE("estimate without a DUMP costs the shipped model, as compare does (issue 27)") {
  const auto e = tc_test::run_cli("estimate --seq-len 16 --context 32 --format json");
  REQUIRE(e.exit_code == 0);
  CHECK(e.out.find("\"model\": \"llama-2-7b\"") != std::string::npos);
  const auto d =
      tc_test::run_cli("estimate " + kSrc + "/workloads/llama-2-7b/q0f16.py --seq-len 16 --context 32 --format json");
  REQUIRE(d.exit_code == 0);
  // the same plan as the shipped dump given by path (only the model's name differs)
  const auto body = [](const std::string& s) { return s.substr(s.find("\"notes\"")); };
  CHECK(body(e.out) == body(d.out));
}

TEST_CASE("bad input exits 2 with the valid choices") {
  const std::string cfg = " --hf-config " + kSrc + "/workloads/qwen2-0.5b/config.json";
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"compare --quant q9f16", "valid schemes"},
      {"compare --arch nope", "presets: edge-npu-32x32"},
      {"compare --dataflow diagonal", "ws (weight-stationary)"},
      {"estimate" + cfg + " --tile m=4096,n=4096,k=4096", "over by"},
      {"estimate" + cfg + " --format xml", "valid formats"},
      {"estimate" + cfg + " --array-model magic", "auto, engine, closed-form"},
      {"estimate" + cfg + " --arch tpu-v1-256x256 --quant e4m3_e4m3_f16 --dataflow ncf --array-model closed-form",
       "closed-form array model needs"},
      {"compare --seq-len 0", "--seq-len 0: expected 1 .. 16777216"},
      {"compare --context -5", "--context -5: expected 1 .. 16777216"},
      {"estimate --hf-config /nonexistent/config.json", "cannot open"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = tc_test::run_cli(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.expect) != std::string::npos);
  }
  // unknown arch key in a user JSON file: file:line:col
  char path[] = "/tmp/tc_arch_XXXXXX.json";
  const int fd = mkstemps(path, 5);
  REQUIRE(fd >= 0);
  {
    std::ofstream f(path);
    f << "{\n  \"name\": \"x\",\n  \"clock_mhz\": 100,\n  \"pe_array\": {\"rows\": 4, \"cols\": 4, \"links\": 2}\n}\n";
  }
  const auto r = tc_test::run_cli("compare --arch " + std::string(path));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(std::string(path) + ":4:38: unknown key 'links'") != std::string::npos);
  CHECK(r.err.find("valid keys: rows, cols, interconnect") != std::string::npos);
  std::remove(path);
}

TEST_CASE("estimate runs on the shipped dumps and on real MLC dumps") {
  for (const char* dump : {"/workloads/llama-2-7b/q4f16_1.py", "/workloads/qwen2-0.5b/q0f16.py"}) {
    const auto r = tc_test::run_cli("estimate " + kSrc + dump + " --format json --seq-len 128 --context 256");
    if (r.exit_code == 2 && r.err.find("not implemented") != std::string::npos) {
      WARN("extractor not available yet: " << r.err);
      return;
    }
    INFO(dump << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(j["totals"].contains("prefill"));
    CHECK(j["totals"].contains("decode"));
  }
  const std::string real = tc_test::shared_path("fixtures/real/01_mlc_llama2_13b_q4f16_1_batched_whole_module.py");
  if (real.empty()) return;
  const auto r = tc_test::run_cli("estimate " + real + " --format json --seq-len 128 --context 256 --bind vocab_size=32000");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  bool qkv = false;
  for (const auto& w : j["workloads"])
    if (w["function"] == "fused_fused_decode_NT_matmul") {
      qkv = true;
      CHECK(w["shape"]["n"] == 15360);
      CHECK(w["shape"]["k"] == 5120);
      CHECK(w["scheme"] == "q4f16_1");
      CHECK(w["calls"] == 40);
    }
  CHECK(qkv);
  const auto unbound = tc_test::run_cli("estimate " + real + " --format json");
  CHECK(unbound.exit_code == 2);
  CHECK(unbound.err.find("vocab_size") != std::string::npos);
}

TEST_CASE("the shipped dump and its config.json give the same compare") {
  const auto dump = tc_test::run_cli("compare --format json --seq-len 256 --context 512");
  const auto cfg = tc_test::run_cli("compare --format json --seq-len 256 --context 512 --hf-config " + kSrc +
                                    "/workloads/llama-2-7b/config.json");
  REQUIRE(dump.exit_code == 0);
  REQUIRE(cfg.exit_code == 0);
  json a = json::parse(dump.out), b = json::parse(cfg.out);
  REQUIRE(a["rows"].size() == b["rows"].size());
  // the GEMM parts agree (integers identical; seconds/joules up to summation order); the config plan adds the
  // family's non-GEMM operators, the dump plan its own non-GEMM prim_funcs (rms_norm, silu_mul)
  for (std::size_t n = 0; n < a["rows"].size(); ++n)
    for (const char* phase : {"prefill", "decode"}) {
      const json& x = a["rows"][n][phase];
      const json& y = b["rows"][n][phase];
      INFO(a["rows"][n]["scheme"] << " " << phase);
      CHECK(x["non_gemm_dram_bytes"].get<std::int64_t>() > 0);
      CHECK(y["non_gemm_dram_bytes"].get<std::int64_t>() > x["non_gemm_dram_bytes"].get<std::int64_t>());
      CHECK(x["dram_bytes"].get<std::int64_t>() - x["non_gemm_dram_bytes"].get<std::int64_t>() ==
            y["dram_bytes"].get<std::int64_t>() - y["non_gemm_dram_bytes"].get<std::int64_t>());
      CHECK(x["scale_dram_bytes"] == y["scale_dram_bytes"]);
      for (const char* k : {"latency_s", "energy_j"})
        CHECK(x[k].get<double>() - x[std::string("non_gemm_") + k].get<double>() ==
              Approx(y[k].get<double>() - y[std::string("non_gemm_") + k].get<double>()).epsilon(1e-9));
    }
  // schemes that keep lm_head at fp16 find it in the dump too
  const auto e4 = tc_test::run_cli("compare --format json --quant e4m3_e4m3_f16,q4f16_2");
  const auto e4c = tc_test::run_cli("compare --format json --quant e4m3_e4m3_f16,q4f16_2 --hf-config " + kSrc +
                                    "/workloads/llama-2-7b/config.json");
  REQUIRE(e4.exit_code == 0);
  REQUIRE(e4c.exit_code == 0);
  for (std::size_t n = 0; n < 2; ++n) {
    const json x = json::parse(e4.out)["rows"][n]["decode"], y = json::parse(e4c.out)["rows"][n]["decode"];
    CHECK(x["dram_bytes"].get<std::int64_t>() - x["non_gemm_dram_bytes"].get<std::int64_t>() ==
          y["dram_bytes"].get<std::int64_t>() - y["non_gemm_dram_bytes"].get<std::int64_t>());
  }
  const auto q = tc_test::run_cli("estimate " + kSrc + "/workloads/qwen2-0.5b/q4f16_1.py --format json --seq-len 64");
  const auto qc = tc_test::run_cli("estimate --hf-config " + kSrc +
                                   "/workloads/qwen2-0.5b/config.json --quant q4f16_1 --format json --seq-len 64");
  REQUIRE(q.exit_code == 0);
  REQUIRE(qc.exit_code == 0);
  for (const char* e : {"prefill", "decode"}) {
    const json x = json::parse(q.out)["totals"][e], y = json::parse(qc.out)["totals"][e];
    CHECK(x["macs"] == y["macs"]);
    CHECK(x["dram_bytes"].get<std::int64_t>() - x["non_gemm"]["dram_bytes"].get<std::int64_t>() ==
          y["dram_bytes"].get<std::int64_t>() - y["non_gemm"]["dram_bytes"].get<std::int64_t>());
    CHECK(x["cycles"].get<std::int64_t>() - x["non_gemm"]["cycles"].get<std::int64_t>() ==
          y["cycles"].get<std::int64_t>() - y["non_gemm"]["cycles"].get<std::int64_t>());
  }
}

TEST_CASE("the TENET engine and the closed forms give the same whole-model estimate") {
  const std::string base = "estimate --hf-config " + tc_test::fixture("estimate/tiny_config.json") +
                           " --arch eyeriss-12x14 --seq-len 24 --context 40 --format json --quant ";
  for (const char* scheme : {"q4f16_1", "w8a8-token-channel+kv8"})
    for (const char* df : {"os", "ws"}) {
      const auto cf = tc_test::run_cli(base + scheme + " --dataflow " + df + " --array-model closed-form");
      const auto en = tc_test::run_cli(base + scheme + " --dataflow " + df + " --array-model engine");
      INFO(scheme << " " << df << " " << en.err);
      REQUIRE(cf.exit_code == 0);
      REQUIRE(en.exit_code == 0);
      json a = json::parse(cf.out), b = json::parse(en.out);
      REQUIRE(a["workloads"].size() == b["workloads"].size());
      for (std::size_t n = 0; n < a["workloads"].size(); ++n) {
        a["workloads"][n].erase("array_model");
        b["workloads"][n].erase("array_model");
      }
      CHECK(a == b);
    }
  // presets without closed forms run on the engine
  const auto is = tc_test::run_cli(base + "q4f16_1 --dataflow is");
  INFO(is.err);
  CHECK(is.exit_code == 0);
}

TEST_CASE("compare of a quantized dump starts with the dump's own scheme") {
  const auto r = tc_test::run_cli("compare " + kSrc + "/workloads/qwen2-0.5b/q4f16_1.py --format json --seq-len 64");
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j["rows"].size() == 7);
  CHECK(j["rows"][0]["scheme"] == "q4f16_1 (dump)");
  // the dump as compiled = the same dump with --quant q4f16_1
  CHECK(j["rows"][0]["decode"]["dram_bytes"] == j["rows"][2]["decode"]["dram_bytes"]);
  CHECK(j["rows"][0]["speedup_vs_first"] == 1.0);
}

TEST_CASE("a user .m mapping runs on the engine and matches the equivalent preset") {
  char path[] = "/tmp/tc_arch4_XXXXXX.json";
  const int fd = mkstemps(path, 5);
  REQUIRE(fd >= 0);
  {
    std::ofstream f(path);
    f << "{\"clock_mhz\": 500, \"pe_array\": {\"rows\": 4, \"cols\": 4}, \"macs_per_pe_per_cycle\": {\"fp16\": 1},"
         " \"buffer\": {\"bytes\": 65536, \"bits_per_cycle\": 256}, \"dram\": {\"mb_per_s\": 4000}}";
  }
  const std::string base = "estimate --hf-config " + tc_test::fixture("estimate/tiny_config.json") + " --arch " + path +
                           " --seq-len 20 --context 24 --format json --quant q4f16_1 --tile m=16,n=32,k=32,order=mnk";
  const auto preset = tc_test::run_cli(base + " --dataflow os --array-model closed-form");
  const auto user = tc_test::run_cli(base + " --dataflow " + tc_test::fixture("estimate/user_os.m"));
  std::remove(path);
  INFO(user.err);
  REQUIRE(preset.exit_code == 0);
  REQUIRE(user.exit_code == 0);
  json a = json::parse(preset.out), b = json::parse(user.out);
  a.erase("dataflow");
  b.erase("dataflow");
  for (auto* j : {&a, &b})
    for (auto& w : (*j)["workloads"]) w.erase("array_model");
  CHECK(a == b);
}

TEST_CASE("--time-limit bounds a GEMM's tile search and names the GEMM, dataflow and arch when hit") {
  const std::string base = "estimate --hf-config " + tc_test::fixture("estimate/tiny_config.json") +
                           " --arch eyeriss-12x14 --seq-len 24 --context 40 --format json --quant q4f16_1 "
                           "--array-model engine";
  const auto tiny = tc_test::run_cli(base + " --time-limit 0.000000001");
  INFO(tiny.err);
  CHECK(tiny.exit_code == 2);
  CHECK(tiny.err.find("exceeded its time limit") != std::string::npos);
  CHECK(tiny.err.find("tile search of a 24x128x64 GEMM under dataflow os on eyeriss-12x14") != std::string::npos);
  CHECK(tiny.err.find("<generated>") == std::string::npos);
  // 0 = no limit: the same result as the default limit
  const auto none = tc_test::run_cli(base + " --time-limit 0");
  const auto dflt = tc_test::run_cli(base);
  REQUIRE(none.exit_code == 0);
  CHECK(none.out == dflt.out);
  for (const char* bad : {"-1", "nan", "inf", "1e10"}) {
    const auto r = tc_test::run_cli(base + " --time-limit " + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--time-limit") != std::string::npos);
  }
  const auto t = tc_test::run_cli("tenet --pe " + tc_test::fixture("tenet/small/sys4.p") + " --statement " +
                                  tc_test::fixture("tenet/small/g.s") + " --mapping " +
                                  tc_test::fixture("tenet/small/g_os.m") + " --time-limit -2");
  CHECK(t.exit_code == 2);
  CHECK(t.err.find("--time-limit") != std::string::npos);
}
