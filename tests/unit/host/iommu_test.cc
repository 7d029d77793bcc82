#include "host/iommu.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

TEST(IommuDomainTypeTest, KernelSpellings) {
  EXPECT_EQ(*ParseIommuDomainType("identity\n"), IommuDomainType::kIdentity);
  EXPECT_EQ(*ParseIommuDomainType("DMA"), IommuDomainType::kDma);
  EXPECT_EQ(*ParseIommuDomainType("DMA-FQ\n"), IommuDomainType::kDmaFq);
  EXPECT_EQ(*ParseIommuDomainType("blocked"), IommuDomainType::kBlocked);
  EXPECT_EQ(*ParseIommuDomainType("unmanaged"), IommuDomainType::kUnmanaged);
  EXPECT_TRUE(IsTranslated(IommuDomainType::kDmaFq));
  EXPECT_FALSE(IsTranslated(IommuDomainType::kIdentity));
  const std::string huge(5000, 'x');
  for (const char* bad : {"", "dma", "auto", "DMA-FQ-X", "identity identity", huge.c_str()}) {
    EXPECT_FALSE(ParseIommuDomainType(bad).ok()) << bad;
  }
}

TEST(IommuCmdlineTest, PassthroughStrictAndOff) {
  auto c = ParseIommuCmdline(KernelCmdline::Parse("ro quiet iommu=pt intel_iommu=on"));
  EXPECT_EQ(c.passthrough, true);
  EXPECT_EQ(c.passthrough_token, "iommu=pt");
  EXPECT_FALSE(c.strict);
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.tokens.size(), 2u);

  c = ParseIommuCmdline(KernelCmdline::Parse("iommu.passthrough=0 iommu.strict=1"));
  EXPECT_EQ(c.passthrough, false);
  EXPECT_TRUE(c.strict);
  EXPECT_EQ(c.strict_token, "iommu.strict=1");

  c = ParseIommuCmdline(
      KernelCmdline::Parse("iommu.passthrough=on intel_iommu=on,strict amd_iommu=off"));
  EXPECT_EQ(c.passthrough, true);
  EXPECT_TRUE(c.strict);
  EXPECT_TRUE(c.disabled);
  EXPECT_EQ(c.disabled_token, "amd_iommu=off");

  c = ParseIommuCmdline(
      KernelCmdline::Parse("iommu.strict=0 amd_iommu=fullflush -- iommu.strict=1"));
  EXPECT_TRUE(c.strict);  // fullflush; the token after "--" belongs to init
  EXPECT_EQ(c.strict_token, "amd_iommu=fullflush");

  c = ParseIommuCmdline(KernelCmdline::Parse("iommu.passthrough=maybe iommu_foo=1"));
  EXPECT_FALSE(c.passthrough.has_value());
  EXPECT_EQ(c.tokens.size(), 1u);
}

TEST(ModuleBoolTest, Values) {
  EXPECT_TRUE(*ParseModuleBool("Y\n"));
  EXPECT_FALSE(*ParseModuleBool("N"));
  EXPECT_TRUE(*ParseModuleBool("1"));
  for (const char* bad : {"", "yes", "maybe", "2"}) EXPECT_FALSE(ParseModuleBool(bad).ok()) << bad;
}

TEST(SmmuLogTest, CmdqvLines) {
  auto log = ParseKernelLog(
      "6,1,1,-;arm-smmu-v3 arm-smmu-v3.0.auto: option mask 0x0\n"
      "6,2,2,-;arm-smmu-v3 arm-smmu-v3.0.auto: found companion CMDQV device: NVDA200C:00\n"
      "6,3,3,-;pci 0009:01:00.0: Adding to iommu group 3\n"
      "[    5.1] arm-smmu-v3 arm-smmu-v3.1.auto: tegra241_cmdqv: Falling back to standard SMMU "
      "CMDQ\n"
      "4,5,5,-;arm-smmu-v3 arm-smmu-v3.2.auto: tegra241_cmdqv: Detected disable_cmdqv=true\n");
  SmmuLogFacts f = ScanSmmuLog(log);
  EXPECT_EQ(f.smmu_lines.size(), 4u);
  ASSERT_TRUE(f.cmdqv_found.has_value());
  EXPECT_NE(f.cmdqv_found->find("NVDA200C:00"), std::string::npos);
  EXPECT_TRUE(f.cmdqv_fallback.has_value());
  EXPECT_TRUE(f.cmdqv_disabled.has_value());
  EXPECT_TRUE(ScanSmmuLog({}).smmu_lines.empty());
}

TEST(ReadDeviceIommuTest, LinkTypeAndMalformed) {
  TempHost t;
  t.Write("/sys/bus/pci/devices/0000:11:00.0/vendor", "0x10de\n");
  auto none = ReadDeviceIommu(t.Host(), "0000:11:00.0");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->group.has_value());

  t.Write("/sys/kernel/iommu_groups/7/type", "DMA-FQ\n");
  t.Symlink("/sys/bus/pci/devices/0000:11:00.0/iommu_group", "../../../../kernel/iommu_groups/7");
  auto d = ReadDeviceIommu(t.Host(), "0000:11:00.0");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->group, 7);
  EXPECT_EQ(d->type, IommuDomainType::kDmaFq);
  EXPECT_EQ(d->type_path, "/sys/kernel/iommu_groups/7/type");

  t.Remove("/sys/kernel/iommu_groups/7/type");  // kernel before 5.11
  d = ReadDeviceIommu(t.Host(), "0000:11:00.0");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->type.has_value());

  t.Write("/sys/kernel/iommu_groups/7/type", "");  // a copy that could not read it
  d = ReadDeviceIommu(t.Host(), "0000:11:00.0");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->type.has_value());

  t.Write("/sys/kernel/iommu_groups/7/type", "sideways\n");
  d = ReadDeviceIommu(t.Host(), "0000:11:00.0");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("iommu_groups/7/type"), std::string::npos);

  t.Symlink("/sys/bus/pci/devices/0000:11:00.0/iommu_group",
            "../../../../kernel/iommu_groups/seven");
  d = ReadDeviceIommu(t.Host(), "0000:11:00.0");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("iommu_group"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
