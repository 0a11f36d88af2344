// estimate, compare and quant subcommands (docs/estimate-formats.md, docs/model.md, docs/quant.md).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "commands.hpp"
#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/estimate.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/report.hpp"

#ifndef TC_SOURCE_DIR
#define TC_SOURCE_DIR ""
#endif

namespace tenet_cost::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tenet_cost::estimate;

const char* kDefaultModel = "llama-2-7b";
const char* kDefaultSchemes = "q0f16,q4f16_1,q4f16_autoawq,w8a8-token-channel,w4a8-g128,fp8-tensor";

struct CommonArgs {
  std::string dump, arch, dataflow = "os", quant, tile, bind, hf_config, format = "table", array_model = "auto";
  std::int64_t seq_len = 2048, context = 2048;
};

void add_common(CLI::App* cmd, CommonArgs& a) {
  cmd->add_option("--arch", a.arch, "Arch preset name or JSON file (default: edge-npu-32x32)");
  cmd->add_option("--dataflow", a.dataflow, "os | ws | is | ncf | a TENET .m mapping file (default: os)");
  cmd->add_option("--tile", a.tile, "Buffer tile m=..,n=..,k=..[,order=mnk] (default: chosen to fit)");
  cmd->add_option("--bind", a.bind, "Bind symbolic dims, e.g. batch_size=4,nseq=4");
  cmd->add_option("--seq-len", a.seq_len, "Prefill tokens (default 2048)");
  cmd->add_option("--context", a.context, "Decode context length (default 2048)");
  cmd->add_option("--hf-config", a.hf_config, "Hugging Face config.json: model workloads without a dump, or heads for attention");
  cmd->add_option("--format", a.format, "table | json | csv");
  cmd->add_option("--array-model", a.array_model, "auto | engine | closed-form (PE array <-> buffer level)");
}

struct Model {
  std::string name;
  std::vector<ModelGemm> gemms;
};

std::string workloads_dir() { return (fs::path(arch::data_root()) / "workloads").string(); }

Model load_model(const CommonArgs& a, bool allow_default) {
  Phases ph;
  ph.seq_len = a.seq_len;
  ph.context = a.context;
  if (!a.bind.empty()) ph.bindings = parse_bindings(a.bind);
  std::optional<ModelConfig> cfg;
  if (!a.hf_config.empty()) cfg = parse_hf_config(read_file(a.hf_config, 1 << 24), a.hf_config);
  std::string dump = a.dump;
  if (dump.empty() && cfg) return Model{fs::path(a.hf_config).parent_path().filename().string(), workloads_from_config(*cfg, ph)};
  if (dump.empty()) {
    if (!allow_default) throw InputError("expected a DUMP file or --hf-config config.json");
    const fs::path dir = fs::path(workloads_dir()) / kDefaultModel;
    dump = (dir / "q0f16.py").string();
    cfg = parse_hf_config(read_file((dir / "config.json").string(), 1 << 24), (dir / "config.json").string());
    try {
      ExtractResult ex = extract_workloads(ir::load_module(dump), {});
      return Model{kDefaultModel, workloads_from_extract(ex, ph, cfg)};
    } catch (const InputError& e) {
      if (std::string(e.what()).find("not implemented") == std::string::npos) throw;
      spdlog::info("dump front-end not available ({}); using {}/config.json", e.what(), dir.string());
      return Model{kDefaultModel, workloads_from_config(*cfg, ph)};
    }
  }
  ExtractOptions eo;
  ExtractResult ex = extract_workloads(ir::load_module(dump), eo);
  auto gemms = workloads_from_extract(ex, ph, cfg);
  if (gemms.empty()) throw InputError(dump + ": no GEMM workloads found");
  return Model{fs::path(dump).filename().string(), std::move(gemms)};
}

Estimator make_estimator(const CommonArgs& a) {
  Options o;
  if (!a.tile.empty()) o.tile = parse_tile(a.tile);
  o.method = parse_array_method(a.array_model);
  return Estimator(arch::load_arch(a.arch.empty() ? arch::default_arch() : a.arch), arch::parse_dataflow(a.dataflow), o);
}

std::string mb(std::int64_t bytes) { return report::fixed(static_cast<double>(bytes) / 1e6, 2); }

