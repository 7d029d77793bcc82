// Fuzz target: the readers of the step-time model's inputs, by selector byte:
//   0 the calibration file (predict/step_calibration.cc ParseStepCalibration)
//   1 a --set rate assignment (predict/step_rates.cc ApplyRateOverride)
//   2 the per-release constants (predict/release_calibration_io.cc ParseReleaseCalibration)
//   3 a published table (predict/published_table.cc ParsePublishedTable)
//   4 the serving model's file (predict/serve_calibration.cc ParseServeCalibration)
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "predict/published_table.h"
#include "predict/release_calibration.h"
#include "predict/serve_calibration.h"
#include "predict/step_calibration.h"
#include "predict/step_rates.h"

YS_FUZZ_TARGET(predict) {
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 5);
  if (!which) return 0;
  switch (*which) {
    case 0:
      (void)ys::predict::ParseStepCalibration(text, "fuzz.toml");
      break;
    case 1: {
      ys::predict::SystemRates rates;
      (void)ys::predict::ApplyRateOverride(rates, text);
      break;
    }
    case 2:
      (void)ys::predict::ParseReleaseCalibration(text, "fuzz.toml");
      break;
    case 3:
      (void)ys::predict::ParsePublishedTable(text, "fuzz.tsv");
      break;
    case 4:
      (void)ys::predict::ParseServeCalibration(text, "fuzz.toml");
      break;
  }
  return 0;
}
