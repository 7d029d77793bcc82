// Subcommand registration: each subcommand is one file that adds itself to the CLI in one line.
// Setup() declares the subcommand's options on its CLI11 App and returns the action to run when
// the subcommand is chosen; the action returns the process exit code.
#ifndef YARDSTICK_CLI_COMMAND_H_
#define YARDSTICK_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "checks/preflight.h"
#include "core/range_check.h"

namespace ys::cli {

using Action = std::function<int()>;
using CommandSetup = Action (*)(CLI::App& sub);

struct CommandInfo {
  std::string_view name;
  std::string_view description;
  CommandSetup setup;
};

bool RegisterCommand(CommandInfo info);

// Where suites/, baselines/ and specs/ are: --data, else $YARDSTICK_DATA, else the source tree
// the binary was built from.
std::string DataDir(const std::string& flag);

// Options naming a validation's inputs (validate, archive).
struct ValidationArgs {
  std::string suite, runs, data, baselines;
  std::vector<std::string> references;
};
void AddValidationOptions(CLI::App& sub, ValidationArgs& args);

// Options shared by the subcommands that run checks (preflight, run, capture).
struct CheckRunArgs {
  std::string root = "/";
  std::vector<std::string> filters;
  std::string expect;
  std::string nvml_state;  // --nvml-state FILE: recorded NVML state instead of the host's GPUs
  std::string junit;
  bool json = false;
  int pid = 0;
  std::string kernel_log;  // --kernel-log FILE: a kernel log file instead of /dev/kmsg
};
// `with_output`: also --json and --junit.
void AddCheckRunOptions(CLI::App& sub, CheckRunArgs& args, bool with_root, bool with_output);
// The preflight those options ask for; `command` is recorded in the run document.
checks::PreflightOptions PreflightOptionsFor(const CheckRunArgs& args, std::string command);
const std::vector<CommandInfo>& Commands();

// Numeric flags are range-checked at the start of the action with core/range_check.h (NaN and
// infinities are out of every range): the first failure is logged ("--timeout: inf is out of
// range (expected a number from 0 to 2.592e+06)") and the result is 2, as for a bad input file;
// 0 when every check passed.
int RefuseOutOfRange(std::initializer_list<Status> checks);
// The longest watchdog --timeout a command takes (30 days); a watchdog's deadline is kept in
// nanoseconds, where 1e300 s would overflow.
inline constexpr double kMaxTimeoutSeconds = 30 * 86400.0;

}  // namespace ys::cli

#define YS_REGISTER_COMMAND(name, description, setup)                                      \
  namespace {                                                                              \
  [[maybe_unused]] const bool ys_command_registered_ =                                     \
      ::ys::cli::RegisterCommand({name, description, setup});                              \
  }

#endif  // YARDSTICK_CLI_COMMAND_H_
