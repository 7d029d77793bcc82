// Range checks for numbers that come from outside (data files, flags, documents): every number is
// given a stated valid range where it is read, and a value outside it is refused with one wording,
//   "<where>: <value> is out of range (expected a number from <lo> to <hi>)",
// where `where` names the file and the table/key (or the flag). NaN is never in range; infinities
// are in range only when a bound is itself infinite (no caller does that).
//
// Thread safety: pure functions.
#ifndef YARDSTICK_CORE_RANGE_CHECK_H_
#define YARDSTICK_CORE_RANGE_CHECK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

// Whether the lower bound itself is allowed: a peak or a price per unit may be [lo, hi]; a
// threshold or a ratio that divides is (0, hi] ("above 0").
enum class LowerBound { kInclusive, kExclusive };

// Invalid naming `where`, the value and the range when `value` is not finite or not within it.
Status CheckRange(double value, double lo, double hi, std::string_view where,
                  LowerBound lower = LowerBound::kInclusive);
// The same for whole numbers (the range is always inclusive).
Status CheckIntRange(int64_t value, int64_t lo, int64_t hi, std::string_view where);

// A number as the messages show it: 6 significant digits, "nan", "inf", "-inf".
std::string FormatRangeValue(double value);
// The expected range as the messages word it: "from 0.001 to 1e+07", "above 0 and at most 1".
std::string DescribeRange(double lo, double hi, LowerBound lower = LowerBound::kInclusive);

}  // namespace ys

#endif  // YARDSTICK_CORE_RANGE_CHECK_H_
