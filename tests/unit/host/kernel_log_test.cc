// The kernel log in each form the driver's messages reach an operator (host/kernel_log.h).
#include "host/kernel_log.h"

#include <gtest/gtest.h>

#include "host/kernel_log_formats.h"

namespace ys::host {
namespace {

constexpr const char* kKernelLogXid = "NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus.";

KernelLogLine OneKernelLogLine(const std::string& text) {
  auto lines = ParseKernelLog(text);
  EXPECT_EQ(lines.size(), 1u) << text;
  return lines.empty() ? KernelLogLine{} : lines[0];
}

// 2024-03-05T10:11:12 UTC
constexpr double kKernelLogWall = 1709633472.0;

TEST(KernelLogFormatsTest, EveryTimeStampForm) {
  KernelLogLine raw = OneKernelLogLine(std::string("[ 5678.901234] ") + kKernelLogXid);
  EXPECT_DOUBLE_EQ(raw.seconds, 5678.901234);
  EXPECT_EQ(raw.text, kKernelLogXid);

  KernelLogLine ctime =
      OneKernelLogLine(std::string("[Tue Mar  5 10:11:12 2024] ") + kKernelLogXid);
  EXPECT_DOUBLE_EQ(ctime.wall, kKernelLogWall);
  EXPECT_EQ(ctime.stamp, "Tue Mar  5 10:11:12 2024");
  EXPECT_EQ(ctime.text, kKernelLogXid);

  KernelLogLine iso =
      OneKernelLogLine(std::string("2024-03-05T10:11:12,500000+00:00 ") + kKernelLogXid);
  EXPECT_DOUBLE_EQ(iso.wall, kKernelLogWall + 0.5);
  EXPECT_EQ(iso.text, kKernelLogXid);

  KernelLogLine decoded = OneKernelLogLine(std::string("kern  :warn  : [ 12.5] ") + kKernelLogXid);
  EXPECT_DOUBLE_EQ(decoded.seconds, 12.5);
  EXPECT_EQ(decoded.text, kKernelLogXid);

  KernelLogLine level = OneKernelLogLine(std::string("<4>[   12.500000] ") + kKernelLogXid);
  EXPECT_EQ(level.priority, 4);
  EXPECT_EQ(level.text, kKernelLogXid);

  KernelLogLine kmsg = OneKernelLogLine(std::string("4,1018,95541287002,-;") + kKernelLogXid);
  EXPECT_EQ(kmsg.priority, 4);
  EXPECT_NEAR(kmsg.seconds, 95541.287002, 1e-6);
}

TEST(KernelLogFormatsTest, JournalForms) {
  KernelLogLine shrt =
      OneKernelLogLine(std::string("Mar 05 10:11:12 gpu-node-7 kernel: ") + kKernelLogXid);
  EXPECT_EQ(shrt.stamp, "Mar 05 10:11:12");
  EXPECT_GE(shrt.wall, 0);  // no year: counted from 1970
  EXPECT_EQ(shrt.text, kKernelLogXid);

  KernelLogLine both = OneKernelLogLine(
      std::string("Feb 15 17:37:45 Gipfeli kernel: [82659.755847] ") + kKernelLogXid);
  EXPECT_EQ(both.stamp, "Feb 15 17:37:45");
  EXPECT_DOUBLE_EQ(both.seconds, 82659.755847);
  EXPECT_EQ(both.text, kKernelLogXid);

  KernelLogLine iso =
      OneKernelLogLine(std::string("2024-03-05T10:11:12+0000 gpu-node-7 kernel: ") + kKernelLogXid);
  EXPECT_DOUBLE_EQ(iso.wall, kKernelLogWall);
  EXPECT_EQ(iso.text, kKernelLogXid);

  KernelLogLine json = OneKernelLogLine(
      std::string("{\"__REALTIME_TIMESTAMP\":\"1709633472000000\",\"_BOOT_ID\":\"b1\","
                  "\"PRIORITY\":\"4\",\"MESSAGE\":\"") +
      kKernelLogXid + "\"}");
  EXPECT_DOUBLE_EQ(json.wall, kKernelLogWall);
  EXPECT_EQ(json.priority, 4);
  EXPECT_EQ(json.text, kKernelLogXid);

  // Other syslog idents and hosts are not a prefix to remove from a kernel message.
  EXPECT_EQ(OneKernelLogLine("pci 0000:01:00.0: [10de:2330] type 00").text,
            "pci 0000:01:00.0: [10de:2330] type 00");
}

TEST(KernelLogFormatsTest, MultiLineMessagesAndDictionaries) {
  auto lines = ParseKernelLog(
      "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "               NVRM: fallen off the bus and is not responding to commands.\n"
      "6,339,5140900,-;arm-smmu-v3 arm-smmu-v3.0.auto: ias 48-bit\n"
      " SUBSYSTEM=platform\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text,
            "NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has "
            "fallen off the bus and is not responding to commands.");
  EXPECT_EQ(lines[1].text, "arm-smmu-v3 arm-smmu-v3.0.auto: ias 48-bit");
}

TEST(KernelLogBootsTest, JournalMarkersBootIdsTimeResetsAndLinuxVersion) {
  auto journal = ParseKernelLog(
      "-- Logs begin at Mon 2024-03-04 09:00:00 UTC. --\n"
      "Mar 04 09:00:01 n kernel: old boot\n"
      "-- Boot 0123456789abcdef --\n"
      "Mar 05 10:11:12 n kernel: new boot\n");
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(BootCount(journal), 2);
  ASSERT_EQ(LastBoot(journal).size(), 1u);
  EXPECT_EQ(LastBoot(journal)[0].text, "new boot");

  auto json = ParseKernelLog(
      "{\"_BOOT_ID\":\"a\",\"MESSAGE\":\"one\"}\n{\"_BOOT_ID\":\"b\",\"MESSAGE\":\"two\"}\n");
  EXPECT_EQ(BootCount(json), 2);

  auto reset =
      ParseKernelLog("[99999.1] before\n[    0.000000] Linux version 6.8.0\n[ 5.0] after\n");
  EXPECT_EQ(BootCount(reset), 2);
  EXPECT_EQ(LastBoot(reset).size(), 2u);

  auto ctime = ParseKernelLog(
      "[Mon Mar  4 09:00:00 2024] a\n[Tue Mar  5 10:00:00 2024] Linux version 6.8.0\n"
      "[Tue Mar  5 10:00:05 2024] b\n");
  EXPECT_EQ(BootCount(ctime), 2);
  // A log that starts with its boot is one boot.
  EXPECT_EQ(BootCount(ParseKernelLog("[    0.000000] Linux version 6.8.0\n[ 1.0] x\n")), 1);
  EXPECT_EQ(BootCount(ParseKernelLog("")), 0);
}

TEST(KernelLogFormatsTest, MalformedPrefixesAreText) {
  for (const char* text :
       {"[", "[]", "[abc] x", "[Tue Foo  5 10:11:12 2024] x", "<999999> x", "2024-13-45T99:99:99 x",
        "{not json", "{\"MESSAGE\":3}", "Mar 99 10:11:12 h kernel: x", "x,y;z", ",,,;",
        // A day of nine or more digits once overflowed the number reader (fuzz finding).
        "[Tue Mar 99999999999 10:11:12 2024] NVRM: x", "Mar 7033333333 10:11:12 h kernel: x"}) {
    auto lines = ParseKernelLog(text);
    ASSERT_EQ(lines.size(), 1u) << text;
    EXPECT_FALSE(lines[0].text.empty()) << text;
  }
  EXPECT_FALSE(klog::CivilSeconds(2024, 13, 1, 0, 0, 0).has_value());
  EXPECT_DOUBLE_EQ(*klog::CivilSeconds(1970, 1, 1, 0, 0, 0), 0.0);
}

}  // namespace
}  // namespace ys::host
