// The HTML report's Serving proxy section: a run with serving.llama3.1_8b shows its summary and
// its measured-vs-predicted table (escaped); a run without a serving proxy has no section.
#include <gtest/gtest.h>

#include "report/html/html_section.h"

namespace ys::report::html {
namespace html_section_serving_proxy_test {
namespace {

TEST(HtmlServingProxySection, ShowsTheTableOfAServingProxy) {
  RunDocument doc;
  BenchmarkResult b;
  b.unit_id = "serving.llama3.1_8b";
  b.summary = "TTFT 10 ms (predicted 11, within ±32%)";
  b.tables.push_back({.title = "serving proxy <K 8>",
                      .columns = {"figure", "measured", "predicted"},
                      .rows = {{"TTFT ms", "10", "11"}},
                      .footer = {"# prefill terms: prefill_gemm 10 ms"}});
  doc.benchmarks.push_back(b);
  ReportInput in{.source = "run.json", .run = doc};
  auto s = ServingProxySection(in);
  ASSERT_TRUE(s.has_value());
  EXPECT_NE(s->body.find("serving.llama3.1_8b"), std::string::npos);
  EXPECT_NE(s->body.find("<td>TTFT ms</td><td>10</td><td>11</td>"), std::string::npos) << s->body;
  EXPECT_NE(s->body.find("serving proxy &lt;K 8&gt;"), std::string::npos) << "escaped";
  EXPECT_NE(s->body.find("prefill_gemm"), std::string::npos);

  RunDocument other;
  BenchmarkResult p;
  p.unit_id = "proxy.llama3.1_8b";
  other.benchmarks.push_back(p);
  EXPECT_FALSE(ServingProxySection({.source = "run.json", .run = other}).has_value());
}

}  // namespace
}  // namespace html_section_serving_proxy_test
}  // namespace ys::report::html
