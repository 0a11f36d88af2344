// A report input with every chart kind, for the report tests.
#pragma once

#include <cstdint>
#include <string>

#include "tenet_cost/report_html.hpp"

namespace tc_test {

inline tenet_cost::report::html::ReportDoc sample_doc() {
  using namespace tenet_cost::report::html;
  ReportDoc d;
  d.title = "Llama-2-7B on edge-npu-32x32 (sample)";
  d.assumptions = {{"arch", "edge-npu-32x32"},
                   {"dataflow", "os"},
                   {"timing terms", "compute, buffer, dram, dequant, vector"},
                   {"batch", "1"},
                   {"attention", "dense"},
                   {"schemes", "q0f16, q4f16_1, w8a8"}};
  // scheme, prefill {latency_s, dram_bytes, scale_dram_bytes, energy_j, energy by term}, decode {...}
  d.schemes = {
      {"q0f16", {40.5, 105921000000, 0, 80.8, {}}, {0.8125, 13478000000, 0, 1.7, {}}, {}, ""},
      {"q4f16_1",
       {15.9, 35921000000, 3921000000, 30.25, {{"mac", 20.0}, {"dram", 10.25}}},
       {0.3295, 4803420000, 413000000, 0.86, {{"mac", 0.06}, {"dram", 0.8}}},
       {},
       ""},
      {"w8a8-token-channel", {12.125, 55000000000, 120000000, 22.5, {}}, {0.41, 7000000000, 9000000, 1.0, {}}, {}, ""},
  };

  const std::vector<std::string> terms{"compute", "buffer", "dram", "dequant", "vector"};
  d.breakdowns = {
      {"prefill",
       "q4f16_1",
       terms,
       {{"fused_NT_matmul", 32, {4000000, 1200000, 900000, 300000, 0}, 4000000, "compute"},
        {"fused_NT_matmul1", 32, {11000000, 2500000, 2000000, 800000, 10}, 11000000, "compute"},
        {"attention-qk", 32, {500000, 800000, 2100000, 0, 50000}, 2100000, "dram"}}},
      {"decode",
       "q4f16_1",
       terms,
       {{"fused_NT_matmul", 32, {4000, 1200, 90000, 3000, 0}, 90000, "dram"},
        {"lm_head", 1, {16000, 3000, 260000, 0, 0}, 260000, "dram"}}},
  };
  d.rooflines = {
      {"q4f16_1",
       "fp16",
       1.024e12,
       25.6e9,
       {{"fused_NT_matmul", "prefill", 1099511627776, 6000000000, 1.5},
        {"fused_NT_matmul1", "prefill", 2971215073280, 16000000000, 3.5},
        {"fused_NT_matmul", "decode", 536870912, 270000000, 0.011},
        {"lm_head", "decode", 131072000, 65536000, 0.0026},
        {"zero-bytes", "decode", 1000, 0, 0.001}}},
  };
  d.tradeoff_title = "decode, per token";
  d.tradeoff = {{"q0f16", 0.8125, 1.7, ""},
                {"q4f16_1", 0.3295, 0.86, ""},
                {"w8a8-token-channel", 0.41, 1.0, ""},
                {"fp8-tensor", 0.3, 1.2, ""}};
  return d;
}

}  // namespace tc_test
