// Checked access to TVM JSON node graphs (legacy and tvm-ffi dialects).
#include "ir/tvm_json_graph.hpp"

#include "tenet_cost/json_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace tenet_cost::ir::tvm_json {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::string excerpt(const json& v) {
  std::string s;
  try {
    s = v.dump(-1, ' ', true, json::error_handler_t::replace);
  } catch (const json::exception&) {
    s = "<unprintable>";
  }
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string normalize_type(std::string_view raw) {
  std::string t(raw);
  if (t == "None") return "";
  if (starts_with(t, "tirx.")) {
    t = "tir." + t.substr(5);
  } else if (starts_with(t, "relax.expr.")) {
    t = "relax." + t.substr(11);
  } else if (starts_with(t, "relax.struct_info.")) {
    t = "relax." + t.substr(18);
  } else if (starts_with(t, "ffi.")) {
    t = t.substr(4);
  } else if (starts_with(t, "runtime.")) {
    t = t.substr(8);
  } else if (starts_with(t, "ir.")) {
    t = t.substr(3);
  }
  if (t == "tir.SBlock") return "tir.Block";
  if (t == "tir.SBlockRealize") return "tir.BlockRealize";
  // the mid-2026 StructInfo -> Type rename (apache/tvm #19853, #19889): the same fields
  if (t == "relax.TensorType") return "relax.TensorStructInfo";
  if (t == "relax.ShapeType") return "relax.ShapeStructInfo";
  if (t == "relax.PrimType") return "relax.PrimStructInfo";
  if (t == "relax.ObjectType" || t == "relax.AnyType") return "relax.ObjectStructInfo";
  if (t == "str") return "String";
  return t;
}

json parse_json_text(const std::string& text, const std::string& file) {
  return parse_json_document(text, file, JsonLimits{kMaxJsonBytes, kMaxJsonNesting, "JSON input"});
}

std::string base64_decode(std::string_view in, const std::string& what) {
  std::array<int, 256> table{};
  table.fill(-1);
  const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t k = 0; k < alphabet.size(); ++k) table[static_cast<unsigned char>(alphabet[k])] = static_cast<int>(k);
  std::string out;
  out.reserve(in.size() / 4 * 3 + 3);
  std::uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(in[k]);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    if (padding || table[c] < 0) {
      throw InputError(what + ": invalid base64 at character " + std::to_string(k + 1));
    }
    acc = (acc << 6) | static_cast<std::uint32_t>(table[c]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFFu));
    }
  }
  return out;
}

// ------------------------------------------------------------------ Graph

Graph::Graph(const json& doc, std::string file, const std::string* text)
    : nodes_(doc.is_object() && doc.contains("nodes") ? doc["nodes"] : doc), file_(std::move(file)) {
  if (text != nullptr) loc_.emplace(*text, file_);
  if (!doc.is_object()) fail("expected a JSON object with \"nodes\" and \"root\"/\"root_index\", found " + excerpt(doc));
  const bool has_root = doc.contains("root");
  const bool has_root_index = doc.contains("root_index");
  if (!has_root && !has_root_index) {
    fail("not a TVM JSON graph: expected a \"root\" (legacy) or \"root_index\" (tvm-ffi) field");
  }
  ffi_ = has_root_index;
  if (!doc.contains("nodes") || !doc["nodes"].is_array())
    throw InputError(where({"nodes"}), "expected a \"nodes\" array");
  const json& r = doc[ffi_ ? "root_index" : "root"];
  const JsonPath root_path{std::string(ffi_ ? "root_index" : "root")};
  if (!r.is_number_integer())
    throw InputError(where(root_path),
                     std::string("\"") + (ffi_ ? "root_index" : "root") + "\" must be an integer, found " + excerpt(r));
  const auto n = nodes_.size();
  if (n == 0) throw InputError(where({"nodes"}), "the \"nodes\" array is empty");
  types_.reserve(n);
  raw_types_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const json& node = nodes_[i];
    if (!node.is_object())
      throw InputError(where({"nodes", i}),
                       "node " + std::to_string(i) + ": expected an object, found " + excerpt(node));
    const char* key = ffi_ ? "type" : "type_key";
    std::string raw;
    if (auto it = node.find(key); it != node.end()) {
      if (!it->is_string())
        throw InputError(where({"nodes", i, key}),
                         "node " + std::to_string(i) + ": \"" + key + "\" must be a string, found " + excerpt(*it));
      raw = it->get<std::string>();
    } else if (ffi_) {
      throw InputError(where({"nodes", i}), "node " + std::to_string(i) + ": missing \"type\"");
    }
    if (!ffi_ && node.contains("attrs") && !node["attrs"].is_object()) {
      throw InputError(
          where({"nodes", i, "attrs"}),
          "node " + std::to_string(i) + " (" + raw + "): \"attrs\" must be an object, found " + excerpt(node["attrs"]));
    }
    types_.push_back(normalize_type(raw));
    raw_types_.push_back(std::move(raw));
  }
  std::int64_t root = 0;
  if (r.is_number_unsigned()) {
    const auto u = r.get<std::uint64_t>();
    root = u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? -1 : static_cast<std::int64_t>(u);
  } else {
    root = r.get<std::int64_t>();
  }
  if (root < 0 || static_cast<std::uint64_t>(root) >= n) {
    throw InputError(where(root_path), "root index " + excerpt(r) + " is outside the " + std::to_string(n) + " nodes");
  }
  root_ = static_cast<std::size_t>(root);
  const json* meta = nullptr;
  if (ffi_ && doc.contains("metadata")) meta = &doc["metadata"];
  if (!ffi_ && doc.contains("attrs")) meta = &doc["attrs"];
  if (meta != nullptr && meta->is_object()) {
    if (auto it = meta->find("tvm_version"); it != meta->end() && it->is_string()) version_ = it->get<std::string>();
  }
}

