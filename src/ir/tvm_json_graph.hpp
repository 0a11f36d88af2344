// Internal to the TVM-JSON reader (src/ir/tvm_json*.cpp): uniform, checked
// access to the two node-graph dialects written by tvm.ir.save_json.
//
//  legacy (TVM <= 0.21):  {"root": R, "nodes": [{"type_key", "attrs": {f: "<string>"},
//                          "data": [..], "keys": [..], "repr_str"/"repr_b64"}], "attrs": {..}}
//  tvm-ffi (TVM >= 0.22): {"root_index": R, "nodes": [{"type", "data": {f: int|literal} |
//                          literal | [..]}], "metadata": {..}}
//
// Every accessor validates what it reads and throws InputError naming the
// file, the node index, its type and the field, so a malformed graph never
// reaches undefined behaviour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tenet_cost/error.hpp"
#include "tenet_cost/json_text.hpp"

namespace tenet_cost::ir::tvm_json {

using json = nlohmann::json;

/// Limits that keep hostile input bounded (documented in docs/ir-json.md).
inline constexpr std::size_t kMaxJsonBytes = std::size_t{512} << 20;  // 512 MiB of text
inline constexpr int kMaxJsonNesting = 256;                          // [ / { nesting of the text
inline constexpr int kMaxGraphDepth = 400;                           // node-graph recursion
inline constexpr std::int64_t kMaxExpandedNodes = 4'000'000;         // per function, shared sub-trees counted each time
inline constexpr int kMaxBase64Nesting = 2;                          // MetaSchedule line -> graph

/// "tirx.Add" -> "tir.Add", "relax.expr.Var" -> "relax.Var", "ffi.Array" -> "Array",
/// "runtime.String" -> "String", "ir.IntImm" -> "IntImm", "tir.SBlock" -> "tir.Block",
/// "None" -> "" (the null node).
std::string normalize_type(std::string_view raw);

/// Parse JSON text within kMaxJsonBytes / kMaxJsonNesting; errors carry file:line:col.
json parse_json_text(const std::string& text, const std::string& file);

/// Standard base64 (RFC 4648, '=' padding optional, whitespace ignored).
std::string base64_decode(std::string_view in, const std::string& what);

/// One entry of a Map: a key that is either a string (legacy string maps)
/// or a node index, and the value's node index.
struct MapEntry {
  std::optional<std::size_t> key_node;
  std::string key_text;
  std::size_t value = 0;
};

class Graph {
 public:
  /// Validates the top level ("nodes" array of objects, root index in range). `text` (the JSON text of `doc`, kept
  /// by the caller while the graph lives; null for a graph decoded from base64) locates errors at file:line:col.
  Graph(const json& doc, std::string file, const std::string* text = nullptr);

  [[nodiscard]] bool ffi() const { return ffi_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::size_t root() const { return root_; }
  [[nodiscard]] std::size_t size() const { return types_.size(); }
  [[nodiscard]] const std::string& type(std::size_t i) const { return types_.at(i); }
  [[nodiscard]] const std::string& raw_type(std::size_t i) const { return raw_types_.at(i); }
  [[nodiscard]] bool is_null(std::size_t i) const { return types_.at(i).empty(); }
  /// "0.15.dev0" etc., "" when absent.
  [[nodiscard]] const std::string& tvm_version() const { return version_; }
  /// (major, minor) of tvm_version(), nullopt when unknown.
  [[nodiscard]] std::optional<std::pair<int, int>> version() const;

  /// Is the field present at all?
  [[nodiscard]] bool has(std::size_t i, std::string_view field) const;

  /// A node reference; nullopt for null ("null", "0", JSON null, a None node)
  /// or an absent field. Throws on a dangling index or a non-reference value.
  [[nodiscard]] std::optional<std::size_t> ref(std::size_t i, std::string_view field) const;
  /// Like ref() but absence or null is an error.
  [[nodiscard]] std::size_t ref_required(std::size_t i, std::string_view field) const;

  /// A string-valued field (an inline literal or a reference to a String node).
  /// "" when absent or null.
  [[nodiscard]] std::string text(std::size_t i, std::string_view field) const;
  /// The content of a String node (repr_str / repr_b64 / ffi data).
  [[nodiscard]] std::string string_node(std::size_t i) const;

  /// An integer field (legacy decimal string, ffi JSON integer or bool).
  [[nodiscard]] std::int64_t integer(std::size_t i, std::string_view field) const;
  [[nodiscard]] std::optional<std::int64_t> integer_opt(std::size_t i, std::string_view field) const;
  /// A floating-point field ("inf", "-inf", "nan" accepted in the legacy form).
  [[nodiscard]] double real(std::size_t i, std::string_view field) const;

  /// Elements of an Array node (null index -> empty).
  [[nodiscard]] std::vector<std::size_t> array(std::size_t i) const;
  /// Elements of the Array a field refers to (absent/null -> empty).
  [[nodiscard]] std::vector<std::size_t> array_field(std::size_t i, std::string_view field) const;
  /// Entries of a Map node.
  [[nodiscard]] std::vector<MapEntry> map(std::size_t i) const;
  [[nodiscard]] std::vector<MapEntry> map_field(std::size_t i, std::string_view field) const;

  /// A boxed primitive node (ffi "int"/"bool"/"float", legacy v_int64/v_float64)?
  [[nodiscard]] std::optional<std::int64_t> boxed_int(std::size_t i) const;
  [[nodiscard]] std::optional<double> boxed_float(std::size_t i) const;

  /// "node 12 (tir.For)"
  [[nodiscard]] std::string describe(std::size_t i) const;
  [[noreturn]] void fail(std::size_t i, std::string_view field, const std::string& message) const;
  [[noreturn]] void fail(const std::string& message) const;
  /// file:line:col of nodes `sorted` (ascending, distinct) in one scan of the text; line 0 without the text.
  [[nodiscard]] std::vector<SourceLocation> node_locations(const std::vector<std::size_t>& sorted) const;

 private:
  [[nodiscard]] const json* raw_field(std::size_t i, std::string_view field) const;
  [[nodiscard]] std::size_t check_index(std::size_t from, std::string_view field, std::int64_t idx) const;
  [[nodiscard]] std::optional<std::size_t> parse_ref(std::size_t i, std::string_view field,
                                                     const json& v) const;
  [[nodiscard]] SourceLocation where(std::size_t i, std::string_view field) const;
  [[nodiscard]] SourceLocation where(const JsonPath& path) const;
  [[nodiscard]] std::vector<std::size_t> index_list(std::size_t i, const json& list, std::string_view what) const;

  const json& nodes_;
  std::string file_;
  std::optional<JsonLocator> loc_;
  bool ffi_ = false;
  std::size_t root_ = 0;
  std::string version_;
  std::vector<std::string> types_;
  std::vector<std::string> raw_types_;
};

/// Short, printable excerpt of a JSON value for messages.
std::string excerpt(const json& v);

}  // namespace tenet_cost::ir::tvm_json
