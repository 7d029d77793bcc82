#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

TEST(GpuPcieTest, Gen5x16Passes) {
  CheckResult r = testing::RunGpuFixture("gpu.pcie", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.evidence[0].second, "Gen5 x16 (max Gen5 x16), 0 replays, idle");
}

TEST(GpuPcieTest, NarrowLinkFailsAtAnyTime) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[3].pcie_width_current = gpu::Field<uint32_t>::Of(8);
  CheckResult r = testing::RunGpuSnapshot("gpu.pcie", s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-055");
  EXPECT_EQ(r.findings[0].message, "PCIe link runs at x8, the GPU and slot support x16");
}

TEST(GpuPcieTest, LowGenerationCountsOnlyUnderLoad) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[2].pcie_gen_current = gpu::Field<uint32_t>::Of(1);  // idle in the recording
  CheckResult idle = testing::RunGpuSnapshot("gpu.pcie", s);
  EXPECT_OUTCOME(idle, Outcome::kPass);
  bool stated = false;
  for (const auto& [k, v] : idle.evidence) {
    if (k == "gpu2.pcie_generation" &&
        v.find("only a reading under load counts") != std::string::npos) {
      stated = true;
    }
  }
  EXPECT_TRUE(stated) << testing::Describe(idle);
  s.devices[2].clocks_event_reasons = gpu::Field<uint64_t>::Of(0);  // busy
  CheckResult busy = testing::RunGpuSnapshot("gpu.pcie", s);
  EXPECT_OUTCOME(busy, Outcome::kWarn);
  ASSERT_EQ(busy.findings.size(), 1u);
  EXPECT_EQ(busy.findings[0].code, "YS-GPU-056");
  EXPECT_NE(busy.findings[0].message.find("under load"), std::string::npos);
}

TEST(GpuPcieTest, ReplayCounterAboveThreshold) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[7].pcie_replay_counter = gpu::Field<uint64_t>::Of(81);
  CheckResult r = testing::RunGpuSnapshot("gpu.pcie", s);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  EXPECT_TRUE(testing::HasFinding(r, "YS-GPU-057"));
  testing::GpuRun lenient;
  lenient.expect.params.Set("gpu.pcie", "max_pcie_replays", 1000);
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.pcie", s, lenient), Outcome::kPass);
}

}  // namespace
}  // namespace ys
