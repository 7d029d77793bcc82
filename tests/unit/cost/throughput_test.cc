// Where the cost arithmetic's throughput comes from (a run's proxy measurements, a validated
// workload and its score) and the per-workload cost both `yardstick cost` and the report use,
// against hand-computed figures.
#include "cost/throughput.h"

#include <gtest/gtest.h>

namespace ys::cost {
namespace {

// 2.50 per GPU-hour, all on demand.
PriceModel Flat250() {
  PriceModel p;
  p.name = "flat";
  p.on_demand_per_gpu_hour = 2.5;
  p.on_demand_share = 1;
  return p;
}

Measurement Tps(const std::string& model, double v) {
  return {.name = "proxy." + model + ".tokens_per_s_per_gpu", .value = v, .unit = "tokens/s"};
}

TEST(CostThroughput, RunProxiesFromMeasurementsAndBenchmarks) {
  RunDocument doc;
  doc.measurements = {Tps("llama3.1_8b", 1011), {.name = "proxy.llama3.1_8b.step_time"}};
  BenchmarkResult b;
  b.measurements = {Tps("gpt_oss", 500), {.name = "proxy..tokens_per_s_per_gpu", .value = 1}};
  doc.benchmarks = {b};
  auto found = RunThroughputs(doc, "run.json");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].workload, "llama3.1_8b");
  EXPECT_EQ(found[0].source, "proxy.llama3.1_8b in run.json");
  EXPECT_DOUBLE_EQ(found[0].tokens_per_s_per_gpu, 1011);
  EXPECT_FALSE(found[0].ReferenceTokensPerSPerGpu().has_value());
  EXPECT_EQ(found[1].workload, "gpt_oss");
}

TEST(CostThroughput, AProxyPriceIsAnEstimateWithItsReasons) {
  RunDocument doc;
  Measurement m = Tps("llama3.1_8b", 1011);
  m.params = {{"backend", "cpu"}, {"dtype", "fp32"}, {"layers", "2"},
              {"ranks", "2"},     {"scale", "1/16"}, {"recipe", "h100/bf16/128"}};
  doc.measurements = {m};
  auto found = RunThroughputs(doc, "run.json");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].measured_ranks, 2);
  const std::vector<std::string> want = {"a proxy of one training step, not a run of the recipe",
                                         "shapes scaled down 1/16",
                                         "measured on CPUs (fp32), not on the recipe's GPUs",
                                         "the recipe h100/bf16/128, 2 layers run"};
  EXPECT_EQ(found[0].estimate_reasons, want);
  auto c = CostOfWorkload(Flat250(), found[0], 512, 1e12);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->estimate_reasons.size(), 5u);
  EXPECT_EQ(c->estimate_reasons.back(), "2 ranks measured, 512 GPUs priced");
  // The same proxy priced at its own rank count: no extrapolation to state.
  auto same = CostOfWorkload(Flat250(), found[0], 2, 1e12);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->estimate_reasons.size(), 4u);
}

TEST(CostThroughput, AValidatedOrGivenThroughputIsNoEstimate) {
  auto v = ValidatedWorkloadThroughput("llama3.1_70b", 900, 0.97, 64, "validation.json");
  auto c = CostOfWorkload(Flat250(), v, std::nullopt, 1e12);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->estimate_reasons.empty());
}

TEST(CostThroughput, PickWorkload) {
  std::vector<WorkloadThroughput> found = {{.workload = "a", .tokens_per_s_per_gpu = 1},
                                           {.workload = "b", .tokens_per_s_per_gpu = 2}};
  auto several = PickWorkload(found, "", "v.json");
  ASSERT_FALSE(several.ok());
  EXPECT_EQ(several.status().message(),
            "v.json: several workloads (a, b): choose one with --workload");
  auto b = PickWorkload(found, "proxy.b", "v.json");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->workload, "b");
  auto missing = PickWorkload(found, "c", "v.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--workload c (present: a, b)"), std::string::npos);
  EXPECT_FALSE(PickWorkload({}, "", "v.json").ok());
}

