// The release a `predict` or `scaling` answer is for (--release TAG; default the newest release
// calibration/releases.toml calibrates), the constants that follow for a chip and precision
// (validate/release_calibration.h ApplyRelease), and the line that says so.
//
// Thread safety: values only.
#ifndef YARDSTICK_CLI_PREDICT_RELEASE_H_
#define YARDSTICK_CLI_PREDICT_RELEASE_H_

#include <string>

#include "core/status.h"
#include "validate/release_calibration.h"
#include "validate/step_calibration.h"

namespace ys::cli {

struct ReleaseConstantsChoice {
  validate::ReleaseChoice choice;
  workloads::predict::Constants constants;
  // "release 26.04.01 (the newest calibrated; --release TAG to choose)" and the choice's note.
  std::string Header() const;
};

// Invalid when --precision is unknown or calibration/releases.toml cannot be read.
Result<ReleaseConstantsChoice> ChooseReleaseConstants(const std::string& data,
                                                      const std::string& release,
                                                      const std::string& chip,
                                                      const std::string& precision,
                                                      const validate::StepCalibration& cal);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_PREDICT_RELEASE_H_
