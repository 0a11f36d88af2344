// Cost-model options and names (cost.hpp).
#include <algorithm>
#include <sstream>

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
