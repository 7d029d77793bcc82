// Console text for ingested workload runs (`yardstick ingest`), and the exit code a set of them
// earns. Kept apart from the ingestion itself, as every reporter is; the suite scorecard can
// reuse the number formatting.
#ifndef YARDSTICK_REPORT_WORKLOAD_CONSOLE_H_
#define YARDSTICK_REPORT_WORKLOAD_CONSOLE_H_

#include <string>

#include "validate/workload_run.h"

namespace ys::report {

// Several lines about one run: format, status and reason, iterations seen, window step time
// mean ± stdev, TFLOPS/GPU, tokens/s/GPU, MFU (or what each one needs), superseded retries,
// notes. Ends with a newline.
std::string FormatWorkloadRun(const validate::WorkloadRun& run);

// 0 success; 1 incomplete or invalid_grad_norm (the run is not good); 2 no_data, no_log,
// unsupported_framework (yardstick could not read a result from the input).
int ExitCodeForStatus(validate::RunStatus status);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_WORKLOAD_CONSOLE_H_
