#include "fleet/sparse_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ys::fleet {
namespace {

// Logarithmic bin indices of finite doubles lie within +-1.5e6 / relative_width; the offset keeps
// the code of every positive value above 0 and of every negative value below it, so codes sort
// like the values.
constexpr int64_t kLogOffset = int64_t{1} << 52;
constexpr double kLogLimit = static_cast<double>(kLogOffset - 1);  // keeps the codes' signs
constexpr double kLinearLimit = 4.0e18;  // keeps floor(x / width) inside int64_t
constexpr size_t kFirstSlots = 16;

// The slot a code starts probing at, of 2^bits slots (Fibonacci hashing: neighbouring codes, the
// usual case, spread over the table).
size_t Home(int64_t code, size_t mask, int shift) {
  return static_cast<size_t>((static_cast<uint64_t>(code) * 0x9E3779B97F4A7C15ull) >> shift) & mask;
}

int ShiftFor(size_t slots) { return 64 - std::countr_zero(slots); }

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

// Every double gets a code, never an out-of-range conversion: a quotient that overflows (a
// value far above a tiny width, 4.9e-324 over a width that underflowed to 0) is clamped like any
// far value, and a NaN one (0 over a zero width) counts as 0.
int64_t SparseHistogram::CodeOf(double x) const {
  if (log_step_ == 0) {
    double i = std::floor(x / width_);
    if (std::isnan(i)) return 0;
    return static_cast<int64_t>(std::clamp(i, -kLinearLimit, kLinearLimit));
  }
  if (x == 0 || std::isnan(x)) return 0;
  double i = std::floor(std::log(std::fabs(x)) / log_step_);
  auto index = static_cast<int64_t>(std::clamp(i, -kLogLimit, kLogLimit));
  // Larger magnitudes of negative values sort lower.
  return x > 0 ? kLogOffset + index : -(kLogOffset + index);
}

void SparseHistogram::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kFirstSlots : 2 * old.size(), Slot{});
  size_t mask = slots_.size() - 1;
  int shift = ShiftFor(slots_.size());
  for (const Slot& s : old) {
    if (s.bin.count == 0) continue;
    size_t i = Home(s.code, mask, shift);
    while (slots_[i].bin.count != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

// The bin of `code`, a free one (count 0) with the code set when new.
SparseHistogram::Bin& SparseHistogram::BinOf(int64_t code) {
  if (2 * (used_ + 1) > slots_.size()) Grow();
  size_t mask = slots_.size() - 1;
  size_t i = Home(code, mask, ShiftFor(slots_.size()));
  while (true) {
    Slot& s = slots_[i];
    if (s.bin.count == 0) {
      s.code = code;
      ++used_;
      return s.bin;
    }
    if (s.code == code) return s.bin;
    i = (i + 1) & mask;
  }
}

void SparseHistogram::Add(double x) {
  Bin& bin = BinOf(CodeOf(x));
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
    sorted_.clear();
    sorted_.reserve(used_);
    for (const Slot& s : slots_) {
      if (s.bin.count != 0) sorted_.emplace_back(s.code, s.bin);
    }
    std::sort(sorted_.begin(), sorted_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    sorted_valid_ = true;
  }
  return sorted_;
}

void SparseHistogram::Merge(const SparseHistogram& other) {
  for (const Slot& s : other.slots_) {
    if (s.bin.count == 0) continue;
    const Bin& b = s.bin;
    Bin& bin = BinOf(s.code);
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
  return used_ == 0 ? 0 : Sorted().back().second.max;
}

double SparseHistogram::Median() const {
  if (count_ == 0) return 0;
  if (count_ % 2 == 1) return Quantile(count_ / 2);
  return (Quantile(count_ / 2 - 1) + Quantile(count_ / 2)) / 2;
}

double SparseHistogram::MedianOfAscending(const std::vector<double>& ascending) const {
  uint64_t n = ascending.size();
  if (n == 0) return 0;
  // The bin holding rank r: the run of values with the code of ascending[r] (codes never
  // decrease along the values), interpolated as Quantile does.
  auto at = [&](uint64_t r) {
    int64_t code = CodeOf(ascending[r]);
    uint64_t lo = r, hi = r;
    while (lo > 0 && CodeOf(ascending[lo - 1]) == code) --lo;
    while (hi + 1 < n && CodeOf(ascending[hi + 1]) == code) ++hi;
    Bin bin{.count = hi - lo + 1, .min = ascending[lo], .max = ascending[hi]};
    return Interpolate(bin, r - lo);
  };
  if (n % 2 == 1) return at(n / 2);
  return (at(n / 2 - 1) + at(n / 2)) / 2;
}

}  // namespace ys::fleet
