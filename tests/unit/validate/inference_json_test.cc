// Serving-benchmark results, and the JSON form of WorkloadRun.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "validate/inference_result.h"
#include "validate/ingest.h"
#include "validate/workload_run.h"

namespace ys::validate {
namespace {

constexpr std::string_view kVllm = R"({
  "date": "20251201-101500", "backend": "vllm", "model_id": "openai/gpt-oss-120b",
  "num_prompts": 1000, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 64,
  "duration": 301.52, "completed": 1000, "total_input_tokens": 1024000,
  "total_output_tokens": 1006240, "request_throughput": 3.3165, "request_goodput": null,
  "output_throughput": 3337.24, "total_token_throughput": 30089.07,
  "mean_ttft_ms": 812.31, "median_ttft_ms": 800.17, "std_ttft_ms": 95.2, "p99_ttft_ms": 1210.44,
  "mean_tpot_ms": 17.62, "median_tpot_ms": 17.39, "p99_tpot_ms": 21.05,
  "ttfts": [0.81, 0.79], "itls": [[0.017, 0.018], [0.016]], "generated_texts": ["a", "b"],
  "nested": {"output_throughput": "ignored"}
})";

TEST(IngestInferenceTest, VllmResultJson) {
  Result<InferenceResult> r = ParseServingResultsText(kVllm, "bench.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 1u);
  const ServingPoint& p = r->points[0];
  EXPECT_EQ(p.backend, "vllm");
  EXPECT_EQ(p.model_id, "openai/gpt-oss-120b");
  EXPECT_EQ(p.max_concurrency, 64);
  EXPECT_EQ(p.request_rate, "inf");
  EXPECT_EQ(p.completed, 1000);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 3337.24);
  EXPECT_DOUBLE_EQ(*p.total_token_throughput, 30089.07);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 800.17);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p99"), 1210.44);
  EXPECT_DOUBLE_EQ(p.tpot_ms.at("p50"), 17.39);
  EXPECT_EQ(p.itl_ms.count("p99"), 0u);
  InferenceResult norm = *r;
  NormaliseByGpus(norm, 32);
  // 3,337.24 / 32 = 104.28875 output tokens/s/GPU; 30,089.07 / 32 = 940.2834375.
  EXPECT_DOUBLE_EQ(*norm.points[0].output_tokens_per_s_per_gpu, 104.28875);
  EXPECT_DOUBLE_EQ(*norm.points[0].total_tokens_per_s_per_gpu, 940.2834375);
}

TEST(IngestInferenceTest, SglangJsonLinesOnePointPerLine) {
  constexpr std::string_view kJsonl =
      R"({"backend": "sglang", "max_concurrency": 16, "completed": 512, "input_throughput": 11220.0, "output_throughput": 1402.5, "median_ttft_ms": 402.1})"
      "\n"
      R"({"backend": "sglang", "max_concurrency": 64, "completed": 512, "input_throughput": 26486.4, "output_throughput": 3310.8, "median_ttft_ms": 790.6})"
      "\n";
  Result<InferenceResult> r = ParseServingResultsText(kJsonl, "bench.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 2u);
  EXPECT_EQ(r->points[1].max_concurrency, 64);
  EXPECT_DOUBLE_EQ(*r->points[1].total_token_throughput, 26486.4 + 3310.8);
}

TEST(IngestInferenceTest, MalformedJsonNamesTheFile) {
  for (std::string_view bad : {"{\"output_throughput\": 12", "{\"a\": }", "{} x", "   "}) {
    Result<InferenceResult> r = ParseServingResultsText(bad, "bench.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("bench.json"), std::string::npos);
    EXPECT_NE(r.status().message().find("expected"), std::string::npos);
  }
  Result<InferenceResult> r =
      ParseServingResultsText(R"({"output_throughput": "fast"})", "bench.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("record 1: field 'output_throughput' is \"fast\"; expected a "
                                      "number"),
            std::string::npos)
      << r.status().message();
}

TEST(IngestInferenceTest, StatusesOfServingResults) {
  IngestOptions o;
  o.gpus = 32;
  Result<WorkloadRun> ok = IngestText(kVllm, o, "bench.json");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, RunStatus::kSuccess);
  EXPECT_EQ(ok->format, LogFormat::kInferenceJson);

  Result<WorkloadRun> failed = IngestText(
      R"({"max_concurrency": 64, "num_prompts": 1000, "completed": 990, "output_throughput": 3000.0})",
      o, "b.json");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status, RunStatus::kInvalidMeasurement);
  EXPECT_EQ(failed->reason,
            "not a measure of serving capacity: concurrency 64: requests_lost: 990 of 1000 "
            "requests completed");

  Result<WorkloadRun> empty = IngestText(R"({"date": "x"})", o, "b.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->status, RunStatus::kNoData);

  Result<WorkloadRun> rl = IngestText(
      R"({"timing/train/total_step_time": [1.0, 2.0], "performance/tokens_per_sec_per_gpu": [5]})",
      o, "metrics.json");
  ASSERT_TRUE(rl.ok());
  EXPECT_EQ(rl->status, RunStatus::kUnsupportedFramework);
}

