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

// The H100: reason bits set while the SM clock is at its maximum (idle, cool). The clock
// is not held down; the message must not say it is.
TEST(GpuClocksTest, ReasonBitsAtTheMaximumClockAreAWarningToSampleUnderLoad) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  gpu::GpuDevice& d = s.devices[1];
  d.clocks_event_reasons =
      gpu::Field<uint64_t>::Of(gpu::kClocksEventHwSlowdown | gpu::kClocksEventSwPowerCap);
  d.sm_clock_mhz = gpu::Field<uint32_t>::Of(1980);
  d.max_sm_clock_mhz = gpu::Field<uint32_t>::Of(1980);
  d.temperature_c = gpu::Field<uint32_t>::Of(39);
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-GPU-016");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.entity, "gpu1");
  EXPECT_EQ(f.message,
            "HW slowdown, SW power cap reason bits set, clock not reduced (1980/1980 MHz SM): "
            "sample under load, 39 C");
  EXPECT_EQ(f.message.find("held down"), std::string::npos);
  EXPECT_NE(f.fix.find("run a load"), std::string::npos) << f.fix;
}

// One MHz below the maximum is reduced: the same bits are then the fault they name.
TEST(GpuClocksTest, ReasonBitsBelowTheMaximumClockKeepTheirCode) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  gpu::GpuDevice& d = s.devices[1];
  d.clocks_event_reasons = gpu::Field<uint64_t>::Of(gpu::kClocksEventHwSlowdown);
  d.sm_clock_mhz = gpu::Field<uint32_t>::Of(1979);
  d.max_sm_clock_mhz = gpu::Field<uint32_t>::Of(1980);
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-010");
  EXPECT_NE(r.findings[0].message.find("(1979/1980 MHz SM)"), std::string::npos);
}

}  // namespace
}  // namespace ys
