#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuPersistenceTest, PassesWithPersistenceOnEverywhere) {
  CheckResult r = testing::RunGpuFixture("gpu.persistence", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "persistence mode on for 8 GPUs");
}

TEST(GpuPersistenceTest, OffOnOneGpu) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[6].persistence_mode = gpu::Field<bool>::Of(false);
  CheckResult r = testing::RunGpuSnapshot("gpu.persistence", s);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-006");
  EXPECT_EQ(r.findings[0].entity, "gpu6");
  EXPECT_NE(r.findings[0].fix.find("nvidia-persistenced"), std::string::npos);
  GpuRun any;
  any.expect.params.Set("gpu.persistence", "persistence", checks::Policy::kAny);
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.persistence", s, any), Outcome::kPass);
}

TEST(GpuPersistenceTest, OneGpuWithoutAnAnswerIsPartial) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[2].persistence_mode = gpu::Field<bool>::Missing("Insufficient Permissions");
  CheckResult r = testing::RunGpuSnapshot("gpu.persistence", s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("on for 7 GPUs (some GPUs gave no answer)"), std::string::npos)
      << r.summary;
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "unavailable: persistence_mode" && v == "gpu2: Insufficient Permissions") noted = true;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(GpuPersistenceTest, GeForceCardsWithPersistenceOffPassUnlessTheSiteAsks) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& d : s.devices) {
    d.name = "NVIDIA GeForce RTX 3090";
    d.persistence_mode = gpu::Field<bool>::Of(false);
  }
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.persistence", s), Outcome::kPass);
  testing::GpuRun site;
  site.expect.params.Set("gpu.persistence", "persistence", checks::Policy::kOn);
  CheckResult r = testing::RunGpuSnapshot("gpu.persistence", s, site);
  EXPECT_EQ(r.findings.size(), 8u) << testing::Describe(r);
}

}  // namespace
}  // namespace ys
