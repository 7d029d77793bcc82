// Subcommand registration: each subcommand is one file that adds itself to the CLI in one line.
// Setup() declares the subcommand's options on its CLI11 App and returns the action to run when
// the subcommand is chosen; the action returns the process exit code.
#ifndef YARDSTICK_CLI_COMMAND_H_
#define YARDSTICK_CLI_COMMAND_H_

#include <CLI/CLI.hpp>

#include <functional>
#include <string_view>

namespace ys::cli {

using Action = std::function<int()>;
using CommandSetup = Action (*)(CLI::App& sub);

struct CommandInfo {
  std::string_view name;
  std::string_view description;
  CommandSetup setup;
};

bool RegisterCommand(CommandInfo info);
const std::vector<CommandInfo>& Commands();

}  // namespace ys::cli

#define YS_REGISTER_COMMAND(name, description, setup)                                      \
  namespace {                                                                              \
  [[maybe_unused]] const bool ys_command_registered_ =                                     \
      ::ys::cli::RegisterCommand({name, description, setup});                              \
  }

#endif  // YARDSTICK_CLI_COMMAND_H_
