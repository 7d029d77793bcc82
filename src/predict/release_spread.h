// How far a release moves the published step time of the same recipe: for any two releases
// k < j of one table of baselines/published/*.tsv (a release newer than every calibrated one may
// be several releases ahead; releases up to kNewestFittableRelease, rows marked anomaly left
// out), the relative change published(j) / published(k) − 1 of every recipe both publish once, the
// recipe being the (model, chip, precision, GPUs, global batch) of a row. A figure re-published
// unchanged (|change| below 0.05%) is the same measurement shown twice, not evidence of how
// releases move, and is left out. This is what an anchored answer about a release newer than every
// calibrated one can miss by: its anchor is a row of an older release, and the release between
// moves the step time.
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_PREDICT_RELEASE_SPREAD_H_
#define YARDSTICK_PREDICT_RELEASE_SPREAD_H_

#include <functional>
#include <string>
#include <vector>

#include "predict/fit.h"
#include "predict/published_table.h"

namespace ys::predict {

// Pairs with fewer rows than this in a group (dense, MoE) are pooled with the other group.
inline constexpr int kMinSpreadPairs = 20;

struct ReleaseSpread {
  predict::ErrorStats dense, moe, pooled;  // |change| of the pairs of each kind of model
  int release_pairs = 0;                   // release pairs (any two) that share a recipe
  // The figure for a model: its group's where the group has kMinSpreadPairs, else the pooled.
  const predict::ErrorStats& For(bool moe_model) const;
  // "median 1.4%, p90 6.2% over 404 recipe pairs of 47 release pairs (dense models)"
  std::string Describe(bool moe_model) const;
};

// `is_moe` says whether a row's model (less a "_proxy" suffix) has routed experts.
ReleaseSpread MeasureReleaseSpread(const std::vector<PublishedRow>& rows,
                                   const std::function<bool(const std::string&)>& is_moe);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RELEASE_SPREAD_H_
