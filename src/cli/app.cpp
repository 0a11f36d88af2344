// The command line as a library (app.hpp).
#include "app.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <new>

#include "entry.hpp"
#include "tenet_cost/error.hpp"
#include "tenet_cost/output.hpp"

namespace tenet_cost::cli {

namespace {

OptionKind kind_of(const CLI::Option& o) {
  if (o.get_type_size_max() == 0 || o.get_expected_max() == 0) return OptionKind::kFlag;
  return o.get_items_expected_max() > 1 ? OptionKind::kRepeated : OptionKind::kValue;
}

}  // namespace

void use_stderr_log() {
  if (auto existing = spdlog::get("tenet-cost")) {
    spdlog::set_default_logger(existing);
  } else {
    spdlog::set_default_logger(spdlog::stderr_color_mt("tenet-cost"));
  }
  spdlog::set_pattern("tenet-cost: %l: %v");
  spdlog::set_level(spdlog::level::warn);
}

void build_app(CLI::App& app, Context& ctx) {
  app.require_subcommand(1);
  // -o/-v are accepted anywhere: subcommands created below inherit fallthrough, so an
  // option they do not know is matched against the app's (`compare -o out.csv`).
  app.fallthrough();
  app.set_version_flag("--version", std::string("tenet-cost 0.1.0"));
  app.add_option("-o,--output", ctx.output,
                 "Write the result to this file instead of stdout (atomically; a device or FIFO is written directly)");
  app.add_flag("-v,--verbose", ctx.verbose, "Debug logging on stderr");
  // the command table of docs/cli.md, generated from the one table that registers the commands
  app.add_flag_callback(
         "--list-commands",
         [&ctx] {
           ctx.result = commands_markdown();
           throw CLI::Success();
         },
         "Print the command table (markdown) and exit")
      ->group("");
  app.parse_complete_callback([&ctx] { spdlog::set_level(ctx.verbose ? spdlog::level::debug : spdlog::level::warn); });
  for (const auto& c : commands()) c.add(app, c, ctx);
}

std::string run(const std::vector<std::string>& args) {
  CLI::App app{kAppDescription};
  Context ctx;
  build_app(app, ctx);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return app.help();
  } catch (const CLI::CallForAllHelp&) {
    return app.help("", CLI::AppFormatMode::All);
  } catch (const CLI::CallForVersion& e) {
    return std::string(e.what()) + "\n";
  } catch (const CLI::Success&) {
    return ctx.result;
  } catch (const CLI::ParseError& e) {
    throw InputError(std::string(e.what()) + " (see tenet-cost --help)");
  }
  if (ctx.result_file) {
    if (ctx.output != "-") write_output(ctx.output, ctx.result_file->stream());
    return ctx.result_file->str();
  }
  if (ctx.output != "-") write_output(ctx.output, ctx.result);
  return ctx.result;
}

std::vector<OptionInfo> options(const std::vector<std::string>& path) {
  CLI::App app{kAppDescription};
  Context ctx;
  build_app(app, ctx);
  const CLI::App* cmd = &app;
  for (const auto& name : path) {
    const auto subs = cmd->get_subcommands([&name](const CLI::App* s) { return s->get_name() == name; });
    if (subs.empty()) throw InputError("no command '" + name + "' (see tenet-cost --help)");
    cmd = subs.front();
  }
  std::vector<OptionInfo> out;
  for (const CLI::Option* o : cmd->get_options()) {
    if (o == cmd->get_help_ptr() || o == cmd->get_help_all_ptr()) continue;
    OptionInfo info;
    info.positional = o->get_lnames().empty() && o->get_snames().empty();
    info.flag = info.positional ? o->get_name() : "--" + o->get_lnames().front();
    info.kind = kind_of(*o);
    info.help = o->get_description();
    out.push_back(std::move(info));
  }
  return out;
}

int main_entry(int argc, char** argv) {
  use_stderr_log();
  CLI::App app{kAppDescription};
  Context ctx;
  build_app(app, ctx);

  try {
    app.parse(argc, argv);
    if (ctx.result_file) write_output(ctx.output, ctx.result_file->stream());
    else write_output(ctx.output, ctx.result);
    return static_cast<int>(ExitCode::kOk);
  } catch (const CLI::Success& e) {
    std::cout << ctx.result;  // --list-commands' table; empty for --help and --version, which app.exit prints
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error; the usage text is one --help away.
    std::cerr << "tenet-cost: error: " << e.what() << " (see tenet-cost --help)\n";
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const InputError& e) {
    std::cerr << "tenet-cost: error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const std::bad_alloc&) {
    std::cerr << "tenet-cost: error: out of memory\n";
    return static_cast<int>(ExitCode::kInternal);
  } catch (const std::exception& e) {
    std::cerr << "tenet-cost: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kInternal);
  }
}

}  // namespace tenet_cost::cli
