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

#include "tenet_cost/error.hpp"

namespace tenet_cost {

struct JsonLimits {
  std::size_t max_bytes = std::size_t{1} << 20;  // size of the text
  int max_nesting = 64;                          // depth of [ / { nesting
  const char* what = "JSON input";               // names the document in the size error
};

/// 1-based line and column of byte `offset` of `text` (clamped to the text).
[[nodiscard]] SourceLocation location_at(const std::string& text, std::size_t offset, const std::string& file);

/// Parses `text`; throws InputError (located where possible) for text over the
/// limits, nesting over the limits, a key given twice in one object (named in the
/// message), invalid JSON or a number that overflows a double.
[[nodiscard]] nlohmann::json parse_json_document(const std::string& text, const std::string& file,
                                                 const JsonLimits& limits);

}  // namespace tenet_cost
