#include <gtest/gtest.h>

#include <cstdio>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuCountTest, PassesWhenNvmlAndThePciBusAgreeWithTheSite) {
  GpuRun run;
  run.expect.devices.gpus = 8;
  CheckResult r = testing::RunGpuFixture("gpu.count", "healthy-h100x8", run);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(r.summary.find("8 GPUs in NVML, 8 on the PCI bus"), std::string::npos) << r.summary;
}

TEST(GpuCountTest, GpuMissingFromNvmlFellOffTheBus) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices.erase(s.devices.begin() + 4);  // 0000:51:00.0
  GpuRun run;
  run.expect.devices.gpus = 8;
  CheckResult r = testing::RunGpuSnapshot("gpu.count", s, run);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* count = testing::FindFinding(r, "YS-GPU-001");
  ASSERT_NE(count, nullptr) << testing::Describe(r);
  EXPECT_NE(count->message.find("NVML lists 7 GPUs, the site expects 8"), std::string::npos);
  const Finding* gone = testing::FindFinding(r, "YS-GPU-002");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->entity, "0000:51:00.0");
  EXPECT_NE(gone->message.find("driver nvidia"), std::string::npos) << gone->message;
  EXPECT_NE(gone->fix.find("XID 79"), std::string::npos);
  EXPECT_FALSE(gone->evidence.empty());
  EXPECT_FALSE(gone->reference.empty());
}

TEST(GpuCountTest, SiteCountAloneDiffers) {
  GpuRun run;
  run.expect.devices.gpus = 4;
  CheckResult r = testing::RunGpuFixture("gpu.count", "healthy-h100x8", run);
  EXPECT_OUTCOME(r, Outcome::kFail);
  EXPECT_TRUE(testing::HasFinding(r, "YS-GPU-001"));
  EXPECT_FALSE(testing::HasFinding(r, "YS-GPU-002"));
}

TEST(GpuCountTest, GpuBoundToAnotherDriverIsNamedSo) {
  testing::TempHost t("healthy-8gpu");
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices.pop_back();  // 0000:81:00.0
  auto host = t.Host();
  // The driver link of the GPU's sysfs directory points at vfio-pci.
  std::string dev = "/sys/bus/pci/devices/0000:81:00.0";
  auto real = host.RealPath(dev);
  ASSERT_TRUE(real.ok()) << real.status().ToString();
  t.Symlink(*real + "/driver", "../../../../bus/pci/drivers/vfio-pci");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.count", t.Host(), s);
  const Finding* f = testing::FindFinding(r, "YS-GPU-002");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("driver vfio-pci"), std::string::npos) << f->message;
  EXPECT_NE(f->fix.find("bind the GPU to the nvidia driver"), std::string::npos) << f->fix;
}

TEST(GpuCountTest, InAContainerAGpuNotGivenToItIsOnlyNoted) {
  testing::TempHost t("healthy-8gpu");
  t.Write("/.dockerenv", "");
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices.resize(4);  // the container was given four GPUs
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.count", t.Host(), s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "0000:51:00.0" && v.find("not visible to NVML in this container") != std::string::npos)
      noted = true;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(GpuCountTest, NvmlGpuNotOnThePciBusIsNoted) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices[0].pci_bus_id = "00000000:E1:00.0";
  CheckResult r = testing::RunGpuSnapshot("gpu.count", s);
  EXPECT_TRUE(testing::HasFinding(r, "YS-GPU-002"));  // 0000:11:00.0 is no longer in NVML
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "gpu0" && v.find("not found on the PCI bus") != std::string::npos) noted = true;
  }
  EXPECT_TRUE(noted);
}

// --nvml-state without --root on this machine: the recording is of another machine (or of this
// one at another time), so this machine's PCI bus says nothing about it.
TEST(GpuCountTest, ARecordingIsNeverComparedWithThisMachinesPciBus) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  ASSERT_EQ(s.source.rfind("recorded: ", 0), 0u) << s.source;
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.count", host::Host::Live(), s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary,
            "8 GPUs in NVML, not compared with this machine's PCI bus: the GPU state is a "
            "recording, and no --root gives the host tree it was recorded with");
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "pci.gpus") noted = v.find("not compared") != std::string::npos;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

// The GPU state of one machine with the host tree of another: every bus id differs, so nothing
// may be called "on the bus but not in NVML"; the comparison is inconclusive and says why.
TEST(GpuCountTest, GpuStateAndHostTreeOfTwoMachinesAreInconclusive) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  int bus = 0x90;
  for (auto& d : s.devices) {
    char id[32];
    std::snprintf(id, sizeof id, "00000000:%02X:00.0", bus++);
    d.pci_bus_id = id;
  }
  CheckResult r = testing::RunGpuSnapshot("gpu.count", s);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_FALSE(testing::HasFinding(r, "YS-GPU-002")) << testing::Describe(r);
  EXPECT_NE(r.summary.find("0 of 8 bus ids match: the recording is from another machine"),
            std::string::npos)
      << r.summary;
  // One GPU in common of eight is still two machines; half in common is one (a container).
  s.devices[0].pci_bus_id = "00000000:11:00.0";
  EXPECT_OUTCOME(testing::RunGpuSnapshot("gpu.count", s), Outcome::kError);
}

TEST(GpuCountTest, NotInNvmlNamesABusIdAbsentFromNvmlsList) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.devices.erase(s.devices.begin() + 4);  // 0000:51:00.0
  CheckResult r = testing::RunGpuSnapshot("gpu.count", s);
  const Finding* gone = testing::FindFinding(r, "YS-GPU-002");
  ASSERT_NE(gone, nullptr) << testing::Describe(r);
  std::string listed;
  for (const auto& [k, v] : gone->evidence) {
    if (k == "nvml bus ids") listed = v;
  }
  EXPECT_NE(listed.find("0000:11:00.0"), std::string::npos) << listed;
  EXPECT_NE(listed.find("(0000:51:00.0 not among them)"), std::string::npos) << listed;
  EXPECT_EQ(listed.find("0000:51:00.0,"), std::string::npos) << listed;
}

TEST(GpuCountTest, NvmlWithoutBusIdsIsNotComparedWithTheBus) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  for (auto& d : s.devices) d.pci_bus_id = "N/A";
  CheckResult r = testing::RunGpuSnapshot("gpu.count", s);
  EXPECT_FALSE(testing::HasFinding(r, "YS-GPU-002")) << testing::Describe(r);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) noted |= k == "pci.compared";
  EXPECT_TRUE(noted) << testing::Describe(r);
}

}  // namespace
}  // namespace ys
