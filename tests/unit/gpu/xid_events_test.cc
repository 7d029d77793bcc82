// Grouping of kernel-log lines into GPU events (gpu/xid_events.h) and the XID catalogue.
#include "gpu/xid_events.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ys::gpu {
namespace {

std::string XidLogLine(double t, const char* pci, int xid, const std::string& rest = "x") {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%12.6f] ", t);
  return std::string(stamp) + "NVRM: Xid (PCI:" + pci + "): " + std::to_string(xid) + ", " + rest +
         "\n";
}

TEST(GpuLogEventsTest, ABurstOfOneXidOnOneGpuIsOneEvent) {
  std::string log;
  for (int i = 0; i < 16; ++i) log += XidLogLine(100.0 + i * 0.0001, "0000:1b:00", 13);
  log += XidLogLine(100.003, "0000:1b:00", 43);  // the channel reset that follows
  log += XidLogLine(100.002, "0000:2b:00", 13);  // another GPU: its own event
  log += XidLogLine(200.0, "0000:1b:00", 13);    // later: a new fault
  auto ev = ParseGpuLogEvents(log);
  ASSERT_EQ(ev.events.size(), 4u);
  EXPECT_EQ(ev.xid_lines, 19u);
  EXPECT_EQ(ev.events[0].lines, 16);
  EXPECT_EQ(ev.events[0].pci, "0000:1b:00.0");
  EXPECT_EQ(ev.events[1].xid.xid, 43);
  EXPECT_EQ(ev.events[1].follows, 0);
  EXPECT_EQ(ev.events[2].follows, -1);
  EXPECT_EQ(ev.events[3].follows, -1);
  EXPECT_EQ(ev.events[0].first_when, "100.0 s after boot");

  GpuLogEventOptions wide;
  wide.burst_window_s = 200;
  EXPECT_EQ(ParseGpuLogEvents(log, wide).events.size(), 4u);  // 43 between the two 13 bursts
  auto late = ParseGpuLogEvents(XidLogLine(1, "0000:1b:00", 13) + XidLogLine(30, "0000:1b:00", 43));
  EXPECT_EQ(late.events[1].follows, -1);  // beyond the follow window: a fault of its own
}

TEST(GpuLogEventsTest, StatedCauseLinksToTheRootEvent) {
  auto ev = ParseGpuLogEvents(
      XidLogLine(5, "0018:01:00", 149, "NETIR_LINK_EVT Fatal XC0 i0 Link 13 (0x0)") +
      XidLogLine(5.5, "0018:01:00", 45, "pid=1, name=p, Ch 00000001 caused by previous Xid 149") +
      XidLogLine(6, "0019:01:00", 45, "pid=1, name=p, Ch 00000001 caused by previous Xid 145"));
  ASSERT_EQ(ev.events.size(), 3u);
  EXPECT_EQ(ev.events[0].xid.stated, XidStated::kFatal);
  EXPECT_EQ(ev.events[1].xid.caused_by, 149);
  EXPECT_EQ(ev.events[1].follows, 0);
  EXPECT_EQ(ev.events[2].xid.caused_by, 145);
  EXPECT_EQ(ev.events[2].follows, -1);  // the cause is not in the log
}

TEST(GpuLogEventsTest, WithoutTimesConsecutiveLinesOfOneGpuGroup) {
  auto ev = ParseGpuLogEvents(
      "NVRM: Xid (PCI:0000:dc:00): 45, Ch 1 caused by previous Xid 149\n"
      "NVRM: Xid (PCI:0000:ed:00): 45, Ch 2 caused by previous Xid 145\n"
      "NVRM: Xid (PCI:0000:dc:00): 45, Ch 2 caused by previous Xid 149\n");
  ASSERT_EQ(ev.events.size(), 2u);
  EXPECT_EQ(ev.events[0].lines, 2);
  EXPECT_EQ(ev.events[0].first_when, "time unknown");
}

