#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "testing/check_test_util.h"
#include "testing/gzip.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace iommu_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "virt.iommu";
constexpr const char* kGraceConfig = "/boot/config-6.8.0-1013-nvidia";
constexpr const char* kGpuGroupType = "/sys/kernel/iommu_groups/20/type";  // GPU 0 on x86

std::string EvidenceOf(const CheckResult& r, std::string_view key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

// A Grace VM whose CMDQV path works and whose kernel uses 64K pages.
void MakeGraceHealthy(TempHost& t) {
  t.Write(kGraceConfig,
          "CONFIG_ARM_SMMU_V3=y\nCONFIG_TEGRA241_CMDQV=y\nCONFIG_ARM64_64K_PAGES=y\n");
  t.Write("/dev/kmsg",
          "6,336,5139412,-;arm-smmu-v3 arm-smmu-v3.0.auto: option mask 0x0\n"
          "6,337,5139500,-;arm-smmu-v3 arm-smmu-v3.0.auto: found companion CMDQV device: "
          "NVDA200C:00\n");
  t.Write("/proc/interrupts",
          "           CPU0       CPU1\n"
          " 34:          0          0  GICv3 106 Edge      arm-smmu-v3-evtq\n"
          " 38:       1203        877  GICv3 124 Level     tegra241-cmdqv\n");
  t.Write("/proc/self/smaps",
          "ffff8a000000-ffff8a010000 rw-p 00000000 00:00 0\nKernelPageSize:       64 kB\n");
}

TEST(VirtIommuTest, PassesOnHealthyBareMetalX86) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(EvidenceOf(r, "arch"), "x86_64");
  EXPECT_EQ(EvidenceOf(r, "virtualization").rfind("bare metal", 0), 0u)
      << EvidenceOf(r, "virtualization");
  EXPECT_EQ(EvidenceOf(r, "/sys/class/dmi/id/product_name"), "SYS-821GE-TNHR");
  EXPECT_NE(EvidenceOf(r, "iommu.units").find("dmar0"), std::string::npos);
  EXPECT_NE(EvidenceOf(r, "iommu.cmdline").find("iommu=pt"), std::string::npos);
  EXPECT_NE(EvidenceOf(r, "iommu.domains").find("GPU 0000:11:00.0: identity"), std::string::npos);
  EXPECT_NE(EvidenceOf(r, "page_size").find("4 kB"), std::string::npos);
  EXPECT_NE(EvidenceOf(r, "grace").find("not applicable: x86_64"), std::string::npos);
}

TEST(VirtIommuTest, NoFalseFindingsOnTheOtherX86Fixtures) {
  for (const char* fixture : {"h100-misconfigured", "container-topo-missing", "downtrained-link"}) {
    CheckResult r = RunOnFixture(kId, fixture);
    EXPECT_OUTCOME(r, Outcome::kPass);
    EXPECT_TRUE(r.findings.empty()) << fixture;
  }
}

