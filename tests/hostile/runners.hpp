// In-process runners of the hostile-input suite: one input format each, through the library calls the CLI makes,
// returning the result as JSON text (to compare with the unmutated file's) or the InputError's message.
#pragma once

#include <string>
#include <vector>

namespace tc_hostile {

enum class Format { kTvmScript, kTvmJson, kArch, kHfConfig, kTenetPe, kTenetStatement, kTenetMapping };

struct Outcome {
  enum class Kind { kOk, kInputError, kOtherException } kind = Kind::kOk;
  std::string text;  // kOk: the result as JSON; otherwise the exception's what()
};

/// A fixture file of one format. TENET files come with the two other files of their triple.
struct Fixture {
  Format format;
  std::string path;                    // the file mutated
  std::string pe, statement, mapping;  // TENET triple (one of them is `path`)
};

/// Runs `bytes` as the fixture's file, written under `dir` with the fixture's file name (TENET: with the other
/// two files of the triple unchanged).
Outcome run(const Fixture& f, const std::string& bytes, const std::string& dir);

/// The project's fixtures (and ../shared/fixtures when `shared` is not empty).
std::vector<Fixture> fixtures(const std::string& source_dir, const std::string& shared);

/// What is wrong with an outcome (empty `text`: clean). Serious: a non-InputError exception; a result with a
/// negative or non-finite number; a value different from `original` when `same_value` (and the original was
/// accepted); a message over 300 characters. Not serious (a location gap): a message without the file's name, or
/// without its line (`file:line[:col]`) when the file has several lines.
struct Verdict {
  bool serious = false;
  std::string text;
};
Verdict judge(const Outcome& o, const std::string& file_name, bool has_lines, const Outcome& original, bool same_value);

}  // namespace tc_hostile
