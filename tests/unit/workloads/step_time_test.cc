// Step-time analysis on synthetic series: each property (bimodality, periodic stalls, drift, slow
// ranks) fires where it is planted and stays silent where it is not.
#include "workloads/step_time.h"

#include <gtest/gtest.h>

#include <random>

namespace ys::workloads {
namespace {

constexpr int kSteps = 200;

// 1 s steps with Gaussian noise of `noise` (fraction), fixed seed.
std::vector<double> Series(double noise, unsigned seed = 7, int n = kSteps) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0, noise);
  std::vector<double> v(n);
  for (double& x : v) x = 1.0 + d(rng);
  return v;
}

struct Planted {
  bool bimodal = false;
  bool periodic = false;
  bool drifting = false;
};

void ExpectOnly(const StepTimeAnalysis& a, Planted p) {
  EXPECT_EQ(a.bimodality.bimodal, p.bimodal)
      << "Sarle b " << a.bimodality.coefficient << ", separation " << a.bimodality.separation
      << ", high fraction " << a.bimodality.high_fraction;
  EXPECT_EQ(a.stalls.periodic, p.periodic) << a.stalls.spikes << " spikes";
  EXPECT_EQ(a.drift.drifting, p.drifting)
      << "total " << a.drift.total_percent << "%, floor " << a.drift.noise_floor_percent << "%";
  EXPECT_TRUE(a.slow_ranks.empty());
}

TEST(StepTimeTest, CleanSeriesRaisesNothing) {
  auto a = AnalyzeStepTimes(Series(0.002));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->median_s, 1.0, 0.001);
  EXPECT_LT(a->cv, 0.005);
  EXPECT_GE(a->p99_s, a->median_s);
  EXPECT_EQ(a->stalls.spikes, 0);
  ExpectOnly(*a, {});
}

TEST(StepTimeTest, NoisySeriesHasAHighCvButNoFinding) {
  auto a = AnalyzeStepTimes(Series(0.03));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->cv, 0.03, 0.006);
  EXPECT_GT(a->p99_s, a->median_s * 1.05);
  ExpectOnly(*a, {});
}

TEST(StepTimeTest, PeriodicEightyMillisecondStallEveryTenSteps) {
  std::vector<double> v = Series(0.005);
  for (int i = 3; i < kSteps; i += 10) v[i] += 0.080;
  auto a = AnalyzeStepTimes(v);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->stalls.spikes, kSteps / 10);
  EXPECT_NEAR(a->stalls.typical_excess_s, 0.080, 0.005);
  ASSERT_TRUE(a->stalls.period_steps);
  EXPECT_DOUBLE_EQ(*a->stalls.period_steps, 10);
  EXPECT_EQ(a->stalls.spike_steps.front(), 3);
  EXPECT_NEAR(a->median_s, 1.0, 0.002);  // the median ignores the stalls
  ExpectOnly(*a, {.periodic = true});
}

TEST(StepTimeTest, IrregularSpikesAreCountedButNotPeriodic) {
  std::vector<double> v = Series(0.005);
  for (int i : {5, 9, 40, 41, 120, 190}) v[i] += 0.080;
  auto a = AnalyzeStepTimes(v);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->stalls.spikes, 6);
  EXPECT_FALSE(a->stalls.period_steps);
  ExpectOnly(*a, {});
}

TEST(StepTimeTest, BimodalSeries) {
  std::vector<double> v = Series(0.01);
  std::mt19937 rng(11);
  std::bernoulli_distribution slow(0.4);
  for (double& x : v) {
    if (slow(rng)) x += 0.3;
  }
  auto a = AnalyzeStepTimes(v);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->bimodality.low_mean_s, 1.0, 0.01);
  EXPECT_NEAR(a->bimodality.high_mean_s, 1.3, 0.01);
  EXPECT_NEAR(a->bimodality.high_fraction, 0.4, 0.08);
  ExpectOnly(*a, {.bimodal = true});
}

TEST(StepTimeTest, FivePercentDriftOverTheRun) {
  std::vector<double> v = Series(0.005);
  for (int i = 0; i < kSteps; ++i) v[i] *= 1.0 + 0.05 * i / (kSteps - 1);
  auto a = AnalyzeStepTimes(v);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->drift.total_percent, 5.0, 0.6);
  EXPECT_NEAR(a->drift.percent_per_100_steps, 2.5, 0.3);
  ExpectOnly(*a, {.drifting = true});
}

TEST(StepTimeTest, OneSlowRankIsNamed) {
  std::vector<StepSample> samples;
  for (int rank = 0; rank < 8; ++rank) {
    std::vector<double> v = Series(0.01, 100 + rank, 100);
    for (double s : v) samples.push_back({rank == 5 ? s * 1.10 : s, rank});
  }
  auto a = AnalyzeStepTimes(samples);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->ranks.size(), 8u);
  EXPECT_EQ(a->slow_ranks, std::vector<int>{5});
  EXPECT_NEAR(a->ranks[5].excess_fraction, 0.10, 0.01);
  EXPECT_EQ(a->steps, 100);
  EXPECT_GT(a->median_s, 1.09);  // the job waits for its slowest rank
  EXPECT_FALSE(a->stalls.periodic);
  EXPECT_FALSE(a->drift.drifting);
  EXPECT_FALSE(a->bimodality.bimodal);
}

TEST(StepTimeTest, EvenRanksHaveNoSlowRank) {
  std::vector<StepSample> samples;
  for (int rank = 0; rank < 8; ++rank) {
    for (double s : Series(0.01, 200 + rank, 100)) samples.push_back({s, rank});
  }
  auto a = AnalyzeStepTimes(samples);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->slow_ranks.empty());
  for (const RankStepStats& r : a->ranks) EXPECT_LT(r.robust_z, 3.5) << "rank " << r.rank;
}

TEST(StepTimeTest, BadInputIsInvalid) {
  EXPECT_EQ(AnalyzeStepTimes(std::vector<double>{1, 1, 1}).status().code(),
            StatusCode::kInvalidInput);
  auto neg = AnalyzeStepTimes(std::vector<double>{1, 1, -1, 1, 1});
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("step time 2"), std::string::npos);
  EXPECT_FALSE(AnalyzeStepTimes(std::vector<double>{1, 1, std::nan(""), 1}).ok());
  std::vector<StepSample> mixed = {{1, 0}, {1, 0}, {1, std::nullopt}, {1, 1}, {1, 1}};
  auto m = AnalyzeStepTimes(mixed);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("expected all or none"), std::string::npos);
  // A constant series is legal and raises nothing.
  auto flat = AnalyzeStepTimes(std::vector<double>(50, 0.5));
  ASSERT_TRUE(flat.ok());
  ExpectOnly(*flat, {});
}

}  // namespace
}  // namespace ys::workloads
