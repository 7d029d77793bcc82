#include "fleet/fleet.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ys::fleet {
namespace {

constexpr double kMadToSigma = 1.4826;  // MAD of a normal distribution = 0.6745 sigma
constexpr double kSpreadBinWidth = 0.02;
constexpr uint64_t kBimodalMinFigures = 20;
constexpr double kBimodalSeparation = 4;  // Ashman's D; a unimodal normal split by Otsu gives 2.7

struct Mode {
  bool found = false;
  uint64_t split = 0;  // ranks below it are the lower mode
  double low_mean = 0, high_mean = 0;
};

// Otsu's split of a histogram into two modes, kept when both are real (see fleet.h).
Mode FindModes(const SparseHistogram& h, const FleetOptions& o) {
  Mode best;
  if (h.count() < kBimodalMinFigures || h.bins() < 2) return best;
  struct B {
    double n, sum, sq;
  };
  std::vector<B> bins;
  double total = 0, total_sum = 0, total_sq = 0;
  h.ForEachBin([&](uint64_t count, double lo, double hi) {
    double n = static_cast<double>(count), mid = (lo + hi) / 2;
    bins.push_back({n, n * mid, n * mid * mid});
    total += n;
    total_sum += n * mid;
    total_sq += n * mid * mid;
  });
  double c = 0, s = 0, q = 0, best_between = -1;
  double best_var0 = 0, best_var1 = 0;
  for (size_t i = 0; i + 1 < bins.size(); ++i) {
    c += bins[i].n;
    s += bins[i].sum;
    q += bins[i].sq;
    double w0 = c / total, w1 = 1 - w0;
    if (w0 < o.bimodal_min_share || w1 < o.bimodal_min_share) continue;
    double mu0 = s / c, mu1 = (total_sum - s) / (total - c);
    double between = w0 * w1 * (mu1 - mu0) * (mu1 - mu0);
    if (between <= best_between) continue;
    best_between = between;
    best.split = static_cast<uint64_t>(c);
    best.low_mean = mu0;
    best.high_mean = mu1;
    best_var0 = std::max(0.0, q / c - mu0 * mu0);
    best_var1 = std::max(0.0, (total_sq - q) / (total - c) - mu1 * mu1);
  }
  if (best_between < 0) return best;
  double gap = best.high_mean - best.low_mean;
  double sd = std::sqrt((best_var0 + best_var1) / 2);
  double reference = std::max(std::fabs(best.high_mean), std::fabs(best.low_mean));
  best.found = reference > 0 && gap / reference >= o.min_deficit &&
               (sd == 0 || gap / sd >= kBimodalSeparation);
  return best;
}

// Median and MAD of the values of ranks [first, last) of a histogram. The MAD is the median of a
// linear histogram (bins w |median| wide) of the deviations |v - median|; the histogram is not
// filled: the approximate values come out ascending, so their deviations are two ascending runs
// (below the median read backwards, then above it), merged into `deviations` (reused), whose
// median the histogram would give (MedianOfAscending).
std::pair<double, double> MedianAndMad(const SparseHistogram& h, uint64_t first, uint64_t last,
                                       double w, std::vector<double>& values,
                                       std::vector<double>& deviations) {
  uint64_t n = last - first;
  double median = n % 2 ? h.Quantile(first + n / 2)
                        : (h.Quantile(first + n / 2 - 1) + h.Quantile(first + n / 2)) / 2;
  // Logarithmic bins also where w |median| underflows to 0 (a median of 4.9e-324).
  SparseHistogram bins = w * std::fabs(median) > 0 ? SparseHistogram::Linear(w * std::fabs(median))
                                                   : SparseHistogram::Logarithmic(w);
  values.clear();
  values.reserve(n);
  uint64_t rank = 0;
  h.ForEachApproximateValue([&](double v) {
    if (rank >= first && rank < last) values.push_back(v);
    ++rank;
  });
  // v - median never decreases along ascending v, so |v - median| falls, then rises.
  auto split = std::lower_bound(values.begin(), values.end(), median) - values.begin();
  deviations.clear();
  deviations.reserve(n);
  std::ptrdiff_t below = split - 1, above = split, end = static_cast<std::ptrdiff_t>(n);
  constexpr double kDone = std::numeric_limits<double>::infinity();
  while (below >= 0 || above < end) {
    double b = below >= 0 ? std::fabs(values[below] - median) : kDone;
    double a = above < end ? std::fabs(values[above] - median) : kDone;
    if (b <= a) {
      deviations.push_back(b);
      --below;
    } else {
      deviations.push_back(a);
      ++above;
    }
  }
  return {median, bins.MedianOfAscending(deviations)};
}

}  // namespace

double MedianErrorBound(const FleetOptions& o, double median) {
  return o.bin_relative_width * std::fabs(median) * (1 + 2 * o.bin_relative_width);
}

double MadErrorBound(const FleetOptions& o, double median, double mad) {
  double w = o.bin_relative_width;
  return w * (3 * std::fabs(median) + mad) * (1 + 3 * w);
}

double MedianStdev(size_t k) {
  if (k <= 1) return 1;
  return std::sqrt(std::numbers::pi / (2.0 * static_cast<double>(k)));
}

FigureScore ScoreFigure(const KeyStats& stats, double value) {
  FigureScore s;
  if (!stats.judged || stats.scale <= 0) return s;
  s.judged = true;
  s.z = (value - stats.median) / stats.scale;
  double worse_by = stats.better == Better::kHigher ? stats.median - value : value - stats.median;
  s.badness = stats.better == Better::kHigher ? -s.z : s.z;
  s.deficit = worse_by / std::fabs(stats.median);
  return s;
}

