// --set KEY=VALUE: overrides applied to the arch JSON document before it is read, so that they are validated
// exactly like the file (docs/arch.md).
#include <nlohmann/json.hpp>

#include "tenet_cost/arch.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::arch {

using nlohmann::json;

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw InputError("--set: expected KEY=VALUE such as pe_array.rows=64, found '" + text + "'");
  Override o{text.substr(0, eq), text.substr(eq + 1)};
  if (o.path.empty() || o.path.front() == '.' || o.path.back() == '.' || o.path.find("..") != std::string::npos)
    throw InputError("--set " + text + ": expected a dotted arch path such as pe_array.rows before '=', found '" +
                     o.path + "'");
  return o;
}

std::string to_string(const Override& o) { return o.path + "=" + o.value; }

namespace {

// The value as JSON when it is a JSON document (64, 0.5, true, "text", {...}), else the text as a string (mesh).
json value_of(const std::string& text) {
  if (text.empty()) return json(text);
  try {
    return parse_json_document(text, "--set", JsonLimits{std::size_t{1} << 16, 8, "--set value"});
  } catch (const InputError&) {
    return json(text);
  }
}

// The element `key` of the array `arr` (levels.1.bytes: a decimal index into the array), else InputError.
json& element(json& arr, const std::string& key, const Override& o, const std::string& prefix) {
  const bool digits = !key.empty() && key.size() <= 6 && key.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(key) >= arr.size())
    throw InputError("--set " + to_string(o) + ": expected an index into the array '" + prefix + "' (0 .. " +
                     std::to_string(static_cast<std::int64_t>(arr.size()) - 1) + "), found '" + key + "'");
  return arr[std::stoul(key)];
}

void apply(json& doc, const Override& o) {
  json* at = &doc;
  std::size_t start = 0;
  for (;;) {
    const auto dot = o.path.find('.', start);
    const std::string key = o.path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const std::string prefix = start == 0 ? "" : o.path.substr(0, start - 1);
    json& next = at->is_array() ? element(*at, key, o, prefix) : (*at)[key];
    if (dot == std::string::npos) {
      next = value_of(o.value);
      return;
    }
    // a missing object is created (dequant.per_cycle on an arch without "dequant")
    if (next.is_null()) next = json::object();
    if (!next.is_object() && !next.is_array())
      throw InputError("--set " + to_string(o) + ": expected '" + o.path.substr(0, dot) + "' to be an object, found " +
                       next.type_name());
    at = &next;
    start = dot + 1;
  }
}

}  // namespace

Arch parse_arch(const std::string& text, const std::string& filename, const std::vector<Override>& overrides) {
  Arch a = parse_arch(text, filename);  // the file's own errors first, located in the file
  if (overrides.empty()) return a;
  json doc = parse_json_document(text, filename, JsonLimits{std::size_t{1} << 20, 16, "arch config"});
  for (const auto& o : overrides) {
    apply(doc, o);
    try {
      a = parse_arch(doc.dump(), filename);
    } catch (const InputError& e) {
      throw InputError("--set " + to_string(o) + ": " + e.detail());
    }
  }
  for (const auto& o : overrides) a.name += " --set " + to_string(o);
  return a;
}

Arch load_arch(const std::string& name_or_path, const std::string& presets_dir,
               const std::vector<Override>& overrides) {
  const std::string file = arch_file(name_or_path, presets_dir);
  return parse_arch(read_file(file, std::size_t{1} << 20), file, overrides);
}

}  // namespace tenet_cost::arch
