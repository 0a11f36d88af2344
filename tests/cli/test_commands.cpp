// The command table is the one source of --help and of docs/cli.md's command table.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "test_support.hpp"

TEST_CASE("docs/cli.md holds the command table that --list-commands prints") {
  const auto r = tc_test::run_cli("--list-commands");
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.find("| `estimate` |") != std::string::npos);
  std::ifstream in(std::string(TC_SOURCE_DIR) + "/docs/cli.md");
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str().find(r.out) != std::string::npos);
}

// The names, descriptions and doc pages come from the table itself (cli::commands()), not from a list here: a new
// row is checked by being there.
TEST_CASE("every command of the table is a subcommand with its description in --help") {
  const auto& table = tenet_cost::cli::commands();
  REQUIRE(table.size() >= 8);  // tenet extract estimate compare search sweep export quant
  const auto r = tc_test::run_cli("--help");
  REQUIRE(r.exit_code == 0);
  std::set<std::string> names;
  for (const auto& c : table) {
    INFO(c.name);
    CHECK(names.insert(c.name).second);  // one row per name
    // the subcommand list of --help: "  NAME   DESCRIPTION" on one line, in the table's order
    const std::string line = std::string("\n  ") + c.name + " ";
    const auto at = r.out.find(line);
    REQUIRE(at != std::string::npos);
    const auto end = r.out.find('\n', at + 1);
    CHECK(r.out.substr(at, end - at).find(c.description) != std::string::npos);
    // the subcommand's own --help starts from its description
    const auto sub = tc_test::run_cli(std::string(c.name) + " --help");
    CHECK(sub.exit_code == 0);
    CHECK(sub.out.rfind(c.description, 0) == 0);
  }
  // --help lists the commands in the table's order
  std::size_t last = 0;
  for (const auto& c : table) {
    const auto at = r.out.find(std::string("\n  ") + c.name + " ");
    CHECK(at > last);
    last = at;
  }
}

TEST_CASE("every command's doc page exists") {
  for (const auto& c : tenet_cost::cli::commands()) {
    // "[page.md](page.md), [other.md](other.md)": every (target) is a file under docs/
    const std::string doc = c.doc;
    std::size_t n = 0;
    for (auto open = doc.find("]("); open != std::string::npos; open = doc.find("](", open + 2)) {
      const auto close = doc.find(')', open);
      REQUIRE(close != std::string::npos);
      const std::string page = doc.substr(open + 2, close - open - 2);
      INFO(c.name << ": " << page);
      CHECK(std::ifstream(std::string(TC_SOURCE_DIR) + "/docs/" + page).good());
      ++n;
    }
    INFO(c.name);
    CHECK(n >= 1);
  }
}
