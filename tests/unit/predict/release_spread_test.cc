// The release-to-release spread of the published tables (predict/release_spread.h) and the
// expected error it gives an anchored answer about a release newer than its constants
// (predict/release_choice.h): on the repository's own consecutive calibrated releases, the
// observed error stays within the stated 90th percentile on at least 85% of rows.
#include "predict/release_spread.h"

#include <gtest/gtest.h>

#include <cmath>

#include "predict/anchor.h"
#include "predict/predictor.h"
#include "predict/release_calibration.h"

namespace ys::predict {
namespace {

PublishedRow SpreadRow(const std::string& release, const std::string& model, int gpus,
                       double step_s) {
  PublishedRow r;
  r.file = "t.tsv";
  r.release = release;
  r.chip = "h100";
  r.model = model;
  r.precision = "bf16";
  r.gpus = gpus;
  r.gbs = 128;
  r.step_time_s = step_s;
  return r;
}

TEST(ReleaseSpreadTest, AnyTwoReleasesOfTheSameRecipe) {
  std::vector<PublishedRow> rows = {
      SpreadRow("25.09", "dense_a", 8, 10.0),   SpreadRow("25.11", "dense_a", 8, 12.0),
      SpreadRow("26.02", "dense_a", 8, 12.0),  // unchanged from 25.11 (left out), +20% on 25.09
      SpreadRow("25.09", "moe_a", 8, 10.0),     SpreadRow("25.11", "moe_a", 8, 7.0),
      SpreadRow("25.09", "dense_a", 16, 5.0),    // no 25.11 row of it: no pair
      SpreadRow("26.06.01", "dense_a", 8, 6.0),  // after the calibration: never read
  };
  PublishedRow anomaly = SpreadRow("26.02", "moe_a", 8, 1.0);
  anomaly.anomaly = true;
  rows.push_back(anomaly);
  const ReleaseSpread s =
      MeasureReleaseSpread(rows, [](const std::string& m) { return m.starts_with("moe"); });
  EXPECT_EQ(s.dense.rows, 2);  // 25.09 -> 25.11 and 25.09 -> 26.02
  EXPECT_NEAR(s.dense.median_abs, 0.2, 1e-12);
  EXPECT_EQ(s.moe.rows, 1);
  EXPECT_NEAR(s.moe.p90_abs, 0.3, 1e-12);
  EXPECT_EQ(s.pooled.rows, 3);
  EXPECT_EQ(s.release_pairs, 2);  // 25.09 -> 25.11, 25.09 -> 26.02 (25.11 -> 26.02 re-published)
  // Too few pairs of either kind: both take the pooled figure.
  EXPECT_EQ(&s.For(true), &s.pooled);
  EXPECT_NE(s.Describe(false).find("pooled"), std::string::npos);
}

// Each calibrated release after a chip's first, predicted as an operator asking about it would
// have been answered before it was calibrated: the previous calibrated release's constants,
// anchored on its (or an older release's) row of the model, with the error the newer-release
// situation states. The stated p90 must hold on at least 85% of the rows.
TEST(ReleaseSpreadTest, NewerReleaseStatementHoldsOnTheRepositorysReleasePairs) {
  auto predictor = Predictor::Open(YS_SOURCE_DIR);
  ASSERT_TRUE(predictor.ok()) << predictor.status().message();
  auto cal = LoadReleaseCalibration(YS_SOURCE_DIR);
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  auto set = ReleaseSet::Load(YS_SOURCE_DIR, predictor->calibration());
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto spread = predictor->Spread();
  ASSERT_TRUE(spread.ok()) << spread.status().message();
  EXPECT_GE(spread->pooled.rows, 100);
  const Constants& base = predictor->calibration().constants;
  int rows = 0, within = 0;
  for (const ReleaseCase& c : set->cases()) {
    if (c.row.anomaly || ReleaseBefore(kNewestFittableRelease, c.row.release)) continue;
    // The newest calibrated release of the chip strictly before the row's.
    std::string previous;
    for (const ReleaseConstants& r : cal->releases) {
      if (r.Chip(c.row.chip) != nullptr && ReleaseBefore(r.release, c.row.release))
        previous = r.release;
    }
    if (previous.empty()) continue;
    ReleaseConstantsChoice chosen{.choice = ChooseRelease(*cal, previous, c.row.chip)};
    ASSERT_TRUE(chosen.choice.chip.has_value());
    chosen.choice.asked = c.row.release;  // the operator asked about the newer release
    chosen.spread = *spread;
    auto predicted = PredictReleaseCase(c, base, *chosen.choice.chip);
    ASSERT_TRUE(predicted.ok()) << predicted.status().message();
    auto anchor = AnchorPrediction(*set, previous, c.precision, c.recipe, *predicted, base,
                                   *chosen.choice.chip);
    ASSERT_TRUE(anchor.ok()) << anchor.status().message();
    if (!*anchor) continue;
    const ExpectedError e = chosen.Expected({.anchored = true,
                                             .anchor = &**anchor,
                                             .precision = c.precision,
                                             .moe = c.model->moe.has_value()});
    ASSERT_EQ(e.situation, Situation::kNewerRelease) << e.measured;
    ASSERT_GT(e.stats.rows, 0) << e.measured;
    ++rows;
    if (std::fabs((*anchor)->ErrorAgainst(c.row.step_time_s)) <= e.stats.p90_abs) ++within;
  }
  ASSERT_GE(rows, 100);
  EXPECT_GE(within, 0.85 * rows) << within << " of " << rows;
}

// The situation follows the question: the newest calibrated release itself, a release after
// it, and a model with no published row of the chip.
TEST(ReleaseSpreadTest, ExpectedErrorNamesItsSituation) {
  auto predictor = Predictor::Open(YS_SOURCE_DIR);
  ASSERT_TRUE(predictor.ok()) << predictor.status().message();
  auto current = predictor->Release("", "h100", "bf16");
  ASSERT_TRUE(current.ok()) << current.status().message();
  EXPECT_EQ(current->Expected({}).situation, Situation::kCalibratedRelease);
  EXPECT_EQ(current->Expected({.model_has_rows = false}).situation, Situation::kModelNotFitted);
  auto later = predictor->Release("26.06.01", "h100", "bf16");
  ASSERT_TRUE(later.ok()) << later.status().message();
  const ExpectedError e = later->Expected({.anchored = true});
  EXPECT_EQ(e.situation, Situation::kNewerRelease);
  EXPECT_GE(e.stats.p90_abs, later->spread->For(false).p90_abs);
  auto h200 = predictor->Release("", "h200", "bf16");
  ASSERT_TRUE(h200.ok()) << h200.status().message();
  EXPECT_EQ(h200->Expected({}).situation, Situation::kBorrowedChip);
}

}  // namespace
}  // namespace ys::predict
