// The sweep's deployment and request axes (tp, pp, ep, gen_len; docs/sweep.md "Deployments and requests"): a point
// is the row `compare` gives with the same flags (oracle: the CLI's compare --format json), a TP degree that does not
// divide the model is that point's error record, and a grid without the axes keeps its id.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "sweep/sweep_support.hpp"
#include "tenet_cost/sweep.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using namespace sweep_test;
using nlohmann::json;

namespace {

const std::string kMixtral = std::string(TC_SOURCE_DIR) + "/workloads/mixtral-8x7b/config.json";
const std::string kQwen = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
const std::string kShort = " --seq-len 16 --context 32 --batch 4";

std::vector<json> results(const std::string& args) {
  const auto r = tc_test::run_cli("sweep " + args + " -q -j 2");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<json> out;
  for (const auto& l : result_lines(r.out)) out.push_back(json::parse(l));
  return out;
}

json compare_json(const std::string& args) {
  const auto c = tc_test::run_cli("compare " + args + " --format json");
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  return json::parse(c.out);
}

// The figures of a sweep result and of compare's row that must be equal, number for number.
void check_same(const json& result, const json& row) {
  for (const char* phase : {"prefill", "decode"})
    for (const char* k :
         {"latency_s", "energy_j", "dram_bytes", "scale_dram_bytes", "tokens_per_s", "energy_by_term_j"}) {
      INFO(phase << "." << k);
      CHECK(result[phase][k] == row[phase][k]);
    }
}

}  // namespace

TEST_CASE("a tp / pp / ep point equals compare's row over the same deployment", "[sweep][deploy]") {
  const auto lines = results("--model " + kMixtral + kShort + " --quant q0f16,fp8-tensor --tp 1,4 --pp 1,2 --ep 1,tp");
  REQUIRE(lines.size() == 16);
  int matched = 0;
  for (const json& l : lines) {
    REQUIRE(l.contains("result"));
    const json& p = l["point"];
    const std::int64_t tp = p["tp"].get<std::int64_t>(), pp = p["pp"].get<std::int64_t>();
    const std::string ep = p["ep"].is_string() ? "tp" : std::to_string(p["ep"].get<std::int64_t>());
    INFO("tp " << tp << " pp " << pp << " ep " << ep << " " << p["quant"]);
    // one deployment: compare prints the deployment beside the rows; the sweep's record holds both in one object
    const json c = compare_json("--hf-config " + kMixtral + kShort + " --quant " + p["quant"].get<std::string>() +
                                " --tp " + std::to_string(tp) + " --pp " + std::to_string(pp) + " --ep " + ep);
    const json& row = c["rows"].front();
    check_same(l["result"], row);
    if (!c.contains("deployment")) {  // tp 1 x pp 1 x ep 1: compare runs one chip without the deployment's columns
      CHECK(tp * pp == 1);
      CHECK(l["result"]["deployment"]["decode"]["collective_bytes"] == 0);
      ++matched;
      continue;
    }
    json deployment = row["deployment"];
    deployment.update(c["deployment"]);
    CHECK(l["result"]["deployment"] == deployment);
    CHECK(l["result"]["deployment"]["ep"] == (ep == "tp" ? tp : 1));
    CHECK(l["result"]["deployment"]["chips"] == tp * pp);
    if (tp > 1) CHECK(l["result"]["deployment"]["decode"]["collective_bytes"].get<std::int64_t>() > 0);
    ++matched;
  }
  CHECK(matched == 16);
}

TEST_CASE("a TP degree that does not divide the model is that point's error record", "[sweep][deploy]") {
  // qwen2-0.5b: 14 heads, 2 KV heads: tp 2 divides them, tp 4 does not
  const auto lines = results("--model " + kQwen + kShort + " --quant q0f16 --tp 1,2,4");
  REQUIRE(lines.size() == 3);
  for (const json& l : lines) {
    const auto tp = l["point"]["tp"].get<std::int64_t>();
    INFO("tp " << tp);
    CHECK(l.contains("error") == (tp == 4));
    if (tp == 4) CHECK(l["error"].get<std::string>().find("--tp 4: num_attention_heads 14 is not divisible by 4") == 0);
  }
}

