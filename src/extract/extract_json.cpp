// JSON rendering of an ExtractResult (the `extract --format json` contract).
#include <nlohmann/json.hpp>

#include "tenet_cost/checked.hpp"
#include "tenet_cost/extract.hpp"

namespace tenet_cost {

namespace {

nlohmann::json dim_json(const Dim& d) {
  if (d.known()) return *d.value;
  if (d.expr.empty() || d.expr == "?") return nullptr;
  return d.expr;
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
    j["source"] = w.source;
    j["m"] = dim_json(w.m);
    j["n"] = dim_json(w.n);
    j["k"] = dim_json(w.k);
    j["batch"] = dim_json(w.batch);
    if (w.shape_known && w.m.known() && w.n.known() && w.k.known() && w.batch.known()) {
      const i128 macs = static_cast<i128>(*w.batch.value) * *w.m.value * *w.n.value;
      j["macs"] = checked_narrow(macs * *w.k.value, "MACs of " + w.function);
    }
    j["layout"] = w.layout;
    j["dtypes"] = {{"a", w.dtype_a}, {"b", w.dtype_b}, {"out", w.dtype_out}, {"accum", w.dtype_accum}};
    j["weight_operand"] = w.weight_operand;
    const QuantInfo& q = w.quant;
    j["quant"] = {{"scheme", q.scheme},
                  {"granularity", q.granularity},
                  {"weight_bits", q.weight_bits},
                  {"group_size", q.group_size},
                  {"storage_dtype", q.storage_dtype},
                  {"scale_dtype", q.scale_dtype},
                  {"zero_point", q.zero_point},
                  {"elems_per_storage", q.elems_per_storage},
                  {"weight_layout", q.weight_layout},
                  {"g_idx", q.has_g_idx}};
    if (q.granularity == "per-block") j["quant"]["block"] = {q.block_n, q.block_k};
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
  nlohmann::json doc;
  doc["workloads"] = ws;
  doc["entries"] = r.entries;
  doc["attention"] = att;
  doc["symbols"] = r.symbols;
  doc["module_quant"] = r.module_quant;
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // names may hold non-UTF-8 bytes
}

}  // namespace tenet_cost
