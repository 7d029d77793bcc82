#include "history/noise.h"

#include <gtest/gtest.h>

namespace ys::history {
namespace {

SampleStats Stats(std::vector<double> v) { return ComputeStats(std::move(v)); }

TEST(NoiseTest, RegressionFiresBeyondTheNoise) {
  std::vector<double> hist = {100, 101, 99, 100.5, 99.5};
  RegressionVerdict v = JudgeAgainstHistory(70, hist, Better::kHigher);
  EXPECT_TRUE(v.judged);
  EXPECT_TRUE(v.regression);
  EXPECT_DOUBLE_EQ(v.median, 100);
  EXPECT_NEAR(v.change_pct, -30, 1e-9);
  EXPECT_EQ(v.history, 5);
  // Lower is better: a 30% longer time is a regression, a 30% shorter one is not.
  EXPECT_TRUE(JudgeAgainstHistory(130, hist, Better::kLower).regression);
  EXPECT_FALSE(JudgeAgainstHistory(70, hist, Better::kLower).regression);
  EXPECT_FALSE(JudgeAgainstHistory(130, hist, Better::kHigher).regression);
}

TEST(NoiseTest, RegressionDoesNotFireWithinTheMinimumOrTheSpread) {
  // Tight history: the 5% floor decides. 4% worse is noise, 6% is not.
  std::vector<double> tight = {100, 100, 100, 100, 100};
  EXPECT_FALSE(JudgeAgainstHistory(96, tight, Better::kHigher).regression);
  EXPECT_TRUE(JudgeAgainstHistory(94, tight, Better::kHigher).regression);
  // Wide history: MAD = 10, noise = 3 x 1.4826 x 10 = 44.5; 30% worse is still within it.
  std::vector<double> wide = {80, 90, 100, 110, 120};
  RegressionVerdict v = JudgeAgainstHistory(70, wide, Better::kHigher);
  EXPECT_TRUE(v.judged);
  EXPECT_NEAR(v.mad, 10, 1e-9);
  EXPECT_NEAR(v.noise, 44.478, 1e-3);
  EXPECT_FALSE(v.regression);
  // One wild run in the history does not widen the noise (MAD, not stdev).
  std::vector<double> outlier = {100, 100, 101, 99, 10};
  EXPECT_TRUE(JudgeAgainstHistory(80, outlier, Better::kHigher).regression);
}

TEST(NoiseTest, RegressionNeedsEnoughHistory) {
  RegressionVerdict v = JudgeAgainstHistory(10, {100, 100}, Better::kHigher);
  EXPECT_FALSE(v.judged);
  EXPECT_FALSE(v.regression);
  EXPECT_FALSE(JudgeAgainstHistory(10, {0, 0, 0}, Better::kHigher).judged);  // no scale to judge by
}

TEST(NoiseTest, WelchSeparatesRealChangeFromSpread) {
  Observed a{100, Stats({99, 100, 101, 100, 100})};
  Observed b{90, Stats({89, 90, 91, 90, 90})};
  CompareVerdict v = CompareObserved(a, b, Better::kHigher);
  EXPECT_EQ(v.judgement, Judgement::kWorse);
  ASSERT_TRUE(v.change_pct.has_value());
  EXPECT_NEAR(*v.change_pct, -10, 1e-9);
  EXPECT_NE(v.rule.find("welch"), std::string::npos);
  EXPECT_EQ(CompareObserved(a, b, Better::kLower).judgement, Judgement::kBetter);
  // The same 10% change with samples spread over +-30: within noise.
  Observed wa{100, Stats({70, 130, 100, 80, 120})};
  Observed wb{90, Stats({60, 120, 90, 70, 110})};
  EXPECT_EQ(CompareObserved(wa, wb, Better::kHigher).judgement, Judgement::kWithinNoise);
}

TEST(NoiseTest, FewSamplesFallBackToTheThreshold) {
  Observed a{100, {}};
  CompareVerdict small = CompareObserved(a, {103, {}}, Better::kHigher);
  EXPECT_EQ(small.judgement, Judgement::kWithinNoise);
  EXPECT_NE(small.rule.find("threshold"), std::string::npos);
  EXPECT_EQ(CompareObserved(a, {110, {}}, Better::kHigher).judgement, Judgement::kBetter);
  EXPECT_EQ(CompareObserved(a, {90, Stats({90, 90})}, Better::kHigher).judgement,
            Judgement::kWorse);
  EXPECT_FALSE(CompareObserved({0, {}}, {1, {}}, Better::kHigher).change_pct.has_value());
}

TEST(NoiseTest, TQuantiles) {
  EXPECT_DOUBLE_EQ(TCritical95(1), 12.706);
  EXPECT_DOUBLE_EQ(TCritical95(4.9), 2.776);  // rounded down: conservative
  EXPECT_DOUBLE_EQ(TCritical95(0.2), 12.706);
  EXPECT_DOUBLE_EQ(TCritical95(1e6), 1.960);
}

}  // namespace
}  // namespace ys::history
