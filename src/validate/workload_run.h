// WorkloadRun: what one ingested log (or serving-benchmark export) says about one workload run.
// This is what the suite verdict scores and what the archive stores and re-derives, so it is a
// plain value type with a JSON form that round-trips exactly (ToJson / WorkloadRunFromJson).
//
// Statuses are llmb-run's (§1.7 of the Exemplar brief):
//   success                every window step has a timing sample and the final "iteration N/N"
//                          marker was seen
//   incomplete             a window step has no timing sample, or the final marker is missing
//   no_data                the log holds nothing parseable (no iteration lines, no serving points)
//   no_log                 there is no log for the workload (made by the caller: NoLogRun)
//   unsupported_framework  the job ran a framework yardstick does not parse
//   invalid_grad_norm      a grad norm is NaN or infinite anywhere in the log
//   invalid_measurement    a serving run measured something other than its claim (requests
//                          lost, outputs cut short, rate-limited, overloaded, too few requests:
//                          validate/serving_validity.h); yardstick's, not llmb-run's
// Every status carries a one-line human reason: which steps are missing, where the NaN is.
#ifndef YARDSTICK_VALIDATE_WORKLOAD_RUN_H_
#define YARDSTICK_VALIDATE_WORKLOAD_RUN_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "validate/derived_metrics.h"
#include "validate/inference_result.h"
#include "validate/llmb_config.h"
#include "validate/log_format.h"
#include "validate/measurement_window.h"
#include "validate/training_log.h"

namespace ys::validate {

enum class RunStatus {
  kSuccess,
  kIncomplete,
  kNoData,
  kNoLog,
  kUnsupportedFramework,
  kInvalidGradNorm,
  kInvalidMeasurement,
};
// "success", "incomplete", "no_data", "no_log", "unsupported_framework", "invalid_grad_norm",
// "invalid_measurement".
const char* RunStatusName(RunStatus s);
std::optional<RunStatus> ParseRunStatus(std::string_view name);

inline constexpr int kWorkloadRunSchemaVersion = 1;

struct WorkloadRun {
  RunStatus status = RunStatus::kNoData;
  std::string reason;
  std::string log_path;
  LogFormat format = LogFormat::kAuto;  // as detected or forced
  int iteration_base = 1;               // what the log prints for step 1 (0 for NeMo 2)
  MeasurementWindow window;

  // What the log showed.
  int64_t lines = 0;
  int64_t iterations_seen = 0;
  std::optional<int64_t> last_step_seen;
  std::optional<int64_t> total_steps;
  bool final_marker_seen = false;
  int64_t final_marker_line = 0;
  std::vector<IterationSample> samples;  // every step the log printed, ascending
  std::vector<NonFiniteGradNorm> nonfinite_grad_norms;

  // The window.
  std::vector<int64_t> missing_window_steps;
  std::optional<SampleStats> step_time_s;
  std::optional<SampleStats> tflops_per_gpu;  // reported (non-zero) values only
  bool tflops_not_reported = false;           // every window TFLOPS was absent or printed as 0
  std::optional<SampleStats> tokens_per_s_per_gpu;  // torchtitan's tps over the window

  JobShape shape;
  DerivedMetrics derived;
  std::optional<LlmbConfig> config;
  std::optional<InferenceResult> inference;
  std::vector<std::string> superseded_logs;  // older retries of the same job
  std::vector<std::string> notes;            // things the reader should know, never silent

  bool operator==(const WorkloadRun&) const = default;
};

// Every timed step from the window's first step to the last the log printed, in step order (the
// window and what ran after it: the series the step-time analysis reads). `*first_step` gets the
// first one's step number (0 when there is none).
std::vector<double> StepTimesAfterWarmup(const WorkloadRun& run, int64_t* first_step);

// A workload whose log could not be found: status no_log with `reason`.
WorkloadRun NoLogRun(std::string log_path, std::string reason);

// JSON form. Non-finite numbers (a NaN grad norm) are written as the strings "nan", "inf",
// "-inf" so that the document stays standard JSON and reads back to the same value.
nlohmann::ordered_json ToJson(const WorkloadRun& run);
nlohmann::ordered_json ToJson(const SampleStats& stats);
// Invalid names the field that is wrong and what was expected.
Result<WorkloadRun> WorkloadRunFromJson(const nlohmann::json& j);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_WORKLOAD_RUN_H_