TEST(VirtIommuTest, GraceVmWithoutCmdqvAndWith4kPages) {
  CheckResult r = RunOnFixture(kId, "grace-vm-smmu");
  EXPECT_OUTCOME(r, Outcome::kFail);
  EXPECT_EQ(r.findings.size(), 2u) << testing::Describe(r);
  const Finding* f = FindFinding(r, "YS-VIRT-002");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kFail);
  EXPECT_NE(f->message.find("CONFIG_TEGRA241_CMDQV"), std::string::npos) << f->message;
  bool config_evidence = false;
  for (const auto& [k, v] : f->evidence) {
    if (k == kGraceConfig) config_evidence = v == "# CONFIG_TEGRA241_CMDQV is not set";
  }
  EXPECT_TRUE(config_evidence);
  EXPECT_NE(f->fix.find("CONFIG_TEGRA241_CMDQV=y"), std::string::npos);
  EXPECT_NE(f->fix.find("VCMDQ"), std::string::npos);  // a VM: the hypervisor's part
  EXPECT_NE(f->expected_recovery.find("24%"), std::string::npos);
  EXPECT_NE(f->expected_recovery.find("12%"), std::string::npos);
  const Finding* pages = FindFinding(r, "YS-VIRT-004");
  ASSERT_NE(pages, nullptr);
  EXPECT_NE(pages->fix.find("64K"), std::string::npos);
  // A VM: the guest's translated domains are evidence, not YS-VIRT-001.
  EXPECT_FALSE(HasFinding(r, "YS-VIRT-001"));
  EXPECT_FALSE(HasFinding(r, "YS-VIRT-003"));
  EXPECT_EQ(EvidenceOf(r, "arch"), "aarch64");
  EXPECT_EQ(EvidenceOf(r, "virtualization").rfind("kvm guest", 0), 0u)
      << EvidenceOf(r, "virtualization");
  EXPECT_NE(EvidenceOf(r, "iommu.units").find("smmu3.0x0000000016000000"), std::string::npos);
  EXPECT_NE(EvidenceOf(r, "iommu.domains").find("DMA-FQ"), std::string::npos);
  EXPECT_NE(EvidenceOf(r, "cmdqv.acpi").find("NVDA200C:00"), std::string::npos);
  EXPECT_EQ(EvidenceOf(r, "cmdqv.interrupt"), "no tegra241-cmdqv interrupt");
  EXPECT_NE(EvidenceOf(r, "iommu.policy").find("VM"), std::string::npos);
  EXPECT_EQ(EvidenceOf(r, "kernel_config.page_size"), "CONFIG_ARM64_4K_PAGES=y");
}

TEST(VirtIommuTest, GraceWithActiveCmdqvAnd64kPagesPasses) {
  TempHost t("grace-vm-smmu");
  MakeGraceHealthy(t);
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceOf(r, "grace.cmdqv"), "active");
  EXPECT_NE(EvidenceOf(r, "page_size").find("64 kB"), std::string::npos);
}

TEST(VirtIommuTest, CmdqvDisabledByParameterIsVirt003) {
  TempHost t("grace-vm-smmu");
  MakeGraceHealthy(t);
  t.Write("/dev/kmsg",
          "6,336,5139412,-;arm-smmu-v3 arm-smmu-v3.0.auto: Detected disable_cmdqv=true\n");
  t.Write("/proc/interrupts",
          "           CPU0\n 34:          0  GICv3 106 Edge      arm-smmu-v3-evtq\n");
  t.Write("/sys/module/arm_smmu_v3/parameters/disable_cmdqv", "Y\n");
  t.Write("/sys/module/arm_smmu_v3/parameters/bypass_vcmdq", "N\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = FindFinding(r, "YS-VIRT-003");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(HasFinding(r, "YS-VIRT-002"));
  EXPECT_EQ(f->evidence.front().first, "/sys/module/arm_smmu_v3/parameters/disable_cmdqv");
  EXPECT_EQ(f->evidence.front().second, "Y");
}

TEST(VirtIommuTest, FallbackLineInTheKernelLogIsVirt002) {
  TempHost t("grace-vm-smmu");
  MakeGraceHealthy(t);
  t.Write("/dev/kmsg",
          "6,336,5139412,-;arm-smmu-v3 arm-smmu-v3.0.auto: option mask 0x0\n"
          "4,337,5139500,-;arm-smmu-v3 arm-smmu-v3.0.auto: tegra241_cmdqv: Falling back to "
          "standard SMMU CMDQ\n");
  t.Write("/proc/interrupts",
          "           CPU0\n 34:          0  GICv3 106 Edge      arm-smmu-v3-evtq\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-VIRT-002");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("fell back"), std::string::npos) << f->message;
}

