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
               // The fixture's GPU idles far below its power limit: the flag alone.
               {gpu::kClocksEventSwPowerCap, "YS-GPU-017"}};
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

gpu::GpuDevice& PowerCapped(gpu::GpuSnapshot& s, uint32_t draw_w, uint32_t limit_w,
                            uint32_t sm_mhz) {
  gpu::GpuDevice& d = s.devices[1];
  d.clocks_event_reasons = gpu::Field<uint64_t>::Of(gpu::kClocksEventSwPowerCap);
  d.power_usage_mw = gpu::Field<uint32_t>::Of(draw_w * 1000);
  d.enforced_power_limit_mw = gpu::Field<uint32_t>::Of(limit_w * 1000);
  d.default_power_limit_mw = gpu::Field<uint32_t>::Of(450 * 1000);
  d.sm_clock_mhz = gpu::Field<uint32_t>::Of(sm_mhz);
  d.max_sm_clock_mhz = gpu::Field<uint32_t>::Of(1740);
  return d;
}

// 445 of 450 W under full load: the cap doing its work, a note and no warning.
TEST(GpuClocksTest, SwPowerCapAtTheLimitUnderLoadIsANote) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  PowerCapped(s, 445, 450, 1605);
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty()) << testing::Describe(r);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpu1" && v.find("at its enforced power limit (445 W of 450 W enforced)") == 0)
      noted = true;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

// The limit lowered below the default is what holds the clock: that is said, with the numbers.
TEST(GpuClocksTest, SwPowerCapAtALoweredLimitHoldsTheClock) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  PowerCapped(s, 298, 300, 1200);
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-014");
  EXPECT_EQ(r.findings[0].message,
            "clocks held down by SW power cap (1200/1740 MHz SM) at 298 W of 300 W enforced, "
            "below the default limit of 450 W");
}

// "held down by SW power cap (0/1740 MHz SM)" at 24 W of 300 W contradicted its evidence: the flag
// is reported as the driver sets it, without saying the power limit holds the clock.
TEST(GpuClocksTest, SwPowerCapFlagFarBelowTheLimitIsNotCalledAPowerCap) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  PowerCapped(s, 24, 300, 0).performance_state = gpu::Field<int>::Of(8);
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-GPU-017");
  EXPECT_EQ(f.message,
            "SW power cap reason set while drawing 24 W of 300 W enforced, far below the limit "
            "(0/1740 MHz SM, idle clocks): the driver reports the flag, the power draw does not "
            "hold the clock");
  EXPECT_EQ(f.message.find("held down"), std::string::npos);
}

// "held down" needs the clock read below its maximum.
TEST(GpuClocksTest, UnreadClockIsNotCalledHeldDown) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[1].clocks_event_reasons = gpu::Field<uint64_t>::Of(gpu::kClocksEventSwThermalSlowdown);
  s.devices[1].max_sm_clock_mhz = gpu::Field<uint32_t>::Missing("not supported");
  CheckResult r = testing::RunGpuSnapshot("gpu.clocks", s);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-013");
  EXPECT_EQ(r.findings[0].message.find("held down"), std::string::npos) << r.findings[0].message;
}

}  // namespace
}  // namespace ys
