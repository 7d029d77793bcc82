#include "host/pci_locality.h"

#include <gtest/gtest.h>

#include <string>

namespace ys::host {
namespace {

// The level between two literal sysfs paths.
std::string Level(const std::string& a, const std::string& b,
                  std::optional<bool> same_node = true) {
  auto pa = ParsePciSysfsPath(a);
  auto pb = ParsePciSysfsPath(b);
  if (!pa.ok()) return "error: " + pa.status().message();
  if (!pb.ok()) return "error: " + pb.status().message();
  return std::string(PciLocalityName(PciPathLocality(*pa, *pb, same_node)));
}

constexpr char kRoot[] = "/sys/devices/pci0000:10";

TEST(PciLocalityTest, ParsesTheComponents) {
  auto p = ParsePciSysfsPath("/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->platform.empty());
  EXPECT_EQ(p->host_bridge, "pci0000:10");
  EXPECT_EQ(p->chain, (std::vector<std::string>{"0000:10:01.0", "0000:11:00.0"}));
}

TEST(PciLocalityTest, SameDeviceIsSelf) {
  std::string g = std::string(kRoot) + "/0000:10:01.0/0000:11:00.0";
  EXPECT_EQ(Level(g, g), "X");
}

TEST(PciLocalityTest, SeparateRootPortsOfOneRootComplexArePhb) {
  // The healthy-8gpu fixture: GPU i and NIC i behind their own root ports of one host bridge.
  EXPECT_EQ(Level(std::string(kRoot) + "/0000:10:01.0/0000:11:00.0",
                  std::string(kRoot) + "/0000:10:02.0/0000:12:00.0"),
            "PHB");
}

TEST(PciLocalityTest, PortsOfOnePcieSwitchArePix) {
  // root port 10:01.0 -> switch upstream 11:00.0 -> downstream 12:00.0 / 12:01.0 -> GPU, NIC.
  std::string sw = std::string(kRoot) + "/0000:10:01.0/0000:11:00.0";
  EXPECT_EQ(Level(sw + "/0000:12:00.0/0000:13:00.0", sw + "/0000:12:01.0/0000:14:00.0"), "PIX");
  // Two functions of one device behind the same port.
  EXPECT_EQ(Level(sw + "/0000:12:00.0/0000:13:00.0", sw + "/0000:12:00.0/0000:13:00.1"), "PIX");
  // A device and the downstream port above another device of the same switch.
  EXPECT_EQ(Level(sw + "/0000:12:00.0/0000:13:00.0", sw + "/0000:12:01.0"), "PIX");
}

TEST(PciLocalityTest, TwoLevelsOfSwitchesArePxb) {
  // Upper switch 11:00.0 with downstream ports 12:00.0 (to a lower switch 13:00.0) and 12:01.0.
  std::string up = std::string(kRoot) + "/0000:10:01.0/0000:11:00.0";
  std::string gpu = up + "/0000:12:00.0/0000:13:00.0/0000:14:00.0/0000:15:00.0";
  std::string nic_upper = up + "/0000:12:01.0/0000:16:00.0";
  std::string nic_lower = up + "/0000:12:00.0/0000:13:00.0/0000:14:01.0/0000:17:00.0";
  EXPECT_EQ(Level(gpu, nic_upper), "PXB");
  EXPECT_EQ(Level(nic_upper, gpu), "PXB");
  EXPECT_EQ(Level(gpu, nic_lower), "PIX");  // both under the lower switch
}

TEST(PciLocalityTest, DifferentHostBridgesAreNodeOrSys) {
  std::string a = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0";
  std::string b = "/sys/devices/pci0000:20/0000:20:02.0/0000:22:00.0";
  EXPECT_EQ(Level(a, b, true), "NODE");
  EXPECT_EQ(Level(a, b, false), "SYS");
  EXPECT_EQ(Level(a, b, std::nullopt), "?");
  // Another PCI domain is another host bridge too.
  EXPECT_EQ(Level(a, "/sys/devices/pci0001:10/0001:10:01.0/0001:11:00.0", false), "SYS");
}

TEST(PciLocalityTest, NestedVmdDomainStaysUnderItsHostBridge) {
  std::string vmd = "/sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0";
  EXPECT_EQ(Level(vmd + "/10000:e0:1a.0/10000:e1:00.0", vmd + "/10000:e0:1b.0/10000:e2:00.0"),
            "PIX");
  // Behind the VMD controller and beside it: only the host bridge pci0000:00 in common.
  EXPECT_EQ(Level(vmd + "/10000:e0:1a.0/10000:e1:00.0",
                  "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"),
            "PHB");
}

TEST(PciLocalityTest, VirtualMachineHostBridgesUnderPlatformNodes) {
  // Hyper-V: every passed-through device has its own VMBus host bridge.
  std::string vmbus = "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A03:00/device:07/VMBUS:01";
  auto a =
      ParsePciSysfsPath(vmbus + "/47505500-0001-0000-3130-444531303244/pci0001:00/0001:00:00.0");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->platform.size(), 6u);
  EXPECT_EQ(a->host_bridge, "pci0001:00");
  EXPECT_EQ(Level(vmbus + "/47505500-0001-0000-3130-444531303244/pci0001:00/0001:00:00.0",
                  vmbus + "/47505500-0002-0000-3130-444531303244/pci0002:00/0002:00:00.0", true),
            "NODE");
}

TEST(PciLocalityTest, MalformedPathsAreClearErrors) {
  struct Case {
    std::string path;
    std::string expect;
  } cases[] = {
      {"", "under /sys/devices/"},
      {"/sys/bus/pci/devices/0000:11:00.0", "did not resolve"},
      {"/sys/devices/platform/soc/serial0", "host bridge component"},
      {"/sys/devices/pci0000:10", "expected a device below the host bridge pci0000:10"},
      {"/sys/devices/pci0000:10/0000:10:01.0/power", "found \"power\""},
      {"/sys/devices/pci0000:10/0000:10:01.0/../0000:11:00.0", "canonical"},
      {"/sys/devices/pci0000:10/0000:10:1.0/0000:11:00.0", "found \"0000:10:1.0\""},
      {"/sys/devices/pci0000:10/0000:10:01.9/0000:11:00.0", "found \"0000:10:01.9\""},
      {"/sys/devices/pci0000:10/0000:10:01.0/pci0000:11", "end with a PCI address"},
      {"/sys/devices/pci0000:10/\x01\xff", "\\x01\\xff"},
      {"/sys/devices/" + std::string(100000, 'a'), "host bridge component"},
  };
  for (const auto& c : cases) {
    auto p = ParsePciSysfsPath(c.path);
    ASSERT_FALSE(p.ok()) << c.path;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(p.status().message().find(c.expect), std::string::npos)
        << c.path.substr(0, 80) << " -> " << p.status().message();
    EXPECT_LT(p.status().message().size(), 500u);
  }
}

PciDevice Dev(std::string bdf, std::string path, int node, std::string cpus) {
  PciDevice d;
  d.bdf = std::move(bdf);
  d.sysfs_path = std::move(path);
  d.numa_node = node;
  d.local_cpus = *CpuSet::ParseList(cpus);
  return d;
}

TEST(PciLocalityTest, SameNumaNodeFromFirmwareThenCpusThenSingleNode) {
  PciDevice a = Dev("0000:11:00.0", "", 0, "0-3"), b = Dev("0000:21:00.0", "", 1, "4-7");
  EXPECT_EQ(SameNumaNode(a, b, 2), false);
  b.numa_node = 0;
  EXPECT_EQ(SameNumaNode(a, b, 2), true);
  // No firmware affinity: the local CPU lists decide.
  a.numa_node = b.numa_node = -1;
  EXPECT_EQ(SameNumaNode(a, b, 2), false);
  b.local_cpus = a.local_cpus;
  EXPECT_EQ(SameNumaNode(a, b, 2), true);
  // Nothing known on a 2-node host: unknown; on a 1-node host there is one node.
  a.local_cpus = CpuSet();
  EXPECT_EQ(SameNumaNode(a, b, 2), std::nullopt);
  EXPECT_EQ(SameNumaNode(a, b, 1), true);
}

TEST(PciLocalityTest, DeviceLocalityNamesTheDeviceWithAnUnresolvedPath) {
  PciDevice a = Dev("0000:11:00.0", "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0", 0, "0-3");
  PciDevice b = Dev("0000:22:00.0", "/sys/bus/pci/devices/0000:22:00.0", 1, "4-7");
  auto l = DeviceLocality(a, b, 2);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("0000:22:00.0: sysfs path"), std::string::npos)
      << l.status().message();
  b.sysfs_path = "/sys/devices/pci0000:20/0000:20:02.0/0000:22:00.0";
  l = DeviceLocality(a, b, 2);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, PciLocality::kSys);
}

TEST(PciLocalityTest, LevelsAreOrderedNearestFirst) {
  EXPECT_LT(PciLocality::kPix, PciLocality::kPxb);
  EXPECT_LT(PciLocality::kPxb, PciLocality::kPhb);
  EXPECT_LT(PciLocality::kPhb, PciLocality::kNode);
  EXPECT_LT(PciLocality::kNode, PciLocality::kSys);
  EXPECT_LT(PciLocality::kSys, PciLocality::kUnknown);
}

}  // namespace
}  // namespace ys::host
