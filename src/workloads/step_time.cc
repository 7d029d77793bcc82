#include "workloads/step_time.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "core/run_document.h"

namespace ys::workloads {
namespace {

constexpr double kMadToSigma = 1.4826;  // MAD of a normal law × this = its standard deviation

double Mad(const std::vector<double>& v, double median) {
  std::vector<double> dev(v.size());
  for (size_t i = 0; i < v.size(); ++i) dev[i] = std::fabs(v[i] - median);
  return MedianOf(std::move(dev));
}

// Linear interpolation between order statistics of a sorted series (p in [0, 1]).
double Percentile(const std::vector<double>& sorted, double p) {
  double pos = p * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Bimodality AnalyzeModes(const std::vector<double>& sorted, double mean, const StepTimeOptions& o) {
  Bimodality b;
  double n = static_cast<double>(sorted.size());
  double m2 = 0, m3 = 0, m4 = 0;
  for (double x : sorted) {
    double d = x - mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  if (m2 > 0) {
    double g1 = m3 / std::pow(m2, 1.5);
    double g2 = m4 / (m2 * m2) - 3;
    double skew = std::sqrt(n * (n - 1)) / (n - 2) * g1;
    double kurt = ((n + 1) * g2 + 6) * (n - 1) / ((n - 2) * (n - 3));
    b.coefficient = (skew * skew + 1) / (kurt + 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3)));
  }
  // Best split of the sorted series into a low and a high cluster (least within-cluster squares).
  std::vector<double> sum(sorted.size() + 1, 0), sq(sorted.size() + 1, 0);
  for (size_t i = 0; i < sorted.size(); ++i) {
    sum[i + 1] = sum[i] + sorted[i];
    sq[i + 1] = sq[i] + sorted[i] * sorted[i];
  }
  double best = std::numeric_limits<double>::infinity();
  size_t split = 1;
  for (size_t i = 1; i < sorted.size(); ++i) {
    double nl = static_cast<double>(i), nh = n - nl;
    double sl = sum[i], sh = sum.back() - sum[i];
    double sse = (sq[i] - sl * sl / nl) + (sq.back() - sq[i] - sh * sh / nh);
    if (sse < best) {
      best = sse;
      split = i;
    }
  }
  double nl = static_cast<double>(split), nh = n - nl;
  b.low_mean_s = sum[split] / nl;
  b.high_mean_s = (sum.back() - sum[split]) / nh;
  b.high_fraction = nh / n;
  double pooled = std::sqrt(std::max(best, 0.0) / (n - 2));
  double gap = b.high_mean_s - b.low_mean_s;
  b.separation =
      pooled > 0 ? gap / pooled : (gap > 0 ? std::numeric_limits<double>::infinity() : 0);
  b.bimodal = b.coefficient > 5.0 / 9.0 && std::min(nl, nh) / n >= o.min_mode_fraction &&
              b.separation >= o.min_mode_separation;
  return b;
}

PeriodicStalls AnalyzeStalls(const std::vector<double>& series, double median, double mad,
                             const StepTimeOptions& o) {
  PeriodicStalls s;
  s.threshold_s =
      median + std::max(o.spike_robust_z * kMadToSigma * mad, o.spike_min_excess_fraction * median);
  std::vector<double> excess;
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i] > s.threshold_s) {
      s.spike_steps.push_back(static_cast<int>(i));
      excess.push_back(series[i] - median);
    }
  }
  s.spikes = static_cast<int>(s.spike_steps.size());
  s.typical_excess_s = MedianOf(excess);
  if (s.spikes < o.min_periodic_spikes) return s;
  std::vector<double> gaps;
  for (size_t i = 1; i < s.spike_steps.size(); ++i)
    gaps.push_back(s.spike_steps[i] - s.spike_steps[i - 1]);
  double period = MedianOf(gaps);
  double tolerance =
      std::max(0.5, o.period_tolerance * period);  // short periods must match exactly
  size_t regular = std::count_if(gaps.begin(), gaps.end(),
                                 [&](double g) { return std::fabs(g - period) <= tolerance; });
  // A period of one step is a slow run, not a recurring stall.
  if (period >= 2 && static_cast<double>(regular) >=
                         o.period_regular_fraction * static_cast<double>(gaps.size())) {
    s.period_steps = period;
    s.periodic = true;
  }
  return s;
}

