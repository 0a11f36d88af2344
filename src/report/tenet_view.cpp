// The view of tenet::Metrics: TENET's all-metrics text layout and the `tenet --format json` contract.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::report {

using tenet::Access;
using tenet::Metrics;
namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string i(std::int64_t v) { return std::to_string(v); }
nlohmann::ordered_json num(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}
}  // namespace

std::string tenet_text(const Metrics& m) {
  std::string s;
  s += "Delay: In: " + i(m.ingress_delay) + "; Out: " + i(m.egress_delay) + "; Com: " + i(m.compute_delay) + "\n";
  s += "Active PE Num: " + i(m.active_pes) + "; Average: " + fmt("%.2f", m.avg_active_pes) + "\n";
  s += "DomainSize(MACs): " + i(m.macs) + "\n";
  s += "TotalTime(|time domain|): " + i(m.time_stamps) + "\n";
  s += "PENum(|space domain|): " + i(m.active_pes) + "\n";
  s += "MacNumPerPE: " + i(m.macs_per_pe) + "\n";
  s += "Delay(max): " + i(m.max_delay) + "\n";
  for (const auto& t : m.tensors) {
    const bool in = t.access == Access::kRead;
    s += std::string(in ? "Input " : "Output ") + t.name + ": TotalVolume " + i(t.total_volume) + " UniqueVolume " +
         i(t.unique_volume) + " ReuseFactor " + fmt("%.4f", t.reuse_factor) + " TemporalReuseVolume " +
         fmt("%f", t.temporal_reuse);
    if (m.spatial_reuse_computed) {
      s += " SpatialReuseVolume " + fmt("%f", t.spatial_reuse) + " SpatialReuse*PENum " +
           fmt("%.4f", t.spatial_reuse * static_cast<double>(m.active_pes));
    }
    s += " UniqueVolume/ComDelay " +
         fmt("%.4f", static_cast<double>(t.unique_volume) / static_cast<double>(m.compute_delay)) +
         (in ? " IngressDelay " : " EgressDelay ") + i(t.delay) + "\n";
  }
  s += "Energy: " + i(m.energy) + "\n";
  return s;
}

std::string tenet_json(const Metrics& m) {
  nlohmann::ordered_json j;
  j["macs"] = m.macs;
  j["time_stamps"] = m.time_stamps;
  j["active_pes"] = m.active_pes;
  j["space_time_points"] = m.space_time_points;
  j["avg_active_pes"] = num(m.avg_active_pes);
  j["macs_per_pe"] = m.macs_per_pe;
  j["delay"] = {{"ingress", m.ingress_delay}, {"egress", m.egress_delay}, {"compute", m.compute_delay}, {"max", m.max_delay}};
  j["energy"] = m.energy;
  auto arr = nlohmann::ordered_json::array();
  for (const auto& t : m.tensors) {
    nlohmann::ordered_json o;
    o["name"] = t.name;
    o["access"] = t.access == Access::kRead ? "read" : "write";
    o["total_volume"] = t.total_volume;
    o["unique_volume"] = t.unique_volume;
    o["reuse_factor"] = num(t.reuse_factor);
    o["temporal_reuse"] = num(t.temporal_reuse);
    o["spatial_reuse"] = m.spatial_reuse_computed ? num(t.spatial_reuse) : nlohmann::ordered_json(nullptr);
    o["delay"] = t.delay;
    arr.push_back(o);
  }
  j["tensors"] = arr;
  j["counting_method"] = m.counting_method;
  return j.dump(2) + "\n";
}

std::string render(const Metrics& m, Format format) {
  if (format == Format::kHtml) throw InputError("--format html is supported by estimate, compare and search only");
  if (format == Format::kCsv) throw InputError("--format csv is not supported by `tenet`; use table or json");
  return format == Format::kJson ? tenet_json(m) : tenet_text(m);
}

}  // namespace tenet_cost::report
