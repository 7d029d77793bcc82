#include "core/path_component.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ys {
namespace {

TEST(PathComponentTest, AcceptsIdsAndNames) {
  for (const char* good :
       {"llama3.1_70b_fp8", "nemotron-h_56b_fp8", "node017", "a", "..a", "a..b", "v26.06.01"}) {
    EXPECT_TRUE(ValidatePathComponent("id", good).ok()) << good;
  }
  EXPECT_TRUE(IsSafePathComponent(std::string(kMaxPathComponentChars, 'a')));
}

TEST(PathComponentTest, RefusesWhatLeavesItsDirectory) {
  for (const std::string& bad : std::vector<std::string>{
           "", ".", "..", "-rf", "a/b", "../x", "/etc", "a b", "a;b", "a$(b)", "a\nb", "a'b",
           "a`b`", "a\\b", "\xc3\xa9", std::string("a\0b", 3), std::string(129, 'a')}) {
    auto s = ValidatePathComponent("suites/x.toml: [[workload]] 2 id", bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
    EXPECT_NE(s.message().find("suites/x.toml: [[workload]] 2 id"), std::string::npos)
        << s.message();
  }
  EXPECT_NE(ValidatePathComponent("id",
                                  "a\x01"
                                  "b")
                .message()
                .find("\\x01"),
            std::string::npos);
}

TEST(PathComponentTest, DefaultPathsFromHostNamesAreMadeSafe) {
  EXPECT_EQ(PathComponentFrom("node017.cluster", "host"), "node017.cluster");
  EXPECT_EQ(PathComponentFrom("../../etc", "host"), ".._.._etc");
  EXPECT_EQ(PathComponentFrom("a/b c\n", "host"), "a_b_c_");
  EXPECT_EQ(PathComponentFrom("-rf", "host"), "_rf");
  for (const char* empty : {"", ".", ".."}) EXPECT_EQ(PathComponentFrom(empty, "host"), "host");
  EXPECT_EQ(PathComponentFrom(std::string(300, 'a'), "host").size(), kMaxPathComponentChars);
  EXPECT_TRUE(IsSafePathComponent(HostNameForPath()));
}

}  // namespace
}  // namespace ys
