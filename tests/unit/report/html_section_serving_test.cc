// The report's serving section over a serving suite's validation.json
// (tests/fixtures/runs/serving-phases, written by `yardstick validate`): a table and verdict per
// phase, and a plot of tokens/s per GPU against tokens/s per user with the measured point, the
// reference point and the pass frontier. Drawing is checked in Chromium by
// tests/integration/report_test.sh.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/html/html_report.h"
#include "report/html/html_section.h"
#include "report/html/report_input.h"

namespace ys::report::html {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace html_section_serving_test {
namespace {

using json = nlohmann::json;

const std::string kServingFixture =
    std::string(YS_FIXTURES_DIR) + "/runs/serving-phases/validation.json";

json ServingDocument() {
  std::ifstream in(kServingFixture);
  return json::parse(in);
}

ReportInput ServingInput(const json& doc) {
  ReportInput in;
  in.source = "validation.json";
  Status s = AddDocument(doc, "validation.json", in);
  EXPECT_TRUE(s.ok()) << s.message();
  return in;
}

// The section's charts' configurations, as the page carries them.
json ServingCharts(const HtmlSection& s) {
  json out = json::array();
  for (const ChartSpec& c : s.charts) out.push_back(json::parse(c.config->dump()));
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlSectionServing, APhaseTableAndPlotPerPhase) {
  ChartIds ids;
  auto s = ServingSection(ServingInput(ServingDocument()), ids);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->id, "serving");
  const std::string& b = s->body;
  EXPECT_EQ(Count(b, "<div class=\"serving-phase\""), 4u);
  EXPECT_NE(b.find("data-phase=\"qwen_chat_pass\" data-outcome=\"pass\""), std::string::npos);
  EXPECT_NE(b.find("data-phase=\"qwen_chat_fail\" data-outcome=\"fail\""), std::string::npos);
  EXPECT_NE(b.find("data-phase=\"qwen_reasoning_other_lengths\" data-outcome=\"inconclusive\""),
            std::string::npos);
  // A metric table for each scored phase, with every column.
  EXPECT_EQ(Count(b, "<table class=\"serving-metrics\""), 2u);
  EXPECT_NE(b.find("<th>metric</th><th>measured</th><th>reference</th><th>score</th>"
                   "<th>result</th><th>note</th>"),
            std::string::npos);
  EXPECT_NE(b.find("<td class=\"num\">386</td><td class=\"num\">380</td><td "
                   "class=\"num\">101.5%</td><td>pass</td>"),
            std::string::npos)
      << b;
  EXPECT_NE(b.find("<td class=\"num\">85.7%</td><td>fail</td>"), std::string::npos);
  // The phase verdicts with their reasons; the refused point listed.
  EXPECT_NE(b.find("<b class=\"fail\">fail</b>: below the rule:"), std::string::npos);
  EXPECT_NE(b.find("<li>concurrency 8: asked ISL/OSL 100/200, the phase is 1000/1000</li>"),
            std::string::npos);
  EXPECT_NE(b.find("no serving output"), std::string::npos);
  // A plot for each phase with a reference: three, and a note for the one without.
  EXPECT_EQ(s->charts.size(), 3u);
  EXPECT_EQ(Count(b, "<canvas "), 3u);
  EXPECT_NE(b.find("No plot: no reference throughput"), std::string::npos);
}

TEST(HtmlSectionServing, ThePlotHasTheMeasuredPointTheReferenceAndTheFrontier) {
  ChartIds ids;
  auto s = ServingSection(ServingInput(ServingDocument()), ids);
  ASSERT_TRUE(s.has_value());
  json charts = ServingCharts(*s);
  ASSERT_EQ(charts.size(), 3u);
  const json& pass = charts[0];
  EXPECT_EQ(pass["type"], "scatter");
  const json& sets = pass["data"]["datasets"];
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0]["label"], "measured (concurrency 8)");
  // Measured: 1000 / TPOT mean tokens/s per user, the tokens/s per GPU compared.
  EXPECT_NEAR(sets[0]["data"][0]["x"].get<double>(), 1000 / 18.504134, 1e-4);
  EXPECT_NEAR(sets[0]["data"][0]["y"].get<double>(), 385.66785, 1e-4);
  EXPECT_EQ(sets[1]["label"], "reference");
  EXPECT_EQ(sets[1]["data"][0], (json{{"x", 54.0}, {"y", 380.0}}));
  // The frontier: 95% of the reference's throughput, from 0 to its interactivity.
  EXPECT_EQ(sets[2]["label"], "95% frontier");
  EXPECT_EQ(sets[2]["showLine"], true);
  ASSERT_EQ(sets[2]["data"].size(), 2u);
  EXPECT_EQ(sets[2]["data"][0]["x"], 0);
  EXPECT_NEAR(sets[2]["data"][0]["y"].get<double>(), 361, 1e-9);
  EXPECT_EQ(sets[2]["data"][1]["x"], 54.0);
  EXPECT_EQ(pass["options"]["scales"]["x"]["title"]["text"], "output tokens/s per user");
  EXPECT_EQ(pass["options"]["scales"]["y"]["title"]["text"], "output tokens/s per GPU");
  // A reference without its interactivity: 1000 / its TPOT (18 ms).
  EXPECT_NEAR(charts[1]["data"]["datasets"][1]["data"][0]["x"].get<double>(), 1000.0 / 18, 1e-9);
  // The refused point is not drawn: the reference and the frontier only.
  const json& open = charts[2]["data"]["datasets"];
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0]["label"], "reference");
  EXPECT_NE(s->body.find("The measured point is not drawn"), std::string::npos);
}

