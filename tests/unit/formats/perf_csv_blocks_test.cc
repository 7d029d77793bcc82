// The pieces AIPerf's and GenAI-Perf's readers share (src/formats/perf_csv_blocks.h): CSV
// blocks, their numbers, the tools' display names and the load told from artifact paths.
#include "formats/perf_csv_blocks.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace ys::formats {
namespace {

TEST(PerfCsvBlocksTest, CellsAreUnquotedWithTheirCommas) {
  auto cells = SplitCsvLine("Time To First Token (ms),\"1,146.31\",249.48,\"say \"\"hi\"\"\",");
  ASSERT_TRUE(cells.has_value());
  ASSERT_EQ(cells->size(), 5u);
  EXPECT_EQ((*cells)[0], "Time To First Token (ms)");
  EXPECT_EQ((*cells)[1], "1,146.31");
  EXPECT_EQ((*cells)[2], "249.48");
  EXPECT_EQ((*cells)[3], "say \"hi\"");
  EXPECT_EQ((*cells)[4], "");
  EXPECT_FALSE(SplitCsvLine("a,\"1,146.31").has_value());
}

TEST(PerfCsvBlocksTest, BlocksArePartedByBlankLinesWhateverTheLineEnds) {
  auto blocks = SplitPerfCsvBlocks(
      "\xEF\xBB\xBFMetric,avg,min\r\nRequest Latency (ms),5.00,4.00\r\n\r\n\r\nMetric,Value\r\n"
      "Request Count,3.00\r\n",
      "x.csv");
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  ASSERT_EQ(blocks->size(), 2u);
  EXPECT_EQ((*blocks)[0].header.cells[0], "Metric");  // the byte-order mark is not part of it
  ASSERT_EQ((*blocks)[0].rows.size(), 1u);
  EXPECT_EQ((*blocks)[0].rows[0].cells[2], "4.00");  // no CR left on the last cell
  EXPECT_EQ((*blocks)[1].header.line, 5);
  EXPECT_EQ((*blocks)[1].rows[0].line, 6);
}

TEST(PerfCsvBlocksTest, AnUnclosedQuoteNamesItsLine) {
  auto blocks = SplitPerfCsvBlocks("Metric,avg\nTime To First Token (ms),\"1,146.31\n", "x.csv");
  ASSERT_FALSE(blocks.ok());
  EXPECT_NE(blocks.status().message().find("x.csv:2: a quoted field is not closed"),
            std::string::npos)
      << blocks.status().message();
}

TEST(PerfCsvBlocksTest, NumbersDropThousandsSeparatorsAndNotAvailable) {
  bool bad = true;
  EXPECT_FALSE(PerfNumber("1,146.31\"", &bad).has_value());  // a quote left over
  EXPECT_TRUE(bad);
  EXPECT_DOUBLE_EQ(*PerfNumber(" 1,146.31 ", &bad), 1146.31);
  EXPECT_FALSE(bad);
  EXPECT_DOUBLE_EQ(*PerfNumber("-21.09", &bad), -21.09);
  EXPECT_FALSE(PerfNumber("N/A", &bad).has_value());
  EXPECT_FALSE(bad);
  EXPECT_FALSE(PerfNumber("", &bad).has_value());
  EXPECT_FALSE(bad);
  EXPECT_FALSE(PerfNumber("fast", &bad).has_value());
  EXPECT_TRUE(bad);
}

TEST(PerfCsvBlocksTest, DisplayNamesOfBothToolsMapToOneFigure) {
  for (const char* n :
       {"Time to First Token (ms)", "Time To First Token (ms)", "time to first token (ms)"}) {
    auto m = PerfMetricOf(n);
    ASSERT_TRUE(m.has_value()) << n;
    EXPECT_EQ(m->figure, PerfFigure::kTtft);
    EXPECT_DOUBLE_EQ(m->scale, 1);
  }
  EXPECT_EQ(PerfMetricOf("Inter Token Latency (ms)")->figure, PerfFigure::kTpot);
  EXPECT_EQ(PerfMetricOf("Inter Chunk Latency (ms)")->figure, PerfFigure::kItl);
  EXPECT_EQ(PerfMetricOf("Output Token Throughput (per sec)")->figure, PerfFigure::kOutputRate);
  EXPECT_EQ(PerfMetricOf("Output Token Throughput (tokens/sec)")->figure, PerfFigure::kOutputRate);
  EXPECT_EQ(PerfMetricOf("Output Token Throughput Per User (tokens/sec/user)")->figure,
            PerfFigure::kTokensPerUser);
  EXPECT_EQ(PerfMetricOf("Request Count (count)")->figure, PerfFigure::kRequestCount);
  EXPECT_EQ(PerfMetricOf("Output sequence length")->figure, PerfFigure::kOsl);
  EXPECT_DOUBLE_EQ(PerfMetricOf("Time To First Token (ns)")->scale, 1e-6);
  EXPECT_DOUBLE_EQ(PerfMetricOf("Benchmark Duration (sec)")->scale, 1);
  EXPECT_FALSE(PerfMetricOf("Time to Second Token (ms)").has_value());
  EXPECT_FALSE(PerfMetricOf("GPU Power Usage (W)").has_value());
  EXPECT_FALSE(PerfMetricOf("Request Latency (fortnights)").has_value());
}

TEST(PerfCsvBlocksTest, FiguresLandWhereOurDefinitionsPutThem) {
  validate::ServingPoint p;
  ASSERT_TRUE(TakePerfFigure(*PerfMetricOf("Inter Token Latency (ns)"),
                             {{"mean", 2e6}, {"p99", 3e6}}, "GenAI-Perf", p));
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 2);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p99"), 3);
  ASSERT_TRUE(TakePerfFigure(*PerfMetricOf("Request Count"), {{"value", 89}}, "AIPerf", p));
  ASSERT_TRUE(TakePerfFigure(*PerfMetricOf("Error Request Count"), {{"value", 11}}, "AIPerf", p));
  FinishPerfPoint(p);
  EXPECT_EQ(p.completed, 89);
  EXPECT_EQ(p.failed, 11);
  EXPECT_EQ(p.num_prompts, 100);
  EXPECT_FALSE(TakePerfFigure(*PerfMetricOf("Request Count"), {{"value", 2.5}}, "AIPerf", p));
  EXPECT_FALSE(TakePerfFigure(*PerfMetricOf("Request Latency (ms)"), {{"p1", -1}}, "AIPerf", p));
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_NE(p.notes[0].find("TPOT from GenAI-Perf's Inter Token Latency"), std::string::npos);
  EXPECT_NE(p.notes[1].find("converted to ms"), std::string::npos);
}

