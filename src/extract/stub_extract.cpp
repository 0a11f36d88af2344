// TEMPORARY stub: the extractor owner deletes this file when implementing it.
#include "tenet_cost/extract.hpp"

namespace tenet_cost {
static InputError not_yet() { return InputError("GEMM extraction is not implemented yet"); }
ExtractResult extract_workloads(const ir::Module&, const ExtractOptions&) { throw not_yet(); }
std::map<std::string, std::int64_t> parse_bindings(const std::string&) { throw not_yet(); }
Dim bind_dim(const Dim&, const std::map<std::string, std::int64_t>&, bool) { throw not_yet(); }
}  // namespace tenet_cost
