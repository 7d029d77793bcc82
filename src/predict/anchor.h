// Anchored predictions: where a published row of the same model and chip exists in the release
// whose constants apply, or in an older one, the answer is that row's step time scaled by the
// model's ratio between the two recipes,
//   anchored = published(row) × predicted(recipe) / predicted(row's recipe),
// both predicted with the same constants, so that what the model gets wrong about the release,
// chip and model as a whole (an efficiency off by a factor) cancels and only its account of the
// difference between the recipes remains. The row comes from the newest release, at or before the
// one whose constants apply, that has a row of the model on the chip: an older release's row
// carries that release's software, whose speed-up since is not in the figure (over the
// next-release rows of baselines/published, anchoring on such a row still beats the plain figure;
// docs/releases.md). Within that release the row is the nearest one: the same precision before
// another, then the nearest GPU count, global batch and sequence length (on a log scale); ties go
// to the earlier row of the tables.
//
// Thread safety: pure functions.
#ifndef YARDSTICK_PREDICT_ANCHOR_H_
#define YARDSTICK_PREDICT_ANCHOR_H_

#include <optional>
#include <string>

#include "core/status.h"
#include "predict/release_calibration.h"
#include "predict/release_cases.h"

namespace ys::predict {

struct Anchor {
  const ReleaseCase* row = nullptr;
  std::string release;         // the release whose constants apply (the row's or a later one)
  double row_predicted_s = 0;  // the row's recipe under the same constants
  double anchored_s = 0;
  std::string Describe() const;  // "megatron_bridge.tsv:48 (26.04.01 gb300 fp8_cs, 64 GPUs, ...)"
  // anchored / published − 1
  double ErrorAgainst(double published_s) const { return anchored_s / published_s - 1; }
};

// The nearest row of `model` on `chip` (not an anomaly) in the newest release at or before
// `release` that has one, or nullptr.
const ReleaseCase* NearestRow(const ReleaseSet& set, const std::string& model,
                              const std::string& chip, const std::string& release,
                              const std::string& precision, const predict::Recipe& r);

// The anchored figure for a prediction `predicted_s` of recipe `r` at `precision`, the row's
// recipe predicted under `k` (a release's constants of the chip) over `base`.
Result<std::optional<Anchor>> AnchorPrediction(const ReleaseSet& set, const std::string& release,
                                               const std::string& precision,
                                               const predict::Recipe& r, double predicted_s,
                                               const predict::Constants& base,
                                               const ChipConstants& k);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_ANCHOR_H_
