// The fleet page's node table: an action column (drain, watch, none) with each row coloured by it
// and a legend of what each action means, drawn from the fleet document as merge writes it.
#include "report/html/html_fleet_page.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fleet/output.h"

namespace ys::report::html {
namespace {

fleet::RankedFinding FleetRow(const std::string& node, const std::string& entity, bool drain,
                              bool watch, const std::string& evidence) {
  return {.node = node,
          .entity = entity,
          .kind = "gemm",
          .deficit = 0.1,
          .figures = 4,
          .evidence = evidence,
          .drain = drain,
          .watch = watch};
}

std::string ThreeNodePage() {
  fleet::FleetReport r;
  r.ranked = {FleetRow("n-drain", "gpu1", true, false, "gpu1 12% low"),
              FleetRow("n-watch", "gpu2", false, true, "gpu2 1% loss"),
              FleetRow("n-drain", "gpu3", false, true, "gpu3 1% loss"),
              FleetRow("n-none", "node", false, false, "<b>duplicate</b>")};
  r.ranked.back().kind = "duplicate";
  r.nodes = {"n-drain", "n-none", "n-watch", "n-ok"};
  return FleetHeatMapPage(fleet::ToJson(r));
}

TEST(HtmlFleetPageTest, NodeTableHasAnActionColumnAndRowsColouredByIt) {
  const std::string page = ThreeNodePage();
  EXPECT_NE(page.find("<tr><th>node</th><th>action</th>"), std::string::npos) << page;
  // The drain decides n-drain; its title is the evidence of the row that drains.
  EXPECT_NE(page.find("<tr class=\"action-drain\"><td class=\"node\">n-drain</td><td "
                      "class=\"action\" title=\"gpu1 gemm: gpu1 12% low\">drain</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<tr class=\"action-watch\"><td class=\"node\">n-watch</td><td "
                      "class=\"action\" title=\"gpu2 gemm: gpu2 1% loss\">watch</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<tr class=\"action-none\"><td class=\"node\">n-none</td><td "
                      "class=\"action\" title=\"node duplicate: &lt;b&gt;duplicate&lt;/b&gt;\">"
                      "none</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("tr.action-drain td.node,tr.action-drain td.action{background:"),
            std::string::npos);
  EXPECT_NE(page.find("tr.action-watch td.node,tr.action-watch td.action{background:"),
            std::string::npos);
  EXPECT_EQ(page.find("tr.action-none"), std::string::npos) << "none stays neutral";
}

TEST(HtmlFleetPageTest, LegendSaysWhatEachActionMeans) {
  const std::string page = ThreeNodePage();
  size_t legend = page.find("<dl class=\"actions\" id=\"action-legend\">");
  ASSERT_NE(legend, std::string::npos) << page;
  EXPECT_NE(
      page.find("<dt class=\"action-drain\">drain</dt><dd>take the node out of service", legend),
      std::string::npos);
  EXPECT_NE(page.find("reaches 2.0% and its z passes the family-wise bar", legend),
            std::string::npos);
  EXPECT_NE(page.find("<dt class=\"action-watch\">watch</dt>", legend), std::string::npos);
  EXPECT_NE(page.find("<dt class=\"action-none\">none</dt>", legend), std::string::npos);
}

}  // namespace
}  // namespace ys::report::html