bool IsOutlier(const FigureScore& s, const FleetOptions& o, double deficit) {
  return s.judged && s.badness >= o.z_threshold && s.deficit >= deficit;
}

std::string GpuModelOf(const RunDocument& doc) {
  std::map<std::string, int> seen;
  ForEachMeasurement(doc, [&](const Measurement& m, const std::string&) {
    if (auto it = m.params.find("gpu_name"); it != m.params.end() && !it->second.empty())
      ++seen[it->second];
  });
  std::string best;
  int count = 0;
  for (const auto& [model, n] : seen) {
    if (n > count) best = model, count = n;
  }
  return best;
}

std::string FleetKeyOf(const Measurement& m, const std::string& model) {
  std::string key = ComparisonKey(m);
  if (!model.empty() && m.params.find("gpu_name") == m.params.end()) key += " gpu_model=" + model;
  return key;
}

uint32_t FleetAccumulator::Intern(const Measurement& m, const std::string& key) {
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    Accumulated a{.proto = {},
                  .values = SparseHistogram::Logarithmic(options_.bin_relative_width),
                  .spread = SparseHistogram::Logarithmic(kSpreadBinWidth)};
    a.proto.key = key;
    a.proto.name = m.name;
    a.proto.unit = m.unit;
    a.proto.better = m.better;
    a.proto.kind = KindOf(m.name);
    a.proto.params = KeyParams(m);
    it = keys_.emplace(key, std::move(a)).first;
    it->second.id = static_cast<uint32_t>(names_.size());
    names_.push_back(&it->first);
    by_id_.push_back(&it->second);
  } else if (it->second.proto.better != m.better) {
    std::string line = key + ": both higher- and lower-is-better; judged as the first seen";
    if (std::find(conflicts_.begin(), conflicts_.end(), line) == conflicts_.end())
      conflicts_.push_back(line);
  }
  return it->second.id;
}

void FleetAccumulator::AddValue(uint32_t id, double value, const SampleStats& stats) {
  Accumulated& a = *by_id_[id];
  a.values.Add(value);
  if (stats.n >= 2 && stats.median != 0 && std::isfinite(stats.stdev)) {
    a.spread.Add(std::fabs(stats.stdev / stats.median));
  }
  ++figures_;
}

void FleetAccumulator::Merge(const FleetAccumulator& other) {
  for (const auto& [key, a] : other.keys_) {
    auto [it, fresh] = keys_.try_emplace(key, a);
    if (fresh) {
      it->second.id = static_cast<uint32_t>(names_.size());
      names_.push_back(&it->first);
      by_id_.push_back(&it->second);
      continue;
    }
    if (it->second.proto.better != a.proto.better) {
      std::string line = key + ": both higher- and lower-is-better; judged as the first seen";
      if (std::find(conflicts_.begin(), conflicts_.end(), line) == conflicts_.end())
        conflicts_.push_back(line);
    }
    it->second.values.Merge(a.values);
    it->second.spread.Merge(a.spread);
  }
  for (const std::string& c : other.conflicts_) {
    if (std::find(conflicts_.begin(), conflicts_.end(), c) == conflicts_.end())
      conflicts_.push_back(c);
  }
  figures_ += other.figures_;
}

std::map<std::string, KeyStats> FleetAccumulator::Finalize(uint64_t documents) const {
  std::map<std::string, KeyStats> out;
  std::vector<double> values, deviations;  // MedianAndMad's, reused from key to key
  for (const auto& [key, a] : keys_) {
    KeyStats s = a.proto;
    s.n = a.values.count();
    s.bins = a.values.bins();
    auto [median, mad] =
        MedianAndMad(a.values, 0, s.n, options_.bin_relative_width, values, deviations);
    if (Mode mode = FindModes(a.values, options_); mode.found) {
      bool higher = s.better == Better::kHigher;
      uint64_t first = higher ? mode.split : 0, last = higher ? s.n : mode.split;
      std::tie(median, mad) =
          MedianAndMad(a.values, first, last, options_.bin_relative_width, values, deviations);
      s.bimodal = true;
      s.slow_mode_share =
          static_cast<double>(higher ? mode.split : s.n - mode.split) / static_cast<double>(s.n);
      double good = higher ? mode.high_mean : mode.low_mean,
             bad = higher ? mode.low_mean : mode.high_mean;
      s.slow_mode_deficit = std::fabs(good - bad) / std::fabs(good);
    }
    s.median = median;
    s.mad = mad;
    s.scale = std::max(kMadToSigma * s.mad, options_.noise_floor * std::fabs(median));
    s.median_error_bound = MedianErrorBound(options_, median);
    s.mad_error_bound = MadErrorBound(options_, median, s.mad);
    s.spread_median = a.spread.Median();
    s.judged = static_cast<int64_t>(s.n) >= options_.min_peers && median != 0 && s.scale > 0 &&
               documents >= static_cast<uint64_t>(options_.min_fleet);
    out.emplace(key, std::move(s));
  }
  return out;
}

std::string FleetReport::Verdict() const {
  bool corrupt = false;
  for (const RankedFinding& f : ranked) {
    if (f.kind == "corrupt") {
      corrupt = true;
    } else if (!f.watch) {
      return "fail";  // a performance row to watch does not fail the fleet
    }
  }
  if (!skipped.empty() || corrupt) return "incomplete";
  if (too_small) return "inconclusive";
  // Rows to watch only: what stands out costs too little to act on (the summary by entity, which
  // pools a node's figures, is read only when nothing was ranked, as by FleetJudge without peers).
  if (!ranked.empty()) return "pass";
  return slow.empty() && flagged.empty() ? "pass" : "fail";
}

}  // namespace ys::fleet
