// tenet-cost tenet --pe F.p --statement F.s --mapping F.m | --experiment F --data-root DIR [--format table|json]
#include <memory>

#include "commands.hpp"
#include "model_args.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/report.hpp"
#include "tenet_cost/tenet.hpp"

namespace tenet_cost::cli {

CLI::App* add_tenet(CLI::App& app, const Command& self, Context& ctx) {
  struct Args {
    std::string pe, statement, mapping, experiment, data_root = ".", format = "table";
    bool enumerate = false, no_spatial = false;
    double time_limit = cost::kDefaultEngineTimeLimit;
  };
  auto o = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(self.name, self.description);
  cmd->add_option("--pe", o->pe, "PE array file (.p)");
  cmd->add_option("--statement", o->statement, "Statement file (.s)");
  cmd->add_option("--mapping", o->mapping, "Mapping file (.m)");
  cmd->add_option("--experiment", o->experiment,
                  "Experiment file: mapping, PE array, statement paths relative to --data-root");
  cmd->add_option("--data-root", o->data_root, "Directory the experiment's paths are relative to (TENET's data/)");
  cmd->add_option("--format", o->format, "table | json");
  cmd->add_flag("--enumerate", o->enumerate,
                "Brute-force enumeration of the whole domain (debug / oracle; small problems only)");
  cmd->add_flag("--no-spatial-reuse", o->no_spatial, "Skip the spatial-reuse metric");
  add_time_limit_option(cmd, o->time_limit);
  cmd->callback([&ctx, o] {
    const auto format = report::parse_format(o->format);
    if (format == report::Format::kCsv) throw InputError("--format csv is not supported by `tenet`; use table or json");
    tenet::Problem problem;
    if (!o->experiment.empty()) {
      if (!o->pe.empty() || !o->statement.empty() || !o->mapping.empty())
        throw InputError("give either --experiment or --pe/--statement/--mapping, not both");
      problem = tenet::load_experiment(o->experiment, o->data_root);
    } else {
      if (o->pe.empty() || o->statement.empty() || o->mapping.empty())
        throw InputError("`tenet` needs --pe F.p --statement F.s --mapping F.m (or --experiment FILE --data-root DIR)");
      problem = tenet::load_problem(o->pe, o->statement, o->mapping);
    }
    tenet::AnalyzeOptions opts;
    opts.enumerate = o->enumerate;
    opts.spatial_reuse = !o->no_spatial;
    opts.time_limit_s = cost::checked_time_limit(o->time_limit);
    ctx.result = report::render(tenet::analyze(problem, opts), format);
  });
  return cmd;
}

}  // namespace tenet_cost::cli
