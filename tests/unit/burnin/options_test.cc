// Burn-in options are range-checked before anything starts: NaN, infinities and values past the
// stated bounds are refused naming the flag, the value and the range (an infinite --timeout
// overflowed the watchdog's deadline; an infinite --temp-threshold silenced every alarm).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "burnin/burnin.h"

namespace ys::burnin {
namespace {

BurninOptions Good() {
  BurninOptions o;
  o.duration_s = 120;
  return o;
}

TEST(BurninOptionsTest, DefaultsAndStatedBoundsAreAccepted) {
  EXPECT_TRUE(CheckBurninOptions(Good()).ok());
  BurninOptions o = Good();
  o.duration_s = kMaxDurationS;
  o.timeout_s = 0;  // no limit
  o.gemm_n = kMaxGemmN;
  EXPECT_TRUE(CheckBurninOptions(o).ok()) << CheckBurninOptions(o).message();
}

TEST(BurninOptionsTest, OutOfRangeValuesNameTheFlag) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  struct Case {
    double BurninOptions::*field;
    const char* flag;
  };
  const Case cases[] = {
      {&BurninOptions::duration_s, "--duration (seconds): "},
      {&BurninOptions::cycle_s, "--cycle: "},
      {&BurninOptions::checkpoint_interval_s, "--checkpoint-interval: "},
      {&BurninOptions::temp_threshold_c, "--temp-threshold: "},
      {&BurninOptions::drift_threshold, "--drift-threshold: "},
      {&BurninOptions::timeout_s, "--timeout: "},
  };
  for (const Case& c : cases) {
    for (double v : {nan, inf, -inf, -1.0, 1e300}) {
      BurninOptions o = Good();
      o.*c.field = v;
      Status s = CheckBurninOptions(o);
      ASSERT_FALSE(s.ok()) << c.flag << v;
      EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
      EXPECT_EQ(s.message().rfind(c.flag, 0), 0u) << s.message();
      EXPECT_NE(s.message().find("is out of range (expected a number"), std::string::npos)
          << s.message();
    }
  }
  BurninOptions big = Good();
  big.stream_bytes = std::numeric_limits<uint64_t>::max();
  EXPECT_NE(
      CheckBurninOptions(big).message().find("--stream-bytes: 9223372036854775807 is out of range"),
      std::string::npos)
      << CheckBurninOptions(big).message();
  BurninOptions n = Good();
  n.gemm_n = 1 << 20;
  EXPECT_NE(CheckBurninOptions(n).message().find("--gemm-n: 1048576 is out of range"),
            std::string::npos);
}

}  // namespace
}  // namespace ys::burnin
