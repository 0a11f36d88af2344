// The hostile-input suite (issue 28 item 6, docs/reliability.md §2b): every integer literal of the project's fixtures
// set to 0, -1, 2^31, 2^32, 2^62, 2^63-1, -2^63, 2^64; truncation after every line; the file twice; byte flips; a
// UTF-8 BOM and UTF-16LE. In-process (library calls), deterministic (seeded by file name), bounded: about
// TC_HOSTILE_CASES cases (default 25,000 asked, about 20,500 run: large dumps get fewer; set it higher for a longer
// run, TC_HOSTILE_SEED varies the sample). Every case must end in a result of finite non-negative numbers (equal to the
// unmutated file's when the mutation keeps the text: the file twice, the encodings) or an InputError naming the file,
// with line:col when the file has lines, in at most 300 characters.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "hostile/mutate.hpp"
#include "hostile/runners.hpp"
#include "tenet/shared_fixtures.hpp"
#include "test_support.hpp"

using namespace tc_hostile;
namespace fs = std::filesystem;

namespace {

// Every message names the file and, where the file has lines, its line (docs/reliability.md §2b): measured 1,450
// messages without them on 2026-11-26, brought to 0 the same day (the last two: a TVM-JSON workload's negative K and
// an extern dequant overflow, tests/hostile/test_regressions.cpp). An exact check for every seed and case count.
constexpr std::size_t kKnownLocationGaps = 0;

std::size_t env_size(const char* name, std::size_t dflt) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : dflt;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* class_name(MutationClass c) {
  switch (c) {
    case MutationClass::kInteger: return "integer";
    case MutationClass::kTruncate: return "truncate";
    case MutationClass::kTwice: return "twice";
    case MutationClass::kFlip: return "flip";
    case MutationClass::kEncoding: return "encoding";
  }
  return "?";
}

}  // namespace

TEST_CASE("hostile inputs end in a right result or a clean located error", "[hostile]") {
  const std::string shared = tc_test::shared_or_skip("fixtures");
  const auto all = fixtures(TC_SOURCE_DIR, shared);
  REQUIRE(all.size() > 40);
  const std::size_t total = env_size("TC_HOSTILE_CASES", 25'000);
  const std::uint64_t seed = env_size("TC_HOSTILE_SEED", 1);
  const fs::path dir = fs::temp_directory_path() / ("tc_hostile_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Budget per file: an equal share, cut for large files (a 350 KB dump parses in ~10 ms) so the suite stays bounded.
  const std::size_t share = total / all.size() + 1;
  std::map<std::string, std::size_t> cases_by_class, errors_by_class;
  std::map<std::string, std::size_t> finding_kinds;  // file extension + first problem: count
  std::size_t cases = 0, findings = 0, location_gaps = 0;
  const bool list_all = std::getenv("TC_HOSTILE_LIST") != nullptr;  // every finding and gap, tab-separated, on stdout
  const auto t0 = std::chrono::steady_clock::now();
  for (const Fixture& f : all) {
    const std::string text = read_all(f.path);
    const std::size_t budget = text.size() <= 8192 ? share : std::max<std::size_t>(12, share * 8192 / text.size());
    const bool tenet = f.format >= Format::kTenetPe;
    const std::string file_name =
        tenet ? dir.string() + "/" : dir.string() + "/" + fs::path(f.path).filename().string();
    const Outcome original = run(f, text, dir.string());
    INFO(f.path);
    // A fixture refused on purpose (e.g. an MLA config) stays refused: its mutations are judged all the same.
    CHECK(original.kind != Outcome::Kind::kOtherException);
    for (const Mutation& mu : mutations(text, budget, seed_of(fs::path(f.path).filename().string(), seed))) {
      const Outcome o = run(f, mu.bytes, dir.string());
      ++cases;
      ++cases_by_class[class_name(mu.cls)];
      if (o.kind != Outcome::Kind::kOk) ++errors_by_class[class_name(mu.cls)];
      const bool has_lines = mu.bytes.find('\n') != std::string::npos && mu.bytes.find('\n') + 1 < mu.bytes.size();
      const Verdict v = judge(o, file_name, has_lines, original, keeps_value(mu.cls));
      if (!v.text.empty()) {
        ++(v.serious ? findings : location_gaps);
        if (list_all) std::cout << "gap\t" << f.path << "\t" << mu.what << "\t" << v.text << "\n";
        const std::string kind = fs::path(f.path).extension().string() + " " + v.text.substr(0, v.text.find(';'));
        if (++finding_kinds[kind] <= 3)
          std::cerr << f.path << " [" << mu.what << "]: " << v.text.substr(0, 400) << "\n";
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string summary;
  for (const auto& [c, n] : cases_by_class)
    summary += " " + c + " " + std::to_string(n) + " (" + std::to_string(errors_by_class[c]) + " refused)";
  WARN(cases << " hostile cases from " << all.size() << " fixtures in " << secs << " s:" << summary << "; " << findings
             << " findings, " << location_gaps << " messages without the file or its line");
  for (const auto& [k, n] : finding_kinds) UNSCOPED_INFO(n << " x " << k);
  fs::remove_all(dir);
  CHECK(findings == 0);
  // Messages that do not name the file or its line (TC_HOSTILE_LIST=1 lists them): none, with any seed.
  CHECK(location_gaps == kKnownLocationGaps);
  CHECK(cases >= std::min<std::size_t>(total, 20'000) * 9 / 10);
}
