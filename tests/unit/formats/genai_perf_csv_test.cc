// GenAI-Perf's summary CSV (src/formats/genai_perf_csv.cc) on the real files of
// tests/fixtures/real/serving/genai-perf/ (SOURCES.md there holds each verdict) and on literal
// text.
#include <gtest/gtest.h>

#include <any>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string GenaiCsvReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/genai-perf/" + f;
}

validate::WorkloadRun ReadGenaiCsvFile(const std::string& path) {
  auto head = ReadFormatHead(path);
  EXPECT_TRUE(head.ok());
  auto chosen = ChooseFormat(path, head.ok() ? *head : "");
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return {};
  EXPECT_EQ(chosen->format->info.name, "genai-perf-csv");
  auto read = chosen->format->read(FormatRequest{.path = path});
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

Result<std::any> ReadGenaiCsvText(std::string_view text) {
  const RegisteredFormat* f = FormatRegistry::Global().Find("genai-perf-csv");
  EXPECT_NE(f, nullptr);
  return f->read(FormatRequest{.path = "profile_export_genai_perf.csv", .text = text});
}

TEST(GenaiPerfCsvTest, CloudaiExampleFiguresEqualTheFile) {
  validate::WorkloadRun run =
      ReadGenaiCsvFile(GenaiCsvReal("genai_perf_cloudai_ai_dynamo_doc.csv"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  EXPECT_EQ(run.inference->format, "genai-perf-csv");
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "genai-perf");
  EXPECT_EQ(p.completed, 40);
  EXPECT_FALSE(p.num_prompts.has_value());  // GenAI-Perf prints neither errors nor the asked count
  EXPECT_DOUBLE_EQ(*p.output_throughput, 261.25);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 1.50);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 1146.31);  // quoted with a thousands separator
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("max"), 3485.23);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 640.07);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 30.35);  // Inter Token Latency
  EXPECT_TRUE(p.itl_ms.empty());
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p25"), 5493.63);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 174.45);
  EXPECT_DOUBLE_EQ(p.isl_tokens.at("mean"), 3000.05);
  bool noted = false;
  for (const std::string& n : p.notes) {
    noted = noted || n.find("TPOT from GenAI-Perf's Inter Token Latency") != n.npos;
  }
  EXPECT_TRUE(noted);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

TEST(GenaiPerfCsvTest, IssueRunAtConcurrency144IsOverloaded) {
  validate::WorkloadRun run = ReadGenaiCsvFile(GenaiCsvReal("genai_perf_pa_issue393_c144.csv"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 353);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 410.43);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 1.70);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 32688.40);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 35425.56);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("max"), 102848.43);
  EXPECT_FALSE(p.max_concurrency.has_value());  // 144 is in the issue, not in the file
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  ASSERT_EQ(p.flaws.size(), 1u) << run.reason;
  EXPECT_EQ(p.flaws[0], "overloaded: median TTFT 35.4 s: requests queued for their first token");
}

// Older GenAI-Perf wrote nanoseconds: converted to ms, and said so.
TEST(GenaiPerfCsvTest, NanosecondLatenciesAreConverted) {
  auto read = ReadGenaiCsvText(
      "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\r\n"
      "Time To First Token (ns),2000000,2000000,2000000,2000000,2000000,2000000,2000000,2000000,"
      "2000000\r\n"
      "\r\n"
      "Metric,Value\r\n"
      "Output Token Throughput (per sec),\"1,800.00\"\r\n");
  ASSERT_TRUE(read.ok()) << read.status().message();
  const auto& run = std::any_cast<const validate::WorkloadRun&>(*read);
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 2);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 1800);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes.back().find("converted to ms"), std::string::npos);
}

TEST(GenaiPerfCsvTest, SniffsItsOwnHeadersOnly) {
  const RegisteredFormat* f = FormatRegistry::Global().Find("genai-perf-csv");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->sniff(f->info.example).confidence, FormatSniff::kWhole);
  EXPECT_DOUBLE_EQ(
      f->sniff("Metric,Value\r\nOutput Token Throughput (per sec),86.48\r\n").confidence,
      FormatSniff::kFragment);
  EXPECT_LT(f->sniff("Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n").confidence,
            FormatSniff::kFragment);
  EXPECT_LT(f->sniff("Metric,Value\nRequest Throughput (requests/sec),4\n").confidence,
            FormatSniff::kFragment);
}

TEST(GenaiPerfCsvTest, MalformedInputIsAClearError) {
  auto read = ReadGenaiCsvText(
      "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n"
      "Request Latency (ms),\"5,919.16\",x,1,1,1,1,1,1,1\n");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "profile_export_genai_perf.csv:2: 'Request Latency (ms)': \"x\" in column min"),
            std::string::npos)
      << read.status().message();
  auto quote = ReadGenaiCsvText("Metric,avg,min,max,p99\nRequest Latency (ms),\"5,919.16,1,1,1\n");
  ASSERT_FALSE(quote.ok());
  EXPECT_NE(quote.status().message().find(":2: a quoted field is not closed"), std::string::npos);
}

}  // namespace
}  // namespace ys
