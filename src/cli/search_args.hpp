// The flags of the mapping search, shared by `search` and `compare --search`.
#pragma once

#include <cstdint>
#include <string>

#include "model_args.hpp"
#include "tenet_cost/search.hpp"

namespace tenet_cost::cli {

struct SearchArgs {
  std::string dataflows;
  std::int64_t pe_budget = 0, jobs = 1;
};

/// --dataflows, --pe-budget, --jobs.
void add_search_options(CLI::App* cmd, SearchArgs& s);
/// The search options named by the flags (`cmd` tells whether --dataflow was given: the default --dataflows).
search::Options search_options(const ModelArgs& a, const SearchArgs& s, const CLI::App* cmd);
/// search::run with a progress bar on stderr (a terminal, runs over a second).
search::SearchResult run_search(const arch::Arch& ar, const model::Model& plan, const model::Phases& ph,
                                const std::vector<std::optional<quant::Scheme>>& schemes, const search::Options& o);

}  // namespace tenet_cost::cli
