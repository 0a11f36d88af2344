// DataType parsing (dtype.hpp).
#include "tenet_cost/dtype.hpp"

namespace tenet_cost {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }

// Reads a run of at most `max_digits` digits at s[i]; false when there is none or it is too long.
bool read_number(std::string_view s, std::size_t& i, int max_digits, int& out) {
  const std::size_t start = i;
  int v = 0;
  while (i < s.size() && is_digit(s[i])) {
    if (static_cast<int>(i - start) == max_digits) return false;
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  out = v;
  return i > start;
}

// The low-precision float formats TVM knows (ffi/dtype.h), with the bits each one names.
struct FloatFormat {
  std::string_view name;
  int bits;
};
constexpr FloatFormat kFloatFormats[] = {
    {"e3m4", 8},     {"e4m3", 8},    {"e4m3b11fnuz", 8}, {"e4m3fn", 8}, {"e4m3fnuz", 8}, {"e5m2", 8},
    {"e5m2fnuz", 8}, {"e8m0fnu", 8}, {"e2m3fn", 6},      {"e3m2fn", 6}, {"e2m1fn", 4},
};

bool known_format(std::string_view format, int bits) {
  for (const auto& f : kFloatFormats)
    if (f.name == format) return f.bits == bits;
  return false;
}

// "x<lanes>" after a type name (the whole rest of the text); false when malformed.
bool read_lanes(std::string_view s, std::size_t i, int& lanes) {
  if (i == s.size()) return true;
  if (s[i] != 'x') return false;
  ++i;
  return read_number(s, i, 5, lanes) && lanes >= 1 && i == s.size();
}

// MLC's and TVM's pre-2025 fp8 names (apache/tvm #17712 renamed them).
std::optional<DataType> old_fp8(std::string_view s) {
  for (const auto& [old, format] : {std::pair<std::string_view, const char*>{"e4m3_float8", "e4m3fn"},
                                    std::pair<std::string_view, const char*>{"e5m2_float8", "e5m2"}}) {
    if (s.substr(0, old.size()) != old) continue;
    DataType t{DataType::Code::kFloat, 8, 1, format};
    if (!read_lanes(s, old.size(), t.lanes)) return std::nullopt;
    return t;
  }
  return std::nullopt;
}

}  // namespace

std::optional<DataType> parse_dtype(std::string_view s) {
  if (s == "bool") return DataType{DataType::Code::kBool, 1, 1, ""};
  if (s == "handle") return DataType{DataType::Code::kHandle, 64, 1, ""};
  if (s == "void") return DataType{DataType::Code::kHandle, 0, 0, ""};
  if (!s.empty() && s[0] == 'e') return old_fp8(s);
  DataType t;
  std::size_t i = 0;
  if (s.substr(0, 4) == "uint") {
    t.code = DataType::Code::kUInt;
    i = 4;
  } else if (s.substr(0, 3) == "int") {
    t.code = DataType::Code::kInt;
    i = 3;
  } else if (s.substr(0, 6) == "bfloat") {
    t.code = DataType::Code::kBFloat;
    i = 6;
  } else if (s.substr(0, 5) == "float") {
    t.code = DataType::Code::kFloat;
    i = 5;
  } else {
    return std::nullopt;
  }
  if (!read_number(s, i, 3, t.bits) || t.bits < 1 || t.bits > 255) return std::nullopt;
  // lanes: a final "x<digits>" (no format suffix contains one)
  std::size_t end = s.size();
  if (const auto x = s.rfind('x'); x != std::string_view::npos && x >= i && x + 1 < s.size()) {
    bool digits = true;
    for (std::size_t k = x + 1; k < s.size(); ++k) digits = digits && is_digit(s[k]);
    if (digits) end = x;
  }
  if (t.code == DataType::Code::kFloat && i < end && s[i] == '_') {  // float8_e4m3fn, float4_e2m1fn
    const std::size_t start = ++i;
    while (i < end && is_lower_alnum(s[i])) ++i;
    if (i == start || i != end) return std::nullopt;
    t.format = std::string(s.substr(start, end - start));
    if (!known_format(t.format, t.bits)) return std::nullopt;
  }
  if (i != end) return std::nullopt;
  if (end < s.size()) {
    i = end + 1;
    if (!read_number(s, i, 5, t.lanes) || t.lanes < 1 || i != s.size()) return std::nullopt;
  }
  return t;
}

std::string to_string(const DataType& t) {
  std::string out;
  switch (t.code) {
    case DataType::Code::kBool: return "bool";
    case DataType::Code::kHandle: return t.is_void() ? "void" : "handle";
    case DataType::Code::kInt: out = "int"; break;
    case DataType::Code::kUInt: out = "uint"; break;
    case DataType::Code::kFloat: out = "float"; break;
    case DataType::Code::kBFloat: out = "bfloat"; break;
  }
  out += std::to_string(t.bits);
  if (!t.format.empty()) out += "_" + t.format;
  if (t.lanes != 1) out += "x" + std::to_string(t.lanes);
  return out;
}

std::string to_string(const OptDataType& t) { return t ? to_string(*t) : std::string(); }

int scalar_bits(const OptDataType& t) { return t && t->lanes == 1 ? t->bits : 0; }

std::string canonical_dtype(std::string_view text) {
  if (text.empty() || text[0] != 'e') return std::string(text);  // only the old fp8 names have another spelling
  const auto t = parse_dtype(text);
  return t ? to_string(*t) : std::string(text);
}

}  // namespace tenet_cost
