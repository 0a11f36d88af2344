// Steps and tokens named honestly (issue 24 item 1): a decode figure of a batch of N sequences is per step (N
// tokens); per token = per step / N. Checked on the table, CSV, JSON and HTML views of one compare at --batch 4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"

using namespace tenet_cost;
using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, sep)) out.push_back(cell);
  return out;
}

struct Compared {
  arch::Arch arch;
  model::CompareResult result;
};

Compared compare_at_batch(std::int64_t batch) {
  model::Phases ph;
  ph.seq_len = 64;
  ph.context = 128;
  ph.batch = batch;
  const std::string cfg = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
  const model::Model plan = model::plan_from_config(cfg, model::load_hf_config(cfg), ph);
  cost::Estimator est(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                      mapping::parse_dataflow("os"));
  auto r = model::compare(est, plan, ph, model::compare_schemes("q0f16,q4f16_1", false));
  return Compared{est.arch(), std::move(r)};
}

}  // namespace

TEST_CASE("compare at --batch 4: decode columns say per step, per token = per step / 4") {
  const Compared c = compare_at_batch(4);
  const std::string csv = report::render(c.result, report::Format::kCsv);
  const auto lines = split(csv, '\n');
  REQUIRE(lines.size() == 3);
  const auto head = split(lines[0], ',');
  auto col = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    REQUIRE(it != head.end());
    return static_cast<std::size_t>(it - head.begin());
  };
  // the only per-token column is the energy per token; every other decode figure is per step
  for (const auto& h : head)
    if (h.rfind("decode_", 0) == 0 && h.size() > 4 && h.substr(h.size() - 4) == "/tok") CHECK(h == "decode_mJ/tok");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto row = split(lines[i], ',');
    const double step_mj = std::stod(row[col("decode_mJ/step")]);
    const double tok_mj = std::stod(row[col("decode_mJ/tok")]);
    CHECK(tok_mj == Approx(step_mj / 4).margin(1e-3));
    const double step_ms = std::stod(row[col("decode_ms/step")]);
    CHECK(std::stod(row[col("tok/s")]) == Approx(4 / (step_ms * 1e-3)).epsilon(1e-3));
    CHECK(std::stod(row[col("decode_MB/step")]) > 0);
  }
  const json j = json::parse(report::render(c.result, report::Format::kJson));
  for (const auto& r : j["rows"]) {
    const auto& d = r["decode"];
    CHECK(d["tokens_per_step"] == 4);
    CHECK(d["energy_per_token_j"].get<double>() == Approx(d["energy_j"].get<double>() / 4));
    CHECK(d["tokens_per_s"].get<double>() == Approx(4 / d["latency_s"].get<double>()));
  }
  const std::string table = report::render(c.result, report::Format::kTable);
  CHECK(table.find("batch 4: prefill 4 x 64 prompt tokens, decode step 4 tokens (one per sequence) at context 128") !=
        std::string::npos);
  for (const char* gone : {"decode_ms/tok", "decode_MB/tok"}) CHECK(table.find(gone) == std::string::npos);
  const std::string html = report::html::render(report::html::compare_doc(c.result, {}, c.arch));
  CHECK(html.find("Decode latency per step") != std::string::npos);
  CHECK(html.find("4 whole prompts x 64 tokens = 256 prompt tokens") != std::string::npos);
  CHECK(html.find("one token for each of the 4 sequences (4 tokens) at context 128") != std::string::npos);
  CHECK(html.find("latency per token") == std::string::npos);
}

TEST_CASE("compare at --batch 1: a step is one token") {
  const Compared c = compare_at_batch(1);
  const json j = json::parse(report::render(c.result, report::Format::kJson));
  for (const auto& r : j["rows"])
    CHECK(r["decode"]["energy_per_token_j"].get<double>() == r["decode"]["energy_j"].get<double>());
  CHECK(report::render(c.result, report::Format::kTable).find("decode step 1 token at context 128") !=
        std::string::npos);
}
