// Command-line checks shared by the benchmarks: inputs are arguments (no compiled-in data paths);
// a missing input or a bad number stops the benchmark with exit 2 and a one-line message naming it.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include "tenet_cost/error.hpp"

namespace bench {

/// "<bench>: <message>" on stderr, exit 2 (bad input, like the CLI).
[[noreturn]] inline void fail(const char* bench, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", bench, message.c_str());
  std::exit(2);
}

/// `path` when it is a folder, else fail naming it and what it should hold.
inline std::string require_dir(const char* bench, const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) fail(bench, "missing folder '" + path + "' (" + what + ")");
  return path;
}

/// `path` when it is a regular file, else fail naming it.
inline std::string require_file(const char* bench, const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(bench, "missing file '" + path + "' (" + what + ")");
  return path;
}

/// The folders the Llama-2-7B benchmarks read from the source tree `root` (the data folder argument): fails when
/// `root` is empty or a file is missing.
struct LlamaTree {
  std::string workloads, presets;  // root/workloads, root/configs/arch
};
inline LlamaTree require_llama_tree(const char* bench, const std::string& root, const std::string& default_arch) {
  if (root.empty())
    fail(bench, "expected the data folder (the source tree: workloads/, configs/arch/) as the argument");
  LlamaTree t;
  t.workloads = require_dir(bench, root + "/workloads", "the shipped models");
  const std::string dir = require_dir(bench, t.workloads + "/llama-2-7b", "the Llama-2-7B dump and config");
  require_file(bench, dir + "/config.json", "the Llama-2-7B config");
  require_file(bench, dir + "/q0f16.py", "the Llama-2-7B dump");
  t.presets = require_dir(bench, root + "/configs/arch", "the arch presets");
  require_file(bench, t.presets + "/" + default_arch + ".json", "the default arch");
  return t;
}

/// A finite number > 0 (the whole text), else fail.
inline double positive(const char* bench, const std::string& text, const char* what) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v) || v <= 0)
    fail(bench, std::string("expected ") + what + " (a number > 0), found '" + text + "'");
  return v;
}

/// An integer in [1, 1000000] (the whole text), else fail.
inline int count(const char* bench, const std::string& text, const char* what) {
  const double v = positive(bench, text, what);
  if (v != std::floor(v) || v > 1e6)
    fail(bench, std::string("expected ") + what + " (an integer 1..1000000), found '" + text + "'");
  return static_cast<int>(v);
}

/// `body()`'s exit status; an input error (a fixture that does not parse) exits 2 and any other
/// exception 1, each with a one-line message.
template <class F>
int guarded(const char* bench, F&& body) {
  try {
    return body();
  } catch (const tenet_cost::InputError& e) {
    fail(bench, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", bench, e.what());
    return 1;
  }
}

}  // namespace bench