// Python writes NaN and Infinity bare: Infinity as a rate is "inf", a NaN figure is absent with a
// note; the same words inside a string are left alone.
TEST(IngestInferenceTest, BareNonFiniteValues) {
  Result<InferenceResult> r = ParseServingResultsText(
      R"({"backend": "sglang", "request_rate": Infinity, "label": "NaN Infinity -Infinity",)"
      R"( "completed": 0, "output_throughput": 0.0, "mean_ttft_ms": NaN, "p99_ttft_ms": -Infinity,)"
      R"( "median_ttft_ms": 1.5e2, "std_ttft_ms": -3})",
      "b.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 1u);
  const ServingPoint& p = r->points[0];
  EXPECT_EQ(p.request_rate, "inf");
  EXPECT_EQ(p.ttft_ms.count("mean"), 0u);
  EXPECT_EQ(p.ttft_ms.count("p99"), 0u);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("p50"), 150.0);
  EXPECT_DOUBLE_EQ(p.ttft_ms.at("std"), -3.0);
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_EQ(p.notes[0], "'mean_ttft_ms' is NaN: read as absent");
  EXPECT_EQ(p.notes[1], "'p99_ttft_ms' is -Infinity: read as absent");

  // A bare word that is not one of Python's reads as text: the field that wants a number says so.
  Result<InferenceResult> worse =
      ParseServingResultsText(R"({"output_throughput": Nope})", "b.json");
  ASSERT_FALSE(worse.ok());
  EXPECT_NE(
      worse.status().message().find("field 'output_throughput' is \"Nope\"; expected a number"),
      std::string::npos)
      << worse.status().message();
}

// vLLM's optional percentiles (--metric-percentiles 90,95,99.9), the per-request lengths
// summarised while streaming, the older "request_goodput:" key, SGLang's server_info.
TEST(IngestInferenceTest, PercentilesLengthsAndServerInfo) {
  Result<InferenceResult> r = ParseServingResultsText(
      R"({"backend": "vllm", "num_prompts": 3, "completed": 3, "failed": 0, "request_rate": "inf",)"
      R"( "request_goodput:": null, "output_throughput": 90.0, "p90_ttft_ms": 12.0,)"
      R"( "p99.9_itl_ms": 40.5, "p95_e2el_ms": 800.0, "output_lens": [100, 128, 128],)"
      R"( "input_lens": [64, 64, 64], "errors": ["", "", ""], "tensor_parallel_size": "8"})"
      "\n"
      R"({"backend": "sglang", "dataset_name": "random", "random_input_len": 1000,)"
      R"( "random_output_len": 1000, "random_range_ratio": 1.0, "completed": 80, "max_concurrency": 8,)"
      R"( "output_throughput": 5000.0, "server_info": {"tp_size": 4, "dp_size": 2,)"
      R"( "enable_dp_attention": false, "nested": {"tp_size": 99}}, "accept_length": null})",
      "b.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 2u);
  const ServingPoint& v = r->points[0];
  EXPECT_DOUBLE_EQ(v.ttft_ms.at("p90"), 12.0);
  EXPECT_DOUBLE_EQ(v.itl_ms.at("p99.9"), 40.5);
  EXPECT_DOUBLE_EQ(v.e2el_ms.at("p95"), 800.0);
  EXPECT_DOUBLE_EQ(v.osl_tokens.at("min"), 100.0);
  EXPECT_DOUBLE_EQ(v.osl_tokens.at("max"), 128.0);
  EXPECT_DOUBLE_EQ(v.osl_tokens.at("mean"), 356.0 / 3);
  EXPECT_DOUBLE_EQ(v.isl_tokens.at("min"), 64.0);
  EXPECT_EQ(v.tp, 8);
  EXPECT_FALSE(v.gpus.has_value());  // replicas unknown: TP alone is no GPU count
  const ServingPoint& s = r->points[1];
  EXPECT_EQ(s.tool, "sglang");
  EXPECT_DOUBLE_EQ(*s.isl_asked, 1000);
  EXPECT_EQ(s.tp, 4);
  EXPECT_EQ(s.gpus, 8);  // 4-way TP x 2 replicas
}

WorkloadRun RichRun() {
  Result<WorkloadRun> r = IngestText(
      "Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU\n"
      "iteration        1/       2 | elapsed time per iteration (ms): 9089.0 | global batch "
      "size:   512 | lm loss: 8.1 | grad norm: 0.042 |\n"
      "iteration        2/       2 | elapsed time per iteration (ms): 9091.5 | grad norm: nan |\n",
      IngestOptions{.window = {1, 2},
                    .seq_len = 8192,
                    .gpus = 64,
                    .peak_tflops = 989,
                    .config = LlmbConfig{.path = "c.yaml",
                                         .framework = "megatron_bridge",
                                         .model_name = "llama3.1",
                                         .scale = 64}},
      "log-x_1_0.out");
  EXPECT_TRUE(r.ok());
  r->superseded_logs = {"log-x_1_old.out"};
  return *r;
}

TEST(IngestWorkloadRunJsonTest, RoundTripsExactlyIncludingNaN) {
  WorkloadRun run = RichRun();
  ASSERT_EQ(run.status, RunStatus::kInvalidGradNorm);
  nlohmann::ordered_json j = ToJson(run);
  EXPECT_EQ(j["nonfinite_grad_norms"][0]["value"], "nan");
  EXPECT_EQ(j["samples"][1]["grad_norm"], "nan");
  std::string text = j.dump();
  Result<WorkloadRun> back = WorkloadRunFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ToJson(*back).dump(), text);
  EXPECT_TRUE(std::isnan(back->nonfinite_grad_norms[0].value));
  EXPECT_EQ(back->shape, run.shape);
  EXPECT_EQ(back->derived, run.derived);
  EXPECT_EQ(back->config, run.config);

  // A run without NaNs compares equal field by field.
  Result<WorkloadRun> clean = IngestText(kVllm, IngestOptions{.gpus = 8}, "bench.json");
  ASSERT_TRUE(clean.ok());
  Result<WorkloadRun> clean_back =
      WorkloadRunFromJson(nlohmann::json::parse(ToJson(*clean).dump()));
  ASSERT_TRUE(clean_back.ok()) << clean_back.status().message();
  EXPECT_EQ(*clean_back, *clean);
}

