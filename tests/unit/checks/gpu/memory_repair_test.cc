#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

TEST(GpuMemoryRepairTest, HopperWithoutPageRetirementPasses) {
  CheckResult r = testing::RunGpuFixture("gpu.memory_repair", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "unavailable: retired_pages_sbe") {
      noted = true;
      EXPECT_EQ(v, "gpu0, gpu1, gpu2, gpu3, gpu4, gpu5, gpu6, gpu7: not supported");
    }
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(GpuMemoryRepairTest, PendingRemapInTheH200Recording) {
  CheckResult r = testing::RunGpuFixture("gpu.memory_repair", "h200x8-throttle-remap");
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-GPU-032");
  EXPECT_EQ(f.entity, "gpu5");
  EXPECT_NE(f.fix.find("nvidia-smi -r -i 5"), std::string::npos);
}

TEST(GpuMemoryRepairTest, FailureAndDcgmLimits) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[1].remapped_rows_failure = gpu::Field<bool>::Of(true);
  s.devices[2].remapped_rows_uncorrectable = gpu::Field<uint32_t>::Of(512);
  // A pre-Ampere GPU reporting page retirement.
  s.devices[3].retired_pages_sbe = gpu::Field<uint32_t>::Of(60);
  s.devices[3].retired_pages_dbe = gpu::Field<uint32_t>::Of(3);
  s.devices[3].retired_pages_pending = gpu::Field<bool>::Of(true);
  CheckResult r = testing::RunGpuSnapshot("gpu.memory_repair", s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  auto entity_of = [&](const char* code) {
    const Finding* f = testing::FindFinding(r, code);
    return f ? f->entity : std::string("(none)");
  };
  EXPECT_EQ(entity_of("YS-GPU-033"), "gpu1");
  EXPECT_EQ(entity_of("YS-GPU-034"), "gpu2");
  EXPECT_EQ(entity_of("YS-GPU-031"), "gpu3");
  EXPECT_EQ(entity_of("YS-GPU-030"), "gpu3");
  EXPECT_EQ(r.findings.size(), 4u) << testing::Describe(r);
}

TEST(GpuMemoryRepairTest, RowRemapperUnsupportedUnderMigIsPartial) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  auto& d = s.devices[0];
  d.remapped_rows_correctable = gpu::Field<uint32_t>::Missing("Not Supported");
  d.remapped_rows_uncorrectable = gpu::Field<uint32_t>::Missing("Not Supported");
  d.remapped_rows_pending = gpu::Field<bool>::Missing("Not Supported");
  d.remapped_rows_failure = gpu::Field<bool>::Missing("Not Supported");
  CheckResult r = testing::RunGpuSnapshot("gpu.memory_repair", s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "no pending or failed memory repair on 7 GPUs");
}

}  // namespace
}  // namespace ys
