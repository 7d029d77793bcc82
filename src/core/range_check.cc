#include "core/range_check.h"

#include <fmt/format.h>

#include <cmath>

namespace ys {

std::string FormatRangeValue(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", value);
}

std::string DescribeRange(double lo, double hi, LowerBound lower) {
  if (lower == LowerBound::kExclusive)
    return fmt::format("above {} and at most {}", FormatRangeValue(lo), FormatRangeValue(hi));
  return fmt::format("from {} to {}", FormatRangeValue(lo), FormatRangeValue(hi));
}

Status CheckRange(double value, double lo, double hi, std::string_view where, LowerBound lower) {
  bool above = lower == LowerBound::kExclusive ? value > lo : value >= lo;
  if (above && value <= hi && std::isfinite(value)) return Status::Ok();
  return Status::Invalid(fmt::format("{}: {} is out of range (expected a number {})", where,
                                     FormatRangeValue(value), DescribeRange(lo, hi, lower)));
}

Status CheckIntRange(int64_t value, int64_t lo, int64_t hi, std::string_view where) {
  if (value >= lo && value <= hi) return Status::Ok();
  return Status::Invalid(fmt::format(
      "{}: {} is out of range (expected a whole number from {} to {})", where, value, lo, hi));
}

}  // namespace ys
