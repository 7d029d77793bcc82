#include <gtest/gtest.h>

#include "testing/bench_test_util.h"

namespace ys::bench {
namespace {

TEST(MemLatencyTest, LiveUnitReportsOneFigurePerWorkingSet) {
  bench::BenchOptions o;
  o.sizes = *SizeSweep::Parse("32K:64K:x2");
  o.warmup = 1;
  o.iters = 2;
  BenchmarkResult r = testing::RunLiveBenchmark("mem.latency", o);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  ASSERT_EQ(r.measurements.size(), 2u);
  EXPECT_EQ(r.measurements[0].params.at("bytes"), "32768");
  EXPECT_EQ(r.measurements[1].params.at("bytes"), "65536");
  for (const Measurement& m : r.measurements) {
    EXPECT_EQ(m.name, "mem.latency");
    EXPECT_EQ(m.unit, "ns");
    EXPECT_EQ(m.samples.size(), 2u);
    EXPECT_GT(m.value, 0.0);
  }
  EXPECT_NE(r.summary.find("ns per load at 64 KiB"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace ys::bench
