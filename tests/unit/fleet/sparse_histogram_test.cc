#include "fleet/sparse_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace ys::fleet {
namespace {

constexpr double kWidth = 5e-4;

double ExactQuantile(std::vector<double> v, size_t rank) {
  std::sort(v.begin(), v.end());
  return v[rank];
}

double ExactMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

TEST(SparseHistogramTest, QuantilesStayWithinOneBinOfTheExactValue) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<double> values;
  SparseHistogram h = SparseHistogram::Logarithmic(kWidth);
  for (int i = 0; i < 20001; ++i) {
    double x = 740 * (1 + noise(rng));
    if (i % 997 == 0) x *= 0.7;  // a few far outliers
    values.push_back(x);
    h.Add(x);
  }
  ASSERT_EQ(h.count(), values.size());
  double worst = 0;
  for (size_t rank :
       {size_t{0}, size_t{1}, size_t{500}, size_t{10000}, size_t{19999}, size_t{20000}}) {
    double exact = ExactQuantile(values, rank);
    double got = h.Quantile(rank);
    EXPECT_LE(std::fabs(got - exact), kWidth * std::fabs(exact)) << "rank " << rank;
    worst = std::max(worst, std::fabs(got - exact) / exact);
  }
  EXPECT_LE(std::fabs(h.Median() - ExactMedian(values)), kWidth * ExactMedian(values));
  // The extremes are kept exactly.
  EXPECT_EQ(h.Quantile(0), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(h.Quantile(20000), *std::max_element(values.begin(), values.end()));
}

TEST(SparseHistogramTest, EvenCountMedianAveragesTheMiddleTwo) {
  SparseHistogram h = SparseHistogram::Logarithmic(kWidth);
  for (double x : {10.0, 20.0, 30.0, 40.0}) h.Add(x);
  EXPECT_DOUBLE_EQ(h.Median(), 25.0);  // each value alone in its bin: exact
}

TEST(SparseHistogramTest, OneValueAndEqualValuesAreExact) {
  SparseHistogram one = SparseHistogram::Logarithmic(kWidth);
  one.Add(3.14159);
  EXPECT_EQ(one.Median(), 3.14159);
  SparseHistogram same = SparseHistogram::Logarithmic(kWidth);
  for (int i = 0; i < 1000; ++i) same.Add(392.0);
  EXPECT_EQ(same.Median(), 392.0);
  EXPECT_EQ(same.bins(), 1u);
  SparseHistogram empty = SparseHistogram::Logarithmic(kWidth);
  EXPECT_EQ(empty.Median(), 0);
}

TEST(SparseHistogramTest, NegativeZeroAndPositiveValuesSortLikeNumbers) {
  SparseHistogram h = SparseHistogram::Logarithmic(kWidth);
  std::vector<double> values = {-1000, -1, -0.001, 0, 0, 0.001, 1, 1000, 1e300, -1e300, 5e-320};
  for (double x : values) h.Add(x);
  std::sort(values.begin(), values.end());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(h.Quantile(i), values[i]) << i;
}

// Bins far narrower than the values: log(x) / width and x / width overflow to +-inf (or 0 / 0 is
// NaN), and the codes are clamped rather than converted out of range (undefined behaviour, caught
// by UBSan; on x86 they all used to get one code, which sorted -3 above 2).
TEST(SparseHistogramTest, QuotientsPastTheCodeRangeStillSortLikeNumbers) {
  constexpr double kTiny = std::numeric_limits<double>::denorm_min();
  for (SparseHistogram h : {SparseHistogram::Logarithmic(kTiny), SparseHistogram::Linear(kTiny)}) {
    std::vector<double> values = {2, -3, 0, -5, 7, kTiny};  // at most two a bin: exact
    for (double x : values) h.Add(x);
    std::sort(values.begin(), values.end());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(h.Quantile(i), values[i]) << i;
  }
  // The median of deviations whose bins would be 0 wide (fleet.cc: w |median| underflows).
  EXPECT_EQ(SparseHistogram::Linear(kTiny * 0.25).MedianOfAscending({0, 0, 0}), 0);
}

TEST(SparseHistogramTest, MemoryFollowsTheSpreadNotTheCount) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> within(1000, 1010);  // 1% spread
  SparseHistogram h = SparseHistogram::Logarithmic(kWidth);
  for (int i = 0; i < 1000000; ++i) h.Add(within(rng));
  // log(1.01) / log(1.0005) = 19.9 bins, plus the partial ones at the edges.
  EXPECT_LE(h.bins(), 22u);
  EXPECT_EQ(h.count(), 1000000u);
  EXPECT_NEAR(h.Median(), 1005, 1005 * kWidth);
}