json tensor_json(const TensorCost& t) {
  json j;
  j["name"] = t.name;
  j["role"] = t.role;
  if (t.bits_num % t.bits_den == 0)
    j["bits"] = t.bits_num / t.bits_den;
  else
    j["bits"] = static_cast<double>(t.bits_num) / static_cast<double>(t.bits_den);
  j["dram_bytes"] = t.dram_bytes;
  j["buffer_bytes"] = t.buffer_bytes;
  j["dram_elements"] = t.dram_elems;
  j["buffer_elements"] = t.buffer_elems;
  j["total_accesses"] = t.total_elems;
  return j;
}

std::string role_name(quant::GemmRole r) {
  switch (r) {
    case quant::GemmRole::kLinear: return "linear";
    case quant::GemmRole::kLinearUnquantized: return "linear-unquantized";
    case quant::GemmRole::kAttnQK: return "attention-qk";
    case quant::GemmRole::kAttnPV: return "attention-pv";
  }
  return "linear";
}

// The keys every estimate/compare JSON document starts with (docs/estimate-formats.md).
json json_header(const Model& model, const Estimator& est, const CommonArgs& a) {
  json j;
  j["model"] = model.name;
  j["arch"] = est.arch().name;
  j["dataflow"] = est.dataflow().name;
  j["seq_len"] = a.seq_len;
  j["context"] = a.context;
  return j;
}

