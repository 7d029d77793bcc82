// GenAI-Perf's profile_export_genai_perf.json (src/formats/genai_perf_json.cc) on the real exports
// of tests/fixtures/real/serving/genai-perf/ (SOURCES.md there: the sources and the verdicts
// written before yardstick read them): both input_config layouts, telemetry_stats, the release
// that wrote no request_count block; and on literal exports for malformed input.
#include <gtest/gtest.h>

#include <any>
#include <fstream>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string GenaiPerfJsonReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/genai-perf/" + f;
}

Result<validate::WorkloadRun> GenaiPerfJsonIngest(const std::string& path) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return head.status();
  auto chosen = ChooseFormat(path, *head);
  if (!chosen.ok()) return chosen.status();
  EXPECT_EQ(chosen->format->info.name, "genai-perf-json") << path;
  EXPECT_EQ(chosen->sniff.confidence, FormatSniff::kWhole) << path;
  auto read = chosen->format->read(FormatRequest{.path = path});
  if (!read.ok()) return read.status();
  return std::any_cast<validate::WorkloadRun>(*read);
}

const validate::ServingPoint& GenaiPerfJsonPoint(const validate::WorkloadRun& run) {
  EXPECT_TRUE(run.inference && run.inference->points.size() == 1);
  static const validate::ServingPoint kNone;
  return run.inference && !run.inference->points.empty() ? run.inference->points[0] : kNone;
}

bool GenaiPerfJsonHasFlaw(const validate::ServingPoint& p, std::string_view flaw) {
  for (const std::string& f : p.flaws) {
    if (f.rfind(flaw, 0) == 0) return true;
  }
  return false;
}

TEST(GenaiPerfJsonTest, FlatConfigRunIsShortAndLostRequests) {
  auto run =
      GenaiPerfJsonIngest(GenaiPerfJsonReal("genai_perf_wellflat_gpt_oss_20b_flat_config.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = GenaiPerfJsonPoint(*run);
  EXPECT_EQ(run->inference->format, "genai-perf-json");
  EXPECT_EQ(p.tool, "genai-perf");
  EXPECT_EQ(p.model_id, "openai/gpt-oss-20b");
  EXPECT_EQ(p.mode, validate::ServingMode::kLatency);
  EXPECT_EQ(p.max_concurrency, 1);
  EXPECT_EQ(p.num_prompts, 100);
  EXPECT_EQ(p.completed, 66);
  EXPECT_EQ(p.warmup_requests, 10);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 400);
  EXPECT_DOUBLE_EQ(*p.isl_asked, 150);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 0.31455262548511714);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 25.824770552328115);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 2088.661403);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 124.39393939393939);
  EXPECT_EQ(run->status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_TRUE(GenaiPerfJsonHasFlaw(p, "requests_lost: 66 of 100 requests completed"))
      << run->reason;
  EXPECT_TRUE(GenaiPerfJsonHasFlaw(p, "outputs_short")) << run->reason;
}

// SOURCES.md: at concurrency 1 nothing queues; the 2.1 s TTFT is the reasoning model's hidden
// thinking, not queueing.
TEST(GenaiPerfJsonTest, ConcurrencyOneIsNotOverloaded) {
  auto run =
      GenaiPerfJsonIngest(GenaiPerfJsonReal("genai_perf_wellflat_gpt_oss_20b_flat_config.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_FALSE(GenaiPerfJsonHasFlaw(GenaiPerfJsonPoint(*run), "overloaded")) << run->reason;
}

TEST(GenaiPerfJsonTest, NestedConfigRunWithTelemetryOfTheWholeNode) {
  auto run =
      GenaiPerfJsonIngest(GenaiPerfJsonReal("genai_perf_wellflat_gpt_oss_20b_telemetry.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = GenaiPerfJsonPoint(*run);
  EXPECT_EQ(p.max_concurrency, 1);
  EXPECT_EQ(p.num_prompts, 100);  // perf_analyzer.measurement: request_count 100
  EXPECT_EQ(p.completed, 35);
  EXPECT_EQ(p.warmup_requests, 10);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 300);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 12.095750218698175);
  EXPECT_DOUBLE_EQ(*p.output_tokens_per_s_per_user, 129.22766466149542);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 1524.6265132);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 7.7534012);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 73.51428571428572);
  EXPECT_FALSE(p.gpus.has_value());  // 8 GPUs in the telemetry, one serving
  bool noted = false;
  for (const std::string& n : p.notes) noted |= n.find("telemetry lists 8 GPU(s)") != n.npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(run->status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_TRUE(GenaiPerfJsonHasFlaw(p, "requests_lost: 35 of 100 requests completed"))
      << run->reason;
  EXPECT_TRUE(GenaiPerfJsonHasFlaw(p, "outputs_short")) << run->reason;
}

TEST(GenaiPerfJsonTest, Issue298StreamingRunFiguresEqualTheFile) {
  auto run =
      GenaiPerfJsonIngest(GenaiPerfJsonReal("genai_perf_issue298_trtllm_streaming_c100.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = GenaiPerfJsonPoint(*run);
  EXPECT_EQ(p.mode, validate::ServingMode::kServing);
  EXPECT_EQ(p.max_concurrency, 100);
  EXPECT_FALSE(p.num_prompts.has_value());  // request_count 0: a measurement interval
  EXPECT_FALSE(p.completed.has_value());    // this release wrote no request_count block
  EXPECT_DOUBLE_EQ(*p.request_throughput, 17.222547659562533);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 44190.56002502682);
  EXPECT_DOUBLE_EQ(*p.output_tokens_per_s_per_user, 445.00388376637636);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 172.8093975);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p25"), 124.51677875);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 2.1767344516666665);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 2565.855);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 500);
}

// SOURCES.md: outputs 5x the asked length are a miscount (GenAI-Perf 24.11-24.12), not a
// measurement.
TEST(GenaiPerfJsonTest, Issue298OutputsFiveTimesTheAskedLengthAreInconclusive) {
  auto run =
      GenaiPerfJsonIngest(GenaiPerfJsonReal("genai_perf_issue298_trtllm_streaming_c100.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->status, validate::RunStatus::kInvalidMeasurement) << run->reason;
  EXPECT_TRUE(GenaiPerfJsonHasFlaw(GenaiPerfJsonPoint(*run), "outputs_long")) << run->reason;
}

TEST(GenaiPerfJsonTest, MalformedExportsGetAClearError) {
  const std::string path = ::testing::TempDir() + "/genai_perf_bad.json";
  std::ofstream(path) << R"({"request_throughput": {"unit": "requests/sec", "avg": 1.0},
    "request_count": {"unit": "count", "avg": 2.5},
    "input_config": {"service_kind": "openai"}})";
  auto bad = GenaiPerfJsonIngest(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("genai_perf_bad.json: field 'request_count.avg' is 2.5; "
                                        "expected a whole count"),
            std::string::npos)
      << bad.status().message();
  const std::string list = ::testing::TempDir() + "/genai_perf_list.json";
  std::ofstream(list) << R"({"request_throughput": {"unit": "requests/sec", "avg": 1.0},
    "time_to_first_token": [1, 2], "telemetry_stats": {}})";
  auto wrong = GenaiPerfJsonIngest(list);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("field 'time_to_first_token' is [1,2]; expected an "
                                          "object"),
            std::string::npos)
      << wrong.status().message();
}

}  // namespace
}  // namespace ys
