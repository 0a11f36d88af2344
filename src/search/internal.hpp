// Pieces shared by the search's translation units (search.cpp, request_search.cpp, deploy_search.cpp); not installed.
#pragma once

#include <string>
#include <vector>

#include "tenet_cost/search.hpp"

namespace tenet_cost::search::detail {

/// A candidate mapping as the output names it: "os 32x32".
std::string mapping_of(const Config& c);

/// The candidate dataflows of `o` as one list, e.g. "os,ws,is,ncf,generated".
std::string candidate_names(const Options& o);

/// Appends each note of `from` that `to` does not hold yet, in order.
void add_notes(std::vector<std::string>& to, const std::vector<std::string>& from);

}  // namespace tenet_cost::search::detail
