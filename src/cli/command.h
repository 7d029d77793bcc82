// Subcommands: each is one file that registers itself as a unit in one line,
//
//   YS_REGISTER(CommandOf<Setup>, {.id = "list", .summary = "List every unit: ..."});
//
// where Setup() declares the subcommand's options on its CLI11 App and returns the action to run
// when the subcommand is chosen; the action returns the process exit code. The id is the
// subcommand's name, the summary its description in --help.
#ifndef YARDSTICK_CLI_COMMAND_H_
#define YARDSTICK_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "checks/preflight.h"
#include "core/range_check.h"
#include "core/registry.h"

namespace ys::cli {

using Action = std::function<int()>;
using CommandSetup = Action (*)(CLI::App& sub);

class Command : public Unit {
 public:
  static constexpr UnitKind kKind = UnitKind::kCommand;
  virtual Action Setup(CLI::App& sub) const = 0;
};

// The command whose Setup is the function `kSetup`.
template <CommandSetup kSetup>
class CommandOf final : public Command {
 public:
  Action Setup(CLI::App& sub) const override { return kSetup(sub); }
};

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

// Numeric flags are range-checked at the start of the action with core/range_check.h (NaN and
// infinities are out of every range): the first failure is logged ("--timeout: inf is out of
// range (expected a number from 0 to 2.592e+06)") and the result is 2, as for a bad input file;
// 0 when every check passed.
int RefuseOutOfRange(std::initializer_list<Status> checks);
// The longest watchdog --timeout a command takes (30 days); a watchdog's deadline is kept in
// nanoseconds, where 1e300 s would overflow.
inline constexpr double kMaxTimeoutSeconds = 30 * 86400.0;

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_COMMAND_H_
