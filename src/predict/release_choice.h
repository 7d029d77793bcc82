// The release a `predict` or `scaling` answer is for (--release TAG; default the newest release
// calibration/releases.toml calibrates), the constants that follow for a chip and precision
// (predict/release_calibration.h ApplyRelease), and the line that says so. Chosen by
// predict/predictor.h Predictor::Release.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_RELEASE_CHOICE_H_
#define YARDSTICK_PREDICT_RELEASE_CHOICE_H_

#include <string>
#include <string_view>

#include "predict/anchor.h"
#include "predict/release_calibration.h"
#include "predict/step_model.h"

namespace ys::predict {

// How far an answer can be expected to be from the step time it predicts: the |error| measured
// on the published rows of the release whose constants answer (calibration/releases.toml), and
// what was measured. `stats.rows` 0: too little evidence, `measured` says why.
struct ExpectedError {
  predict::ErrorStats stats;
  std::string measured;
};

struct ReleaseConstantsChoice {
  predict::ReleaseChoice choice;
  predict::Constants constants;
  // "release 26.04.01 (the newest calibrated; --release TAG to choose)" and the choice's note.
  std::string Header() const;
  // The answer's expected error, unanchored or anchored. About the calibrated release itself, an
  // unanchored answer expects the release's leave-one-model-out error; about a later release,
  // the error of the release's rows predicted from the release before it, plain or anchored.
  // Given the anchor of an anchored answer and the answer's precision, `measured` also says when
  // the anchor is a row of another precision or of an older release than the constants': the
  // measured rows were anchored on rows of their own precision and release where those had one,
  // so such an answer can miss by more.
  ExpectedError Expected(bool anchored, const predict::Anchor* anchor = nullptr,
                         std::string_view precision = "") const;
  // "expected |error| of the anchored step time: median 0.8%, 90th percentile 1.4% (...)".
  std::string ExpectedLine(bool anchored, const predict::Anchor* anchor = nullptr,
                           std::string_view precision = "") const;
};

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RELEASE_CHOICE_H_
