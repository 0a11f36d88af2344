// Time maps whose floor/mod terms nest (a term inside a term's numerator): the counter's wrap analysis must
// refuse such a coordinate (it indexed the nested term as a domain variable: heap-buffer-overflow found by
// fuzz_tenet in CI, reproducers in fuzz/regressions/tenet/nested-*), and every count must equal enumeration.
#include <catch2/catch.hpp>
#include <string>

#include "tenet/metrics_check.hpp"
#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;

TEST_CASE("time maps with nested floor terms: the counter equals enumeration") {
  const char* time_maps[] = {
      "{S[i,j]->T[floor((floor(i/4)+i)/2),j]}",     "{S[i,j]->T[floor((floor(i/4)+i)/2),j,i%4]}",
      "{S[i,j]->T[floor(floor(i/2)/2),j]}",         "{S[i,j]->T[floor((i%4+i)/2),j]}",
      "{S[i,j]->T[i%4,floor((floor(j/2)+j)/2),i]}",
  };
  for (const char* tm : time_maps) {
    INFO(tm);
    const tenet::Problem p = tenet::make_problem("{PE[i]:0<=i<4}", "{PE[i]->PE[i+1]}", "{S[i,j]: 0<=i<9 and 0<=j<7}",
                                                 {"{S[i,j]->A[i,j]}"}, {"{S[i,j]->B[i,j]}"}, "{S[i,j]->PE[i%4]}", tm);
    tenet::AnalyzeOptions en;
    en.enumerate = true;
    const tenet::Metrics oracle = tenet::analyze(p, en);
    test::check_same_metrics(tenet::analyze(p, tenet::AnalyzeOptions{}), oracle);
  }
}
