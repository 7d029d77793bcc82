// The trtllm-bench report (src/formats/trtllm_bench.cc) on the real outputs of
// tests/fixtures/real/serving/trtllm-bench/ (SOURCES.md there: sources and the verdicts written
// before yardstick read them): each is claimed by the format, its figures equal the file's, and
// its status matches the verdict.
#include <gtest/gtest.h>

#include <any>
#include <fstream>

#include "core/format_registry.h"
#include "validate/ingest_options.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string TrtllmReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/trtllm-bench/" + f;
}

Result<std::any> ReadTrtllmPath(const std::string& path, const std::any* options = nullptr) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return head.status();
  auto chosen = ChooseFormat(path, *head);
  if (!chosen.ok()) return chosen.status();
  EXPECT_EQ(chosen->format->info.name, "trtllm-bench") << path;
  return chosen->format->read(FormatRequest{.path = path, .options = options});
}

validate::WorkloadRun ReadTrtllm(const std::string& file, const std::any* options = nullptr) {
  auto read = ReadTrtllmPath(TrtllmReal(file), options);
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

bool TrtllmNoted(const validate::ServingPoint& p, std::string_view text) {
  for (const std::string& n : p.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// 0.16, tab-separated, throughput on an engine of TP 8: "Token Throughput" is output tokens/s.
TEST(TrtllmBenchTest, OldThroughputReportOfEightGpus) {
  validate::WorkloadRun run = ReadTrtllm("v016_llama31-70b_tp8_throughput.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(run.inference->format, "trtllm-bench");
  EXPECT_EQ(p.tool, "trtllm-bench");
  EXPECT_EQ(p.backend, "tensorrt");
  EXPECT_EQ(p.model_id, "meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(p.completed, 3000);
  EXPECT_EQ(p.num_prompts, 3000);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 10893.8728);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 10.6385);
  EXPECT_DOUBLE_EQ(*p.duration_s, 281.9933779);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 1024);
  EXPECT_FALSE(p.total_token_throughput.has_value());
  EXPECT_TRUE(p.ttft_ms.empty());  // no TTFT in throughput mode before 1.0
  EXPECT_EQ(p.tp, 8);
  EXPECT_EQ(p.pp, 1);
  EXPECT_EQ(p.gpus, 8);
  EXPECT_EQ(p.gpu_denominator, "all GPUs of the engine (TP x PP)");
  EXPECT_DOUBLE_EQ(*p.output_tokens_per_s_per_gpu, 10893.8728 / 8);
  EXPECT_EQ(p.mode, validate::ServingMode::kOffline);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// The latency subcommand of 0.16: GENERAL / THROUGHPUT / LATENCY OVERVIEW, batch 1; its "Total
// Token Throughput" counts output tokens (100 x 2048 tokens in 6345.6 s).
TEST(TrtllmBenchTest, OldLatencyReportIsALatencyPoint) {
  validate::WorkloadRun run = ReadTrtllm("v016_llama33-70b_tp4_latency.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.mode, validate::ServingMode::kLatency);
  EXPECT_EQ(p.max_concurrency, 1);
  EXPECT_EQ(p.completed, 100);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 32.2742);
  EXPECT_FALSE(p.total_token_throughput.has_value());
  EXPECT_DOUBLE_EQ(*p.request_throughput, 0.0158);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 147.7502);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 30.9274);  // its "inter-token latency" is TPOT
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("mean"), 63456.0704);
  EXPECT_EQ(p.e2el_ms.count("p99"), 0u);  // the generation-latency breakdown excludes TTFT
  EXPECT_EQ(p.gpus, 4);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// 0.21 PyTorch backend, streaming: the TTFT / TPOT / latency breakdowns and the dataset's asked
// lengths.
TEST(TrtllmBenchTest, StreamingReportWithBreakdowns) {
  validate::WorkloadRun run = ReadTrtllm("v021_llama31-8b_pytorch_streaming.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.backend, "pytorch");
  EXPECT_DOUBLE_EQ(*p.output_throughput, 11076.77);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 22153.5399);
  // "[w/ ctx]" counts the first token's wait: not the per-user decode rate, kept as a note.
  EXPECT_FALSE(p.output_tokens_per_s_per_user.has_value());
  EXPECT_TRUE(TrtllmNoted(p, "per-user output throughput 117.1544 tok/s/user"));
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 162.6706);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 232.4339);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("min"), 93.921);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p50"), 7.6079);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("max"), 8.1306);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p90"), 1130.72);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 128);
  EXPECT_DOUBLE_EQ(*p.isl_asked, 128);
  EXPECT_EQ(p.gpus, 1);
  EXPECT_EQ(p.ep, std::nullopt);  // "EP Size: None"
  EXPECT_EQ(p.mode, validate::ServingMode::kOffline);
  EXPECT_TRUE(TrtllmNoted(p, "94.6 requests in flight"));
  EXPECT_FALSE(TrtllmNoted(p, "per-GPU output throughput"));  // 11076.77 / 1 agrees
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// 16 requests at --concurrency 8 (the author's own summary says so; the report prints only the
// 7.99 requests in flight on average): two waves, no steady state. SOURCES.md: INCONCLUSIVE.
TEST(TrtllmBenchTest, SixteenRequestsAtConcurrencyEightFiguresEqualTheFile) {
  validate::WorkloadRun run = ReadTrtllm("v11_llama32-3b_pytorch_16req.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 16);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 1216.0159);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 256);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("min"), 1678.1686);
  EXPECT_FALSE(p.osl_asked.has_value());  // the DATASET DETAILS block was cut before its table
}

TEST(TrtllmBenchTest, SixteenRequestsAtConcurrencyEightIsInconclusive) {
  // The report does not print --concurrency; the operator gives it (ingest --concurrency 8).
  validate::IngestOptions o;
  o.concurrency = 8;
  const std::any options = o;
  validate::WorkloadRun run = ReadTrtllm("v11_llama32-3b_pytorch_16req.txt", &options);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement) << run.reason;
  EXPECT_NE(run.reason.find("too_few_requests"), std::string::npos) << run.reason;
}

