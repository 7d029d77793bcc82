// The two noise-aware judgements of the run history, as pure functions of numbers.
//
// Compare (two runs): when both measurements have at least kMinSamplesForTest samples, Welch's
// t-test on their means (two-sided, 95%: the change is real when |t| exceeds the t quantile at
// the Welch-Satterthwaite degrees of freedom); otherwise a relative threshold: a change of more
// than kCompareThresholdPct percent. The direction honours `better`.
//
// Regression (a run against its history): the history's median m and median absolute deviation
// MAD; the noise is max(3 x 1.4826 x MAD, kRegressionMinPct % of |m|) (1.4826 x MAD estimates a
// normal standard deviation without letting one bad run widen it); a value worse than m by more
// than the noise is a regression. Needs kMinHistory earlier values: fewer cannot tell noise from
// change.
#ifndef YARDSTICK_HISTORY_NOISE_H_
#define YARDSTICK_HISTORY_NOISE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/run_document.h"

namespace ys::history {

inline constexpr int kMinSamplesForTest = 3;
inline constexpr double kCompareThresholdPct = 5.0;
inline constexpr int kMinHistory = 3;
inline constexpr double kRegressionMinPct = 5.0;
inline constexpr int kDefaultHistoryRuns = 5;

enum class Judgement { kBetter, kWorse, kWithinNoise };
const char* JudgementName(Judgement j);  // "better", "worse", "within noise"

// One side of a comparison: the value and its spread (stats.n samples; stats.n < 2: no spread).
struct Observed {
  double value = 0;
  SampleStats stats;
};

struct CompareVerdict {
  Judgement judgement = Judgement::kWithinNoise;
  std::optional<double> change_pct;  // (b - a) / |a|; unset when a is 0
  std::string rule;                  // "welch t=4.21 df=7.3 crit=2.36" or "threshold 5%"
};

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (rounded down: the
// conservative side). df < 1 counts as 1.
double TCritical95(double df);

CompareVerdict CompareObserved(const Observed& a, const Observed& b, Better better);

struct RegressionVerdict {
  bool regression = false;
  bool judged = false;  // false: fewer than kMinHistory values, or a zero median
  double median = 0, mad = 0, noise = 0;
  double change_pct = 0;  // (value - median) / |median|
  int history = 0;        // how many earlier values
};

RegressionVerdict JudgeAgainstHistory(double value, const std::vector<double>& history,
                                      Better better, double min_pct = kRegressionMinPct);

// The rules in words, for headers and output.
std::string CompareRuleText();
std::string RegressionRuleText(int runs);

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_NOISE_H_
