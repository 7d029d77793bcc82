// `validate --predict` on a serving suite, on the console: one row per phase with the serving
// model's figures at the phase's point (tokens/s per GPU, TTFT, TPOT, tokens/s per user), the
// predicted score and why (the costliest term), or why there is no prediction; under each
// predicted phase, each reference figure's predicted score and the expected error.
//
// Thread safety: pure functions.
#ifndef YARDSTICK_REPORT_PHASE_PREDICTION_CONSOLE_H_
#define YARDSTICK_REPORT_PHASE_PREDICTION_CONSOLE_H_

#include <string>
#include <vector>

#include "predict/serve_phase_prediction.h"

namespace ys::report {

// One phase beside its scorecard block (validate --predict --runs): "predicted at concurrency 8:
// 385.2 tok/s/GPU, TTFT 0.069 s, TPOT 18.50 ms, 54.0 tok/s/user; score 100.0%: <why>" or
// "predicted: none: <reason>", then the lines of each reference figure and the expected error, each
// indented by `indent`.
std::string ServingPredictionBlock(const predict::PhasePrediction& p, const std::string& indent);

// `at_reference_rates`: no --measured document or --set gave a rate (the scores are then 1 by
// construction, and the header says so).
std::string ServingPredictionConsole(const std::vector<predict::PhasePrediction>& phases,
                                     double threshold, bool at_reference_rates);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_PHASE_PREDICTION_CONSOLE_H_
