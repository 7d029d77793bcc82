#include "history/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace ys::history {

const char* JudgementName(Judgement j) {
  switch (j) {
    case Judgement::kBetter:
      return "better";
    case Judgement::kWorse:
      return "worse";
    case Judgement::kWithinNoise:
      return "within noise";
  }
  return "within noise";
}

double TCritical95(double df) {
  // Two-sided 95% quantiles of Student's t for df = 1..30 (any statistics table).
  static constexpr std::array<double, 30> kSmall = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (!(df >= 1)) return kSmall[0];
  if (df < 31) return kSmall[static_cast<size_t>(std::floor(df)) - 1];
  if (df < 40) return 2.042;
  if (df < 60) return 2.021;
  if (df < 120) return 2.000;
  if (df < 1000) return 1.980;
  return 1.960;
}

CompareVerdict CompareObserved(const Observed& a, const Observed& b, Better better) {
  CompareVerdict v;
  if (a.value != 0) v.change_pct = (b.value - a.value) / std::fabs(a.value) * 100;
  bool changed = false;
  double diff = b.value - a.value;
  if (a.stats.n >= kMinSamplesForTest && b.stats.n >= kMinSamplesForTest) {
    // Welch on the means of the samples; the direction is that of the reported values.
    double va = a.stats.stdev * a.stats.stdev / static_cast<double>(a.stats.n);
    double vb = b.stats.stdev * b.stats.stdev / static_cast<double>(b.stats.n);
    double mean_diff = b.stats.mean - a.stats.mean;
    if (va + vb == 0) {
      changed = mean_diff != 0;
      v.rule = "welch: no spread in either sample";
    } else {
      double t = mean_diff / std::sqrt(va + vb);
      double df = (va + vb) * (va + vb) /
                  (va * va / static_cast<double>(a.stats.n - 1) +
                   vb * vb / static_cast<double>(b.stats.n - 1));
      double crit = TCritical95(df);
      changed = std::fabs(t) > crit;
      v.rule = fmt::format("welch t={:.2f} df={:.1f} crit={:.2f}", t, df, crit);
    }
    if (changed && diff == 0) diff = mean_diff;
  } else {
    changed = v.change_pct && std::fabs(*v.change_pct) > kCompareThresholdPct;
    v.rule = fmt::format("threshold {:g}% (fewer than {} samples)", kCompareThresholdPct,
                         kMinSamplesForTest);
  }
  if (changed && diff != 0) {
    bool up = diff > 0;
    v.judgement = (up == (better == Better::kHigher)) ? Judgement::kBetter : Judgement::kWorse;
  }
  return v;
}

RegressionVerdict JudgeAgainstHistory(double value, const std::vector<double>& history,
                                      Better better, double min_pct) {
  RegressionVerdict v;
  v.history = static_cast<int>(history.size());
  if (v.history < kMinHistory) return v;
  v.median = MedianOf(history);
  if (v.median == 0) return v;
  std::vector<double> dev;
  dev.reserve(history.size());
  for (double h : history) dev.push_back(std::fabs(h - v.median));
  v.mad = MedianOf(dev);
  v.noise = std::max(3 * 1.4826 * v.mad, min_pct / 100 * std::fabs(v.median));
  v.change_pct = (value - v.median) / std::fabs(v.median) * 100;
  v.judged = true;
  v.regression =
      better == Better::kHigher ? value < v.median - v.noise : value > v.median + v.noise;
  return v;
}

std::string CompareRuleText() {
  return fmt::format(
      "judgement: with >= {} samples on both sides, Welch's t-test on the sample means (two-sided, "
      "95%); "
      "otherwise a change of more than {:g}%; direction from each measurement's 'better'",
      kMinSamplesForTest, kCompareThresholdPct);
}

std::string RegressionRuleText(int runs) {
  return fmt::format(
      "regression: worse than the median of the last {} runs of the same hosts by more than "
      "max(3 x 1.4826 x MAD, {:g}% of the median); needs >= {} earlier runs",
      runs, kRegressionMinPct, kMinHistory);
}

}  // namespace ys::history
