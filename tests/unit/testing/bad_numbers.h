// Numbers a mutated data file carries: each must be refused where a loader reads it, with a
// message naming the file and the key. Literal TOML spellings.
#ifndef YARDSTICK_TESTS_UNIT_TESTING_BAD_NUMBERS_H_
#define YARDSTICK_TESTS_UNIT_TESTING_BAD_NUMBERS_H_

#include <string>
#include <vector>

namespace ys::testing {

// Out of range for any figure that must be finite and positive.
inline const std::vector<std::string> kBadPositiveNumbers = {"nan", "+inf",   "-inf", "-1",
                                                             "0",   "1e-320", "1e300"};
// 2^63: past what a TOML integer holds (a parse error naming the file and line).
inline const char* const kPastInt64 = "9223372036854775808";

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_BAD_NUMBERS_H_
