// The validation scorecard on a console: one row per workload (precision, GPUs, step time and
// spread, tokens/s/GPU, TFLOPS/GPU, MFU, reference, ratio, outcome, reason) and the verdict.
#ifndef YARDSTICK_REPORT_SCORECARD_REPORTER_H_
#define YARDSTICK_REPORT_SCORECARD_REPORTER_H_

#include <ostream>

#include "validate/scorecard.h"

namespace ys::report {

void WriteScorecard(const validate::Scorecard& card, bool color, std::ostream& out);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_SCORECARD_REPORTER_H_
