#include <gtest/gtest.h>

#include <string>

#include "testing/check_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace pcie_links_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "pcie.links";
constexpr const char* kGen5 = "32.0 GT/s PCIe";
constexpr const char* kGen4 = "16.0 GT/s PCIe";

// The value of the first evidence entry whose key contains `key_part`, or "".
std::string EvidenceValue(const Finding& f, std::string_view key_part) {
  for (const auto& [k, v] : f.evidence) {
    if (k.find(key_part) != std::string::npos) return v;
  }
  return "";
}

checks::SiteExpectations Expect(int gpus, int nics) {
  checks::SiteExpectations e;
  e.devices.gpus = gpus;
  e.devices.nics = nics;
  return e;
}

struct Link {
  const char* speed;
  int width;
  const char* max_speed;
  int max_width;
};

// Writes one PCI function at canonical path `dir` ("/sys/devices/pci0000:a0/.../<bdf>") and its
// /sys/bus/pci/devices link, as the kernel lays them out.
void WritePci(TempHost& t, const std::string& dir, const char* vendor, const char* cls, Link l) {
  t.Write(dir + "/vendor", std::string(vendor) + "\n");
  t.Write(dir + "/device", "0x2330\n");
  t.Write(dir + "/class", std::string(cls) + "\n");
  t.Write(dir + "/numa_node", "0\n");
  t.Write(dir + "/current_link_speed", std::string(l.speed) + "\n");
  t.Write(dir + "/current_link_width", std::to_string(l.width) + "\n");
  t.Write(dir + "/max_link_speed", std::string(l.max_speed) + "\n");
  t.Write(dir + "/max_link_width", std::to_string(l.max_width) + "\n");
  std::string bdf = dir.substr(dir.rfind('/') + 1);
  t.Symlink("/sys/bus/pci/devices/" + bdf, "../../.." + dir.substr(4));
}

// Two Gen5 x16 GPUs behind a PCIe switch: root port 0000:a0:01.0 -> switch upstream port
// 0000:a1:00.0 -> downstream ports 0000:a2:0{0,1}.0 -> GPUs 0000:a3:00.0 and 0000:a4:00.0.
// `uplink` is the link of the upstream port (and of the root port, its other end).
void WriteSwitchTree(TempHost& t, Link uplink, const char* bridge_vendor = "0x1000") {
  const std::string rp = "/sys/devices/pci0000:a0/0000:a0:01.0";
  const std::string usp = rp + "/0000:a1:00.0";
  WritePci(t, rp, "0x8086", "0x060400", uplink);
  WritePci(t, usp, bridge_vendor, "0x060400", uplink);
  for (int i = 0; i < 2; ++i) {
    std::string dsp = usp + "/0000:a2:0" + std::to_string(i) + ".0";
    WritePci(t, dsp, bridge_vendor, "0x060400", {kGen5, 16, kGen5, 16});
    WritePci(t, dsp + "/0000:a" + std::to_string(3 + i) + ":00.0", "0x10de", "0x030200",
             {kGen5, 16, kGen5, 16});
  }
}

TEST(PcieLinksTest, PassesOnHealthyNode) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu", Expect(8, 8));
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "0000:41:00.0") {
      noted = true;
      EXPECT_EQ(v, "GPU 32.0 GT/s (Gen5) x16 of 32.0 GT/s (Gen5) x16");
    }
  }
  EXPECT_TRUE(noted);
}

TEST(PcieLinksTest, NoFalseFindingsWhereLinksAreHealthy) {
  for (const char* c : {"healthy-8gpu", "h100-misconfigured", "container-topo-missing"}) {
    CheckResult r = RunOnFixture(kId, c, Expect(8, 8));
    EXPECT_OUTCOME(r, Outcome::kPass) << c;
  }
  // The Grace VM: one GPU and one NIC passed through, numa_node -1.
  CheckResult r = RunOnFixture(kId, "grace-vm-smmu", Expect(1, 1));
  EXPECT_OUTCOME(r, Outcome::kPass);
}

