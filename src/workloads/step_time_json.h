// The JSON form of a step-time analysis (workloads/step_time.h), as the validation document and
// the proxies' results carry it. Written only; nothing reads it back (it is re-derived from the
// step times, which are kept beside it).
#ifndef YARDSTICK_WORKLOADS_STEP_TIME_JSON_H_
#define YARDSTICK_WORKLOADS_STEP_TIME_JSON_H_

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "workloads/step_time.h"

namespace ys::workloads {

nlohmann::ordered_json ToJson(const StepTimeAnalysis& a);

// One line for a console: "median 1.234 s, p99 1.502 s (+22%), CV 4.1%; periodic stalls every
// 10 steps (+81 ms); drift +3.2% over the run; slow ranks 3, 7". Only what was found is named.
std::string StepTimeSummary(const StepTimeAnalysis& a);

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_STEP_TIME_JSON_H_