TEST(GpuLogEventsTest, DriverMessagesWithoutAnXid) {
  auto split = ParseGpuLogEvents(
      "Feb 14 05:03:41 n kernel: NVRM: The NVIDIA GPU 0000:18:00.0\n"
      "Feb 14 05:03:41 n kernel: NVRM: (PCI ID: 10de:2901) installed in this system has\n"
      "Feb 14 05:03:41 n kernel: NVRM: fallen off the bus and is not responding to commands.\n"
      "Feb 14 05:03:41 n kernel: NVRM: The NVIDIA probe routine failed for 1 device(s).\n");
  ASSERT_EQ(split.events.size(), 1u);
  EXPECT_EQ(split.events[0].kind, GpuLogKind::kFellOffBus);
  EXPECT_EQ(split.events[0].pci, "0000:18:00.0");

  auto nodomain = ParseGpuLogEvents("NVRM: GPU 18:00.0: GPU has fallen off the bus.\n");
  ASSERT_EQ(nodomain.events.size(), 1u);
  EXPECT_EQ(nodomain.events[0].pci, "0000:18:00.0");

  // With the XID 79 of the same GPU, the message is the same event.
  auto with79 = ParseGpuLogEvents(XidLogLine(9, "0000:51:00", 79, "GPU has fallen off the bus.") +
                                  "[9.1] NVRM: GPU 0000:51:00.0: GPU has fallen off the bus.\n");
  ASSERT_EQ(with79.events.size(), 1u);
  EXPECT_EQ(with79.events[0].xid.xid, 79);

  auto init = ParseGpuLogEvents(
      "[5.0] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)\n"
      "[5.1] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n"
      "[5.2] NVRM: The NVIDIA probe routine failed for 1 device(s).\n");
  ASSERT_EQ(init.events.size(), 1u);
  EXPECT_EQ(init.events[0].kind, GpuLogKind::kInitFailed);
  EXPECT_EQ(init.events[0].lines, 2);

  auto probe = ParseGpuLogEvents("[5.2] NVRM: The NVIDIA probe routine failed for 1 device(s).\n");
  ASSERT_EQ(probe.events.size(), 1u);
  EXPECT_EQ(probe.events[0].kind, GpuLogKind::kProbeFailed);
  EXPECT_EQ(probe.events[0].pci, "");
}

TEST(GpuLogEventsTest, OnlyTheLastBootUnlessAskedForAll) {
  std::string log = XidLogLine(500, "0000:1b:00", 79) + "[    0.000000] Linux version 6.8.0\n" +
                    XidLogLine(50, "0000:1b:00", 13);
  auto last = ParseGpuLogEvents(log);
  EXPECT_EQ(last.boots, 2);
  ASSERT_EQ(last.events.size(), 1u);
  EXPECT_EQ(last.events[0].xid.xid, 13);
  GpuLogEventOptions all;
  all.all_boots = true;
  EXPECT_EQ(ParseGpuLogEvents(log, all).events.size(), 2u);
}

TEST(XidCatalogueTest, BlackwellContextSwitchAndRecoveryAction) {
  for (int x = 144; x <= 150; ++x) {
    ASSERT_NE(FindXid(x), nullptr) << x;
    EXPECT_EQ(FindXid(x)->area, XidArea::kNvlink) << x;
  }
  EXPECT_EQ(XidMeaning(149), "NVLink NETIR error: link or fabric interface");
  EXPECT_NE(XidMeaning(109).find("context-switch timeout"), std::string_view::npos);
  EXPECT_EQ(FindXid(109)->action, XidAction::kResetGpu);
  EXPECT_NE(XidMeaning(154).find("recovery action"), std::string_view::npos);
  auto e = ParseXidLine(
      "NVRM: Xid (PCI:0000:2a:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
      "(Node Reboot Required)");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->recovery, RecoveryAction::kNodeReboot);
  EXPECT_EQ(ParseXidLine("NVRM: Xid (PCI:0000:2a:00): 154, GPU recovery action changed from 0x0 "
                         "(None) to 0x1 (GPU Reset Required)")
                ->recovery,
            RecoveryAction::kGpuReset);
  EXPECT_EQ(ParseXidLine("NVRM: Xid (PCI:0000:2a:00): 154, GPU recovery action changed from 0x1 "
                         "(GPU Reset Required) to 0x0 (None)")
                ->recovery,
            RecoveryAction::kNone);
  EXPECT_EQ(ParseXidLine("NVRM: Xid (PCI:0000:04:00): 144, SAW_MVB Nonfatal XC0 i0 Link 00 "
                         "(0x00000001 0x00000001 0x00000000 0x00000000)")
                ->stated,
            XidStated::kNonfatal);
  // The table: sorted, ranges apart, every entry with a meaning and a fix.
  int last = 0;
  for (int x = 1; x <= 200; ++x) {
    EXPECT_FALSE(XidFix(x).empty()) << x;
    const XidInfo* info = FindXid(x);
    if (!info || info->first != x) continue;
    EXPECT_GT(info->first, last) << x;
    EXPECT_GE(info->last, info->first) << x;
    EXPECT_FALSE(info->meaning.empty()) << x;
    last = info->last;
  }
  EXPECT_EQ(FindXid(1), nullptr);  // unused on Ampere and newer
  EXPECT_EQ(XidMeaning(999), "not in NVIDIA's XID catalogue");
}

}  // namespace
}  // namespace ys::gpu
