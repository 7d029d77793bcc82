#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuThermalTest, CoolGpusPass) {
  CheckResult r = testing::RunGpuFixture("gpu.thermal", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "8 GPUs below their thresholds (hottest 36 C)");
}

TEST(GpuThermalTest, GpuAboveSlowdownInTheH200Recording) {
  CheckResult r = testing::RunGpuFixture("gpu.thermal", "h200x8-throttle-remap");
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-020");
  EXPECT_EQ(r.findings[0].entity, "gpu2");
  EXPECT_EQ(r.findings[0].message,
            "91 C is at or above the slowdown threshold 89 C: clocks are being reduced");
}

TEST(GpuThermalTest, MarginMaxOperatingAndShutdown) {
  struct Case {
    uint32_t temp;
    const char* code;  // nullptr: pass
    const char* text;
  } cases[] = {{83, nullptr, ""},
               {84, "YS-GPU-021", "within 5 C of the slowdown threshold 89 C"},
               {88, "YS-GPU-021", "above the maximum operating temperature 87 C"},
               {92, "YS-GPU-020", "at or above the shutdown threshold 92 C"}};
  for (const auto& c : cases) {
    gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
    s.devices[7].temperature_c = gpu::Field<uint32_t>::Of(c.temp);
    CheckResult r = testing::RunGpuSnapshot("gpu.thermal", s);
    if (c.code == nullptr) {
      EXPECT_OUTCOME(r, Outcome::kPass);
      continue;
    }
    ASSERT_EQ(r.findings.size(), 1u) << c.temp;
    EXPECT_EQ(r.findings[0].code, c.code) << c.temp;
    EXPECT_NE(r.findings[0].message.find(c.text), std::string::npos) << r.findings[0].message;
  }
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[7].temperature_c = gpu::Field<uint32_t>::Of(84);
  GpuRun tight;
  tight.expect.params.Set("gpu.thermal", "temperature_margin_c", 2);
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.thermal", s, tight), Outcome::kPass);
}

TEST(GpuThermalTest, NoThresholdsMeansNotJudged) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& d : s.devices) {
    d.slowdown_temperature_c = gpu::Field<uint32_t>::Missing("Not Supported");
    d.shutdown_temperature_c = gpu::Field<uint32_t>::Missing("Not Supported");
    d.max_operating_temperature_c = gpu::Field<uint32_t>::Missing("Not Supported");
  }
  s.devices[0].temperature_c = gpu::Field<uint32_t>::Of(99);
  CheckResult r = testing::RunGpuSnapshot("gpu.thermal", s);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("Not Supported"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace ys
