#include "test_support.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace tc_test {

static std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult run_cli(const std::string& args) {
  char out_tmpl[] = "/tmp/tc_test_outXXXXXX";
  char err_tmpl[] = "/tmp/tc_test_errXXXXXX";
  const int fo = mkstemp(out_tmpl);
  const int fe = mkstemp(err_tmpl);
  close(fo);
  close(fe);
  const std::string cmd = std::string(TC_BINARY) + " " + args + " >" + out_tmpl + " 2>" + err_tmpl;
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out_tmpl);
  r.err = slurp(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  return r;
}

}  // namespace tc_test
