#include "host/pci_aer.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::FixturePath;
using ys::testing::TempHost;

TEST(AerCountersTest, ParsesTheKernelFormat) {
  auto r = ParseAerCounters(
      "RxErr 5\nBadTLP 2\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
      "HeaderOF 0\nTOTAL_ERR_COR 7\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total, 7u);
  ASSERT_EQ(r->by_type.size(), 8u);
  EXPECT_EQ(r->by_type[0], (std::pair<std::string, uint64_t>{"RxErr", 5}));
  EXPECT_EQ(r->by_type[1], (std::pair<std::string, uint64_t>{"BadTLP", 2}));

  auto fatal = ParseAerCounters("Undefined 0\nDLP 0\nSDES 0\nTOTAL_ERR_FATAL 0");  // no final \n
  ASSERT_TRUE(fatal.ok());
  EXPECT_EQ(fatal->total, 0u);

  auto bare = ParseAerCounters("12\n");  // the proposed <dev>/aer/ files
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->total, 12u);
  EXPECT_TRUE(bare->by_type.empty());

  auto huge = ParseAerCounters("RxErr 18446744073709551615\nTOTAL_ERR_COR 18446744073709551615\n");
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(huge->total, 18446744073709551615u);
}

TEST(AerCountersTest, RejectsMalformedText) {
  for (const char* bad :
       {"", "\n\n", "garbage", "RxErr 0\nBadTLP 0\nBadDL", "RxErr 0\nBadTLP 0\n",
        "RxErr x\nTOTAL_ERR_COR 0\n", "RxErr 1 2\nTOTAL_ERR_COR 3\n", "RxErr -1\nTOTAL_ERR_COR 0\n",
        "RxErr 0\nTOTAL_ERR_COR 18446744073709551616\n", "-3"}) {
    auto r = ParseAerCounters(bad);
    EXPECT_FALSE(r.ok()) << "accepted \"" << bad << "\"";
  }
  EXPECT_NE(ParseAerCounters("RxErr 0\n").status().message().find("truncated"), std::string::npos);
}

TEST(AerCountersTest, ReadsBothLayouts) {
  auto h = Host::AtRoot(FixturePath("healthy-8gpu"));
  ASSERT_TRUE(h.ok());
  auto files = ReadAerCounters(*h, "/sys/bus/pci/devices/0000:11:00.0");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[0].kind, AerKind::kCorrectable);
  EXPECT_EQ((*files)[0].path, "/sys/bus/pci/devices/0000:11:00.0/aer_dev_correctable");
  EXPECT_EQ((*files)[2].kind, AerKind::kFatal);
  for (const auto& f : *files) EXPECT_EQ(f.counts.total, 0u);

  TempHost t;
  t.Write("/sys/bus/pci/devices/0000:01:00.0/aer/dev_nonfatal", "4\n");
  files = ReadAerCounters(t.Host(), "/sys/bus/pci/devices/0000:01:00.0");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].kind, AerKind::kNonFatal);
  EXPECT_EQ((*files)[0].counts.total, 4u);
  EXPECT_STREQ(AerKindName((*files)[0].kind), "nonfatal");

  files = ReadAerCounters(t.Host(), "/sys/bus/pci/devices/0000:02:00.0");  // AER off: nothing
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());

  t.Write("/sys/bus/pci/devices/0000:01:00.0/aer/dev_fatal", "");  // no counts recorded
  files = ReadAerCounters(t.Host(), "/sys/bus/pci/devices/0000:01:00.0");
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_EQ(files->size(), 1u);

  t.Write("/sys/bus/pci/devices/0000:01:00.0/aer/dev_fatal", "many\n");
  files = ReadAerCounters(t.Host(), "/sys/bus/pci/devices/0000:01:00.0");
  ASSERT_FALSE(files.ok());
  EXPECT_NE(
      files.status().message().find(t.root() + "/sys/bus/pci/devices/0000:01:00.0/aer/dev_fatal"),
      std::string::npos)
      << files.status().message();
}

}  // namespace
}  // namespace ys::host
