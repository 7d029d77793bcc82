#include "predict/scaling.h"

#include <gtest/gtest.h>

namespace ys::predict {
namespace {

TEST(ScalingTest, PerRankThroughputGivesEfficiencyAndSpeedup) {
  // 1000 tokens/s/GPU at 1 rank, 990 at 2, 900 at 4: efficiencies 99%, 90%; speed-ups 1.98, 3.6.
  auto r = AnalyseScaling({{4, 900}, {1, 1000}, {2, 990}}, ScalingKind::kPerRankThroughput, 0.95);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->base_ranks, 1);
  EXPECT_EQ(r->rows[1].ranks, 2);
  EXPECT_DOUBLE_EQ(r->rows[1].efficiency, 0.99);
  EXPECT_DOUBLE_EQ(*r->rows[1].speedup, 1.98);
  EXPECT_DOUBLE_EQ(r->rows[2].efficiency, 0.9);
  EXPECT_DOUBLE_EQ(*r->rows[2].speedup, 3.6);
  EXPECT_FALSE(r->rows[1].below_target);
  EXPECT_TRUE(r->rows[2].below_target);
  EXPECT_DOUBLE_EQ(r->worst_efficiency, 0.9);
  EXPECT_FALSE(r->linear);
}

TEST(ScalingTest, LinearWhenEveryCountKeepsTheTarget) {
  auto r = AnalyseScaling({{1, 100}, {2, 99.5}, {4, 101}}, ScalingKind::kPerRankThroughput, 0.99);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->linear);
  EXPECT_DOUBLE_EQ(r->worst_efficiency, 0.995);
}

TEST(ScalingTest, BusBandwidthDropsOneRankAndHasNoSpeedup) {
  // busbw 0 at 1 rank (no data moves) is not the base; 2 ranks are.
  auto r = AnalyseScaling({{1, 0}, {2, 20}, {4, 19}, {8, 15}}, ScalingKind::kBusBandwidth, 0.9);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->base_ranks, 2);
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_FALSE(r->rows[0].speedup.has_value());
  EXPECT_DOUBLE_EQ(r->rows[1].efficiency, 0.95);
  EXPECT_DOUBLE_EQ(r->rows[2].efficiency, 0.75);
  EXPECT_TRUE(r->rows[2].below_target);
}

TEST(ScalingTest, RejectsWhatCannotBeJudged) {
  EXPECT_FALSE(AnalyseScaling({{1, 100}}, ScalingKind::kPerRankThroughput, 0.99).ok());
  EXPECT_FALSE(AnalyseScaling({{1, 0}, {2, 10}}, ScalingKind::kBusBandwidth, 0.99).ok());
  EXPECT_FALSE(AnalyseScaling({{2, 10}, {2, 11}}, ScalingKind::kPerRankThroughput, 0.99).ok());
  EXPECT_FALSE(AnalyseScaling({{0, 10}, {2, 11}}, ScalingKind::kPerRankThroughput, 0.99).ok());
  EXPECT_FALSE(AnalyseScaling({{1, -1}, {2, 11}}, ScalingKind::kPerRankThroughput, 0.99).ok());
  EXPECT_FALSE(AnalyseScaling({{1, 0}, {2, 11}}, ScalingKind::kPerRankThroughput, 0.99).ok());
  EXPECT_FALSE(AnalyseScaling({{1, 1}, {2, 1}}, ScalingKind::kPerRankThroughput, 1.5).ok());
  auto r = AnalyseScaling({{1, 1}, {2, 1}, {2, 1}}, ScalingKind::kPerRankThroughput, 0.9);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2 ranks measured twice"), std::string::npos);
}

TEST(ScalingTest, PowersOfTwoEndAtTheMaximum) {
  EXPECT_EQ(PowersOfTwoUpTo(1), (std::vector<int>{1}));
  EXPECT_EQ(PowersOfTwoUpTo(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(PowersOfTwoUpTo(6), (std::vector<int>{1, 2, 4, 6}));
}

}  // namespace
}  // namespace ys::predict
