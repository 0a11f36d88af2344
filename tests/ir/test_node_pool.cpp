// make_node: IR nodes from per-thread slabs (src/ir/node_pool.hpp), with
// std::shared_ptr semantics unchanged; and lowering on several threads at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ir/node_pool.hpp"
#include "tenet_cost/ir.hpp"

using namespace tenet_cost::ir;

namespace {

std::atomic<int> g_live{0};

struct Counted {
  explicit Counted(int v) : value(v) { ++g_live; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --g_live; }
  int value;
  std::string text = "a string long enough to live on the heap " + std::to_string(value);
};

const char* const kRelax =
    "from tvm.script import relax as R\n"
    "\n"
    "@R.function\n"
    "def main(x: R.Tensor((4, 8), dtype=\"float16\"), w: R.Tensor((8, 16), dtype=\"float16\")):\n"
    "    with R.dataflow():\n"
    "        lv = R.matmul(x, w)\n"
    "        lv1 = R.add(lv, lv)\n"
    "        t = (lv, lv1)\n"
    "        lv2 = t[1]\n"
    "        R.output(lv2)\n"
    "    return lv2\n";

// The pool itself, in every build (make_node is plain make_shared under ASan).
template <class T, class... A>
std::shared_ptr<T> pooled(A&&... args) {
  return std::allocate_shared<T>(pool::Alloc<T>(), std::forward<A>(args)...);
}

}  // namespace

TEST_CASE("pooled nodes behave like make_shared ones") {
  g_live = 0;
  {
    auto a = pooled<Counted>(7);
    CHECK(a->value == 7);
    CHECK(a.use_count() == 1);
    std::shared_ptr<const Counted> b = a;
    CHECK(a.use_count() == 2);
    a.reset();
    CHECK(g_live == 1);
    CHECK(b->text.find(" 7") != std::string::npos);
    std::weak_ptr<const Counted> w = b;
    b.reset();
    CHECK(g_live == 0);
    CHECK(w.expired());
  }
  // many nodes: several slabs, freed in an order unlike allocation
  std::vector<std::shared_ptr<Counted>> v;
  for (int i = 0; i < 20000; ++i) v.push_back(pooled<Counted>(i));
  CHECK(g_live == 20000);
  for (std::size_t i = 0; i < v.size(); i += 2) v[i].reset();
  CHECK(g_live == 10000);
  for (std::size_t i = 1; i < v.size(); i += 2) CHECK(v[i]->value == static_cast<int>(i));
  v.clear();
  CHECK(g_live == 0);
}

TEST_CASE("pooled nodes may be freed on another thread than the one that made them") {
  g_live = 0;
  constexpr int kThreads = 4;
  constexpr int kPer = 30000;
  std::vector<std::vector<std::shared_ptr<Counted>>> made(kThreads);
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t)
      ts.emplace_back([&made, t] {
        for (int i = 0; i < kPer; ++i) made[t].push_back(pooled<Counted>(t * kPer + i));
      });
    for (auto& th : ts) th.join();  // the threads are gone; their nodes stay valid
  }
  CHECK(g_live == kThreads * kPer);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPer; i += 997) CHECK(made[t][static_cast<std::size_t>(i)]->value == t * kPer + i);
  // made on the (now finished) threads, half freed here, half on new threads
  for (auto& m : made) m.resize(kPer / 2);
  CHECK(g_live == kThreads * kPer / 2);
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t) ts.emplace_back([&made, t] { made[t].clear(); });
    for (auto& th : ts) th.join();
  }
  CHECK(g_live == 0);
}

TEST_CASE("a node's shared_ptr keeps it alive after its Module is gone") {
  RExprPtr value, arg;
  StructInfoPtr sinfo;
  {
    const Module m = parse_tvmscript(kRelax, "t.py");
    REQUIRE(m.relax_funcs.size() == 1);
    const RelaxFunc& f = m.relax_funcs[0];
    REQUIRE(f.bindings.size() == 4);
    value = f.bindings[1].value;  // R.add(lv, lv)
    arg = value->args[0];         // lv
    sinfo = f.params[0].sinfo;
  }
  CHECK(value->op == "R.add");
  CHECK(arg->kind == RExprKind::kVar);
  CHECK(arg->name == "lv");
  CHECK(arg->loc.file == "t.py");
  REQUIRE(sinfo != nullptr);
  CHECK(sinfo->dtype == "float16");
  REQUIRE(sinfo->dims.size() == 2);
  CHECK(to_string(*sinfo->dims[1]) == "T.int64(8)");
}

TEST_CASE("parsing on 4 threads at once gives the single-thread result") {
  const Module ref = parse_tvmscript(kRelax, "t.py");
  auto summary = [](const Module& m) {
    std::string s;
    for (const auto& f : m.relax_funcs)
      for (const auto& b : f.bindings) {
        s += b.var + "=" + std::to_string(static_cast<int>(b.value->kind)) + ":" + b.value->op + b.value->name + "(";
        for (const auto& a : b.value->args) s += a->name + ",";
        s += ")[" + std::to_string(b.value->index) + "];";
      }
    return s;
  };
  const std::string want = summary(ref);
  CHECK(want == "lv=2:R.matmul(x,w,)[0];lv1=2:R.add(lv,lv,)[0];t=3:(lv,lv1,)[0];lv2=4:(t,)[1];");
  std::vector<std::string> got(4);
  std::vector<std::thread> ts;
  for (std::size_t t = 0; t < got.size(); ++t)
    ts.emplace_back([&got, t, &summary] {
      std::string all;
      for (int rep = 0; rep < 50; ++rep) all = summary(parse_tvmscript(kRelax, "t.py"));
      got[t] = all;
    });
  for (auto& th : ts) th.join();
  for (const auto& g : got) CHECK(g == want);
}