TEST(PcieLinksTest, FailsOnGpu3DowntrainedToX8) {
  CheckResult r = RunOnFixture(kId, "downtrained-link", Expect(8, 8));
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-PCI-001");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.entity, "0000:41:00.0");
  EXPECT_NE(f.message.find("x8"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("x16"), std::string::npos) << f.message;
  EXPECT_EQ(EvidenceValue(f, "0000:41:00.0/current_link_width"), "8");
  EXPECT_EQ(EvidenceValue(f, "0000:41:00.0/max_link_width"), "16");
  EXPECT_EQ(EvidenceValue(f, "(upstream port)"), "16");  // the slot is x16: a downtrain
  for (const char* want :
       {"reseat", "riser", "bifurcation", "lspci -vv", "LnkSta", "nvidia-smi -q -i "}) {
    EXPECT_NE(f.fix.find(want), std::string::npos) << want << " in " << f.fix;
  }
}

TEST(PcieLinksTest, SpeedBelowMaximumWarnsAndSaysItMattersOnlyUnderLoad) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/bus/pci/devices/0000:21:00.0/current_link_speed", std::string(kGen4) + "\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-PCI-002");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->entity, "0000:21:00.0");
  EXPECT_NE(f->message.find("idle"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("under load"), std::string::npos) << f->message;
  EXPECT_EQ(EvidenceValue(*f, "current_link_speed"), "16.0 GT/s (Gen4)");
  EXPECT_EQ(EvidenceValue(*f, "0000:21:00.0/max_link_speed"), "32.0 GT/s (Gen5)");
  EXPECT_NE(f->fix.find("BIOS"), std::string::npos);
  EXPECT_FALSE(HasFinding(r, "YS-PCI-001"));
}

TEST(PcieLinksTest, IdleGpuAtGen1IsNotedNotFlagged) {
  TempHost t("healthy-8gpu");
  for (const char* bdf : {"0000:11:00.0", "0000:21:00.0"}) {
    t.Write(std::string("/sys/bus/pci/devices/") + bdf + "/current_link_speed", "2.5 GT/s PCIe\n");
  }
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence)
    noted |= k == "0000:21:00.0 link speed" && v.find("idle") != std::string::npos;
  EXPECT_TRUE(noted);
  // A NIC at Gen1 is not in a GPU idle state: still a finding.
  t.Write("/sys/bus/pci/devices/0000:12:00.0/current_link_speed", "2.5 GT/s PCIe\n");
  EXPECT_TRUE(HasFinding(t.Run(kId), "YS-PCI-002"));
}

TEST(PcieLinksTest, NicWidthIsCheckedToo) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/bus/pci/devices/0000:52:00.0/current_link_width", "4\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-PCI-001");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "0000:52:00.0");
  EXPECT_NE(f->message.find("NIC"), std::string::npos);
  EXPECT_NE(f->fix.find("mlxlink"), std::string::npos);
}

TEST(PcieLinksTest, NvSwitchLinkIsChecked) {
  TempHost t;
  WritePci(t, "/sys/devices/pci0000:a0/0000:a0:01.0", "0x8086", "0x060400", {kGen4, 16, kGen4, 16});
  WritePci(t, "/sys/devices/pci0000:a0/0000:a0:01.0/0000:a1:00.0", "0x10de", "0x068000",
           {kGen4, 1, kGen4, 2});
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-PCI-001");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "0000:a1:00.0");
  EXPECT_NE(f->message.find("NVSwitch"), std::string::npos);
}

TEST(PcieLinksTest, SwitchUplinkNarrowerThanTheGpusIsFlaggedOnce) {
  TempHost t;
  WriteSwitchTree(t, {kGen5, 8, kGen5, 16});
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-PCI-001");
  EXPECT_EQ(f.entity, "0000:a1:00.0");  // the upstream port, not the root port (same link)
  EXPECT_NE(f.message.find("downtrained"), std::string::npos) << f.message;
  // Both GPUs below are named; the second joins the first finding.
  EXPECT_NE(f.message.find("0000:a3:00.0"), std::string::npos);
  EXPECT_EQ(EvidenceValue(f, "also below this bridge"), "0000:a4:00.0");
}

