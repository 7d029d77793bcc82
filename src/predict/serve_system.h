// The system and constants a serving prediction (predict/serve_model.h) runs on, built once for
// `predict --serve` (cli/predict_serve.h) and `validate --predict` on a serving suite
// (predict/suite/phase_predictions.h), so that both answer the same for the same inputs.
//
// The system: the chip's reference rates (specs/<chip>.toml under calibration/step_model.toml's
// constants) with measured documents and --set overrides laid over them, as for a training
// prediction; the measured collectives are taken at the message sizes of one prefill of ISL
// tokens (micro-batch 1, sequence ISL); and the chip's device memory (bench::DeviceMemoryBytes: 0
// when the spec has none). The constants: calibration/serve_model.toml when it exists, else the
// built-in defaults, named so.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_SERVE_SYSTEM_H_
#define YARDSTICK_PREDICT_SERVE_SYSTEM_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/device_specs.h"
#include "core/status.h"
#include "predict/model_spec.h"
#include "predict/predictor.h"
#include "predict/serve_calibration.h"
#include "predict/serve_model.h"

namespace ys::predict {

struct ServeSystemQuery {
  std::string chip;       // as specs/ names it: "h200"
  std::string precision;  // as given: "bf16", "fp8", "nvfp4"
  ServeLayout layout;
  int isl = 0;
  RateInputs rates;  // measured documents and --set overrides
};

struct ServeSystemOf {
  ServeSystem reference;              // the chip's reference rates alone
  ServeSystem system;                 // with the measured documents and overrides laid over
  std::vector<std::string> measured;  // each rate a document gave, one line
};

// Invalid for a document that gives none of the rates (unless skipped) or a bad --set.
Result<ServeSystemOf> BuildServeSystem(const Predictor& predictor, const ModelSpec& model,
                                       const bench::DeviceSpec& chip, const ServeSystemQuery& q);

struct ServeConstantsOf {
  std::optional<ServeCalibration> calibration;  // absent: no calibration/serve_model.toml
  ServeConstants constants;                     // [constants], else the built-in defaults
  // The file read, or "built-in defaults (no <data>/calibration/serve_model.toml)".
  std::string path;
  // `architecture`: ServeArchitecture of the model predicted.
  ServeExpectedError Expected(std::string_view chip, std::string_view dtype,
                              std::string_view architecture) const;
  // The constants a prediction for the chip and dtype runs on (ServeConstantsFor).
  ServeConstants For(std::string_view chip, std::string_view dtype) const;
};

// Invalid when the file exists and does not read (serve_calibration.h).
Result<ServeConstantsOf> LoadServeConstants(const std::string& data_dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_SYSTEM_H_