TEST(VirtIommuTest, HypervisorWithoutVcmdqIsVirt002AndIdentityDomainsSoftenIt) {
  TempHost t("grace-vm-smmu");
  MakeGraceHealthy(t);
  t.Write("/dev/kmsg", "6,336,5139412,-;arm-smmu-v3 arm-smmu-v3.0.auto: option mask 0x0\n");
  t.Write("/proc/interrupts",
          "           CPU0\n 34:          0  GICv3 106 Edge      arm-smmu-v3-evtq\n");
  t.Remove("/sys/bus/acpi/devices/NVDA200C:00");
  t.Write("/sys/devices/soc0/soc_id", "jep106:036b:0241\n");  // still a Grace
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-VIRT-002");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("hypervisor does not expose VCMDQ"), std::string::npos) << f->message;
  EXPECT_EQ(f->severity, Severity::kFail);
  t.Write("/sys/kernel/iommu_groups/3/type", "identity\n");
  t.Write("/sys/kernel/iommu_groups/4/type", "identity\n");
  r = t.Run(kId);
  f = FindFinding(r, "YS-VIRT-002");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarn);
}

TEST(VirtIommuTest, ReadsGzippedProcConfig) {
  TempHost t("grace-vm-smmu");
  MakeGraceHealthy(t);
  t.Remove(kGraceConfig);
  t.Write("/proc/config.gz",
          testing::Gzip("# CONFIG_TEGRA241_CMDQV is not set\nCONFIG_ARM64_4K_PAGES=y\n"));
  t.Remove("/proc/interrupts");
  t.Remove("/dev/kmsg");
  t.Remove("/proc/self/smaps");  // page size from the config alone
  t.Remove("/proc/self/numa_maps");
  CheckResult r = t.Run(kId);
  EXPECT_EQ(EvidenceOf(r, "kernel_config"), "/proc/config.gz");
  EXPECT_TRUE(HasFinding(r, "YS-VIRT-002")) << testing::Describe(r);
  EXPECT_TRUE(HasFinding(r, "YS-VIRT-004"));
}

TEST(VirtIommuTest, CorruptConfigGzIsAnErrorNamingIt) {
  TempHost t("grace-vm-smmu");
  std::string gz = testing::Gzip("CONFIG_ARM64_4K_PAGES=y\n");
  t.Write("/proc/config.gz", gz.substr(0, gz.size() / 2));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("/proc/config.gz"), std::string::npos) << r.summary;
}

TEST(VirtIommuTest, NonGraceArmAndX86NeverGetGraceFindings) {
  TempHost arm("grace-vm-smmu");
  arm.Remove("/sys/bus/acpi/devices/NVDA200C:00");
  std::string cpuinfo = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n";
  arm.Write("/proc/cpuinfo", cpuinfo);
  CheckResult r = arm.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(EvidenceOf(r, "grace").find("no Grace signal"), std::string::npos);

  TempHost x86("healthy-8gpu");
  x86.Write("/dev/kmsg", "4,1,1,-;arm-smmu-v3 x: Falling back to standard SMMU CMDQ\n");
  x86.Write("/boot/config-6.8.0-60-generic",
            "CONFIG_X86_64=y\n# CONFIG_TEGRA241_CMDQV is not set\n");
  x86.Write("/sys/module/arm_smmu_v3/parameters/disable_cmdqv", "Y\n");
  r = x86.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
}

TEST(VirtIommuTest, TranslatedGpuOnBareMetalIsVirt001UnderPolicy) {
  TempHost t("healthy-8gpu");
  t.Write(kGpuGroupType, "DMA-FQ\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-VIRT-001");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->entity, "0000:11:00.0");
  EXPECT_EQ(f->evidence.front().second, "DMA-FQ");
  EXPECT_NE(f->fix.find("iommu=pt"), std::string::npos);
  EXPECT_FALSE(HasFinding(r, "YS-VIRT-005"));  // lazy

  checks::SiteExpectations any;
  any.params.Set("virt.iommu.passthrough", "iommu_passthrough", checks::Policy::kAny);
  EXPECT_FALSE(HasFinding(t.Run(kId, any), "YS-VIRT-001"));

  t.Write(kGpuGroupType, "DMA\n");  // strict
  r = t.Run(kId);
  EXPECT_TRUE(HasFinding(r, "YS-VIRT-001"));
  EXPECT_TRUE(HasFinding(r, "YS-VIRT-005"));
}

