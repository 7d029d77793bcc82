#include <gtest/gtest.h>

#include <string>

#include "testing/check_test_util.h"

namespace ys {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "ib.ports";
const std::string kPort0 = "/sys/class/infiniband/mlx5_0/ports/1";

// The value of the first evidence entry whose key contains key_part, of a Finding or a CheckResult.
template <typename WithEvidence>
std::string EvidenceValue(const WithEvidence& f, std::string_view key_part) {
  for (const auto& [k, v] : f.evidence) {
    if (k.find(key_part) != std::string::npos) return v;
  }
  return "";
}

TEST(IbPortsTest, PassesOnHealthyNode) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_NE(r.summary.find("8 ports"), std::string::npos) << r.summary;
  ASSERT_FALSE(r.evidence.empty());
  EXPECT_EQ(r.evidence[0].first, "mlx5_0/1");
  EXPECT_EQ(r.evidence[0].second, "4: ACTIVE, 5: LinkUp, 400 Gb/sec (4X NDR), InfiniBand");
}

TEST(IbPortsTest, NoFalseFindingsWherePortsAreHealthy) {
  checks::SiteExpectations e;
  e.devices.min_link_rate_gbps = 400;
  for (const char* c :
       {"healthy-8gpu", "h100-misconfigured", "container-topo-missing", "grace-vm-smmu"}) {
    CheckResult r = RunOnFixture(kId, c, e);
    EXPECT_OUTCOME(r, Outcome::kPass) << c;
  }
}

TEST(IbPortsTest, WarnsOnSymbolErrorsAndLinkDownedOfMlx5_2) {
  CheckResult r = RunOnFixture(kId, "downtrained-link");
  EXPECT_OUTCOME(r, Outcome::kWarn);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "YS-IB-004");
  EXPECT_EQ(f.severity, Severity::kWarn);
  EXPECT_EQ(f.entity, "mlx5_2/1");
  EXPECT_EQ(EvidenceValue(f, "counters/symbol_error"), "1234");
  EXPECT_EQ(EvidenceValue(f, "counters/link_downed"), "3");
  EXPECT_EQ(f.evidence.size(), 2u);  // only the non-zero error counters
  EXPECT_NE(f.message.find("since the last reset"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("cannot tell a rate"), std::string::npos) << f.message;
  for (const char* want :
       {"cable", "optic", "switch port", "perfquery -x", "mlxlink -d", "ibdiagnet"}) {
    EXPECT_NE(f.fix.find(want), std::string::npos) << want << " in " << f.fix;
  }
}

TEST(IbPortsTest, CongestionCountersAreNotErrors) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/counters/port_xmit_wait", "987654321\n");
  t.Write(kPort0 + "/counters/VL15_dropped", "4\n");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST(IbPortsTest, SaturatedCounterIsSaid) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/counters/symbol_error", "65535\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-IB-004");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("saturated"), std::string::npos) << f->message;
}

TEST(IbPortsTest, DownPortFailsOnStateAndPhysicalState) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/state", "1: DOWN\n");
  t.Write(kPort0 + "/phys_state", "2: Polling\n");
  t.Write(kPort0 + "/rate", "10 Gb/sec (4X SDR)\n");  // what a down port reports
  checks::SiteExpectations e;
  e.devices.min_link_rate_gbps = 400;
  CheckResult r = t.Run(kId, e);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* s = FindFinding(r, "YS-IB-001");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->entity, "mlx5_0/1");
  EXPECT_EQ(EvidenceValue(*s, "/state"), "1: DOWN");
  const Finding* p = FindFinding(r, "YS-IB-002");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->message.find("Polling"), std::string::npos);
  EXPECT_NE(p->fix.find("cable"), std::string::npos);
  EXPECT_FALSE(HasFinding(r, "YS-IB-003"));  // the rate of a down port means nothing
}

TEST(IbPortsTest, InitMeansNoSubnetManager) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/state", "2: INIT\n");
  t.Write(kPort0 + "/sm_lid", "0x0\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-IB-001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("no subnet manager"), std::string::npos) << f->message;
  EXPECT_NE(f->fix.find("opensm"), std::string::npos);
  EXPECT_NE(f->fix.find("UFM"), std::string::npos);
  EXPECT_EQ(EvidenceValue(*f, "sm_lid"), "0x0");
  EXPECT_FALSE(HasFinding(r, "YS-IB-002"));
}

TEST(IbPortsTest, DegradedWidthAndRateBelowSiteMinimum) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/rate", "100 Gb/sec (2X NDR)\n");
  t.Write("/sys/class/infiniband/mlx5_1/ports/1/rate", "200 Gb/sec (4X HDR)\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);  // no site minimum: width only
  EXPECT_EQ(r.findings[0].code, "YS-IB-003");
  EXPECT_EQ(r.findings[0].entity, "mlx5_0/1");
  EXPECT_NE(r.findings[0].message.find("2X of 4X"), std::string::npos) << r.findings[0].message;

  checks::SiteExpectations e;
  e.devices.min_link_rate_gbps = 400;
  r = t.Run(kId, e);
  ASSERT_EQ(r.findings.size(), 2u) << testing::Describe(r);
  const Finding& hdr = r.findings[0].entity == "mlx5_1/1" ? r.findings[0] : r.findings[1];
  EXPECT_NE(hdr.message.find("below the site minimum of 400 Gb/s"), std::string::npos)
      << hdr.message;
  EXPECT_EQ(EvidenceValue(hdr, "site.devices.min_link_rate_gbps"), "400");
  EXPECT_NE(hdr.fix.find("ibstat"), std::string::npos);
}

