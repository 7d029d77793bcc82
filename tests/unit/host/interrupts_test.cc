#include "host/interrupts.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

// Rows from host-sample/proc/interrupts, plus an Arm GIC row and an mlx5 vector.
constexpr const char* kSample =
    "           CPU0       CPU1       \n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 36:          0     113224 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    " 77:        512     900000 PCI-MSIX-0000:12:00.0   3-edge      mlx5_comp2@pci:0000:12:00.0\n"
    " 11:       3021       2044     GICv3  27 Level     arch_timer\n"
    " 40:          0          0  PCI-MSI-0000:00:1f.0   0-edge\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:      32622      32733   Local timer interrupts\n"
    "ERR:          0\n"
    "MIS:          0\n";

TEST(InterruptsTest, ParsesHeaderRowsAndNames) {
  auto t = ParseInterrupts(kSample);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->cpus, (std::vector<int>{0, 1}));
  const InterruptRow* r = t->Find(36);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->counts, (std::vector<uint64_t>{0, 113224}));
  EXPECT_EQ(r->name, "virtio1-req.0");
  EXPECT_EQ(t->Find(24)->name, "ACPI:Ged");
  EXPECT_EQ(t->Find(77)->name, "mlx5_comp2@pci:0000:12:00.0");
  EXPECT_EQ(t->Find(11)->name, "arch_timer");
  EXPECT_EQ(t->Find(40)->name, "0-edge");  // no action name: the last word
  EXPECT_EQ(t->CountOn(*t->Find(77), *CpuSet::ParseList("1")), 900000u);
  EXPECT_EQ(t->Find(77)->Total(), 900512u);
  EXPECT_EQ(t->Find(99), nullptr);
  bool err_seen = false;
  for (const auto& row : t->rows) {
    if (row.label == "ERR") {
      err_seen = true;
      EXPECT_EQ(row.counts.size(), 1u);
      EXPECT_FALSE(row.irq.has_value());
    }
  }
  EXPECT_TRUE(err_seen);
}

TEST(InterruptsTest, HeaderWithOfflineCpusMapsColumns) {
  auto t = ParseInterrupts("   CPU0 CPU2\n 5: 7 9 IO-APIC 5-edge x\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->CountOn(*t->Find(5), *CpuSet::ParseList("2")), 9u);
}

TEST(InterruptsTest, HasNameMatchesEachDeviceAction) {
  auto t = ParseInterrupts(
      "           CPU0       CPU1\n"
      " 38:       1203        877  GICv3 124 Level     tegra241-cmdqv\n"
      " 16:          3          0  IO-APIC 16-fasteoi   i801_smbus, ehci_hcd:usb1\n"
      "IPI0:        10         12       Rescheduling interrupts\n");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->HasName("tegra241-cmdqv"));
  EXPECT_FALSE(t->HasName("arm-smmu-v3-evtq"));
  EXPECT_TRUE(t->HasName("i801_smbus"));
  EXPECT_TRUE(t->HasName("ehci_hcd:usb1"));
  EXPECT_FALSE(InterruptTable().HasName("tegra241-cmdqv"));
}

TEST(InterruptsTest, RejectsMalformedTables) {
  for (const char* bad : {
           "", "garbage\n", "   CPU0 CPUx\n",
           "   CPU0 CPU1\n 36:          0\n",                   // truncated row
           "   CPU0 CPU1\n 36: 1 abc PCI-MSIX 1-edge x\n",      // not a count
           "   CPU0 CPU1\n 36: 1 99999999999999999999999 x\n",  // overflows
           "   CPU0 CPU1\nno colon here\n",
           "   CPU0 CPU1\nLOC: Local timer interrupts\n",  // named row without counts
       }) {
    auto t = ParseInterrupts(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
}

TEST(InterruptsTest, ReadsAffinitiesWithFallbacks) {
  testing::TempHost h;
  h.Write("/proc/irq/24/effective_affinity_list", "1\n");
  h.Write("/proc/irq/24/smp_affinity_list", "0-1\n");
  h.Write("/proc/irq/25/smp_affinity_list", "0\n");
  h.Write("/proc/irq/26/smp_affinity", "00000002\n");
  h.Write("/proc/irq/default_smp_affinity", "3\n");
  auto a = ReadIrqAffinities(h.Host());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->size(), 3u);
  EXPECT_EQ((*a)[0].cpus.ToString(), "1");
  EXPECT_EQ((*a)[0].source, "/proc/irq/24/effective_affinity_list");
  EXPECT_EQ((*a)[1].cpus.ToString(), "0");
  EXPECT_EQ((*a)[2].cpus.ToString(), "1");
  h.Write("/proc/irq/25/smp_affinity_list", "zz\n");
  auto bad = ReadIrqAffinities(h.Host());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/proc/irq/25/smp_affinity_list"), std::string::npos);
}

TEST(InterruptsTest, ReadNamesThePath) {
  testing::TempHost h;
  h.Write("/proc/interrupts", "nonsense\n");
  auto t = ReadInterrupts(h.Host());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("/proc/interrupts"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
