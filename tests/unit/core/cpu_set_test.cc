#include "core/cpu_set.h"

#include <gtest/gtest.h>

namespace ys {
namespace {

TEST(CpuSetTest, ParsesListsAndRanges) {
  auto s = CpuSet::ParseList("0-4,6,8-10\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->size(), 9u);
  EXPECT_EQ(s->ToString(), "0-4,6,8-10");
  EXPECT_TRUE(CpuSet::ParseList("").ok());
  EXPECT_TRUE(CpuSet::ParseList("")->empty());
}

TEST(CpuSetTest, RejectsMalformedLists) {
  for (const char* bad : {"3-1", "a", "1--2", "0-", ",", "1,,2", "-1", "0-99999999999"}) {
    EXPECT_FALSE(CpuSet::ParseList(bad).ok()) << bad;
  }
}

TEST(CpuSetTest, ParsesMasks) {
  EXPECT_EQ(CpuSet::ParseMask("3")->ToString(), "0-1");
  EXPECT_EQ(CpuSet::ParseMask("00000000,00000001")->ToString(), "0");
  EXPECT_EQ(CpuSet::ParseMask("1,00000000")->ToString(), "32");
  EXPECT_FALSE(CpuSet::ParseMask("xyz").ok());
  EXPECT_FALSE(CpuSet::ParseMask("").ok());
  EXPECT_FALSE(CpuSet::ParseMask("123456789").ok());
}

TEST(CpuSetTest, SetAlgebra) {
  CpuSet a = *CpuSet::ParseList("0-7");
  CpuSet b = *CpuSet::ParseList("4-11");
  EXPECT_EQ(a.Intersect(b).ToString(), "4-7");
  EXPECT_EQ(a.Union(b).ToString(), "0-11");
  EXPECT_EQ(a.Minus(b).ToString(), "0-3");
  EXPECT_TRUE(CpuSet::ParseList("1-2")->IsSubsetOf(a));
  EXPECT_FALSE(b.IsSubsetOf(a));
}

}  // namespace
}  // namespace ys
