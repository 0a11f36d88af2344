// load_module: read a dump and pick the front-end from its content.
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::ir {

Module load_module(const std::string& path) {
  const std::string text = read_file(path);
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    if (c == '{' || c == '[') {  // '[': MetaSchedule database lines [shash, "<base64 JSON>"]
      Module m = read_tvm_json(text, path);
      if (m.source.empty()) m.source = path;
      return m;
    }
    break;
  }
  return parse_tvmscript(text, path);
}

}  // namespace tenet_cost::ir
