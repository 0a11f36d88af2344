// Error types shared by every module.
//
// InputError   -- the user's input is wrong (bad file, bad option, overflow of a
//                 count the input asks for). The CLI exits with code 2.
// InternalError -- a bug in tenet-cost. The CLI exits with code 1.
//
// Every InputError that comes from a file with lines carries a SourceLocation so
// the message reads `file:line:col: expected X, found Y`.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tenet_cost {

/// A position in an input file. line/column are 1-based; 0 means "unknown".
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  /// "file:line:col", "file:line" or "file" depending on what is known.
  [[nodiscard]] std::string str() const;
};

/// Exit codes of the tenet-cost binary (documented in docs/cli.md).
enum class ExitCode : int { kOk = 0, kInternal = 1, kBadInput = 2 };

/// Bad input or usage. what() is the complete, user-facing message
/// (including the location prefix when there is one).
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message);
  InputError(const SourceLocation& where, const std::string& message);

  [[nodiscard]] const SourceLocation& where() const { return where_; }
  /// The message without the location prefix.
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  SourceLocation where_;
  std::string detail_;
};

/// An arithmetic result that does not fit the integer type: always an error,
/// never a wrapped number.
class OverflowError : public InputError {
 public:
  explicit OverflowError(const std::string& what_overflowed);
};

/// A broken invariant inside tenet-cost.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message);
};

}  // namespace tenet_cost
