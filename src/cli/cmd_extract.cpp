// tenet-cost extract DUMP [--entry NAME] [--bind k=v,...] [--format table|json|csv]
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::cli {

namespace {

struct ExtractArgs {
  std::string dump;
  std::string entry;
  std::string bind;
  std::string format = "table";
};

std::string calls_text(const Workload& w) {
  std::string s;
  for (const auto& [e, n] : w.calls) s += (s.empty() ? "" : " ") + e + "=" + std::to_string(n);
  return s.empty() ? "-" : s;
}

std::string quant_text(const QuantInfo& q) {
  if (q.weight_bits == 0) return q.scheme;
  std::string s = q.scheme + " (int" + std::to_string(q.weight_bits);
  if (q.storage_dtype.rfind("float", 0) == 0) s = q.scheme + " (" + q.storage_dtype;
  if (q.group_size > 0) s += " g" + std::to_string(q.group_size);
  else if (q.granularity == "per-block") s += " block " + std::to_string(q.block_n) + "x" + std::to_string(q.block_k);
  else if (q.granularity != "none") s += " " + q.granularity;
  if (!q.weight_layout.empty()) s += " " + q.weight_layout;
  return s + ")";
}

std::string render(const ExtractResult& r, report::Format fmt) {
  if (fmt == report::Format::kJson) return extract_json(r);
  report::Table t;
  const bool csv = fmt == report::Format::kCsv;
  t.headers = {"function", "kind", "batch", "m", "n", "k", "layout", "a", "b", "out", "accum", "weight", "quant"};
  if (csv) {
    t.headers = {"function", "location", "kind", "batch", "m", "n", "k", "layout", "dtype_a", "dtype_b", "dtype_out",
                 "dtype_accum", "weight_operand", "scheme", "granularity", "weight_bits", "group_size",
                 "block_n", "block_k", "storage_dtype", "scale_dtype", "zero_point", "weight_layout", "calls", "shape_known"};
  } else {
    t.headers.push_back("calls");
  }
  for (const auto& w : r.workloads) {
    auto d = [](const Dim& x) { return x.known() ? std::to_string(*x.value) : (x.expr.empty() ? "?" : x.expr); };
    const std::string kind = w.kind == WorkloadKind::kConv ? "conv" : "gemm";
    if (csv) {
      const QuantInfo& q = w.quant;
      t.rows.push_back({w.function, w.loc.str(), kind, d(w.batch), d(w.m), d(w.n), d(w.k), w.layout, w.dtype_a,
                        w.dtype_b, w.dtype_out, w.dtype_accum, w.weight_operand, q.scheme, q.granularity,
                        std::to_string(q.weight_bits), std::to_string(q.group_size), std::to_string(q.block_n),
                        std::to_string(q.block_k), q.storage_dtype,
                        q.scale_dtype, q.zero_point, q.weight_layout, calls_text(w),
                        w.shape_known ? "true" : "false"});
    } else {
      t.rows.push_back({w.function, kind, d(w.batch), d(w.m), d(w.n), d(w.k), w.layout, w.dtype_a, w.dtype_b,
                        w.dtype_out, w.dtype_accum, w.weight_operand, quant_text(w.quant), calls_text(w)});
    }
  }
  if (csv) return report::render_csv(t);
  t.right_align = {false, false, true, true, true, true};
  std::string out = report::render_text(t);
  if (!r.attention.empty()) {
    report::Table a;
    a.headers = {"entry", "attention builtin", "calls", "heads", "kv_heads", "head_dim"};
    a.right_align = {false, false, true, true, true, true};
    auto o = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); };
    for (const auto& s : r.attention)
      a.rows.push_back({s.entry, s.builtin, std::to_string(s.calls), o(s.num_heads), o(s.num_kv_heads), o(s.head_dim)});
    out += "\n" + report::render_text(a);
  }
  if (!r.symbols.empty()) {
    out += "\nunbound symbolic dims:";
    for (const auto& s : r.symbols) out += " " + s;
    out += " (bind with --bind name=N,...)\n";
  }
  if (!r.module_quant.empty()) out += "module quantization: " + r.module_quant + "\n";
  return out;
}

}  // namespace

void add_extract_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ExtractArgs>();
  auto* cmd = app.add_subcommand("extract", "Extract GEMM workloads from a TVMScript / TVM-JSON dump");
  cmd->add_option("DUMP", args->dump, "TVMScript (.py) or TVM JSON dump")->required();
  cmd->add_option("--entry", args->entry, "Only this Relax entry function (prefill, decode, ...)");
  cmd->add_option("--bind", args->bind, "Bind symbolic dims: seq_len=2048,batch_size=1");
  cmd->add_option("--format", args->format, "table | json | csv")->default_str("table");
  cmd->callback([&ctx, args] {
    const report::Format fmt = report::parse_format(args->format);
    ExtractOptions opt;
    if (!args->entry.empty()) opt.entry = args->entry;
    opt.bindings = parse_bindings(args->bind);
    const ir::Module mod = ir::load_module(args->dump);
    const ExtractResult r = extract_workloads(mod, opt);
    if (r.workloads.empty()) std::cerr << "tenet-cost: warning: no GEMM or convolution found in " << args->dump << "\n";
    ctx.result = render(r, fmt);
  });
}

}  // namespace tenet_cost::cli
