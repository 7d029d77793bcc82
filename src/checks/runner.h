// Runs check units: selects them by glob, times each, contains failures (an exception or an
// unknown finding code becomes an error outcome for that unit alone) and derives outcomes.
#ifndef YARDSTICK_CHECKS_RUNNER_H_
#define YARDSTICK_CHECKS_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/report.h"

namespace ys::checks {

struct RunOptions {
  std::vector<std::string> filters;  // globs over unit ids; empty = all
  // Called after each unit, e.g. for progress on a terminal.
  std::function<void(const CheckResult&)> on_result;
  // Called before each unit with its id, e.g. for a watchdog to say which unit hung.
  std::function<void(std::string_view id)> on_start;
};

bool MatchesFilters(std::string_view id, const std::vector<std::string>& filters);

std::vector<CheckResult> RunChecks(const CheckContext& ctx, const RunOptions& options);

// Runs one registered check by id (tests use this). Error outcome when the id is unknown.
CheckResult RunCheck(const CheckContext& ctx, std::string_view id);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_RUNNER_H_
