#include "host/infiniband.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::FixturePath;
using ys::testing::TempHost;

TEST(IbRateTest, ParsesKernelRateStrings) {
  struct Case {
    const char* text;
    double gbps;
    int width;
    const char* speed;
  };
  for (const Case& c :
       std::initializer_list<Case>{{"400 Gb/sec (4X NDR)", 400, 4, "NDR"},
                                   {"200 Gb/sec (4X HDR)", 200, 4, "HDR"},
                                   {"100 Gb/sec (4X EDR)", 100, 4, "EDR"},
                                   {"100 Gb/sec (2X NDR)", 100, 2, "NDR"},
                                   {"800 Gb/sec (4X XDR)", 800, 4, "XDR"},
                                   {"56 Gb/sec (4X FDR)", 56, 4, "FDR"},
                                   {"40 Gb/sec (4X FDR10)", 40, 4, "FDR10"},
                                   {"2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR"},
                                   {"10 Gb/sec (4X SDR)", 10, 4, "SDR"},
                                   {"120 Gb/sec (12X QDR)", 120, 12, "QDR"},
                                   {"10 Gb/sec (4X)", 10, 4, ""},  // old kernels: no speed name
                                   {"  400 Gb/sec (4X NDR)\n", 400, 4, "NDR"}}) {
    auto r = ParseIbRate(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_DOUBLE_EQ(r->gbps, c.gbps) << c.text;
    EXPECT_EQ(r->width, c.width) << c.text;
    EXPECT_EQ(r->speed, c.speed) << c.text;
  }
  EXPECT_EQ(ParseIbRate(" 400 Gb/sec (4X NDR)\n")->text, "400 Gb/sec (4X NDR)");
}

TEST(IbRateTest, RejectsMalformedRates) {
  for (const char* bad : {"",
                          "garbage",
                          "400",
                          "400 Gb/sec",
                          "400 Gb/s (4X NDR)",
                          "400 Gb/sec (4X NDR",
                          "400 Gb/sec 4X NDR)",
                          "400 Gb/sec (4X NDR) x",
                          "400 Gb/sec ()",
                          "400 Gb/sec (X NDR)",
                          "400 Gb/sec (3X NDR)",
                          "400 Gb/sec (4 NDR)",
                          "400 Gb/sec (4X N-DR)",
                          "400 Gb/sec (4X NDR 2)",
                          "-400 Gb/sec (4X NDR)",
                          "0 Gb/sec (4X NDR)",
                          "nan Gb/sec (4X NDR)",
                          "inf Gb/sec (4X NDR)",
                          "1e300 Gb/sec (4X NDR)",
                          "400 400 Gb/sec (4X NDR)",
                          "400 Gb/sec (99999999999999999999X NDR)"}) {
    auto r = ParseIbRate(bad);
    EXPECT_FALSE(r.ok()) << "accepted \"" << bad << "\"";
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("400 Gb/sec (4X NDR)"), std::string::npos)
          << r.status().message();
    }
  }
}

TEST(IbPortReaderTest, ReadsFixturePorts) {
  auto h = Host::AtRoot(FixturePath("downtrained-link"));
  ASSERT_TRUE(h.ok());
  auto devices = ListIbDevices(*h);
  ASSERT_EQ(devices.size(), 8u);
  EXPECT_EQ(devices[2], "mlx5_2");
  auto ports = ReadIbPorts(*h, "mlx5_2");
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  ASSERT_EQ(ports->size(), 1u);
  const IbPort& p = (*ports)[0];
  EXPECT_EQ(p.Entity(), "mlx5_2/1");
  EXPECT_EQ(p.dir, "/sys/class/infiniband/mlx5_2/ports/1");
  ASSERT_TRUE(p.state && p.phys_state && p.rate);
  EXPECT_EQ(p.state->number, kIbPortStateActive);
  EXPECT_EQ(p.phys_state->number, kIbPhysStateLinkUp);
  EXPECT_EQ(p.rate->gbps, 400);
  EXPECT_EQ(p.link_layer, "InfiniBand");
  EXPECT_FALSE(p.IsEthernet());
  EXPECT_EQ(p.Counter("symbol_error"), 1234u);
  EXPECT_EQ(p.Counter("link_downed"), 3u);
  EXPECT_EQ(p.Counter("port_xmit_data"), 91234567890u);
  EXPECT_FALSE(p.Counter("no_such_counter").has_value());
  EXPECT_FALSE(IsIbVirtualFunction(*h, "mlx5_2"));
}

