// AIPerf's summary CSV (src/formats/aiperf_csv.cc) on the real files of
// tests/fixtures/real/serving/aiperf/ (SOURCES.md there holds each verdict) and on literal text.
#include <gtest/gtest.h>

#include <any>
#include <filesystem>
#include <fstream>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string AiperfCsvReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/aiperf/" + f;
}

// The file as `ingest` reads it: sniffed among every format, then read by the one chosen, which
// must be aiperf-csv.
validate::WorkloadRun ReadAiperfCsvFile(const std::string& path) {
  auto head = ReadFormatHead(path);
  EXPECT_TRUE(head.ok());
  auto chosen = ChooseFormat(path, head.ok() ? *head : "");
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return {};
  EXPECT_EQ(chosen->format->info.name, "aiperf-csv");
  auto read = chosen->format->read(FormatRequest{.path = path});
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

// Literal text read from memory by the aiperf-csv reader.
Result<std::any> ReadAiperfCsvText(std::string_view text) {
  const RegisteredFormat* f = FormatRegistry::Global().Find("aiperf-csv");
  EXPECT_NE(f, nullptr);
  return f->read(FormatRequest{.path = "profile_export_aiperf.csv", .text = text});
}

bool AiperfHasFlaw(const validate::ServingPoint& p, std::string_view flaw) {
  for (const std::string& f : p.flaws) {
    if (f.rfind(flaw, 0) == 0) return true;
  }
  return false;
}

TEST(AiperfCsvTest, ExampleRunFiguresEqualTheFileAndItsErrorsRefuseIt) {
  validate::WorkloadRun run =
      ReadAiperfCsvFile(AiperfCsvReal("aiperf_examples_run1_profile_export.csv"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  EXPECT_EQ(run.inference->format, "aiperf-csv");
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "aiperf");
  EXPECT_EQ(p.completed, 89);
  EXPECT_EQ(p.failed, 11);
  EXPECT_EQ(p.num_prompts, 100);
  EXPECT_DOUBLE_EQ(*p.duration_s, 9.32);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 2320.72);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 9.55);
  EXPECT_FALSE(p.total_token_throughput.has_value());  // this version prints none
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 2343.22);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 2369.32);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("std"), 1049.82);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p50"), 27.62);  // Inter Token Latency
  EXPECT_DOUBLE_EQ(p.itl_ms.at("p99"), 140.53);  // Inter Chunk Latency
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p50"), 9097.35);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 242.97);
  EXPECT_DOUBLE_EQ(p.isl_tokens.at("mean"), 550);
  EXPECT_DOUBLE_EQ(*p.output_tokens_per_s_per_user, 36.68);
  EXPECT_FALSE(p.gpus.has_value());
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement) << run.reason;
  EXPECT_TRUE(AiperfHasFlaw(p, "requests_failed: 11 request(s) failed"));
  EXPECT_TRUE(AiperfHasFlaw(p, "requests_lost: 89 of 100 requests completed"));
}

TEST(AiperfCsvTest, SmokeRunAt100kIsFailedShortAndOverloaded) {
  validate::WorkloadRun run =
      ReadAiperfCsvFile(AiperfCsvReal("aiperf_smoke_100k_conc_profile_export.csv"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 481414);
  EXPECT_EQ(p.failed, 18586);
  EXPECT_EQ(p.osl_mismatch, 481414);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 343421.90);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 778649.65);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 3400.22);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 9539.09);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p50"), 16428.07);
  EXPECT_EQ(p.ttft_ms.count("sum"), 0u);  // the sum column is no statistic
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_TRUE(AiperfHasFlaw(p, "requests_failed"));
  EXPECT_TRUE(AiperfHasFlaw(p, "outputs_short: 481414 of 481414 outputs differ"));
  EXPECT_TRUE(AiperfHasFlaw(p, "overloaded: median TTFT 9.5 s"));
}

TEST(AiperfCsvTest, SmokeRunAt500kHasEveryOutputMismatched) {
  validate::WorkloadRun run =
      ReadAiperfCsvFile(AiperfCsvReal("aiperf_smoke_500k_conc_profile_export.csv"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 2000000);
  EXPECT_FALSE(p.failed.has_value());  // no error row: not taken as zero
  EXPECT_FALSE(p.num_prompts.has_value());
  EXPECT_EQ(p.osl_mismatch, 2000000);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 625547.61);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 1418320.82);
  EXPECT_DOUBLE_EQ(*p.duration_s, 322.92);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  ASSERT_EQ(p.flaws.size(), 1u) << run.reason;
  EXPECT_TRUE(AiperfHasFlaw(p, "outputs_short"));
}