TEST(IngestWorkloadRunJsonTest, FromJsonNamesTheBadField) {
  nlohmann::json j = nlohmann::json::parse(ToJson(RichRun()).dump());
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string want;
  } cases[] = {
      {[](nlohmann::json& x) { x["status"] = "great"; }, "'status'"},
      {[](nlohmann::json& x) { x["format"] = 3; }, "'format': expected a string"},
      {[](nlohmann::json& x) { x.erase("window"); }, "'window': expected present"},
      {[](nlohmann::json& x) { x["window"]["first_step"] = "35"; }, "'window.first_step'"},
      {[](nlohmann::json& x) { x["samples"][1]["step_time_s"] = "slow"; },
       "'samples[1].step_time_s': expected a number"},
      {[](nlohmann::json& x) { x["step_time_s"]["mean"] = nullptr; }, "'step_time_s.mean'"},
      {[](nlohmann::json& x) { x["schema_version"] = 99; }, "schema_version 99"},
      {[](nlohmann::json& x) { x["notes"] = "none"; }, "'notes': expected an array of strings"},
  };
  for (const Case& c : cases) {
    nlohmann::json bad = j;
    c.edit(bad);
    Result<WorkloadRun> r = WorkloadRunFromJson(bad);
    ASSERT_FALSE(r.ok()) << c.want;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos)
        << r.status().message() << "\nwant: " << c.want;
  }
  EXPECT_FALSE(WorkloadRunFromJson(nlohmann::json::array()).ok());
}

TEST(IngestWorkloadRunJsonTest, StatusNames) {
  for (RunStatus s :
       {RunStatus::kSuccess, RunStatus::kIncomplete, RunStatus::kNoData, RunStatus::kNoLog,
        RunStatus::kUnsupportedFramework, RunStatus::kInvalidGradNorm}) {
    EXPECT_EQ(ParseRunStatus(RunStatusName(s)), s);
  }
  WorkloadRun none = NoLogRun("suite/llama3.1_70b", "no log-*.out under runs/llama3.1_70b");
  EXPECT_EQ(none.status, RunStatus::kNoLog);
  EXPECT_EQ(RunStatusName(none.status), std::string("no_log"));
}

}  // namespace
}  // namespace ys::validate
