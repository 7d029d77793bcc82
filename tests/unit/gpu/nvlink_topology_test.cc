#include "gpu/nvlink_topology.h"

#include <gtest/gtest.h>

#include "gpu/gpu_snapshot_json.h"

namespace ys::gpu {
namespace {

TEST(GpuNvLinkTopologyTest, NormalizesNvmlAndSysfsBusIds) {
  EXPECT_EQ(*NormalizePciBusId("00000000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(*NormalizePciBusId("0000:1b:00.0"), "0000:1b:00.0");
  EXPECT_EQ(*NormalizePciBusId(" 00000009:01:1F.7\n"), "0009:01:1f.7");
  EXPECT_EQ(*NormalizePciBusId("00010000:E1:00.0"), "10000:e1:00.0");
  EXPECT_EQ(*NormalizePciBusId("1b:00.0"), "0000:1b:00.0");
  for (const char* bad :
       {"", "garbage", "0000:1b:00", "0000:1b:00.8", "0000:1b:20.0", "000000000:1b:00.0",
        "0000:1bb:00.0", "0000:1b:0.0", "a:b:c:d", "0000:zz:00.0", "0000:1b:00.x"}) {
    auto r = NormalizePciBusId(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("expected a PCI address"), std::string::npos);
  }
}

NvLinkState Link(int n, bool active, std::string remote) {
  NvLinkState l;
  l.link = n;
  l.active = Field<bool>::Of(active);
  l.remote_pci_bus_id = Field<std::string>::Of(std::move(remote));
  return l;
}

GpuDevice Gpu(int index, std::string bus) {
  GpuDevice d;
  d.index = index;
  d.pci_bus_id = std::move(bus);
  return d;
}

TEST(GpuNvLinkTopologyTest, GpusReachingTheSameSwitchesShareTheirLinks) {
  // HGX H100: 18 links per GPU into 4 NVSwitches, 5/4/4/5.
  const char* sw[] = {"00000000:05:00.0", "00000000:06:00.0", "00000000:07:00.0",
                      "00000000:08:00.0"};
  const int per[] = {5, 4, 4, 5};
  GpuSnapshot s;
  for (int g = 0; g < 4; ++g) {
    GpuDevice d = Gpu(g, "00000000:" + std::to_string(g + 1) + "1:00.0");
    int link = 0;
    for (int k = 0; k < 4; ++k) {
      for (int i = 0; i < per[k]; ++i) d.nvlinks.push_back(Link(link++, true, sw[k]));
    }
    s.devices.push_back(d);
  }
  NvLinkPeers p = CountNvLinks(s);
  EXPECT_EQ(p.Between(0, 1), 18);
  EXPECT_EQ(p.Between(3, 2), 18);
  EXPECT_EQ(p.Between(0, 0), 0);
  EXPECT_EQ(p.active_links.at(0), 18);
  EXPECT_TRUE(p.unknown_links.empty());
  // A link down on GPU2: its pairs count 17, the others stay 18.
  s.devices[2].nvlinks[0].active = Field<bool>::Of(false);
  p = CountNvLinks(s);
  EXPECT_EQ(p.Between(2, 0), 17);
  EXPECT_EQ(p.Between(0, 2), 17);
  EXPECT_EQ(p.Between(0, 1), 18);
  // GPU3 reaches only switch 0 (5 links): it shares 5 with the others.
  s.devices[3].nvlinks.resize(5);
  p = CountNvLinks(s);
  EXPECT_EQ(p.Between(3, 0), 5);
  EXPECT_EQ(p.Between(1, 3), 5);
}

TEST(GpuNvLinkTopologyTest, DirectLinksBetweenGpus) {
  // Two PCIe H100 NVL cards bridged with NVLink (direct GPU-to-GPU), a third without.
  GpuSnapshot s;
  s.devices = {Gpu(0, "00000000:11:00.0"), Gpu(1, "00000000:21:00.0"), Gpu(2, "00000000:31:00.0")};
  for (int i = 0; i < 12; ++i) {
    s.devices[0].nvlinks.push_back(Link(i, true, "0000:21:00.0"));
    s.devices[1].nvlinks.push_back(Link(i, true, "00000000:11:00.0"));
  }
  NvLinkPeers p = CountNvLinks(s);
  EXPECT_EQ(p.Between(0, 1), 12);
  EXPECT_EQ(p.Between(1, 0), 12);
  EXPECT_EQ(p.Between(0, 2), 0);
  EXPECT_TRUE(p.notes.empty());
  // One side reports fewer: the smaller count, and a note.
  s.devices[1].nvlinks.resize(10);
  p = CountNvLinks(s);
  EXPECT_EQ(p.Between(0, 1), 10);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("GPU0 reports 12 NVLinks to GPU1, which reports 10 back"),
            std::string::npos);
}

TEST(GpuNvLinkTopologyTest, UnknownStateAndMalformedRemotesAreCountedApart) {
  GpuSnapshot s;
  s.devices = {Gpu(0, "00000000:11:00.0"), Gpu(1, "00000000:21:00.0")};
  s.devices[0].nvlinks.push_back(Link(0, true, "00000000:05:00.0"));
  NvLinkState no_state;
  no_state.link = 1;
  no_state.active = Field<bool>::Missing("NVML_ERROR_NOT_SUPPORTED");
  s.devices[0].nvlinks.push_back(no_state);
  s.devices[0].nvlinks.push_back(Link(2, true, "garbage\x01"));
  NvLinkState no_remote = Link(3, true, "");
  no_remote.remote_pci_bus_id = Field<std::string>::Missing("Unknown Error");
  s.devices[0].nvlinks.push_back(no_remote);
  s.devices[1].nvlinks.push_back(Link(0, true, "00000000:05:00.0"));
  NvLinkPeers p = CountNvLinks(s);
  EXPECT_EQ(p.Between(0, 1), 1);
  EXPECT_EQ(p.unknown_links.at(0), 3);
  EXPECT_EQ(p.unknown_links.count(1), 0u);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("GPU0 NVLink 2: remote end expected a PCI address"), std::string::npos)
      << p.notes[0];
  EXPECT_EQ(p.notes[0].find('\x01'), std::string::npos);
}

TEST(GpuNvLinkTopologyTest, NoLinksNoPeers) {
  GpuSnapshot s;
  s.devices = {Gpu(0, "00000000:11:00.0"), Gpu(1, "00000000:21:00.0")};
  NvLinkPeers p = CountNvLinks(s);
  EXPECT_TRUE(p.links.empty());
  EXPECT_TRUE(CountNvLinks(GpuSnapshot{}).links.empty());
}

TEST(GpuNvLinkTopologyTest, NvmlTopologyLevelNames) {
  EXPECT_EQ(TopologyLevelName(0), "PIX");
  EXPECT_EQ(TopologyLevelName(10), "PIX");
  EXPECT_EQ(TopologyLevelName(20), "PXB");
  EXPECT_EQ(TopologyLevelName(30), "PHB");
  EXPECT_EQ(TopologyLevelName(40), "NODE");
  EXPECT_EQ(TopologyLevelName(50), "SYS");
  EXPECT_EQ(TopologyLevelName(35), "");
  EXPECT_EQ(TopologyLevelName(-1), "");
}

TEST(GpuNvLinkTopologyTest, RecordedH100FixtureIsNv18Everywhere) {
  auto s = LoadGpuSnapshot(std::string(YS_FIXTURES_DIR) + "/nvml/healthy-h100x8.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->devices.size(), 8u);
  NvLinkPeers p = CountNvLinks(*s);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) EXPECT_EQ(p.Between(a, b), a == b ? 0 : 18) << a << "," << b;
  }
}

}  // namespace
}  // namespace ys::gpu
