// The bandwidth verdict of an nccl-tests table on literal strings: the link class of a GPU
// model, a placement that is no bandwidth, a collapse at large sizes, a plateau far below the
// class, and what leaves the bandwidth unjudged (one rank, several nodes, no device list).
#include "validate/nccl_tests_verdict.h"

#include <gtest/gtest.h>

namespace ys::validate {
namespace {

std::string VerdictDevices(const std::string& host_b, const std::string& gpu) {
  return "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] " + gpu + "\n" +
         "#  Rank  1 Group  0 Pid 2 on " + host_b + " device  1 [0x02] " + gpu + "\n";
}

// all_reduce rows (2 ranks: busbw = algbw) at 1, 16, 256 MiB and 1 GiB with these busbw.
std::string VerdictRows(const std::vector<std::string>& busbw) {
  const char* sizes[] = {"1048576", "16777216", "268435456", "1073741824"};
  std::string out =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n";
  for (size_t i = 0; i < busbw.size() && i < 4; ++i) {
    out += std::string("  ") + sizes[i] + "  1  float  sum  -1  100.0  " + busbw[i] + "  " +
           busbw[i] + "  0  100.0  " + busbw[i] + "  " + busbw[i] + "  0\n";
  }
  return out;
}

NcclTestsBandwidthVerdict VerdictOf(const std::string& text, int nranks) {
  auto log = ParseNcclTestsLog(text, "v.log");
  EXPECT_TRUE(log.ok()) << log.status().message();
  if (!log.ok()) return {};
  return JudgeNcclTestsBandwidth(*log, log->tables.at(0), "coll.all_reduce", nranks);
}

TEST(NcclTestsVerdict, LinkClassOfGpuModels) {
  auto h100 = NcclTestsLinkClassOf("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->low_gbps, 360);
  EXPECT_NE(h100->source.find("datasheet"), std::string::npos);
  EXPECT_EQ(NcclTestsLinkClassOf("NVIDIA GeForce RTX 2080 Ti")->name, "PCIe Gen3 x16");
  EXPECT_EQ(NcclTestsLinkClassOf("NVIDIA A100-PCIE-40GB")->name, "PCIe Gen4 x16");
  EXPECT_EQ(NcclTestsLinkClassOf("NVIDIA A100-SXM4-80GB")->low_gbps, 228);
  EXPECT_EQ(NcclTestsLinkClassOf("NVIDIA GeForce RTX 5090")->name, "PCIe Gen5 x16");
  // Boards sold with and without NVLink bridges, and unknown models, have no class.
  EXPECT_FALSE(NcclTestsLinkClassOf("NVIDIA H200 NVL").has_value());
  EXPECT_FALSE(NcclTestsLinkClassOf("NVIDIA H100 NVL").has_value());
  EXPECT_FALSE(NcclTestsLinkClassOf("Tesla P100-SXM2-16GB").has_value());
  EXPECT_FALSE(NcclTestsLinkClassOf("NVIDIA Graphics Device").has_value());
}

TEST(NcclTestsVerdict, ZeroTimeOrAbsurdRateIsNoBandwidth) {
  EXPECT_TRUE(PlausibleNcclTestsPlace({.time_us = 4016, .algbw_gbps = 267, .busbw_gbps = 267}));
  EXPECT_FALSE(
      PlausibleNcclTestsPlace({.time_us = 0.19, .algbw_gbps = 5706839, .busbw_gbps = 5706839}));
  EXPECT_FALSE(PlausibleNcclTestsPlace({.time_us = 0, .algbw_gbps = 1, .busbw_gbps = 1}));
}

TEST(NcclTestsVerdict, PlateauFarBelowTheClassWarnsWithRangeAndSource) {
  auto v = VerdictOf(VerdictDevices("a", "NVIDIA H100 80GB HBM3") +
                         VerdictRows({"20.00", "60.00", "80.00", "81.00"}),
                     2);
  EXPECT_TRUE(v.judged);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].code, "YS-BENCH-004");
  EXPECT_NE(v.findings[0].message.find("360-450 GB/s of NVLink 4"), std::string::npos)
      << v.findings[0].message;
  auto ok = VerdictOf(VerdictDevices("a", "NVIDIA H100 80GB HBM3") +
                          VerdictRows({"100.00", "300.00", "380.00", "390.00"}),
                      2);
  EXPECT_TRUE(ok.judged);
  EXPECT_TRUE(ok.findings.empty());
}

TEST(NcclTestsVerdict, CollapseAtLargeSizesWarnsEvenWhenTheLinkIsUnknown) {
  auto v = VerdictOf(VerdictDevices("b", "NVIDIA H100 80GB HBM3") +
                         VerdictRows({"10.00", "29.50", "5.27", "5.30"}),
                     2);
  EXPECT_FALSE(v.judged);  // two nodes
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].code, "YS-BENCH-005");
}

TEST(NcclTestsVerdict, WhatLeavesTheBandwidthUnjudged) {
  const std::string rows = VerdictRows({"100.00", "300.00", "380.00", "390.00"});
  auto one = VerdictOf(VerdictDevices("a", "NVIDIA H100 80GB HBM3") + rows, 1);
  EXPECT_FALSE(one.judged);
  EXPECT_NE(one.reason.find("1 rank"), std::string::npos);
  auto nodes = VerdictOf(VerdictDevices("b", "NVIDIA H100 80GB HBM3") + rows, 2);
  EXPECT_FALSE(nodes.judged);
  EXPECT_NE(nodes.reason.find("span 2 nodes"), std::string::npos);
  auto none = VerdictOf(rows, 2);
  EXPECT_FALSE(none.judged);
  EXPECT_NE(none.reason.find("no device list"), std::string::npos);
  auto small = VerdictOf(VerdictDevices("a", "NVIDIA H100 80GB HBM3") + VerdictRows({"100.00"}), 2);
  EXPECT_FALSE(small.judged);
  EXPECT_NE(small.reason.find("64 MiB"), std::string::npos);
}

}  // namespace
}  // namespace ys::validate
