#include "host/virt.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

TEST(HypervisorFromDmiTest, SystemdPrefixes) {
  EXPECT_EQ(HypervisorFromDmi("QEMU"), "qemu");
  EXPECT_EQ(HypervisorFromDmi("KVM Virtual Machine"), "kvm");
  EXPECT_EQ(HypervisorFromDmi("VMware, Inc."), "vmware");
  EXPECT_EQ(HypervisorFromDmi("Amazon EC2"), "amazon");
  EXPECT_EQ(HypervisorFromDmi("Google Compute Engine"), "google");
  EXPECT_EQ(HypervisorFromDmi("innotek GmbH"), "oracle");
  EXPECT_EQ(HypervisorFromDmi("Xen\n"), "xen");
  EXPECT_FALSE(HypervisorFromDmi("Supermicro").has_value());
  EXPECT_FALSE(HypervisorFromDmi("Oracle Corporation").has_value());  // also bare metal
  EXPECT_FALSE(HypervisorFromDmi("").has_value());
  EXPECT_FALSE(HypervisorFromDmi("qemu").has_value());  // prefixes are case-sensitive
}

TEST(CpuArchTest, FromCpuinfoFields) {
  auto x86 = ParseCpuInfo("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t: fpu\n\n");
  ASSERT_TRUE(x86.ok());
  EXPECT_EQ(CpuArchOf(*x86), CpuArch::kX86_64);
  auto arm = ParseCpuInfo("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n\n");
  ASSERT_TRUE(arm.ok());
  EXPECT_EQ(CpuArchOf(*arm), CpuArch::kArm64);
  EXPECT_EQ(CpuArchOf({}), CpuArch::kUnknown);
}

TEST(DetectVirtualizationTest, SignalsFromFiles) {
  TempHost t;
  EXPECT_FALSE(DetectVirtualization(t.Host(), {}).vm);

  t.Write("/sys/class/dmi/id/sys_vendor", "QEMU\n");
  t.Write("/sys/class/dmi/id/product_name", "KVM Virtual Machine\n");
  VirtDetection d = DetectVirtualization(t.Host(), {});
  EXPECT_TRUE(d.vm);
  EXPECT_EQ(d.hypervisor, "kvm");  // product_name is read first, as systemd does
  EXPECT_EQ(d.signals.size(), 2u);
  EXPECT_EQ(d.dmi.size(), 2u);

  TempHost metal;
  metal.Write("/sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
  metal.Write("/sys/class/dmi/id/product_name", "p5.metal\n");
  EXPECT_FALSE(DetectVirtualization(metal.Host(), {}).vm);
  metal.Write("/sys/class/dmi/id/product_name", "p5.48xlarge\n");
  EXPECT_EQ(DetectVirtualization(metal.Host(), {}).hypervisor, "amazon");

  TempHost azure;
  azure.Write("/sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n");
  azure.Write("/sys/class/dmi/id/product_name", "Virtual Machine\n");
  EXPECT_EQ(DetectVirtualization(azure.Host(), {}).hypervisor, "microsoft");

  TempHost flag;
  auto cpus = ParseCpuInfo("processor\t: 0\nflags\t: fpu sse2 hypervisor avx\n\n");
  ASSERT_TRUE(cpus.ok());
  d = DetectVirtualization(flag.Host(), *cpus);
  EXPECT_TRUE(d.vm);
  EXPECT_EQ(d.signals.front().source, "/proc/cpuinfo flags");

  TempHost xen;
  xen.Write("/sys/hypervisor/type", "xen\n");
  EXPECT_EQ(DetectVirtualization(xen.Host(), {}).hypervisor, "xen");

  TempHost dt;
  dt.Write("/proc/device-tree/hypervisor/compatible", std::string("linux,kvm\0", 10));
  d = DetectVirtualization(dt.Host(), {});
  EXPECT_EQ(d.hypervisor, "kvm");
  EXPECT_EQ(d.signals.front().value, "linux,kvm");
}

}  // namespace
}  // namespace ys::host
