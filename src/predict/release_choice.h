// The release a `predict` or `scaling` answer is for (--release TAG; default the newest release
// calibration/releases.toml calibrates), the constants that follow for a chip and precision
// (predict/release_calibration.h ApplyRelease), and the line that says so. Chosen by
// predict/predictor.h Predictor::Release.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_RELEASE_CHOICE_H_
#define YARDSTICK_PREDICT_RELEASE_CHOICE_H_

#include <string>

#include "predict/release_calibration.h"
#include "predict/step_model.h"

namespace ys::predict {

struct ReleaseConstantsChoice {
  validate::ReleaseChoice choice;
  workloads::predict::Constants constants;
  // "release 26.04.01 (the newest calibrated; --release TAG to choose)" and the choice's note.
  std::string Header() const;
};

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RELEASE_CHOICE_H_