TEST(CostThroughput, CostOfAValidatedWorkload) {
  // 2.50 ÷ (10000 × 3600) × 1e6 = 0.069444 per million tokens. 15T on 512 GPUs: 2929687.5 s =
  // 33.91 days, 48829 billed minutes, 48829 ÷ 60 × 512 × 2.50 = 1041685.33. At the reference
  // (10000 ÷ 0.9): 43946 billed minutes, 937514.67; the gap 104170.67, 1/0.9 − 1 = 11.1%.
  WorkloadThroughput t = ValidatedWorkloadThroughput("w", 10000, 0.9, 512, "validation.json");
  EXPECT_EQ(t.source, "w in validation.json");
  ASSERT_TRUE(t.ReferenceTokensPerSPerGpu().has_value());
  EXPECT_NEAR(*t.ReferenceTokensPerSPerGpu(), 11111.111, 1e-3);
  auto c = CostOfWorkload(Flat250(), t, std::nullopt, 15e12);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->per_million_tokens, 0.0694444, 1e-6);
  EXPECT_EQ(c->training.gpus, 512);
  EXPECT_NEAR(c->training.wall_days, 33.9084, 1e-4);
  EXPECT_EQ(c->training.billed_minutes, 48829);
  EXPECT_NEAR(c->training.total_cost, 1041685.33, 0.01);
  ASSERT_TRUE(c->gap.has_value());
  EXPECT_NEAR(c->gap->extra_fraction, 0.1111111, 1e-6);
  EXPECT_EQ(c->gap->at_reference.billed_minutes, 43946);
  EXPECT_NEAR(c->gap->extra_cost, 104170.67, 0.01);
}

TEST(CostThroughput, GpusAndReferenceOverrides) {
  WorkloadThroughput t{.workload = "p", .source = "proxy.p", .tokens_per_s_per_gpu = 10000};
  auto c = CostOfWorkload(Flat250(), t, std::nullopt, 1e12);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->training.gpus, kDefaultGpus);
  EXPECT_FALSE(c->gap.has_value());
  auto with_ref = CostOfWorkload(Flat250(), t, 16, 1e12, 12500.0);
  ASSERT_TRUE(with_ref.ok());
  EXPECT_EQ(with_ref->training.gpus, 16);
  ASSERT_TRUE(with_ref->gap.has_value());
  EXPECT_NEAR(with_ref->gap->score, 0.8, 1e-12);
}

TEST(CostThroughput, InvalidInputsAreNamed) {
  WorkloadThroughput zero{.workload = "p", .source = "proxy.p in run.json"};
  auto c = CostOfWorkload(Flat250(), zero, std::nullopt, 1e12);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "proxy.p in run.json: tokens/s/GPU: 0 is out of range (expected a number from 1e-06 to "
            "1e+09)");
  WorkloadThroughput t{.workload = "p", .source = "x", .tokens_per_s_per_gpu = 1};
  EXPECT_FALSE(CostOfWorkload(Flat250(), t, 0, 1e12).ok());
  EXPECT_FALSE(CostOfWorkload(Flat250(), t, 8, 0).ok());
  EXPECT_FALSE(CostOfWorkload(Flat250(), t, 8, 1e12, -1.0).ok());
  auto gpus = CostOfWorkload(Flat250(), t, 0, 1e12);
  EXPECT_EQ(gpus.status().message(),
            "--gpus: 0 is out of range (expected a whole number from 1 to 10000000)");
  // A validation's score near 0 would make the reference throughput absurd.
  WorkloadThroughput tiny_score{
      .workload = "p", .source = "v.json", .tokens_per_s_per_gpu = 1000, .score = 1e-300};
  auto gap = CostOfWorkload(Flat250(), tiny_score, 8, 1e12);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.status().message().find("v.json: reference tokens/s/GPU"), std::string::npos)
      << gap.status().message();
}

}  // namespace
}  // namespace ys::cost
