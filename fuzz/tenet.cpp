// TENET .p/.s/.m readers + the relation-centric engine on small domains.
// Input: the three files separated by lines "----" (PE array, statement,
// mapping). Domains are capped (statement <= 4096 points, PE <= 1024) so one
// run is bounded; larger inputs are only loaded, not analyzed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "fuzz_common.hpp"
#include "tenet_cost/relation.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/tenet.hpp"

namespace {

std::string temp_dir() {
  static std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/tc_fuzz_tenet.XXXXXX";
    if (::mkdtemp(t.data()) == nullptr) std::abort();
    return t;
  }();
  return dir;
}

void write(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

/// Number of points of the first piece's bounding box, or -1 when unbounded or large.
long long box_points(const tenet_cost::tenet::RelationText& t, long long cap) {
  using namespace tenet_cost::relation;
  const Relation r = parse(t.text, t.loc);
  long long total = 0;
  for (const Piece& p : r.pieces) {
    std::vector<Interval> box;
    if (!as_box(p, box)) return -1;
    long long n = 1;
    for (const auto& iv : box) {
      if (iv.hi < iv.lo) {
        n = 0;
        break;
      }
      const long long w = static_cast<long long>(iv.hi) - static_cast<long long>(iv.lo) + 1;
      if (w > cap || n > cap / w) return -1;
      n *= w;
    }
    total += n;
    if (total > cap) return -1;
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;
  const std::string in = tc_fuzz::text(data, size);
  std::string parts[3];
  std::size_t pos = 0;
  for (int k = 0; k < 3; ++k) {
    const std::size_t sep = in.find("\n----\n", pos);
    if (k < 2 && sep == std::string::npos) {
      parts[k] = in.substr(pos);
      pos = in.size();
      continue;
    }
    parts[k] = k < 2 ? in.substr(pos, sep - pos) : in.substr(pos);
    pos = k < 2 ? sep + 6 : in.size();
  }
  const std::string dir = temp_dir();
  write(dir + "/a.p", parts[0]);
  write(dir + "/a.s", parts[1]);
  write(dir + "/a.m", parts[2]);
  return tc_fuzz::guarded([&] {
    using namespace tenet_cost::tenet;
    const Problem p = load_problem(dir + "/a.p", dir + "/a.s", dir + "/a.m");
    const long long d = box_points(p.statement.domain, 4096);
    const long long pe = box_points(p.pe.domain, 1024);
    if (d < 0 || pe < 0) return;
    AnalyzeOptions opt;
    opt.enumerate = (size % 2) == 0;
    tc_fuzz::check_output([&] {
      const Metrics m = analyze(p, opt);
      (void)tenet_cost::report::tenet_text(m);
      return tenet_cost::report::tenet_json(m);
    });
  });
}
