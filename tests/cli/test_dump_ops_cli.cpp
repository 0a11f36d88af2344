// The CLI side of issue 12 items 4 and 5: extract lists operators, --gemm / --calls, compare on other entries.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;

namespace {
std::string fx(const std::string& name) { return tc_test::fixture("extract/" + name); }
}  // namespace

TEST_CASE("extract lists the operators in every format") {
  auto j = tc_test::run_cli("extract " + fx("nongemm_ops.py") + " --format json");
  REQUIRE(j.exit_code == 0);
  const json doc = json::parse(j.out);
  REQUIRE(doc["operators"].is_array());
  CHECK(doc["operators"].size() == 10);  // 5 functions x (prefill n tokens, decode 1 token)
  bool found = false;
  for (const auto& o : doc["operators"])
    if (o["function"] == "rms_norm" && o["calls"].contains("decode")) {
      found = true;
      CHECK(o["ops"] == 448);
      CHECK(o["read_bytes"] == 256);
      CHECK(o["write_bytes"] == 128);
      CHECK(o["calls"]["decode"] == 2);
    }
  CHECK(found);
  auto t = tc_test::run_cli("extract " + fx("nongemm_ops.py"));
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("operator") != std::string::npos);
  CHECK(t.out.find("n * 448") != std::string::npos);
  auto c = tc_test::run_cli("extract " + fx("nongemm_ops.py") + " --format csv --bind n=2");
  REQUIRE(c.exit_code == 0);
  CHECK(c.out.find(",ops,read_bytes,write_bytes\n") != std::string::npos);
  CHECK(c.out.find("rms_norm,") != std::string::npos);
  CHECK(c.out.find(",op,") != std::string::npos);
  CHECK(c.out.find(",896,") != std::string::npos);  // rms_norm ops at n = 2
}

TEST_CASE("estimate --gemm costs plain shapes; compare reports the entry, never a zero table") {
  auto e = tc_test::run_cli("estimate --gemm 1x4096x4096 --gemm 8x4096x4096x2 --quant q4f16_1 --format json");
  REQUIRE(e.exit_code == 0);
  const json doc = json::parse(e.out);
  CHECK(doc["totals"]["gemm"]["macs"] == 17LL * 4096 * 4096);
  auto c = tc_test::run_cli("compare --gemm 1x4096x4096 --quant q0f16,q4f16_1");
  REQUIRE(c.exit_code == 0);
  CHECK(c.out.find("entry") != std::string::npos);
  CHECK(c.out.find("prefill_ms") == std::string::npos);
  CHECK(c.out.find("q4f16_1  gemm") != std::string::npos);
  auto cj = tc_test::run_cli("compare --gemm 1x4096x4096 --quant q0f16,q4f16_1 --format json");
  REQUIRE(cj.exit_code == 0);
  const json cd = json::parse(cj.out);
  CHECK(cd["rows"][1]["entries"]["gemm"]["latency_s"].get<double>() > 0);
  CHECK(cd["rows"][1]["entries"]["gemm"]["traffic_ratio_vs_first"].get<double>() < 0.5);
  CHECK(tc_test::run_cli("estimate --gemm 1x2").exit_code == 2);
  CHECK(tc_test::run_cli("estimate --gemm 1x2x3 " + fx("nongemm_ops.py")).exit_code == 2);
  const auto calls = tc_test::run_cli("estimate " + fx("nongemm_ops.py") + " --calls rms_norm=2");
  CHECK(calls.exit_code == 2);
  CHECK(calls.err.find("without a Relax entry") != std::string::npos);
}
