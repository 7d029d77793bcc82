// Runs check units through the one unit runner (core/unit_runner.h): selects them by glob and
// answers their needs from the check context (the GPU state, then what the host provides); the
// runner skips a unit with the reason when a need is not met, and contains failures (an
// exception or an unknown finding code becomes an error outcome for that unit alone).
#ifndef YARDSTICK_CHECKS_RUNNER_H_
#define YARDSTICK_CHECKS_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/run_document.h"

namespace ys::checks {

struct RunOptions {
  std::vector<std::string> filters;  // globs over unit ids; empty = all
  bool allow_disruptive = false;     // run units declared disruptive
  // Called after each unit, e.g. for progress on a terminal.
  std::function<void(const CheckResult&)> on_result;
  // Called before each unit with its id, e.g. for a watchdog to say which unit hung.
  std::function<void(std::string_view id)> on_start;
};

bool MatchesFilters(std::string_view id, const std::vector<std::string>& filters);

// Ok when the check context provides `need`. Need::kGpu: the GPU state loaded (an invalid
// recording is an error) and NVML lists at least one GPU ("NVML lists no GPU (<source>)").
Status CheckContextProvides(const CheckContext& ctx, Need need);

std::vector<CheckResult> RunChecks(const CheckContext& ctx, const RunOptions& options);

// Runs one registered check by id (tests use this). Error outcome when the id is unknown.
CheckResult RunCheck(const CheckContext& ctx, std::string_view id, bool allow_disruptive = false);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_RUNNER_H_
