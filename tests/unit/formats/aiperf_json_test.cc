// AIPerf's profile_export_aiperf.json (src/formats/aiperf_json.cc) on the real exports of
// tests/fixtures/real/serving/aiperf/ (SOURCES.md there: the sources and the verdicts written
// before yardstick read them), and on literal exports for units, errors and malformed input.
#include <gtest/gtest.h>

#include <any>
#include <fstream>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string AiperfJsonReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/aiperf/" + f;
}

std::string AiperfJsonWrite(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The file as `ingest` reads it: claimed whole by aiperf-json, then read.
Result<validate::WorkloadRun> AiperfJsonIngest(const std::string& path) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return head.status();
  auto chosen = ChooseFormat(path, *head);
  if (!chosen.ok()) return chosen.status();
  EXPECT_EQ(chosen->format->info.name, "aiperf-json") << path;
  EXPECT_EQ(chosen->sniff.confidence, FormatSniff::kWhole) << path;
  auto read = chosen->format->read(FormatRequest{.path = path});
  if (!read.ok()) return read.status();
  return std::any_cast<validate::WorkloadRun>(*read);
}

const validate::ServingPoint& AiperfJsonPoint(const validate::WorkloadRun& run) {
  EXPECT_TRUE(run.inference && run.inference->points.size() == 1);
  static const validate::ServingPoint kNone;
  return run.inference && !run.inference->points.empty() ? run.inference->points[0] : kNone;
}

bool AiperfJsonHasFlaw(const validate::ServingPoint& p, std::string_view flaw) {
  for (const std::string& f : p.flaws) {
    if (f.rfind(flaw, 0) == 0) return true;
  }
  return false;
}

bool AiperfJsonHasNote(const validate::ServingPoint& p, std::string_view text) {
  for (const std::string& n : p.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(AiperfJsonTest, Qwen3Concurrency8IsAValidPoint) {
  auto run = AiperfJsonIngest(AiperfJsonReal("aiperf_plot_fixture_qwen3_0.6b_c8.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = AiperfJsonPoint(*run);
  EXPECT_EQ(run->inference->format, "aiperf-json");
  EXPECT_EQ(p.tool, "aiperf");
  EXPECT_EQ(p.model_id, "Qwen/Qwen3-0.6B");
  EXPECT_EQ(p.mode, validate::ServingMode::kServing);
  EXPECT_EQ(p.max_concurrency, 8);
  EXPECT_EQ(p.num_prompts, 64);
  EXPECT_EQ(p.completed, 64);
  EXPECT_EQ(p.warmup_requests, 1);
  EXPECT_EQ(p.ignore_eos, true);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 200);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 199.9375);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 1.9289420440276044);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 385.66784992776917);
  EXPECT_DOUBLE_EQ(*p.output_tokens_per_s_per_user, 54.05453799453336);
  EXPECT_DOUBLE_EQ(*p.duration_s, 33.178809181000005);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 69.382830328125);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 71.1763405);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 92.37854026999999);
  // AIPerf's inter_token_latency is the point's TPOT; its inter_chunk_latency the ITL.
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 18.50413440824753);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("mean"), 18.508472749155473);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p50"), 3727.847171);
  EXPECT_TRUE(AiperfJsonHasNote(p, "TPOT from AIPerf's inter_token_latency"));
  // One GPU seen through two exporters: one GPU in the telemetry, and no serving GPU count.
  EXPECT_TRUE(AiperfJsonHasNote(p, "GPU telemetry lists 1 GPU(s)"));
  EXPECT_FALSE(p.gpus.has_value());
  EXPECT_TRUE(p.flaws.empty());
  EXPECT_EQ(run->status, validate::RunStatus::kSuccess) << run->reason;
}

TEST(AiperfJsonTest, GptOss20bOnA100StopsShortOfTheAskedLength) {
  auto run = AiperfJsonIngest(AiperfJsonReal("aiperf_wellflat_gpt_oss_20b_a100_c1.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = AiperfJsonPoint(*run);
  EXPECT_EQ(p.mode, validate::ServingMode::kLatency);  // concurrency 1
  EXPECT_EQ(p.num_prompts, 100);
  EXPECT_EQ(p.completed, 100);
  EXPECT_EQ(p.warmup_requests, 10);
  EXPECT_FALSE(p.ignore_eos.has_value());  // not among the extra inputs
  EXPECT_DOUBLE_EQ(*p.output_throughput, 54.55756456668085);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 82.84651240000001);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 18.03231861805396);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 283.48);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 300);
  // The node's exporter lists 8 GPUs, one holding the model: not a GPU count.
  EXPECT_TRUE(AiperfJsonHasNote(p, "GPU telemetry lists 8 GPU(s)"));
  EXPECT_FALSE(p.gpus.has_value());
  EXPECT_EQ(run->status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_TRUE(AiperfJsonHasFlaw(p, "outputs_short: outputs average 283.5 tokens of the 300 asked"))
      << run->reason;
  EXPECT_EQ(p.flaws.size(), 1u) << run->reason;
}

