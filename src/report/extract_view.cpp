// The view of an ExtractResult: the `extract` table and CSV, and the `extract --format json` contract.
#include <nlohmann/json.hpp>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::report {

namespace {

nlohmann::json dim_json(const Dim& d) {
  if (d.known()) return *d.value;
  if (!d.expr) return nullptr;
  return d.str();
}

nlohmann::json opt_json(const std::optional<std::int64_t>& v) {
  if (v) return *v;
  return nullptr;
}

}  // namespace

std::string extract_json(const ExtractResult& r, int indent) {
  nlohmann::json ws = nlohmann::json::array();
  for (const auto& w : r.workloads) {
    nlohmann::json j;
    j["function"] = w.function;
    j["location"] = w.loc.str();
    j["kind"] = w.kind == WorkloadKind::kConv ? "conv" : "gemm";
    j["source"] = to_string(w.source);
    j["m"] = dim_json(w.m);
    j["n"] = dim_json(w.n);
    j["k"] = dim_json(w.k);
    j["batch"] = dim_json(w.batch);
    if (w.m_padded) j["m_padded"] = dim_json(*w.m_padded);
    if (w.shape_known && w.m.known() && w.n.known() && w.k.known() && w.batch.known()) {
      const i128 macs = static_cast<i128>(*w.batch.value) * *w.m.value * *w.n.value;
      j["macs"] = checked_narrow(macs * *w.k.value, "MACs of " + w.function);
    }
    j["layout"] = w.layout;
    j["dtypes"] = {{"a", to_string(w.dtype_a)},
                   {"b", to_string(w.dtype_b)},
                   {"out", to_string(w.dtype_out)},
                   {"accum", to_string(w.dtype_accum)}};
    j["weight_operand"] = to_string(w.weight_operand);
    const QuantInfo& q = w.quant;
    j["quant"] = {{"scheme", q.scheme},
                  {"granularity", to_string(q.granularity)},
                  {"weight_bits", q.weight_bits},
                  {"group_size", q.group_size},
                  {"storage_dtype", to_string(q.storage_dtype)},
                  {"scale_dtype", to_string(q.scale_dtype)},
                  {"zero_point", to_string(q.zero_point)},
                  {"elems_per_storage", q.elems_per_storage},
                  {"weight_layout", q.weight_layout},
                  {"g_idx", q.has_g_idx}};
    if (q.granularity == QuantGranularity::kBlock) j["quant"]["block"] = {q.block_n, q.block_k};
    if (q.tensor_scale_dtype) j["quant"]["tensor_scale_dtype"] = to_string(q.tensor_scale_dtype);  // NVFP4
    nlohmann::json calls = nlohmann::json::object();
    for (const auto& [e, n] : w.calls) calls[e] = n;
    j["calls"] = calls;
    j["shape_known"] = w.shape_known;
    j["note"] = w.note;
    if (w.kind == WorkloadKind::kConv) {
      nlohmann::json loops = nlohmann::json::array();
      for (std::size_t i = 0; i < w.conv.loop_names.size(); ++i) {
        loops.push_back({{"name", w.conv.loop_names[i]},
                         {"extent", i < w.conv.loop_extents.size() ? dim_json(w.conv.loop_extents[i]) : nullptr},
                         {"kind", i < w.conv.loop_kinds.size() ? std::string(1, w.conv.loop_kinds[i]) : "?"}});
      }
      j["conv"] = {{"spatial_dims", w.conv.spatial_dims},
                   {"loops", loops},
                   {"strides", w.conv.strides},
                   {"dilations", w.conv.dilations}};
    }
    ws.push_back(std::move(j));
  }
  nlohmann::json att = nlohmann::json::array();
  for (const auto& a : r.attention) {
    att.push_back({{"entry", a.entry},
                   {"builtin", a.builtin},
                   {"calls", a.calls},
                   {"num_heads", opt_json(a.num_heads)},
                   {"num_kv_heads", opt_json(a.num_kv_heads)},
                   {"head_dim", opt_json(a.head_dim)}});
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : r.operators) {
    nlohmann::json calls = nlohmann::json::object();
    for (const auto& [e, n] : o.calls) calls[e] = n;
    ops.push_back({{"function", o.function},
                   {"location", o.loc.str()},
                   {"ops", dim_json(o.ops)},
                   {"read_bytes", dim_json(o.read_bytes)},
                   {"write_bytes", dim_json(o.write_bytes)},
                   {"reads", o.reads},
                   {"writes", o.writes},
                   {"calls", calls},
                   {"shape_known", o.shape_known},
                   {"epilogue", o.epilogue},
                   {"note", o.note}});
  }
  nlohmann::json doc;
  doc["workloads"] = ws;
  doc["operators"] = ops;
  doc["entries"] = r.entries;
  doc["attention"] = att;
  doc["symbols"] = r.symbols;
  doc["module_quant"] = r.module_quant;
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // names may hold non-UTF-8 bytes
}

