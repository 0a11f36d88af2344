#include "tenet_cost/json_text.hpp"

#include <algorithm>
#include <limits>

namespace tenet_cost {

SourceLocation location_at(const std::string& text, std::size_t offset, const std::string& file) {
  SourceLocation loc{file, 1, 1};
  const std::size_t end = std::min(offset, text.size());
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  for (std::size_t k = 0; k < end; ++k) {
    if (text[k] == '\n') {
      if (loc.line < kMax) ++loc.line;
      loc.column = 1;
    } else if (loc.column < kMax) {
      ++loc.column;
    }
  }
  return loc;
}

namespace {

// Rejects nesting deeper than the limit before nlohmann builds a pathological tree.
void check_nesting(const std::string& text, const std::string& file, int max_nesting) {
  int depth = 0;
  bool in_string = false;
  bool escape = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_nesting)
        throw InputError(location_at(text, k, file),
                         "JSON nested deeper than " + std::to_string(max_nesting) + " levels");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace

nlohmann::json parse_json_document(const std::string& text, const std::string& file, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw InputError(SourceLocation{file, 0, 0}, std::string(limits.what) + " is " + std::to_string(text.size()) +
                                                     " bytes, over the limit of " + std::to_string(limits.max_bytes) +
                                                     " bytes");
  check_nesting(text, file, limits.max_nesting);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based count of bytes read when the error was detected.
    const std::size_t off = e.byte > 0 ? static_cast<std::size_t>(e.byte - 1) : 0;
    std::string msg = e.what();
    if (const auto col = msg.find(", column "); col != std::string::npos) {
      if (const auto colon = msg.find(": ", col); colon != std::string::npos) msg = msg.substr(colon + 2);
    } else if (const auto br = msg.find("] "); br != std::string::npos) {
      msg = msg.substr(br + 2);
    }
    throw InputError(location_at(text, off, file), "invalid JSON: " + msg);
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range 406: a number overflows a double
    throw InputError(SourceLocation{file, 0, 0}, std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace tenet_cost