TEST(HtmlSectionServing, TheFrontierFollowsTheSuiteThreshold) {
  json doc = ServingDocument();
  doc["suite"]["threshold"] = 0.9;
  ChartIds ids;
  auto s = ServingSection(ServingInput(doc), ids);
  ASSERT_TRUE(s.has_value());
  const json sets = ServingCharts(*s)[0]["data"]["datasets"];
  EXPECT_EQ(sets[2]["label"], "90% frontier");
  EXPECT_NEAR(sets[2]["data"][1]["y"].get<double>(), 342, 1e-9);
}

TEST(HtmlSectionServing, OnThePageWithTheVerdictAndLeftOffWithoutPhases) {
  ReportInput in = ServingInput(ServingDocument());
  std::string page = BuildHtmlReport(in, "var Chart = function () {};");
  EXPECT_NE(page.find("<section id=\"serving\">"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"#serving\">Serving phases</a>"), std::string::npos);
  EXPECT_NE(page.find("h100 suite (v26.05): 1 of 4 serving phases above 95% of the reference"),
            std::string::npos);
  EXPECT_NE(page.find("data-charts=\"3\""), std::string::npos);

  json training = ServingDocument();
  training.erase("phases");
  ChartIds ids;
  EXPECT_FALSE(ServingSection(ServingInput(training), ids).has_value());
  std::string plain = BuildHtmlReport(ServingInput(training), "var Chart = function () {};");
  EXPECT_EQ(plain.find("<section id=\"serving\">"), std::string::npos);
}

TEST(HtmlSectionServing, HostileTextStaysText) {
  json doc = ServingDocument();
  const std::string evil = "<script>alert(1)</script>";
  doc["phases"][0]["id"] = evil;
  doc["phases"][0]["reason"] = evil;
  doc["phases"][0]["metrics"][0]["note"] = evil;
  doc["phases"][2]["refused"][0] = evil;
  ChartIds ids;
  auto s = ServingSection(ServingInput(doc), ids);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->body.find("<script>"), std::string::npos);
  EXPECT_NE(s->body.find("&lt;script&gt;alert(1)"), std::string::npos);
}

}  // namespace
}  // namespace html_section_serving_test
}  // namespace ys::report::html