TEST(AiperfJsonTest, VersionedMockEndpointRunReadsWithoutStreamingFigures) {
  auto run = AiperfJsonIngest(AiperfJsonReal("aiperf_0.4.0_mock_endpoint_c1.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = AiperfJsonPoint(*run);
  EXPECT_EQ(p.num_prompts, 10);
  EXPECT_EQ(p.completed, 10);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 661.9265225815901);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 3309.6326129079507);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 9928.897838723853);
  EXPECT_DOUBLE_EQ(*p.duration_s, 0.015107417000000001);
  EXPECT_TRUE(p.ttft_ms.empty());  // not streamed
  EXPECT_EQ(run->status, validate::RunStatus::kSuccess) << run->reason;
}

// Units other than ms and seconds are converted and said; errors, an error summary and a
// cancelled run are failures.
TEST(AiperfJsonTest, ConvertsUnitsAndCountsErrors) {
  auto run = AiperfJsonIngest(AiperfJsonWrite("aiperf_units.json", R"({
    "schema_version": "1.5", "aiperf_version": "0.7.0",
    "request_throughput": {"unit": "requests/sec", "avg": 2.5},
    "time_to_first_token": {"unit": "ns", "avg": 150000000, "p50": 140000000, "count": 90,
                            "sum": 1.35e10},
    "inter_token_latency": {"unit": "us", "avg": 20000},
    "request_count": {"unit": "requests", "avg": 90},
    "error_request_count": {"unit": "requests", "avg": 10},
    "osl_mismatch_count": {"unit": "requests", "avg": 0},
    "benchmark_duration": {"unit": "ms", "avg": 36000},
    "input_config": {"loadgen": {"concurrency": 4, "request_count": 100}},
    "was_cancelled": true, "error_summary": [{"count": 10}]})"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  const validate::ServingPoint& p = AiperfJsonPoint(*run);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 150);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 140);
  EXPECT_EQ(p.ttft_ms.count("sum"), 0u);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 20);
  EXPECT_DOUBLE_EQ(*p.duration_s, 36);
  EXPECT_EQ(p.failed, 10);
  EXPECT_EQ(p.osl_mismatch, 0);
  EXPECT_TRUE(
      AiperfJsonHasNote(p, "TTFT from AIPerf's time_to_first_token in ns, converted to ms"));
  EXPECT_TRUE(AiperfJsonHasNote(p, "was_cancelled: true"));
  EXPECT_TRUE(AiperfJsonHasFlaw(p, "requests_lost: 90 of 100"));
  EXPECT_TRUE(AiperfJsonHasFlaw(p, "requests_failed: 10"));
  EXPECT_EQ(run->status, validate::RunStatus::kInvalidMeasurement);
}

TEST(AiperfJsonTest, MalformedBlocksNameTheField) {
  auto bad =
      AiperfJsonIngest(AiperfJsonWrite("aiperf_bad_value.json", R"({"aiperf_version": "0.7.0",
    "request_throughput": {"unit": "requests/sec", "avg": "fast"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "aiperf_bad_value.json: field 'request_throughput.avg' is \"fast\"; expected a "
                "number"),
            std::string::npos)
      << bad.status().message();
  auto unit =
      AiperfJsonIngest(AiperfJsonWrite("aiperf_bad_unit.json", R"({"aiperf_version": "0.7.0",
    "time_to_first_token": {"unit": "tokens", "avg": 3}})"));
  ASSERT_FALSE(unit.ok());
  EXPECT_NE(unit.status().message().find("'time_to_first_token.unit' is \"tokens\"; expected a "
                                         "time unit"),
            std::string::npos)
      << unit.status().message();
  auto empty =
      AiperfJsonIngest(AiperfJsonWrite("aiperf_empty.json", R"({"aiperf_version": "0.7.0"})"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no AIPerf metric block"), std::string::npos)
      << empty.status().message();
  auto cut = AiperfJsonIngest(AiperfJsonWrite("aiperf_cut.json", R"({"aiperf_version": "0.7.0",
    "request_throughput": {"unit": "requests/sec", "avg": 1)"));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("aiperf_cut.json: not JSON"), std::string::npos)
      << cut.status().message();
}

// The vLLM result reader used to claim these files and fail on {"unit", "avg"}; AIPerf 0.1 kept
// the blocks under "records".
TEST(AiperfJsonTest, TheVllmReaderLeavesTheBlocksAlone) {
  const RegisteredFormat* vllm = FormatRegistry::Global().Find("inference-json");
  ASSERT_NE(vllm, nullptr);
  EXPECT_LT(
      vllm->sniff(R"({"request_throughput": {"unit": "requests/sec", "avg": 1.9}})").confidence,
      FormatSniff::kFragment);
  auto old = AiperfJsonIngest(AiperfJsonWrite("aiperf_records.json", R"({"records": {
    "request_throughput": {"tag": "request_throughput", "unit": "requests/sec",
                           "header": "Request Throughput", "avg": 3.0},
    "output_token_throughput": {"tag": "output_token_throughput", "unit": "tokens/sec",
                                "header": "Output Token Throughput", "avg": 300.0}},
    "was_cancelled": false, "error_summary": []})"));
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_DOUBLE_EQ(*AiperfJsonPoint(*old).output_throughput, 300);
}

}  // namespace
}  // namespace ys