std::optional<std::pair<int, int>> Graph::version() const {
  int major = 0;
  int minor = 0;
  const char* b = version_.data();
  const char* e = b + version_.size();
  auto r1 = std::from_chars(b, e, major);
  if (r1.ec != std::errc() || r1.ptr == e || *r1.ptr != '.') return std::nullopt;
  auto r2 = std::from_chars(r1.ptr + 1, e, minor);
  if (r2.ec != std::errc()) return std::nullopt;
  return std::make_pair(major, minor);
}

std::string Graph::describe(std::size_t i) const {
  std::string t = i < raw_types_.size() ? raw_types_[i] : std::string("?");
  if (t.empty()) t = "null";
  return "node " + std::to_string(i) + " (" + t + ")";
}

void Graph::fail(std::size_t i, std::string_view field, const std::string& message) const {
  std::string m = describe(i);
  if (!field.empty()) m += ", field '" + std::string(field) + "'";
  throw InputError(where(i, field), m + ": " + message);
}

void Graph::fail(const std::string& message) const { throw InputError(where(JsonPath{}), message); }

std::vector<SourceLocation> Graph::node_locations(const std::vector<std::size_t>& sorted) const {
  if (!loc_) return std::vector<SourceLocation>(sorted.size(), SourceLocation{file_, 0, 0});
  return loc_->elements_at({"nodes"}, sorted);
}

SourceLocation Graph::where(const JsonPath& path) const { return loc_ ? loc_->at(path) : SourceLocation{file_, 0, 0}; }

// A field is in the node's "attrs" (legacy) or "data" (tvm-ffi) object, or is one of the node's own keys ("data",
// "keys", "repr_str", ...): the value's position, else the node's.
SourceLocation Graph::where(std::size_t i, std::string_view field) const {
  if (!loc_) return SourceLocation{file_, 0, 0};
  if (!field.empty()) {
    const std::string f(field);
    for (const JsonPath& p : {JsonPath{"nodes", i, ffi_ ? "data" : "attrs", f}, JsonPath{"nodes", i, f}})
      if (loc_->offset(p) != std::string::npos) return loc_->at(p);
  }
  return loc_->at({"nodes", i});
}

const json* Graph::raw_field(std::size_t i, std::string_view field) const {
  const json& node = nodes_[i];
  if (ffi_) {
    auto it = node.find("data");
    if (it == node.end() || !it->is_object()) return nullptr;
    auto f = it->find(field);
    return f == it->end() ? nullptr : &*f;
  }
  auto it = node.find("attrs");
  if (it == node.end() || !it->is_object()) return nullptr;
  auto f = it->find(field);
  return f == it->end() ? nullptr : &*f;
}

bool Graph::has(std::size_t i, std::string_view field) const { return raw_field(i, field) != nullptr; }

std::size_t Graph::check_index(std::size_t from, std::string_view field, std::int64_t idx) const {
  if (idx < 0 || static_cast<std::uint64_t>(idx) >= types_.size()) {
    fail(from, field, "dangling reference to node " + std::to_string(idx) + " (the graph has " +
                          std::to_string(types_.size()) + " nodes)");
  }
  return static_cast<std::size_t>(idx);
}

