// The release a `predict` or `scaling` answer is for (--release TAG; default the newest release
// calibration/releases.toml calibrates), the constants that follow for a chip and precision
// (predict/release_calibration.h ApplyRelease), and the line that says so. Chosen by
// predict/predictor.h Predictor::Release.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_RELEASE_CHOICE_H_
#define YARDSTICK_PREDICT_RELEASE_CHOICE_H_

#include <optional>
#include <string>
#include <string_view>

#include "predict/anchor.h"
#include "predict/release_calibration.h"
#include "predict/release_spread.h"
#include "predict/step_model.h"

namespace ys::predict {

// The situation an answer is in, which decides what its expected error is measured on:
//   kCalibratedRelease  the release asked for is calibrated for the chip and the model has a
//                       published row there (unanchored: leave-one-model-out; anchored on a row
//                       of that release: its rows predicted from the previous calibrated release
//                       and anchored);
//   kNewerRelease       the answer carries a release gap: the release asked for is newer (or
//                       older) than the constants', or the anchor row is of an older release than
//                       the one asked for; the release-to-release spread of the published tables
//                       (predict/release_spread.h) added to what the calibrated release pairs
//                       measured for such an answer (the release's movement and the model's);
//   kModelNotFitted     no published row of the model on the chip up to the release: no fit saw
//                       it (leave-one-model-out);
//   kBorrowedChip       the chip takes another chip's constants (calibration/step_model.toml
//                       constants_from): their leave-one-model-out error, said to be another
//                       chip's;
//   kUncalibrated       no release is calibrated for the chip: too little evidence.
enum class Situation {
  kCalibratedRelease,
  kNewerRelease,
  kModelNotFitted,
  kBorrowedChip,
  kUncalibrated
};
// "calibrated_release", "newer_release", "model_not_fitted", "borrowed_chip", "uncalibrated".
const char* SituationName(Situation s);

// How far an answer can be expected to be from the step time it predicts, measured on the
// situation it is in, and what was measured (`measured`, the basis). `stats.rows` 0: too little
// evidence, `measured` says why.
struct ExpectedError {
  predict::ErrorStats stats;
  Situation situation = Situation::kUncalibrated;
  std::string measured;
};

// What Expected needs to know of the answer.
struct ExpectedQuery {
  bool anchored = false;
  const predict::Anchor* anchor = nullptr;  // an anchored answer's anchor (or the one it had)
  std::string_view precision;
  bool moe = false;  // the model has routed experts (the spread is measured per kind)
  // The model has a published row of the chip up to the release (an unanchored answer beside an
  // anchor had one); false puts an unanchored answer in kModelNotFitted.
  bool model_has_rows = true;
};

struct ReleaseConstantsChoice {
  predict::ReleaseChoice choice;
  predict::Constants constants;
  // The release-to-release spread of the published tables (Predictor::Release sets it).
  std::optional<predict::ReleaseSpread> spread;
  // "release 26.04.01 (the newest calibrated; --release TAG to choose)" and the choice's note.
  std::string Header() const;
  // The answer's expected error in its situation (above). Given the anchor of an anchored answer
  // and the answer's precision, `measured` also says when the anchor is a row of another
  // precision: the measured rows were anchored on rows of their own precision where those had
  // one, so such an answer can miss by more.
  ExpectedError Expected(const ExpectedQuery& q) const;
  // "expected |error| of the anchored step time (newer_release): median 0.8%, 90th percentile
  // 1.4% (...)".
  std::string ExpectedLine(const ExpectedQuery& q) const;
};

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RELEASE_CHOICE_H_
