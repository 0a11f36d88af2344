// Helpers of the sweep tests: files, lines and a temporary folder.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sweep_test {

namespace fs = std::filesystem;

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The result lines of a results file's text (its header line, when there is one, dropped).
inline std::vector<std::string> result_lines(const std::string& text) {
  auto v = lines_of(text);
  if (!v.empty() && v.front().rfind("{\"format\":", 0) == 0) v.erase(v.begin());
  return v;
}

inline std::vector<std::string> sorted_lines(const std::string& text) {
  auto v = lines_of(text);
  std::sort(v.begin(), v.end());
  return v;
}

// A fresh folder under /tmp, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/tc_sweep_testXXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace sweep_test
