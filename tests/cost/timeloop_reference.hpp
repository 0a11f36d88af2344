// Readers of Timeloop's printed outputs (tests/fixtures/reference/timeloop): the mapping it evaluated
// (timeloop-model.map.txt), the problem instance (*.prob.yaml) and its counters (timeloop-model.stats.txt).
// The tests take every input from these files; only the projections of each problem shape are written here.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "cost/timeloop.hpp"

namespace timeloop_ref {

namespace tl = tenet_cost::cost::timeloop;

inline std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

/// `instance:` extents of a problem YAML ("    R: 3").
inline std::map<std::string, std::int64_t> instance(const std::string& path) {
  std::map<std::string, std::int64_t> out;
  bool in_instance = false;
  const std::regex entry(R"(^\s+([A-Za-z]\w*): (\d+)\s*$)");
  for (const auto& line : lines_of(path)) {
    if (line.find("instance:") != std::string::npos) {
      in_instance = true;
      continue;
    }
    std::smatch mt;
    if (in_instance && std::regex_match(line, mt, entry)) out[mt[1]] = std::stoll(mt[2]);
  }
  return out;
}

/// A problem from its dimension names (in order), the YAML's extents and the projections by dimension name
/// ("R+P" is a sliding-window axis).
struct SpaceSpec {
  std::string name;
  std::vector<std::string> axes;
  bool read_write = false;
};

inline tl::Problem problem(const std::vector<std::string>& dims, const std::map<std::string, std::int64_t>& ext,
                           const std::vector<SpaceSpec>& spaces) {
  tl::Problem p;
  p.dims = dims;
  const auto index = [&](const std::string& d) {
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (dims[i] == d) return i;
    throw std::runtime_error("no dimension " + d);
  };
  for (const auto& d : dims) p.extents.push_back(ext.count(d) != 0 ? ext.at(d) : 1);
  for (const auto& s : spaces) {
    tl::DataSpace ds{s.name, {}, s.read_write};
    for (const auto& axis : s.axes) {
      std::vector<tl::Term> terms;
      std::size_t start = 0;
      while (start <= axis.size()) {
        const auto plus = axis.find('+', start);
        const auto end = plus == std::string::npos ? axis.size() : plus;
        terms.push_back({index(axis.substr(start, end - start)), 1});
        start = end + 1;
      }
      ds.projection.push_back(terms);
    }
    p.spaces.push_back(ds);
  }
  return p;
}

/// The mapping Timeloop printed: `Level [ Weights:3 (3) ... ]` headers (the data spaces kept), then
/// `| for P in [0:16)` loops (`(Spatial-X)` for a fanout) belonging to the last header above them.
inline tl::Mapping mapping(const std::string& path, const tl::Problem& p) {
  const std::regex header(R"(^(\w+) \[(.*)\]\s*$)");
  const std::regex loop(R"(^\|\s*for (\w+) in \[0:(\d+)\)( \(Spatial-[XY]\))?)");
  tl::Mapping m;
  for (const auto& line : lines_of(path)) {
    std::smatch mt;
    if (std::regex_match(line, mt, header)) {
      tl::Level lv{mt[1], std::vector<bool>(p.spaces.size(), false), {}};
      const std::string kept = mt[2];
      for (std::size_t s = 0; s < p.spaces.size(); ++s)
        lv.keep[s] = kept.find(p.spaces[s].name + ":") != std::string::npos;
      m.levels.push_back(lv);
    } else if (std::regex_search(line, mt, loop)) {
      std::size_t dim = p.dims.size();
      for (std::size_t i = 0; i < p.dims.size(); ++i)
        if (p.dims[i] == mt[1]) dim = i;
      if (dim == p.dims.size() || m.levels.empty()) throw std::runtime_error("bad loop line: " + line);
      m.levels.back().loops.push_back({dim, std::stoll(mt[2]), mt[3].matched});
    }
  }
  return m;
}

/// Counters of timeloop-model.stats.txt: component -> (data space or "" for the component) -> key -> value.
using Stats = std::map<std::string, std::map<std::string, std::map<std::string, std::int64_t>>>;

inline Stats stats(const std::string& path) {
  const std::regex component(R"(^=== (\w+) ===\s*$)");
  const std::regex space(R"(^    (\w+):\s*$)");
  const std::regex value(R"(^\s+([A-Za-z][A-Za-z ()\-]*?)\s*: (\d+)\s*$)");
  Stats out;
  std::string comp;
  std::string ds;
  for (const auto& line : lines_of(path)) {
    if (line.rfind("Networks", 0) == 0) break;  // the per-component sections end here
    std::smatch mt;
    if (std::regex_match(line, mt, component)) {
      comp = mt[1];
      ds.clear();
    } else if (std::regex_match(line, mt, space)) {
      ds = mt[1];
    } else if (!comp.empty() && std::regex_match(line, mt, value)) {
      out[comp][ds][mt[1]] = std::stoll(mt[2]);
    }
  }
  return out;
}

}  // namespace timeloop_ref
