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

}  // namespace

std::optional<DataType> parse_dtype(std::string_view s) {
  if (s == "bool") return DataType{DataType::Code::kBool, 1, 1, ""};
  if (s == "handle") return DataType{DataType::Code::kHandle, 64, 1, ""};
  if (s == "e4m3_float8") return DataType{DataType::Code::kFloat, 8, 1, "e4m3fn"};
  if (s == "e5m2_float8") return DataType{DataType::Code::kFloat, 8, 1, "e5m2"};
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
    case DataType::Code::kHandle: return "handle";
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

}  // namespace tenet_cost
