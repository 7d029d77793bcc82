// GenAI-Perf's console table (src/formats/genai_perf_console.cc) on the real outputs of
// tests/fixtures/real/serving/genai-perf/ (SOURCES.md there holds each verdict) and on literal
// text.
#include <gtest/gtest.h>

#include <any>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string GenaiConsoleReal(const std::string& f) {
  return std::string(YS_FIXTURES_DIR) + "/real/serving/genai-perf/" + f;
}

validate::WorkloadRun ReadGenaiConsoleFile(const std::string& path) {
  auto head = ReadFormatHead(path);
  EXPECT_TRUE(head.ok());
  auto chosen = ChooseFormat(path, head.ok() ? *head : "");
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return {};
  EXPECT_EQ(chosen->format->info.name, "genai-perf-console");
  auto read = chosen->format->read(FormatRequest{.path = path});
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

Result<std::any> ReadGenaiConsoleText(std::string_view text) {
  const RegisteredFormat* f = FormatRegistry::Global().Find("genai-perf-console");
  EXPECT_NE(f, nullptr);
  return f->read(FormatRequest{.path = "genai-perf.log", .text = text});
}

// Box-drawing characters of the tables.
constexpr const char* kGcHead =
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓\n"
    "┃                         Statistic ┃      avg ┃      min ┃      p99 ┃\n"
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩\n";
constexpr const char* kGcFoot =
    "└───────────────────────────────────┴──────────┴──────────┴──────────┘\n";

TEST(GenaiPerfConsoleTest, IssueTableAtConcurrency1HasTooFewRequests) {
  validate::WorkloadRun run =
      ReadGenaiConsoleFile(GenaiConsoleReal("genai_perf_pa_issue393_c1_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  EXPECT_EQ(run.inference->format, "genai-perf-console");
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "genai-perf");
  EXPECT_EQ(p.max_concurrency, 1);  // from the artifact directory "...-concurrency1/"
  EXPECT_EQ(p.mode, validate::ServingMode::kLatency);
  EXPECT_EQ(p.completed, 7);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 44.63);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 0.20);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("mean"), 1193.02);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p75"), 1192.33);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 17.05);  // Inter Token Latency
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("max"), 4972.59);
  EXPECT_DOUBLE_EQ(p.isl_tokens.at("mean"), 3999.86);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  ASSERT_EQ(p.flaws.size(), 1u) << run.reason;
  EXPECT_EQ(p.flaws[0].rfind("too_few_requests: 7 requests measured", 0), 0u) << p.flaws[0];
}

// A non-streaming run: no TTFT rows. The README's concurrency of 24 is not in the table, so the
// 62 requests cannot be judged against it (SOURCES.md): read as far as the table goes.
TEST(GenaiPerfConsoleTest, SbnbTableFiguresEqualTheTable) {
  validate::WorkloadRun run =
      ReadGenaiConsoleFile(GenaiConsoleReal("genai_perf_sbnb_sglang_rtx5060ti_console.txt"));
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.completed, 62);
  EXPECT_FALSE(p.max_concurrency.has_value());
  EXPECT_DOUBLE_EQ(*p.output_throughput, 1745.56);
  EXPECT_DOUBLE_EQ(*p.request_throughput, 1.73);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("mean"), 11527.18);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("min"), 444);
  EXPECT_TRUE(p.ttft_ms.empty());
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess) << run.reason;
}

// A sweep: one table per load, each with the lines that name its concurrency; a wrapped name is
// joined to the row above; GenAI-Perf's telemetry table is not a point.
TEST(GenaiPerfConsoleTest, ASweepGivesOnePointPerTable) {
  std::string text;
  for (int c : {8, 16}) {
    text += "INFO Running Perf Analyzer : 'perf_analyzer -m m --concurrency-range " +
            std::to_string(c) + " -u localhost:8000'\n";
    text += "                NVIDIA GenAI-Perf | LLM Metrics\n";
    text += kGcHead;
    text += "│          Time To First Token (ms) │ 1,100.00 │   900.00 │ 1,500.00 │\n";
    text += "│  Output Token Throughput Per User │    40.00 │    30.00 │    50.00 │\n";
    text += "│                 (tokens/sec/user) │          │          │          │\n";
    text += "│ Output Token Throughput (per sec) │   " + std::to_string(c * 100) +
            ".00 │      N/A │      N/A │\n";
    text += "│             Request Count (count) │   400.00 │      N/A │      N/A │\n";
    text += kGcFoot;
    text += "INFO Generating artifacts/m-openai-chat-concurrency" + std::to_string(c) +
            "/profile_export_genai_perf.csv\n";
  }
  text += "                NVIDIA GenAI-Perf | Power Metrics\n";
  text += kGcHead;
  text += "│          Time To First Token (ms) │ 9,999.00 │      N/A │      N/A │\n";
  text += kGcFoot;
  auto read = ReadGenaiConsoleText(text);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const auto& run = std::any_cast<const validate::WorkloadRun&>(*read);
  ASSERT_TRUE(run.inference);
  ASSERT_EQ(run.inference->points.size(), 2u);
  EXPECT_EQ(run.inference->points[0].max_concurrency, 8);
  EXPECT_EQ(run.inference->points[1].max_concurrency, 16);
  EXPECT_DOUBLE_EQ(*run.inference->points[1].output_throughput, 1600);
  EXPECT_DOUBLE_EQ(*run.inference->points[0].output_tokens_per_s_per_user, 40);
  EXPECT_DOUBLE_EQ(run.inference->points[1].ttft_ms.at("p99"), 1500);
}

TEST(GenaiPerfConsoleTest, ATableWithoutItsTitleIsAFragment) {
  std::string text = std::string(kGcHead) +
                     "│ Output Token Throughput (per sec) │   520.87 │      N/A │      N/A │\n" +
                     kGcFoot;
  const RegisteredFormat* f = FormatRegistry::Global().Find("genai-perf-console");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->sniff(text).confidence, FormatSniff::kFragment);
  EXPECT_DOUBLE_EQ(f->sniff(f->info.example).confidence, FormatSniff::kWhole);
  // AIPerf's table heads its first column "Metric", not "Statistic": not this format.
  EXPECT_LT(f->sniff("NVIDIA AIPerf | LLM Metrics\n┃ Metric ┃ avg ┃\n").confidence,
            FormatSniff::kFragment);
  auto read = ReadGenaiConsoleText(text);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const auto& run = std::any_cast<const validate::WorkloadRun&>(*read);
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1);
  EXPECT_DOUBLE_EQ(*run.inference->points[0].output_throughput, 520.87);
}

TEST(GenaiPerfConsoleTest, MalformedInputIsAClearError) {
  std::string text = std::string("NVIDIA GenAI-Perf | LLM Metrics\n") + kGcHead +
                     "│          Time To First Token (ms) │     fast │   900.00 │ 1,500.00 │\n" +
                     kGcFoot;
  auto read = ReadGenaiConsoleText(text);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(
                "genai-perf.log:5: 'Time To First Token (ms)': \"fast\" in column avg"),
            std::string::npos)
      << read.status().message();
  auto none = ReadGenaiConsoleText("nothing here\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no GenAI-Perf table"), std::string::npos);
}

}  // namespace
}  // namespace ys
