#include "host/topology.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::FixturePath;
using ys::testing::TempHost;

TEST(TopologyTest, HwlocFollowsTheRootOfARecordedTree) {
  auto host = Host::AtRoot(FixturePath("healthy-8gpu"));
  ASSERT_TRUE(host.ok());
  auto t = LoadTopology(*host);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // The fixture is a 2-socket, 4-core, 2-thread node; this machine has 2 CPUs and one node, so
  // these numbers can only come from the tree.
  EXPECT_EQ(t->source, "hwloc");
  EXPECT_EQ(t->online_cpus.size(), 16u);
  EXPECT_EQ(t->packages, 2);
  EXPECT_EQ(t->cores.size(), 8u);
  EXPECT_EQ(t->ThreadsPerCore(), 2);
  ASSERT_EQ(t->nodes.size(), 2u);
  EXPECT_EQ(t->nodes[0].cpus.ToString(), "0-3,8-11");
  EXPECT_EQ(t->nodes[1].distances, (std::vector<int>{21, 10}));
  EXPECT_EQ(t->NodeOfCpu(13), 1);
  EXPECT_EQ(t->Gpus().size(), 8u);
  EXPECT_EQ(t->NetworkDevices().size(), 8u);
}

TEST(TopologyTest, ReadsPciLocalityAndLinks) {
  auto host = Host::AtRoot(FixturePath("downtrained-link"));
  ASSERT_TRUE(host.ok());
  auto t = LoadTopology(*host);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto gpus = t->Gpus();
  ASSERT_EQ(gpus.size(), 8u);
  const PciDevice* g3 = gpus[3];
  EXPECT_EQ(g3->vendor, kVendorNvidia);
  EXPECT_EQ(g3->numa_node, 0);
  EXPECT_EQ(g3->driver, "nvidia");
  EXPECT_EQ(g3->link.current_width, 8);
  EXPECT_EQ(g3->link.max_width, 16);
  EXPECT_DOUBLE_EQ(*g3->link.max_gts, 32.0);
  auto bridges = UpstreamBridges(*host, *g3);
  ASSERT_EQ(bridges.size(), 1u);
  EXPECT_TRUE(bridges[0].IsBridge());
}

TEST(TopologyTest, FallsBackToSysfsWhereHwlocCannotFollow) {
  TempHost t("healthy-8gpu");
  // hwloc needs per-CPU topology directories; without them it cannot describe the tree's CPUs.
  for (int cpu = 0; cpu < 16; ++cpu) t.Remove("/sys/devices/system/cpu/cpu" + std::to_string(cpu));
  t.Remove("/proc/cpuinfo");
  auto topo = LoadTopology(t.Host());
  ASSERT_TRUE(topo.ok()) << topo.status().ToString();
  EXPECT_EQ(topo->online_cpus.size(), 16u);
  EXPECT_EQ(topo->nodes.size(), 2u);
  EXPECT_EQ(topo->source.rfind("sysfs", 0), 0u) << topo->source;
}

TEST(TopologyTest, ReadsAnAarch64TreeOnAnyMachine) {
  auto host = Host::AtRoot(FixturePath("grace-vm-smmu"));
  ASSERT_TRUE(host.ok());
  auto t = LoadTopology(*host);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->online_cpus.size(), 8u);
  EXPECT_EQ(t->ThreadsPerCore(), 1);
  EXPECT_EQ(t->nodes.size(), 1u);
}

TEST(TopologyTest, ErrorsOnMalformedCpuList) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/devices/system/cpu/online", "zero-fifteen\n");
  auto topo = LoadTopology(t.Host());
  ASSERT_FALSE(topo.ok());
  EXPECT_NE(topo.status().message().find("/sys/devices/system/cpu/online"), std::string::npos);
}

TEST(PciTest, ParsesBothSpeedSpellings) {
  EXPECT_DOUBLE_EQ(**ParsePcieSpeed("16.0 GT/s PCIe"), 16.0);
  EXPECT_DOUBLE_EQ(**ParsePcieSpeed("8 GT/s"), 8.0);
  EXPECT_FALSE(ParsePcieSpeed("Unknown")->has_value());
  EXPECT_FALSE(ParsePcieSpeed("fast").ok());
  EXPECT_FALSE(ParsePcieSpeed("").ok());
  EXPECT_EQ(PcieGeneration(32.0), 5);
  EXPECT_EQ(PcieGeneration(2.5), 1);
  EXPECT_EQ(PcieGeneration(3.0), 0);
}

TEST(PciTest, MalformedAttributeNamesTheFile) {
  TempHost t("healthy-8gpu");
  t.Write(
      "/sys/devices/pci0000:10/0000:10:01.0/0000:1d:00.0/0000:1e:00.0/0000:11:00.0/max_link_width",
      "sixteen\n");
  auto topo = LoadTopology(t.Host());
  ASSERT_FALSE(topo.ok());
  EXPECT_NE(topo.status().message().find("max_link_width"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