// CRLF as AIPerf writes it, with the telemetry block: the GPUs it names are noted, never taken as
// the GPUs that served the run; the artifact directory gives the concurrency.
TEST(AiperfCsvTest, TelemetryGpusAreNotedNotCounted) {
  const std::string text =
      "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n"
      "Time to First Token (ms),50.00,30.00,60.00,,31.00,32.00,33.00,40.00,50.00,55.00,58.00,"
      "59.00,59.90,6.50\r\n"
      "\r\n"
      "Metric,Value\r\n"
      "Request Count,800.00\r\n"
      "Output Token Throughput (tokens/sec),\"10,944.03\"\r\n"
      "\r\n"
      "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Metric,avg,min,max\r\n"
      "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-aaa,GPU Power Usage (W),348.69,120.57,386.02\r\n"
      "localhost:9401,0,NVIDIA H100 80GB HBM3,GPU-aaa,GPU Utilization (%),90.00,10.00,99.00\r\n"
      "localhost:9401,1,NVIDIA H100 80GB HBM3,GPU-bbb,GPU Power Usage (W),340.00,120.00,380.00\r\n";
  const std::string path = ::testing::TempDir() + "/llama-openai-chat-concurrency8";
  std::filesystem::create_directories(path);
  std::ofstream(path + "/profile_export_aiperf.csv") << text;
  validate::WorkloadRun run = ReadAiperfCsvFile(path + "/profile_export_aiperf.csv");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_DOUBLE_EQ(*p.output_throughput, 10944.03);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 59.90);
  EXPECT_EQ(p.max_concurrency, 8);
  EXPECT_EQ(p.mode, validate::ServingMode::kServing);
  EXPECT_FALSE(p.gpus.has_value());
  bool noted = false;
  for (const std::string& n : p.notes) noted = noted || n.find("covers 2 GPU(s)") != n.npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

TEST(AiperfCsvTest, TheValueBlockAloneIsAFragment) {
  const std::string text =
      "Metric,Value\nRequest Throughput (requests/sec),13.16\nRequest Count,200.00\n";
  const RegisteredFormat* f = FormatRegistry::Global().Find("aiperf-csv");
  ASSERT_NE(f, nullptr);
  FormatSniff s = f->sniff(text);
  EXPECT_DOUBLE_EQ(s.confidence, FormatSniff::kFragment);
  EXPECT_NE(s.missing.find("statistics block"), std::string::npos);
  auto read = ReadAiperfCsvText(text);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const auto& run = std::any_cast<const validate::WorkloadRun&>(*read);
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  EXPECT_EQ(run.inference->points[0].completed, 200);
  EXPECT_DOUBLE_EQ(*run.inference->points[0].request_throughput, 13.16);
}

TEST(AiperfCsvTest, GenaiPerfHeadersAreNotClaimed) {
  const RegisteredFormat* f = FormatRegistry::Global().Find("aiperf-csv");
  ASSERT_NE(f, nullptr);
  EXPECT_LT(f->sniff("Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n").confidence,
            FormatSniff::kFragment);
  EXPECT_LT(f->sniff("Metric,Value\nOutput Token Throughput (per sec),86.48\n").confidence,
            FormatSniff::kFragment);
  EXPECT_DOUBLE_EQ(f->sniff(f->info.example).confidence, FormatSniff::kWhole);
}

TEST(AiperfCsvTest, AMalformedFigureNamesItsLineAndColumn) {
  auto read = ReadAiperfCsvText(
      "Metric,avg,min,max,p1,p99,std\r\nRequest Latency (ms),5.00,4.00,fast,4.10,5.90,0.50\r\n");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "profile_export_aiperf.csv:2: 'Request Latency (ms)': \"fast\" in column max"),
            std::string::npos)
      << read.status().message();
  auto count = ReadAiperfCsvText("Metric,Value\nRequest Count,-3\n");
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("'Request Count': a value out of range (expected a "
                                          "whole number >= 0)"),
            std::string::npos)
      << count.status().message();
}

TEST(AiperfCsvTest, BlocksWithoutServingFiguresAreNoData) {
  auto read =
      ReadAiperfCsvText("Metric,avg,min,max,p1,p99,std\nTime to Second Token (ms),1,1,1,1,1,0\n");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(std::any_cast<const validate::WorkloadRun&>(*read).status,
            validate::RunStatus::kNoData);
  auto nothing = ReadAiperfCsvText("Endpoint,GPU_Index,GPU_UUID\nh,0,GPU-0\n");
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.status().message().find("no AIPerf summary"), std::string::npos);
}

}  // namespace
}  // namespace ys
