// Rows of releases newer than every release a fit may read (kNewestFittableRelease): a table of a
// later container dropped into baselines/published/ is never fitted, only predicted, the way
// `yardstick predict --release TAG` answers an operator about that release: with the constants of
// the newest release calibration/releases.toml calibrates for the row's chip at or before it, and
// anchored (predict/anchor.h) on the nearest row of the same model and chip in that release, or
// in the newest older release with one. `predict --published` prints the errors per release, chip
// and precision, and per row.
//
// Thread safety: values only; the report points into the set it was made from.
#ifndef YARDSTICK_PREDICT_LATER_RELEASES_H_
#define YARDSTICK_PREDICT_LATER_RELEASES_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/anchor.h"
#include "predict/fit.h"
#include "predict/release_calibration.h"
#include "predict/release_cases.h"

namespace ys::predict {

struct LaterRow {
  const ReleaseCase* c = nullptr;
  std::string used;  // the calibrated release whose constants answered ("" the base constants)
  double predicted_s = 0;
  std::optional<Anchor> anchor;
};

// Errors of one release × chip × precision ("all" for the chip's rows, chip "all" for the
// release's): `plain` of every row, `anchored` of the rows that found an anchor.
struct LaterCell {
  std::string release, used, chip, precision;
  predict::ErrorStats plain, anchored;
};

struct LaterReleases {
  std::vector<LaterRow> rows;  // in table order
  std::vector<LaterCell> cells;
  // The later rows no answer was given for, "file:line: why" (ReleaseSet::skipped): a table's
  // coverage is part of its result.
  std::vector<std::string> not_predicted;
};

// Every row of `set` newer than kNewestFittableRelease (and not an anomaly), predicted with the
// constants `cal` chooses for its release and chip over `base`.
Result<LaterReleases> PredictLaterReleases(const ReleaseSet& set, const ReleaseCalibration& cal,
                                           const predict::Constants& base);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_LATER_RELEASES_H_
