#include "host/sysfs_attr.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(SysfsAttrTest, Flags) {
  EXPECT_EQ(ParseFlag("1\n"), true);
  EXPECT_EQ(ParseFlag("0"), false);
  EXPECT_EQ(ParseFlag("Y"), true);
  EXPECT_EQ(ParseFlag("N"), false);
  EXPECT_EQ(ParseFlag(""), std::nullopt);
  EXPECT_EQ(ParseFlag("2"), std::nullopt);
  EXPECT_EQ(ParseFlag("yes"), std::nullopt);
}

TEST(SysfsAttrTest, AbsentIsNulloptMalformedIsAnErrorNamingThePath) {
  testing::TempHost t;
  t.Write("/sys/a/int", "42\n");
  t.Write("/sys/a/bad", "forty-two\n");
  t.Write("/sys/a/flag", "1\n");
  t.Write("/sys/a/line", "  hello world \nsecond\n");
  Host h = t.Host();
  EXPECT_EQ(*ReadOptionalInt(h, "/sys/a/int"), 42);
  EXPECT_EQ(*ReadOptionalInt(h, "/sys/a/none"), std::nullopt);
  auto bad = ReadOptionalInt(h, "/sys/a/bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/sys/a/bad"), std::string::npos);
  EXPECT_EQ(*ReadOptionalFlag(h, "/sys/a/flag"), true);
  EXPECT_EQ(*ReadOptionalFlag(h, "/sys/a/none"), std::nullopt);
  auto not_flag = ReadOptionalFlag(h, "/sys/a/int");
  ASSERT_FALSE(not_flag.ok());
  EXPECT_NE(not_flag.status().message().find("/sys/a/int"), std::string::npos);
  EXPECT_EQ(*ReadOptionalLine(h, "/sys/a/line"), "hello world");
  EXPECT_EQ(*ReadOptionalLine(h, "/sys/a/none"), std::nullopt);
  EXPECT_FALSE(ReadOptionalLine(h, "/sys/a").ok());  // a directory is not absent
}

}  // namespace
}  // namespace ys::host