TEST(PcieLinksTest, SwitchCappedByItsOwnCapabilityAndSlowerUplink) {
  TempHost t;
  WriteSwitchTree(t, {kGen4, 8, kGen4, 8});
  CheckResult r = t.Run(kId);
  const Finding* w = FindFinding(r, "YS-PCI-001");
  ASSERT_NE(w, nullptr) << testing::Describe(r);
  EXPECT_NE(w->message.find("supports only x8"), std::string::npos) << w->message;
  EXPECT_NE(w->fix.find("slot"), std::string::npos);
  const Finding* s = FindFinding(r, "YS-PCI-002");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->entity, "0000:a1:00.0");
  EXPECT_NE(s->message.find("Gen4"), std::string::npos);
  EXPECT_NE(s->message.find("idle"), std::string::npos);
}

TEST(PcieLinksTest, EmulatedBridgesAreNotCompared) {
  {
    TempHost t;  // QEMU's pcie-root-port / switch ports (vendor 0x1b36)
    WriteSwitchTree(t, {kGen4, 8, kGen4, 32}, "0x1b36");
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kPass);
  }
  {
    TempHost t;  // any bridge, in a guest
    WriteSwitchTree(t, {kGen4, 8, kGen4, 8});
    t.Write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sse2 hypervisor avx2\n\n");
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kPass);
    bool noted = false;
    for (const auto& [k, v] : r.evidence)
      noted |= k == "bridges" && v.find("virtual machine") != std::string::npos;
    EXPECT_TRUE(noted);
  }
}

TEST(PcieLinksTest, AerErrorsOnDeviceOrRootPortWarn) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/bus/pci/devices/0000:31:00.0/aer_dev_correctable",
          "RxErr 5\nBadTLP 2\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
          "HeaderOF 0\nTOTAL_ERR_COR 7\n");
  t.Write("/sys/bus/pci/devices/0000:70:01.0/aer_dev_fatal",
          "Undefined 0\nDLP 1\nTOTAL_ERR_FATAL 1\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 2u) << testing::Describe(r);
  const Finding& gpu = r.findings[0].entity == "0000:31:00.0" ? r.findings[0] : r.findings[1];
  const Finding& port = r.findings[0].entity == "0000:31:00.0" ? r.findings[1] : r.findings[0];
  EXPECT_EQ(gpu.code, "YS-PCI-003");
  EXPECT_EQ(gpu.entity, "0000:31:00.0");
  EXPECT_NE(gpu.message.find("7 correctable"), std::string::npos) << gpu.message;
  EXPECT_NE(gpu.message.find("since boot"), std::string::npos);
  EXPECT_EQ(EvidenceValue(gpu, "aer_dev_correctable"), "TOTAL 7, RxErr 5, BadTLP 2");
  EXPECT_EQ(port.code, "YS-PCI-003");
  EXPECT_EQ(port.entity, "0000:70:01.0");
  EXPECT_NE(port.message.find("1 fatal"), std::string::npos) << port.message;
}