TEST(PerfCsvBlocksTest, TheLoadComesFromArtifactPathsAndPerfAnalyzerLines) {
  validate::ServingPoint c1;
  EXPECT_TRUE(TakePerfLoad("Generating artifacts/Qwen_Qwen3-14B-openai-chat-concurrency1/x", c1));
  EXPECT_EQ(c1.max_concurrency, 1);
  EXPECT_EQ(c1.mode, validate::ServingMode::kLatency);
  validate::ServingPoint c8;
  EXPECT_TRUE(TakePerfLoad("perf_analyzer -m m --concurrency-range 8 --endpoint x", c8));
  EXPECT_EQ(c8.max_concurrency, 8);
  EXPECT_EQ(c8.mode, validate::ServingMode::kServing);
  validate::ServingPoint rate;
  EXPECT_TRUE(TakePerfLoad("artifacts/gpt2-openai-chat-request_rate10.5/profile.csv", rate));
  EXPECT_EQ(rate.request_rate, "10.5");
  EXPECT_FALSE(rate.max_concurrency.has_value());
  validate::ServingPoint none;
  EXPECT_FALSE(TakePerfLoad("--concurrency-range 1:4 and a-concurrency-free path", none));
  EXPECT_EQ(none.mode, validate::ServingMode::kUnknown);
}

TEST(PerfCsvBlocksTest, HeadersTellTheToolApart) {
  EXPECT_EQ(PerfCsvToolOfHeader("Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std"),
            PerfCsvTool::kAiperf);
  EXPECT_EQ(PerfCsvToolOfHeader("Metric,avg,sum,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std"),
            PerfCsvTool::kAiperf);
  EXPECT_EQ(PerfCsvToolOfHeader("Metric,avg,min,max,p1,p5,p25,p50,p75,p90,p95,p99,std\r"),
            PerfCsvTool::kAiperf);
  EXPECT_EQ(PerfCsvToolOfHeader("Metric,avg,min,max,p99,p95,p90,p75,p50,p25"),
            PerfCsvTool::kGenaiPerf);
  EXPECT_EQ(PerfCsvToolOfHeader("Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1"),
            PerfCsvTool::kGenaiPerf);
  EXPECT_EQ(PerfCsvToolOfHeader("Metric,Value"), PerfCsvTool::kUnknown);
  EXPECT_EQ(PerfCsvToolOfHeader("name,avg,min"), PerfCsvTool::kUnknown);
}

}  // namespace
}  // namespace ys::formats