std::string run_estimate(const CommonArgs& a) {
  const auto fmt = report::parse_format(a.format);
  std::optional<quant::Scheme> scheme;
  if (!a.quant.empty()) scheme = quant::parse_scheme(a.quant);
  Estimator est = make_estimator(a);
  const Model model = load_model(a, false);
  const ModelResult r = run_model(est, model.gemms, scheme);
  if (fmt == report::Format::kJson) {
    json j = json_header(model, est, a);
    j["workloads"] = json::array();
    for (const auto& [g, c] : r.rows) {
      json w;
      w["function"] = g.function;
      w["entry"] = g.entry;
      w["phase"] = g.phase;
      w["calls"] = g.calls;
      w["source"] = g.source;
      w["kind"] = role_name(c.shape.role);
      w["shape"] = {{"batch", c.shape.batch}, {"m", c.shape.m}, {"n", c.shape.n}, {"k", c.shape.k}};
      w["scheme"] = scheme ? scheme->name : g.dump_scheme ? g.dump_scheme->name : "q0f16";
      w["precision"] = c.precision;
      w["macs"] = c.macs;
      w["cycles"] = c.cycles;
      w["cycles_by_term"] = {{"compute", c.compute_cycles}, {"buffer", c.buffer_cycles}, {"dram", c.dram_cycles},
                             {"dequant", c.dequant_cycles}, {"vector", c.vector_cycles}};
      w["bound"] = c.bound;
      w["time_stamps"] = c.time_stamps;
      w["latency_s"] = c.latency_s;
      w["energy_j"] = c.energy_j;
      w["utilization"] = c.utilization;
      w["dram_bytes"] = c.dram_bytes;
      w["buffer_bytes"] = c.buffer_bytes;
      w["dequant_ops"] = c.dequant_ops;
      w["vector_ops"] = c.vector_ops;
      w["tile"] = {{"m", c.tile.m}, {"n", c.tile.n}, {"k", c.tile.k}, {"order", c.tile.order}, {"count", c.tiles}};
      w["array_model"] = c.array_method;
      w["tensors"] = json::array();
      for (const auto& t : c.tensors) w["tensors"].push_back(tensor_json(t));
      j["workloads"].push_back(w);
    }
    j["totals"] = json::object();
    for (const auto& [entry, t] : r.totals)
      j["totals"][entry] = {{"macs", t.macs},
                            {"cycles", t.cycles},
                            {"latency_s", t.latency_s},
                            {"dram_bytes", t.dram_bytes},
                            {"scale_dram_bytes", t.scale_dram_bytes},
                            {"buffer_bytes", t.buffer_bytes},
                            {"energy_j", t.energy_j},
                            {"phase", r.entry_phase.at(entry)}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  report::Table t;
  t.headers = {"entry", "function", "calls", "b x m x n x k", "scheme", "prec", "MACs", "cycles", "bound",
               "latency_ms", "DRAM_MB", "scale_MB", "buffer_MB", "util_%", "energy_mJ", "tile"};
  t.right_align = {false, false, true, false, false, false, true, true, false, true, true, true, true, true, true, false};
  const bool csv = fmt == report::Format::kCsv;
  auto num = [&](std::int64_t v) { return csv ? std::to_string(v) : report::grouped(v); };
  for (const auto& [g, c] : r.rows) {
    std::int64_t scale_bytes = 0;
    for (const auto& tc : c.tensors)
      if (tc.role == "scale" || tc.role == "zero_point") scale_bytes += tc.dram_bytes;
    t.rows.push_back({g.entry, g.function, std::to_string(g.calls),
                      std::to_string(c.shape.batch) + "x" + std::to_string(c.shape.m) + "x" + std::to_string(c.shape.n) +
                          "x" + std::to_string(c.shape.k),
                      scheme ? scheme->name : g.dump_scheme ? g.dump_scheme->name : "q0f16", c.precision, num(c.macs),
                      num(c.cycles), c.bound, report::fixed(c.latency_s * 1e3, 4), mb(c.dram_bytes), mb(scale_bytes),
                      mb(c.buffer_bytes), report::fixed(c.utilization * 100, 1), report::fixed(c.energy_j * 1e3, 4),
                      std::to_string(c.tile.m) + "x" + std::to_string(c.tile.n) + "x" + std::to_string(c.tile.k) + ":" +
                          c.tile.order});
  }
  if (csv) return report::render_csv(t);
  std::string out = report::render_text(t);
  report::Table tot;
  tot.headers = {"entry", "phase", "MACs", "cycles", "latency_ms", "DRAM_MB", "scale_MB", "energy_mJ"};
  tot.right_align = {false, false, true, true, true, true, true, true};
  for (const auto& [entry, x] : r.totals)
    tot.rows.push_back({entry, r.entry_phase.at(entry), report::grouped(x.macs), report::grouped(x.cycles),
                        report::fixed(x.latency_s * 1e3, 3), mb(x.dram_bytes), mb(x.scale_dram_bytes),
                        report::fixed(x.energy_j * 1e3, 3)});
  out += "\nTotals per entry (per-call values x calls; arch " + est.arch().name + ", dataflow " + est.dataflow().name +
         ", prefill " + std::to_string(a.seq_len) + " tokens, decode at context " + std::to_string(a.context) + "):\n";
  out += report::render_text(tot);
  return out;
}

struct PhaseSum {
  double latency_s = 0, energy_j = 0;
  std::int64_t dram = 0, scale = 0;
};

class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), start_(std::chrono::steady_clock::now()), tty_(isatty(2) != 0) {}
  void step(std::size_t done, const std::string& what) {
    if (!tty_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (s < 1.0) return;
    shown_ = true;
    std::fprintf(stderr, "\rcompare: %zu/%zu schemes (%s)   ", done, total_, what.c_str());
    std::fflush(stderr);
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r%60s\r", "");
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
  bool tty_;
  bool shown_ = false;
};

std::string run_compare(const CommonArgs& a) {
  const auto fmt = report::parse_format(a.format);
  std::vector<std::optional<quant::Scheme>> schemes;
  // a DUMP given without --quant: its own quantization is the first row (the baseline of the ratios)
  if (!a.dump.empty() && a.quant.empty()) schemes.push_back(std::nullopt);
  {
    for (auto& s : quant::parse_scheme_list(a.quant.empty() ? kDefaultSchemes : a.quant)) schemes.push_back(std::move(s));
    if (schemes.empty() || (schemes.size() == 1 && !schemes[0]))
      throw InputError("--quant needs at least one scheme (valid schemes: `tenet-cost quant list`)");
  }
  Estimator est = make_estimator(a);
  const Model model = load_model(a, true);
  struct Row {
    std::string scheme;
    PhaseSum prefill, decode;
  };
  std::vector<Row> rows;
  Progress progress(schemes.size());
  for (const auto& s : schemes) {
    const ModelResult r = run_model(est, model.gemms, s);
    std::string name;
    if (s) {
      name = s->name;
    } else {
      std::set<std::string> found;
      for (const auto& g : model.gemms)
        if (g.dump_scheme) found.insert(g.dump_scheme->name);
      for (const auto& f : found) name += (name.empty() ? "" : "+") + f;
      name = (name.empty() ? std::string("q0f16") : name) + " (dump)";
    }
    Row row{name, {}, {}};
    for (const auto& [entry, t] : r.totals) {
      const std::string& phase = r.entry_phase.at(entry);
      PhaseSum* p = phase == "prefill" ? &row.prefill : phase == "decode" ? &row.decode : nullptr;
      if (!p) continue;
      p->latency_s += t.latency_s;
      p->energy_j += t.energy_j;
      p->dram += t.dram_bytes;
      p->scale += t.scale_dram_bytes;
    }
    rows.push_back(row);
    progress.step(rows.size(), name);
  }
  auto ratio = [](double a_, double b_) { return b_ > 0 ? a_ / b_ : 0.0; };
  const Row& first = rows.front();
  if (fmt == report::Format::kJson) {
    json j = json_header(model, est, a);
    j["rows"] = json::array();
    for (const auto& r : rows) {
      json x;
      x["scheme"] = r.scheme;
      x["prefill"] = {{"latency_s", r.prefill.latency_s},
                      {"dram_bytes", r.prefill.dram},
                      {"scale_dram_bytes", r.prefill.scale},
                      {"energy_j", r.prefill.energy_j},
                      {"tokens_per_s", ratio(static_cast<double>(a.seq_len), r.prefill.latency_s)}};
      x["decode"] = {{"latency_s", r.decode.latency_s},
                     {"tokens_per_s", ratio(1.0, r.decode.latency_s)},
                     {"dram_bytes", r.decode.dram},
                     {"scale_dram_bytes", r.decode.scale},
                     {"energy_j", r.decode.energy_j}};
      x["scale_traffic_share"] = ratio(static_cast<double>(r.decode.scale), static_cast<double>(r.decode.dram));
      x["prefill_scale_traffic_share"] = ratio(static_cast<double>(r.prefill.scale), static_cast<double>(r.prefill.dram));
      x["speedup_vs_first"] = ratio(first.decode.latency_s, r.decode.latency_s);
      x["prefill_speedup_vs_first"] = ratio(first.prefill.latency_s, r.prefill.latency_s);
      x["traffic_ratio_vs_first"] = ratio(static_cast<double>(r.decode.dram), static_cast<double>(first.decode.dram));
      x["prefill_traffic_ratio_vs_first"] =
          ratio(static_cast<double>(r.prefill.dram), static_cast<double>(first.prefill.dram));
      j["rows"].push_back(x);
    }
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  report::Table t;
  t.headers = {"scheme", "prefill_ms", "prefill_GB", "prefill_J", "decode_ms/tok", "tok/s", "decode_MB/tok",
               "decode_mJ/tok", "decode_scale_%", "speedup", "traffic_ratio"};
  t.right_align = {false, true, true, true, true, true, true, true, true, true, true};
  for (const auto& r : rows) {
    t.rows.push_back({r.scheme, report::fixed(r.prefill.latency_s * 1e3, 1),
                      report::fixed(static_cast<double>(r.prefill.dram) / 1e9, 3), report::fixed(r.prefill.energy_j, 3),
                      report::fixed(r.decode.latency_s * 1e3, 2), report::fixed(ratio(1.0, r.decode.latency_s), 2),
                      mb(r.decode.dram), report::fixed(r.decode.energy_j * 1e3, 2),
                      report::fixed(100.0 * ratio(static_cast<double>(r.decode.scale), static_cast<double>(r.decode.dram)), 2),
                      report::fixed(ratio(first.decode.latency_s, r.decode.latency_s), 2),
                      report::fixed(ratio(static_cast<double>(r.decode.dram), static_cast<double>(first.decode.dram)), 3)});
  }
  if (fmt == report::Format::kCsv) return report::render_csv(t);
  return "model " + model.name + " on " + est.arch().name + " (" + est.dataflow().name + " dataflow), prefill " +
         std::to_string(a.seq_len) + " tokens, decode at context " + std::to_string(a.context) +
         "; speedup and traffic ratio: decode, vs " + first.scheme + "\n" + report::render_text(t);
}

std::string run_quant_list(const std::string& format) {
  const auto fmt = report::parse_format(format);
  const auto schemes = quant::catalog();
  if (fmt == report::Format::kJson) {
    json j = json::array();
    for (const auto& s : schemes) {
      auto fmtj = [](const quant::TensorFormat& f) {
        json x{{"dtype", f.dtype},
               {"storage_bits", f.storage_bits},
               {"elems_per_storage", f.elems_per_storage},
               {"scale", quant::to_string(f.scale)},
               {"group", f.group},
               {"scale_bits", f.scale_bits},
               {"zero_point", f.zero_point}};
        if (f.scale == quant::Granularity::kBlock) x["block"] = json::array({f.block_n, f.block_k});
        return x;
      };
      json x{{"name", s.name},          {"family", s.family},         {"description", s.description},
             {"model_dtype", s.model_dtype}, {"compute", s.compute},  {"weight", fmtj(s.weight)},
             {"activation", fmtj(s.activation)}, {"dynamic_activation", s.dynamic_activation},
             {"dequant_weight", s.dequant_weight}, {"output_rescale", s.output_rescale},
             {"quantize_lm_head", s.quantize_lm_head}};
      x["kv"] = s.kv ? fmtj(*s.kv) : json(nullptr);
      j.push_back(x);
    }
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  report::Table t;
  t.headers = {"scheme", "family", "weight", "w_scales", "activation", "a_scales", "MAC", "kv", "description"};
  for (const auto& s : schemes) {
    auto bits = [](const quant::TensorFormat& f) {
      std::string b = f.dtype;
      if (f.elems_per_storage > 1) b += " (" + std::to_string(f.elems_per_storage) + "/" + std::to_string(f.storage_bits) + "b)";
      return b;
    };
    auto sc = [](const quant::TensorFormat& f) {
      if (f.scale == quant::Granularity::kNone || f.scale_bits == 0) return std::string("-");
      std::string x = quant::to_string(f.scale);
      if (f.group) x += " " + std::to_string(f.group);
      if (f.scale == quant::Granularity::kBlock)
        x += " " + std::to_string(f.block_n) + "x" + std::to_string(f.block_k);
      x += " " + std::to_string(f.scale_bits) + "-bit";
      if (f.zero_point) x += " +zero";
      return x;
    };
    t.rows.push_back({s.name, s.family, bits(s.weight), sc(s.weight), bits(s.activation), sc(s.activation), s.compute,
                      s.kv ? bits(*s.kv) + " " + sc(*s.kv) : "-", s.description});
  }
  if (fmt == report::Format::kCsv) return report::render_csv(t);
  return report::render_text(t) + "\n" + quant::valid_forms() + "\n";
}

}  // namespace

void add_estimate_commands(CLI::App& app, Context& ctx) {
  if (std::string(TC_SOURCE_DIR).size() > 0) arch::set_data_root(TC_SOURCE_DIR);
  static CommonArgs est_args, cmp_args;
  auto* est = app.add_subcommand("estimate", "Per-workload cost of a model on an accelerator");
  est->add_option("DUMP", est_args.dump, "TVMScript / TVM JSON dump (or use --hf-config)");
  est->add_option("--quant", est_args.quant, "Quantization scheme (default: the dump's own)");
  add_common(est, est_args);
  est->callback([&ctx] { ctx.result = run_estimate(est_args); });

  auto* cmp = app.add_subcommand("compare", "Compare quantization schemes on one model and accelerator");
  cmp->add_option("DUMP", cmp_args.dump, "Dump (default: the shipped Llama-2-7B)");
  cmp->add_option("--quant", cmp_args.quant, std::string("Comma-separated schemes (default: ") + kDefaultSchemes + ")");
  add_common(cmp, cmp_args);
  cmp->callback([&ctx] { ctx.result = run_compare(cmp_args); });

  static std::string quant_format = "table";
  auto* q = app.add_subcommand("quant", "Quantization scheme catalog");
  auto* list = q->add_subcommand("list", "List the known schemes and the generic grammar");
  list->add_option("--format", quant_format, "table | json | csv");
  q->require_subcommand(1);
  list->callback([&ctx] { ctx.result = run_quant_list(quant_format); });
}

}  // namespace tenet_cost::cli
