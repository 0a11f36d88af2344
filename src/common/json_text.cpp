#include "tenet_cost/json_text.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "tenet_cost/message.hpp"

namespace tenet_cost {

SourceLocation location_at(const std::string& text, std::size_t offset, const std::string& file) {
  SourceLocation loc{file, 1, 1};
  const std::size_t end = std::min(offset, text.size());
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  // a UTF-8 byte order mark is not part of line 1 (as in the TVMScript lexer): columns count from after it
  const std::size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? std::min<std::size_t>(3, end) : 0;
  for (std::size_t k = bom; k < end; ++k) {
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

// One pass over the text before nlohmann builds a tree: rejects nesting deeper
// than the limit (a pathological tree) and a key given twice in one object
// (nlohmann would keep the last one silently). Keys are compared as written.
class StructureCheck {
 public:
  StructureCheck(const std::string& text, const std::string& file, int max_nesting)
      : text_(text), file_(file), max_nesting_(max_nesting) {}

  void run() {
    for (std::size_t k = 0; k < text_.size(); ++k) {
      const char c = text_[k];
      if (c == '"') {
        const std::size_t end = string_end(k);
        if (depth_ > 0 && frames_[depth_ - 1].object && frames_[depth_ - 1].expect_key) {
          add_key(std::string_view(text_).substr(k + 1, end - k - 1), k);
          frames_[depth_ - 1].expect_key = false;
        }
        k = end;
      } else if (c == '[' || c == '{') {
        if (depth_ >= static_cast<std::size_t>(max_nesting_))
          throw InputError(location_at(text_, k, file_),
                           "JSON nested deeper than " + std::to_string(max_nesting_) + " levels");
        if (frames_.size() <= depth_) frames_.emplace_back();
        Frame& f = frames_[depth_++];
        f.object = c == '{';
        f.expect_key = f.object;
        f.keys.clear();
        f.key_set.clear();
      } else if ((c == ']' || c == '}') && depth_ > 0) {
        --depth_;
      } else if (c == ',' && depth_ > 0 && frames_[depth_ - 1].object) {
        frames_[depth_ - 1].expect_key = true;
      }
    }
  }

 private:
  struct Frame {
    bool object = false;
    bool expect_key = false;
    std::vector<std::string_view> keys;            // the first few keys (linear search)
    std::unordered_set<std::string_view> key_set;  // all keys once there are many
  };

  // Index of the closing quote of the string opening at `open` (or the end of the text).
  std::size_t string_end(std::size_t open) const {
    for (std::size_t k = open + 1; k < text_.size(); ++k) {
      if (text_[k] == '\\') {
        ++k;
      } else if (text_[k] == '"') {
        return k;
      }
    }
    return text_.size();
  }

  void add_key(std::string_view key, std::size_t at) {
    Frame& f = frames_[depth_ - 1];
    constexpr std::size_t kLinear = 16;
    bool dup = false;
    if (f.key_set.empty()) {
      dup = std::find(f.keys.begin(), f.keys.end(), key) != f.keys.end();
      f.keys.push_back(key);
      if (f.keys.size() > kLinear) f.key_set.insert(f.keys.begin(), f.keys.end());
    } else {
      dup = !f.key_set.insert(key).second;
    }
    if (dup)
      throw InputError(location_at(text_, at, file_),
                       "expected each key once in a JSON object, found " + quote_for_message(key) + " twice");
  }

  const std::string& text_;
  const std::string& file_;
  int max_nesting_;
  std::vector<Frame> frames_;
  std::size_t depth_ = 0;
};

bool json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The byte after the string opening at `open` (or the end of the text).
std::size_t after_string(const std::string& t, std::size_t open) {
  for (std::size_t k = open + 1; k < t.size(); ++k) {
    if (t[k] == '\\') ++k;
    else if (t[k] == '"') return k + 1;
  }
  return t.size();
}

// The byte after the value starting at `i`.
std::size_t after_value(const std::string& t, std::size_t i) {
  if (i >= t.size()) return i;
  if (t[i] == '"') return after_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    std::size_t depth = 0;
    for (; i < t.size(); ++i) {
      const char c = t[i];
      if (c == '"') {
        i = after_string(t, i) - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return i;
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !json_space(t[i])) ++i;
  return i;
}

// Records where nlohmann's parser stopped: its DOM parser rethrows a number overflow (out_of_range 406) without the
// position, its SAX interface passes it.
struct ErrorPosition final : nlohmann::json_sax<nlohmann::json> {
  std::size_t at = std::string::npos;
  std::string token;
  bool null() override { return true; }
  bool boolean(bool /*unused*/) override { return true; }
  bool number_integer(number_integer_t /*unused*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*unused*/) override { return true; }
  bool number_float(number_float_t /*unused*/, const string_t& /*unused*/) override { return true; }
  bool string(string_t& /*unused*/) override { return true; }
  bool binary(binary_t& /*unused*/) override { return true; }
  bool start_object(std::size_t /*unused*/) override { return true; }
  bool key(string_t& /*unused*/) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*unused*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& /*unused*/) override {
    at = position >= last_token.size() ? position - last_token.size() : 0;
    token = last_token;
    return false;
  }
};

}  // namespace

std::size_t JsonLocator::find(const JsonPath& path, std::size_t& deepest) const {
  const std::string& t = *text_;
  auto ws = [&t](std::size_t i) {
    while (i < t.size() && json_space(t[i])) ++i;
    return i;
  };
  std::size_t i = ws(t.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0);  // after a byte order mark (nlohmann skips it)
  deepest = i;
  for (const JsonStep& step : path) {
    if (i >= t.size()) return std::string::npos;
    bool found = false;
    if (t[i] == '{' && std::holds_alternative<std::string>(step)) {
      const std::string& want = std::get<std::string>(step);
      for (i = ws(i + 1); i < t.size() && t[i] == '"';) {
        const std::size_t end = after_string(t, i);
        const bool match = std::string_view(t).substr(i + 1, end - i - 2) == want;
        i = ws(end);
        if (i >= t.size() || t[i] != ':') return std::string::npos;
        i = ws(i + 1);
        if (match) {
          found = true;
          break;
        }
        i = ws(after_value(t, i));
        if (i < t.size() && t[i] == ',') i = ws(i + 1);
      }
    } else if (t[i] == '[' && std::holds_alternative<std::size_t>(step)) {
      const std::size_t want = std::get<std::size_t>(step);
      i = ws(i + 1);
      for (std::size_t n = 0; i < t.size() && t[i] != ']'; ++n) {
        if (n == want) {
          found = true;
          break;
        }
        i = ws(after_value(t, i));
        if (i < t.size() && t[i] == ',') i = ws(i + 1);
      }
    }
    if (!found) return std::string::npos;
    deepest = i;
  }
  return i;
}

std::size_t JsonLocator::offset(const JsonPath& path) const {
  std::size_t deepest = 0;
  return find(path, deepest);
}

SourceLocation JsonLocator::at(const JsonPath& path) const {
  std::size_t deepest = 0;
  const std::size_t off = find(path, deepest);
  return location_at(*text_, off == std::string::npos ? deepest : off, file_);
}

std::vector<SourceLocation> JsonLocator::elements_at(const JsonPath& array,
                                                     const std::vector<std::size_t>& indices) const {
  std::vector<SourceLocation> out(indices.size(), SourceLocation{file_, 0, 0});
  const std::string& t = *text_;
  std::size_t i = offset(array);
  if (i == std::string::npos || i >= t.size() || t[i] != '[') return out;
  auto ws = [&t](std::size_t k) {
    while (k < t.size() && json_space(t[k])) ++k;
    return k;
  };
  SourceLocation at = location_at(t, i, file_);  // then counted forward from here
  std::size_t counted = i, want = 0;
  i = ws(i + 1);
  for (std::size_t n = 0; i < t.size() && t[i] != ']' && want < indices.size(); ++n) {
    if (n == indices[want]) {
      for (; counted < i; ++counted) {
        if (t[counted] == '\n') {
          ++at.line;
          at.column = 1;
        } else {
          ++at.column;
        }
      }
      out[want++] = at;
    }
    i = ws(after_value(t, i));
    if (i < t.size() && t[i] == ',') i = ws(i + 1);
  }
  return out;
}

nlohmann::json parse_json_document(const std::string& text, const std::string& file, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw InputError(SourceLocation{file, 0, 0}, std::string(limits.what) + " is " + std::to_string(text.size()) +
                                                     " bytes, over the limit of " + std::to_string(limits.max_bytes) +
                                                     " bytes");
  // nlohmann's lexer takes a NUL byte for the end of the input: `{...}\0garbage` would parse as `{...}`.
  // No JSON text holds a raw NUL (a string spells it \u0000).
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw InputError(location_at(text, nul, file), "expected JSON text, found a NUL byte");
  StructureCheck(text, file, limits.max_nesting).run();
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
    // nlohmann quotes the whole token read so far ("last read: '<a 10 KB string>'"): quote it elided instead.
    // The quote may be followed by "; expected ..." (e.g. a bad object key): elide only the quoted token.
    if (const auto lr = msg.find("; last read: '"), end = msg.rfind('\'');
        lr != std::string::npos && end != std::string::npos && end >= lr + 14)
      msg = msg.substr(0, lr) +
            "; last read: " + quote_for_message(std::string_view(msg).substr(lr + 14, end - lr - 14)) +
            msg.substr(end + 1);
    throw InputError(location_at(text, off, file), "invalid JSON: " + msg);
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range 406: a number overflows a double
    ErrorPosition pos;
    (void)nlohmann::json::sax_parse(text, &pos);
    if (pos.at == std::string::npos)
      throw InputError(SourceLocation{file, 0, 0}, std::string("invalid JSON: ") + e.what());
    throw InputError(location_at(text, pos.at, file),
                     "expected a number within a double's range, found " + quote_for_message(pos.token));
  }
}

}  // namespace tenet_cost