TEST(IbPortsTest, NarrowPortsAcceptedWhenTheSiteMinimumIsMetOrOnEthernet) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/rate", "200 Gb/sec (2X NDR)\n");  // NDR200 on a split cable, by design
  checks::SiteExpectations e;
  e.devices.min_link_rate_gbps = 200;
  EXPECT_OUTCOME(t.Run(kId, e), Outcome::kPass);
  t.Write(kPort0 + "/rate", "100 Gb/sec (2X HDR)\n");  // 100GbE over two PAM4 lanes
  t.Write(kPort0 + "/link_layer", "Ethernet\n");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-IB-003"));
}

TEST(IbPortsTest, RoceNetdevMtuBelow4200Warns) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/link_layer", "Ethernet\n");
  t.Write("/sys/class/infiniband/mlx5_0/device/net/ens1f0np0/mtu", "1500\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-IB-005");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->entity, "mlx5_0/1");
  EXPECT_EQ(EvidenceValue(*f, "ens1f0np0/mtu"), "1500");
  EXPECT_NE(f->fix.find("mtu 9000"), std::string::npos);

  t.Write("/sys/class/infiniband/mlx5_0/device/net/ens1f0np0/mtu", "9000\n");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);

  // A RoCE LAG: the GID's netdev is a bond that lives only in /sys/class/net.
  t.Write(kPort0 + "/gid_attrs/ndevs/0", "bond0\n");
  t.Write("/sys/class/net/bond0/mtu", "1500\n");
  r = t.Run(kId);
  f = FindFinding(r, "YS-IB-005");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(EvidenceValue(*f, "/sys/class/net/bond0/mtu"), "1500");
}

// An empty link_layer leaves IB or RoCE unknown: neither the IB width nor the RoCE MTU is
// judged, and the note says so; an empty counter is left out. Never an error.
TEST(IbPortsTest, EmptyLinkLayerAndCountersAreNotJudged) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/link_layer", "");
  t.Write(kPort0 + "/rate", "100 Gb/sec (2X HDR)\n");  // narrow on IB, fine as 100GbE
  t.Write("/sys/class/infiniband/mlx5_0/device/net/ens1f0np0/mtu", "1500\n");
  t.Write(kPort0 + "/counters/symbol_error", "");
  t.Write(kPort0 + "/counters/link_downed", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(EvidenceValue(r, "mlx5_0/1").find("link_layer empty"), std::string::npos)
      << testing::Describe(r);
}

TEST(IbPortsTest, IpoibMtuDoesNotMatterOnInfiniband) {
  TempHost t("healthy-8gpu");
  t.Write("/sys/class/infiniband/mlx5_0/device/net/ibp17s0/mtu", "2044\n");
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST(IbPortsTest, OnlyTheSitesIntendedHcasAreJudged) {
  checks::SiteExpectations e;
  e.devices.intended_hcas = {"mlx5_0", "mlx5_1", "mlx5_3:1", "mlx5_4",
                             "mlx5_5", "mlx5_6", "mlx5_7"};
  CheckResult r = RunOnFixture(kId, "downtrained-link", e);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence)
    noted |= k == "mlx5_2/1" && v.find("intended_hcas") != std::string::npos;
  EXPECT_TRUE(noted);
  e.devices.intended_hcas = {"mlx5_2"};
  EXPECT_TRUE(HasFinding(RunOnFixture(kId, "downtrained-link", e), "YS-IB-004"));
  e.devices.intended_hcas = {"bnxt_re0"};
  EXPECT_OUTCOME(RunOnFixture(kId, "downtrained-link", e), Outcome::kSkip);
}

TEST(IbPortsTest, SkipsWithoutRdmaDevices) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/class/infiniband");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("/sys/class/infiniband is absent"), std::string::npos) << r.summary;
  t.Write("/sys/class/infiniband/.keep", "");
  t.Remove("/sys/class/infiniband/.keep");
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("no RDMA device"), std::string::npos) << r.summary;
}

TEST(IbPortsTest, MalformedFilesGiveErrorsWithThePath) {
  struct Case {
    std::string path;
    const char* content;
  };
  for (const Case& c : std::initializer_list<Case>{
           {kPort0 + "/state", "ACTIVE\n"},
           {kPort0 + "/phys_state", "LinkUp"},
           {kPort0 + "/rate", "fast\n"},
           {kPort0 + "/rate", "400 Gb/sec (4X NDR\n"},  // truncated
           {kPort0 + "/rate", "99999999999 Gb/sec (4X NDR)\n"},
           {kPort0 + "/link_layer", "Token Ring\n"},
           {kPort0 + "/counters/symbol_error", "lots\n"},
           {kPort0 + "/counters/link_downed", "-1\n"},
           {kPort0 + "/counters/port_rcv_errors", "184467440737095516160\n"},  // > 64 bits
           {"/sys/class/infiniband/mlx5_0/ports/abc/state", "4: ACTIVE\n"}}) {
    TempHost t("healthy-8gpu");
    t.Write(c.path, c.content);
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kError) << c.path << " = " << c.content;
    // The error names the file under the class directory (or the bad port directory).
    std::string want = c.path.find("/abc/") != std::string::npos
                           ? std::string("mlx5_0/ports/abc")
                           : c.path.substr(std::string("/sys/class/infiniband/").size());
    EXPECT_NE(r.summary.find(want), std::string::npos) << r.summary;
  }
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/link_layer", "Ethernet\n");
  t.Write("/sys/class/infiniband/mlx5_0/device/net/eth0/mtu", "big\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("net/eth0/mtu"), std::string::npos) << r.summary;
}

TEST(IbPortsTest, EnormousCounterFileIsRefusedNotRead) {
  TempHost t("healthy-8gpu");
  t.Write(kPort0 + "/counters/symbol_error", std::string(host::Host::kMaxFileBytes + 10, '7'));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("symbol_error"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace ys
