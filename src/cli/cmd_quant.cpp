// tenet-cost quant list [--format table|json|csv]
#include <memory>

#include "commands.hpp"
#include "tenet_cost/quant.hpp"
#include "tenet_cost/report.hpp"

namespace tenet_cost::cli {

CLI::App* add_quant(CLI::App& app, const Command& self, Context& ctx) {
  auto format = std::make_shared<std::string>("table");
  auto* q = app.add_subcommand(self.name, self.description);
  auto* list = q->add_subcommand("list", "List the known schemes and the generic grammar");
  list->add_option("--format", *format, "table | json | csv");
  q->require_subcommand(1);
  list->callback([&ctx, format] { ctx.result = report::render(quant::catalog(), report::parse_format(*format)); });
  return q;
}

}  // namespace tenet_cost::cli
