#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

TEST(GpuMigTest, MigOffPasses) {
  CheckResult r = testing::RunGpuFixture("gpu.mig", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "MIG disabled on 8 GPUs, as the site wants");
}

TEST(GpuMigTest, MigOnAgainstThePolicy) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[5].mig_enabled = gpu::Field<bool>::Of(true);
  CheckResult r = testing::RunGpuSnapshot("gpu.mig", s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-060");
  EXPECT_EQ(r.findings[0].entity, "gpu5");
  EXPECT_NE(r.findings[0].fix.find("nvidia-smi -i 5 -mig 0"), std::string::npos);
  testing::GpuRun any;
  any.expect.params.Set("gpu.mig", "mig", checks::Policy::kAny);
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.mig", s, any), Outcome::kPass);
}

TEST(GpuMigTest, GpusWithoutMigSkip) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& d : s.devices) d.mig_enabled = gpu::Field<bool>::Missing("Not Supported");
  CheckResult r = testing::RunGpuSnapshot("gpu.mig", s);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_EQ(r.summary, "MIG mode unavailable on every GPU (mig_enabled: Not Supported)");
}

}  // namespace
}  // namespace ys