std::optional<std::size_t> Graph::parse_ref(std::size_t i, std::string_view field, const json& v) const {
  std::size_t idx = 0;
  if (ffi_) {
    if (v.is_null()) return std::nullopt;
    if (v.is_number_unsigned() || v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(i, field, "dangling reference " + excerpt(v));
      }
      idx = check_index(i, field, v.get<std::int64_t>());
    } else {
      fail(i, field, "expected a node reference (an integer), found " + excerpt(v));
    }
  } else {
    if (v.is_null()) return std::nullopt;
    if (v.is_number_integer()) {  // tolerated: hand-written legacy graphs
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(i, field, "dangling reference " + excerpt(v));
      }
      idx = check_index(i, field, v.get<std::int64_t>());
    } else if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "null") return std::nullopt;
      if (!all_digits(s)) fail(i, field, "expected a node reference (a decimal index), found " + excerpt(v));
      idx = check_index(i, field, std::stoll(s));
    } else {
      fail(i, field, "expected a node reference (a decimal string), found " + excerpt(v));
    }
  }
  if (is_null(idx)) return std::nullopt;
  return idx;
}

std::optional<std::size_t> Graph::ref(std::size_t i, std::string_view field) const {
  const json* v = raw_field(i, field);
  if (v == nullptr) return std::nullopt;
  return parse_ref(i, field, *v);
}

std::size_t Graph::ref_required(std::size_t i, std::string_view field) const {
  const json* v = raw_field(i, field);
  if (v == nullptr) fail(i, field, "missing required field");
  auto r = parse_ref(i, field, *v);
  if (!r) fail(i, field, "required reference is null");
  return *r;
}

std::string Graph::string_node(std::size_t i) const {
  const json& node = nodes_[i];
  if (ffi_) {
    auto it = node.find("data");
    if (it == node.end() || it->is_null()) return "";
    if (!it->is_string()) fail(i, "data", "expected a string, found " + excerpt(*it));
    return it->get<std::string>();
  }
  if (auto it = node.find("repr_str"); it != node.end()) {
    if (!it->is_string()) fail(i, "repr_str", "expected a string, found " + excerpt(*it));
    return it->get<std::string>();
  }
  if (auto it = node.find("repr_b64"); it != node.end()) {
    if (!it->is_string()) fail(i, "repr_b64", "expected a string, found " + excerpt(*it));
    return base64_decode(it->get_ref<const std::string&>(), file_ + ": " + describe(i));
  }
  return "";
}

std::string Graph::text(std::size_t i, std::string_view field) const {
  const json* v = raw_field(i, field);
  if (v == nullptr || v->is_null()) return "";
  auto deref = [&](std::size_t idx) -> std::string {
    if (is_null(idx)) return "";
    if (types_[idx] != "String") fail(i, field, "expected a string, found a reference to " + describe(idx));
    return string_node(idx);
  };
  if (ffi_) {
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number_integer()) {
      auto r = parse_ref(i, field, *v);
      return r ? deref(*r) : std::string();
    }
    fail(i, field, "expected a string, found " + excerpt(*v));
  }
  if (v->is_number_integer()) {
    auto r = parse_ref(i, field, *v);
    return r ? deref(*r) : std::string();
  }
  if (!v->is_string()) fail(i, field, "expected a string, found " + excerpt(*v));
  const auto& s = v->get_ref<const std::string&>();
  if (s == "null") return "";
  if (all_digits(s)) {
    const auto idx = static_cast<std::size_t>(std::stoll(s));
    if (idx < types_.size() && (types_[idx] == "String" || is_null(idx))) return deref(idx);
  }
  return s;  // a plain std::string field (e.g. attr_key)
}

std::optional<std::int64_t> Graph::integer_opt(std::size_t i, std::string_view field) const {
  const json* v = raw_field(i, field);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>() ? 1 : 0;
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(i, field, "integer " + excerpt(*v) + " does not fit in 64 bits");
    }
    return static_cast<std::int64_t>(u);
  }
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_string()) {
    const auto& s = v->get_ref<const std::string&>();
    if (s == "null") return std::nullopt;
    if (s == "true" || s == "True") return 1;
    if (s == "false" || s == "False") return 0;
    std::int64_t out = 0;
    const char* b = s.data();
    const char* e = b + s.size();
    const char* p = (b != e && *b == '+') ? b + 1 : b;
    auto r = std::from_chars(p, e, out);
    if (r.ec == std::errc::result_out_of_range) fail(i, field, "integer \"" + s + "\" does not fit in 64 bits");
    if (r.ec != std::errc() || r.ptr != e || p == e) fail(i, field, "expected an integer, found " + excerpt(*v));
    return out;
  }
  fail(i, field, "expected an integer, found " + excerpt(*v));
}

std::int64_t Graph::integer(std::size_t i, std::string_view field) const {
  auto v = integer_opt(i, field);
  if (!v) fail(i, field, "missing required integer");
  return *v;
}

double Graph::real(std::size_t i, std::string_view field) const {
  const json* v = raw_field(i, field);
  if (v == nullptr || v->is_null()) fail(i, field, "missing required number");
  if (v->is_number()) return v->get<double>();
  if (v->is_string()) {
    const auto& s = v->get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan" || s == "-nan") return std::numeric_limits<double>::quiet_NaN();
    std::size_t used = 0;
    double d = 0;
    try {
      d = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size()) fail(i, field, "expected a number, found " + excerpt(*v));
    return d;
  }
  fail(i, field, "expected a number, found " + excerpt(*v));
}

