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

}  // namespace

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
    throw InputError(SourceLocation{file, 0, 0}, std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace tenet_cost
