// A sparse histogram for streaming order statistics in bounded memory: values fall into bins of
// fixed relative width (logarithmic) or fixed width (linear), each bin keeps its count and the
// smallest and largest value it saw. Memory depends on how widely the values spread (the number
// of occupied bins), not on how many there are.
//
// Error bound: the k-th smallest value is located exactly by counts; within its bin it is
// interpolated between the bin's min and max, so the estimate and the true value lie in the same
// bin: |estimate - true| <= bin width, i.e. <= relative_width * |true| for logarithmic bins and
// <= width for linear bins. A bin holding one distinct value answers exactly.
//
// Not thread-safe; a value type.
#ifndef YARDSTICK_FLEET_SPARSE_HISTOGRAM_H_
#define YARDSTICK_FLEET_SPARSE_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ys::fleet {

class SparseHistogram {
 public:
  // Bins [b^i, b^(i+1)) with b = 1 + relative_width, mirrored for negative values; 0 has its own
  // bin. relative_width > 0.
  static SparseHistogram Logarithmic(double relative_width);
  // Bins [i*width, (i+1)*width). width > 0.
  static SparseHistogram Linear(double width);

  // `x` must be finite.
  void Add(double x);
  // Adds another histogram's values; both must have the same bins (the same factory and width).
  void Merge(const SparseHistogram& other);

  uint64_t count() const { return count_; }
  size_t bins() const { return used_; }
  // The rank-th smallest value (0-based); rank < count().
  double Quantile(uint64_t rank) const;
  // The median (mean of the two middle values for an even count); 0 when empty.
  double Median() const;

  // Calls f(count, min, max) for each occupied bin in ascending order.
  template <typename F>
  void ForEachBin(F&& f) const {
    for (const auto& [code, bin] : Sorted()) f(bin.count, bin.min, bin.max);
  }

  // The median a histogram of these bins would give had exactly `ascending` (sorted, finite) been
  // added to it when empty, computed without filling one: the values of one bin are a run of
  // `ascending` (codes never decrease along the values). This histogram's own values are not
  // read. 0 when `ascending` is empty.
  double MedianOfAscending(const std::vector<double>& ascending) const;

  // Calls f(v) count() times in ascending order: each bin's count values spread evenly over its
  // [min, max] (its min alone when it holds one value). Matched rank for rank with the values
  // added, each is within one bin width of its partner.
  template <typename F>
  void ForEachApproximateValue(F&& f) const {
    for (const auto& [code, bin] : Sorted()) {
      for (uint64_t j = 0; j < bin.count; ++j) f(Interpolate(bin, j));
    }
  }

 private:
  struct Bin {
    uint64_t count = 0;
    double min = 0, max = 0;
  };
  SparseHistogram() = default;
  int64_t CodeOf(double x) const;
  static double Interpolate(const Bin& bin, uint64_t j);

  struct Slot {
    int64_t code = 0;
    Bin bin;  // count 0: the slot is free
  };
  Bin& BinOf(int64_t code);
  void Grow();

  double log_step_ = 0;  // log(1 + relative_width); 0 for linear bins
  double width_ = 0;     // linear bin width; 0 for logarithmic bins
  // Adding goes to a hash table (a figure's value lands in one of a few hundred occupied bins):
  // open addressing, a power-of-two number of slots, linear probing, at most half full; the
  // queries read the bins sorted by code, so by value, sorted once after the last Add.
  std::vector<Slot> slots_;
  size_t used_ = 0;  // occupied slots
  mutable std::vector<std::pair<int64_t, Bin>> sorted_;
  mutable bool sorted_valid_ = true;
  const std::vector<std::pair<int64_t, Bin>>& Sorted() const;
  uint64_t count_ = 0;
};

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_SPARSE_HISTOGRAM_H_
