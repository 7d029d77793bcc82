// A node's action is the most severe of its rows', with the evidence of the rows that decide it.
#include "fleet/node_action.h"

#include <gtest/gtest.h>

#include <sstream>

#include "fleet/output.h"

namespace ys::fleet {
namespace {

TEST(NodeActionTest, RowActionFromDrainAndWatch) {
  EXPECT_EQ(RowAction(true, false), FleetAction::kDrain);
  EXPECT_EQ(RowAction(false, true), FleetAction::kWatch);
  EXPECT_EQ(RowAction(false, false), FleetAction::kNone);
  EXPECT_STREQ(FleetActionName(FleetAction::kWatch), "watch");
}

TEST(NodeActionTest, TheMostSevereRowDecidesWithItsEvidence) {
  NodeActions a;
  a.Add("n1", FleetAction::kWatch, "gpu3 gemm: 3% low");
  a.Add("n2", FleetAction::kNone, "node duplicate: twice");
  a.Add("n1", FleetAction::kDrain, "node check: YS-GPU-045");
  a.Add("n1", FleetAction::kWatch, "gpu4 gemm: 2% low");
  a.Add("n1", FleetAction::kDrain, "gpu1 hbm: 9% low");
  ASSERT_EQ(a.nodes().size(), 2u);
  EXPECT_EQ(a.nodes()[0].node, "n1");
  EXPECT_EQ(a.nodes()[0].action, FleetAction::kDrain);
  EXPECT_EQ(a.nodes()[0].rows, 4u);
  EXPECT_EQ(a.nodes()[0].evidence, "node check: YS-GPU-045; gpu1 hbm: 9% low");
  EXPECT_EQ(a.nodes()[1].action, FleetAction::kNone);
}

TEST(NodeActionTest, MeaningsNameTheEvidence) {
  EXPECT_NE(FleetActionMeaning(FleetAction::kDrain, 0.02).find("reaches 2.0%"), std::string::npos);
  EXPECT_NE(FleetActionMeaning(FleetAction::kWatch, 0.02).find("family-wise bar"),
            std::string::npos);
}

// The console's node table: each ranked node with its action, coloured when asked, and what the
// actions shown mean.
TEST(NodeActionTest, ConsoleListsEachNodeWithItsAction) {
  FleetReport r;
  r.ranked = {{.node = "n-drain", .entity = "gpu1", .kind = "gemm", .evidence = "12% low"},
              {.node = "n-watch",
               .entity = "gpu2",
               .kind = "gemm",
               .evidence = "1% loss",
               .drain = false,
               .watch = true}};
  std::ostringstream plain, color;
  WriteFleetSummary(r, plain);
  WriteFleetSummary(r, color, 50, /*color=*/true);
  const std::string text = plain.str();
  EXPECT_NE(text.find("nodes (2; action: the most severe of the node's rows):"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  n-drain                  drain     1  gpu1 gemm: 12% low"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  n-watch                  watch     1  gpu2 gemm: 1% loss"),
            std::string::npos);
  EXPECT_NE(text.find("  drain: take the node out of service"), std::string::npos);
  EXPECT_NE(text.find("  watch: keep it in service"), std::string::npos);
  EXPECT_EQ(text.find('\033'), std::string::npos);
  EXPECT_NE(color.str().find("\033[31m  n-drain"), std::string::npos) << color.str();
  EXPECT_NE(color.str().find("\033[33m  n-watch"), std::string::npos);
}

}  // namespace
}  // namespace ys::fleet
