// `validate --predict`: before the suite's runs are booked, the step each workload is predicted
// to reach on this cluster and whether it would land under the threshold, and why.
//
// The step-time model (through predict/predictor.h) is used as a ratio, so that its own error
// cancels: for each workload the model predicts the step at the reference system's rates (specs/
// and calibration/) and at this cluster's (the same, with --measured documents' rates and --set
// overrides laid over them);
//   predicted score = predicted at reference rates / predicted at this cluster's rates
//   predicted step  = the reference's published (or recorded) step ÷ predicted score
// (the model's own predicted step is shown beside it). Where the suite has no comparable
// reference, the model's step is anchored instead on the nearest published row of the same model
// and chip (baselines/published/, the release whose constants apply or the newest older one with
// such a row), as `predict` anchors it.
// Without measurements the score is 1 by construction: the column then shows the model's step
// against the reference, and which term dominates it. A workload whose model file, recipe or
// reference is missing says so. The model's constants are those of the suite's recipe release
// (predict/release_calibration.h ChooseRelease: the nearest older calibrated release for one not
// calibrated), named per row.
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_PREDICT_SUITE_SUITE_PREDICTION_H_
#define YARDSTICK_PREDICT_SUITE_SUITE_PREDICTION_H_

#include <optional>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "validate/reference.h"
#include "validate/suite.h"

namespace ys::predict {

struct WorkloadPrediction {
  validate::SuiteWorkload workload;
  std::optional<double> model_step_s;      // the model at this cluster's rates
  std::optional<double> reference_step_s;  // the suite's reference, where one is comparable
  std::optional<double> predicted_step_s;  // reference ÷ predicted score
  std::optional<double> predicted_score;
  // Without a comparable reference: the model's step anchored (predict/anchor.h) on the nearest
  // published row of the same model and chip (the release whose constants apply, else the newest
  // older one with a row), at this cluster's rates (anchored at the reference rates ÷ predicted
  // score), and that row.
  std::optional<double> anchored_step_s;
  std::string anchored_on;
  // The error an anchored step can expect (predict/release_choice.h ExpectedLine).
  std::string anchored_expected_error;
  bool under = false;   // predicted score below the threshold
  std::string release;  // which release's constants (calibration/releases.toml) the model used
  std::string why;      // the largest cost (a measured shortfall, or the dominant term), or why
                        // there is no prediction
};

struct SuitePredictionInputs {
  std::string data_dir;
  std::vector<std::pair<std::string, RunDocument>> measured;  // (path, document)
  std::vector<std::string> sets;                              // --set assignments
};

// Invalid for unreadable data (calibration, specs) or a bad --set; a workload that cannot be
// predicted is a row with its reason.
Result<std::vector<WorkloadPrediction>> PredictSuite(const validate::Suite& suite,
                                                     const validate::ReferenceSet& refs,
                                                     const SuitePredictionInputs& in);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SUITE_SUITE_PREDICTION_H_
