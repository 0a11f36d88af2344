// TEMPORARY stub: the TVM-JSON owner deletes this file when implementing it.
#include "tenet_cost/ir.hpp"

namespace tenet_cost::ir {
Module read_tvm_json(const std::string&, const std::string& filename) {
  throw InputError(filename + ": TVM JSON reading is not implemented yet");
}
}  // namespace tenet_cost::ir
