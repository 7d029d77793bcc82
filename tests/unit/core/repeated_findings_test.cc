// One grouping for every console printer of findings: same code and same text apart from the
// entity, shown once with the count and the entities; the items' order kept.
#include "core/repeated_findings.h"

#include <gtest/gtest.h>

namespace ys {
namespace {

TEST(RepeatedFindingsTest, SameCodeAndTextGroupWithCountAndEntities) {
  std::vector<RepeatKey> items;
  for (int i = 7; i >= 0; --i) items.push_back({"YS-GPU-045", "gpu" + std::to_string(i), "link 7"});
  std::vector<RepeatGroup> g = GroupRepeats(items);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].members.size(), 8u);
  EXPECT_EQ(g[0].members.front(), 0u);
  EXPECT_EQ(g[0].entities, "×8 (gpu0-gpu7)");
}

TEST(RepeatedFindingsTest, DifferentTextOrCodeStaysApartAndOrderIsKept) {
  std::vector<RepeatGroup> g = GroupRepeats({{"YS-GPU-040", "gpu4", "fail XID 79"},
                                             {"YS-GPU-045", "gpu0", "fail link 7"},
                                             {"YS-GPU-045", "gpu1", "fail link 3"},
                                             {"YS-GPU-045", "gpu2", "fail link 7"},
                                             {"YS-GPU-046", "gpu0", "fail link 7"},
                                             {"YS-GPU-045", "gpu3", "warn link 7"}});
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].entities, "gpu4");
  EXPECT_EQ(g[1].members, (std::vector<size_t>{1, 3}));
  EXPECT_EQ(g[1].entities, "×2 (gpu0,gpu2)");
  EXPECT_EQ(g[2].entities, "gpu1");
  EXPECT_EQ(g[3].entities, "gpu0");
  EXPECT_EQ(g[4].entities, "gpu3");
}

TEST(RepeatedFindingsTest, EntitySpanJoinsRunsOfOnePrefix) {
  EXPECT_EQ(EntitySpan({"gpu5", "gpu0", "gpu1", "gpu2", "gpu3"}), "gpu0-gpu3,gpu5");
  EXPECT_EQ(EntitySpan({"node", "gpu1", "node", "mlx5_0", "mlx5_1"}), "node,gpu1,mlx5_0-mlx5_1");
  EXPECT_EQ(EntitySpan({"gpu01", "gpu02"}), "gpu01,gpu02");  // not numbers: listed as they are
  std::vector<std::string> many;
  for (int i = 0; i < 20; i += 2) many.push_back("gpu" + std::to_string(i));
  EXPECT_EQ(EntitySpan(many), "gpu0,gpu2,gpu4,gpu6,gpu8,gpu10,gpu12,gpu14,+2 more");
}

}  // namespace
}  // namespace ys
