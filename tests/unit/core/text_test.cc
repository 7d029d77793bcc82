#include "core/text.h"

#include <gtest/gtest.h>

namespace ys {
namespace {

TEST(TextTest, NumbersAreParsedWhole) {
  EXPECT_EQ(*ParseInt(" -12\n"), -12);
  EXPECT_FALSE(ParseInt("12abc").has_value());
  EXPECT_FALSE(ParseInt("").has_value());
  EXPECT_FALSE(ParseInt("99999999999999999999999").has_value());
  EXPECT_EQ(*ParseHex("0x10de"), 0x10deu);
  EXPECT_EQ(*ParseHex("ff"), 0xffu);
  EXPECT_FALSE(ParseHex("0xzz").has_value());
  EXPECT_DOUBLE_EQ(*ParseDouble("3.5"), 3.5);
  EXPECT_FALSE(ParseDouble("3.5 GHz").has_value());
}

TEST(TextTest, Glob) {
  EXPECT_TRUE(GlobMatch("cpu.*", "cpu.cstates"));
  EXPECT_FALSE(GlobMatch("cpu.*", "numa.placement"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("state[0-9]", "state3"));
  EXPECT_FALSE(GlobMatch("state[!0-9]", "state3"));
  EXPECT_TRUE(GlobMatch("m?m.*", "mem.settings"));
}

TEST(TextTest, SanitizeForDisplay) {
  EXPECT_EQ(SanitizeForDisplay("plain\ttext\n"), "plain\ttext\n");
  EXPECT_EQ(SanitizeForDisplay("caf\xc3\xa9"), "caf\xc3\xa9");  // valid UTF-8 kept
  EXPECT_EQ(SanitizeForDisplay(std::string("a\0b\x1b[31m", 8)), "a\\x00b\\x1b[31m");
  EXPECT_EQ(SanitizeForDisplay("\x97\xff\xc3"), "\\x97\\xff\\xc3");
}

TEST(TextTest, Splitting) {
  EXPECT_EQ(Split("a,,b", ',').size(), 3u);
  EXPECT_EQ(SplitWhitespace("  a \t b\n").size(), 2u);
  EXPECT_EQ(SplitLines("a\r\nb\n").size(), 2u);
  EXPECT_EQ(Trim("  x \n"), "x");
}

TEST(TextTest, TwoSignificant) {
  EXPECT_EQ(TwoSignificant(250.5), "250");
  EXPECT_EQ(TwoSignificant(311.0), "310");
  EXPECT_EQ(TwoSignificant(618143.4), "620000");
  EXPECT_EQ(TwoSignificant(1.63), "1.6");
  EXPECT_EQ(TwoSignificant(0.049), "0.049");
  EXPECT_EQ(TwoSignificant(0.6181), "0.62");
  EXPECT_EQ(TwoSignificant(10), "10");
  EXPECT_EQ(TwoSignificant(0), "0");
}

TEST(TextTest, Join) {
  EXPECT_EQ(Join({}), "");
  EXPECT_EQ(Join({"a"}), "a");
  EXPECT_EQ(Join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(Join({"a", "b"}, "; "), "a; b");
}

}  // namespace
}  // namespace ys
