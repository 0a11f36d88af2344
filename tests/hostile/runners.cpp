// In-process runners of the hostile-input suite (runners.hpp).
#include "hostile/runners.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/model.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/tenet.hpp"

namespace tc_hostile {
namespace fs = std::filesystem;
using namespace tenet_cost;
using nlohmann::json;

namespace {

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string extract(const ir::Module& m) {
  ExtractOptions opt;
  opt.bindings = {{"n", 7}, {"m", 5}, {"seq_len", 16}, {"batch_size", 2}};
  return report::extract_json(extract_workloads(m, opt), -1);
}

std::string hf(const std::string& text, const std::string& name) {
  const auto cfg = model::parse_hf_config(text, name);
  model::Phases ph;
  ph.seq_len = 7;
  ph.context = 9;
  json out = json::array();
  for (const auto& g : model::workloads_from_config(cfg, ph))
    out.push_back({g.function, g.calls, g.shape.batch, g.shape.m, g.shape.n, g.shape.k});
  return out.dump();
}

std::string arch_json(const std::string& text, const std::string& name) {
  const arch::Arch a = arch::parse_arch(text, name);
  return json{{"rows", a.rows}, {"cols", a.cols}, {"buffer", a.buffer_bytes}, {"clock", a.clock_mhz}}.dump();
}

std::string tenet_run(const std::string& pe, const std::string& s, const std::string& m) {
  const tenet::Problem p = tenet::load_problem(pe, s, m);
  tenet::AnalyzeOptions o;
  o.max_instance_points = 200'000;  // bounded per case: a mutated extent of 2^62 is refused, not counted
  o.max_work = 20'000'000;
  o.time_limit_s = 5;
  return report::tenet_json(tenet::analyze(p, o));
}

// Every number of a JSON value is finite and non-negative.
bool all_non_negative(const json& j, std::string& where) {
  if (j.is_number_float()) return std::isfinite(j.get<double>()) && j.get<double>() >= 0;
  if (j.is_number_integer()) return j.get<std::int64_t>() >= 0;
  if (j.is_array() || j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!all_non_negative(*it, where)) {
        if (j.is_object()) where = it.key() + (where.empty() ? "" : "." + where);
        return false;
      }
  }
  return true;
}

}  // namespace

Outcome run(const Fixture& f, const std::string& bytes, const std::string& dir) {
  const std::string name = dir + "/" + fs::path(f.path).filename().string();
  Outcome o;
  try {
    switch (f.format) {
      case Format::kTvmScript: o.text = extract(ir::parse_tvmscript(bytes, name)); break;
      case Format::kTvmJson: o.text = extract(ir::read_tvm_json(bytes, name)); break;
      case Format::kArch: o.text = arch_json(bytes, name); break;
      case Format::kHfConfig: o.text = hf(bytes, name); break;
      default: {
        write_file(name, bytes);
        auto other = [&](const std::string& p) -> std::string {
          if (p == f.path) return std::string{name};  // a copy: name is the caller's
          std::string copy = dir + "/orig_" + fs::path(p).filename().string();
          if (!fs::exists(copy)) write_file(copy, read_all(p));
          return copy;
        };
        o.text = tenet_run(other(f.pe), other(f.statement), other(f.mapping));
      }
    }
  } catch (const InputError& e) {
    o.kind = Outcome::Kind::kInputError;
    o.text = e.what();
  } catch (const std::exception& e) {
    o.kind = Outcome::Kind::kOtherException;
    o.text = e.what();
  }
  return o;
}

std::vector<Fixture> fixtures(const std::string& src, const std::string& shared) {
  std::vector<Fixture> out;
  auto each = [](const std::string& dir, const std::string& ext, auto&& add) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path().extension() == ext) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& p : files) add(p);
  };
  auto add_as = [&](Format fmt) { return [&out, fmt](const std::string& p) { out.push_back({fmt, p, "", "", ""}); }; };
  each(src + "/tests/fixtures/extract", ".py", [&](const std::string& p) {
    if (fs::path(p).filename().string().rfind("make_", 0) != 0) add_as(Format::kTvmScript)(p);
  });
  each(src + "/workloads", ".py", add_as(Format::kTvmScript));
  each(src + "/tests/fixtures/ir_json", ".json", add_as(Format::kTvmJson));
  each(src + "/tests/fixtures/extract", ".json", add_as(Format::kTvmJson));
  each(src + "/configs/arch", ".json", add_as(Format::kArch));
  each(src + "/tests/fixtures/configs", ".json", add_as(Format::kHfConfig));
  each(src + "/workloads", ".json", add_as(Format::kHfConfig));
  const std::string small = src + "/tests/fixtures/tenet/small/";
  for (const char* t : {"g", "c", "j"}) {
    const std::string pe = small + "sys4.p", s = small + t + ".s", m = small + t + "_os.m";
    out.push_back({Format::kTenetStatement, s, pe, s, m});
    out.push_back({Format::kTenetMapping, m, pe, s, m});
  }
  out.push_back({Format::kTenetPe, small + "sys4.p", small + "sys4.p", small + "g.s", small + "g_os.m"});
  if (!shared.empty()) {
    each(shared + "/real", ".py", add_as(Format::kTvmScript));
    each(shared + "/real", ".json", add_as(Format::kTvmJson));
  }
  return out;
}

Verdict judge(const Outcome& o, const std::string& file_name, bool has_lines, const Outcome& original,
              bool same_value) {
  switch (o.kind) {
    case Outcome::Kind::kOtherException: return {true, "not an InputError: " + o.text};
    case Outcome::Kind::kInputError: {
      if (o.text.size() > 300)
        return {true, "message of " + std::to_string(o.text.size()) + " characters; " + o.text.substr(0, 400)};
      const auto at = o.text.find(file_name);
      if (at == std::string::npos) return {false, "message does not name the file; " + o.text};
      static const std::regex kLine("^[^:]*:[0-9]+");
      if (has_lines && !std::regex_search(o.text.substr(at + file_name.size(), 40), kLine))
        return {false, "no line after the file name; " + o.text};
      return {};
    }
    case Outcome::Kind::kOk: break;
  }
  const json j = json::parse(o.text);
  std::string where;
  if (!all_non_negative(j, where))
    return {true, "negative or non-finite number at " + where + ": " + o.text.substr(0, 300)};
  if (same_value && original.kind == Outcome::Kind::kOk && o.text != original.text)
    return {true, "accepted with a different result"};
  return {};
}

}  // namespace tc_hostile
