#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

gpu::Field<gpu::FabricInfo> Fabric(const char* state, const char* status) {
  return gpu::Field<gpu::FabricInfo>::Of(gpu::FabricInfo{state, status, "", 0});
}

TEST(GpuFabricTest, CompletedWithSuccessPasses) {
  CheckResult r = testing::RunGpuFixture("gpu.fabric", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "fabric registration completed with success on 8 GPUs");
}

TEST(GpuFabricTest, InProgressAndFailed) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[0].fabric = Fabric("in progress", "success");
  s.devices[1].fabric = Fabric("completed", "NVML_ERROR_RESET_REQUIRED: GPU requires a reset");
  s.devices[2].fabric = Fabric("not started", "success");
  CheckResult r = testing::RunGpuSnapshot("gpu.fabric", s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 3u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-050");
  EXPECT_EQ(r.findings[0].message, "NVLink fabric registration is \"in progress\", not completed");
  EXPECT_EQ(r.findings[1].code, "YS-GPU-051");
  EXPECT_EQ(r.findings[1].entity, "gpu1");
  EXPECT_EQ(r.findings[2].code, "YS-GPU-050");
  EXPECT_NE(r.findings[0].fix.find("nvidia-fabricmanager"), std::string::npos);
}

TEST(GpuFabricTest, NotSupportedEverywhereSkips) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& d : s.devices) d.fabric = Fabric("not supported", "success");
  CheckResult r = testing::RunGpuSnapshot("gpu.fabric", s);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("no NVLink fabric"), std::string::npos);
}

}  // namespace
}  // namespace ys
