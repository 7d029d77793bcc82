// `yardstick predict --published [--fit] [--cv] [--json]`: a prediction for every published row of
// baselines/ with the error table (in fit / held out), --fit's constants and --cv's
// leave-one-model-out figures, then (console only) the per-release tables of
// baselines/published/*.tsv (predict/release_cases.h, predict/later_releases.h).
//
// Thread safety: one thread; writes to standard output.
#ifndef YARDSTICK_CLI_PREDICT_PUBLISHED_H_
#define YARDSTICK_CLI_PREDICT_PUBLISHED_H_

#include <string>

#include "core/status.h"
#include "predict/step_calibration.h"

namespace ys::cli {

struct PublishedArgs {
  bool fit = false;   // re-fit the constants on the rows outside the held-out set
  bool cv = false;    // add the leave-one-model-out figures
  bool json = false;  // one document (schemas/predict_published.schema.json), no release tables
};

// The published rows predicted with `cal` read from `data`; exit 0, or the error of a file that
// cannot be read.
Result<int> RunPublished(const PublishedArgs& a, const std::string& data,
                         const predict::StepCalibration& cal);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_PREDICT_PUBLISHED_H_