// The PERFORMANCE OVERVIEW pasted alone: a fragment, its GPU count from total / per-GPU, the
// requests unknown (so lost requests cannot be ruled out) and the mode not stated.
TEST(TrtllmBenchTest, OverviewFragmentTakesItsGpusFromThePerGpuFigure) {
  const std::string path = TrtllmReal("r1_b200_tp8_overview_fragment.txt");
  auto head = ReadFormatHead(path);
  ASSERT_TRUE(head.ok());
  auto chosen = ChooseFormat(path, *head);
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(chosen->sniff.confidence, FormatSniff::kWhole);  // its "= PERFORMANCE OVERVIEW"
  validate::WorkloadRun run = ReadTrtllm("r1_b200_tp8_overview_fragment.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_DOUBLE_EQ(*p.output_throughput, 274.4168);
  EXPECT_DOUBLE_EQ(*p.output_tokens_per_s_per_user, 274.7188);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 414.0461);
  EXPECT_EQ(p.gpus, 8);
  EXPECT_EQ(p.mode, validate::ServingMode::kUnknown);
  EXPECT_FALSE(p.completed.has_value());
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
  EXPECT_NE(run.reason.find("do not say how many requests were asked"), std::string::npos)
      << run.reason;
}

TEST(TrtllmBenchTest, APerGpuFigureThatDisagreesIsNoted) {
  const std::string path = ::testing::TempDir() + "/trtllm_per_gpu.txt";
  std::ofstream(path) << "= WORLD + RUNTIME INFORMATION\nTP Size:  4\nPP Size:  1\n"
                         "= PERFORMANCE OVERVIEW\nNumber of requests: 400\n"
                         "Total Output Throughput (tokens/sec):  8000.0\n"
                         "Per GPU Output Throughput (tps/gpu):   1000.0\n";
  auto read = ReadTrtllmPath(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const auto run = std::any_cast<validate::WorkloadRun>(*read);
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.gpus, 4);
  EXPECT_TRUE(TrtllmNoted(p,
                          "per-GPU output throughput 1000.0000 tokens/s is not its total "
                          "over 4 GPUs (2000.0000)"));
}

TEST(TrtllmBenchTest, AMalformedFigureNamesTheLine) {
  const std::string path = ::testing::TempDir() + "/trtllm_bad.txt";
  std::ofstream(path) << "===========\n= PERFORMANCE OVERVIEW\n===========\n"
                         "Request Throughput (req/sec):   1.5\n"
                         "Total Output Throughput (tokens/sec):   fast\n";
  auto read = ReadTrtllmPath(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "trtllm_bad.txt:5: 'Total Output Throughput (tokens/sec)': \"fast\""),
            std::string::npos)
      << read.status().message();
}

TEST(TrtllmBenchTest, ABreakdownThatIsNotALatencyNamesTheLine) {
  const std::string path = ::testing::TempDir() + "/trtllm_bad_breakdown.txt";
  std::ofstream(path) << "= PERFORMANCE OVERVIEW\nRequest Throughput (req/sec):   1.5\n"
                         "[TTFT] P99    : nan\n";
  auto read = ReadTrtllmPath(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("trtllm_bad_breakdown.txt:3: '[TTFT] P99'"),
            std::string::npos)
      << read.status().message();
}

TEST(TrtllmBenchTest, AReportWithoutFiguresIsRefused) {
  const std::string path = ::testing::TempDir() + "/trtllm_empty.txt";
  std::ofstream(path) << "= WORLD + RUNTIME INFORMATION\nTP Size:  2\nNumber of requests: 1.5\n";
  auto read = ReadTrtllmPath(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("'Number of requests': \"1.5\" (expected a whole"),
            std::string::npos)
      << read.status().message();
  std::ofstream(path) << "= WORLD + RUNTIME INFORMATION\nTP Size:  2\n";
  read = ReadTrtllmPath(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("no trtllm-bench report"), std::string::npos)
      << read.status().message();
}

}  // namespace
}  // namespace ys
