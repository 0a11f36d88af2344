// The html views over real results: the numbers in the charts equal the JSON result of the same run
// (compare --format json / estimate --format json), exactly.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/mapping.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/report_html.hpp"
#include "tenet_cost/search.hpp"
#include "test_support.hpp"

using namespace tenet_cost;
using nlohmann::json;

namespace {

struct Run {
  cost::Estimator est;
  model::Phases ph;
  model::Model plan;
};

Run qwen_run() {
  model::Phases ph;
  ph.seq_len = 128;
  ph.context = 256;
  const std::string cfg = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
  return Run{cost::Estimator(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                             mapping::parse_dataflow("os")),
             ph, model::plan_from_config(cfg, model::load_hf_config(cfg), ph)};
}

/// Every `<tag ... attr="value"` of elements carrying `key`, as attribute maps (values unescaped for &amp; only).
std::vector<std::map<std::string, std::string>> elements_with(const std::string& html, const std::string& figure_id,
                                                              const std::string& key) {
  const auto start = html.find("id=\"" + figure_id + "\"");
  REQUIRE(start != std::string::npos);
  const std::string part = html.substr(start, html.find("</figure>", start) - start);
  static const std::regex tag_re(R"re(<[a-z]+((?:\s+[A-Za-z-]+="[^"]*")*)\s*/?>)re");
  static const std::regex attr_re(R"re(([A-Za-z-]+)="([^"]*)")re");
  std::vector<std::map<std::string, std::string>> out;
  for (auto it = std::sregex_iterator(part.begin(), part.end(), tag_re); it != std::sregex_iterator(); ++it) {
    std::map<std::string, std::string> a;
    const std::string s = (*it)[1].str();
    for (auto jt = std::sregex_iterator(s.begin(), s.end(), attr_re); jt != std::sregex_iterator(); ++jt)
      a[(*jt)[1].str()] = (*jt)[2].str();
    if (a.count(key)) out.push_back(std::move(a));
  }
  return out;
}

/// The JSON number as the html writes it: integers as digits, doubles as shortest round-trip text.
std::string text_of(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return report::html::number(v.get<double>());
}

}  // namespace

TEST_CASE("compare --format html: charts carry the JSON result's numbers") {
  auto run = qwen_run();
  const auto schemes = model::compare_schemes("q0f16,q4f16_1,w8a8-token-channel", false);
  const auto result = model::compare(run.est, run.plan, run.ph, schemes);
  const json j = json::parse(report::render(result, report::Format::kJson));
  std::vector<model::EstimateResult> per;
  per.reserve(schemes.size());
  for (const auto& s : schemes) per.push_back(model::estimate(run.est, run.plan, run.ph, s));
  const std::string html = report::html::render(report::html::compare_doc(result, per, run.est.arch()));

  const auto pre = elements_with(html, "cmp-prefill-latency", "data-latency-s");
  const auto dec = elements_with(html, "cmp-decode-latency", "data-latency-s");
  const auto dram = elements_with(html, "cmp-decode-dram", "data-dram-bytes");
  const auto pdram = elements_with(html, "cmp-prefill-dram", "data-dram-bytes");
  const auto en = elements_with(html, "cmp-decode-energy", "data-energy-j");
  const auto pts = elements_with(html, "tradeoff", "data-pareto");
  REQUIRE(j["rows"].size() == 3);
  REQUIRE(pre.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& row = j["rows"][i];
    CHECK(pre[i].at("data-label") == row["scheme"].get<std::string>());
    CHECK(pre[i].at("data-latency-s") == text_of(row["prefill"]["latency_s"]));
    CHECK(dec[i].at("data-latency-s") == text_of(row["decode"]["latency_s"]));
    CHECK(dram[i].at("data-dram-bytes") == text_of(row["decode"]["dram_bytes"]));
    CHECK(dram[i].at("data-scale-dram-bytes") == text_of(row["decode"]["scale_dram_bytes"]));
    CHECK(pdram[i].at("data-dram-bytes") == text_of(row["prefill"]["dram_bytes"]));
    CHECK(en[i].at("data-energy-j") == text_of(row["decode"]["energy_j"]));
    CHECK(pts[i].at("data-latency-s") == text_of(row["decode"]["latency_s"]));
    CHECK(pts[i].at("data-energy-j") == text_of(row["decode"]["energy_j"]));
  }
  // a quantized scheme has scale traffic, drawn as its own part
  CHECK(dram[1].at("data-scale-dram-bytes") != "0");
  // energy bars stacked by term: each part is the JSON's energy_by_term_j, the parts sum to the phase's energy_j
  for (const char* phase : {"prefill", "decode"}) {
    const auto parts = elements_with(html, std::string("cmp-") + phase + "-energy", "data-term");
    REQUIRE(parts.size() == 3 * cost::kEnergyTerms.size());
    for (std::size_t i = 0; i < 3; ++i) {
      const auto& row = j["rows"][i][phase];
      double sum = 0;
      for (std::size_t t = 0; t < cost::kEnergyTerms.size(); ++t) {
        const auto& part = parts[i * cost::kEnergyTerms.size() + t];
        const std::string term = cost::to_string(cost::kEnergyTerms[t]);
        CHECK(part.at("data-term") == term);
        CHECK(part.at("data-value") == text_of(row["energy_by_term_j"][term]));
        sum += row["energy_by_term_j"][term].get<double>();
      }
      CHECK(sum == Approx(row["energy_j"].get<double>()).epsilon(1e-12));
    }
  }
  // one roofline per scheme, breakdowns per (scheme, entry)
  CHECK(html.find("id=\"roofline-2\"") != std::string::npos);
  CHECK(html.find("id=\"roofline-3\"") == std::string::npos);
  CHECK(html == report::html::render(report::html::compare_doc(result, per, run.est.arch())));
}

TEST_CASE("compare --format html on entries that are neither prefill nor decode: their charts, no zero charts") {
  model::Phases ph;
  cost::Estimator est(arch::load_arch(arch::default_arch(), std::string(TC_SOURCE_DIR) + "/configs/arch"),
                      mapping::parse_dataflow("os"));
  const auto plan = model::plan_from_shapes({"64x256x512", "8x128x64"}, ph);
  const auto schemes = model::compare_schemes("q0f16,q4f16_1", false);
  const auto result = model::compare(est, plan, ph, schemes);
  const json j = json::parse(report::render(result, report::Format::kJson));
  const std::string html = report::html::render(report::html::compare_doc(result, {}, est.arch()));
  for (const char* absent : {"cmp-prefill-latency", "cmp-decode-latency", "cmp-prefill-dram", "cmp-decode-energy"})
    CHECK(html.find(std::string("id=\"") + absent + "\"") == std::string::npos);
  const auto lat = elements_with(html, "cmp-entry-0-latency", "data-latency-s");
  const auto dram = elements_with(html, "cmp-entry-0-dram", "data-dram-bytes");
  const auto en = elements_with(html, "cmp-entry-0-energy", "data-energy-j");
  const auto pts = elements_with(html, "tradeoff", "data-pareto");
  REQUIRE(lat.size() == 2);
  REQUIRE(pts.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& e = j["rows"][i]["entries"]["gemm"];
    CHECK(lat[i].at("data-latency-s") == text_of(e["latency_s"]));
    CHECK(dram[i].at("data-dram-bytes") == text_of(e["dram_bytes"]));
    CHECK(dram[i].at("data-scale-dram-bytes") == text_of(e["scale_dram_bytes"]));
    CHECK(en[i].at("data-energy-j") == text_of(e["energy_j"]));
    // the trade-off without a decode phase: every entry, one run each
    CHECK(pts[i].at("data-latency-s") == text_of(e["latency_s"]));
    CHECK(pts[i].at("data-energy-j") == text_of(e["energy_j"]));
  }
  CHECK(html.find("Entry &#39;gemm&#39; latency (one run)") != std::string::npos);
  CHECK(html.find("every entry, one run each") != std::string::npos);
  // the plan's notes and the run's batch are among the page's assumptions
  REQUIRE(!plan.notes.empty());
  CHECK(html.find(plan.notes.front().substr(0, 40)) != std::string::npos);
  CHECK(html.find("sequences (--batch)") != std::string::npos);
  // every scheme must list the same entries
  auto doc = report::html::compare_doc(result, {}, est.arch());
  doc.schemes[1].entries[0].entry = "other";
  CHECK_THROWS_WITH(report::html::render(doc), Catch::Contains("expected entry 'gemm' in scheme"));
}

TEST_CASE("estimate --format html: breakdown and roofline carry the JSON result's numbers") {
  auto run = qwen_run();
  const auto e = model::estimate(run.est, run.plan, run.ph, quant::parse_scheme("q4f16_1"));
  const json j = json::parse(report::render(e, report::Format::kJson));
  const std::string html = report::html::render(report::html::estimate_doc(e, run.est.arch()));
  // breakdowns: entries in workload order, rows in workload order within an entry
  std::vector<std::string> entries;
  for (const auto& w : j["workloads"])
    if (std::find(entries.begin(), entries.end(), w["entry"].get<std::string>()) == entries.end())
      entries.push_back(w["entry"].get<std::string>());
  std::size_t checked = 0;
  for (std::size_t b = 0; b < entries.size(); ++b) {
    const auto rows = elements_with(html, "breakdown-" + std::to_string(b), "data-calls");
    const auto parts = elements_with(html, "breakdown-" + std::to_string(b), "data-term");
    std::size_t r = 0;
    for (const auto& w : j["workloads"]) {
      if (w["entry"] != entries[b]) continue;
      REQUIRE(r < rows.size());
      CHECK(rows[r].at("data-label") == w["function"].get<std::string>());
      CHECK(rows[r].at("data-calls") == text_of(w["calls"]));
      CHECK(rows[r].at("data-cycles") == text_of(w["cycles"]));
      CHECK(rows[r].at("data-bound") == w["bound"].get<std::string>());
      for (std::size_t t = 0; t < 5; ++t) {
        const auto& p = parts[r * 5 + t];
        CHECK(p.at("data-value") == text_of(w["cycles_by_term"][p.at("data-term")]));
        ++checked;
      }
      ++r;
    }
    CHECK(r == rows.size());
  }
  CHECK(checked == 5 * j["workloads"].size());
  // roofline: per (GEMM, entry) totals = per call x calls; latency the same double product
  const auto pts = elements_with(html, "roofline-0", "data-macs");
  std::size_t k = 0;
  for (const auto& w : j["workloads"]) {
    const auto calls = w["calls"].get<std::int64_t>();
    if (w["macs"].get<std::int64_t>() == 0 || w["dram_bytes"].get<std::int64_t>() == 0) continue;
    REQUIRE(k < pts.size());
    CHECK(pts[k].at("data-macs") == std::to_string(w["macs"].get<std::int64_t>() * calls));
    CHECK(pts[k].at("data-dram-bytes") == std::to_string(w["dram_bytes"].get<std::int64_t>() * calls));
    CHECK(pts[k].at("data-latency-s") ==
          report::html::number(w["latency_s"].get<double>() * static_cast<double>(calls)));
    ++k;
  }
  CHECK(k == pts.size());
  // the roofs are the arch's
  const auto& a = run.est.arch();
  CHECK(html.find("data-dram-bytes-per-s=\"" + report::html::number(static_cast<double>(a.dram_mb_per_s) * 1e6) +
                  "\"") != std::string::npos);
}

TEST_CASE("--format html on the CLI: compare and estimate write the page, other commands refuse it") {
  const std::string cfg = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
  const auto c =
      tc_test::run_cli("compare --hf-config " + cfg + " --quant q0f16,q4f16_1 --seq-len 64 --context 64 --format html");
  CHECK(c.exit_code == 0);
  CHECK(c.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(c.out.find("id=\"roofline-1\"") != std::string::npos);
  const auto e =
      tc_test::run_cli("estimate --hf-config " + cfg + " --quant q4f16_1 --seq-len 64 --context 64 --format html");
  CHECK(e.exit_code == 0);
  CHECK(e.out.find("id=\"breakdown-1\"") != std::string::npos);
  const auto q = tc_test::run_cli("quant list --format html");
  CHECK(q.exit_code == 2);
  CHECK(q.err.find("--format html is supported by estimate, compare and search only") != std::string::npos);
}

TEST_CASE("search --format html: each scheme's best configuration and the trade-off carry the JSON result's numbers") {
  auto run = qwen_run();
  search::Options o;
  o.dataflows = search::parse_dataflows("os,ws");
  o.top = 2;
  const auto schemes = model::compare_schemes("q0f16,q4f16_1", false);
  const auto r = search::run(run.est.arch(), run.plan, run.ph, schemes, o);
  const json j = json::parse(report::render(r, report::Format::kJson));
  const std::string html = report::html::render(report::html::search_doc(r, run.est.arch()));
  const auto pre = elements_with(html, "cmp-prefill-latency", "data-latency-s");
  const auto dec = elements_with(html, "cmp-decode-latency", "data-latency-s");
  const auto pts = elements_with(html, "tradeoff", "data-pareto");
  REQUIRE(j["rows"].size() == 2);
  REQUIRE(pre.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& row = j["rows"][i];
    CHECK(pre[i].at("data-label").rfind(row["scheme"].get<std::string>() + " @ ", 0) == 0);
    CHECK(pre[i].at("data-latency-s") == text_of(row["prefill"]["latency_s"]));
    CHECK(dec[i].at("data-latency-s") == text_of(row["decode"]["latency_s"]));
  }
  // every listed configuration is a point; the search's Pareto front is drawn as the front
  CHECK(pts.size() >= r.pareto.size());
  std::set<std::string> on_front;
  for (const auto& p : pts)
    if (p.at("data-pareto") == "true") on_front.insert(p.at("data-label"));
  for (const auto& p : r.pareto) {
    const std::string label =
        p.scheme + " @ " + p.dataflow + " " + std::to_string(p.rows) + "x" + std::to_string(p.cols);
    CHECK(on_front.count(label) == 1);
  }
  CHECK(html == report::html::render(report::html::search_doc(r, run.est.arch())));
  CHECK_THROWS_AS(report::render(r, report::Format::kHtml), InternalError);
  // plain shapes: the entry's charts, no prefill/decode charts of zeros
  const auto shapes = model::plan_from_shapes({"64x256x512"}, run.ph);
  const auto g = search::run(run.est.arch(), shapes, run.ph, schemes, o);
  const json gj = json::parse(report::render(g, report::Format::kJson));
  const std::string ghtml = report::html::render(report::html::search_doc(g, run.est.arch()));
  CHECK(ghtml.find("id=\"cmp-prefill-latency\"") == std::string::npos);
  CHECK(ghtml.find("id=\"cmp-decode-latency\"") == std::string::npos);
  const auto glat = elements_with(ghtml, "cmp-entry-0-latency", "data-latency-s");
  REQUIRE(glat.size() == 2);
  for (std::size_t i = 0; i < 2; ++i)
    CHECK(glat[i].at("data-latency-s") == text_of(gj["rows"][i]["entries"]["gemm"]["latency_s"]));
}

TEST_CASE("compare --format html with a request: the Requests section carries the JSON's request figures",
          "[html][request]") {
  auto run = qwen_run();
  const std::string cfg_path = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/config.json";
  const model::ModelConfig cfg = model::load_hf_config(cfg_path);
  const auto schemes = model::compare_schemes("q0f16,q4f16_1", false);
  model::Phases ph = run.ph;
  ph.seq_len = 128;
  ph.context = 129;
  const model::Request req{128, 4};
  const auto at = [&](const model::Phases& x) { return model::plan_from_config(cfg_path, cfg, x); };
  auto result = model::compare(run.est, at(ph), ph, schemes);
  model::add_requests(result, run.est, at, ph, req, schemes, model::RankBy::kEnergy, cfg);
  const json j = json::parse(report::render(result, report::Format::kJson));
  const std::string html = report::html::render(report::html::compare_doc(result, {}, run.est.arch()));
  CHECK(html.find("<h2>Requests</h2>") != std::string::npos);
  CHECK(html.find("data-key=\"requests (--prompt-len, --gen-len)\"") != std::string::npos);
  const auto ttft = elements_with(html, "req-ttft", "data-ttft-s");
  const auto tpot = elements_with(html, "req-tpot", "data-tpot-s");
  const auto e2e = elements_with(html, "req-e2e", "data-end-to-end-s");
  const auto energy = elements_with(html, "req-energy", "data-energy-per-request-j");
  REQUIRE(ttft.size() == 2);
  REQUIRE(tpot.size() == 2);
  REQUIRE(e2e.size() == 2);
  REQUIRE(energy.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {  // in the rows' (ranked) order
    const auto& r = j["rows"][i];
    CHECK(ttft[i].at("data-label") == r["scheme"].get<std::string>());
    CHECK(ttft[i].at("data-ttft-s") == text_of(r["request"]["ttft_s"]));
    CHECK(tpot[i].at("data-tpot-s") == text_of(r["request"]["tpot_s"]));
    CHECK(e2e[i].at("data-end-to-end-s") == text_of(r["request"]["e2e_s"]));
    CHECK(energy[i].at("data-energy-per-request-j") == text_of(r["request"]["energy_per_request_j"]));
  }
  CHECK(j["rows"][0]["scheme"] == "q4f16_1");  // ranked by energy: the 4-bit weights first
  // no request: no section
  const auto plain = model::compare(run.est, at(ph), ph, schemes);
  CHECK(report::html::render(report::html::compare_doc(plain, {}, run.est.arch())).find("Requests") ==
        std::string::npos);
  // the CLI writes it, its breakdowns in the rows' order, over chips too
  const std::string w = std::string(TC_SOURCE_DIR) + "/workloads/qwen2-0.5b/";
  const auto cli = tc_test::run_cli("compare " + w +
                                    "q4f16_1.py --quant q0f16,q4f16_1 --prompt-len 32 --gen-len 3 "
                                    "--rank-by energy --format html");
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  CHECK(cli.out.find("<h2>Requests</h2>") != std::string::npos);
  CHECK(cli.out.find("entry &#39;decode&#39;, q4f16_1") < cli.out.find("entry &#39;decode&#39;, q0f16"));
  const auto tp = tc_test::run_cli("compare --hf-config " + w +
                                   "config.json --quant q0f16 --tp 1,2 --prompt-len 32 "
                                   "--gen-len 3 --format html");
  INFO(tp.err);
  REQUIRE(tp.exit_code == 0);
  CHECK(elements_with(tp.out, "req-ttft", "data-ttft-s").size() == 2);
}
