#include "validate/workload_run.h"

namespace ys::validate {

const char* RunStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::kSuccess:
      return "success";
    case RunStatus::kIncomplete:
      return "incomplete";
    case RunStatus::kNoData:
      return "no_data";
    case RunStatus::kNoLog:
      return "no_log";
    case RunStatus::kUnsupportedFramework:
      return "unsupported_framework";
    case RunStatus::kInvalidGradNorm:
      return "invalid_grad_norm";
    case RunStatus::kInvalidMeasurement:
      return "invalid_measurement";
  }
  return "no_data";
}

std::optional<RunStatus> ParseRunStatus(std::string_view name) {
  for (RunStatus s : {RunStatus::kSuccess, RunStatus::kIncomplete, RunStatus::kNoData,
                      RunStatus::kNoLog, RunStatus::kUnsupportedFramework,
                      RunStatus::kInvalidGradNorm, RunStatus::kInvalidMeasurement}) {
    if (name == RunStatusName(s)) return s;
  }
  return std::nullopt;
}

WorkloadRun NoLogRun(std::string log_path, std::string reason) {
  WorkloadRun r;
  r.status = RunStatus::kNoLog;
  r.log_path = std::move(log_path);
  r.reason = std::move(reason);
  return r;
}

std::vector<double> StepTimesAfterWarmup(const WorkloadRun& run, int64_t* first_step) {
  std::vector<double> out;
  *first_step = 0;
  for (const IterationSample& s : run.samples) {
    if (s.step < run.window.first_step || !s.step_time_s) continue;
    if (out.empty()) *first_step = s.step;
    out.push_back(*s.step_time_s);
  }
  return out;
}

}  // namespace ys::validate
