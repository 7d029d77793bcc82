#include "gpu/xid.h"

#include <gtest/gtest.h>

#include <string>

namespace ys::gpu {
namespace {

TEST(XidTest, ParsesDriverFormats) {
  auto e = ParseXidLine(
      "NVRM: Xid (PCI:0000:1B:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
      "bus.");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pci, "0000:1b:00");
  EXPECT_EQ(e->xid, 79);
  EXPECT_EQ(e->detail, "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
  // Older drivers: no "PCI:" prefix; the kernel's own prefix before NVRM.
  auto old = ParseXidLine("[ 12.3] NVRM: Xid (0000:03:00): 13, Graphics Exception: ESR 0x1");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->pci, "0000:03:00");
  EXPECT_EQ(old->xid, 13);
  auto bare = ParseXidLine("NVRM: Xid (PCI:0009:01:00): 119");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->xid, 119);
  EXPECT_EQ(bare->detail, "");
}

TEST(XidTest, RejectsWhatIsNotAnXid) {
  for (const char* text :
       {"", "garbage", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05",
        "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12028, Non-fatal, Link 32",
        "NVRM: Xid (PCI:0000:1b:00", "NVRM: Xid (PCI:0000:1b:00) 79",
        "NVRM: Xid (PCI:0000:1b:00): ", "NVRM: Xid (PCI:0000:1b:00): x79",
        "NVRM: Xid (PCI:zz:1b:00): 79", "NVRM: Xid (PCI:1b:00): 79",
        "NVRM: Xid (PCI:0000:1b:00): 99999999999999999999"}) {
    EXPECT_FALSE(ParseXidLine(text).has_value()) << text;
  }
}

TEST(XidTest, DcgmClassification) {
  for (int x : {48, 64, 74, 79, 95, 119, 120, 140})
    EXPECT_EQ(DcgmXidClass(x), XidClass::kFatal) << x;
  for (int x : {94, 63, 32, 38, 39, 42, 54, 56, 57, 58, 60, 61, 62, 67, 73, 78, 93, 121, 137}) {
    EXPECT_EQ(DcgmXidClass(x), XidClass::kWarn) << x;
  }
  for (int x : {13, 31, 43, 45}) EXPECT_EQ(DcgmXidClass(x), XidClass::kApplication) << x;
  EXPECT_EQ(DcgmXidClass(154), XidClass::kUnlisted);
  EXPECT_EQ(XidMeaning(79), "GPU has fallen off the bus");
  // 154 is in none of DCGM's lists but NVIDIA's catalogue gives it a meaning.
  EXPECT_NE(XidMeaning(154).find("recovery action"), std::string_view::npos);
  EXPECT_FALSE(XidFix(48).empty());
  EXPECT_FALSE(XidFix(12345).empty());
}

}  // namespace
}  // namespace ys::gpu
