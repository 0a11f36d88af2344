// Cost-model options and names (cost.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "tenet_cost/cost.hpp"
#include "tenet_cost/error.hpp"

namespace tenet_cost::cost {

Tile parse_tile(const std::string& text) {
  Tile t;
  std::stringstream ss(text);
  std::string item;
  auto bad = [&](const std::string& why) {
    throw InputError("invalid --tile '" + text + "': " + why +
                     "; expected m=<int>,n=<int>,k=<int>[,order=<permutation of mnk>] (any subset)");
  };
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) bad("missing '=' in '" + item + "'");
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    if (key == "order") {
      std::string sorted = val;
      std::sort(sorted.begin(), sorted.end());
      if (sorted != "kmn") bad("order must be a permutation of m, n, k");
      t.order = val;
      continue;
    }
    if (val.empty() || val.size() > 12 ||
        !std::all_of(val.begin(), val.end(), [](unsigned char c) { return std::isdigit(c); }))
      bad("expected a positive integer for " + key);
    const std::int64_t v = std::stoll(val);
    if (v <= 0) bad("tile sizes must be positive");
    if (key == "m")
      t.m = v;
    else if (key == "n")
      t.n = v;
    else if (key == "k")
      t.k = v;
    else
      bad("unknown key '" + key + "' (valid: m, n, k, order)");
  }
  return t;
}

TileRule parse_tile_rule(const std::string& text) {
  TileRule r;
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    r.tile = parse_tile(text);
    return r;
  }
  const std::string target = text.substr(0, colon);
  r.tile = parse_tile(text.substr(colon + 1));
  if (target.empty())
    throw InputError("invalid --tile '" + text + "': expected a function name or a shape MxNxK before ':'");
  // MxNxK (digits separated by 'x') targets a shape; anything else a function name
  std::vector<std::int64_t> dims;
  std::string cur;
  bool shape = true;
  for (const char ch : target + "x") {
    if (ch == 'x') {
      if (cur.empty() || cur.size() > 12) {
        shape = false;
        break;
      }
      dims.push_back(std::stoll(cur));
      cur.clear();
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      cur += ch;
    } else {
      shape = false;
      break;
    }
  }
  if (shape && dims.size() == 3) {
    if (dims[0] <= 0 || dims[1] <= 0 || dims[2] <= 0)
      throw InputError("invalid --tile '" + text + "': shape dims must be positive");
    r.m = dims[0];
    r.n = dims[1];
    r.k = dims[2];
  } else {
    r.function = target;
  }
  return r;
}

double checked_time_limit(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e9)
    throw InputError("--time-limit: expected seconds (a finite number from 0 to 1e9; 0 = no limit), found " +
                     fmt::format("{}", seconds));
  return seconds;
}

std::int64_t checked_engine_points(std::int64_t points) {
  if (points < 1 || points > (std::int64_t{1} << 40))
    throw InputError("--engine-points: expected a number of statement instances from 1 to 2^40, found " +
                     std::to_string(points));
  return points;
}

Timing parse_timing(const std::string& text) {
  if (text == "roofline") return Timing::kRoofline;
  if (text == "pipeline") return Timing::kPipeline;
  throw InputError("--timing: expected roofline | pipeline, found '" + text + "'");
}

std::string to_string(Timing t) { return t == Timing::kPipeline ? "pipeline" : "roofline"; }

Objective parse_objective(const std::string& text) {
  if (text == "latency") return Objective::kLatency;
  if (text == "energy") return Objective::kEnergy;
  if (text == "edp") return Objective::kEdp;
  if (text == "dram") return Objective::kDram;
  throw InputError("unknown objective '" + text + "'; valid: latency, energy, edp, dram");
}

std::string to_string(Objective o) {
  switch (o) {
    case Objective::kLatency: return "latency";
    case Objective::kEnergy: return "energy";
    case Objective::kEdp: return "edp";
    case Objective::kDram: return "dram";
  }
  return "latency";
}

std::string to_string(const Tile& t) {
  return "m=" + std::to_string(t.m) + ",n=" + std::to_string(t.n) + ",k=" + std::to_string(t.k) + ",order=" + t.order;
}

ArrayMethod parse_array_method(const std::string& text) {
  if (text == "auto") return ArrayMethod::kAuto;
  if (text == "engine") return ArrayMethod::kEngine;
  if (text == "closed-form") return ArrayMethod::kClosedForm;
  throw InputError("unknown array model '" + text + "'; valid: auto, engine, closed-form");
}

std::string to_string(ArrayModel m) { return m == ArrayModel::kEngine ? "engine" : "closed-form"; }

std::string to_string(EnergyTerm t) {
  switch (t) {
    case EnergyTerm::kMac: return "mac";
    case EnergyTerm::kDram: return "dram";
    case EnergyTerm::kBuffer: return "buffer";
    case EnergyTerm::kNoc: return "noc";
    case EnergyTerm::kDequant: return "dequant";
    case EnergyTerm::kVector: return "vector";
  }
  return "mac";
}

double EnergyByTerm::sum() const {
  double s = 0;
  for (const double x : j) s += x;
  return s;
}

void EnergyByTerm::add(const EnergyByTerm& o, double times) {
  for (std::size_t i = 0; i < j.size(); ++i) j[i] += o.j[i] * times;
}

std::string to_string(Term t) {
  switch (t) {
    case Term::kCompute: return "compute";
    case Term::kBuffer: return "buffer";
    case Term::kDram: return "dram";
    case Term::kDequant: return "dequant";
    case Term::kVector: return "vector";
    case Term::kStationaryLoad: return "stationary_load";
    case Term::kOutputDrain: return "output_drain";
  }
  return "compute";
}

std::int64_t GemmCost::cycles_of(Term t) const {
  for (const auto& x : terms)
    if (x.term == t) return x.cycles;
  return 0;
}

}  // namespace tenet_cost::cost
