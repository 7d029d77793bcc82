// MLPerf LoadGen's mlperf_log_summary.txt (src/formats/mlperf_log_summary.cc) on the real
// summaries of tests/fixtures/real/serving/mlperf/ (SOURCES.md there: sources and the verdicts
// written before yardstick read them): each is claimed by the format, its figures equal the
// file's (latencies in ms), and its status matches the verdict.
#include <gtest/gtest.h>

#include <any>
#include <fstream>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string LoadgenReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/mlperf/" + f;
}

Result<std::any> ReadLoadgenPath(const std::string& path) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return head.status();
  auto chosen = ChooseFormat(path, *head);
  if (!chosen.ok()) return chosen.status();
  EXPECT_EQ(chosen->format->info.name, "mlperf-loadgen") << path;
  return chosen->format->read(FormatRequest{.path = path});
}

validate::WorkloadRun ReadLoadgen(const std::string& file) {
  auto read = ReadLoadgenPath(LoadgenReal(file));
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

bool LoadgenNoted(const validate::ServingPoint& p, std::string_view text) {
  for (const std::string& n : p.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(MlperfLogSummaryTest, ServerSummaryOfV41) {
  validate::WorkloadRun run = ReadLoadgen("v41_nvidia_h200x8_llama2-70b_server_summary.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(run.inference->format, "mlperf-loadgen");
  EXPECT_EQ(p.tool, "mlperf-loadgen");
  EXPECT_EQ(p.backend, "llama2-70b-Server-SUT");
  EXPECT_EQ(p.mode, validate::ServingMode::kServing);
  EXPECT_EQ(p.loadgen_valid, true);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 29228.22);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 100.35);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 452.744202);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 180.758928);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 198.269106);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p99"), 146.040006);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p99.9"), 157.046729);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p50"), 31107.282906);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("max"), 146954.146383);
  EXPECT_TRUE(p.request_rate.empty());  // target_qps is LoadGen's schedule, not a rate limit
  EXPECT_FALSE(p.gpus.has_value());     // the summary does not name its GPUs
  EXPECT_TRUE(LoadgenNoted(p, "TTFT limit 2000 ms"));
  EXPECT_TRUE(LoadgenNoted(p, "TPOT limit 200 ms"));
  EXPECT_TRUE(LoadgenNoted(p, "target_qps 101"));
  EXPECT_TRUE(LoadgenNoted(p, "TPOT from LoadGen's 'time to output token'"));
  EXPECT_TRUE(LoadgenNoted(p, "nanoseconds to ms"));
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

TEST(MlperfLogSummaryTest, OfflineSummaryOfV41) {
  validate::WorkloadRun run = ReadLoadgen("v41_nvidia_h200x8_llama2-70b_offline_summary.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.mode, validate::ServingMode::kOffline);
  EXPECT_EQ(p.loadgen_valid, true);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 31302.7);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 107.477);
  EXPECT_TRUE(p.ttft_ms.empty());
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("mean"), 1391864.085542);
  EXPECT_TRUE(LoadgenNoted(p, "274560 samples in its one query"));
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// v5.1, with LoadGen's sample_concatenate_permutation warning among the settings; TPOT p99 of
// 193 ms is close to, not past, its 200 ms limit.
TEST(MlperfLogSummaryTest, ServerSummaryOfV51) {
  validate::WorkloadRun run = ReadLoadgen("v51_asustek_h200x8_llama2-70b_server_summary.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.backend, "PySUT");
  EXPECT_DOUBLE_EQ(*p.output_throughput, 34193.81);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 1715.111498);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p99"), 193.332489);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("min"), 26.698371);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// mlcommons/inference issue #1788: LoadGen judged the run INVALID (too few queries, early
// stopping not met); the summary was pasted without its Additional Stats.
TEST(MlperfLogSummaryTest, InvalidServerSummaryIsRefused) {
  validate::WorkloadRun run = ReadLoadgen("issue1788_server_invalid_summary.txt");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.loadgen_valid, false);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 43.45);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 0.11);
  EXPECT_TRUE(LoadgenNoted(p, "not satisfied: min queries, early stopping"));
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_NE(run.reason.find("loadgen_invalid"), std::string::npos) << run.reason;
}

Result<validate::WorkloadRun> ReadLoadgenText(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  auto read = ReadLoadgenPath(path);
  if (!read.ok()) return read.status();
  return std::any_cast<validate::WorkloadRun>(*read);
}

// SingleStream: one sample at a time, its "90.0th percentile" header lines; first-token
// statistics of a SUT that reports none (all 0) are dropped, not read as 0 ms.
TEST(MlperfLogSummaryTest, SingleStreamIsALatencyPointAndZeroTokenLatenciesAreDropped) {
  auto run =
      ReadLoadgenText("loadgen_ss.txt",
                      "MLPerf Results Summary\nScenario : SingleStream\n"
                      "90.0th percentile latency (ns) : 8434934462\n"
                      "Result is : VALID\nTPS w/ loadgen overhead         : 35.5\n"
                      "Max First Token latency (ns)  : 0\nMean First Token latency (ns) : 0\n");
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(run->inference && run->inference->points.size() == 1);
  const validate::ServingPoint& p = run->inference->points[0];
  EXPECT_EQ(p.mode, validate::ServingMode::kLatency);
  EXPECT_EQ(p.max_concurrency, 1);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p90"), 8434.934462);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 35.5);
  EXPECT_TRUE(p.ttft_ms.empty());
  EXPECT_TRUE(LoadgenNoted(p, "token latencies all 0"));
}

// LoadGen after v5.1 names TPOT "Time per Output Token" in its min/max/mean lines.
TEST(MlperfLogSummaryTest, TimePerOutputTokenIsTpot) {
  auto run = ReadLoadgenText("loadgen_tpot.txt",
                             "MLPerf Results Summary\nScenario : Interactive\nResult is : VALID\n"
                             "Completed tokens per second: 100.5\n"
                             "Mean Time per Output Token (ns)               : 61403731\n");
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(run->inference && run->inference->points.size() == 1);
  const validate::ServingPoint& p = run->inference->points[0];
  EXPECT_EQ(p.mode, validate::ServingMode::kServing);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 61.403731);
  EXPECT_TRUE(LoadgenNoted(p, "'time per output token'"));
}

TEST(MlperfLogSummaryTest, AMalformedFigureNamesTheLine) {
  auto run = ReadLoadgenText("loadgen_bad.txt",
                             "MLPerf Results Summary\nScenario : Offline\n"
                             "Samples per second: 10.5\nTokens per second: lots\n");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("loadgen_bad.txt:4: 'Tokens per second': \"lots\""),
            std::string::npos)
      << run.status().message();
}

TEST(MlperfLogSummaryTest, AVerdictLoadgenDoesNotPrintIsRefused) {
  auto run = ReadLoadgenText("loadgen_verdict.txt",
                             "MLPerf Results Summary\nScenario : Server\nResult is : MAYBE\n");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find(
                "loadgen_verdict.txt:3: 'Result is': \"MAYBE\" (expected VALID or INVALID)"),
            std::string::npos)
      << run.status().message();
}

TEST(MlperfLogSummaryTest, ABannerWithoutAResultIsRefused) {
  auto run = ReadLoadgenText("loadgen_empty.txt", "MLPerf Results Summary\nSUT name : x\n");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("no LoadGen summary"), std::string::npos)
      << run.status().message();
}

}  // namespace
}  // namespace ys