TEST_CASE("the axes absent keep the grid and its id; given, they are in the header and every point",
          "[sweep][deploy]") {
  const auto plain = tc_test::run_cli("sweep --model qwen2-0.5b --seq-len 16 --context 64 --quant q0f16 -q");
  REQUIRE(plain.exit_code == 0);
  const json header = json::parse(lines_of(plain.out).front());
  for (const char* k : {"tp", "pp", "ep", "gen_len"}) {
    CHECK_FALSE(header["grid"].contains(k));
    CHECK_FALSE(json::parse(result_lines(plain.out).front())["point"].contains(k));
  }
  // the header of version 1's grids: this id is in results files written before the axes existed
  sweep::Grid g;
  sweep::set_axis(g, sweep::AxisKind::kModel, "", {"qwen2-0.5b"});
  sweep::set_axis(g, sweep::AxisKind::kSeqLen, "", {"16"});
  sweep::set_axis(g, sweep::AxisKind::kContext, "", {"64"});
  sweep::set_axis(g, sweep::AxisKind::kQuant, "", {"q0f16"});
  CHECK(header["grid_id"] == sweep::grid_id(g));
  CHECK(sweep::grid_id(g) == "553f667a50241399");  // docs/sweep.md's example header
  sweep::set_axis(g, sweep::AxisKind::kTp, "", {"1"});
  CHECK(sweep::grid_id(g) != "553f667a50241399");
  // a spec file names them as keys: integers, and ep's word tp
  TempDir dir;
  spit(dir / "grid.json", R"({"model": [")" + kMixtral + R"("], "seq_len": 16, "context": 32, "quant": "q0f16",
                              "tp": [1, 2], "ep": [1, "tp"]})");
  const auto spec = tc_test::run_cli("sweep --spec " + dir / "grid.json" + " -q");
  INFO(spec.err);
  REQUIRE(spec.exit_code == 0);
  const json sh = json::parse(lines_of(spec.out).front());
  CHECK(sh["grid"]["tp"] == json::array({1, 2}));
  CHECK(sh["grid"]["ep"] == json::array({1, "tp"}));
  CHECK(result_lines(spec.out).size() == 4);
}

TEST_CASE("gen_len: a point's request equals compare --prompt-len --gen-len, on one chip and over chips",
          "[sweep][deploy]") {
  const std::string req = " --context 17 --batch 2 --quant q4f16_1";
  const auto lines = results("--model " + kQwen + req + " --seq-len 16 --gen-len 3");
  REQUIRE(lines.size() == 1);
  const json c = compare_json("--hf-config " + kQwen + req + " --prompt-len 16 --gen-len 3");
  CHECK(lines.front()["result"]["request"] == c["rows"].front()["request"]);
  check_same(lines.front()["result"], c["rows"].front());
  const auto deployed = results("--model " + kQwen + req + " --seq-len 16 --gen-len 3 --tp 2");
  REQUIRE(deployed.size() == 1);
  const json cd = compare_json("--hf-config " + kQwen + req + " --prompt-len 16 --gen-len 3 --tp 2");
  CHECK(deployed.front()["result"]["request"] == cd["rows"].front()["request"]);
  CHECK(deployed.front()["result"]["request"]["decode_steps"] == 2);
}

TEST_CASE("deployment axes: refused before any point runs when they cannot apply", "[sweep][deploy]") {
  auto r = tc_test::run_cli("sweep --model qwen2-0.5b --tp 2 -q");  // a dump: its GEMMs are one chip's already
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--model qwen2-0.5b: the tp / pp / ep axes shard a config's plan") != std::string::npos);
  CHECK(r.out.empty());
  r = tc_test::run_cli("sweep --model " + kQwen + " --tp 1,0 -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("tp: expected a positive integer, found '0'") != std::string::npos);
  r = tc_test::run_cli("sweep --model " + kQwen + " --tp 8192 -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--tp: expected a list of chip counts 1 .. 4096") != std::string::npos);
  r = tc_test::run_cli("sweep --model " + kQwen + " --ep 2,all -q");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("'all'") != std::string::npos);
  r = tc_test::run_cli("sweep --model " + kQwen + " --gen-len 16777217 -q");
  CHECK(r.exit_code == 2);
}

TEST_CASE("the CSV view has the deployment's and the request's columns", "[sweep][deploy]") {
  const auto r =
      tc_test::run_cli("sweep --model " + kQwen + kShort + " --quant q0f16 --tp 1,2 --gen-len 2 --format csv -q");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string head = lines_of(r.out).front();
  for (const char* col : {"point.tp", "point.gen_len", "result.deployment.decode.collective_bytes",
                          "result.deployment.decode.collective_s", "result.deployment.prefill.per_chip.latency_s",
                          "result.deployment.weight_bytes_per_chip", "result.request.ttft_s", "result.request.tpot_s",
                          "result.request.energy_per_request_j"}) {
    INFO(col);
    CHECK(head.find(col) != std::string::npos);
  }
}