Drift AnalyzeDrift(const std::vector<double>& series, double median, const StepTimeOptions& o) {
  Drift d;
  // Theil–Sen over at most ~800 evenly spaced points (pairs grow with the square).
  size_t stride = std::max<size_t>(1, series.size() / 800);
  std::vector<size_t> idx;
  for (size_t i = 0; i < series.size(); i += stride) idx.push_back(i);
  std::vector<double> slopes;
  slopes.reserve(idx.size() * (idx.size() - 1) / 2);
  for (size_t a = 0; a < idx.size(); ++a) {
    for (size_t b = a + 1; b < idx.size(); ++b) {
      slopes.push_back((series[idx[b]] - series[idx[a]]) / static_cast<double>(idx[b] - idx[a]));
    }
  }
  double slope = MedianOf(std::move(slopes));
  double n = static_cast<double>(series.size());
  d.percent_per_100_steps = slope * 100 / median * 100;
  d.total_percent = slope * (n - 1) / median * 100;
  // Noise of the detrended series bounds what a slope fitted to pure noise could show.
  std::vector<double> residual(series.size());
  for (size_t i = 0; i < series.size(); ++i)
    residual[i] = series[i] - slope * static_cast<double>(i);
  double sigma = kMadToSigma * Mad(residual, MedianOf(residual));
  d.noise_floor_percent = 3 * sigma / median * std::sqrt(12 / n) * 100;
  d.drifting =
      std::fabs(d.total_percent) >= std::max(o.drift_min_total_percent, d.noise_floor_percent);
  return d;
}

void AnalyzeRanks(const std::map<int, std::vector<double>>& by_rank, const StepTimeOptions& o,
                  StepTimeAnalysis& out) {
  std::vector<double> medians;
  for (const auto& [rank, series] : by_rank) {
    RankStepStats r;
    r.rank = rank;
    r.steps = static_cast<int>(series.size());
    r.median_s = MedianOf(series);
    medians.push_back(r.median_s);
    out.ranks.push_back(r);
  }
  double job = MedianOf(medians);
  double scale =
      std::max(kMadToSigma * Mad(medians, job), o.slow_rank_min_excess_fraction * job / 3);
  for (RankStepStats& r : out.ranks) {
    r.excess_fraction = (r.median_s - job) / job;
    r.robust_z = scale > 0 ? (r.median_s - job) / scale : 0;
    r.slow = r.robust_z >= o.slow_rank_z && r.excess_fraction >= o.slow_rank_min_excess_fraction;
    if (r.slow) out.slow_ranks.push_back(r.rank);
  }
}

}  // namespace

Result<StepTimeAnalysis> AnalyzeStepTimes(const std::vector<StepSample>& samples,
                                          const StepTimeOptions& options) {
  size_t ranked = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    double s = samples[i].seconds;
    if (!std::isfinite(s) || s <= 0) {
      return Status::Invalid("step time " + std::to_string(i) + ": " + std::to_string(s) +
                             " (expected a finite number of seconds above 0)");
    }
    ranked += samples[i].rank.has_value();
  }
  if (ranked != 0 && ranked != samples.size()) {
    return Status::Invalid("step times: " + std::to_string(ranked) + " of " +
                           std::to_string(samples.size()) +
                           " samples carry a rank (expected all or none)");
  }
  StepTimeAnalysis out;
  std::vector<double> series;
  std::map<int, std::vector<double>> by_rank;
  if (ranked == 0) {
    for (const StepSample& s : samples) series.push_back(s.seconds);
  } else {
    for (const StepSample& s : samples) by_rank[*s.rank].push_back(s.seconds);
    // The job waits for its slowest rank at every step.
    for (const auto& [rank, steps] : by_rank) {
      if (series.size() < steps.size()) series.resize(steps.size(), 0);
      for (size_t k = 0; k < steps.size(); ++k) series[k] = std::max(series[k], steps[k]);
    }
  }
  if (series.size() < 4) {
    return Status::Invalid("step times: " + std::to_string(series.size()) +
                           " steps (expected at least 4)");
  }

  std::vector<double> sorted = series;
  std::sort(sorted.begin(), sorted.end());
  double n = static_cast<double>(series.size());
  out.steps = static_cast<int>(series.size());
  out.median_s = Percentile(sorted, 0.5);
  out.p99_s = Percentile(sorted, 0.99);
  out.mean_s = std::accumulate(series.begin(), series.end(), 0.0) / n;
  double ss = 0;
  for (double x : series) ss += (x - out.mean_s) * (x - out.mean_s);
  out.stdev_s = std::sqrt(ss / (n - 1));
  out.cv = out.stdev_s / out.mean_s;

  double mad = Mad(series, out.median_s);
  out.bimodality = AnalyzeModes(sorted, out.mean_s, options);
  out.stalls = AnalyzeStalls(series, out.median_s, mad, options);
  out.drift = AnalyzeDrift(series, out.median_s, options);
  if (!by_rank.empty()) AnalyzeRanks(by_rank, options, out);
  return out;
}

Result<StepTimeAnalysis> AnalyzeStepTimes(const std::vector<double>& seconds,
                                          const StepTimeOptions& options) {
  std::vector<StepSample> samples;
  samples.reserve(seconds.size());
  for (double s : seconds) samples.push_back({s, std::nullopt});
  return AnalyzeStepTimes(samples, options);
}

}  // namespace ys::workloads
