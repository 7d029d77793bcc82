// Judging a parsed log: the window statistics, the job shape, the derived throughput, and the
// status with its reason (workload_run.h lists the statuses). Pure functions of their inputs.
//
// Status precedence for training logs: unsupported_framework (the llmb-config names a framework
// yardstick does not read, and no --format forces one) > no_data (no iteration at all) >
// invalid_grad_norm (any NaN or inf grad norm) > incomplete (a window step without timing, or no
// final marker) > success.
#ifndef YARDSTICK_VALIDATE_RUN_EVALUATION_H_
#define YARDSTICK_VALIDATE_RUN_EVALUATION_H_

#include <string_view>

#include "validate/inference_result.h"
#include "validate/ingest_options.h"
#include "validate/training_log.h"
#include "validate/workload_run.h"

namespace ys::validate {

WorkloadRun EvaluateTrainingLog(ParsedLog parsed, const IngestOptions& options,
                                std::string_view log_path);

// Serving results: success when every point's requests all completed; incomplete when a point
// lost requests (completed < num_prompts); no_data without any serving point; a NeMo-RL
// metrics.json is unsupported_framework.
WorkloadRun EvaluateInference(InferenceResult result, const IngestOptions& options,
                              std::string_view log_path);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_RUN_EVALUATION_H_
