// An independent oracle for the brute-force core: TENET's counts computed from their definitions with ordered sets
// (docs/tenet-engine.md §2), on small GEMM-shaped problems whose space-time maps are unit (one instance per
// (stamp, PE): the brute force orders them through a dense (stamp, PE) table), unit with idle PEs (partial tiles:
// the table is sparse) and not unit (two instances per (stamp, PE): counting sorts). Both enumeration and the
// counter must equal the reference.
#include <array>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tenet_cost/tenet.hpp"

using namespace tenet_cost;

namespace {

using Vec = std::vector<std::int64_t>;
using Fn = std::function<Vec(std::int64_t, std::int64_t, std::int64_t)>;

struct Access {
  std::string name, isl;  // isl: the output tuple, e.g. "A[i,k]"
  Fn f;
};

struct Case {
  std::int64_t P = 2, Q = 2, M = 1, N = 1, K = 1;
  std::string space_isl, time_isl;
  Fn space, time;
  std::vector<Access> reads, writes;
};

struct RefTensor {
  std::int64_t tv = 0, uv = 0, uvt = 0, spi = 0;
};

struct Reference {
  std::int64_t nT = 0, nS = 0, nSTD = 0;
  std::map<std::string, RefTensor> tensors;
};

/// TENET's counts by definition: Acc_X(s, t) as sets, prev(t) = the previous occupied stamp (lexicographic), the
/// interconnect of the systolic array (s obtains data from (p-1, q) and (p, q-1)), spatial reuse against the
/// neighbours only, unique volume against the neighbours and the PE itself at t and prev t.
Reference reference(const Case& c) {
  using Pe = Vec;
  std::map<Vec, std::map<Pe, std::map<std::string, std::set<Vec>>>> acc;  // stamp -> PE -> tensor -> elements
  Reference r;
  std::set<Pe> pes;
  for (std::int64_t i = 0; i < c.M; ++i)
    for (std::int64_t j = 0; j < c.N; ++j)
      for (std::int64_t k = 0; k < c.K; ++k) {
        const Pe s = c.space(i, j, k);
        auto& at = acc[c.time(i, j, k)][s];
        pes.insert(s);
        for (const auto* list : {&c.reads, &c.writes})
          for (const Access& a : *list) {
            at[a.name].insert(a.f(i, j, k));
            ++r.tensors[a.name].tv;
          }
      }
  r.nT = static_cast<std::int64_t>(acc.size());
  r.nS = static_cast<std::int64_t>(pes.size());
  using Stamp = std::map<Pe, std::map<std::string, std::set<Vec>>>;
  auto elements_at = [](const Stamp* stamp, const Pe& pe, const std::string& tensor) -> const std::set<Vec>* {
    if (stamp == nullptr) return nullptr;
    const auto p = stamp->find(pe);
    if (p == stamp->end()) return nullptr;
    const auto e = p->second.find(tensor);
    return e == p->second.end() ? nullptr : &e->second;
  };
  const Stamp* prev = nullptr;
  for (const auto& [t, at] : acc) {
    r.nSTD += static_cast<std::int64_t>(at.size());
    for (const auto& [s, by_tensor] : at) {
      const std::array<Pe, 2> links = {Pe{s[0] - 1, s[1]}, Pe{s[0], s[1] - 1}};
      for (const auto& [name, elems] : by_tensor) {
        RefTensor& rt = r.tensors[name];
        for (const Vec& e : elems) {
          bool spatial = false, temporal = false;
          for (const Pe& n : links)
            for (const auto* stamp : {&at, prev}) {
              const auto* other = elements_at(stamp, n, name);
              spatial = spatial || (other != nullptr && other->count(e) > 0);
            }
          const auto* self_prev = elements_at(prev, s, name);
          temporal = self_prev != nullptr && self_prev->count(e) > 0;
          rt.uv += (spatial || temporal) ? 0 : 1;
          rt.uvt += temporal ? 0 : 1;
          rt.spi += spatial ? 1 : 0;
        }
      }
    }
    prev = &at;
  }
  return r;
}

tenet::Problem problem(const Case& c) {
  const std::string P = std::to_string(c.P), Q = std::to_string(c.Q);
  std::vector<std::string> reads, writes;
  for (const auto& a : c.reads) reads.push_back("{S[i,j,k] -> " + a.isl + "}");
  for (const auto& a : c.writes) writes.push_back("{S[i,j,k] -> " + a.isl + "}");
  return tenet::make_problem("{PE[p,q] : 0<=p<" + P + " and 0<=q<" + Q + "}",
                             "{PE[p,q] -> PE[p-1,q]; PE[p,q] -> PE[p,q-1]}",
                             "{S[i,j,k] : 0<=i<" + std::to_string(c.M) + " and 0<=j<" + std::to_string(c.N) +
                                 " and 0<=k<" + std::to_string(c.K) + "}",
                             reads, writes, "{S[i,j,k] -> " + c.space_isl + "}", "{S[i,j,k] -> " + c.time_isl + "}");
}

void check(const Case& c, const tenet::Metrics& m, const Reference& r) {
  CHECK(m.macs == c.M * c.N * c.K);
  CHECK(m.time_stamps == r.nT);
  CHECK(m.active_pes == r.nS);
  CHECK(m.space_time_points == r.nSTD);
  for (const auto& t : m.tensors) {
    INFO("tensor " << t.name);
    const auto it = r.tensors.find(t.name);
    REQUIRE(it != r.tensors.end());
    CHECK(t.total_volume == it->second.tv);
    CHECK(t.unique_volume == it->second.uv);
    CHECK(t.temporal_unique_volume == it->second.uvt);
    CHECK(t.spatial_reuse_volume == it->second.spi);
  }
  CHECK(m.tensors.size() == r.tensors.size());
}

/// The estimator's dataflows on a P x Q array with a group-wise weight scale SW[j, floor(k/g)].
Case make_case(int kind, std::int64_t P, std::int64_t Q, std::int64_t g) {
  Case c;
  c.P = P;
  c.Q = Q;
  const std::string p = std::to_string(P), q = std::to_string(Q), G = std::to_string(g);
  c.reads = {{"A", "A[i,k]",
              [](auto i, auto, auto k) {
                return Vec{i, k};
              }},
             {"B", "B[k,j]",
              [](auto, auto j, auto k) {
                return Vec{k, j};
              }},
             {"SW", "SW[j,floor(k/" + G + ")]", [g](auto, auto j, auto k) {
                return Vec{j, k / g};
              }}};
  c.writes = {{"C", "C[i,j]", [](auto i, auto j, auto) { return Vec{i, j}; }}};
  switch (kind) {
    case 0:  // ncf: j over the rows, k over the columns, i in time (unit)
      c.space_isl = "PE[j%" + p + ",k%" + q + "]";
      c.time_isl = "T[floor(i/" + p + "),floor(k/" + q + "),i%" + p + ",floor(j/" + p + ")]";
      c.space = [P, Q](auto, auto j, auto k) { return Vec{j % P, k % Q}; };
      c.time = [P, Q](auto i, auto j, auto k) { return Vec{i / P, k / Q, i % P, j / P}; };
      break;
    case 1:  // output stationary, skewed (unit, the table is sparse at the wavefront's ends)
      c.space_isl = "PE[i%" + p + ",j%" + q + "]";
      c.time_isl = "T[floor(i/" + p + "),floor(j/" + q + "),i%" + p + "+j%" + q + "+k]";
      c.space = [P, Q](auto i, auto j, auto) { return Vec{i % P, j % Q}; };
      c.time = [P, Q](auto i, auto j, auto k) { return Vec{i / P, j / Q, i % P + j % Q + k}; };
      break;
    default:  // two k per (stamp, PE): not unit
      c.space_isl = "PE[i%" + p + ",j%" + q + "]";
      c.time_isl = "T[floor(i/" + p + "),floor(j/" + q + "),floor(k/2)]";
      c.space = [P, Q](auto i, auto j, auto) { return Vec{i % P, j % Q}; };
      c.time = [P, Q](auto i, auto j, auto k) { return Vec{i / P, j / Q, k / 2}; };
      break;
  }
  return c;
}

}  // namespace

TEST_CASE("brute force and counter equal a set-based reference (unit, sparse and shared (stamp, PE) pairs)") {
  std::mt19937_64 rng(20261123);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int n = 0; n < 45; ++n) {
    const int kind = n % 3;
    Case c = make_case(kind, pick(2, 4), pick(2, 4), pick(2, 5));
    c.M = pick(1, 3 * c.P + 1);
    c.N = pick(1, 3 * c.Q + 1);
    c.K = pick(1, 4 * c.Q + 2);
    INFO("kind " << kind << " array " << c.P << "x" << c.Q << " tile " << c.M << "x" << c.N << "x" << c.K << " space "
                 << c.space_isl << " time " << c.time_isl);
    const Reference r = reference(c);
    const tenet::Problem p = problem(c);
    tenet::AnalyzeOptions brute;
    brute.enumerate = true;
    check(c, tenet::analyze(p, brute), r);
    check(c, tenet::analyze(p), r);
  }
}
