#include "diagnose/sparse_histogram.h"

#include <algorithm>
#include <cmath>

namespace ys::diagnose {
namespace {

// Logarithmic bin indices of finite doubles lie within +-1.5e6 / relative_width; the offset keeps
// the code of every positive value above 0 and of every negative value below it, so codes sort
// like the values.
constexpr int64_t kLogOffset = int64_t{1} << 52;
constexpr double kLinearLimit = 4.0e18;  // keeps floor(x / width) inside int64_t

}  // namespace

SparseHistogram SparseHistogram::Logarithmic(double relative_width) {
  SparseHistogram h;
  h.log_step_ = std::log1p(relative_width);
  return h;
}

SparseHistogram SparseHistogram::Linear(double width) {
  SparseHistogram h;
  h.width_ = width;
  return h;
}

int64_t SparseHistogram::CodeOf(double x) const {
  if (log_step_ == 0) {
    double i = std::floor(x / width_);
    return static_cast<int64_t>(std::clamp(i, -kLinearLimit, kLinearLimit));
  }
  if (x == 0) return 0;
  auto index = static_cast<int64_t>(std::floor(std::log(std::fabs(x)) / log_step_));
  // Larger magnitudes of negative values sort lower.
  return x > 0 ? kLogOffset + index : -(kLogOffset + index);
}

void SparseHistogram::Add(double x) {
  Bin& bin = bins_[CodeOf(x)];
  if (bin.count == 0) {
    bin.min = bin.max = x;
  } else {
    bin.min = std::min(bin.min, x);
    bin.max = std::max(bin.max, x);
  }
  ++bin.count;
  ++count_;
  sorted_valid_ = false;
}

const std::vector<std::pair<int64_t, SparseHistogram::Bin>>& SparseHistogram::Sorted() const {
  if (!sorted_valid_) {
    sorted_.assign(bins_.begin(), bins_.end());
    std::sort(sorted_.begin(), sorted_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    sorted_valid_ = true;
  }
  return sorted_;
}

void SparseHistogram::Merge(const SparseHistogram& other) {
  for (const auto& [code, b] : other.bins_) {
    Bin& bin = bins_[code];
    if (bin.count == 0) {
      bin = b;
    } else {
      bin.min = std::min(bin.min, b.min);
      bin.max = std::max(bin.max, b.max);
      bin.count += b.count;
    }
  }
  count_ += other.count_;
  sorted_valid_ = false;
}

double SparseHistogram::Interpolate(const Bin& bin, uint64_t j) {
  if (bin.count <= 1) return bin.min;
  return bin.min +
         (bin.max - bin.min) * static_cast<double>(j) / static_cast<double>(bin.count - 1);
}

double SparseHistogram::Quantile(uint64_t rank) const {
  uint64_t before = 0;
  for (const auto& [code, bin] : Sorted()) {
    if (rank < before + bin.count) return Interpolate(bin, rank - before);
    before += bin.count;
  }
  return bins_.empty() ? 0 : Sorted().back().second.max;
}

double SparseHistogram::Median() const {
  if (count_ == 0) return 0;
  if (count_ % 2 == 1) return Quantile(count_ / 2);
  return (Quantile(count_ / 2 - 1) + Quantile(count_ / 2)) / 2;
}

}  // namespace ys::diagnose
