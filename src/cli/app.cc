#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"

namespace ys::cli {

int Main(int argc, char** argv) {
  CLI::App app{
      "yardstick: tells whether a GPU node or cluster performs like its reference system, and "
      "when it does not, which layer loses the throughput and what recovers it."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("yardstick (see `yardstick version`)"));
  int verbosity = 0;
  app.add_flag("-v,--verbose", verbosity, "More log output on stderr (-v info, -vv debug)");
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  Action chosen;
  for (const RegisteredUnit* cmd : UnitRegistry::Global().List(UnitKind::kCommand)) {
    std::unique_ptr<Unit> made = cmd->factory();
    const auto* command = dynamic_cast<const Command*>(made.get());
    if (command == nullptr) continue;
    CLI::App* sub = app.add_subcommand(std::string(cmd->info.id), std::string(cmd->info.summary));
    Action action = command->Setup(*sub);
    sub->callback([&chosen, action] { chosen = action; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (verbosity >= 2) {
    SetLogLevel(LogLevel::kDebug);
  } else if (verbosity == 1) {
    SetLogLevel(LogLevel::kInfo);
  }
  if (!chosen) return kExitUsage;
  return RunAction(chosen);
}

}  // namespace ys::cli