std::vector<std::size_t> Graph::index_list(std::size_t i, const json& list, std::string_view what) const {
  if (!list.is_array()) fail(i, what, "expected an array of node indices, found " + excerpt(list));
  std::vector<std::size_t> out;
  out.reserve(list.size());
  for (const json& e : list) {
    if (e.is_number_unsigned() || e.is_number_integer()) {
      if (e.is_number_unsigned() && e.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(i, what, "dangling reference " + excerpt(e));
      }
      out.push_back(check_index(i, what, e.get<std::int64_t>()));
    } else if (!ffi_ && e.is_string() && all_digits(e.get_ref<const std::string&>())) {
      out.push_back(check_index(i, what, std::stoll(e.get<std::string>())));
    } else {
      fail(i, what, "expected a node index, found " + excerpt(e));
    }
  }
  return out;
}

std::vector<std::size_t> Graph::array(std::size_t i) const {
  if (is_null(i)) return {};
  const std::string& t = types_[i];
  if (t != "Array" && t != "List" && t != "Shape") fail(i, "", "expected an Array node");
  const json& node = nodes_[i];
  auto it = node.find("data");
  if (it == node.end() || it->is_null()) return {};
  if (t == "Shape" && ffi_) {  // ffi.Shape holds integers, not indices: not used as node lists
    fail(i, "data", "a Shape holds integers, not nodes");
  }
  return index_list(i, *it, "data");
}

std::vector<std::size_t> Graph::array_field(std::size_t i, std::string_view field) const {
  auto r = ref(i, field);
  if (!r) return {};
  if (types_[*r] != "Array" && types_[*r] != "List") {
    fail(i, field, "expected a reference to an Array, found a reference to " + describe(*r));
  }
  return array(*r);
}

std::vector<MapEntry> Graph::map(std::size_t i) const {
  if (is_null(i)) return {};
  if (types_[i] != "Map") fail(i, "", "expected a Map node");
  const json& node = nodes_[i];
  std::vector<MapEntry> out;
  auto dit = node.find("data");
  std::vector<std::size_t> data;
  if (dit != node.end() && !dit->is_null()) data = index_list(i, *dit, "data");
  auto kit = node.find("keys");
  if (!ffi_ && kit != node.end() && !kit->is_null()) {
    if (!kit->is_array()) fail(i, "keys", "expected an array of strings, found " + excerpt(*kit));
    if (kit->size() != data.size()) {
      fail(i, "keys", std::to_string(kit->size()) + " keys but " + std::to_string(data.size()) + " values");
    }
    for (std::size_t k = 0; k < data.size(); ++k) {
      const json& key = (*kit)[k];
      if (!key.is_string()) fail(i, "keys", "expected a string key, found " + excerpt(key));
      out.push_back(MapEntry{std::nullopt, key.get<std::string>(), data[k]});
    }
    return out;
  }
  if (data.size() % 2 != 0) fail(i, "data", "a Map needs key/value pairs, found an odd number of entries");
  for (std::size_t k = 0; k < data.size(); k += 2) {
    MapEntry e;
    e.key_node = data[k];
    e.value = data[k + 1];
    if (types_[data[k]] == "String") e.key_text = string_node(data[k]);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<MapEntry> Graph::map_field(std::size_t i, std::string_view field) const {
  auto r = ref(i, field);
  if (!r) return {};
  if (types_[*r] != "Map") fail(i, field, "expected a reference to a Map, found a reference to " + describe(*r));
  return map(*r);
}

std::optional<std::int64_t> Graph::boxed_int(std::size_t i) const {
  const std::string& t = types_[i];
  const json& node = nodes_[i];
  if (ffi_ && (t == "int" || t == "bool")) {
    auto it = node.find("data");
    if (it == node.end()) fail(i, "data", "missing value");
    if (it->is_boolean()) return it->get<bool>() ? 1 : 0;
    if (it->is_number_integer() && !(it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      return it->get<std::int64_t>();
    }
    fail(i, "data", "expected an integer, found " + excerpt(*it));
  }
  if (!ffi_ && has(i, "v_int64")) return integer(i, "v_int64");
  return std::nullopt;
}

std::optional<double> Graph::boxed_float(std::size_t i) const {
  const std::string& t = types_[i];
  if (ffi_ && t == "float") {
    auto it = nodes_[i].find("data");
    if (it == nodes_[i].end() || !it->is_number()) fail(i, "data", "expected a number");
    return it->get<double>();
  }
  if (!ffi_ && has(i, "v_float64")) return real(i, "v_float64");
  return std::nullopt;
}

}  // namespace tenet_cost::ir::tvm_json
