// The serving console block (src/formats/serving_console.cc) on the real outputs of
// tests/fixtures/real/serving/ (SOURCES.md there): each figure equals the file's.
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
  validate::WorkloadRun run = ReadServing(ServingReal("vllm_pr36029_speed_bench_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 1536);
  EXPECT_EQ(p.num_prompts, 1536);  // successful + failed (0)
  EXPECT_EQ(p.max_concurrency, 32);
  EXPECT_DOUBLE_EQ(*p.duration_s, 374.83);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 4.10);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 2541.04);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 10973.05);
  EXPECT_DOUBLE_EQ(*p.mean_ttft_ms, 178.40);
  EXPECT_DOUBLE_EQ(*p.p99_ttft_ms, 1472.66);
  EXPECT_DOUBLE_EQ(*p.median_tpot_ms, 11.46);
  EXPECT_DOUBLE_EQ(*p.p99_itl_ms, 104.34);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// SGLang's block, under a sentence of the issue it was pasted in: no failed-request line, so the
// requests asked are not known (never taken as the completed count).
TEST(ServingConsoleTest, SglangBlockFiguresEqualTheFile) {
  validate::WorkloadRun run = ReadServing(ServingReal("sglang_issue8285_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.backend, "sglang");
  EXPECT_EQ(p.request_rate, "330.0");
  EXPECT_EQ(p.max_concurrency, 330);
  EXPECT_EQ(p.completed, 660);
  EXPECT_FALSE(p.num_prompts.has_value());
  EXPECT_DOUBLE_EQ(*p.output_throughput, 12195.89);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 24391.79);
  EXPECT_DOUBLE_EQ(*p.median_ttft_ms, 2409.87);
  EXPECT_DOUBLE_EQ(*p.median_itl_ms, 22.82);
  EXPECT_FALSE(p.mean_tpot_ms.has_value());  // this block prints no TPOT
  EXPECT_NE(run.reason.find("lost requests cannot be ruled out"), std::string::npos) << run.reason;
  EXPECT_EQ(run.reason.find("every request completed"), std::string::npos) << run.reason;
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
