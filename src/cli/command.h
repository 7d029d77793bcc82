// Subcommands: each is one file that registers itself as a unit in one line,
//
//   YS_REGISTER(CommandOf<Setup>, {.id = "list", .summary = "List every unit: ..."});
//
// where Setup() declares the subcommand's options on its CLI11 App and returns the action to run
// when the subcommand is chosen. The action returns the process exit code (0 passed, 1 failed, 64
// a usage error) or the Status that stopped it; RunAction logs that Status once and exits 2, so an
// action's error path is `return status;` (or YS_RETURN_IF_ERROR). The id is the subcommand's
// name, the summary its description in --help.
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
#include "core/status.h"

namespace ys::cli {

using Action = std::function<Result<int>()>;
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

// The exit code of an action's Status: 2 (kExitCannotRun) for every error (bad input, a missing
// file, an unreachable backend); 0 for OK.
int ExitCodeFor(const Status& status);
// Runs `action`: its exit code, or its Status logged once (the message as it is, on stderr) and
// mapped by ExitCodeFor. An exception that escapes the action is logged as an internal error (2).
int RunAction(const Action& action);
// `status` with "PREFIX: " before its message, the code kept ("compare: run 7: not found").
Status Prefixed(std::string_view prefix, const Status& status);

// Colour on stdout: only on a terminal, and never when NO_COLOR is set to anything but the empty
// string (no-color.org).
bool ColorOnStdout();
// Where suites/, baselines/, models/, specs/ and calibration/ are: --data, else $YARDSTICK_DATA,
// else PREFIX/share/yardstick beside an installed binary (PREFIX/bin/yardstick, `make install`),
// else the source tree the binary was built from.
std::string DataDir(const std::string& flag);

// The name of a data file that `value` gives for `flag` ("--chip", "--model"): a path (with '/'
// or ending .toml) as it is; else the stem of the file of <data>/<folder>/ that it names,
// ignoring case and the separators . - _ ("H100" is h100, "Llama3.1-8B" llama3.1_8b); else
// NotFound naming the folder, with "did you mean" for a near name and the names there.
Result<std::string> ResolveDataName(const std::string& data, const std::string& folder,
                                    const std::string& flag, const std::string& value);

// `--out` means one thing on every command: the directory where the command keeps what it writes
// (run: run.json, the report, the archive; bench: run.json; burnin: its checkpoint, run.json and
// report; validate: validation.json and diagnosis.json), created when missing. A command that
// writes one document to a file takes `-o,--output FILE` (merge, archive, report) or names the
// file's kind (--junit FILE). The path of `name` under the directory `out`; "" when `out` is "".
// A value ending in .json is the document's own path, as `bench --out FILE` took it before this
// rule (kept, with a warning naming the new form); an existing path that is not a directory is
// Invalid, saying what --out takes.
Result<std::string> OutDocumentPath(const std::string& command, const std::string& out,
                                    const std::string& name);

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
  std::string kernel_log;      // --kernel-log FILE: a kernel log file instead of /dev/kmsg
  std::string bug_report;      // preflight --bug-report FILE: an nvidia-bug-report log, offline
  bool failures_only = false;  // --failures-only: the console lists only warn, fail and error
  bool quiet = false;          // --quiet: the console prints only the verdict line
};
// `with_output`: also --json and --junit.
void AddCheckRunOptions(CLI::App& sub, CheckRunArgs& args, bool with_root, bool with_output);
// The preflight those options ask for; `command` is recorded in the run document.
checks::PreflightOptions PreflightOptionsFor(const CheckRunArgs& args, std::string command);

// Numeric flags are range-checked at the start of the action with core/range_check.h (NaN and
// infinities are out of every range): the first failure is returned ("--timeout: inf is out of
// range (expected a number from 0 to 2.592e+06)"), which the action returns as for a bad input
// file (exit 2); OK when every check passed.
Status RefuseOutOfRange(std::initializer_list<Status> checks);
// The longest watchdog --timeout a command takes (30 days); a watchdog's deadline is kept in
// nanoseconds, where 1e300 s would overflow.
inline constexpr double kMaxTimeoutSeconds = 30 * 86400.0;

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_COMMAND_H_
