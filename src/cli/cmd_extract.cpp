// tenet-cost extract DUMP [--entry NAME] [--bind k=v,...] [--format table|json|csv]
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tenet_cost/extract.hpp"
#include "tenet_cost/ir.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::cli {

CLI::App* add_extract(CLI::App& app, const Command& self, Context& ctx) {
  struct Args {
    std::string dump, entry, bind, format = "table";
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("DUMP", args->dump, "TVMScript (.py) or TVM JSON dump")->required();
  cmd->add_option("--entry", args->entry, "Only this Relax entry function (prefill, decode, ...)");
  cmd->add_option("--bind", args->bind, "Bind symbolic dims: seq_len=2048,batch_size=1");
  cmd->add_option("--format", args->format, "table | json | csv")->default_str("table");
  cmd->callback([&ctx, args] {
    const report::Format format = report::parse_format(args->format);
    ExtractOptions opt;
    if (!args->entry.empty()) opt.entry = args->entry;
    opt.bindings = parse_bindings(args->bind);
    const ir::ParseOptions parse{.ordered_debug_log = spdlog::should_log(spdlog::level::debug)};
    const ExtractResult r = extract_workloads(ir::load_module(args->dump, parse), opt);
    if (r.workloads.empty()) std::cerr << "tenet-cost: warning: no GEMM or convolution found in " << args->dump << "\n";
    ctx.result = report::render(r, format);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
