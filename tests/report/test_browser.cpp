// The report in a real browser: headless chromium loads the page from file://
// without console errors, the in-page self-check passes, and every chart's box
// in the screenshot has ink. Skips (with a warning) when chromium is not installed.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/png.hpp"
#include "report/sample_doc.hpp"
#include "tenet_cost/report_html.hpp"

namespace fs = std::filesystem;

namespace {

std::string find_chromium() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
      if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  return "";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Browser {
  std::string exe;
  fs::path dir;
  /// Runs chromium headless on `page` with extra args; returns its stderr log.
  std::string run(const fs::path& page, const std::string& args, const std::string& stdout_file, int w, int h) const {
    const fs::path log = dir / "chromium.log";
    const std::string cmd = "timeout 60 '" + exe +
                            "' --headless --no-sandbox --disable-gpu --hide-scrollbars "
                            "--no-first-run --disable-extensions --force-device-scale-factor=1 "
                            // paint everything (fonts, layout) before the screenshot or DOM dump, however loaded
                            // the machine: a loaded CI once captured the trade-off chart with part of its text
                            "--run-all-compositor-stages-before-draw --virtual-time-budget=10000 "
                            "--enable-logging=stderr --v=0 --user-data-dir='" +
                            (dir / "profile").string() + "' --window-size=" + std::to_string(w) + "," +
                            std::to_string(h) + " " + args + " 'file://" + page.string() + "' > '" + stdout_file +
                            "' 2> '" + log.string() + "'";
    const int rc = std::system(cmd.c_str());
    INFO(cmd << "\n" << slurp(log));
    REQUIRE(rc == 0);
    return slurp(log);
  }
};

/// Lines of chromium's log that are the page's console messages.
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  std::stringstream s(log);
  std::string line;
  while (std::getline(s, line))
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("report html in headless chromium: loads cleanly, every chart drawn") {
  const std::string exe = find_chromium();
  if (exe.empty()) {
    WARN(
        "browser test skipped: chromium is not installed (bash scripts/install-deps.sh with TC_WITH_BROWSER=1 installs "
        "it)");
    return;
  }
  Browser b{exe, fs::temp_directory_path() / ("tc_report_browser_" + std::to_string(::getpid()))};
  fs::remove_all(b.dir);
  fs::create_directories(b.dir);
  const fs::path page = b.dir / "report.html";
  { std::ofstream(page, std::ios::binary) << tenet_cost::report::html::render(tc_test::sample_doc()); }
  const int width = 1100;

  // The log scan sees console errors: a probe page that logs one must be caught.
  const fs::path probe = b.dir / "probe.html";
  std::ofstream(probe) << "<!DOCTYPE html><html><body><script>console.error('tc-probe-error')</script></body></html>\n";
  const auto probe_lines = console_lines(b.run(probe, "--dump-dom", (b.dir / "probe.dom").string(), width, 600));
  REQUIRE(probe_lines.size() == 1);
  CHECK(probe_lines[0].find("tc-probe-error") != std::string::npos);

  // 1. the DOM after load: self-check passed, chart boxes recorded, no console message
  const std::string log = b.run(page, "--dump-dom", (b.dir / "report.dom").string(), width, 1000);
  const auto lines = console_lines(log);
  for (const auto& l : lines) UNSCOPED_INFO(l);
  CHECK(lines.empty());
  const std::string dom = slurp(b.dir / "report.dom");
  CHECK(dom.find("data-selfcheck=\"ok 10\"") != std::string::npos);
  struct Box {
    std::string id;
    int x, y, w, h;
  };
  std::vector<Box> boxes;
  static const std::regex fig_re(
      R"re(<figure class="chart" id="([^"]+)" data-chart="[a-z]+" data-box="(\d+),(\d+),(\d+),(\d+)")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), fig_re); it != std::sregex_iterator(); ++it)
    boxes.push_back({(*it)[1].str(), std::stoi((*it)[2].str()), std::stoi((*it)[3].str()), std::stoi((*it)[4].str()),
                     std::stoi((*it)[5].str())});
  REQUIRE(boxes.size() == 10);
  int bottom = 0;
  for (const auto& bx : boxes) bottom = std::max(bottom, bx.y + bx.h);

  // 2. the screenshot, tall enough to hold every chart: ink in each chart's box
  const fs::path png = b.dir / "report.png";
  b.run(page, "--screenshot='" + png.string() + "'", (b.dir / "shot.out").string(), width, bottom + 40);
  const auto img = tc_test::read_png(png.string());
  REQUIRE(img.width == static_cast<std::uint32_t>(width));
  for (const auto& bx : boxes) {
    INFO(bx.id << " box " << bx.x << "," << bx.y << " " << bx.w << "x" << bx.h);
    REQUIRE(bx.x + bx.w <= static_cast<int>(img.width));
    REQUIRE(bx.y + bx.h <= static_cast<int>(img.height));
    std::size_t ink = 0;
    for (int y = bx.y; y < bx.y + bx.h; ++y)
      for (int x = bx.x; x < bx.x + bx.w; ++x)
        ink += img.ink(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y));
    const double share = static_cast<double>(ink) / (static_cast<double>(bx.w) * bx.h);
    INFO("ink share " << share);
    CHECK(share > 0.02);
  }
  // the page outside the charts is mostly white: the ink test can fail
  std::size_t blank_rows = 0;
  for (std::uint32_t y = 0; y < img.height; ++y) {
    bool any = false;
    for (std::uint32_t x = 0; x < img.width && !any; ++x) any = img.ink(x, y);
    blank_rows += any ? 0 : 1;
  }
  CHECK(blank_rows > 0);
  fs::remove_all(b.dir);
}
