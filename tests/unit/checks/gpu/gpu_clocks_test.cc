#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

TEST(GpuClocksTest, IdleIsNotAFault) {
  CheckResult r = testing::RunGpuFixture("gpu.clocks", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.evidence[0].second, "345/1980 MHz SM, reasons: GPU idle");
}

TEST(GpuClocksTest, ThermalThrottlingGpuOfTheH200Recording) {
  CheckResult r = testing::RunGpuFixture("gpu.clocks", "h200x8-throttle-remap");
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-GPU-011");
  EXPECT_EQ(f.entity, "gpu2");
  EXPECT_EQ(f.message,
            "clocks held down by HW thermal slowdown (1125/1980 MHz SM); HW slowdown active, 91 C");
  EXPECT_NE(f.fix.find("cooling"), std::string::npos);
  bool decoded = false;
  for (const auto& [k, v] : f.evidence) {
    if (k == "nvmlDeviceGetCurrentClocksEventReasons" &&
        v == "0x48 (HW thermal slowdown, HW slowdown)")
      decoded = true;
  }
  EXPECT_TRUE(decoded) << "reasons decoded by name";
}

TEST(GpuClocksTest, EachFaultReasonHasItsCode) {
  struct Case {
    uint64_t mask;
    const char* code;
  } cases[] = {{gpu::kClocksEventHwSlowdown, "YS-GPU-010"},
               {gpu::kClocksEventHwThermalSlowdown, "YS-GPU-011"},
               {gpu::kClocksEventHwPowerBrakeSlowdown | gpu::kClocksEventHwSlowdown, "YS-GPU-012"},
               {gpu::kClocksEventSwThermalSlowdown, "YS-GPU-013"},
               {gpu::kClocksEventSwPowerCap, "YS-GPU-014"}};
  for (const auto& c : cases) {
    gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
    s.devices[1].clocks_event_reasons = gpu::Field<uint64_t>::Of(c.mask);
    CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
    ASSERT_EQ(r.findings.size(), 1u) << c.code << " " << testing::Describe(r);
    EXPECT_EQ(r.findings[0].code, c.code);
    EXPECT_EQ(r.findings[0].entity, "gpu1");
  }
}

TEST(GpuClocksTest, BenignReasonsAndUnknownBitsAreOnlyNoted) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[0].clocks_event_reasons = gpu::Field<uint64_t>::Of(
      gpu::kClocksEventApplicationsClocksSetting | gpu::kClocksEventSyncBoost |
      gpu::kClocksEventDisplayClockSetting | 0x400);
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.evidence[0].second,
            "345/1980 MHz SM, reasons: applications clocks setting, sync boost, display clock "
            "setting, 0x400");
}

TEST(GpuClocksTest, ReasonsMissingOnSomeGpusIsPartial) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("h200x8-throttle-remap");
  s.devices[2].clocks_event_reasons = gpu::Field<uint64_t>::Missing("Not Supported");
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  EXPECT_OUTCOME(r, Outcome::kPass);  // the throttling GPU gave no reasons: nothing is guessed
  EXPECT_EQ(r.summary, "no clock slowdown on 7 GPUs");
}

}  // namespace
}  // namespace ys
