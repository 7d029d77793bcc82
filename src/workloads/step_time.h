// Step-time analysis: what a series of training step times says beyond its mean. Used on proxy
// runs and on ingested recipe logs alike; diagnosis rules read the findings.
//
// Input: step times in seconds, in step order, optionally tagged with the rank that measured them
// (all samples tagged or none). With ranks, the k-th sample of a rank is its step k, and the job's
// step k takes as long as its slowest rank (synchronous data parallelism): the job series is the
// per-step maximum over ranks.
//
// Output, and the rule behind each verdict (thresholds in StepTimeOptions):
// - median, p99 (linear interpolation between order statistics), mean, stdev, coefficient of
//   variation (stdev / mean).
// - bimodality: Sarle's coefficient b = (g² + 1) / (κ + 3(n−1)²/((n−2)(n−3))) (g sample skewness,
//   κ sample excess kurtosis; a uniform law gives 5/9) together with the best two-cluster split of
//   the sorted series (least within-cluster squares). Bimodal when b > 5/9, the smaller cluster
//   holds at least min_mode_fraction of the steps (a mode, not outliers) and the cluster means are
//   at least min_mode_separation pooled within-cluster standard deviations apart.
// - periodic stalls: a spike is a step above median + max(spike_robust_z × 1.4826 × MAD,
//   spike_min_excess_fraction × median). Reported: count, median excess (s), and the period in
//   steps when at least min_periodic_spikes spikes recur with the intervals between consecutive
//   spikes within ±period_tolerance of their median for at least period_regular_fraction of them.
//   The finding fires only for regular (periodic) spikes.
// - drift: Theil–Sen slope (median of pairwise slopes; robust to spikes) as % of the median per
//   100 steps, and the total change over the run. Fires when |total| ≥ max(drift_min_total_percent,
//   3 × the total change that noise alone would give: 1.4826·MAD/median × √(12/n) × 100).
//   Positive means slowing down (thermal throttling).
// - slow ranks: each rank's median against the median of rank medians; robust z = excess /
//   max(1.4826 × MAD of rank medians, slow_rank_min_excess_fraction × job median / 3). Slow when
//   z ≥ slow_rank_z and the excess is at least slow_rank_min_excess_fraction.
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_WORKLOADS_STEP_TIME_H_
#define YARDSTICK_WORKLOADS_STEP_TIME_H_

#include <optional>
#include <vector>

#include "core/status.h"

namespace ys::workloads {

struct StepSample {
  double seconds = 0;
  std::optional<int> rank;
};

struct StepTimeOptions {
  double min_mode_fraction = 0.2;
  double min_mode_separation = 4.0;
  double spike_robust_z = 5.0;
  double spike_min_excess_fraction = 0.01;
  int min_periodic_spikes = 3;
  double period_tolerance =
      0.15;  // of the period (at least half a step: short periods match exactly)
  double period_regular_fraction = 0.8;
  double drift_min_total_percent = 2.0;
  double slow_rank_z = 3.5;
  double slow_rank_min_excess_fraction = 0.02;
};

struct Bimodality {
  double coefficient = 0;  // Sarle's b
  double low_mean_s = 0;   // the two clusters of the best split
  double high_mean_s = 0;
  double high_fraction = 0;  // share of steps in the slower cluster
  double separation = 0;     // gap of the means in pooled within-cluster standard deviations
  bool bimodal = false;
};

struct PeriodicStalls {
  int spikes = 0;
  double threshold_s = 0;
  double typical_excess_s = 0;         // median excess of the spikes over the median step
  std::optional<double> period_steps;  // when the spikes recur regularly
  std::vector<int> spike_steps;        // indices into the (job) series
  bool periodic = false;
};

struct Drift {
  double percent_per_100_steps = 0;  // Theil–Sen slope ÷ median
  double total_percent = 0;          // over the whole run
  double noise_floor_percent = 0;    // what noise alone could give
  bool drifting = false;
};

struct RankStepStats {
  int rank = 0;
  int steps = 0;
  double median_s = 0;
  double excess_fraction = 0;  // (rank median − median of rank medians) ÷ the latter
  double robust_z = 0;
  bool slow = false;
};

struct StepTimeAnalysis {
  int steps = 0;  // length of the job series
  double median_s = 0;
  double p99_s = 0;
  double mean_s = 0;
  double stdev_s = 0;
  double cv = 0;
  Bimodality bimodality;
  PeriodicStalls stalls;
  Drift drift;
  std::vector<RankStepStats> ranks;  // empty without rank ids; sorted by rank
  std::vector<int> slow_ranks;
};

// Invalid for fewer than 4 steps, a non-finite or non-positive time, or ranks on some samples only.
Result<StepTimeAnalysis> AnalyzeStepTimes(const std::vector<StepSample>& samples,
                                          const StepTimeOptions& options = {});
Result<StepTimeAnalysis> AnalyzeStepTimes(const std::vector<double>& seconds,
                                          const StepTimeOptions& options = {});

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_STEP_TIME_H_
