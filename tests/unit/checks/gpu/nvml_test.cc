// gpu.nvml: a node whose PCI bus shows NVIDIA GPUs that NVML cannot reach fails with the fix; a
// node without GPUs says there is none to judge; the site's expected count is held against a bus
// without GPUs (docs/verdict.md "GPUs that could not be judged").
#include <gtest/gtest.h>

#include "checks/check.h"
#include "core/verdict.h"
#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuNvmlTest, GpusOnTheBusWithoutNvmlFailWithTheFix) {
  CheckResult r = testing::RunGpuSnapshot("gpu.nvml", testing::NoNvml());  // healthy-8gpu
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = testing::FindFinding(r, "YS-GPU-075");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("8 NVIDIA GPUs are on the PCI bus but NVML is unusable"),
            std::string::npos)
      << f->message;
  ASSERT_EQ(f->evidence.size(), 2u);
  EXPECT_EQ(f->evidence[1].first, "nvml");
  EXPECT_NE(f->evidence[1].second.find("NVML not found"), std::string::npos)
      << f->evidence[1].second;
  EXPECT_NE(f->fix.find("modprobe nvidia"), std::string::npos) << f->fix;
}

TEST(GpuNvmlTest, ARecordedTreeWithoutItsNvmlStateFails) {
  // `yardstick capture` records nvml.json whenever NVML answers: its absence on a tree with GPUs
  // means they could not be read.
  CheckResult r = testing::RunOnFixture("gpu.nvml", "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kFail);
  EXPECT_TRUE(testing::HasFinding(r, "YS-GPU-075")) << testing::Describe(r);
}

TEST(GpuNvmlTest, PassesWhenNvmlAnswers) {
  CheckResult r = testing::RunGpuFixture("gpu.nvml", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("NVML answers"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("8 GPUs, 8 on the PCI bus"), std::string::npos) << r.summary;
}

// --nvml-state on this machine: its PCI bus says nothing about the recording and is not read.
TEST(GpuNvmlTest, ARecordingOnThisMachineIsNotComparedWithItsPciBus) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.nvml", host::Host::Live(), s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary.find("on the PCI bus"), std::string::npos) << r.summary;
  bool not_read = false;
  for (const auto& [k, v] : r.evidence) not_read |= k == "pci.gpus" && v.rfind("not read", 0) == 0;
  EXPECT_TRUE(not_read) << testing::Describe(r);
}

TEST(GpuNvmlTest, ANodeWithoutGpusHasNoneToJudge) {
  GpuRun run;
  run.host = "this-machine";  // a KVM guest: no NVIDIA device on its PCI bus
  CheckResult r = testing::RunGpuSnapshot("gpu.nvml", testing::NoNvml(), run);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("no GPU on this node"), std::string::npos) << r.summary;
  bool noted = false;
  for (const auto& [k, v] : r.evidence) noted = noted || k == kNoGpuEvidence;
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(GpuNvmlTest, TheSiteExpectsGpusThatAreNotThere) {
  GpuRun run;
  run.host = "this-machine";
  run.expect.devices.gpus = 8;
  CheckResult r = testing::RunGpuSnapshot("gpu.nvml", testing::NoNvml(), run);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = testing::FindFinding(r, "YS-GPU-076");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("the site expects 8 GPUs; none is on the PCI bus"), std::string::npos)
      << f->message;
}

TEST(GpuNvmlTest, InsideAContainerStartedWithoutTheGpusItWarns) {
  testing::TempHost t("healthy-8gpu");
  t.Write("/.dockerenv", "");
  CheckResult r = t.Run("gpu.nvml");
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = testing::FindFinding(r, "YS-GPU-077");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->fix.find("--gpus all"), std::string::npos) << f->fix;
}

}  // namespace
}  // namespace ys
