#include "host/kernel_config.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "testing/check_test_util.h"
#include "testing/gzip.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

constexpr const char* kConfig =
    "#\n# Automatically generated file; DO NOT EDIT.\n# Linux/arm64 6.8.0 Kernel Configuration\n#\n"
    "CONFIG_CC_VERSION_TEXT=\"gcc (Ubuntu 13.2.0) 13.2.0\"\n"
    "CONFIG_ARM64_PAGE_SHIFT=16\n"
    "# CONFIG_ARM64_4K_PAGES is not set\n"
    "CONFIG_ARM64_64K_PAGES=y\n"
    "\n"
    "# IOMMU Hardware Support\n"
    "CONFIG_ARM_SMMU_V3=m\n"
    "CONFIG_TEGRA241_CMDQV=y\n";

TEST(KernelConfigTest, ParsesValuesAndNotSet) {
  auto c = ParseKernelConfig(kConfig);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->Get("CONFIG_ARM64_4K_PAGES"), "n");
  EXPECT_EQ(c->Get("CONFIG_ARM64_PAGE_SHIFT"), "16");
  EXPECT_EQ(c->Get("CONFIG_CC_VERSION_TEXT"), "\"gcc (Ubuntu 13.2.0) 13.2.0\"");
  EXPECT_TRUE(c->Enabled("CONFIG_ARM_SMMU_V3"));
  EXPECT_TRUE(c->Enabled("CONFIG_TEGRA241_CMDQV"));
  EXPECT_FALSE(c->Enabled("CONFIG_ARM64_4K_PAGES"));
  EXPECT_FALSE(c->Get("CONFIG_NOT_THERE").has_value());
}

TEST(KernelConfigTest, MalformedIsInvalidWithTheLine) {
  for (const char* bad : {"", "# only comments\n", "garbage\n", "CONFIG_X=y\nnot a line\n", "=y\n",
                          "CONFIG_=y\n", "CONFIG X=y\n"}) {
    auto c = ParseKernelConfig(bad);
    EXPECT_FALSE(c.ok()) << bad;
  }
  auto c = ParseKernelConfig("CONFIG_X=y\nnot a line\n");
  EXPECT_NE(c.status().message().find("line 2"), std::string::npos) << c.status().message();
}

TEST(GunzipTest, RoundTripTruncatedCorruptAndBomb) {
  auto plain = Gunzip(testing::Gzip(kConfig), 1 << 20);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(*plain, kConfig);
  std::string gz = testing::Gzip(kConfig);
  EXPECT_FALSE(Gunzip(gz.substr(0, gz.size() - 12), 1 << 20).ok());  // truncated
  EXPECT_FALSE(Gunzip(gz.substr(0, 10), 1 << 20).ok());
  std::string corrupt = gz;
  corrupt[gz.size() / 2] ^= 0x5a;
  corrupt[gz.size() / 2 + 1] ^= 0x33;
  EXPECT_FALSE(Gunzip(corrupt, 1 << 20).ok());
  EXPECT_FALSE(Gunzip("", 1 << 20).ok());
  EXPECT_FALSE(Gunzip("CONFIG_X=y\n", 1 << 20).ok());
  std::string zeros(4 << 20, '\0');
  auto bomb = Gunzip(testing::Gzip(zeros), 1 << 20);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.status().message().find("limit"), std::string::npos);
}

TEST(ReadKernelConfigTest, ProcConfigGzThenBootConfig) {
  TempHost t;
  auto none = ReadKernelConfig(t.Host());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  t.Write("/proc/sys/kernel/osrelease", "6.8.0-1013-nvidia\n");
  none = ReadKernelConfig(t.Host());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("/boot/config-6.8.0-1013-nvidia"), std::string::npos);

  t.Write("/boot/config-6.8.0-1013-nvidia", "# CONFIG_TEGRA241_CMDQV is not set\n");
  auto boot = ReadKernelConfig(t.Host());
  ASSERT_TRUE(boot.ok());
  EXPECT_EQ(boot->path, "/boot/config-6.8.0-1013-nvidia");
  EXPECT_EQ(boot->Get("CONFIG_TEGRA241_CMDQV"), "n");

  t.Write("/proc/config.gz", testing::Gzip(kConfig));
  auto proc = ReadKernelConfig(t.Host());
  ASSERT_TRUE(proc.ok());
  EXPECT_EQ(proc->path, "/proc/config.gz");
  EXPECT_TRUE(proc->Enabled("CONFIG_TEGRA241_CMDQV"));

  t.Write("/proc/config.gz", "plain text");
  auto bad = ReadKernelConfig(t.Host());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/proc/config.gz"), std::string::npos);
  t.Write("/proc/config.gz", testing::Gzip("garbage\n"));
  bad = ReadKernelConfig(t.Host());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/proc/config.gz: line 1"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace ys::host
