// ir::Symbol, the interned string of the IR's high-count name fields.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tenet_cost/ir.hpp"

using tenet_cost::ir::Symbol;

TEST_CASE("Symbol interns: equal text, equal pointer") {
  const std::string long_text = "a_name_longer_than_the_small_string_buffer";
  const Symbol a = long_text;
  const Symbol b = std::string_view(long_text);
  const Symbol c = long_text.c_str();
  CHECK(a.id() == b.id());
  CHECK(&a.str() == &c.str());
  CHECK(a == b);
  CHECK(Symbol("lv1") != Symbol("lv2"));
  CHECK(Symbol("lv1").id() != Symbol("lv2").id());
  // the empty symbol: default, "" and std::string() are all the same (null) symbol
  const Symbol empty;
  CHECK(empty.empty());
  CHECK(empty.id() == nullptr);
  CHECK(Symbol("") == empty);
  CHECK(Symbol(std::string()) == empty);
  CHECK(empty.str().empty());
  CHECK(empty.size() == 0);
  CHECK(std::string_view(empty).empty());
  CHECK(sizeof(Symbol) == sizeof(void*));
}

TEST_CASE("Symbol compares with strings and reads like one") {
  const Symbol s = "R.call_tir";
  CHECK(s == "R.call_tir");
  CHECK("R.call_tir" == s);
  CHECK(s == std::string("R.call_tir"));
  CHECK(std::string("R.call_tir") == s);
  CHECK(s == std::string_view("R.call_tir"));
  CHECK(s != "R.matmul");
  CHECK_FALSE(s == "R.call_ti");
  const std::string& ref = s;
  CHECK(ref == "R.call_tir");
  const std::string_view v = s;
  CHECK(v == "R.call_tir");
  const std::string copy = s;
  CHECK(copy == "R.call_tir");
  CHECK(s.size() == 10);
  CHECK(s.length() == 10);
  CHECK(std::string(s.c_str()) == "R.call_tir");
  CHECK(s.substr(2) == "call_tir");
  CHECK(s.find('.') == 1);
  CHECK(s.rfind("_") == 6);
  CHECK(s.starts_with("R."));
  CHECK(s.ends_with("tir"));
  CHECK(s[0] == 'R');
  CHECK(s.front() == 'R');
  CHECK(s.back() == 'r');
  CHECK(std::string(s.begin(), s.end()) == "R.call_tir");
  CHECK(s + "_x" == "R.call_tir_x");
  CHECK("x_" + s == "x_R.call_tir");
  CHECK(std::string("a") + s == "aR.call_tir");
  CHECK(s + std::string("b") == "R.call_tirb");
  CHECK(s + '!' == "R.call_tir!");
  std::string acc = "op=";
  acc += s;
  CHECK(acc == "op=R.call_tir");
  std::ostringstream os;
  os << s << "|" << Symbol();
  CHECK(os.str() == "R.call_tir|");
  CHECK(fmt::format("[{}] [{:>12}]", s, Symbol("ab")) == "[R.call_tir] [          ab]");
  // assignment from any string kind interns
  Symbol t;
  t = std::string("lv3");
  CHECK(t == Symbol("lv3"));
  t = std::string_view("lv4");
  CHECK(t.id() == Symbol("lv4").id());
}

TEST_CASE("Symbol orders and hashes like its text") {
  // order by text, not by address: intern in an order unlike the text order
  const std::vector<std::string> texts = {"zeta", "alpha", "", "mid", "alphabet", "Alpha", "a"};
  std::vector<Symbol> syms(texts.begin(), texts.end());
  for (const auto& x : texts)
    for (const auto& y : texts) {
      const Symbol sx = x, sy = y;
      CHECK((sx < sy) == (x < y));
      CHECK((sx == sy) == (x == y));
      CHECK((sx <=> sy) == (x <=> y));
      CHECK((sx < y) == (x < y));
      CHECK((sx > std::string_view(y)) == (x > y));
      CHECK(std::hash<Symbol>{}(sx) == std::hash<std::string_view>{}(x));
      CHECK(std::hash<Symbol>{}(sx) == std::hash<std::string>{}(x));
    }
  // as map keys: same iteration order as std::string keys
  std::map<Symbol, int> m;
  std::map<std::string, int> ms;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    m[texts[i]] = static_cast<int>(i);
    ms[texts[i]] = static_cast<int>(i);
  }
  std::vector<std::string> order, order_s;
  for (const auto& [k, v] : m) order.push_back(k.str());
  for (const auto& [k, v] : ms) order_s.push_back(k);
  CHECK(order == order_s);
  std::unordered_map<Symbol, int> um;
  for (const auto& t : texts) ++um[t];
  CHECK(um.size() == texts.size());
  CHECK(um.at(Symbol("mid")) == 1);
  std::set<Symbol> set(syms.begin(), syms.end());
  CHECK(set.size() == texts.size());
}

TEST_CASE("Symbol interning is thread-safe: 4 threads get the same pointers") {
  constexpr int kThreads = 4;
  constexpr int kNames = 5000;
  auto name = [](int i) { return "thread_symbol_" + std::to_string(i * 7919 % kNames) + "_some_padding"; };
  std::vector<std::vector<const void*>> ids(kThreads, std::vector<const void*>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // each thread walks the names in its own order, twice (cache miss, then hit)
      for (int round = 0; round < 2; ++round)
        for (int k = 0; k < kNames; ++k) {
          const int i = (t % 2 == 0) ? k : kNames - 1 - k;
          const Symbol s = name(i);
          if (round == 1 && ids[t][i] != s.id()) ids[t][i] = nullptr;  // a second intern must agree
          else ids[t][i] = s.id();
        }
    });
  }
  for (auto& th : threads) th.join();
  std::unordered_set<const void*> distinct;
  for (int i = 0; i < kNames; ++i) {
    const Symbol here = name(i);
    for (int t = 0; t < kThreads; ++t) {
      REQUIRE(ids[t][i] != nullptr);
      CHECK(ids[t][i] == here.id());
    }
    distinct.insert(here.id());
    CHECK(here == name(i));
  }
  CHECK(distinct.size() == static_cast<std::size_t>(kNames));
}

TEST_CASE("Symbols never dangle: a symbol outlives the string it was made from") {
  Symbol s;
  {
    std::string tmp = "temporary_text_that_goes_away_soon";
    s = tmp;
    tmp.assign(tmp.size(), 'x');
  }
  CHECK(s == "temporary_text_that_goes_away_soon");
}
