#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuNvlinkTest, AllLinksUpPass) {
  GpuRun run;
  run.expect.params.Set("gpu.nvlink", "nvlinks_expected_up", 18);
  CheckResult r = testing::RunGpuFixture("gpu.nvlink", "healthy-h100x8", run);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "144 NVLinks active on 8 GPUs, no replay or recovery errors");
}

TEST(GpuNvlinkTest, LinkDownWithReplaysAndRecoveries) {
  CheckResult r = testing::RunGpuFixture("gpu.nvlink", "nvlink-down");
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 3u) << testing::Describe(r);
  const Finding* down = testing::FindFinding(r, "YS-GPU-045");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->entity, "gpu3");
  EXPECT_EQ(down->message, "NVLink link 7 inactive (17 of 18 active)");
  EXPECT_NE(down->fix.find("nvidia-smi nvlink -s -i 3"), std::string::npos);
  const Finding* replay = testing::FindFinding(r, "YS-GPU-046");
  ASSERT_NE(replay, nullptr);
  EXPECT_EQ(replay->message, "1843 NVLink replay errors (link 7: 1843)");
  const Finding* recovery = testing::FindFinding(r, "YS-GPU-047");
  ASSERT_NE(recovery, nullptr);
  EXPECT_NE(recovery->message.find("27 NVLink recovery errors"), std::string::npos);
  bool crc = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpu3" && v == "17 of 18 links active; CRC errors link 7: 412 flit, 96 data")
      crc = true;
  }
  EXPECT_TRUE(crc) << testing::Describe(r);
}

TEST(GpuNvlinkTest, SiteExpectsMoreLinksThanNvmlLists) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[5].nvlinks.resize(12);
  GpuRun run;
  run.expect.params.Set("gpu.nvlink", "nvlinks_expected_up", 18);
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", s, run);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].message, "12 NVLinks active, the site expects 18");
}

TEST(GpuNvlinkTest, PcieGpusWithoutNvlinkSkip) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& d : s.devices) d.nvlinks.clear();
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", s);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_EQ(r.summary, "no NVLink on any GPU");
}

TEST(GpuNvlinkTest, UnreadableLinkStateOnOneGpuIsPartial) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("nvlink-down");
  for (auto& l : s.devices[3].nvlinks) l.active = gpu::Field<bool>::Missing("Unknown Error");
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", s);
  EXPECT_FALSE(testing::HasFinding(r, "YS-GPU-045"));  // state unknown: not called down
  EXPECT_TRUE(testing::HasFinding(r, "YS-GPU-047"));   // but the counters still read
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "unavailable: nvlink.active" && v == "gpu3: Unknown Error") noted = true;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

// NVML on an H100 PCIe lists 18 links; an NVLink bridge pair connects 12 of them.
gpu::GpuSnapshot H100PciePair(int active_links) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices.resize(2);
  for (auto& d : s.devices) {
    d.name = "NVIDIA H100 PCIe";
    for (auto& l : d.nvlinks) {
      l.active = gpu::Field<bool>::Of(l.link < active_links);
      l.remote_pci_bus_id = gpu::Field<std::string>::Missing("not supported");
    }
  }
  return s;
}

TEST(GpuNvlinkTest, H100PcieBridgePairWithTwelveOfEighteenLinksPasses) {
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", H100PciePair(12));
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty()) << testing::Describe(r);
  EXPECT_EQ(r.summary, "24 NVLinks active on 2 GPUs, no replay or recovery errors");
}

TEST(GpuNvlinkTest, PcieCardsWithoutABridgePass) {
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", H100PciePair(0));
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpu0" && v.find("0 of 18 links active: no NVLink bridge") == 0) noted = true;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(GpuNvlinkTest, PcieBridgeWithLinksDownFails) {
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", H100PciePair(8));
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 2u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].message.rfind("8 of the 12 links an NVLink bridge connects", 0), 0u)
      << r.findings[0].message;
}

// An SXM module is held to all its links whatever NVML lists as inactive; a site value replaces
// the product's.
TEST(GpuNvlinkTest, SxmModuleNeedsEveryLinkUnlessTheSiteSaysOtherwise) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& l : s.devices[0].nvlinks) l.active = gpu::Field<bool>::Of(l.link < 12);
  CheckResult r = testing::RunGpuSnapshot("gpu.nvlink", s);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].entity, "gpu0");
  GpuRun site;
  site.expect.params.Set("gpu.nvlink", "nvlinks_expected_up", 12);
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.nvlink", s, site), Outcome::kPass);
}

}  // namespace
}  // namespace ys
