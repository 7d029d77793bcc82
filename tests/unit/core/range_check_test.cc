// CheckRange: one wording for every number out of its stated range, NaN and infinities included.
#include "core/range_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ys {
namespace {

TEST(RangeCheckTest, InsideTheRangeIsOk) {
  EXPECT_TRUE(CheckRange(1, 1, 2, "f: k").ok());
  EXPECT_TRUE(CheckRange(2, 1, 2, "f: k").ok());
  EXPECT_TRUE(CheckRange(0.5, 0, 1, "f: k", LowerBound::kExclusive).ok());
  EXPECT_TRUE(CheckIntRange(7, 1, 7, "f: k").ok());
}

TEST(RangeCheckTest, OutsideNamesWhereTheValueAndTheRange) {
  Status s = CheckRange(1e300, 1e-3, 1e7, "specs/x.toml: [peak_dense_tflops] bf16 (line 3)");
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(s.message(),
            "specs/x.toml: [peak_dense_tflops] bf16 (line 3): 1e+300 is out of range (expected a "
            "number from 0.001 to 1e+07)");
  EXPECT_EQ(CheckRange(0, 0, 1, "--x", LowerBound::kExclusive).message(),
            "--x: 0 is out of range (expected a number above 0 and at most 1)");
  EXPECT_EQ(CheckIntRange(int64_t{1} << 40, 1, 65536, "m.toml: [shape] layers").message(),
            "m.toml: [shape] layers: 1099511627776 is out of range (expected a whole number from 1 "
            "to 65536)");
}

TEST(RangeCheckTest, NanAndInfinitiesAreNeverInRange) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NE(CheckRange(std::nan(""), -inf, inf, "k").message().find("k: nan is out of range"),
            std::string::npos);
  EXPECT_NE(CheckRange(inf, 0, inf, "k").message().find("k: inf is out of range"),
            std::string::npos);
  EXPECT_NE(CheckRange(-inf, -inf, 0, "k").message().find("k: -inf is out of range"),
            std::string::npos);
  EXPECT_FALSE(CheckRange(1e-320, 1e-3, 1, "k").ok());
}

}  // namespace
}  // namespace ys
