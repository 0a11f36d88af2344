// The command table is the one source of --help and of docs/cli.md's command table.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

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

TEST_CASE("every command of the table is a subcommand with its description in --help") {
  const auto r = tc_test::run_cli("--help");
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"tenet", "extract", "estimate", "compare", "quant"})
    CHECK(r.out.find(std::string("  ") + name) != std::string::npos);
}