TEST(SparseHistogramTest, LinearBinsBoundTheErrorByTheirWidth) {
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> dev(100);
  std::vector<double> values;
  SparseHistogram h = SparseHistogram::Linear(0.001);
  for (int i = 0; i < 5000; ++i) {
    values.push_back(dev(rng));
    h.Add(values.back());
  }
  EXPECT_LE(std::fabs(h.Median() - ExactMedian(values)), 0.001);
}

TEST(SparseHistogramTest, ApproximateValuesMatchTheAddedOnesRankForRank) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(50, 1);
  std::vector<double> values;
  SparseHistogram h = SparseHistogram::Logarithmic(kWidth);
  for (int i = 0; i < 3000; ++i) {
    values.push_back(noise(rng));
    h.Add(values.back());
  }
  std::sort(values.begin(), values.end());
  size_t i = 0;
  double prev = -1e300;
  h.ForEachApproximateValue([&](double v) {
    EXPECT_GE(v, prev);
    EXPECT_LE(std::fabs(v - values[i]), kWidth * std::fabs(values[i])) << i;
    prev = v;
    ++i;
  });
  EXPECT_EQ(i, values.size());
}

// The bin table grows past its first slots (thousands of bins) and merges without losing a count,
// a minimum or a maximum: every value alone in its bin comes back exactly, in order.
TEST(SparseHistogramTest, ManyBinsGrowAndMergeExactly) {
  SparseHistogram a = SparseHistogram::Linear(1), b = SparseHistogram::Linear(1);
  std::vector<double> values;
  for (int i = 0; i < 5000; ++i) {
    double x = (i * 7919) % 10007 - 5003.5;  // distinct, unsorted, both signs, one per bin
    values.push_back(x);
    (i % 3 ? a : b).Add(x);
  }
  a.Merge(b);
  ASSERT_EQ(a.count(), values.size());
  EXPECT_EQ(a.bins(), values.size());
  std::sort(values.begin(), values.end());
  for (size_t i = 0; i < values.size(); i += 97) EXPECT_EQ(a.Quantile(i), values[i]) << i;
  EXPECT_EQ(a.Quantile(values.size() - 1), values.back());
}

// MedianOfAscending gives what filling the histogram would: the same bins, the same
// interpolation, to the last bit (the fleet's MAD relies on it).
TEST(SparseHistogramTest, MedianOfAscendingIsTheFilledHistogramsMedian) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 1);
  for (int n : {1, 2, 3, 10, 101, 1000, 4096}) {
    for (SparseHistogram h : {SparseHistogram::Linear(0.01), SparseHistogram::Logarithmic(kWidth),
                              SparseHistogram::Linear(0.37)}) {
      std::vector<double> values;
      for (int i = 0; i < n; ++i) {
        double x = std::fabs(noise(rng));
        if (i % 5 == 0) x = std::round(x * 10) / 10;  // ties: runs of equal values
        values.push_back(x);
      }
      SparseHistogram filled = h;
      for (double x : values) filled.Add(x);
      std::sort(values.begin(), values.end());
      EXPECT_EQ(h.MedianOfAscending(values), filled.Median()) << n;
    }
  }
  EXPECT_EQ(SparseHistogram::Linear(1).MedianOfAscending({}), 0);
}

}  // namespace
}  // namespace ys::fleet
