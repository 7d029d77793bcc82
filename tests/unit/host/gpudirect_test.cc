#include "host/gpudirect.h"

#include <gtest/gtest.h>

namespace ys::host {
namespace {

TEST(NvidiaDriverVersionTest, ProprietaryAndOpenSpellings) {
  auto prop = ParseNvidiaDriverVersion(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023\n"
      "GCC version:  gcc version 12.3.0\n");
  ASSERT_TRUE(prop.ok()) << prop.status().message();
  EXPECT_EQ(prop->version, "535.129.03");
  EXPECT_FALSE(prop->open_module);
  auto open = ParseNvidiaDriverVersion(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
      "(dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:55:41 UTC 2025\n");
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->version, "580.95.05");
  EXPECT_TRUE(open->open_module);
}

TEST(NvidiaDriverVersionTest, MalformedIsInvalid) {
  for (const char* bad :
       {"", "garbage", "NVRM version:", "NVRM version: NVIDIA UNIX x86_64 Kernel Module",
        "NVRM version: NVIDIA UNIX 12. Kernel", "GCC version: 12.3.0\nNVRM version: 1.2"}) {
    EXPECT_FALSE(ParseNvidiaDriverVersion(bad).ok()) << bad;
  }
}

TEST(KernelReleaseTest, Literals) {
  auto k = ParseKernelRelease("6.8.0-60-generic\n");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->major, 6);
  EXPECT_EQ(k->minor, 8);
  EXPECT_TRUE(k->AtLeast(5, 12));
  auto old = ParseKernelRelease("5.4.0-216-generic");
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->AtLeast(5, 12));
  EXPECT_TRUE(ParseKernelRelease("5.12").ok());
  EXPECT_TRUE(ParseKernelRelease("6.18.44").ok());
  for (const char* bad : {"", "linux", "6", "6.", "x.8.0", "6.x", "99999.1", "-1.2"}) {
    EXPECT_FALSE(ParseKernelRelease(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace ys::host
