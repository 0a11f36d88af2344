// load_module: read a dump and pick the front-end from its content.
#include "tenet_cost/error.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::ir {

namespace {
// The largest MLC dumps seen are a few MB (debug-phase0..4 of a 70B model); 1 GiB of text
// bounds memory at a few GB while leaving room for generated modules.
constexpr std::size_t kMaxDumpBytes = std::size_t{1} << 30;
// A Hugging Face config.json (small, "model_type"/"architectures", no graph root):
// the user meant --hf-config.
bool looks_like_hf_config(const std::string& text) {
  return text.size() < (std::size_t{1} << 20) && text.find("\"root") == std::string::npos &&
         (text.find("\"model_type\"") != std::string::npos || text.find("\"architectures\"") != std::string::npos);
}
}  // namespace

Module load_module(const std::string& path, const ParseOptions& options) {
  const std::string text = read_file(path, kMaxDumpBytes);
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    if (c == '{' && looks_like_hf_config(text))
      throw InputError(SourceLocation{path, 0, 0},
                       "expected a TVMScript or TVM JSON dump, found a Hugging Face "
                       "config.json (\"model_type\"); pass it with --hf-config");
    if (c == '{' || c == '[') {  // '[': MetaSchedule database lines [shash, "<base64 JSON>"]
      Module m = read_tvm_json(text, path);
      if (m.source.empty()) m.source = path;
      return m;
    }
    break;
  }
  return parse_tvmscript(text, path, options);
}

Module load_module(const std::string& path) { return load_module(path, ParseOptions{}); }

}  // namespace tenet_cost::ir
