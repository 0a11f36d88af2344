// Several deployments in one comparison (docs/model.md "Parallelism over chips"): the --tp / --pp / --ep lists as a
// grid of deployments, and one compare_deployed per deployment with the rows side by side.
#include <algorithm>
#include <charconv>

#include "tenet_cost/error.hpp"
#include "tenet_cost/message.hpp"
#include "tenet_cost/model.hpp"

namespace tenet_cost::model {

namespace {

constexpr std::int64_t kMaxDegree = 4096;
constexpr std::int64_t kTpDegree = 0;  // an --ep entry "tp": the deployment's TP degree

// One list of degrees; `tp_word`: the entry "tp" is allowed (kTpDegree).
std::vector<std::int64_t> degrees(const char* flag, const std::string& text, bool tp_word) {
  if (text.empty()) return {1};
  std::vector<std::int64_t> out;
  for (const std::string& item : split_list(text)) {
    if (tp_word && item == "tp") {
      out.push_back(kTpDegree);
      continue;
    }
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 1 || v > kMaxDegree)
      throw InputError(std::string(flag) + ": expected a list of chip counts 1 .. " + std::to_string(kMaxDegree) +
                       (tp_word ? " or tp" : "") + ", found '" + item + "'");
    out.push_back(v);
  }
  return out;
}

bool same(const Parallel& a, const Parallel& b) { return a.tp == b.tp && a.pp == b.pp && a.ep == b.ep; }

}  // namespace

std::vector<Parallel> deployment_grid(const std::string& tp, const std::string& pp, const std::string& ep,
                                      const Parallel& base) {
  std::vector<Parallel> out;
  for (const std::int64_t t : degrees("--tp", tp, false))
    for (const std::int64_t p : degrees("--pp", pp, false))
      for (const std::int64_t e : degrees("--ep", ep, true)) {
        Parallel d = base;
        d.tp = t;
        d.pp = p;
        d.ep = e == kTpDegree ? t : e;
        if (std::none_of(out.begin(), out.end(), [&](const Parallel& o) { return same(o, d); })) out.push_back(d);
      }
  return out;
}

namespace {

CompareResult deployments(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                          const std::vector<std::optional<quant::Scheme>>& schemes, const std::vector<Parallel>& grid,
                          const Request* req, const std::function<void(std::size_t, const std::string&)>& progress) {
  if (grid.empty()) throw InternalError("compare_deployments: no deployment");
  CompareResult out;
  for (const Parallel& p : grid) {
    Phases at = ph;
    at.parallel.tp = p.tp;  // the degrees of the grid; --micro-batches and --collective-dtype from ph
    at.parallel.pp = p.pp;
    at.parallel.ep = p.ep;
    const std::size_t done = out.rows.size();
    CompareResult one = compare_deployed(est, whole, cfg, at, schemes, [&](std::size_t n, const std::string& s) {
      if (progress) progress(done + n, s);
    });
    if (req != nullptr) add_deployed_requests(one, est, whole, cfg, at, *req, schemes);
    if (grid.size() == 1) return one;
    if (out.deployments.empty()) out.info = one.info;
    for (const std::string& n : one.info.notes)
      if (std::find(out.info.notes.begin(), out.info.notes.end(), n) == out.info.notes.end())
        out.info.notes.push_back(n);
    for (CompareRow& r : one.rows) {
      r.deploy->deployment = out.deployments.size();
      out.rows.push_back(std::move(r));
    }
    out.deployments.push_back(*one.deployment);
  }
  set_ratios(out, ph);
  return out;
}

}  // namespace

CompareResult compare_deployments(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                                  const std::vector<std::optional<quant::Scheme>>& schemes,
                                  const std::vector<Parallel>& grid,
                                  const std::function<void(std::size_t, const std::string&)>& progress) {
  return deployments(est, whole, cfg, ph, schemes, grid, nullptr, progress);
}

CompareResult compare_deployments(cost::Estimator& est, const Model& whole, const ModelConfig& cfg, const Phases& ph,
                                  const std::vector<std::optional<quant::Scheme>>& schemes,
                                  const std::vector<Parallel>& grid, const Request& req, RankBy rank,
                                  const std::function<void(std::size_t, const std::string&)>& progress) {
  CompareResult out = deployments(est, whole, cfg, ph, schemes, grid, &req, progress);
  out.request = req;
  rank_requests(out, rank, ph);
  return out;
}

}  // namespace tenet_cost::model
