#include "tenet_cost/error.hpp"

#include "tenet_cost/checked.hpp"

namespace tenet_cost {

std::string SourceLocation::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

InputError::InputError(const std::string& message) : std::runtime_error(message), detail_(message) {}

InputError::InputError(const SourceLocation& where, const std::string& message)
    : std::runtime_error(where.str() + ": " + message), where_(where), detail_(message) {}

OverflowError::OverflowError(const std::string& what_overflowed)
    : InputError("arithmetic overflow: " + what_overflowed + " does not fit in 64 bits") {}

InternalError::InternalError(const std::string& message) : std::logic_error("internal error: " + message) {}

void throw_overflow(std::string_view what) { throw OverflowError(std::string(what)); }

void throw_division_by_zero() { throw InputError("division by zero"); }

}  // namespace tenet_cost
