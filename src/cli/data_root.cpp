// Where the shipped data (configs/arch, workloads) is: found by the CLI, passed to the library as paths.
#include <cstdlib>
#include <filesystem>

#include "commands.hpp"
#include "tenet_cost/error.hpp"

#ifndef TC_SOURCE_DIR
#define TC_SOURCE_DIR ""
#endif

namespace tenet_cost::cli {

namespace fs = std::filesystem;

std::string data_root() {
  auto ok = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p / "configs" / "arch", ec);
  };
  // an explicit override first: the user's intent wins over anything found
  if (const char* env = std::getenv("TENET_COST_DATA"); env && *env) {
    if (!ok(env)) throw InputError(std::string("TENET_COST_DATA=") + env + " has no configs/arch folder");
    return env;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const fs::path& cand : {exe.parent_path() / "..", exe.parent_path() / ".." / "share" / "tenet-cost",
                                 exe.parent_path(), exe.parent_path() / ".." / ".."})
      if (ok(cand)) return fs::weakly_canonical(cand, ec).string();
  if (const std::string src = TC_SOURCE_DIR; !src.empty() && ok(src)) return src;
  throw InputError(
      "cannot find the tenet-cost data directory (configs/arch, workloads) next to the executable or in the source "
      "tree; set TENET_COST_DATA to the folder that holds them");
}

}  // namespace tenet_cost::cli
