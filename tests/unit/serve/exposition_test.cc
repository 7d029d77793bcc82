#include "serve/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ys::serve {
namespace {

TEST(ExpositionTest, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(EscapeLabelValue(R"(a\b"c)"
                             "\nd"),
            R"(a\\b\"c\nd)");
  EXPECT_EQ(EscapeHelp("x \\ \"y\"\nz"), "x \\\\ \"y\"\\nz");
}

TEST(ExpositionTest, FormatsValues) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(-3), "-3");
  EXPECT_EQ(FormatValue(1e15), "1000000000000000");
  EXPECT_EQ(FormatValue(0.25), "0.25");
  EXPECT_EQ(FormatValue(1e300), "1e+300");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(ExpositionTest, ValidatesNames) {
  EXPECT_TRUE(IsValidMetricName("DCGM_FI_DEV_GPU_TEMP"));
  EXPECT_TRUE(IsValidMetricName("a:b_c1"));
  EXPECT_FALSE(IsValidMetricName("1abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_TRUE(IsValidLabelName("UUID"));
  EXPECT_FALSE(IsValidLabelName("__name"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  EXPECT_EQ(SanitizeLabelName("in-place"), "in_place");
  EXPECT_EQ(SanitizeLabelName("2d"), "_2d");
  EXPECT_EQ(SanitizeLabelName("__x"), "_x");
  EXPECT_TRUE(IsValidLabelName(SanitizeLabelName("a.b/c")));
}

TEST(ExpositionTest, OneFamilyOnceSortedByNameSamplesInOrder) {
  Exposition e;
  e.Add("zeta", MetricType::kGauge, "Last family", {{"gpu", "1"}}, 2);
  e.Add("alpha_total", MetricType::kCounter, "First family", {}, 7);
  e.Add("zeta", MetricType::kCounter, "ignored: the first help and type stay", {{"gpu", "0"}}, 1);
  e.Add("zeta", MetricType::kGauge, "", {{"gpu", "1"}}, 99);      // same series: dropped
  e.Add("bad-name", MetricType::kGauge, "", {}, 1);               // invalid: dropped
  e.Add("ok", MetricType::kGauge, "", {{"__reserved", "x"}}, 1);  // invalid label: dropped
  e.Add("quoted", MetricType::kGauge, "Help with \\ and\nnewline",
        {{"id", "a\"b\\c\nd"}, {"size", "1024"}}, 0.5);
  const char* golden =
      "# HELP alpha_total First family\n"
      "# TYPE alpha_total counter\n"
      "alpha_total 7\n"
      "# HELP quoted Help with \\\\ and\\nnewline\n"
      "# TYPE quoted gauge\n"
      "quoted{id=\"a\\\"b\\\\c\\nd\",size=\"1024\"} 0.5\n"
      "# HELP zeta Last family\n"
      "# TYPE zeta gauge\n"
      "zeta{gpu=\"1\"} 2\n"
      "zeta{gpu=\"0\"} 1\n";
  EXPECT_EQ(e.Text(), golden);
}

TEST(ExpositionTest, MergeKeepsOneFamily) {
  Exposition a, b;
  a.Add("m", MetricType::kGauge, "h", {{"x", "1"}}, 1);
  b.Add("m", MetricType::kGauge, "h", {{"x", "2"}}, 2);
  b.Add("m", MetricType::kGauge, "h", {{"x", "1"}}, 3);  // repeats a's series: dropped
  a.Merge(b);
  ASSERT_NE(a.Find("m"), nullptr);
  EXPECT_EQ(a.Find("m")->samples.size(), 2u);
  EXPECT_EQ(a.Text(), "# HELP m h\n# TYPE m gauge\nm{x=\"1\"} 1\nm{x=\"2\"} 2\n");
}

TEST(ExpositionTest, AddStatesOneSeriesPerStateExactlyOneSet) {
  Exposition e;
  AddStates(e, "s", "h", {{"id", "a"}}, {"up", "down"}, "down");
  EXPECT_EQ(e.Text(),
            "# HELP s h\n# TYPE s gauge\ns{id=\"a\",state=\"up\"} 0\n"
            "s{id=\"a\",state=\"down\"} 1\n");
  AddStates(e, "t", "h", {}, {"up", "down"}, "sideways");  // no state: no series
  EXPECT_EQ(e.Find("t"), nullptr);
}

}  // namespace
}  // namespace ys::serve
