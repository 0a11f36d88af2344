// Reading a JSON document from text with limits and located errors.
//
// Every JSON input of tenet-cost (arch configs, Hugging Face config.json, TVM
// JSON graphs) goes through parse_json_document: the text size and the [ / {
// nesting are checked before nlohmann::json builds a tree, and a syntax error
// becomes an InputError at file:line:col.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "tenet_cost/error.hpp"

namespace tenet_cost {

struct JsonLimits {
  std::size_t max_bytes = std::size_t{1} << 20;  // size of the text
  int max_nesting = 64;                          // depth of [ / { nesting
  const char* what = "JSON input";               // names the document in the size error
};

/// 1-based line and column of byte `offset` of `text` (clamped to the text).
[[nodiscard]] SourceLocation location_at(const std::string& text, std::size_t offset, const std::string& file);

/// A step of a path into a JSON document: an object key or an array index.
using JsonStep = std::variant<std::string, std::size_t>;
using JsonPath = std::vector<JsonStep>;

/// Where the values of a JSON text are, by path (a JSON pointer as steps): the position index every JSON reader
/// shares, so that an error about a field or a node reports the file:line:col of that value. The text must have
/// parsed (parse_json_document); each look-up is a skipping scan of the text, made only when an error needs it
/// (nothing is built or held on the success path, whatever the document's size). Keys are compared as written.
class JsonLocator {
 public:
  JsonLocator(const std::string& text, std::string file) : text_(&text), file_(std::move(file)) {}

  /// Byte offset of the value at `path`; npos when the path is not in the text.
  [[nodiscard]] std::size_t offset(const JsonPath& path) const;
  /// file:line:col of the value at `path`, else of its deepest ancestor in the text (the document at worst): an
  /// error about a missing key points at the object that lacks it.
  [[nodiscard]] SourceLocation at(const JsonPath& path) const;
  /// file:line:col of elements `indices` (ascending) of the array at `array`, in one skipping scan of the text; an
  /// element (or array) not in the text gets line 0. For a reader that keeps the location of a few values of a large
  /// document (a TVM-JSON graph's Relax bindings) whatever their number.
  [[nodiscard]] std::vector<SourceLocation> elements_at(const JsonPath& array,
                                                        const std::vector<std::size_t>& indices) const;
  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  std::size_t find(const JsonPath& path, std::size_t& deepest) const;

  const std::string* text_;
  std::string file_;
};

/// Parses `text`; throws InputError (located where possible) for text over the
/// limits, nesting over the limits, a key given twice in one object (named in the
/// message), invalid JSON or a number that overflows a double.
[[nodiscard]] nlohmann::json parse_json_document(const std::string& text, const std::string& file,
                                                 const JsonLimits& limits);

}  // namespace tenet_cost
