#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuPowerTest, DefaultLimitsPass) {
  CheckResult r = testing::RunGpuFixture("gpu.power", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.evidence[0].second, "68 W drawn, limit 700 W (default 700 W)");
}

TEST(GpuPowerTest, CappedGpuFailsUnlessTheSiteAllowsIt) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[3].enforced_power_limit_mw = gpu::Field<uint32_t>::Of(500500);
  CheckResult r = testing::RunGpuSnapshot("gpu.power", s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = testing::FindFinding(r, "YS-GPU-015");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->entity, "gpu3");
  EXPECT_EQ(f->message, "enforced power limit 500.5 W is below the default 700 W");
  EXPECT_NE(f->fix.find("nvidia-smi -i 3 -pl 700"), std::string::npos) << f->fix;
  GpuRun lenient;
  lenient.expect.params.Set("gpu.power", "min_power_limit_ratio", 0.7);
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.power", s, lenient), Outcome::kPass);
}

TEST(GpuPowerTest, MissingDefaultOnOneGpuIsPartial) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[0].default_power_limit_mw = gpu::Field<uint32_t>::Missing("Not Supported");
  s.devices[0].enforced_power_limit_mw = gpu::Field<uint32_t>::Of(100000);
  CheckResult r = testing::RunGpuSnapshot("gpu.power", s);
  EXPECT_OUTCOME(r, Outcome::kPass);  // no default to compare with: not judged
  EXPECT_EQ(r.summary, "power limits at their defaults on 7 GPUs");
}

}  // namespace
}  // namespace ys
