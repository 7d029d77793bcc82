// `validate --predict` on a serving suite: before the runs, what each [[phase]] is predicted to
// reach on this cluster (predict/serve_model.h, through the system and constants that `predict
// --serve` uses: predict/serve_system.h) and whether it would land under the threshold, and why.
//
// Each phase is predicted at its reference's point (the reference's concurrency, or max
// throughput for an offline reference), else at its own (its concurrency, the largest of a sweep;
// max throughput in offline mode). Disaggregated phases take prefill and decode workers of one
// TP (the model's one instance shape); a phase whose two sides differ has a reason.
// Where the reference gives figures, each is scored as the rule scores a run, on the model's
// ratio between this cluster's rates (the reference's with --measured and --set laid over them)
// and the reference rates (predict/serve_phase_prediction.h): the model's own error cancels, and
// without measurements the score is 1 by construction. The phase's figures are the model's own,
// with the expected error of the chip and precision (calibration/serve_model.toml).
// A phase without a model file, a chip spec, a rate for its precision, or room for its weights
// has a reason and no figure.
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_PREDICT_SUITE_PHASE_PREDICTIONS_H_
#define YARDSTICK_PREDICT_SUITE_PHASE_PREDICTIONS_H_

#include <vector>

#include "core/status.h"
#include "predict/serve_phase_prediction.h"
#include "predict/suite/suite_prediction.h"
#include "validate/reference.h"
#include "validate/suite.h"

namespace ys::predict {

// One entry per phase of `suite`, in order. Invalid for unreadable data (step_model.toml,
// serve_model.toml, a chip spec or model file that exists and does not read) or a bad --set.
Result<std::vector<PhasePrediction>> PredictServingSuite(const validate::Suite& suite,
                                                         const validate::ReferenceSet& refs,
                                                         const SuitePredictionInputs& in);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SUITE_PHASE_PREDICTIONS_H_