TEST(PcieLinksTest, AerInTheNewerAerDirectoryLayout) {
  TempHost t("healthy-8gpu");
  const std::string d = "/sys/bus/pci/devices/0000:11:00.0";
  t.Remove(d + "/aer_dev_correctable");
  t.Write(d + "/aer/dev_correctable", "RxErr 3\nTOTAL_ERR_COR 3\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-PCI-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "0000:11:00.0");
  EXPECT_EQ(EvidenceValue(*f, "/aer/dev_correctable"), "TOTAL 3, RxErr 3");
}

TEST(PcieLinksTest, GpuAndNicCountsAgainstSiteExpectations) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu", Expect(4, 6));
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* g = FindFinding(r, "YS-PCI-004");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->entity, "node");
  EXPECT_NE(g->message.find("8 NVIDIA GPUs"), std::string::npos) << g->message;
  EXPECT_EQ(EvidenceValue(*g, "site.devices.gpus"), "4");
  const Finding* n = FindFinding(r, "YS-PCI-005");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->message.find("/sys/class/infiniband"), std::string::npos) << n->message;
  EXPECT_EQ(EvidenceValue(*n, "physical functions"), "8");

  // The NICs are on the bus but no RDMA device exists (driver not loaded).
  TempHost t("healthy-8gpu");
  t.Remove("/sys/class/infiniband");
  r = t.Run(kId, Expect(8, 8));
  n = FindFinding(r, "YS-PCI-005");
  ASSERT_NE(n, nullptr) << testing::Describe(r);
  EXPECT_EQ(EvidenceValue(*n, "physical functions"), "0");
  EXPECT_EQ(EvidenceValue(*n, "NIC PCI functions"), "8");
  EXPECT_FALSE(HasFinding(r, "YS-PCI-004"));
}

TEST(PcieLinksTest, SkipsWithoutGpusOrNicsAndWithoutPciSysfs) {
  TempHost t;  // a virtio-only VM like the sample: no link files
  for (const char* d : {"0000:00:03.0", "0000:00:04.0"}) {
    std::string dir = std::string("/sys/devices/pci0000:00/") + d;
    t.Write(dir + "/vendor", "0x1af4\n");
    t.Write(dir + "/device", "0x1041\n");
    t.Write(dir + "/class", "0x020000\n");
    t.Write(dir + "/numa_node", "-1\n");
    t.Symlink(std::string("/sys/bus/pci/devices/") + d,
              std::string("../../../devices/pci0000:00/") + d);
  }
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("no NVIDIA GPU"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("2 PCI functions"), std::string::npos) << r.summary;

  // Expecting GPUs where there are none is a failure, not a skip.
  r = t.Run(kId, Expect(8, 0));
  EXPECT_OUTCOME(r, Outcome::kFail);
  EXPECT_TRUE(HasFinding(r, "YS-PCI-004"));

  TempHost empty;
  r = empty.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("/sys/bus/pci/devices"), std::string::npos) << r.summary;
}

