#include "cli/command_watchdog.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "core/exit_codes.h"
#include "core/log.h"

namespace ys::cli {
namespace {
constexpr std::string_view kExpired = " did not finish within --timeout ";
}  // namespace

void AddTimeoutOption(CLI::App& sub, double& timeout_s, const std::string& what) {
  sub.add_option("--timeout", timeout_s,
                 fmt::format("Watchdog: seconds {} may take before it is stopped with exit 2 "
                             "(default {:g})",
                             what, timeout_s))
      ->check(CLI::PositiveNumber);
}

CommandWatchdog::CommandWatchdog(std::string command, double timeout_s,
                                 std::function<int(const std::string&)> on_expire)
    : dog_(timeout_s, [command, timeout_s, on_expire = std::move(on_expire)](
                          const std::string& step, double seconds) {
        std::string message = fmt::format("{}: {}{}{:g} s ({:.0f} s); stopped", command, step,
                                          kExpired, timeout_s, seconds);
        int code = kExitCannotRun;
        if (on_expire) {
          code = on_expire(message);
        } else {
          Log(LogLevel::kError, "{}", message);
        }
        std::cout.flush();
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(code);
      }) {
  dog_.Enter("starting up");
}

CommandWatchdog::~CommandWatchdog() { dog_.Leave(); }

void CommandWatchdog::Step(std::string step) { dog_.Rename(std::move(step)); }

std::function<void(const std::string&)> CommandWatchdog::StepFn() {
  return [this](const std::string& step) { Step(step); };
}

std::optional<std::string> StepOfExpiredWatchdog(std::string_view err, std::string_view command) {
  size_t at = err.find(kExpired);
  if (at == std::string_view::npos) return std::nullopt;
  std::string prefix = std::string(command) + ": ";
  size_t start = err.rfind(prefix, at);
  size_t line = err.rfind('\n', at);
  if (start == std::string_view::npos || (line != std::string_view::npos && start < line)) {
    return std::nullopt;
  }
  start += prefix.size();
  return std::string(err.substr(start, at - start));
}

}  // namespace ys::cli
