// The watchdog of a whole command (preflight, topo, capture, healthcheck): `--timeout SECONDS`
// bounds the command from start to end; the command names each step as it starts, and past the
// timeout the process says which step it was in and ends with exit 2, whatever that step is stuck
// in (a FIFO in a recorded tree, a driver that stopped answering). `job` and `burnin` use
// core/watchdog.h directly, per step.
//
// Thread safety: Step() from the command's thread; the expiry runs on the watchdog's thread.
#ifndef YARDSTICK_CLI_COMMAND_WATCHDOG_H_
#define YARDSTICK_CLI_COMMAND_WATCHDOG_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/watchdog.h"

namespace ys::cli {

// What a command takes by default before its watchdog ends it.
inline constexpr double kDefaultCommandTimeoutS = 300;

// Adds `--timeout SECONDS` (positive) to `sub`, filling `timeout_s`; `what` says what it bounds.
void AddTimeoutOption(CLI::App& sub, double& timeout_s, const std::string& what);

class CommandWatchdog {
 public:
  // Past `timeout_s` (<= 0: never), `on_expire(message)` runs and returns the exit code the
  // process then ends with; by default the message is logged as an error and the code is 2.
  // The message reads "<command>: <step> did not finish within --timeout N s".
  CommandWatchdog(std::string command, double timeout_s,
                  std::function<int(const std::string& message)> on_expire = {});
  ~CommandWatchdog();
  CommandWatchdog(const CommandWatchdog&) = delete;
  CommandWatchdog& operator=(const CommandWatchdog&) = delete;

  // Names the step the command is in now (the clock keeps running from the start).
  void Step(std::string step);
  // For PreflightOptions::on_step and the like.
  std::function<void(const std::string&)> StepFn();

 private:
  Watchdog dog_;
};

// The step named by `command`'s expired watchdog in a child's stderr, if it says one expired
// (the healthcheck reads its preflight child's this way).
std::optional<std::string> StepOfExpiredWatchdog(std::string_view stderr_text,
                                                 std::string_view command);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_COMMAND_WATCHDOG_H_