namespace {

std::string calls_text(const std::map<std::string, std::int64_t>& calls) {
  std::string s;
  for (const auto& [e, n] : calls) s += (s.empty() ? "" : " ") + e + "=" + std::to_string(n);
  return s.empty() ? "-" : s;
}

std::string names_text(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s.empty() ? "-" : s;
}

std::string quant_text(const QuantInfo& q) {
  if (q.weight_bits == 0) return q.scheme;
  std::string s = q.scheme + " (int" + std::to_string(q.weight_bits);
  const auto is_float = [](const OptDataType& t, int bits) {
    return t && t->code == DataType::Code::kFloat && (bits == 0 || t->bits == bits);
  };
  if (is_float(q.storage_dtype, 0)) s = q.scheme + " (" + to_string(q.storage_dtype);
  // floats packed in integer words (MXFP4 / NVFP4 in uint32) have a low-precision float scale
  else if (is_float(q.scale_dtype, 8) && q.elems_per_storage > 1) s = q.scheme + " (fp" + std::to_string(q.weight_bits);
  if (q.group_size > 0) s += " g" + std::to_string(q.group_size);
  else if (q.granularity == QuantGranularity::kBlock)
    s += " block " + std::to_string(q.block_n) + "x" + std::to_string(q.block_k);
  else if (q.granularity != QuantGranularity::kNone) s += std::string(" ") + to_string(q.granularity);
  if (q.tensor_scale_dtype) s += " +" + to_string(q.tensor_scale_dtype) + " per tensor";
  if (!q.weight_layout.empty()) s += " " + q.weight_layout;
  return s + ")";
}

}  // namespace

std::string render(const ExtractResult& r, Format fmt) {
  if (fmt == Format::kHtml) throw InputError("--format html is supported by estimate, compare and search only");
  if (fmt == Format::kJson) return extract_json(r);
  Table t;
  const bool csv = fmt == Format::kCsv;
  t.headers = {"function", "kind", "batch", "m", "n", "k", "layout", "a", "b", "out", "accum", "weight", "quant"};
  if (csv) {
    t.headers = {"function",    "location",    "kind",           "batch",   "m",
                 "n",           "k",           "layout",         "dtype_a", "dtype_b",
                 "dtype_out",   "dtype_accum", "weight_operand", "scheme",  "granularity",
                 "weight_bits", "group_size",  "block_n",        "block_k", "storage_dtype",
                 "scale_dtype", "zero_point",  "weight_layout",  "calls",   "shape_known",
                 "ops",         "read_bytes",  "write_bytes"};
  } else {
    t.headers.push_back("calls");
  }
  auto d = [](const Dim& x) { return x.str(); };
  for (const auto& w : r.workloads) {
    const std::string kind = w.kind == WorkloadKind::kConv ? "conv" : "gemm";
    if (csv) {
      const QuantInfo& q = w.quant;
      t.rows.push_back({w.function,
                        w.loc.str(),
                        kind,
                        d(w.batch),
                        d(w.m),
                        d(w.n),
                        d(w.k),
                        w.layout,
                        to_string(w.dtype_a),
                        to_string(w.dtype_b),
                        to_string(w.dtype_out),
                        to_string(w.dtype_accum),
                        to_string(w.weight_operand),
                        q.scheme,
                        to_string(q.granularity),
                        std::to_string(q.weight_bits),
                        std::to_string(q.group_size),
                        std::to_string(q.block_n),
                        std::to_string(q.block_k),
                        to_string(q.storage_dtype),
                        to_string(q.scale_dtype),
                        to_string(q.zero_point),
                        q.weight_layout,
                        calls_text(w.calls),
                        w.shape_known ? "true" : "false",
                        "",
                        "",
                        ""});
    } else {
      t.rows.push_back({w.function, kind, d(w.batch), d(w.m), d(w.n), d(w.k), w.layout, to_string(w.dtype_a),
                        to_string(w.dtype_b), to_string(w.dtype_out), to_string(w.dtype_accum),
                        to_string(w.weight_operand), quant_text(w.quant), calls_text(w.calls)});
    }
  }
  if (csv) {
    // operators: kind "op" (a GEMM's fused epilogue: "epilogue"), the GEMM columns empty, their figures in the
    // last three
    for (const auto& o : r.operators) {
      std::vector<std::string> row(t.headers.size());
      row[0] = o.function;
      row[1] = o.loc.str();
      row[2] = o.epilogue ? "epilogue" : "op";
      row[row.size() - 5] = calls_text(o.calls);
      row[row.size() - 4] = o.shape_known ? "true" : "false";
      row[row.size() - 3] = d(o.ops);
      row[row.size() - 2] = d(o.read_bytes);
      row[row.size() - 1] = d(o.write_bytes);
      t.rows.push_back(std::move(row));
    }
    return render_csv(t);
  }
  t.right_align = {false, false, true, true, true, true};
  std::string out = render_text(t);
  if (!r.operators.empty()) {
    Table o;
    o.headers = {"operator", "ops", "read bytes", "write bytes", "reads", "writes", "calls"};
    o.right_align = {false, true, true, true};
    for (const auto& x : r.operators)
      o.rows.push_back({x.function + (x.epilogue ? " (epilogue)" : ""), d(x.ops), d(x.read_bytes), d(x.write_bytes),
                        names_text(x.reads), names_text(x.writes), calls_text(x.calls)});
    out += "\n" + render_text(o);
  }
  if (!r.attention.empty()) {
    Table a;
    a.headers = {"entry", "attention builtin", "calls", "heads", "kv_heads", "head_dim"};
    a.right_align = {false, false, true, true, true, true};
    auto o = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); };
    for (const auto& s : r.attention)
      a.rows.push_back({s.entry, s.builtin, std::to_string(s.calls), o(s.num_heads), o(s.num_kv_heads), o(s.head_dim)});
    out += "\n" + render_text(a);
  }
  if (!r.symbols.empty()) {
    out += "\nunbound symbolic dims:";
    for (const auto& s : r.symbols) out += " " + s;
    out += " (bind with --bind name=N,...)\n";
  }
  if (!r.module_quant.empty()) out += "module quantization: " + r.module_quant + "\n";
  return out;
}

}  // namespace tenet_cost::report
