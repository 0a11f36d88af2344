// The view of the scheme catalog (`quant list`, docs/quant.md).
#include <nlohmann/json.hpp>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "views.hpp"

namespace tenet_cost::report {

namespace {

using nlohmann::json;

// Bits per element with the group / 2-D block scales (and zero points) spread over their elements; per-row,
// per-tensor and per-head scales left out (bits_formula states them).
double bits_per_element(const quant::TensorFormat& f) {
  double b = static_cast<double>(f.storage_bits) / static_cast<double>(f.elems_per_storage);
  const double meta = static_cast<double>(f.scale_bits + (f.zero_point ? f.zero_bits : 0));
  if (f.scale == quant::Granularity::kGroup && f.group > 0) b += meta / static_cast<double>(f.group);
  if (f.scale == quant::Granularity::kBlock && f.block_n > 0 && f.block_k > 0)
    b += meta / static_cast<double>(f.block_n * f.block_k);
  return b;
}

json format_json(const quant::TensorFormat& f) {
  json x{{"dtype", f.dtype},
         {"storage_bits", f.storage_bits},
         {"elems_per_storage", f.elems_per_storage},
         {"scale", quant::to_string(f.scale)},
         {"group", f.group},
         {"scale_bits", f.scale_bits},
         {"scale_dtype", f.scale_dtype},
         {"tensor_scale_bits", f.tensor_scale_bits},
         {"zero_point", f.zero_point},
         {"bits_formula", quant::bits_formula(f)},
         {"bits_per_element", bits_per_element(f)}};
  if (f.scale == quant::Granularity::kBlock) x["block"] = json::array({f.block_n, f.block_k});
  return x;
}

std::string bits_text(const quant::TensorFormat& f) {
  std::string b = f.dtype;
  if (f.elems_per_storage > 1)
    b += " (" + std::to_string(f.elems_per_storage) + "/" + std::to_string(f.storage_bits) + "b)";
  return b;
}

std::string scale_text(const quant::TensorFormat& f) {
  if (f.scale == quant::Granularity::kNone || f.scale_bits == 0) return "-";
  std::string x = quant::to_string(f.scale);
  if (f.group) x += " " + std::to_string(f.group);
  if (f.scale == quant::Granularity::kBlock) x += " " + std::to_string(f.block_n) + "x" + std::to_string(f.block_k);
  x += " " + (f.scale_bits == 8 && !f.scale_dtype.empty() ? f.scale_dtype : std::to_string(f.scale_bits) + "-bit");
  if (f.tensor_scale_bits) x += " +fp32/tensor";
  if (f.zero_point) x += " +zero";
  return x;
}

}  // namespace

std::string render(const std::vector<quant::Scheme>& schemes, Format fmt) {
  if (fmt == Format::kHtml) throw InputError("--format html is supported by estimate, compare and search only");
  if (fmt == Format::kJson) {
    json j = json::array();
    for (const auto& s : schemes) {
      json x{{"name", s.name},
             {"family", quant::to_string(s.family)},
             {"description", s.description},
             {"model_dtype", s.model_dtype},
             {"compute", to_string(s.compute)},
             {"weight", format_json(s.weight)},
             {"activation", format_json(s.activation)},
             {"dynamic_activation", s.dynamic_activation},
             {"dequant_weight", s.dequant_weight},
             {"output_rescale", s.output_rescale},
             {"quantize_lm_head", s.quantize_lm_head}};
      x["kv"] = s.kv ? format_json(*s.kv) : json(nullptr);
      j.push_back(x);
    }
    return dump_json(j);
  }
  Table t;
  t.headers = {"scheme",     "family",   "weight", "w_scales", "w_bits",
               "activation", "a_scales", "MAC",    "kv",       "description"};
  for (const auto& s : schemes)
    t.rows.push_back({s.name, quant::to_string(s.family), bits_text(s.weight), scale_text(s.weight),
                      quant::bits_formula(s.weight), bits_text(s.activation), scale_text(s.activation),
                      to_string(s.compute), s.kv ? bits_text(*s.kv) + " " + scale_text(*s.kv) : "-", s.description});
  if (fmt == Format::kCsv) return render_csv(t);
  std::string aliases;
  for (const auto& [alias, name] : quant::aliases()) aliases += (aliases.empty() ? "" : ", ") + alias + " = " + name;
  return render_text(t) +
         "\nw_bits: bits per weight element with its scales (a/g: a scale bits per g elements along K; "
         "/row, /tensor: one per output channel or per tensor)\n" +
         quant::valid_forms() + "\naliases (vLLM, aiconfigurator): " + aliases + "\n";
}

}  // namespace tenet_cost::report
