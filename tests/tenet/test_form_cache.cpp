// Closed forms shared between compiled problems (tenet::FormCache): a problem whose count groups were compiled into
// the cache by another problem (the same maps, tensors renamed, or a scale tensor added beside them) counts nothing
// new for them, and every figure still equals enumeration; problems of another mapping share nothing.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tenet/metrics_check.hpp"
#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;

namespace {

// A 4x4 GEMM tile under the dataflow `df` (0 os, 1 is: one systolic map each) with the tensors `names` (A, B, C
// roles) and, when g > 0, a group scale SW[j, floor(k/g)].
tenet::Problem gemm(int df, const std::vector<std::string>& names, int g, long long M, long long N, long long K) {
  const std::string space = df == 0 ? "PE[i%4,j%4]" : "PE[k%4,i%4]";
  const std::string time = df == 0 ? "T[floor(i/4),floor(j/4),i%4+j%4+k]" : "T[floor(i/4),floor(k/4),j+i%4+k%4]";
  std::vector<std::string> reads = {"{S[i,j,k] -> " + names[0] + "[i,k]}", "{S[i,j,k] -> " + names[1] + "[k,j]}"};
  if (g > 0) reads.push_back("{S[i,j,k] -> SW[j,floor(k/" + std::to_string(g) + ")]}");
  return tenet::make_problem("{PE[p,q] : 0<=p<4 and 0<=q<4}", "{PE[p,q] -> PE[p,q+1]; PE[p,q] -> PE[p+1,q]}",
                             "{S[i,j,k] : 0<=i<" + std::to_string(M) + " and 0<=j<" + std::to_string(N) + " and 0<=k<" +
                                 std::to_string(K) + "}",
                             reads, {"{S[i,j,k] -> " + names[2] + "[i,j]}"}, "{S[i,j,k] -> " + space + "}",
                             "{S[i,j,k] -> " + time + "}");
}

const std::vector<std::vector<std::int64_t>> kExtents = {{16, 8, 32}, {24, 12, 48}, {5, 7, 30}, {8, 16, 64}};

tenet::Metrics enumerated(const tenet::Problem& p) {
  tenet::AnalyzeOptions en;
  en.enumerate = true;
  return tenet::analyze(p, en);
}

}  // namespace

TEST_CASE("problems sharing a FormCache reuse each other's closed forms and equal enumeration") {
  const std::vector<std::string> abc = {"A", "B", "C"}, renamed = {"Act", "Wt", "Out"};
  for (int df = 0; df < 2; ++df) {
    INFO("dataflow " << df);
    const auto cache = tenet::make_form_cache();
    const auto plain = tenet::compile_parametric(gemm(df, abc, 0, 8, 8, 16), {}, nullptr, cache);
    for (const auto& e : kExtents) tenet::evaluate(plain, e);
    // the same structure under other names (in the same order: a group's members are its tensors sorted by name):
    // every group is in the cache, nothing is counted
    const auto same = tenet::compile_parametric(gemm(df, renamed, 0, 8, 8, 16), {}, nullptr, cache);
    for (const auto& e : kExtents) {
      INFO(e[0] << "x" << e[1] << "x" << e[2]);
      const tenet::Metrics m = tenet::evaluate(same, e);
      CHECK(m.instances_counted == 0);
      test::check_same_metrics(m, enumerated(gemm(df, renamed, 0, e[0], e[1], e[2])));
    }
    // a group scale beside them (period 8 along k, the array's 4: a group of its own): only that group is counted,
    // fewer instances than a compile without the cache
    std::int64_t shared_instances = 0, own_instances = 0;
    const auto scaled = tenet::compile_parametric(gemm(df, abc, 8, 8, 8, 16), {}, nullptr, cache);
    const auto own = tenet::compile_parametric(gemm(df, abc, 8, 8, 8, 16));
    for (const auto& e : kExtents) {
      INFO(e[0] << "x" << e[1] << "x" << e[2] << " with SW");
      const tenet::Metrics a = tenet::evaluate(scaled, e), b = tenet::evaluate(own, e);
      shared_instances += a.instances_counted;
      own_instances += b.instances_counted;
      const tenet::Metrics x = enumerated(gemm(df, abc, 8, e[0], e[1], e[2]));
      test::check_same_metrics(a, x);
      test::check_same_metrics(b, x);
    }
    CHECK(shared_instances < own_instances);
  }
  // another mapping in the same cache shares nothing: its figures are its own
  const auto cache = tenet::make_form_cache();
  const auto os = tenet::compile_parametric(gemm(0, abc, 0, 8, 8, 16), {}, nullptr, cache);
  const auto is = tenet::compile_parametric(gemm(1, abc, 0, 8, 8, 16), {}, nullptr, cache);
  for (const auto& e : kExtents) {
    INFO(e[0] << "x" << e[1] << "x" << e[2]);
    test::check_same_metrics(tenet::evaluate(os, e), enumerated(gemm(0, abc, 0, e[0], e[1], e[2])));
    test::check_same_metrics(tenet::evaluate(is, e), enumerated(gemm(1, abc, 0, e[0], e[1], e[2])));
  }
}