// An empty AER counter file records no counts: that kind is not judged, and it is no error.
TEST(PcieLinksTest, EmptyAerFilesAreNotJudged) {
  for (const char* file : {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"}) {
    for (const char* dev :
         {"/sys/bus/pci/devices/0000:41:00.0/", "/sys/bus/pci/devices/0000:40:01.0/"}) {
      TempHost t("healthy-8gpu");
      t.Write(std::string(dev) + file, "");
      CheckResult r = t.Run(kId);
      EXPECT_OUTCOME(r, Outcome::kPass);
      EXPECT_FALSE(HasFinding(r, "YS-PCI-003")) << dev << file;
    }
  }
}

// An empty link width (a read the kernel refused) is an unknown width, as an empty speed is.
TEST(PcieLinksTest, EmptyLinkWidthIsUnknownNotAnError) {
  for (const char* file : {"current_link_width", "max_link_width"}) {
    TempHost t("healthy-8gpu");
    t.Write(std::string("/sys/bus/pci/devices/0000:41:00.0/") + file, "");
    CheckResult r = t.Run(kId);
    EXPECT_NE(r.outcome, Outcome::kError) << file << ": " << testing::Describe(r);
    EXPECT_FALSE(HasFinding(r, "YS-PCI-001")) << file << ": " << testing::Describe(r);
  }
}

// A function whose vendor or class file is empty cannot be identified: noted and left out, and
// the device counts are not judged (it may be a GPU). Not an error.
TEST(PcieLinksTest, EmptyIdentityFilesLeaveTheFunctionUnidentified) {
  for (const char* file : {"vendor", "class"}) {
    for (const char* dev : {"0000:40:01.0", "0000:41:00.0"}) {
      TempHost t("healthy-8gpu");
      t.Write(std::string("/sys/bus/pci/devices/") + dev + "/" + file, "");
      checks::SiteExpectations want;
      want.devices.gpus = 8;
      CheckResult r = t.Run(kId, want);
      EXPECT_NE(r.outcome, Outcome::kError) << dev << file << ": " << testing::Describe(r);
      EXPECT_FALSE(HasFinding(r, "YS-PCI-004")) << testing::Describe(r);
    }
  }
}

TEST(PcieLinksTest, MalformedFilesGiveErrorsWithThePath) {
  struct Case {
    const char* path;
    const char* content;
  };
  const std::string gpu = "/sys/bus/pci/devices/0000:41:00.0/";
  const std::string port = "/sys/bus/pci/devices/0000:40:01.0/";
  for (const Case& c : std::initializer_list<Case>{
           {"current_link_width", "garbage\n"},
           {"current_link_width", "99\n"},
           {"max_link_speed", "fast\n"},
           {"vendor", "nvidia\n"},
           {"aer_dev_correctable", "RxErr 0\nBadTLP 0\nBadDL"},  // truncated
           {"aer_dev_nonfatal", "Undefined 0\nTOTAL_ERR_NONFATAL 99999999999999999999999\n"},
           {"aer_dev_fatal", "garbage"}}) {
    for (const std::string& dev : {gpu, port}) {
      TempHost t("healthy-8gpu");
      t.Write(dev + c.path, c.content);
      CheckResult r = t.Run(kId);
      EXPECT_OUTCOME(r, Outcome::kError) << dev << c.path << " = " << c.content;
      EXPECT_NE(r.summary.find(dev.substr(21) + c.path), std::string::npos) << r.summary;
    }
  }
}

TEST(PcieLinksTest, OddFilesOfAnUnrelatedDeviceDoNotHideTheGpus) {
  TempHost t("healthy-8gpu");
  // An NVMe drive with a width no link has: not a device checked here.
  WritePci(t, "/sys/devices/pci0000:05/0000:05:00.0", "0x144d", "0x010802",
           {"Unknown", 99, kGen4, 99});
  CheckResult r = t.Run(kId, Expect(8, 8));
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence)
    noted |= k == "unreadable 0000:05:00.0" && v.find("current_link_width") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A GPU in D3cold: speed "Unknown", width 0, and its port's capability read as all ones
// (63) or PCIE_LNK_WIDTH_UNKNOWN (255). Nothing is known of the link: no finding, no error.
TEST(PcieLinksTest, UnknownLinkOfASleepingGpuIsNoFinding) {
  for (int port_width : {63, 255}) {
    TempHost t("healthy-8gpu");
    const std::string gpu = "/sys/bus/pci/devices/0000:41:00.0/";
    const std::string port = "/sys/bus/pci/devices/0000:40:01.0/";
    t.Write(gpu + "current_link_speed", port_width == 63 ? "Unknown\n" : "");  // empty: unread
    t.Write(gpu + "current_link_width", "0\n");
    t.Write(port + "max_link_width", std::to_string(port_width) + "\n");
    t.Write(port + "current_link_width", std::to_string(port_width) + "\n");
    t.Write(port + "current_link_speed", "Unknown\n");
    CheckResult r = t.Run(kId, Expect(8, 8));
    EXPECT_OUTCOME(r, Outcome::kPass) << port_width;
    EXPECT_TRUE(r.findings.empty()) << testing::Describe(r);
  }
}

TEST(PcieLinksTest, EnormousFileIsRefusedNotRead) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/bus/pci/devices/0000:41:00.0/aer_dev_correctable",
          std::string(host::Host::kMaxFileBytes + 10, '1'));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("aer_dev_correctable"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("limit"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace pcie_links_test
}  // namespace ys
