// TEMPORARY stub so that every module links before the engine lands.
// The engine owner deletes this file when implementing the API.
#include "tenet_cost/tenet.hpp"

namespace tenet_cost::tenet {
static InputError not_yet() { return InputError("the TENET engine is not implemented yet"); }
PEArraySpec load_pe_array(const std::string&) { throw not_yet(); }
StatementSpec load_statement(const std::string&) { throw not_yet(); }
MappingSpec load_mapping(const std::string&) { throw not_yet(); }
Problem load_problem(const std::string&, const std::string&, const std::string&) { throw not_yet(); }
Problem load_experiment(const std::string&, const std::string&) { throw not_yet(); }
Metrics analyze(const Problem&, const AnalyzeOptions&) { throw not_yet(); }
}  // namespace tenet_cost::tenet
