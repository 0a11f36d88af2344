// "compare: 3/6 schemes (...)" on a terminal's stderr, for runs over a second (compare, search).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

namespace tenet_cost::cli {

class Progress {
 public:
  Progress(std::string label, std::string unit, std::size_t total)
      : label_(std::move(label)),
        unit_(std::move(unit)),
        total_(total),
        start_(std::chrono::steady_clock::now()),
        tty_(isatty(2) != 0) {}
  void set_total(std::size_t total) { total_ = total; }
  void step(std::size_t done, const std::string& what = "") {
    if (!tty_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (s < 1.0) return;
    shown_ = true;
    std::fprintf(stderr, "\r%s: %zu/%zu %s%s%s%s   ", label_.c_str(), done, total_, unit_.c_str(),
                 what.empty() ? "" : " (", what.c_str(), what.empty() ? "" : ")");
    std::fflush(stderr);
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r%70s\r", "");
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  std::string label_, unit_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
  bool tty_;
  bool shown_ = false;
};

}  // namespace tenet_cost::cli
