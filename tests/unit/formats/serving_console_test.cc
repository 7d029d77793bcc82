// The serving console block (src/formats/serving_console.cc) on the real outputs of
// tests/fixtures/real/serving/{vllm,sglang}/ (SOURCES.md there): each figure equals the file's.
#include <gtest/gtest.h>

#include <any>
#include <fstream>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

validate::WorkloadRun ReadServing(const std::string& path) {
  auto head = ReadFormatHead(path);
  EXPECT_TRUE(head.ok());
  auto chosen = ChooseFormat(path, head.ok() ? *head : "");
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return {};
  EXPECT_EQ(chosen->format->info.name, "serving-console");
  auto read = chosen->format->read(FormatRequest{.path = path});
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

std::string ServingReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/" + f;
}

TEST(ServingConsoleTest, VllmBlockFiguresEqualTheFile) {
  validate::WorkloadRun run = ReadServing(ServingReal("vllm/vllm_pr36029_speed_bench_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 1536);
  EXPECT_EQ(p.num_prompts, 1536);  // successful + failed (0)
  EXPECT_EQ(p.max_concurrency, 32);
  EXPECT_DOUBLE_EQ(*p.duration_s, 374.83);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 4.10);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 2541.04);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 10973.05);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 178.40);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 1472.66);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p50"), 11.46);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("p99"), 104.34);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// SGLang's block, under a sentence of the issue it was pasted in: no failed-request line, so the
// requests asked are not known (never taken as the completed count).
TEST(ServingConsoleTest, SglangBlockFiguresEqualTheFile) {
  validate::WorkloadRun run = ReadServing(ServingReal("sglang/sglang_issue8285_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.backend, "sglang");
  EXPECT_EQ(p.request_rate, "330.0");
  EXPECT_EQ(p.max_concurrency, 330);
  EXPECT_EQ(p.completed, 660);
  EXPECT_FALSE(p.num_prompts.has_value());
  EXPECT_DOUBLE_EQ(*p.output_throughput, 12195.89);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 24391.79);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 2409.87);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("p50"), 22.82);
  EXPECT_EQ(p.tpot_ms.count("mean"), 0u);  // this block prints no TPOT
  // 660 requests at concurrency 330 is two rounds: no steady state (the issue is about the
  // queueing that follows), so the point is refused, not scored.
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_NE(run.reason.find("too_few_requests: 660 requests measured; a steady state needs 8x the "
                            "concurrency of 330 (2640)"),
            std::string::npos)
      << run.reason;
}

// The tool's argument dump before the block says what was asked: 300 prompts of 1000/500 tokens
// with ignore_eos=False; the outputs average 270 tokens.
TEST(ServingConsoleTest, VllmArgumentDumpShowsShortOutputs) {
  validate::WorkloadRun run =
      ReadServing(ServingReal("vllm/vllm_bench_automation_10qps_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "vllm");
  EXPECT_EQ(p.num_prompts, 300);
  EXPECT_EQ(p.completed, 300);
  EXPECT_EQ(p.request_rate, "10.0");
  EXPECT_EQ(p.ignore_eos, false);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 500);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 2249.25);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("p99"), 34.21);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_EQ(run.reason,
            "not a measure of serving capacity: request rate 10.0: outputs_short: outputs "
            "average 270.2 tokens of the 500 asked (46.0% short); ignore_eos was false");
}

TEST(ServingConsoleTest, VllmOfflineRunStopsShort) {
  validate::WorkloadRun run =
      ReadServing(ServingReal("vllm/vllm_bench_automation_inf_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.num_prompts, 900);
  EXPECT_EQ(p.mode, validate::ServingMode::kOffline);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 54462.58);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 877.08);
  ASSERT_EQ(p.flaws.size(), 1u);
  EXPECT_EQ(p.flaws[0].rfind("outputs_short: outputs average 266.8 tokens of the 500", 0), 0u);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
}

// A research fork's SGLang block: "Total throughput" (the older label), a median TPOT of -0.00
// and ITLs of 0.00 (not streamed), and 3.77 req/s completed against an offered 2 req/s.
TEST(ServingConsoleTest, SglangForkBlockIsRefused) {
  validate::WorkloadRun run =
      ReadServing(ServingReal("sglang/sglang_dlora_results_rate2_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "sglang");
  EXPECT_EQ(p.completed, 996);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 2121.89);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p50"), 606.86);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p50"), 0.0);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("p99"), 0.0);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  // Refused for what its SOURCES.md verdict says: the figures do not hold together, and the
  // output was not streamed.
  EXPECT_NE(run.reason.find("inconsistent: request throughput 3.77 req/s is above the offered "
                            "rate 2.0"),
            std::string::npos)
      << run.reason;
  EXPECT_NE(run.reason.find("not_streamed: inter-token gaps 0 ms and TTFT 2074 ms of a 2098 ms "
                            "request"),
            std::string::npos)
      << run.reason;
}

// Labels of newer and older blocks: SGLang's misspelt concurrency line, vLLM's configured rate,
// the peak and goodput lines (read past), P90/P95 percentiles.
TEST(ServingConsoleTest, NewerAndOlderLabels) {
  const std::string path = ::testing::TempDir() + "/serving_console_labels.txt";
  std::ofstream(path) << "============ Serving Benchmark Result ============\n"
                         "Backend:                                 vllm\n"
                         "Traffic request rate:                    inf\n"
                         "Max reqeuest concurrency:                64\n"
                         "Successful requests:                     640\n"
                         "Failed requests:                         2\n"
                         "Request goodput (req/s):                 3.10\n"
                         "Output token throughput (tok/s):         900.50\n"
                         "Peak output token throughput (tok/s):    1200.00\n"
                         "Peak concurrent requests:                70.00\n"
                         "Concurrency:                             61.20\n"
                         "Accept length:                           2.31\n"
                         "P90 TTFT (ms):                           80.00\n"
                         "P95 ITL (ms):                            12.50\n"
                         "P99.9 E2E Latency (ms):                  9000.00\n";
  validate::WorkloadRun run = ReadServing(path);
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "sglang");  // SGLang's tool, benchmarking a vLLM server
  EXPECT_EQ(p.backend, "vllm");
  EXPECT_EQ(p.max_concurrency, 64);
  EXPECT_EQ(p.num_prompts, 642);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p90"), 80.0);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("p95"), 12.5);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p99.9"), 9000.0);
  EXPECT_NE(run.reason.find("requests_failed: 2 request(s) failed"), std::string::npos);
}

TEST(ServingConsoleTest, AMalformedFigureNamesTheLine) {
  const std::string path = ::testing::TempDir() + "/serving_console_bad.txt";
  std::ofstream(path) << "============ Serving Benchmark Result ============\n"
                         "Successful requests:                     10\n"
                         "Output token throughput (tok/s):         fast\n";
  auto head = ReadFormatHead(path);
  ASSERT_TRUE(head.ok());
  auto chosen = ChooseFormat(path, *head);
  ASSERT_TRUE(chosen.ok());
  auto read = chosen->format->read(FormatRequest{.path = path});
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "serving_console_bad.txt:3: 'Output token throughput (tok/s)': \"fast\""),
            std::string::npos)
      << read.status().message();
}

}  // namespace
}  // namespace ys
