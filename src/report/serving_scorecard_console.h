// The serving phases of a scorecard on the console: one block per phase with its verdict and
// why, then each metric's measured figure against the reference, its score and result; a phase
// that could not be judged names why, and the points refused are listed under it; with
// validate --predict, what the serving model predicted for it (report/phase_prediction_console.h).
#ifndef YARDSTICK_REPORT_SERVING_SCORECARD_CONSOLE_H_
#define YARDSTICK_REPORT_SERVING_SCORECARD_CONSOLE_H_

#include <ostream>
#include <vector>

#include "validate/serving_score.h"

namespace ys::report {

void WriteServingPhases(const std::vector<validate::ScoredPhase>& phases, double threshold,
                        bool color, std::ostream& out);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_SERVING_SCORECARD_CONSOLE_H_