TEST(VirtIommuTest, TranslatedGpuInAVmIsEvidenceOnly) {
  TempHost t("healthy-8gpu");
  t.Write(kGpuGroupType, "DMA-FQ\n");
  t.Write("/sys/devices/virtual/dmi/id/sys_vendor", "Microsoft Corporation\n");
  t.Write("/sys/devices/virtual/dmi/id/product_name", "Virtual Machine\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceOf(r, "virtualization").rfind("microsoft guest", 0), 0u)
      << EvidenceOf(r, "virtualization");
}

TEST(VirtIommuTest, StrictCmdlineIsVirt005OnlyWhenSomethingIsTranslated) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz root=UUID=3c1f ro iommu.strict=1\n");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-VIRT-005"));  // every GPU/NIC identity
  t.Write(kGpuGroupType, "DMA-FQ\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-VIRT-005");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("iommu.strict=1"), std::string::npos);
}

// An empty group type file leaves the domain type unknown, as on a kernel before 5.11: it is
// neither an error nor a translated domain.
TEST(VirtIommuTest, EmptyGroupTypeIsUnknownNotAnError) {
  TempHost t("healthy-8gpu");
  for (const char* empty : {"", "\n"}) {
    t.Write(kGpuGroupType, empty);
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kPass);
    EXPECT_FALSE(HasFinding(r, "YS-VIRT-001"));
    bool noted = false;
    for (const auto& [k, v] : r.evidence)
      noted |= v.find("type unknown (empty type file)") != std::string::npos;
    EXPECT_TRUE(noted) << testing::Describe(r);
  }
}

// An empty /proc/cpuinfo tells neither architecture nor hypervisor flag: noted, not an error.
TEST(VirtIommuTest, EmptyCpuinfoIsUnknownNotAnError) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/cpuinfo", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceOf(r, "/proc/cpuinfo"), "empty file: architecture and hypervisor flag unknown");
}

TEST(VirtIommuTest, SkipsWithoutAHostTree) {
  TempHost t;
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
}

TEST(VirtIommuTest, MalformedFilesGiveErrorsWithThePath) {
  struct Case {
    const char* fixture;
    const char* path;
    std::string content;
  };
  const Case cases[] = {
      {"healthy-8gpu", kGpuGroupType, "translated\n"},
      {"healthy-8gpu", "/proc/cpuinfo", "garbage"},
      {"healthy-8gpu", "/proc/self/smaps", "garbage line\n"},
      {"healthy-8gpu", "/proc/self/smaps", "7f00-7f10 rw-p 00000000 00:00 0\nKernelPageSize:\n"},
      {"healthy-8gpu", "/proc/self/smaps", "KernelPageSize: 99999999999999999999999 kB\n"},
      {"grace-vm-smmu", kGraceConfig, "this is not a kernel config\n"},
      {"grace-vm-smmu", kGraceConfig, ""},
      {"grace-vm-smmu", "/sys/module/arm_smmu_v3/parameters/disable_msipolling", "N\n"},  // control
      {"grace-vm-smmu", "/sys/module/arm_smmu_v3/parameters/disable_cmdqv", "maybe\n"},
      {"grace-vm-smmu", "/proc/config.gz", "not gzip at all, just text"},
  };
  TempHost grace("grace-vm-smmu"), healthy("healthy-8gpu");
  for (const auto& c : cases) {
    TempHost& t = std::string_view(c.fixture) == "healthy-8gpu" ? healthy : grace;
    CheckResult r = testing::RunWithFileReplaced(t, kId, c.path, c.content);
    if (std::string_view(c.path).find("disable_msipolling") != std::string_view::npos) {
      EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
      continue;
    }
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find(c.path), std::string::npos) << c.path << ": " << r.summary;
  }
  EXPECT_OUTCOME(healthy.Run(kId), Outcome::kPass);  // everything restored
  EXPECT_EQ(grace.Run(kId).findings.size(), 2u);
}

TEST(VirtIommuTest, EnormousSmapsIsRefusedNotRead) {
  TempHost t("healthy-8gpu");
  t.Write("/proc/self/smaps", std::string(host::Host::kMaxFileBytes + 10, 'x'));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("limit"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace iommu_test
}  // namespace ys
