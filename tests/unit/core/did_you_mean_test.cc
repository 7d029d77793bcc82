#include "core/did_you_mean.h"

#include <gtest/gtest.h>

namespace ys {
namespace {

TEST(DidYouMeanTest, EditDistanceCountsASwapAsOneEdit) {
  EXPECT_EQ(EditDistance("preflight", "preflight"), 0u);
  EXPECT_EQ(EditDistance("preflgiht", "preflight"), 1u);  // "gi" for "ig": one swap
  EXPECT_EQ(EditDistance("josn", "json"), 1u);
  EXPECT_EQ(EditDistance("H100", "h100"), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

TEST(DidYouMeanTest, SuggestsOnlyWhatIsNearEnoughToBeATypo) {
  std::vector<std::string> commands = {"preflight", "run", "bench", "validate", "report"};
  EXPECT_EQ(NearestName("preflgiht", commands), "preflight");
  EXPECT_EQ(NearestName("rn", commands), "run");
  EXPECT_EQ(NearestName("frobnicate", commands), "");
  EXPECT_EQ(NearestName("run", commands), "") << "a candidate itself needs no suggestion";
  EXPECT_EQ(DidYouMean("--josn", {"--json", "--junit"}), "; did you mean '--json'?");
  EXPECT_EQ(DidYouMean("h1000", {"h100", "h200", "b200"}), "; did you mean 'h100'?");
  EXPECT_EQ(DidYouMean("H100", {"h100", "h200"}), "; did you mean 'h100'?");
  EXPECT_EQ(DidYouMean("zzzz", {"h100"}), "");
}

TEST(DidYouMeanTest, ChipAndModelNamesIgnoreCaseAndSeparators) {
  std::vector<std::string> chips = {"b200", "gb200", "h100", "h200"};
  EXPECT_EQ(MatchName("H100", chips), "h100");
  EXPECT_EQ(MatchName("h100", chips), "h100");
  EXPECT_EQ(MatchName("h1000", chips), "");
  EXPECT_EQ(DidYouMean("h1000", chips), "; did you mean 'h100'?");
  std::vector<std::string> models = {"llama3.1_70b", "llama3.1_8b", "qwen3_235b"};
  EXPECT_EQ(MatchName("Llama3.1-70B", models), "llama3.1_70b");
  EXPECT_EQ(MatchName("llama3-70b", models), "") << "a missing '.1' is a typo, not the name";
  EXPECT_EQ(NearestName("llama3-70b", models), "llama3.1_70b");
  EXPECT_EQ(NearestName("qwen3-235b", models), "qwen3_235b");
  EXPECT_EQ(NearestName("mixtral_8x7b", models), "");
  EXPECT_EQ(MatchName("", models), "");
}

}  // namespace
}  // namespace ys