TEST(IbPortReaderTest, AbsentFilesAreUnsetNotErrors) {
  TempHost t;
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  auto p = ReadIbPort(t.Host(), "mlx5_0", 1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->state.has_value());
  EXPECT_FALSE(p->phys_state.has_value());
  EXPECT_FALSE(p->rate.has_value());
  EXPECT_TRUE(p->link_layer.empty());
  EXPECT_TRUE(p->counters.empty());
  EXPECT_TRUE(ListIbDevices(TempHost().Host()).empty());
}

// An empty rate or state (a read the kernel refused, recorded as an empty file) is unknown.
TEST(IbPortReaderTest, EmptyRateIsUnset) {
  TempHost t;
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/rate", "");
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/phys_state", "\n");
  auto p = ReadIbPort(t.Host(), "mlx5_0", 1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_FALSE(p->rate.has_value());
  EXPECT_FALSE(p->phys_state.has_value());
}

// An empty link_layer is an unknown layer (neither IB nor RoCE); an empty counter is left out.
TEST(IbPortReaderTest, EmptyLinkLayerAndCounterAreUnknown) {
  TempHost t;
  const std::string port = "/sys/class/infiniband/mlx5_0/ports/1";
  t.Write(port + "/link_layer", "");
  t.Write(port + "/counters/symbol_error", "");
  t.Write(port + "/counters/link_downed", "3\n");
  auto p = ReadIbPort(t.Host(), "mlx5_0", 1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_FALSE(p->link_layer_known);
  EXPECT_FALSE(p->IsEthernet());
  EXPECT_FALSE(p->Counter("symbol_error").has_value());
  EXPECT_EQ(p->Counter("link_downed"), 3u);
  ASSERT_EQ(p->counters.size(), 1u);
  t.Write(port + "/link_layer", "Ethernet\n");
  p = ReadIbPort(t.Host(), "mlx5_0", 1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->link_layer_known);
  EXPECT_TRUE(p->IsEthernet());
}

TEST(IbPortReaderTest, MalformedFilesNameTheResolvedPath) {
  TempHost t;
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec\n");
  auto p = ReadIbPort(t.Host(), "mlx5_0", 1);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(t.root() + "/sys/class/infiniband/mlx5_0/ports/1/rate"),
            std::string::npos)
      << p.status().message();
}

TEST(IbPortReaderTest, NetdevsAndMtu) {
  TempHost t;
  const std::string dev = "/sys/class/infiniband/mlx5_0";
  t.Write(dev + "/ports/1/link_layer", "Ethernet\n");
  t.Write(dev + "/device/net/ens1f0np0/mtu", "9000\n");
  auto port = ReadIbPort(t.Host(), "mlx5_0", 1);
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(IbPortNetdevs(t.Host(), *port), std::vector<std::string>{"ens1f0np0"});
  auto mtu = ReadIbNetdevMtu(t.Host(), "mlx5_0", "ens1f0np0");
  ASSERT_TRUE(mtu.ok());
  EXPECT_EQ(mtu->mtu, 9000);
  EXPECT_EQ(mtu->path, dev + "/device/net/ens1f0np0/mtu");
  EXPECT_EQ(ReadIbNetdevMtu(t.Host(), "mlx5_0", "eth9").status().code(), StatusCode::kNotFound);
  t.Write(dev + "/device/net/ens1f0np0/mtu", "0\n");
  EXPECT_EQ(ReadIbNetdevMtu(t.Host(), "mlx5_0", "ens1f0np0").status().code(),
            StatusCode::kInvalidInput);
  t.Write(dev + "/ports/1/gid_attrs/ndevs/0", "bond0\n");
  EXPECT_EQ(IbPortNetdevs(t.Host(), *port), std::vector<std::string>{"bond0"});
  t.Write(dev + "/device/physfn/vendor", "0x15b3\n");
  EXPECT_TRUE(IsIbVirtualFunction(t.Host(), "mlx5_0"));
}

}  // namespace
}  // namespace ys::host
