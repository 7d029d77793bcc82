// The serving-benchmark JSON reader (src/formats/serving_json.cc, parsing in
// validate/inference_result.cc) on the real vLLM and SGLang result files of
// tests/fixtures/real/serving/{vllm,sglang}/ (SOURCES.md there): each is claimed as
// inference-json, its figures equal the file's, and its status is the verdict written there.
#include <gtest/gtest.h>

#include <any>

#include "core/format_registry.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

validate::WorkloadRun ReadServingJsonReal(const std::string& file) {
  const std::string path = std::string(YS_FIXTURES_DIR) + "/real/serving/" + file;
  auto head = ReadFormatHead(path);
  EXPECT_TRUE(head.ok()) << path;
  auto chosen = ChooseFormat(path, head.ok() ? *head : "");
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return {};
  EXPECT_EQ(chosen->format->info.name, "inference-json") << file;
  auto read = chosen->format->read(FormatRequest{.path = path});
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  return std::any_cast<validate::WorkloadRun>(*read);
}

bool HasNote(const validate::ServingPoint& p, std::string_view text) {
  for (const std::string& n : p.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// Nine appended runs (JSON Lines, the older "request_goodput:" key): every one averages ~270
// output tokens of the 500 its --metadata says were asked (ignore_eos was off).
TEST(ServingJsonRealTest, VllmAppendedRunsAllStopShort) {
  validate::WorkloadRun run = ReadServingJsonReal("vllm/vllm_bench_automation_results.json");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 9u);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.tool, "vllm");
  EXPECT_EQ(p.model_id, "meta-llama/Llama-3.2-3B-Instruct");
  EXPECT_EQ(p.request_rate, "10.0");
  EXPECT_EQ(p.mode, validate::ServingMode::kServing);
  EXPECT_EQ(p.num_prompts, 300);
  EXPECT_EQ(p.completed, 300);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 2258.212337970085);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 10619.275253401978);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 98.69780922984769);
  EXPECT_DOUBLE_EQ(p.itl_ms.at("std"), 4.023339545674027);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 500);
  EXPECT_DOUBLE_EQ(*p.isl_asked, 1000);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 80945.0 / 300);
  EXPECT_TRUE(HasNote(p, "OSL asked from the record's 'output_len' (a --metadata key)"));
  EXPECT_EQ(run.inference->points[2].request_rate, "inf");
  EXPECT_EQ(run.inference->points[2].mode, validate::ServingMode::kOffline);
  EXPECT_DOUBLE_EQ(run.inference->points[8].tpot_ms.at("p50"), 44.02160330742376);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  for (const validate::ServingPoint& q : run.inference->points) {
    ASSERT_EQ(q.flaws.size(), 1u) << q.request_rate;
    EXPECT_EQ(q.flaws[0].rfind("outputs_short: outputs average 2", 0), 0u) << q.flaws[0];
  }
}

TEST(ServingJsonRealTest, VllmSingleResultStopsShort) {
  validate::WorkloadRun run = ReadServingJsonReal("vllm/vllm_bench_automation_10qps_result.json");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1u);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_DOUBLE_EQ(*p.request_throughput, 8.325406649602808);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("mean"), 13.577995860227945);
  EXPECT_EQ(run.status, validate::RunStatus::kInvalidMeasurement);
  EXPECT_EQ(run.reason,
            "not a measure of serving capacity: request rate 10.0: outputs_short: outputs "
            "average 270.2 tokens of the 500 asked (46.0% short)");
}

// Old SGLang lines: no request_throughput, no num_prompts, random lengths (ratio 0). The runs
// at 1, 2 and 4 req/s (random) and 4 and 8 req/s (ShareGPT) kept up with the offered rate.
TEST(ServingJsonRealTest, SglangRateSweepRateLimitedPoints) {
  validate::WorkloadRun run = ReadServingJsonReal("sglang/h200_llama_3_3_70b_online_output.jsonl");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 7u);
  const auto& pts = run.inference->points;
  const validate::ServingPoint& p = pts[0];
  EXPECT_EQ(p.tool, "sglang");
  EXPECT_EQ(p.request_rate, "1.0");
  EXPECT_DOUBLE_EQ(*p.request_throughput, 300 / 298.3675805060193);
  EXPECT_TRUE(HasNote(p, "request throughput = completed / duration"));
  EXPECT_FALSE(p.osl_asked.has_value());
  EXPECT_TRUE(HasNote(p, "random lengths (random_range_ratio 0)"));
  EXPECT_TRUE(HasNote(pts[5], "lengths from the sharegpt dataset: none asked"));
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p50"), 7819.046192569658);
  EXPECT_DOUBLE_EQ(*pts[4].output_throughput, 4288.049348197696);
  for (size_t i : {0u, 1u, 2u, 5u, 6u}) {
    ASSERT_EQ(pts[i].flaws.size(), 1u) << i;
    EXPECT_EQ(pts[i].flaws[0].rfind("rate_limited:", 0), 0u) << pts[i].flaws[0];
  }
  EXPECT_TRUE(pts[3].flaws.empty());
  EXPECT_TRUE(pts[4].flaws.empty());
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess);  // the 8 and 16 req/s random points
}

// "request_rate": Infinity (bare, as Python writes it); ratio 1: ISL 1 / OSL 512 asked and got.
TEST(ServingJsonRealTest, SglangOfflineInfinityRate) {
  validate::WorkloadRun run = ReadServingJsonReal("sglang/h200_deepseek_dp_mla_output.jsonl");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 1u);
  const validate::ServingPoint& p = run.inference->points[0];
  EXPECT_EQ(p.request_rate, "inf");
  EXPECT_EQ(p.mode, validate::ServingMode::kOffline);
  EXPECT_DOUBLE_EQ(*p.isl_asked, 1);
  EXPECT_DOUBLE_EQ(*p.osl_asked, 512);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("mean"), 512);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 12412.394674113431);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 10014.104524045251);
  EXPECT_TRUE(p.flaws.empty());
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess);
}

TEST(ServingJsonRealTest, SglangOfflineSweep) {
  validate::WorkloadRun run = ReadServingJsonReal("sglang/h200_llama_3_3_70b_offline_output.jsonl");
  ASSERT_TRUE(run.inference && run.inference->points.size() == 7u);
  for (const validate::ServingPoint& p : run.inference->points) {
    EXPECT_EQ(p.mode, validate::ServingMode::kOffline);
    EXPECT_TRUE(p.flaws.empty()) << p.flaws[0];
  }
  EXPECT_DOUBLE_EQ(*run.inference->points[5].output_throughput, 6648.4389207099675);
  EXPECT_EQ(run.inference->points[2].completed, 800);
  EXPECT_EQ(run.status, validate::RunStatus::kSuccess);
}

}  // namespace
}  // namespace ys
