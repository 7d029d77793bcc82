// The serving proxy (src/workloads/serving/): the scaled shape it serves, the engine's cache
// bookkeeping, and a small run of serving.llama3.1_8b end to end on this host (measurement names,
// counts, the prediction beside each figure; no speed asserted).
#include <gtest/gtest.h>

#include "core/registry.h"
#include "predict/model_spec.h"
#include "testing/bench_test_util.h"
#include "workloads/proxy_plan.h"
#include "workloads/serving/internal/cpu_serving_engine.h"
#include "workloads/serving/internal/serving_prediction.h"
#include "workloads/serving/serving_unit.h"

namespace ys::workloads {
namespace {

predict::ModelSpec ServingTestSpec() {
  auto spec = predict::LoadModelSpec(std::string(YS_SOURCE_DIR) + "/models/llama3.1_8b.toml");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  predict::ModelSpec s = CpuScaledSpec(*spec, 16);
  s.shape.layers = 2;
  return s;
}

// Two calibrations, before and after the stream, give each rate from the mean of their times: a
// pass at 10 GFLOP/s and one at 5 average to 6.67 (the times 0.1 and 0.2 s per GFLOP average to
// 0.15), the host time is their mean, and a missing rate stays missing.
TEST(ServingTest, BracketedRatesAverageTheTimes) {
  const CpuServeRates before{.prefill_flops_per_s = 10e9,
                             .weight_bytes_per_s = 4e9,
                             .host_seconds_per_sequence = 1e-4,
                             .method = "a"};
  const CpuServeRates after{.prefill_flops_per_s = 5e9,
                            .weight_bytes_per_s = 0,
                            .host_seconds_per_sequence = 3e-4,
                            .method = "b"};
  const CpuServeRates r = BracketCpuServeRates(before, after);
  EXPECT_NEAR(r.prefill_flops_per_s, 2 / (1 / 10e9 + 1 / 5e9), 1);
  EXPECT_EQ(r.weight_bytes_per_s, 0);
  EXPECT_DOUBLE_EQ(r.host_seconds_per_sequence, 2e-4);
  EXPECT_NE(r.method.find("before the stream: a"), std::string::npos) << r.method;
  EXPECT_NE(r.method.find("after it: b"), std::string::npos) << r.method;
}

TEST(ServingTest, ScaledShapeOfLlama8b) {
  auto shape = ServingShapeOf(ServingTestSpec());
  ASSERT_TRUE(shape.ok()) << shape.status().message();
  EXPECT_EQ(shape->hidden, 256);
  EXPECT_EQ(shape->heads, 2);
  EXPECT_EQ(shape->kv_heads, 1);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_EQ(shape->ffn, 896);
  ASSERT_EQ(shape->matrices.size(), 4u);
  EXPECT_EQ(shape->matrices[0].name, "attn.qkv");
  EXPECT_EQ(shape->matrices[0].out, 512);      // (2 + 2 x 1) heads x 128
  EXPECT_EQ(shape->matrices[2].out, 2 * 896);  // SwiGLU: gate and up
  auto moe = predict::LoadModelSpec(std::string(YS_SOURCE_DIR) + "/models/qwen3_235b.toml");
  ASSERT_TRUE(moe.ok());
  EXPECT_EQ(ServingShapeOf(*moe).status().code(), StatusCode::kUnsupported);
}

TEST(ServingTest, EngineKeepsEachSlotsCache) {
  predict::ModelSpec spec = ServingTestSpec();
  spec.shape.vocab_size = 512;
  auto shape = ServingShapeOf(spec);
  ASSERT_TRUE(shape.ok());
  auto e = CpuServingEngine::Open(*shape, 2, 8, 3);
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE((*e)->Prefill(1, 0).ok());
  EXPECT_EQ((*e)->context_of(1), 8);
  EXPECT_EQ((*e)->context_of(0), 0);
  EXPECT_FALSE((*e)->Decode({0}).ok()) << "slot 0 holds no sequence";
  ASSERT_TRUE((*e)->Prefill(0, 1).ok());
  ASSERT_TRUE((*e)->Decode({0, 1}).ok());
  ASSERT_TRUE((*e)->Decode({0, 1}).ok());
  EXPECT_EQ((*e)->context_of(0), 10);
  EXPECT_EQ((*e)->context_of(1), 10);
  ASSERT_TRUE((*e)->Decode({1}).ok());
  EXPECT_FALSE((*e)->Decode({1}).ok()) << "the cache holds ISL + OSL tokens";
  EXPECT_FALSE((*e)->Prefill(2, 2).ok());
}

TEST(ServingTest, SmallRunEndToEnd) {
  const RegisteredUnit* u =
      UnitRegistry::Global().Find(UnitKind::kBenchmark, "serving.llama3.1_8b");
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(u->info.in_quick_profile);
  bench::BenchOptions o{.data_dir = YS_SOURCE_DIR};
  for (auto [name, v] : {std::pair{"concurrency", 2}, {"isl", 16}, {"osl", 4}, {"requests", 4}})
    o.unit_params.Set("serving.llama3.1_8b", name, v);
  BenchmarkResult r = ys::testing::RunLiveBenchmark("serving.llama3.1_8b", o);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  const std::string p = "serving.llama3.1_8b.";
  const Measurement* ttft = ys::testing::FindMeasurement(r, p + "ttft");
  ASSERT_NE(ttft, nullptr);
  EXPECT_EQ(ttft->samples.size(), 4u);
  EXPECT_EQ(ttft->params.at("concurrency"), "2");
  EXPECT_EQ(ttft->params.at("scale"), "1/16");
  const Measurement* tpot = ys::testing::FindMeasurement(r, p + "tpot");
  ASSERT_NE(tpot, nullptr);
  EXPECT_EQ(tpot->samples.size(), 4u);
  for (const char* name : {"output_tokens_per_s", "tokens_per_s_per_user", "predicted_ttft",
                           "predicted_tpot", "predicted_output_tokens_per_s"}) {
    const Measurement* m = ys::testing::FindMeasurement(r, p + name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_GT(m->value, 0) << name;
  }
  const Measurement* pred = ys::testing::FindMeasurement(r, p + "predicted_tpot");
  EXPECT_NE(pred->params.at("terms").find("decode_weights"), std::string::npos);
  EXPECT_EQ(ys::testing::FindMeasurement(r, p + "requests_completed")->value, 4);
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_EQ(r.tables[0].rows.size(), 3u);  // TTFT, TPOT, output tokens/s
  EXPECT_NE(r.summary.find("predicted"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace ys::workloads
