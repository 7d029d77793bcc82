#include "host/page_size.h"

#include <gtest/gtest.h>

namespace ys::host {
namespace {

constexpr const char* kSmaps =
    "55d4c8a00000-55d4c8a2a000 r--p 00000000 103:02 1835143                   /usr/bin/python3.10\n"
    "Size:                168 kB\n"
    "KernelPageSize:       64 kB\n"
    "MMUPageSize:          64 kB\n"
    "THPeligible:    0\n"
    "VmFlags: rd mr mw me sd\n"
    "7f0000000000-7f0040000000 rw-s 00000000 00:10 4242                       /dev/hugepages/buf\n"
    "Size:            1048576 kB\n"
    "KernelPageSize:  1048576 kB\n"
    "7ffc9b5e1000-7ffc9b602000 rw-p 00000000 00:00 0 \n"
    "KernelPageSize:       64 kB\n";

TEST(PageSizeTest, SmallestKernelPageSizeInSmaps) {
  auto kb = BasePageKbFromSmaps(kSmaps);
  ASSERT_TRUE(kb.ok()) << kb.status().message();
  EXPECT_EQ(*kb, 64u);
  auto empty = BasePageKbFromSmaps("");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST(PageSizeTest, SmapsMalformed) {
  for (const char* bad :
       {"garbage\n", "KernelPageSize:\n", "KernelPageSize: 4\n", "KernelPageSize: 4 MB\n",
        "KernelPageSize: 0 kB\n", "KernelPageSize: x kB\n", "55d4c8a00000-55d4c8a2a000 r--p\n"}) {
    EXPECT_FALSE(BasePageKbFromSmaps(bad).ok()) << bad;
  }
}

TEST(PageSizeTest, NumaMaps) {
  auto kb = BasePageKbFromNumaMaps(
      "55663c444000 default file=/usr/bin/head mapped=2 N0=2 kernelpagesize_kB=4\n"
      "7f0000000000 default file=/dev/hugepages/x huge dirty=1 N0=1 kernelpagesize_kB=2048\n");
  ASSERT_TRUE(kb.ok());
  EXPECT_EQ(*kb, 4u);
  auto none = BasePageKbFromNumaMaps("55663c444000 default\n");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(BasePageKbFromNumaMaps("1 default kernelpagesize_kB=four\n").ok());
  EXPECT_FALSE(BasePageKbFromNumaMaps("1 default kernelpagesize_kB=\n").ok());
}

}  // namespace
}  // namespace ys::host
