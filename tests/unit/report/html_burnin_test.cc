// The HTML report's Burn-in section on an in-memory burn-in (burnin_sample.h): the headline
// figures as formatted, the planted-faults warning, the tables, a hostile entity name kept as
// text in the markup and in the chart data, the two charts and their datasets, no chart without
// windows, and no section at all for a document that is not a burn-in.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "burnin_sample.h"
#include "report/burnin_text.h"
#include "report/html/html_report.h"
#include "report/html/html_section.h"

namespace ys::report::html {
namespace {

using ys::testing::BurninDocument;
using ys::testing::kHostileEntity;
using ys::testing::SampleBurnin;

const std::string kFakeChartJs = "var Chart = function () {};";

ReportInput InputOf(RunDocument doc) {
  ReportInput in;
  in.source = "burnin.json";
  in.run = std::move(doc);
  return in;
}

std::string Section(const std::string& page, const std::string& id) {
  size_t a = page.find("<section id=\"" + id + "\">");
  if (a == std::string::npos) return "";
  return page.substr(a, page.find("</section>", a) - a);
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HtmlBurnin, HeadlineTablesAndFormats) {
  std::string page = BuildHtmlReport(InputOf(BurninDocument(SampleBurnin())), kFakeChartJs);
  std::string s = Section(page, "burnin");
  ASSERT_FALSE(s.empty());
  EXPECT_NE(page.find("<a href=\"#burnin\">Burn-in</a>"), std::string::npos);
  // The section follows the step times.
  EXPECT_LT(page.find("<section id=\"step-times\">"), page.find("<section id=\"burnin\">"));
  // The planted-faults warning box.
  EXPECT_NE(s.find("<div class=\"alert\" id=\"burnin-planted\">faults were planted by a recorded "
                   "timeline: this is a test run"),
            std::string::npos);
  EXPECT_NE(s.find("gpu1 miscompare at 754 s"), std::string::npos);
  // Headline.
  EXPECT_NE(s.find("2:00:00 of 4:00:00 (incomplete)"), std::string::npos);
  EXPECT_NE(s.find("MTBF 2.0 h (4.0 entity-hours, 2 faults)"), std::string::npos);
  EXPECT_NE(s.find("98.75%"), std::string::npos);
  EXPECT_NE(s.find("recorded: timeline.json"), std::string::npos);
  EXPECT_NE(s.find("240 cycles of 30 s"), std::string::npos);
  EXPECT_NE(s.find("FAIL: 2 faults (1 fail, 1 warn) on 2 of 2 entities"), std::string::npos);
  // Interruption: load time, gap and redone as h:mm:ss.
  EXPECT_NE(s.find("<td class=\"num\">0:25:00</td><td>2026-11-30T00:25:00Z</td><td>2026-11-30T00:"
                   "30:00Z</td><td class=\"num\">0:05:00</td><td>killed</td><td class=\"num\">0:"
                   "00:45</td>"),
            std::string::npos)
      << s;
  // Faults: load time and UTC, severity, still present / cleared.
  EXPECT_NE(s.find("<tr class=\"fail\"><td class=\"num\">0:12:34</td><td>2026-11-30T00:12:34Z</td>"
                   "<td>node1</td><td>gpu1</td><td>miscompare</td><td>fail</td>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("first_bad_iteration = 17</td><td>still present</td>"), std::string::npos);
  EXPECT_NE(s.find("<td>at 0:35:00</td>"), std::string::npos);
  // Entities: rates with their unit, last window against the baseline, temperatures, stable.
  EXPECT_NE(s.find("<tr class=\"unstable\"><td>node1</td><td>gpu1</td><td>sgemm GFLOPS</td>"),
            std::string::npos);
  EXPECT_NE(s.find("45500 GFLOPS (91.0% of baseline)"), std::string::npos);
  EXPECT_NE(s.find("<td class=\"num\">70 °C</td><td class=\"num\">4.5 °C</td>"), std::string::npos);
  EXPECT_NE(s.find("10.47%"), std::string::npos);
  EXPECT_NE(s.find("no temperature sensor: the recorded timeline has none"), std::string::npos);
  // Nodes.
  EXPECT_NE(s.find("<tr><td>node1</td><td class=\"num\">2</td><td class=\"num\">2</td><td "
                   "class=\"num\">10.00%</td></tr>"),
            std::string::npos);
}

TEST(HtmlBurnin, HostileEntityNameStaysText) {
  std::string page = BuildHtmlReport(InputOf(BurninDocument(SampleBurnin())), kFakeChartJs);
  EXPECT_EQ(page.find(kHostileEntity), std::string::npos);
  EXPECT_NE(page.find("gpu0&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // In the chart data too: no "</script>" can end the data block.
  EXPECT_NE(page.find("gpu0\\u003cscript\\u003ealert(1)\\u003c/script\\u003e@node1"),
            std::string::npos);
}

TEST(HtmlBurnin, TwoChartsOverTheWindows) {
  ReportInput in = InputOf(BurninDocument(SampleBurnin()));
  ChartIds ids;
  auto s = BurninSection(in, ids);
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->charts.size(), 2u);
  for (const ChartSpec& c : s->charts) {
    EXPECT_NE(s->body.find("<canvas id=\"" + c.canvas_id + "\""), std::string::npos);
  }
  // Rate: both entities and the drift limit; % of baseline at each window start, in minutes
  // (a 2-hour run).
  const auto& rate = (*s->charts[0].config)["data"]["datasets"];
  ASSERT_EQ(rate.size(), 3u);
  EXPECT_EQ(rate[0]["label"], "gpu1@node1");
  EXPECT_DOUBLE_EQ(rate[0]["data"][1]["x"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(rate[0]["data"][2]["y"].get<double>(), 91.0);
  EXPECT_EQ(rate[2]["label"], "drift limit 95.0%");
  EXPECT_DOUBLE_EQ(rate[2]["data"][0]["y"].get<double>(), 95.0);
  EXPECT_EQ((*s->charts[0].config)["options"]["scales"]["x"]["title"]["text"],
            "load time (min, window start)");
  // Temperature: only the entity with a sensor, and its limit (steady 70 + 2).
  const auto& temp = (*s->charts[1].config)["data"]["datasets"];
  ASSERT_EQ(temp.size(), 2u);
  EXPECT_EQ(temp[0]["label"], "gpu1@node1");
  EXPECT_DOUBLE_EQ(temp[0]["data"][2]["y"].get<double>(), 74.5);
  EXPECT_EQ(temp[1]["label"], "gpu1@node1 limit 72 °C");
  EXPECT_DOUBLE_EQ(temp[1]["data"][1]["y"].get<double>(), 72.0);
}

TEST(HtmlBurnin, NoChartWithoutWindows) {
  BurninReport r = SampleBurnin();
  for (BurninEntity& e : r.entities) e.windows.clear();
  std::string page = BuildHtmlReport(InputOf(BurninDocument(r)), kFakeChartJs);
  std::string s = Section(page, "burnin");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.find("<canvas"), std::string::npos);
  EXPECT_NE(s.find("No rate chart: no window carries a rate against a baseline."),
            std::string::npos);
  EXPECT_NE(s.find("No temperature chart"), std::string::npos);
  EXPECT_NE(page.find("<body data-charts=\"0\">"), std::string::npos);
}

TEST(HtmlBurnin, CleanRunSaysNoFault) {
  BurninReport r = SampleBurnin();
  r.faults.clear();
  r.planted.clear();
  r.interruptions.clear();
  r.mtbf_h.reset();
  r.complete = true;
  r.elapsed_s = r.duration_s;
  for (BurninEntity& e : r.entities) e.stable = true;
  std::string s = Section(BuildHtmlReport(InputOf(BurninDocument(r)), kFakeChartJs), "burnin");
  EXPECT_EQ(s.find("class=\"alert\""), std::string::npos);
  EXPECT_NE(s.find("no fault in 4.0 entity-hours (no MTBF without a fault)"), std::string::npos);
  EXPECT_NE(s.find("No fault in 4:00:00 of load."), std::string::npos);
  EXPECT_NE(s.find("No interruption"), std::string::npos);
  EXPECT_NE(s.find("<tr class=\"pass\"><th>verdict</th><td>PASS: no fault on 2 entities in "
                   "4:00:00 of load</td>"),
            std::string::npos);
}

TEST(HtmlBurnin, LeftOffWhenNotABurnin) {
  RunDocument doc;
  doc.command = "run";
  doc.host.hostname = "node1";
  ReportInput in = InputOf(doc);
  ChartIds ids;
  EXPECT_FALSE(BurninSection(in, ids).has_value());
  std::string page = BuildHtmlReport(in, kFakeChartJs);
  EXPECT_EQ(page.find("id=\"burnin\""), std::string::npos);
  EXPECT_EQ(page.find("#burnin"), std::string::npos);
  EXPECT_EQ(Count(page, "Burn-in"), 0u);
}

TEST(HtmlBurnin, LoadTimeText) {
  EXPECT_EQ(FormatLoadTime(0), "0:00:00");
  EXPECT_EQ(FormatLoadTime(754), "0:12:34");
  EXPECT_EQ(FormatLoadTime(3599.6), "1:00:00");
  EXPECT_EQ(FormatLoadTime(259200), "72:00:00");
  EXPECT_EQ(FormatLoadTime(-1), "-");
  EXPECT_EQ(FormatAvailability(0.9995), "99.95%");
  EXPECT_EQ(FormatAvailability(1), "100.00%");
}

}  // namespace
}  // namespace ys::report::html
